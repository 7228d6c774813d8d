package injection

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Dims is the number of hashed feature buckets of the model.
const Dims = 1 << 17

// FeatureVersion changes whenever Features changes; the model header
// carries it so a stale model is refused instead of silently misread.
const FeatureVersion = 2

// maxFeatureBytes caps the text the classifier reads: attacks show
// themselves early and long documents would only dilute the n-grams. The
// heuristics still read the whole text.
const maxFeatureBytes = 16 << 10

// Normalize undoes the usual obfuscations: compatibility forms (fullwidth,
// ligatures) via NFKC, invisible characters (zero-width, bidi controls, tag
// characters), case, and runs of spacing inside words ("i g n o r e").
func Normalize(s string) string {
	if plainASCII(s) {
		// Nothing for NFKC, homoglyphs or invisible characters to do.
		return collapseSpaced(strings.ToLower(s))
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, " ")
	}
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064,
			r == 0xFEFF, r >= 0xE0000 && r <= 0xE007F, r == 0x00AD:
			continue
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(unicode.ToLower(homoglyph(r)))
		}
	}
	return collapseSpaced(b.String())
}

// plainASCII: printable ASCII plus tab and newline only.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// homoglyph maps Cyrillic and Greek look-alikes of Latin letters.
func homoglyph(r rune) rune {
	switch r {
	case 'а', 'А', 'α':
		return 'a'
	case 'е', 'Е', 'ε':
		return 'e'
	case 'о', 'О', 'ο', 'Ο':
		return 'o'
	case 'р', 'Р', 'ρ':
		return 'p'
	case 'с', 'С':
		return 'c'
	case 'у', 'У':
		return 'y'
	case 'х', 'Х', 'χ':
		return 'x'
	case 'і', 'І', 'ι':
		return 'i'
	case 'ѕ', 'Ѕ':
		return 's'
	case 'ԁ':
		return 'd'
	case 'ν':
		return 'v'
	case 'т', 'Т', 'τ':
		return 't'
	case 'к', 'К', 'κ':
		return 'k'
	case 'м', 'М':
		return 'm'
	case 'н', 'Н':
		return 'h'
	case 'в', 'В':
		return 'b'
	}
	return r
}

var spacedRE = regexp.MustCompile(`\b(?:[a-z] ){3,}[a-z]\b`)

// collapseSpaced joins "i g n o r e" into "ignore".
func collapseSpaced(s string) string {
	if !hasSpacedLetters(s) {
		return s
	}
	return spacedRE.ReplaceAllStringFunc(s, func(m string) string { return strings.ReplaceAll(m, " ", "") })
}

// hasSpacedLetters reports a run of three single letters separated by one
// space ("a b c"), the only input collapseSpaced changes.
func hasSpacedLetters(s string) bool {
	run := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' && (i == 0 || s[i-1] == ' ') && s[i+1] == ' ' {
			run++
			if run >= 3 {
				return true
			}
			i++
			continue
		}
		run = 0
	}
	return false
}

var leet = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s", "!", "i")

// Deleet maps leetspeak digits and symbols to letters.
func Deleet(s string) string { return leet.Replace(s) }

// FNV-1a, inlined so hashing a feature allocates nothing.
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

func fnvAdd(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime
	}
	return h
}

func bucket(s string) uint32 { return fnvAdd(fnvOffset, s) % Dims }

// bucket3 hashes a+b+c as one string without building it.
func bucket3(a, b, c string) uint32 {
	return fnvAdd(fnvAdd(fnvAdd(fnvOffset, a), b), c) % Dims
}

// Features returns the hashed feature indices of an already normalised
// text: word unigrams and bigrams, character 4-grams, and the named
// heuristic signals (each its own feature, so the model learns their
// weights).
func Features(norm string, signals []string) []uint32 {
	out, _ := appendFeatures(nil, nil, norm, signals)
	return out
}

// isFeatureWordRune: words are runs of letters, digits and apostrophes.
func isFeatureWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\''
}

// appendFeatures is Features into reusable buffers: out receives the
// features, compact is scratch for the words joined by single spaces. No
// word slice or bigram string is built.
func appendFeatures(out []uint32, compact []byte, norm string, signals []string) ([]uint32, []byte) {
	if len(norm) > maxFeatureBytes {
		norm = norm[:maxFeatureBytes]
	}
	if out == nil {
		out = make([]uint32, 0, len(norm)/2+len(signals)+8)
	}
	compact = compact[:0]
	hw := fnvAdd(fnvOffset, "w:")
	hb := fnvAdd(fnvOffset, "b:")
	prev := "<s>"
	for i := 0; i < len(norm); {
		// Skip separators.
		c := norm[i]
		if c < utf8.RuneSelf {
			if !asciiWordByte(c) {
				i++
				continue
			}
		} else if r, n := utf8.DecodeRuneInString(norm[i:]); !isFeatureWordRune(r) {
			i += n
			continue
		}
		st := i
		for i < len(norm) {
			c := norm[i]
			if c < utf8.RuneSelf {
				if !asciiWordByte(c) {
					break
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(norm[i:])
			if !isFeatureWordRune(r) {
				break
			}
			i += n
		}
		w := norm[st:i]
		out = append(out, fnvAdd(hw, w)%Dims, fnvAdd(fnvAdd(fnvAdd(hb, prev), " "), w)%Dims)
		prev = w
		if len(compact) > 0 {
			compact = append(compact, ' ')
		}
		compact = append(compact, w...)
	}
	hc := fnvAdd(fnvOffset, "c:")
	for i := 0; i+4 <= len(compact); i++ {
		h := hc
		for _, b := range compact[i : i+4] {
			h ^= uint32(b)
			h *= fnvPrime
		}
		out = append(out, h%Dims)
	}
	for _, s := range signals {
		out = append(out, bucket3("h:", s, ""))
	}
	out = append(out, bucket("bias"))
	return out, compact
}

func asciiWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '\''
}

// Signal patterns: the structure and phrases of known attack families. They
// feed the model as features and also decide the hit's policy and span.
var signalREs = []struct {
	name string
	// triggers gate the regexp: it runs only on windows around their
	// occurrences, which keeps ordinary prose at substring-search cost.
	triggers []string
	re       *regexp.Regexp
}{
	{"override", []string{"ignore", "disregard", "forget", "override", "skip", "bypass", "drop", "abandon", "neglect", "discard"}, regexp.MustCompile(`\b(?:ignore|disregard|forget|override|skip|bypass|drop|abandon|neglect|discard)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|preceding|all|any|your|the|system|initial|original)\b[^.\n]{0,30}\b(?:instructions?|rules?|directions?|prompts?|guidelines?|context|constraints?|messages?|programming|policies|restrictions)\b`)},
	{"new_instructions", []string{"instruction", "instructions", "task", "rule", "rules", "objective", "from now on", "instead"}, regexp.MustCompile(`\b(?:new|updated|real|actual|true)\s+(?:instructions?|task|rules?|objective)\b|\bfrom now on\b|\binstead,? (?:you|do|say|respond|output|print)\b`)},
	{"extraction", []string{"prompt", "prompts", "instruction", "instructions", "rule", "rules", "guideline", "guidelines", "secret", "password", "api key", "confidential"}, regexp.MustCompile(`\b(?:reveal|print|show|repeat|output|display|tell me|give me|leak|share|what (?:is|are|was))\b[^.\n]{0,40}\b(?:system prompt|initial prompt|hidden prompt|your (?:instructions|prompt|rules|guidelines)|secret (?:key|code|word|password)|the password|api key|confidential)\b`)},
	{"persona", []string{"dan", "do anything", "developer mode", "dev mode", "jailbreak", "jailbroken", "jailbreaking", "jailbreaks", "unfiltered", "uncensored", "amoral", "no restriction", "no limit", "no filter", "no rule", "no ethic", "no moral", "without", "character", "evil", "opposite", "god mode", "aim", "machiavellian", "machiavelli"}, regexp.MustCompile(`\b(?:dan|do anything now|developer mode|dev mode|jailbreak|jailbroken|unfiltered|uncensored|amoral|no (?:restrictions|limits|filters|rules|ethics|morals)|without (?:any )?(?:restrictions|limitations|filters|censorship)|stay in character|evil (?:bot|ai|assistant)|opposite mode|god mode|aim\b|machiavellian)\b`)},
	{"roleplay", []string{"you are now", "act as", "pretend", "pretending", "roleplay", "role-play", "imagine you", "simulate", "you will", "from now on you"}, regexp.MustCompile(`\b(?:you are now|act as|pretend (?:to be|you are)|roleplay as|role-play|imagine you are|simulate|you will (?:now )?(?:act|respond|answer) as|from now on you)\b`)},
	{"role_marker", []string{"system", "assistant", "developer", "<|", "[inst", "[/inst", "###", "<<sys", "begin"}, regexp.MustCompile(`(?m)^\s*(?:system|assistant|developer)\s*:|<\|im_start\|>|<\|system\|>|\[/?inst\]|###\s*(?:instruction|system)|<<sys>>|\bbegin (?:system|admin) (?:message|prompt)\b`)},
	{"exfil_link", []string{"](http", "send"}, regexp.MustCompile(`!\[[^\]]*\]\(https?://[^)]*[?&][a-z_]+=|\bsend (?:it|this|the (?:data|conversation|history)) to\b`)},
	{"authority", []string{"admin", "sudo", "maintenance", "debug", "i am"}, regexp.MustCompile(`\b(?:admin(?:istrator)? (?:override|mode|access)|sudo|maintenance mode|debug mode|i am (?:your|the) (?:developer|creator|admin|administrator|owner))\b`)},
	{"multilingual_override", []string{"ignora", "ignorez", "ignoriere", "ignorieren", "vergiss", "oublie", "olvida", "dimentica", "निर्देशों", "忽略", "無視", "игнорируй", "забудь"}, regexp.MustCompile(`\b(?:ignora|ignorez|ignoriere|ignorieren|vergiss|oublie[zr]?|olvida|dimentica)\b[^.\n]{0,60}(?:instruc|anweisung|istruzion|consign|regla|regel|prompt|précédent|anterior|vorherig|precedent)|निर्देशों की अनदेखी|忽略(?:之前|以上|所有)|(?:以前|前)の指示を無視|игнорируй|забудь (?:все|предыдущие)`)},
	{"manipulation", []string{"regardless", "you said", "you agreed", "you promised", "as we discussed", "in our last"}, regexp.MustCompile(`\bregardless of (?:the |your |any )?(?:previous|prior|earlier|above|initial|original|system)\b|\b(?:i know you said|you (?:already )?agreed|you promised|as we (?:discussed|agreed)|in our (?:last|previous) (?:conversation|meeting|chat))\b`)},
	{"no_refusal", []string{"refuse", "refusing", "must", "no matter", "regardless"}, regexp.MustCompile(`\b(?:never refuse|do not refuse|don't refuse|must (?:answer|comply)|cannot refuse|no matter (?:what|how)|regardless of (?:the )?(?:content|legality|ethics|morality))\b`)},
}

var b64RE = regexp.MustCompile(`[A-Za-z0-9+/]{24,}={0,2}`)

// Signals returns the names of the heuristic signals present in the
// normalised text, in its de-leeted view, and in base64 payloads of the raw
// text (lower-casing would corrupt base64, hence both texts).
func Signals(raw, normText string) []string {
	var out []string
	views := []string{normText}
	if strings.ContainsAny(normText, "013457@$!") {
		views = append(views, Deleet(normText))
	}
	for _, v := range views {
		out = matchSignals(v, out)
	}
	if d := decodedPayloads(raw); d != "" {
		// Decoded payloads are short: match them whole.
		out = append(out, "encoded_payload")
		for _, s := range signalREs {
			if s.re.MatchString(d) {
				out = append(out, "encoded_"+s.name)
			}
		}
	}
	return out
}

// signalWindow is how far around a trigger a signal regexp looks.
const signalWindow = 200

type trigRef struct {
	sig    int
	phrase string
}

// triggerIndex maps the first word of each word trigger to its signals;
// symbolTriggers start with punctuation ("<|", "###") and are searched as
// substrings. Read-only after package initialisation.
var triggerIndex, symbolTriggers = buildTriggers()

// triggerShape has bit n of entry c set when some key of triggerIndex
// starts with byte c and is n bytes long (n < 32): most words fail this
// before any map lookup.
var triggerShape = func() (t [256]uint32) {
	for k := range triggerIndex {
		if len(k) >= 32 {
			panic("injection: trigger word too long for triggerShape: " + k)
		}
		t[k[0]] |= 1 << len(k)
	}
	return t
}()

func buildTriggers() (map[string][]trigRef, []trigRef) {
	idx := map[string][]trigRef{}
	var sym []trigRef
	for si, s := range signalREs {
		for _, t := range s.triggers {
			if c := t[0]; c < 'a' || c > 'z' {
				sym = append(sym, trigRef{si, t})
				continue
			}
			first := t
			if i := strings.IndexAny(t, " -"); i > 0 {
				first = t[:i]
			}
			idx[first] = append(idx[first], trigRef{si, t})
		}
	}
	return idx, sym
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '\'' || c >= 0x80
}

// matchSignals appends to out the signals whose regexp matches a window
// around one of its triggers in text (lower-cased). One pass over the words
// finds the triggers; each signal's regexp runs at most once per window.
func matchSignals(text string, out []string) []string {
	done := make([]bool, len(signalREs))
	lastEnd := make([]int, len(signalREs))
	for i := range lastEnd {
		lastEnd[i] = -1
	}
	for si, s := range signalREs {
		done[si] = contains(out, s.name)
	}
	check := func(si, at, n int) {
		if done[si] {
			return
		}
		st, en := max(0, at-signalWindow), min(len(text), at+n+signalWindow)
		if en <= lastEnd[si]+signalWindow/2 && st >= lastEnd[si]-2*signalWindow {
			return // this stretch was just searched
		}
		lastEnd[si] = en
		if signalREs[si].re.MatchString(text[st:en]) {
			done[si] = true
			out = append(out, signalREs[si].name)
		}
	}
	for i := 0; i < len(text); {
		if !wordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && wordByte(text[j]) {
			j++
		}
		if n := j - i; n >= 32 || triggerShape[text[i]]&(1<<n) == 0 {
			i = j
			continue
		}
		for _, t := range triggerIndex[text[i:j]] {
			if len(t.phrase) == j-i || strings.HasPrefix(text[i:], t.phrase) {
				check(t.sig, i, len(t.phrase))
			}
		}
		i = j
	}
	for _, t := range symbolTriggers {
		if done[t.sig] {
			continue
		}
		for off := 0; off < len(text); {
			k := strings.Index(text[off:], t.phrase)
			if k < 0 {
				break
			}
			check(t.sig, off+k, len(t.phrase))
			off += k + len(t.phrase)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// decodedPayloads decodes up to 4 base64 runs (4 KiB each) that decode to
// mostly printable text and returns them lower-cased.
func decodedPayloads(text string) string {
	if !hasBase64Run(text) {
		return ""
	}
	var out []string
	for _, m := range b64RE.FindAllString(text, 4) {
		if len(m) > 4096 {
			m = m[:4096]
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			d, err := enc.DecodeString(strings.TrimRight(m, "=") + pad(m, enc))
			if err == nil && printable(d) {
				out = append(out, strings.ToLower(string(d)))
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// hasBase64Run reports a run of 24 or more base64 alphabet bytes.
func hasBase64Run(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
			run++
			if run >= 24 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func pad(m string, enc *base64.Encoding) string {
	if enc == base64.RawStdEncoding {
		return ""
	}
	n := len(strings.TrimRight(m, "="))
	return strings.Repeat("=", (4-n%4)%4)
}

func printable(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	n := 0
	for _, c := range string(b) {
		if unicode.IsPrint(c) || c == '\n' {
			n++
		}
	}
	return n*10 >= utf8.RuneCount(b)*9
}
