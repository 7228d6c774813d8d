package train

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Set is one named labelled dataset.
type Set struct {
	Name     string
	Examples []Example
}

// LoadDev reads the four development sets of ../shared/datasets/injection.
func LoadDev(datasetsDir string) ([]Set, error) {
	dir := filepath.Join(datasetsDir, "injection")
	var cse []struct {
		UserInput string `json:"user_input"`
	}
	if err := readJSON(filepath.Join(dir, "cyberseceval_prompt_injection.json"), &cse); err != nil {
		return nil, err
	}
	var nin []struct {
		Prompt string `json:"prompt"`
	}
	if err := readJSON(filepath.Join(dir, "notinject_one_benign.json"), &nin); err != nil {
		return nil, err
	}
	var wg []struct {
		Prompt string `json:"prompt"`
	}
	if err := readJSON(filepath.Join(dir, "wildguard_benign.json"), &wg); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "gptfuzzer_jailbreak_templates.csv"))
	if err != nil {
		return nil, fmt.Errorf("open gptfuzzer: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read gptfuzzer: %w", err)
	}
	sets := []Set{{Name: "cyberseceval"}, {Name: "gptfuzzer"}, {Name: "notinject"}, {Name: "wildguard"}}
	for _, r := range cse {
		sets[0].Examples = append(sets[0].Examples, Example{r.UserInput, true})
	}
	for i, r := range recs {
		if i == 0 || len(r) < 2 {
			continue // header
		}
		sets[1].Examples = append(sets[1].Examples, Example{FillTemplate(r[1]), true})
	}
	for _, r := range nin {
		sets[2].Examples = append(sets[2].Examples, Example{r.Prompt, false})
	}
	for _, r := range wg {
		sets[3].Examples = append(sets[3].Examples, Example{r.Prompt, false})
	}
	return sets, nil
}

// LoadCorpusDir reads every *.jsonl file of dir in name order: the
// project's own corpus (project.jsonl: hand-written attacks and benign
// lines, casual chat) and the benign documentation chunks (docs.jsonl,
// written by gen_docs.go).
func LoadCorpusDir(dir string) ([]Example, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("list corpus: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("corpus %s: no *.jsonl file", dir)
	}
	sort.Strings(paths)
	var out []Example
	for _, p := range paths {
		ex, err := LoadCorpus(p)
		if err != nil {
			return nil, err
		}
		out = append(out, ex...)
	}
	return out, nil
}

// LoadCorpus reads one corpus file: JSON lines {"text", "attack"}.
func LoadCorpus(path string) ([]Example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open corpus: %w", err)
	}
	defer f.Close()
	var out []Example
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r struct {
			Text   string `json:"text"`
			Attack *bool  `json:"attack"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Attack == nil || r.Text == "" {
			return nil, fmt.Errorf("corpus %s line %d: want {\"text\": string, \"attack\": bool}", path, n)
		}
		out = append(out, Example{r.Text, *r.Attack})
	}
	return out, sc.Err()
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}
