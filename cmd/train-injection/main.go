// Command train-injection fits the prompt-injection model embedded in the
// gateway (governance/injection/model.bin) from the development datasets and
// the project corpus. Deterministic: the same inputs give the same bytes.
//
//	go run ./cmd/train-injection -datasets ../shared/datasets   (make train-injection)
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/governance-gateway/gateway/governance/injection/train"
)

func main() {
	datasets := flag.String("datasets", "../shared/datasets", "directory of the development datasets")
	corpus := flag.String("corpus", "governance/injection/corpus", "directory of the project corpus (*.jsonl, lines {text, attack})")
	out := flag.String("out", "governance/injection/model.bin", "model file to write")
	flag.Parse()
	if err := run(*datasets, *corpus, *out); err != nil {
		fmt.Fprintln(os.Stderr, "train-injection:", err)
		os.Exit(1)
	}
}

func run(datasets, corpus, out string) error {
	sets, err := train.LoadDev(datasets)
	if err != nil {
		return err
	}
	ex, err := train.LoadCorpusDir(corpus)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "train-injection: corpus: %d examples\n", len(ex))
	for _, s := range sets {
		ex = append(ex, s.Examples...)
		fmt.Fprintf(os.Stderr, "train-injection: %s: %d examples\n", s.Name, len(s.Examples))
	}
	m := train.Fit(ex, train.Featurize(ex), train.Config{})
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	fmt.Fprintf(os.Stderr, "train-injection: %d examples, wrote %s (%d bytes)\n", len(ex), out, len(b))
	return nil
}
