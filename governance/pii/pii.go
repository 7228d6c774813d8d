// Package pii finds personal data with validated patterns: e-mail addresses,
// phone numbers, payment cards (Luhn), US social security numbers (invalid
// ranges rejected), IBANs (mod-97) and IP addresses. Like Presidio, a
// candidate's confidence moves with the words around it ("phone", "card"
// raise it; "order", "invoice" lower it).
package pii

import (
	"bytes"
	"math/bits"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/governance-gateway/gateway/governance/scan"
)

// Policy ids and placeholders of the entities.
const (
	Email      = "pii.email"
	Phone      = "pii.phone"
	CreditCard = "pii.credit_card"
	USSSN      = "pii.us_ssn"
	IBAN       = "pii.iban"
	IPAddress  = "pii.ip_address"
)

var placeholders = map[string]string{
	Email: "[EMAIL]", Phone: "[PHONE]", CreditCard: "[CREDIT_CARD]", USSSN: "[US_SSN]",
	IBAN: "[IBAN]", IPAddress: "[IP_ADDRESS]",
}

var severities = map[string]scan.Severity{
	Email: scan.SeverityMedium, Phone: scan.SeverityMedium, CreditCard: scan.SeverityHigh,
	USSSN: scan.SeverityHigh, IBAN: scan.SeverityHigh, IPAddress: scan.SeverityLow,
}

var ipv6RE = regexp.MustCompile(`[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}`)

// The SSN, card, phone and IPv4 patterns run on every digit cluster, so
// they are matched by hand (ssnAt, cardAt, phoneAt, ipv4At) with the
// leftmost-first semantics of Go's regexp; match_test.go checks them
// against these:
//
//	ssn:   \d{3}([- .]?)\d{2}([- .]?)\d{4}
//	card:  \d(?:[ -]?\d){11,18}
//	phone: (?:\+|00)?\(?\d[\d ().\-]{4,24}\d(?: ?(?:x|ext\.?|#) ?\d{1,6})?
//	ipv4:  (?:\d{1,3}\.){3}\d{1,3}

// scratch is the pooled state of one Scan: candidates and windows.
type scratch struct {
	cs, kept []cand
	wins     []window
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// Scanner finds PII. The zero value is not usable; call New.
type Scanner struct{}

// New returns a scanner. It holds no state and is safe for concurrent use.
func New() *Scanner { return &Scanner{} }

type cand struct {
	policy string
	start  int
	end    int
	conf   float64
	rank   int32 // tie-break: more specific entity types win overlaps
	seq    int32 // set by emit: the order of discovery, the last tie-break
}

// Scan appends one hit per entity found in text. Characters that hide an
// entity from a pattern but not from a reader (zero-width characters, soft
// hyphens, fullwidth digits and signs) are read through: the spans then
// cover the original bytes, hidden characters inside the entity included.
func (s *Scanner) Scan(text string, dst []scan.Hit) []scan.Hit {
	return scan.ReadThroughHidden(text, dst, s.scan)
}

func (s *Scanner) scan(text string, dst []scan.Hit) []scan.Hit {
	sc := scratchPool.Get().(*scratch)
	defer func() {
		if cap(sc.cs) <= 1<<12 && cap(sc.kept) <= 1<<12 && cap(sc.wins) <= 1<<14 {
			scratchPool.Put(sc)
		}
	}()
	cs := sc.cs[:0]
	// Regexps run only on small windows around '@' and around digit
	// clusters: Go's RE2 without a literal prefix scans at a few MB/s, and
	// most text is neither.
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '@')
		if j < 0 {
			break
		}
		at := i + j
		if st, en, ok := emailAt(text, at); ok {
			cs = append(cs, cand{policy: Email, start: st, end: en, conf: context(text, st, en, 0.9, emailCtx, noWords), rank: 5})
			i = en
			continue
		}
		i = at + 1
	}
	sc.wins = digitWindows(text, sc.wins[:0])
	for _, w := range sc.wins {
		// Cheap gates on the window before any regexp runs.
		sub := text[w[0]:w[1]]
		nd, dots, colons, letters := 0, 0, 0, 0
		ibanHead := false // two letters, two digits: how every IBAN starts
		for i := 0; i < len(sub); i++ {
			switch c := sub[i]; {
			case c >= '0' && c <= '9':
				nd++
				if i >= 2 && isLetter(sub[i-1]) && isLetter(sub[i-2]) && i+1 < len(sub) && isDigit(sub[i+1]) {
					ibanHead = true
				}
			case c == '.':
				dots++
			case c == ':':
				colons++
			case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
				letters++
			}
		}
		if ibanHead && nd >= 8 { // Ukraine's IBANs may hold only 8 digits
			cs = ibans(text, w, cs)
		}
		if nd >= 9 {
			cs = ssns(text, w, cs)
		}
		if nd >= 12 {
			cs = cards(text, w, cs)
		}
		if dots >= 3 || colons >= 2 {
			cs = ips(text, w, cs)
		}
		if nd >= 7 {
			cs = phones(text, w, cs)
		}
	}
	sc.cs = cs
	dst, sc.kept = emit(cs, sc.kept[:0], dst)
	return dst
}

func localChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("._%+-", c) >= 0
}

func domainChar(c byte) bool { return isAlnum(c) || c == '-' || c == '.' }

// emailAt expands the address around the '@' at index at: a local part of
// [A-Za-z0-9._%+-] (starting with a letter or digit, at most 64 bytes) and a
// domain of dot-separated labels ending in a 2-24 letter TLD.
// urlUserinfo: the word starting at st is the userinfo of a URL
// ("postgres://admin:pw@db", "https://bob@host"), not an address: "://"
// right before it, or before the "user:" in front of it, in one token.
func urlUserinfo(text string, st int) bool {
	if st >= 3 && text[st-3:st] == "://" {
		return true
	}
	if st == 0 || text[st-1] != ':' {
		return false // "mailto:bob@…" keeps its address: no "//"
	}
	i := st - 1
	for i > 0 && st-i <= 64 && localChar(text[i-1]) {
		i--
	}
	return i >= 3 && text[i-3:i] == "://"
}

// assetExt: tld is the file extension of an image or web asset, which no
// top-level domain is: "logo@2x.png" names an image at a pixel density.
func assetExt(tld string) bool {
	if len(tld) > 4 {
		return false
	}
	switch strings.ToLower(tld) { // no allocation: tld is short ASCII, mostly lower case
	case "png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "bmp", "ico", "tif", "tiff", "css", "js", "json", "html", "htm":
		return true
	}
	return false
}

func emailAt(text string, at int) (int, int, bool) {
	st := at
	for st > 0 && at-st < 64 && localChar(text[st-1]) {
		st--
	}
	for st < at && !isAlnum(text[st]) {
		st++
	}
	if st == at || (st > 0 && (text[st-1] == '_' || localChar(text[st-1]))) {
		return 0, 0, false
	}
	if urlUserinfo(text, st) {
		return 0, 0, false
	}
	en := at + 1
	for en < len(text) && en-at < 256 && domainChar(text[en]) {
		en++
	}
	// Drop trailing dots and hyphens (end of sentence).
	for en > at+1 && (text[en-1] == '.' || text[en-1] == '-') {
		en--
	}
	dom := text[at+1 : en]
	dot := strings.LastIndexByte(dom, '.')
	if dot <= 0 || strings.Contains(dom, "..") || dom[0] == '-' || dom[0] == '.' {
		return 0, 0, false
	}
	tld := dom[dot+1:]
	if len(tld) < 2 || len(tld) > 24 || assetExt(tld) {
		return 0, 0, false
	}
	for k := 0; k < len(tld); k++ {
		if !(tld[k] >= 'a' && tld[k] <= 'z' || tld[k] >= 'A' && tld[k] <= 'Z') {
			return 0, 0, false
		}
	}
	if en < len(text) && (text[en] == '_' || text[en] == '@') {
		return 0, 0, false
	}
	return st, en, true
}

// window is a byte range [0] to [1] of the text holding a digit cluster.
type window [2]int

// maxGap is the longest run of non-digits inside one cluster: IBAN bank codes
// (4 letters), IPv6 hex groups, "(0)", " ext. ".
const maxGap = 6

// digitWindows returns the clusters of digits, each widened by a few bytes
// for prefixes such as "+", "(", an IBAN country code.
func digitWindows(text string, out []window) []window {
	start, last := -1, -1
	add := func(i int) {
		if start >= 0 && i-last-1 > maxGap {
			out = append(out, window{max(0, start-6), min(len(text), last+2)})
			start = -1
		}
		if start < 0 {
			start = i
		}
		last = i
	}
	i := 0
	// Eight bytes at a time: most words hold no digit.
	for ; i+8 <= len(text); i += 8 {
		for m := digitMask(scan.Load8(text, i)); m != 0; m &= m - 1 {
			add(i + bits.TrailingZeros64(m)>>3)
		}
	}
	for ; i < len(text); i++ {
		if isDigit(text[i]) {
			add(i)
		}
	}
	if start >= 0 {
		out = append(out, window{max(0, start-6), min(len(text), last+2)})
	}
	return out
}

// digitMask has the high bit of each byte of x that is an ASCII digit, and
// no other bit. x^'0' maps the digits, and only them, to 0..9; adding 0x76
// to the low seven bits sets the high bit of those of 10 or more without a
// carry into the next byte.
func digitMask(x uint64) uint64 {
	y := x ^ '0'*scan.SWARLo
	return ^(y&^scan.SWARHi + 0x76*scan.SWARLo | y) & scan.SWARHi
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// boundary: the match is not glued to letters or digits on either side.
func boundary(text string, start, end int) bool {
	if start > 0 && (isAlnum(text[start-1]) || text[start-1] == '_') {
		return false
	}
	if end < len(text) && (isAlnum(text[end]) || text[end] == '_') {
		return false
	}
	return true
}

// appendDigits appends the digits of s to out.
func appendDigits(out []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			out = append(out, s[i])
		}
	}
	return out
}

// emit resolves overlaps (higher rank, then higher confidence, then longer,
// then found first wins) and appends the survivors in text order to dst.
// kept is scratch, returned for reuse.
func emit(cs, kept []cand, dst []scan.Hit) ([]scan.Hit, []cand) {
	if len(cs) == 0 {
		return dst, kept
	}
	for i := range cs {
		cs[i].seq = int32(i)
	}
	// Which candidates survive depends only on those they overlap, so the
	// overlaps are resolved apart in each run of candidates chained by
	// overlaps (most runs hold one), in text order.
	slices.SortFunc(cs, func(a, b cand) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return int(a.seq - b.seq)
	})
	for i := 0; i < len(cs); {
		j, end := i+1, cs[i].end
		for j < len(cs) && cs[j].start < end {
			end = max(end, cs[j].end)
			j++
		}
		if j == i+1 {
			kept = append(kept, cs[i])
		} else {
			kept = resolve(cs[i:j], kept)
		}
		i = j
	}
	spans := make([]scan.Span, len(kept))
	for i, c := range kept {
		spans[i] = scan.Span{Start: c.start, End: c.end}
		dst = append(dst, scan.Hit{
			Policy: c.policy, Severity: severities[c.policy], Confidence: c.conf,
			Spans: spans[i : i+1 : i+1], Placeholder: placeholders[c.policy],
		})
	}
	return dst, kept
}

// reportConf is the engine's default min_confidence: a candidate below it
// is not reported under the default policy.
const reportConf = 0.5

// byPriority orders overlapping candidates, the winner first: one the
// default policy reports over one it does not (bare nine digits after
// "call" or a country code are a phone, not the weak SSN they also are),
// then higher rank, then higher confidence, then the longer span.
func byPriority(a, b cand) int {
	switch ra, rb := a.conf >= reportConf, b.conf >= reportConf; {
	case ra != rb:
		if ra {
			return -1
		}
		return 1
	case a.rank != b.rank:
		return int(b.rank - a.rank)
	case a.conf > b.conf:
		return -1
	case a.conf < b.conf:
		return 1
	}
	return (b.end - b.start) - (a.end - a.start)
}

// resolve appends to kept, in text order, the candidates of run that
// overlap none that wins over them.
func resolve(run, kept []cand) []cand {
	slices.SortFunc(run, func(a, b cand) int {
		if c := byPriority(a, b); c != 0 {
			return c
		}
		return int(a.seq - b.seq) // discovery order, as a stable sort kept it
	})
	n := len(kept)
	for _, c := range run {
		if !slices.ContainsFunc(kept[n:], func(k cand) bool { return k.start < c.end && c.start < k.end }) {
			kept = append(kept, c)
		}
	}
	// Survivors do not overlap: their starts differ.
	slices.SortFunc(kept[n:], func(a, b cand) int { return a.start - b.start })
	return kept
}

// Context words, lower case, matched as whole words within a window before
// (and shortly after) the candidate. A wordList names one list.
type wordList uint8

const (
	emailCtx wordList = iota
	phoneCtx
	cardCtx
	ssnCtx
	ibanCtx
	ipCtx
	negCommon
	negVersion
	noWords
)

var wordLists = [noWords][]string{
	emailCtx:   {"email", "e-mail", "mail", "contact", "address"},
	phoneCtx:   {"phone", "call", "tel", "telephone", "mobile", "cell", "fax", "contact", "reach", "whatsapp", "sms", "text", "dial", "ring"},
	cardCtx:    {"card", "credit", "debit", "visa", "mastercard", "amex", "payment", "cc", "pay", "charge", "billing"},
	ssnCtx:     {"ssn", "social", "security", "taxpayer", "tin"},
	ibanCtx:    {"iban", "bank", "account", "transfer", "wire", "sepa"},
	ipCtx:      {"ip", "address", "server", "host", "client", "network", "connect", "from", "login", "logged", "ping"},
	negCommon:  {"order", "invoice", "isbn", "tracking", "ref", "reference", "serial", "sku", "part", "model", "version", "build", "ticket", "case", "po"},
	negVersion: {"version", "v", "ver", "release", "build", "firmware"},
}

// ctxWord is a slot of ctxWords: a word and its lists (bit l: wordLists[l]).
type ctxWord struct {
	word  string
	lists uint16
}

// ctxWords holds the context words made of letters and digits, placed by
// wordHash with linear probing, so a whole word of the text is looked up
// once instead of searched for once per listed word. A word with other bytes
// ("e-mail") needs no slot: its last part ("mail") is a whole word wherever
// it is, and is in the same list (TestCtxWords).
var ctxWords = func() (t [256]ctxWord) {
	for l, words := range wordLists {
		for _, w := range words {
			if !alnumWord(w) {
				continue
			}
			i := wordHash(w) // uint8: probing wraps around the table
			for t[i].word != "" && t[i].word != w {
				i++
			}
			t[i].word = w
			t[i].lists |= 1 << l
		}
	}
	return t
}()

// ctxEnds has bit last&31 of entry [len][first&31] set for each word of
// ctxWords (bytes OR-ed with 0x20): most words of the text fail this before
// any hashing.
var ctxEnds = func() (t [17][32]uint32) {
	for _, c := range ctxWords {
		if w := c.word; w != "" {
			if len(w) >= len(t) {
				panic("pii: context word too long for ctxEnds")
			}
			t[len(w)][w[0]&31] |= 1 << (w[len(w)-1] & 31)
		}
	}
	return t
}()

func alnumWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isAlnum(w[i]) {
			return false
		}
	}
	return true
}

// wordHash hashes the letters and digits of w with ASCII case ignored:
// OR-ing 0x20 lower-cases letters and keeps digits.
func wordHash(w string) uint8 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i]|0x20)) * 16777619
	}
	return uint8(h >> 24)
}

// lookupWord returns the lists holding w, a run of ASCII letters and
// digits in any case.
func lookupWord(w string) uint16 {
	for i := wordHash(w); ctxWords[i].word != ""; i++ {
		if c := ctxWords[i].word; len(c) == len(w) && equalFoldAlnum(c, w) {
			return ctxWords[i].lists
		}
	}
	return 0
}

// equalFoldAlnum: the letters and digits w equal the lower-case c.
func equalFoldAlnum(c, w string) bool {
	for i := 0; i < len(c); i++ {
		if c[i] != w[i]|0x20 {
			return false
		}
	}
	return true
}

// wordsIn returns the lists holding a whole word of the ASCII s (a maximal
// run of letters and digits), and those holding one that starts at or
// after from.
func wordsIn(s string, from int) (all, tail uint16) {
	for i := 0; i < len(s); {
		if !alnum[s[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && alnum[s[j]] {
			j++
		}
		if l := j - i; l < len(ctxEnds) && ctxEnds[l][(s[i]|0x20)&31]>>((s[j-1]|0x20)&31)&1 != 0 {
			m := lookupWord(s[i:j])
			all |= m
			if i >= from {
				tail |= m
			}
		}
		i = j
	}
	return all, tail
}

// alnum is isAlnum as a table, for wordsIn's loops.
var alnum = func() (t [256]bool) {
	for c := range t {
		t[c] = isAlnum(byte(c))
	}
	return t
}()

// negWords is how many words before a candidate a negative word is looked
// for: three, so that "order number is 5363369369" and "ticket no. 12" reach
// back to their noun.
const negWords = 3

// context scores a candidate: base, raised by a positive word within 48
// bytes before or 24 after, lowered by a negative word among the last
// negWords before it.
func context(text string, start, end int, base float64, pos, neg wordList) float64 {
	lo := max(0, start-48)
	hi := min(len(text), end+24)
	if scan.IsASCII(text[lo:start]) && scan.IsASCII(text[end:hi]) {
		return contextASCII(text[lo:start], text[end:hi], base, pos, neg)
	}
	return contextGeneral(text, start, end, base, pos, neg)
}

func contextGeneral(text string, start, end int, base float64, pos, neg wordList) float64 {
	lo := max(0, start-48)
	hi := min(len(text), end+24)
	before := strings.ToLower(text[lo:start])
	after := strings.ToLower(text[end:hi])
	conf := base
	if hasWord(before, wordLists[pos]) || hasWord(after, wordLists[pos]) {
		conf = min(1, base+0.3)
	}
	if neg != noWords && hasWord(lastWords(before, negWords), wordLists[neg]) {
		conf = max(0, conf-0.45)
	}
	return conf
}

// contextASCII is context on ASCII windows, without allocating. In
// lower-cased ASCII, the words lastWords keeps are those that start from
// the negWords-th last field on (every byte outside its fields is a
// non-alphanumeric boundary, as is the space that joins them, and no context
// word spans two fields).
func contextASCII(b, a string, base float64, pos, neg wordList) float64 {
	before, tail := wordsIn(b, lastFieldsStart(b, negWords))
	after, _ := wordsIn(a, 0)
	conf := base
	if (before|after)&(1<<pos) != 0 {
		conf = min(1, base+0.3)
	}
	if neg != noWords && tail&(1<<neg) != 0 {
		conf = max(0, conf-0.45)
	}
	return conf
}

// fieldByte: c lower-cases into the bytes lastWords keeps. A table: the
// scans of lastFieldsStart run for every candidate.
var fieldByte = func() (t [256]bool) {
	for c := range t {
		t[c] = isAlnum(byte(c)) || c == '-'
	}
	return t
}()

// lastFieldsStart returns where the last n fields (runs of fieldByte) of
// the ASCII s begin: 0 when it has at most n.
func lastFieldsStart(s string, n int) int {
	i := len(s)
	for k := 0; k < n; k++ {
		for i > 0 && !fieldByte[s[i-1]] {
			i--
		}
		if i == 0 {
			return 0
		}
		for i > 0 && fieldByte[s[i-1]] {
			i--
		}
	}
	return i
}

func lastWords(s string, n int) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') })
	if len(f) > n {
		f = f[len(f)-n:]
	}
	return strings.Join(f, " ")
}

func hasWord(s string, words []string) bool {
	for _, w := range words {
		i := 0
		for {
			j := strings.Index(s[i:], w)
			if j < 0 {
				break
			}
			a, b := i+j, i+j+len(w)
			if (a == 0 || !isAlnum(s[a-1])) && (b == len(s) || !isAlnum(s[b])) {
				return true
			}
			i = a + 1
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// ibans finds the IBANs starting in the window. An IBAN is read to its
// country's length rather than to the window's end: its account part may end
// in letters (Brazil's account type and owner) or hold runs of them (Malta,
// Ukraine) that the digit clusters stop short of.
func ibans(text string, w window, cs []cand) []cand {
	for i := w[0]; i+4 <= w[1]; i++ {
		if !isLetter(text[i]) || !isLetter(text[i+1]) || !isDigit(text[i+2]) || !isDigit(text[i+3]) ||
			i > 0 && (isAlnum(text[i-1]) || text[i-1] == '_') {
			continue
		}
		en, ok := ibanAt(text, i)
		if !ok {
			continue
		}
		cs = append(cs, cand{policy: IBAN, start: i, end: en, conf: context(text, i, en, 0.85, ibanCtx, noWords), rank: 9})
		i = en - 1
	}
	return cs
}

// ibanAt reads the IBAN starting at st, its country code and check digits
// already seen: the country's number of letters and digits, printed unbroken
// or in groups of four, ending at a word boundary and passing mod-97.
func ibanAt(text string, st int) (int, bool) {
	var vb [34]byte
	n, ok := ibanLen[string([]byte{text[st] &^ 0x20, text[st+1] &^ 0x20})]
	if !ok {
		return 0, false
	}
	v := vb[:0]
	i := st
	for len(v) < n && i < len(text) {
		c := text[i]
		if c == ' ' && len(v)%4 == 0 && i+1 < len(text) && isAlnum(text[i+1]) {
			i++ // one space between groups of four
			continue
		}
		if !isAlnum(c) {
			break
		}
		if isLetter(c) {
			c &^= 0x20
		}
		v = append(v, c)
		i++
	}
	if len(v) < n || !boundary(text, st, i) || !validIBAN(string(v)) {
		return 0, false
	}
	return i, true
}

// ibanLen is the IBAN length per country (SWIFT IBAN registry, with the
// countries its recent releases added: Burundi, Djibouti, Falklands,
// Honduras, Libya, Mongolia, Nicaragua, Oman, Russia, Sudan, Somalia, Yemen).
var ibanLen = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
	"BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
	"EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
	"GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
	"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21,
	"LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28,
	"NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
	"RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
	"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

func validIBAN(v string) bool {
	if n, ok := ibanLen[v[:2]]; !ok || n != len(v) {
		return false
	}
	// Move the first four characters to the end, letters to 10..35, mod 97.
	r := v[4:] + v[:4]
	rem := 0
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

func ssns(text string, w window, cs []cand) []cand {
	sub := text[w[0]:w[1]]
	for p := 0; p < len(sub); {
		m0, m1, l1, l2, ok := nextSSN(sub, p)
		if !ok {
			break
		}
		p = m1
		st, en := w[0]+m0, w[0]+m1
		if !boundary(text, st, en) {
			continue
		}
		sep1, sep2 := text[st+3:st+3+l1], text[en-4-l2:en-4]
		if sep1 != sep2 {
			continue
		}
		var db [16]byte
		d := appendDigits(db[:0], text[st:en])
		if !validSSN(d) {
			continue
		}
		base := 0.75
		if sep1 == "" {
			base = 0.3 // nine bare digits are SSNs only with context
		}
		if fakeSSN(d) {
			base = 0.2
		}
		cs = append(cs, cand{policy: USSSN, start: st, end: en, conf: context(text, st, en, base, ssnCtx, negCommon), rank: 8})
	}
	return cs
}

func validSSN(d []byte) bool {
	area, group, serial := string(d[:3]), string(d[3:5]), string(d[5:])
	if area == "000" || area == "666" || area[0] == '9' || group == "00" || serial == "0000" {
		return false
	}
	return true
}

func fakeSSN(d []byte) bool {
	if s := string(d); s == "123456789" || s == "078051120" || s == "219099999" {
		return true
	}
	return bytes.Count(d, d[:1]) == len(d)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsAt: s holds n digits from i.
func digitsAt(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return true
}

func ssnSep(c byte) bool { return c == '-' || c == ' ' || c == '.' }

// nextSSN is the next match of ssn in s from p, as FindAll would find it:
// its span and the lengths of its two separators.
func nextSSN(s string, p int) (int, int, int, int, bool) {
	for ; p+9 <= len(s); p++ {
		if en, l1, l2, ok := ssnAt(s, p); ok {
			return p, en, l1, l2, true
		}
	}
	return 0, 0, 0, 0, false
}

// ssnAt matches ssn at p, trying the alternatives in the order a
// backtracking matcher does (each optional separator present first).
func ssnAt(s string, p int) (int, int, int, bool) {
	if !digitsAt(s, p, 3) {
		return 0, 0, 0, false
	}
	for l1 := 1; l1 >= 0; l1-- {
		q := p + 3
		if l1 == 1 && (q >= len(s) || !ssnSep(s[q])) {
			continue
		}
		q += l1
		if !digitsAt(s, q, 2) {
			continue
		}
		q += 2
		for l2 := 1; l2 >= 0; l2-- {
			if l2 == 1 && (q >= len(s) || !ssnSep(s[q])) {
				continue
			}
			if digitsAt(s, q+l2, 4) {
				return q + l2 + 4, l1, l2, true
			}
		}
	}
	return 0, 0, 0, false
}

// nextCard is the next match of card in s from p.
func nextCard(s string, p int) (int, int, bool) {
	for ; p < len(s); p++ {
		if en, ok := cardAt(s, p); ok {
			return p, en, true
		}
	}
	return 0, 0, false
}

// cardAt matches card at p. Each repetition can go one way only (a
// separator and a digit, or a digit), so the greedy path is the match when
// it repeats at least 11 times, and no other path repeats more.
func cardAt(s string, p int) (int, bool) {
	if !isDigit(s[p]) {
		return 0, false
	}
	i, n := p+1, 0
	for n < 18 {
		if i+1 < len(s) && (s[i] == ' ' || s[i] == '-') && isDigit(s[i+1]) {
			i += 2
		} else if i < len(s) && isDigit(s[i]) {
			i++
		} else {
			break
		}
		n++
	}
	return i, n >= 11
}

// nextPhone is the next match of phone in s from p.
func nextPhone(s string, p int) (int, int, bool) {
	for ; p < len(s); p++ {
		if en, ok := phoneAt(s, p); ok {
			return p, en, true
		}
	}
	return 0, 0, false
}

// phoneAt matches phone at p: the optional prefix "+" or "00" first, then
// without; the optional "(" first, then without.
func phoneAt(s string, p int) (int, bool) {
	paren := func(q int) (int, bool) {
		if q < len(s) && s[q] == '(' {
			if en, ok := phoneCore(s, q+1); ok {
				return en, true
			}
		}
		return phoneCore(s, q)
	}
	if s[p] == '+' {
		if en, ok := paren(p + 1); ok {
			return en, true
		}
	}
	if s[p] == '0' && p+1 < len(s) && s[p+1] == '0' {
		if en, ok := paren(p + 2); ok {
			return en, true
		}
	}
	return paren(p)
}

func phoneClass(c byte) bool {
	return isDigit(c) || c == ' ' || c == '(' || c == ')' || c == '.' || c == '-'
}

// phoneCore matches \d[\d ().\-]{4,24}\d and the optional extension at q:
// the class repeats as often as it can with a digit after it (the greedy
// choice), and the extension always matches, possibly empty.
func phoneCore(s string, q int) (int, bool) {
	if q >= len(s) || !isDigit(s[q]) {
		return 0, false
	}
	st := q + 1
	run := 0
	for run < 25 && st+run < len(s) && phoneClass(s[st+run]) {
		run++
	}
	for k := min(24, run-1); k >= 4; k-- {
		if isDigit(s[st+k]) {
			return phoneExt(s, st+k+1), true
		}
	}
	return 0, false
}

// phoneExt matches (?: ?(?:x|ext\.?|#) ?\d{1,6})? at e and returns its end.
func phoneExt(s string, e int) int {
	for sp := 1; sp >= 0; sp-- {
		i := e
		if sp == 1 {
			if i >= len(s) || s[i] != ' ' {
				continue
			}
			i++
		}
		// The alternatives that match at i, in order.
		var alts [2]int
		n := 0
		switch {
		case i < len(s) && (s[i] == 'x' || s[i] == '#'):
			alts[0], n = i+1, 1
		case strings.HasPrefix(s[i:], "ext"):
			if i+3 < len(s) && s[i+3] == '.' {
				alts[n] = i + 4
				n++
			}
			alts[n] = i + 3
			n++
		}
		for _, j := range alts[:n] {
			for sp2 := 1; sp2 >= 0; sp2-- {
				k := j
				if sp2 == 1 {
					if k >= len(s) || s[k] != ' ' {
						continue
					}
					k++
				}
				if k < len(s) && isDigit(s[k]) {
					d := 1
					for d < 6 && k+d < len(s) && isDigit(s[k+d]) {
						d++
					}
					return k + d
				}
			}
		}
	}
	return e
}

func cards(text string, w window, cs []cand) []cand {
	sub := text[w[0]:w[1]]
	for p := 0; p < len(sub); {
		m0, m1, ok := nextCard(sub, p)
		if !ok {
			break
		}
		p = m1
		st, en := w[0]+m0, w[0]+m1
		if !boundary(text, st, en) {
			continue
		}
		raw := text[st:en]
		// Mixed separators are not a card layout.
		if strings.Contains(raw, " ") && strings.Contains(raw, "-") {
			continue
		}
		var db [32]byte
		d := appendDigits(db[:0], raw)
		if len(d) < 12 || len(d) > 19 || !luhn(d) || !cardLayout(raw) || (st > 0 && text[st-1] == '+') || afterIBANGroups(text, st) {
			continue
		}
		// One number in ten passes Luhn: without a network's prefix, only
		// a context word makes digits a card (a 13-digit millisecond
		// timestamp is not one).
		base := 0.45
		if knownIIN(d) {
			base = 0.85
		}
		cs = append(cs, cand{policy: CreditCard, start: st, end: en, conf: context(text, st, en, base, cardCtx, negCommon), rank: 7})
	}
	return cs
}

// cardLayout accepts digits printed as cards are: unbroken, in groups of
// four (the last shorter), or Amex's 4-6-5 / Diners' 4-6-4.
func cardLayout(raw string) bool {
	// The lengths of the groups between spaces and hyphens (raw is ASCII:
	// digits and single separators).
	var gb [20]int
	g := gb[:0]
	for i := 0; i < len(raw); {
		if raw[i] == ' ' || raw[i] == '-' {
			i++
			continue
		}
		j := i
		for j < len(raw) && raw[j] != ' ' && raw[j] != '-' {
			j++
		}
		g = append(g, j-i)
		i = j
	}
	if len(g) == 1 {
		return true
	}
	if len(g) == 3 && g[0] == 4 && g[1] == 6 && (g[2] == 5 || g[2] == 4) {
		return true
	}
	for i, x := range g {
		if x != 4 && !(i == len(g)-1 && x >= 1 && x <= 4) {
			return false
		}
	}
	return true
}

func luhn(d []byte) bool {
	sum, alt := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if alt {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		alt = !alt
	}
	return sum%10 == 0
}

// knownIIN: issuer prefixes of the major networks (Visa, Mastercard, Amex,
// Discover, JCB, Diners, Maestro, UnionPay).
func knownIIN(d []byte) bool {
	s := string(d)
	switch {
	case s[0] == '4':
		return true
	case s[:2] >= "51" && s[:2] <= "55", s[:4] >= "2221" && s[:4] <= "2720":
		return true
	case s[:2] == "34" || s[:2] == "37":
		return true
	case s[:4] == "6011" || s[:2] == "65" || s[:2] == "64":
		return true
	case s[:2] == "35" || s[:4] == "2131" || s[:4] == "1800":
		return true
	case s[:2] == "30" || s[:2] == "36" || s[:2] == "38":
		return true
	case s[:2] == "50" || s[:2] == "56" || s[:2] == "57" || s[:2] == "58" || s[:2] == "63" || s[:2] == "67" || s[:2] == "62":
		return true
	}
	return false
}

// versionBefore: the last word of s is a version word (lower-cased).
func versionBefore(s string) bool {
	if !scan.IsASCII(s) {
		return hasWord(lastWords(strings.ToLower(s), 1), wordLists[negVersion])
	}
	_, tail := wordsIn(s, lastFieldsStart(s, 1))
	return tail&(1<<negVersion) != 0
}

// nextIPv4 is the next match of (?:\d{1,3}\.){3}\d{1,3} in s from p: a
// group's digits can only be followed by its dot when they are all of a run
// of at most three, so the match at p is the greedy one.
func nextIPv4(s string, p int) (int, int, bool) {
	for ; p < len(s); p++ {
		if en, ok := ipv4At(s, p); ok {
			return p, en, true
		}
	}
	return 0, 0, false
}

func ipv4At(s string, p int) (int, bool) {
	i := p
	for g := 0; g < 4; g++ {
		j := i
		for j < len(s) && j-i < 3 && isDigit(s[j]) {
			j++
		}
		if j == i {
			return 0, false
		}
		if g == 3 {
			return j, true
		}
		if j >= len(s) || s[j] != '.' {
			return 0, false
		}
		i = j + 1
	}
	return 0, false
}

func ips(text string, w window, cs []cand) []cand {
	if strings.IndexByte(text[w[0]:w[1]], '.') >= 0 {
		sub := text[w[0]:w[1]]
		for p := 0; p < len(sub); {
			m0, m1, ok := nextIPv4(sub, p)
			if !ok {
				break
			}
			p = m1
			st, en := w[0]+m0, w[0]+m1
			if !boundary(text, st, en) || (en < len(text)-1 && text[en] == '.' && text[en+1] >= '0' && text[en+1] <= '9') ||
				(st > 0 && text[st-1] == '.') {
				continue
			}
			if _, err := netip.ParseAddr(text[st:en]); err != nil {
				continue
			}
			conf := context(text, st, en, 0.7, ipCtx, noWords)
			if versionBefore(text[max(0, st-16):st]) || (st > 0 && (text[st-1] == 'v' || text[st-1] == 'V')) {
				conf = 0.2
			}
			cs = append(cs, cand{policy: IPAddress, start: st, end: en, conf: conf, rank: 6})
		}
	}
	if strings.Count(text[w[0]:w[1]], ":") >= 2 {
		lo, hi := v6Span(text, w)
		for _, m := range ipv6RE.FindAllStringIndex(text[lo:hi], -1) {
			st, en := lo+m[0], lo+m[1]
			v := text[st:en]
			// A colon on either side: the groups go on past eight.
			if strings.Count(v, ":") < 2 || !boundary(text, st, en) || st > 0 && text[st-1] == ':' || en < len(text) && text[en] == ':' {
				continue
			}
			a, err := netip.ParseAddr(v)
			if err != nil || !a.Is6() || !strings.ContainsAny(v, "abcdefABCDEF") && strings.Count(v, ":") < 4 {
				continue
			}
			cs = append(cs, cand{policy: IPAddress, start: st, end: en, conf: context(text, st, en, 0.75, ipCtx, noWords), rank: 6})
		}
	}
	return cs
}

func v6Char(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.'
}

// v6Span widens the window over the hex digits, colons and dots around it:
// an IPv6 address's letters are not digits, so its window can stop inside
// it ("…:7f1:4cba", "faef:dc2c:…", a long run of letters splits it). An
// address is at most 45 bytes, so 48 bytes each way are enough.
func v6Span(text string, w window) (int, int) {
	lo, hi := w[0], w[1]
	for lo > 0 && w[0]-lo < 48 && v6Char(text[lo-1]) {
		lo--
	}
	for hi < len(text) && hi-w[1] < 48 && v6Char(text[hi]) {
		hi++
	}
	return lo, hi
}

// hasDatePrefix is datePrefix.MatchString(s).
func hasDatePrefix(s string) bool {
	return len(s) >= 10 && digitsAt(s, 0, 4) && s[4] == '-' && digitsAt(s, 5, 2) && s[7] == '-' && digitsAt(s, 8, 2)
}

// isDateLike is dateLike.MatchString(s) (see match_test.go), matched by
// hand: the pattern is three groups of digits joined by '-' or '.', the
// first of four digits and the others of one or two, or the first two of one
// or two and the last of two or four.
func isDateLike(s string) bool {
	if len(s) > 10 || len(s) < 6 {
		return false
	}
	var g [3]int // the lengths of the groups
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			g[n]++
		case (c == '-' || c == '.') && g[n] > 0 && n < 2:
			n++
		default:
			return false
		}
	}
	if n < 2 || g[2] == 0 {
		return false
	}
	short := func(l int) bool { return l == 1 || l == 2 }
	return g[0] == 4 && short(g[1]) && short(g[2]) || short(g[0]) && short(g[1]) && (g[2] == 2 || g[2] == 4)
}

func phones(text string, w window, cs []cand) []cand {
	sub := text[w[0]:w[1]]
	for p := 0; p < len(sub); {
		m0, m1, ok := nextPhone(sub, p)
		if !ok {
			break
		}
		p = m1
		st, en := w[0]+m0, w[0]+m1
		// Trim separators the greedy class took at the edges, and an opening
		// parenthesis never closed.
		for en > st && strings.IndexByte(" \t\n\r.-(", text[en-1]) >= 0 {
			en--
		}
		raw := text[st:en]
		if strings.ContainsAny(raw, "\n\r\t") {
			// A phone number does not span lines: keep the first line.
			i := strings.IndexAny(raw, "\n\r\t")
			en = st + i
			for en > st && strings.IndexByte(" .-(", text[en-1]) >= 0 {
				en--
			}
			raw = text[st:en]
		}
		if en-st < 7 || !boundary(text, st, en) || (st > 0 && (text[st-1] == '.' || text[st-1] == '/' || text[st-1] == '$' ||
			text[st-1] == ',' && st >= 2 && text[st-2] >= '0' && text[st-2] <= '9')) {
			continue
		}
		if strings.Count(raw, "(") != strings.Count(raw, ")") || isDateLike(raw) || hasDatePrefix(raw) ||
			dateThenMore(raw) || decimalComma(text, raw, en) || afterIBANGroups(text, st) {
			continue
		}
		main := mainPart(raw)
		var db [32]byte
		d := appendDigits(db[:0], main)
		if len(d) < 7 || len(d) > 15 {
			continue
		}
		var gb [16]string
		groups := digitGroups(main, gb[:0])
		sepd := len(groups) > 1
		intl := raw[0] == '+' || strings.HasPrefix(raw, "00")
		base := 0.4
		switch {
		case intl:
			base = 0.8
		case len(groups) == 2 && (maxLen(groups) >= 6 || groups[0][0] == '0') && len(d) >= 10:
			base = 0.6 // 0961-7596216, 07616 83178: a trunk prefix 0
		case len(groups) == 2:
			// "17031 2202" is as often a street number and a postcode as a
			// local number: only context makes it a phone.
			base = 0.35
		case sepd && len(groups) <= 6 && maxLen(groups) <= 5:
			base = 0.65
		case !sepd && len(d) == 10 && d[0] == '1':
			// No plan writes ten digits from 1 without a trunk prefix (NANP
			// area codes start at 2, trunk prefixes are 0): these are Unix
			// seconds (2001-2033) as often as not.
			base = 0.3
		case !sepd && len(d) >= 10 && len(d) <= 11:
			base = 0.5
		}
		if len(groups) == 3 && len(groups[0]) == 3 && len(groups[1]) == 2 && len(groups[2]) == 4 {
			base = 0.2 // the SSN layout (valid or not), not a phone layout
		}
		if sepd && allYears(groups) {
			base = 0.1
		}
		if strings.Contains(raw, "..") || strings.Contains(raw, "--") {
			base = 0.1
		}
		cs = append(cs, cand{policy: Phone, start: st, end: en, conf: context(text, st, en, base, phoneCtx, negCommon), rank: 4})
	}
	return cs
}

// dateThenMore: raw is a date (12.05.2023, 05-12-1999) and more after a
// space, as a time's hour ("05.12.1999 11:54"): a date, not a phone.
func dateThenMore(raw string) bool {
	sp := strings.IndexByte(raw, ' ')
	return sp > 0 && isDateLike(raw[:sp])
}

// decimalComma: raw, ending at en, is a number grouped in thousands by dots
// with a decimal comma after it ("2.498.775,36 €").
func decimalComma(text, raw string, en int) bool {
	if en+1 >= len(text) || text[en] != ',' || !isDigit(text[en+1]) {
		return false
	}
	var gb [16]string
	g := digitGroups(raw, gb[:0])
	if len(g) < 2 || len(g[0]) > 3 || strings.Count(raw, ".") != len(g)-1 {
		return false
	}
	for _, x := range g[1:] {
		if len(x) != 3 {
			return false
		}
	}
	return true
}

// afterIBANGroups: a space and groups of four upper-case letters or digits
// that start with a country code and check digits come right before st, so
// the digits from st are the rest of an IBAN as printed (one failing its
// checksum), not a phone or a card ("GB18 AIMM 2417 6212 4857 40").
func afterIBANGroups(text string, st int) bool {
	i := st - 1
	for n := 0; n < 8 && i >= 4 && text[i] == ' '; n++ {
		g := text[i-4 : i]
		if !upperAlnum(g[0]) || !upperAlnum(g[1]) || !upperAlnum(g[2]) || !upperAlnum(g[3]) || i > 4 && isAlnum(text[i-5]) {
			return false
		}
		if isLetter(g[0]) && isLetter(g[1]) && isDigit(g[2]) && isDigit(g[3]) {
			return true
		}
		i -= 5
	}
	return false
}

func upperAlnum(c byte) bool { return isDigit(c) || c >= 'A' && c <= 'Z' }

// digitGroups appends the runs of ASCII digits of s (strings.FieldsFunc
// on non-digits: every other byte, of a rune or not, separates).
func digitGroups(s string, out []string) []string {
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// mainPart drops an extension (x123, ext. 12). raw is (part of) a phone
// match: it has no upper-case letters to fold.
func mainPart(raw string) string {
	for _, k := range []string{"ext", "x", "#"} {
		if i := strings.LastIndex(raw, k); i > 0 {
			return raw[:i]
		}
	}
	return raw
}

func maxLen(g []string) int {
	m := 0
	for _, s := range g {
		m = max(m, len(s))
	}
	return m
}

func allYears(g []string) bool {
	for _, s := range g {
		if len(s) != 4 || !(strings.HasPrefix(s, "19") || strings.HasPrefix(s, "20")) {
			return false
		}
	}
	return true
}
