// Package eval measures the governance scanners and the grounding checker on
// labelled development data (../shared/datasets) and prints one table per
// category. It is run by `make eval` (gateway eval); tests use the project's
// own small fixtures, never these files.
package eval

import (
	"fmt"
	"io"
	"strings"
)

// Row is one line of a result table: a label (entity type, dataset file...)
// and its counts. Metrics derive from the counts so every table is auditable.
type Row struct {
	Label string
	TP    int // positives flagged
	FP    int // negatives flagged
	FN    int // positives missed
	TN    int // negatives passed
	// Spans marks span detection, where an FP is a wrong prediction and
	// there are no negatives to count: TN, FPR and balanced accuracy are
	// not defined.
	Spans bool
	// Target is the acceptance threshold in words, e.g. "P>=0.95 R>=0.90".
	Target string
	// Pass reports whether the row meets Target.
	Pass bool
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Precision is TP / (TP + FP).
func (r Row) Precision() float64 { return ratio(r.TP, r.TP+r.FP) }

// Recall is TP / (TP + FN).
func (r Row) Recall() float64 { return ratio(r.TP, r.TP+r.FN) }

// FPR is FP / (FP + TN).
func (r Row) FPR() float64 { return ratio(r.FP, r.FP+r.TN) }

// BalancedAccuracy is the mean of recall and specificity.
func (r Row) BalancedAccuracy() float64 {
	return (r.Recall() + ratio(r.TN, r.TN+r.FP)) / 2
}

// count adds one labelled example to r: positive (an attack, an
// inconsistent summary), flagged or not.
func count(r *Row, positive, flagged bool) {
	switch {
	case positive && flagged:
		r.TP++
	case positive:
		r.FN++
	case flagged:
		r.FP++
	default:
		r.TN++
	}
}

// setTarget gives a row of one set its target: recall on a set of
// attacks, the false-positive rate on a benign one.
func setTarget(r *Row) {
	if r.TP+r.FN > 0 {
		r.Target, r.Pass = "recall>=0.90", r.Recall() >= 0.90
	} else {
		r.Target, r.Pass = "FPR<=0.05", r.FPR() <= 0.05
	}
}

// Table is one category's results.
type Table struct {
	Category string
	Rows     []Row
	Notes    []string
}

// Write prints t as a Markdown table.
func (t Table) Write(w io.Writer) {
	fmt.Fprintf(w, "\n### %s\n\n", t.Category)
	fmt.Fprintln(w, "| set | TP | FP | FN | TN | precision | recall | FPR | balanced acc | target | met |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range t.Rows {
		met := "no"
		if r.Pass {
			met = "yes"
		}
		// A ratio without a denominator (the FPR of a set of attacks only,
		// the precision of a row of negatives only) is printed as "—",
		// not as a 0 or 1 that reads like a result.
		hasPos, hasNeg := r.TP+r.FN > 0, r.FP+r.TN > 0 && !r.Spans
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n",
			r.Label, r.TP, r.FP, r.FN, r.TN, cell(r.Precision(), r.TP+r.FP > 0), cell(r.Recall(), hasPos),
			cell(r.FPR(), hasNeg), cell(r.BalancedAccuracy(), hasPos && hasNeg), r.Target, met)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(n))
	}
}

// cell formats a ratio of a table, "—" when it is not defined.
func cell(v float64, defined bool) string {
	if !defined {
		return "—"
	}
	return fmt.Sprintf("%.3f", v)
}
