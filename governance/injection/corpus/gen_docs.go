//go:build ignore

// gen_docs writes benign documentation chunks for the injection corpus
// (docs.jsonl): the doc comments of a fixed list of Go standard library
// packages and the Go release's own markdown documents (Go's BSD-3-Clause
// licence: docs_LICENSE.txt). Tool outputs are documents, and before
// these lines the model had seen documents only as attacks' hosts: 65% of
// 8 KB README excerpts scored as injection.
//
// Deterministic for a given Go release: packages and files in a fixed
// order, paragraphs packed greedily into chunks of 400-1,200 bytes. The
// committed docs.jsonl was written from go1.26.8; regenerating it from
// another release changes the model's training data, so it is a
// deliberate step, not part of make train-injection. (This project's own
// docs are left out: they would tie the model to every docs edit.)
//
//	go run gen_docs.go -goroot "$(go env GOROOT)" > docs.jsonl
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// packages: API documentation of many kinds (networking, encodings, files,
// text, time, crypto, databases, processes).
var packages = []string{
	"bufio", "bytes", "compress/gzip", "container/heap", "context", "crypto/tls", "database/sql",
	"encoding/csv", "encoding/json", "encoding/xml", "errors", "flag", "fmt", "html/template",
	"text/template", "time", "unicode/utf8", "archive/zip", "image", "runtime", "testing",
}

// goMarkdown are the Go release's own markdown documents (design notes,
// READMEs): pages of headings, lists, tables and code, as fetched docs
// read.
var goMarkdown = []string{
	"doc/godebug.md", "src/cmd/compile/README.md", "src/cmd/compile/abi-internal.md",
	"src/cmd/compile/internal/ssa/README.md", "src/cmd/compile/internal/types2/README.md",
	"src/cmd/vendor/golang.org/x/sys/unix/README.md", "src/cmd/vendor/golang.org/x/telemetry/README.md",
	"src/internal/trace/tracev2/EXPERIMENTS.md", "src/math/big/calibrate.md", "src/runtime/HACKING.md",
}

const minChunk, maxChunk = 400, 1200

// linuxAMD64 selects the files of one fixed build, whatever the host.
var linuxAMD64 = func() build.Context {
	c := build.Default
	c.GOOS, c.GOARCH, c.CgoEnabled = "linux", "amd64", true
	return c
}()

func main() {
	goroot := flag.String("goroot", "", "GOROOT of the Go release to read")
	flag.Parse()
	var paras [][]string
	for _, p := range packages {
		ps, err := packageParagraphs(filepath.Join(*goroot, "src", p))
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen_docs:", p, err)
			os.Exit(1)
		}
		paras = append(paras, ps)
	}
	for _, f := range goMarkdown {
		b, err := os.ReadFile(filepath.Join(*goroot, f))
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen_docs:", err)
			os.Exit(1)
		}
		// Markdown as a fetched page reads: headings, lists and tables
		// among the blocks.
		paras = append(paras, paragraphs(string(b)))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for _, ps := range paras {
		for _, c := range chunks(ps) {
			if err := enc.Encode(map[string]any{"text": c, "attack": false}); err != nil {
				fmt.Fprintln(os.Stderr, "gen_docs:", err)
				os.Exit(1)
			}
		}
	}
}

// packageParagraphs returns the package comment and the doc comments of
// exported declarations, as plain text paragraphs, in source order.
func packageParagraphs(dir string) ([]string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		// Only the files of one build: encoding/json keeps two
		// implementations under build tags, and reading both made the
		// output depend on map order.
		if ok, err := linuxAMD64.MatchFile(dir, n); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "main" || strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "std/"+filepath.Base(dir))
	if err != nil {
		return nil, err
	}
	texts := []string{pkg.Doc}
	for _, vs := range [][]*doc.Value{pkg.Consts, pkg.Vars} {
		for _, v := range vs {
			texts = append(texts, v.Doc)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			texts = append(texts, f.Doc)
		}
	}
	funcs(pkg.Funcs)
	for _, t := range pkg.Types {
		texts = append(texts, t.Doc)
		funcs(t.Funcs)
		funcs(t.Methods)
	}
	var out []string
	for _, t := range texts {
		out = append(out, paragraphs(string(pkg.Text(t)))...)
	}
	return out, nil
}

// paragraphs splits text into its blank-line separated blocks, trimmed,
// their line breaks kept.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// chunks packs consecutive paragraphs into texts of minChunk-maxChunk
// bytes; a longer paragraph is cut at a line or word boundary.
func chunks(paras []string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() >= minChunk/2 {
			out = append(out, cur.String())
		}
		cur.Reset()
	}
	for _, p := range paras {
		for len(p) > maxChunk {
			cut := strings.LastIndexAny(p[:maxChunk], "\n ")
			if cut <= 0 {
				cut = maxChunk
			}
			if cur.Len() > 0 {
				flush()
			}
			cur.WriteString(strings.TrimSpace(p[:cut]))
			flush()
			p = strings.TrimSpace(p[cut:])
		}
		if cur.Len() > 0 && cur.Len()+2+len(p) > maxChunk {
			flush()
		}
		if cur.Len() > 0 {
			cur.WriteString("\n\n")
		}
		cur.WriteString(p)
		if cur.Len() >= minChunk {
			flush()
		}
	}
	flush()
	return out
}
