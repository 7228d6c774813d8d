package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunHelpFlag: "gateway <command> -h" is a request for help, not a usage
// error: it prints the flags and exits 0, without a "flag: help requested"
// error line. Only flag parsing runs, so nothing is started.
func TestRunHelpFlag(t *testing.T) {
	cases := []struct {
		args []string
		flag string // a flag the help text must list
	}{
		{[]string{"serve", "-h"}, "-role"},
		{[]string{"serve", "--help"}, "-demo"},
		{[]string{"broker", "-h"}, "-fsync"},
		{[]string{"rebuild", "-h"}, "-lake"},
		{[]string{"dev-llm", "-h"}, "-addr"},
		{[]string{"eval", "-h"}, "-only"},
		{[]string{"seed", "-h"}, "-traces"},
		{[]string{"bench", "ingest", "-h"}, "-fresh-rate"},
		{[]string{"bench", "verify", "-h"}, "-per-rate"},
		{[]string{"bench", "proxy", "-h"}, "-stream-rates"},
		{[]string{"bench", "console", "-h"}, "-database-url"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != 0 {
				t.Errorf("exit code %d, want 0; stderr: %s", code, stderr.String())
			}
			if strings.Contains(stderr.String(), "help requested") {
				t.Errorf("stderr reports an error: %s", stderr.String())
			}
			if !strings.Contains(stdout.String()+stderr.String(), tc.flag) {
				t.Errorf("help text does not list %s; stdout: %s", tc.flag, stdout.String())
			}
		})
	}
}

// TestRunUsageErrors: a bad flag stays a usage error (exit 2).
func TestRunUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "-no-such-flag"},
		{"broker", "-fsync", "sometimes"},
		{"bench"},
		{"bench", "verify", "-rates", "500,x"},
		{"bench", "verify", "-per-rate", "0s"},
		{"no-such-command"},
		{},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2; stderr: %s", args, code, stderr.String())
		}
	}
}
