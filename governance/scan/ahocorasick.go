package scan

// Automaton is the Aho-Corasick automaton of a set of byte strings, built
// whole: one table lookup per text byte finds every occurrence of every
// string. The rules scanner's keywords and the injection signals' literals
// run on it.
type Automaton struct {
	// Class maps a byte to its column; bytes no string holds share
	// column 0.
	Class [256]uint8
	Cols  int
	// Delta[state*Cols+column] is the next state, failure transitions
	// folded in; the root is state 0.
	Delta []int32
	// Out[state] lists the strings (their indices) that end at state, those
	// of its failure states included, longest first.
	Out [][]int32
}

// NewAutomaton builds the automaton of words; ok is false when the table
// would exceed maxCells entries (0: no bound) or the words use all 256
// byte values.
func NewAutomaton(words []string, maxCells int) (a *Automaton, ok bool) {
	a = &Automaton{}
	var used [256]bool
	total := 0
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			used[w[i]] = true
		}
		total += len(w)
	}
	a.Cols = 1
	for b, u := range used {
		if u {
			a.Class[b] = uint8(a.Cols)
			a.Cols++
		}
	}
	nc := a.Cols
	if nc > 255 || maxCells > 0 && (total+1)*nc > maxCells {
		return nil, false
	}
	// The trie: delta holds its edges (0 = none).
	delta := make([]int32, nc, (total+1)*nc)
	ends := [][]int32{nil} // state -> the words ending exactly there
	for wi, w := range words {
		st := int32(0)
		for i := 0; i < len(w); i++ {
			c := int(a.Class[w[i]])
			nx := delta[int(st)*nc+c]
			if nx == 0 {
				nx = int32(len(ends))
				ends = append(ends, nil)
				delta = append(delta, make([]int32, nc)...)
				delta[int(st)*nc+c] = nx
			}
			st = nx
		}
		ends[st] = append(ends[st], int32(wi))
	}
	// Breadth first: failure links, full transitions, and the outputs of
	// each state (its own words, then those of its failure state).
	n := len(ends)
	fail := make([]int32, n)
	a.Out = make([][]int32, n)
	queue := make([]int32, 0, n)
	for c := range nc {
		if nx := delta[c]; nx != 0 {
			queue = append(queue, nx)
		}
	}
	for qi := 0; qi < len(queue); qi++ {
		st := queue[qi]
		a.Out[st] = append(append([]int32(nil), ends[st]...), a.Out[fail[st]]...)
		for c := range nc {
			if nx := delta[int(st)*nc+c]; nx != 0 {
				fail[nx] = delta[int(fail[st])*nc+c]
				queue = append(queue, nx)
			} else {
				delta[int(st)*nc+c] = delta[int(fail[st])*nc+c]
			}
		}
	}
	a.Delta = delta
	return a, true
}
