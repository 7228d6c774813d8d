package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/governance-gateway/gateway/governance/pii"
	"github.com/governance-gateway/gateway/governance/scan"
)

// piiTypes maps the presidio entity types to our policies.
var piiTypes = []struct{ entity, policy string }{
	{"EMAIL_ADDRESS", pii.Email},
	{"PHONE_NUMBER", pii.Phone},
	{"CREDIT_CARD", pii.CreditCard},
	{"US_SSN", pii.USSSN},
	{"IBAN_CODE", pii.IBAN},
	{"IP_ADDRESS", pii.IPAddress},
}

// PII measures the PII scanner on presidio-research's synthetic dataset v2,
// per entity type, at the engine's default threshold (confidence >= 0.5).
func PII(datasetsDir string) ([]Table, error) {
	path := filepath.Join(datasetsDir, "pii", "presidio_synth_dataset_v2.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var rows []struct {
		FullText string `json:"full_text"`
		Spans    []struct {
			EntityType string `json:"entity_type"`
			Start      int    `json:"start_position"`
			End        int    `json:"end_position"`
		} `json:"spans"`
	}
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	s := pii.New()
	counts := map[string]*Row{}
	for _, t := range piiTypes {
		counts[t.policy] = &Row{Label: t.entity + " (" + t.policy + ")"}
	}
	policyOf := map[string]string{}
	for _, t := range piiTypes {
		policyOf[t.entity] = t.policy
	}
	var hits []scan.Hit
	for _, r := range rows {
		// Presidio positions are character (code point) offsets.
		off := runeOffsets(r.FullText)
		gold := map[string][]scan.Span{}
		for _, sp := range r.Spans {
			p, ok := policyOf[sp.EntityType]
			if !ok || sp.Start < 0 || sp.End >= len(off) || sp.Start >= sp.End {
				continue
			}
			gold[p] = append(gold[p], scan.Span{Start: off[sp.Start], End: off[sp.End]})
		}
		hits = s.Scan(r.FullText, hits[:0])
		pred := map[string][]scan.Span{}
		for _, h := range hits {
			if h.Confidence >= 0.5 {
				pred[h.Policy] = append(pred[h.Policy], h.Spans...)
			}
		}
		for _, t := range piiTypes {
			c := counts[t.policy]
			for _, p := range pred[t.policy] {
				if overlapsAny(p, gold[t.policy]) {
					c.TP++
				} else {
					c.FP++
				}
			}
			for _, g := range gold[t.policy] {
				if !overlapsAny(g, pred[t.policy]) {
					c.FN++
				}
			}
		}
	}
	tab := Table{Category: "PII (presidio synth v2, 1,500 texts)"}
	all := Row{Label: "all six", Target: "P>=0.95 R>=0.90"}
	for _, t := range piiTypes {
		c := counts[t.policy]
		c.Target = "P>=0.95 R>=0.90"
		c.Pass = c.Precision() >= 0.95 && c.Recall() >= 0.90
		all.TP += c.TP
		all.FP += c.FP
		all.FN += c.FN
		tab.Rows = append(tab.Rows, *c)
	}
	all.Pass = all.Precision() >= 0.95 && all.Recall() >= 0.90
	tab.Rows = append(tab.Rows, all)
	tab.Notes = []string{"A prediction (confidence >= 0.5) of type T is a TP when it overlaps a gold span of T, else a FP; a gold span of T no prediction of T overlaps is a FN. TN is not defined for span detection (FPR and balanced accuracy columns are not meaningful here). Presidio's default analyzer: P 0.685 / R 0.603 overall (all entity types)."}
	return []Table{tab}, nil
}

// runeOffsets maps a code point index to its byte offset (len = runes+1).
func runeOffsets(s string) []int {
	off := make([]int, 0, len(s)+1)
	for i := range s {
		off = append(off, i)
	}
	off = append(off, len(s))
	return off
}

func overlapsAny(s scan.Span, set []scan.Span) bool {
	for _, g := range set {
		if s.Start < g.End && g.Start < s.End {
			return true
		}
	}
	return false
}
