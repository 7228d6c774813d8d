package grounding

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// lexiconData is the word-meaning table derived from WordNet 3.1 by
// cmd/build-lexicon (make lexicon); its licence notice is
// lexicon_LICENSE.txt beside it. gzip of:
//
//	magic "GWNL1\n"
//	lemmas: count, then each front-coded (shared prefix length, suffix
//	  length, suffix bytes), sorted; single lower-case words only
//	synsets: count, then the end of each part of speech (noun, verb,
//	  adjective, adverb: ids are grouped in that order), then the id of
//	  physical_entity (the root of concrete things)
//	per lemma: its synsets, count then ids, by part of speech then in
//	  WordNet's sense order (most frequent first)
//	per lemma: one byte, its usual part of speech (0 noun, 1 verb, 2
//	  adjective, 3 adverb: the most tagged uses in SemCor, else the most
//	  senses)
//	per synset: its parents (hypernyms, instance hypernyms; an adjective
//	  satellite's head), count then ids; then its name: 0 none, 2*lemma+1
//	  a lemma, 2*n a string of n bytes that follows (only synsets with
//	  children are named)
//	per lemma: its derivationally related forms (with pertainyms and
//	  participles): count then delta-coded lemma ids; then its antonyms,
//	  count then delta-coded 4*lemma+part of speech of the pair
//	irregular forms: front-coded as the lemmas, then per form its base
//	  lemmas, count then delta-coded ids
//
// All numbers are uvarints.
//
//go:embed lexicon.bin
var lexiconData []byte

const lexiconMagic = "GWNL1\n"

// strtab is a set of byte strings with ids (in order), looked up by
// FNV-1a hash in an open-addressing table whose slots hold the hash with
// the id, so that a probe reads the string only when the hashes agree.
type strtab struct {
	buf   []byte
	off   []int32  // id -> start in buf; one more entry: the end
	table []uint64 // slot -> hash<<32 | id+1, 0 when empty; a power of two long
}

func (t *strtab) len() int { return len(t.off) - 1 }

func (t *strtab) str(id int32) []byte { return t.buf[t.off[id]:t.off[id+1]] }

func (t *strtab) build() {
	n := 1
	for n < 2*t.len() {
		n *= 2
	}
	t.table = make([]uint64, n)
	for id := range t.len() {
		h := fnvAdd(fnvOffset, t.str(int32(id)))
		i := strtabSlot(h, n)
		for t.table[i] != 0 {
			i = (i + 1) & (n - 1)
		}
		t.table[i] = uint64(h)<<32 | uint64(id+1)
	}
}

func strtabSlot(h uint32, n int) int { return int(h^h>>15) & (n - 1) }

// find returns the id of w, -1 when absent.
func (t *strtab) find(w []byte) int32 { return t.findHash(w, fnvAdd(fnvOffset, w)) }

// findHash is find with w's hash h (fnvAdd(fnvOffset, w)) made by the caller.
func (t *strtab) findHash(w []byte, h uint32) int32 {
	n := len(t.table)
	if n == 0 {
		return -1
	}
	for i := strtabSlot(h, n); ; i = (i + 1) & (n - 1) {
		v := t.table[i]
		if v == 0 {
			return -1
		}
		if uint32(v>>32) == h {
			if id := int32(uint32(v)) - 1; string(t.str(id)) == string(w) {
				return id
			}
		}
	}
}

// lexicon is the decoded table: CSR arrays (off has one entry more than
// the rows; row i is val[off[i]:off[i+1]]).
type lexicon struct {
	lemmas strtab
	pos    []uint8 // per lemma: bit p set when it has a synset of part of speech p (0 n, 1 v, 2 a, 3 r)
	usual  []uint8 // per lemma: its usual part of speech
	// The part of speech of synset id s is the first p with s < posEnd[p].
	posEnd             [4]int32
	senseOff, senses   []int32
	parentOff, parents []int32
	depth              []uint8 // per synset: the fewest parent steps to a root
	desc               []int32 // per synset: its hyponyms, theirs and so on (counted once per path)
	concrete           []bool  // per synset: a kind of physical entity
	// The hypernym forest by each synset's first parent, numbered in
	// preorder: synset s's subtree is the preorder numbers
	// [pre[s], pre[s]+size[s]); byPre maps a number back to its synset;
	// tdepth is the depth in the forest.
	pre, size, byPre []int32
	tdepth           []uint8
	name             []int32 // per synset: -1 none, a lemma id, or -2-i for names[i]
	names            []string
	relOff, rel      []int32
	antOff, ant      []int32
	forms            strtab
	baseOff, bases   []int32
}

var (
	lexOnce sync.Once
	lexVal  *lexicon
	lexErr  error
)

// lex returns the lexicon, decoded on first use; nil if the embedded table
// is broken (the checker then works without word meaning).
func lex() *lexicon {
	lexOnce.Do(func() { lexVal, lexErr = decodeLexicon(lexiconData) })
	return lexVal
}

// Preload decodes the lexicon now rather than on the first Check (62-106
// ms here), and reports a broken embedded table, with which the checker
// would work without word meaning.
func Preload() error {
	if lex() == nil {
		return fmt.Errorf("grounding lexicon: %w", lexErr)
	}
	return nil
}

type lexReader struct {
	b   []byte
	err error
}

func (r *lexReader) uv() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > 1<<30 {
		r.err = errors.New("lexicon: bad number")
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *lexReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.err = errors.New("lexicon: truncated")
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *lexReader) frontCoded(t *strtab) {
	n := r.uv()
	if r.err != nil || n > len(r.b) {
		r.err = errors.New("lexicon: bad string count")
		return
	}
	t.off = make([]int32, 1, n+1)
	var prev []byte
	for range n {
		shared, k := r.uv(), r.uv()
		if shared > len(prev) {
			r.err = errors.New("lexicon: bad prefix")
		}
		suf := r.bytes(k)
		if r.err != nil {
			return
		}
		st := len(t.buf)
		t.buf = append(append(t.buf, prev[:shared]...), suf...)
		prev = t.buf[st:]
		t.off = append(t.off, int32(len(t.buf)))
	}
	t.build()
}

// ids reads count then ids (delta-coded when delta), each below limit,
// appending them to val and the new end to off.
func (r *lexReader) ids(off, val []int32, limit int, delta bool) ([]int32, []int32) {
	n := r.uv()
	prev := 0
	for range n {
		v := r.uv()
		if delta {
			v += prev
			prev = v
		}
		if v >= limit {
			r.err = errors.New("lexicon: id out of range")
			return off, val
		}
		val = append(val, int32(v))
	}
	return append(off, int32(len(val))), val
}

func decodeLexicon(data []byte) (*lexicon, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	// gzip's trailer states the size: one buffer, no regrowth.
	var out bytes.Buffer
	if n := len(data); n >= 4 {
		out.Grow(int(binary.LittleEndian.Uint32(data[n-4:])) + 1)
	}
	if _, err := io.Copy(&out, zr); err != nil {
		return nil, err
	}
	raw := out.Bytes()
	if !bytes.HasPrefix(raw, []byte(lexiconMagic)) {
		return nil, errors.New("lexicon: bad magic")
	}
	r := &lexReader{b: raw[len(lexiconMagic):]}
	l := &lexicon{}
	r.frontCoded(&l.lemmas)
	nl := l.lemmas.len()
	ns := r.uv()
	for p := range l.posEnd {
		l.posEnd[p] = int32(r.uv())
	}
	phys := int32(r.uv())
	if int(phys) >= ns {
		return nil, errors.New("lexicon: bad root")
	}
	l.senseOff = make([]int32, 1, nl+1)
	l.pos = make([]uint8, nl)
	for i := 0; i < nl && r.err == nil; i++ {
		l.senseOff, l.senses = r.ids(l.senseOff, l.senses, ns, false)
		for _, s := range l.senses[l.senseOff[i]:] {
			l.pos[i] |= 1 << l.synPOS(s)
		}
	}
	l.usual = r.bytes(nl)
	if r.err == nil {
		l.usual = slices.Clone(l.usual)
	}
	l.parentOff = make([]int32, 1, ns+1)
	l.name = make([]int32, ns)
	for s := 0; s < ns && r.err == nil; s++ {
		l.parentOff, l.parents = r.ids(l.parentOff, l.parents, ns, false)
		switch v := r.uv(); {
		case v == 0:
			l.name[s] = -1
		case v&1 == 1:
			if v>>1 >= nl {
				r.err = errors.New("lexicon: bad name")
			}
			l.name[s] = int32(v >> 1)
		default:
			l.name[s] = int32(-2 - len(l.names))
			l.names = append(l.names, string(r.bytes(v>>1)))
		}
	}
	l.relOff = make([]int32, 1, nl+1)
	l.antOff = make([]int32, 1, nl+1)
	for i := 0; i < nl && r.err == nil; i++ {
		l.relOff, l.rel = r.ids(l.relOff, l.rel, nl, true)
		l.antOff, l.ant = r.ids(l.antOff, l.ant, 4*nl, true)
	}
	r.frontCoded(&l.forms)
	nf := l.forms.len()
	l.baseOff = make([]int32, 1, nf+1)
	for i := 0; i < nf && r.err == nil; i++ {
		l.baseOff, l.bases = r.ids(l.baseOff, l.bases, nl, true)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, errors.New("lexicon: trailing bytes")
	}
	l.depth = make([]uint8, ns)
	for s := range ns {
		l.depthOf(int32(s))
	}
	for s := range l.depth {
		l.depth[s]-- // memoised as depth+1
	}
	// Descendants: in order of the longest path from a root, deepest
	// first (so after all their hyponyms), each adds itself and its own
	// to its parents.
	longest := make([]int32, ns)
	var walk func(s int32) int32
	walk = func(s int32) int32 {
		if longest[s] == 0 {
			longest[s] = 1 // a cycle guard, as depthOf
			d := int32(1)
			for _, p := range l.parentsOf(s) {
				d = max(d, walk(p)+1)
			}
			longest[s] = d
		}
		return longest[s]
	}
	// Counting sort by longest, deepest first.
	maxLong := int32(0)
	for s := range ns {
		maxLong = max(maxLong, walk(int32(s)))
	}
	start := make([]int32, maxLong+2)
	for _, d := range longest {
		start[maxLong-d+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	order := make([]int32, ns)
	for s, d := range longest {
		order[start[maxLong-d]] = int32(s)
		start[maxLong-d]++
	}
	// Concrete: physical_entity and its descendants (parents first: the
	// reverse order).
	l.concrete = make([]bool, ns)
	l.concrete[phys] = true
	for i := len(order) - 1; i >= 0; i-- {
		s := order[i]
		for _, p := range l.parentsOf(s) {
			if l.concrete[p] {
				l.concrete[s] = true
			}
		}
	}
	l.desc = make([]int32, ns)
	for _, s := range order {
		for _, p := range l.parentsOf(s) {
			l.desc[p] += 1 + l.desc[s]
		}
	}
	l.numberForest()
	return l, nil
}

// numberForest numbers the synsets in preorder of the forest of first
// parents (iteratively: no recursion on the input).
func (l *lexicon) numberForest() {
	ns := len(l.name)
	// Children by first parent, CSR.
	off := make([]int32, ns+1)
	for s := range ns {
		if ps := l.parentsOf(int32(s)); len(ps) > 0 {
			off[ps[0]+1]++
		}
	}
	for i := 1; i <= ns; i++ {
		off[i] += off[i-1]
	}
	kids := make([]int32, off[ns])
	fill := slices.Clone(off[:ns])
	for s := range ns {
		if ps := l.parentsOf(int32(s)); len(ps) > 0 {
			kids[fill[ps[0]]] = int32(s)
			fill[ps[0]]++
		}
	}
	l.pre, l.size, l.byPre = make([]int32, ns), make([]int32, ns), make([]int32, 0, ns)
	l.tdepth = make([]uint8, ns)
	var stack []int32 // synset ids; a negative entry -1-s closes s
	for r := range ns {
		if len(l.parentsOf(int32(r))) > 0 {
			continue
		}
		stack = append(stack[:0], int32(r))
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if s < 0 {
				s = -1 - s
				l.size[s] = int32(len(l.byPre)) - l.pre[s]
				continue
			}
			l.pre[s] = int32(len(l.byPre))
			l.byPre = append(l.byPre, s)
			stack = append(stack, -1-s)
			for k := off[s+1] - 1; k >= off[s]; k-- {
				c := kids[k]
				l.tdepth[c] = min(l.tdepth[s]+1, 250)
				stack = append(stack, c)
			}
		}
	}
}

// under: synset s is a or in a's subtree of the forest of first parents.
func (l *lexicon) under(a, s int32) bool {
	return l.pre[s]-l.pre[a] >= 0 && l.pre[s]-l.pre[a] < l.size[a]
}

// depthOf computes the depth of s (memoised in l.depth as depth+1; a
// parent cycle, which WordNet does not have, counts as a root).
func (l *lexicon) depthOf(s int32) uint8 {
	if d := l.depth[s]; d != 0 {
		return d - 1
	}
	l.depth[s] = 1 // guards against a cycle
	d := uint8(0)
	for i, p := range l.parentsOf(s) {
		if pd := l.depthOf(p) + 1; i == 0 || pd < d {
			d = pd
		}
	}
	if d > 250 {
		d = 250
	}
	l.depth[s] = d + 1
	return d
}

func (l *lexicon) synPOS(s int32) int {
	for p, e := range l.posEnd {
		if s < e {
			return p
		}
	}
	return 3
}

func (l *lexicon) sensesOf(lemma int32) []int32 {
	return l.senses[l.senseOff[lemma]:l.senseOff[lemma+1]]
}

func (l *lexicon) parentsOf(s int32) []int32 {
	return l.parents[l.parentOff[s]:l.parentOff[s+1]]
}

func (l *lexicon) relatedOf(lemma int32) []int32 { return l.rel[l.relOff[lemma]:l.relOff[lemma+1]] }

// antonymsOf returns the antonyms of lemma, each 4*lemma + the part of
// speech in which the two are opposites.
func (l *lexicon) antonymsOf(lemma int32) []int32 { return l.ant[l.antOff[lemma]:l.antOff[lemma+1]] }

// formOf: the lower-case word w can be a form of lemma b as part of speech
// p: nouns take a plural "-s", adjectives and adverbs "-er" and "-est",
// verbs any ending; an irregular form is taken as it comes.
func (l *lexicon) formOf(w []byte, b int32, p int) bool {
	lw := l.lemmas.str(b)
	if string(lw) == string(w) || p == 1 || l.forms.find(w) >= 0 {
		return true
	}
	n := len(w)
	if p == 0 {
		return n > 0 && w[n-1] == 's'
	}
	return n > 2 && (string(w[n-2:]) == "er" || n > 3 && string(w[n-3:]) == "est")
}

// synName returns the name of synset s ("" when it has none).
func (l *lexicon) synName(s int32) string {
	switch n := l.name[s]; {
	case n >= 0:
		return string(l.lemmas.str(n))
	case n <= -2:
		return l.names[-2-n]
	}
	return ""
}

// morphRules are WordNet's detachment rules (morphy) by the last byte of
// the inflected ending: the ending, its replacement, and the parts of
// speech (bits as lexicon.pos) whose base forms they make.
var morphRules = func() (t [256][]morphRule) {
	for _, d := range [...]struct {
		suffix, ending string
		pos            uint8
	}{
		{"s", "", 1 | 2}, {"ses", "s", 1}, {"xes", "x", 1}, {"zes", "z", 1}, {"ches", "ch", 1}, {"shes", "sh", 1},
		{"men", "man", 1}, {"ies", "y", 1 | 2}, {"es", "e", 2}, {"es", "", 2}, {"ed", "e", 2}, {"ed", "", 2},
		{"ing", "e", 2}, {"ing", "", 2}, {"er", "", 4}, {"est", "", 4}, {"er", "e", 4}, {"est", "e", 4},
	} {
		r := morphRule{suffix: d.suffix, ending: d.ending, pos: d.pos}
		c := r.suffix[len(r.suffix)-1]
		for k := range len(r.suffix) {
			r.tail |= uint32(r.suffix[len(r.suffix)-1-k]) << (8 * k)
			r.mask |= 0xff << (8 * k)
		}
		t[c] = append(t[c], r)
	}
	return t
}()

// maxMorphSuffix is the longest suffix of morphRules ("ches", "shes"), all
// of which a morphRule's tail holds.
const maxMorphSuffix = 4

type morphRule struct {
	suffix, ending string
	pos            uint8
	// The suffix's bytes packed as baseForms packs a word's last four (the
	// last byte lowest), and the mask of its length: one comparison.
	tail, mask uint32
}

// baseForms appends the lemmas of the lower-case word w to out: w itself
// when it is a lemma, its irregular bases ("went": "go"), and the lemmas
// the detachment rules make of it ("purchased": "purchase").
func (l *lexicon) baseForms(w []byte, out []int32) []int32 {
	n0 := len(out)
	if len(w) == 0 {
		return out
	}
	h := fnvAdd(fnvOffset, w) // once for both tables
	if id := l.lemmas.findHash(w, h); id >= 0 {
		out = append(out, id)
	}
	if f := l.forms.findHash(w, h); f >= 0 {
		for _, b := range l.bases[l.baseOff[f]:l.baseOff[f+1]] {
			if !containsID(out[n0:], b) {
				out = append(out, b)
			}
		}
	}
	rules := morphRules[w[len(w)-1]]
	if len(rules) == 0 {
		return out
	}
	// tail packs w's last bytes (the last lowest) for the suffix tests.
	var tail uint32
	for i := max(0, len(w)-maxMorphSuffix); i < len(w); i++ {
		tail |= uint32(w[i]) << (8 * (len(w) - 1 - i))
	}
	var buf [40]byte
	for _, r := range rules {
		if tail&r.mask != r.tail || len(w) <= len(r.suffix)+1 || len(w)-len(r.suffix)+len(r.ending) > len(buf) {
			continue
		}
		b := append(append(buf[:0], w[:len(w)-len(r.suffix)]...), r.ending...)
		if id := l.lemmas.find(b); id >= 0 && l.pos[id]&r.pos != 0 && !containsID(out[n0:], id) {
			out = append(out, id)
		}
	}
	return out
}

func containsID(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
