package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/governance-gateway/gateway/governance/eval"
)

// evalCategory is one quality measurement of `gateway eval`.
type evalCategory struct {
	name string
	run  func(datasets string) ([]eval.Table, error)
}

func evalCategories() []evalCategory {
	return []evalCategory{
		{"pii", eval.PII},
		{"secrets", func(string) ([]eval.Table, error) { return eval.Secrets() }},
		{"injection", eval.Injection},
		{"grounding", eval.Grounding},
	}
}

// cmdEval prints the quality tables of the guardrails on the development
// datasets (make eval).
func cmdEval(_ context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stdout)
	datasets := fs.String("datasets", "../shared/datasets", "directory of the labelled development datasets")
	only := fs.String("only", "", "run one category: pii, secrets, injection or grounding")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if st, err := os.Stat(*datasets); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("-datasets %s: not a directory", *datasets)}
	}
	abs, _ := filepath.Abs(*datasets)
	ran := false
	failed := 0
	for _, c := range evalCategories() {
		if *only != "" && *only != c.name {
			continue
		}
		ran = true
		start := time.Now()
		tables, err := c.run(abs)
		if err != nil {
			return fmt.Errorf("eval %s: %w", c.name, err)
		}
		for _, t := range tables {
			t.Write(stdout)
			for _, r := range t.Rows {
				if !r.Pass {
					failed++
				}
			}
		}
		logger.Info("eval", "category", c.name, "tables", len(tables), "took", time.Since(start).Round(time.Millisecond))
	}
	if !ran {
		return usageError{fmt.Errorf("-only %q: want pii, secrets, injection or grounding", *only)}
	}
	fmt.Fprintf(stdout, "\n%d row(s) below target\n", failed)
	return nil
}
