package pii

import (
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/governance-gateway/gateway/governance/scan"
)

// The regexps the hand-written matchers replace.
var (
	refSSN   = regexp.MustCompile(`\d{3}([- .]?)\d{2}([- .]?)\d{4}`)
	refCard  = regexp.MustCompile(`\d(?:[ -]?\d){11,18}`)
	refPhone = regexp.MustCompile(`(?:\+|00)?\(?\d[\d ().\-]{4,24}\d(?: ?(?:x|ext\.?|#) ?\d{1,6})?`)
	refIPv4  = regexp.MustCompile(`(?:\d{1,3}\.){3}\d{1,3}`)
	refDateP = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)
	refDate  = regexp.MustCompile(`^(?:\d{4}[-.]\d{1,2}[-.]\d{1,2}|\d{1,2}[-.]\d{1,2}[-.](?:\d{4}|\d{2}))$`)
)

func allSSN(s string) [][]int {
	var out [][]int
	for p := 0; p < len(s); {
		m0, m1, l1, l2, ok := nextSSN(s, p)
		if !ok {
			break
		}
		out = append(out, []int{m0, m1, m0 + 3, m0 + 3 + l1, m1 - 4 - l2, m1 - 4})
		p = m1
	}
	return out
}

func allOf(next func(string, int) (int, int, bool), s string) [][]int {
	var out [][]int
	for p := 0; p < len(s); {
		m0, m1, ok := next(s, p)
		if !ok {
			break
		}
		out = append(out, []int{m0, m1})
		p = m1
	}
	return out
}

func checkMatchers(t *testing.T, s string) {
	t.Helper()
	if got, want := allSSN(s), refSSN.FindAllStringSubmatchIndex(s, -1); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("ssn %q: got %v want %v", s, got, want)
	}
	if got, want := allOf(nextCard, s), refCard.FindAllStringIndex(s, -1); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("card %q: got %v want %v", s, got, want)
	}
	if got, want := allOf(nextPhone, s), refPhone.FindAllStringIndex(s, -1); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("phone %q: got %v want %v", s, got, want)
	}
	if got, want := allOf(nextIPv4, s), refIPv4.FindAllStringIndex(s, -1); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("ipv4 %q: got %v want %v", s, got, want)
	}
	if got, want := hasDatePrefix(s), refDateP.MatchString(s); got != want {
		t.Fatalf("datePrefix %q: got %v want %v", s, got, want)
	}
	if got, want := isDateLike(s), refDate.MatchString(s); got != want {
		t.Fatalf("dateLike %q: got %v want %v", s, got, want)
	}
}

// TestMatchersAgainstRegexps: ssnAt, cardAt and phoneAt find what the
// regexps find, on generated strings of the bytes that matter to them.
func TestMatchersAgainstRegexps(t *testing.T) {
	for _, s := range []string{
		"", "123-45-6789", "123 45 6789", "123-456789", "12345-6789", "123.45.6789 and 078-05-1120",
		"4111 1111 1111 1111", "4111-1111-1111-1111", "378282246310005", "4111 1111 1111 1111 1111 1111",
		"+1 (415) 555-0132", "0044 20 7946 0958", "(415) 555-0132 ext. 123", "555-0132 x12", "555 0132 #1234567",
		"+00(1)2345678", "001234567", "2024-05-02", "10.0.3.17", "1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0",
		"2024-05-02x", "1.2.3.4", "1.2.3", "1234.5.6.7", "01.1.2019", "1-1-19", "12.12.2012", "DE89 3704", "d1234",
		"555-0132 ext 12", "555-0132 ext.x1", "555-0132 e", "555-0132 ext", "123456789012345678901234567890",
	} {
		checkMatchers(t, s)
	}
	const alpha = "0123456789012345678901234567890123456789 -.()+x#et\nAd.-.-"
	r := rand.New(rand.NewSource(1))
	n := 100000
	if testing.Short() {
		n = 20000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		for range r.Intn(48) {
			b.WriteByte(alpha[r.Intn(len(alpha))])
		}
		checkMatchers(t, b.String())
	}
	// Dates: short strings of digits and their separators.
	for range n {
		b.Reset()
		for range r.Intn(13) {
			b.WriteByte("0123456789-.-."[r.Intn(14)])
		}
		checkMatchers(t, b.String())
	}
}

func FuzzMatchers(f *testing.F) {
	f.Add("+1 (415) 555-0132 ext. 12 and 123-45-6789, 4111 1111 1111 1111")
	f.Fuzz(func(t *testing.T, s string) { checkMatchers(t, s) })
}

// TestContextASCII: the allocation-free context scoring agrees with the
// general one on ASCII windows.
func TestContextASCII(t *testing.T) {
	words := []string{"Phone", "call", "ORDER", "ref", "ref-no", "model", "v", "x", "-", " ", ":", "_", "#", "e-mail", "isbn", "1", "po", "Po.",
		"E-Mail", "mail", "emails", "IP", "host2", "telephones", "firmware", "mastercardmastercard", "Release", "a1"}
	r := rand.New(rand.NewSource(2))
	var b strings.Builder
	for range 50000 {
		b.Reset()
		for range r.Intn(14) {
			b.WriteString(words[r.Intn(len(words))])
			if r.Intn(2) == 0 {
				b.WriteByte(" -_.,:"[r.Intn(6)])
			}
		}
		pre := b.String()
		b.Reset()
		for range r.Intn(6) {
			b.WriteString(words[r.Intn(len(words))])
			b.WriteByte(' ')
		}
		text := pre + "555 0132" + b.String()
		st, en := len(pre), len(pre)+8
		lo, hi := max(0, st-48), min(len(text), en+24)
		for _, c := range []struct{ pos, neg wordList }{{phoneCtx, negCommon}, {emailCtx, noWords}, {ipCtx, negVersion}, {cardCtx, negCommon}} {
			got := contextASCII(text[lo:st], text[en:hi], 0.5, c.pos, c.neg)
			want := contextGeneral(text, st, en, 0.5, c.pos, c.neg)
			if got != want {
				t.Fatalf("%q: got %v want %v", text, got, want)
			}
		}
	}
}

// TestVersionBefore: the ASCII path of versionBefore agrees with the
// general one.
func TestVersionBefore(t *testing.T) {
	words := []string{"version", "Ver", "v", "V", "release", "build", "-", " ", ".", "x", "1", "2.4", "_", "firmware-v"}
	r := rand.New(rand.NewSource(4))
	var b strings.Builder
	for range 50000 {
		b.Reset()
		for range r.Intn(6) {
			b.WriteString(words[r.Intn(len(words))])
		}
		s := b.String()
		if got, want := versionBefore(s), hasWord(lastWords(strings.ToLower(s), 1), wordLists[negVersion]); got != want {
			t.Fatalf("%q: got %v want %v", s, got, want)
		}
	}
}

// TestCtxWords: every context word of letters and digits is found in its
// lists, and a word with other bytes ends with a part that is (ctxWords
// leaves it out).
func TestCtxWords(t *testing.T) {
	for l, words := range wordLists {
		for _, w := range words {
			if !alnumWord(w) {
				i := len(w)
				for i > 0 && isAlnum(w[i-1]) {
					i--
				}
				w = w[i:]
				if w == "" || !slices.Contains(words, w) {
					t.Fatalf("%q: no listed last part", words)
				}
			}
			if lookupWord(strings.ToUpper(w))&(1<<l) == 0 || lookupWord(w)&(1<<l) == 0 {
				t.Fatalf("%q not found in list %d", w, l)
			}
		}
	}
	for _, w := range []string{"", "e", "phones", "mastercards", "tele", "x"} {
		if lookupWord(w) != 0 {
			t.Fatalf("%q found", w)
		}
	}
}

// refEmit is emit's overlap resolution as a list of survivors kept sorted
// by start, each candidate checked against its neighbours there.
func refEmit(cs []cand) []cand {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, byPriority)
	var kept []cand
	for _, c := range cs {
		i, _ := slices.BinarySearchFunc(kept, c.start, func(k cand, st int) int { return k.start - st })
		if i > 0 && kept[i-1].end > c.start || i < len(kept) && kept[i].start < c.end {
			continue
		}
		kept = slices.Insert(kept, i, c)
	}
	return kept
}

// TestEmit: emit keeps what refEmit keeps, in the same order, on random
// overlapping candidates.
func TestEmit(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var kept []cand
	for range 20000 {
		n := 1 + r.Intn(300)
		var cs []cand
		for range r.Intn(12) {
			st := r.Intn(n)
			en := st + 1 + r.Intn(min(n-st, 1+r.Intn(80)))
			if en > n {
				en = n
			}
			cs = append(cs, cand{policy: []string{Email, Phone, CreditCard}[r.Intn(3)], start: st, end: en, conf: float64(r.Intn(4)) / 4, rank: int32(r.Intn(3))})
		}
		want := refEmit(cs)
		var hs []scan.Hit
		hs, kept = emit(slices.Clone(cs), kept[:0], nil)
		if len(hs) != len(want) {
			t.Fatalf("%v: got %d hits, want %d", cs, len(hs), len(want))
		}
		for i, h := range hs {
			if w := want[i]; h.Policy != w.policy || h.Spans[0] != (scan.Span{Start: w.start, End: w.end}) || h.Confidence != w.conf {
				t.Fatalf("%v: hit %d is %+v, want %+v", cs, i, h, w)
			}
		}
	}
}
