package tokens

import (
	"hash/maphash"
	"math"
	"math/bits"
)

// noRank marks a pair of parts that is no token.
const noRank = math.MaxUint32

// vocab maps a token's bytes to its rank, which is also its ID, in an
// open-addressed table: a few MB where a map[string]uint would take tens,
// and a lookup compares a hash tag before it touches the token's bytes.
type vocab struct {
	tokens string   // every token, in rank order
	ends   []uint32 // ends[r] is where token r ends in tokens
	slots  []uint64 // hash>>32<<32 | rank+1; 0 is an empty slot
	seed   maphash.Seed
}

// newVocab indexes tokens, which are in rank order.
func newVocab(tokens []string) *vocab {
	v := &vocab{ends: make([]uint32, len(tokens)), seed: maphash.MakeSeed()}
	size := 0
	for _, t := range tokens {
		size += len(t)
	}
	buf := make([]byte, 0, size)
	for r, t := range tokens {
		buf = append(buf, t...)
		v.ends[r] = uint32(len(buf))
	}
	v.tokens = string(buf)
	// At most 3/8 full, so that a probe sequence is short.
	v.slots = make([]uint64, 1<<bits.Len(uint(len(tokens)*8/3)))
	mask := uint64(len(v.slots) - 1)
	for r, t := range tokens {
		h := maphash.String(v.seed, t)
		i := h & mask
		for v.slots[i] != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = h>>32<<32 | uint64(r+1)
	}
	return v
}

func (v *vocab) token(r uint32) string {
	start := uint32(0)
	if r > 0 {
		start = v.ends[r-1]
	}
	return v.tokens[start:v.ends[r]]
}

// rank returns the rank of the token t, or noRank.
func (v *vocab) rank(t string) uint32 {
	h := maphash.String(v.seed, t)
	mask := uint64(len(v.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			return noRank
		}
		if s>>32 == h>>32 {
			if r := uint32(s) - 1; v.token(r) == t {
				return r
			}
		}
	}
}

// shortPiece is the length from which a piece is merged with a heap rather
// than by scanning for the lowest rank, which costs O(n) per merge.
const shortPiece = 128

// count returns the number of tokens byte-pair encoding makes of piece:
// the pair of adjacent parts that is the lowest-ranked token merges first,
// the leftmost among equals, until no pair is a token.
func (v *vocab) count(piece string) int {
	if len(piece) == 1 || v.rank(piece) != noRank {
		return 1
	}
	if len(piece) >= shortPiece {
		return v.countLong(piece)
	}
	// start[k] is where part k begins; rank[k] is the rank of parts k and
	// k+1 merged. On the stack, so a piece allocates nothing.
	var start [shortPiece + 1]uint8
	var rank [shortPiece]uint32
	n := len(piece) // parts
	for k := 0; k <= n; k++ {
		start[k] = uint8(k)
	}
	for k := 0; k+1 < n; k++ {
		rank[k] = v.rank(piece[k : k+2])
	}
	pairRank := func(k int) uint32 {
		if k+2 > n {
			return noRank
		}
		return v.rank(piece[start[k]:start[k+2]])
	}
	for n > 1 {
		m, best := 0, uint32(noRank)
		for k, r := range rank[:n-1] {
			if r < best {
				m, best = k, r
			}
		}
		if best == noRank {
			break
		}
		copy(start[m+1:n], start[m+2:n+1])
		if m+2 < n-1 {
			copy(rank[m+1:], rank[m+2:n-1])
		}
		n--
		rank[m] = pairRank(m)
		if m > 0 {
			rank[m-1] = pairRank(m - 1)
		}
	}
	return n
}

// mergeNode is a part in countLong's doubly linked list of parts.
type mergeNode struct {
	prev, next int32
	rank       uint32 // of this part merged with the next
}

type mergeCandidate struct {
	rank  uint32
	start int32
}

// countLong is count for long pieces, in O(n log n).
func (v *vocab) countLong(piece string) int {
	n := int32(len(piece))
	nodes := make([]mergeNode, n+1)
	for i := range nodes {
		nodes[i] = mergeNode{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankOf := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 {
			return noRank
		}
		return v.rank(piece[i:nodes[j].next])
	}
	h := make(mergeHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := rankOf(i); r != noRank {
			nodes[i].rank = r
			h = append(h, mergeCandidate{r, i})
		}
	}
	h.init()
	parts := int(n)
	for len(h) > 0 {
		top := h.pop()
		i := top.start
		if nodes[i].rank != top.rank { // stale: the part has merged since
			continue
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		parts--
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			if nodes[b].rank = rankOf(b); nodes[b].rank != noRank {
				h.push(mergeCandidate{nodes[b].rank, b})
			}
		}
	}
	return parts
}

// mergeHeap is a min-heap of merge candidates by rank, then start, so that
// the leftmost of equal ranks merges first.
type mergeHeap []mergeCandidate

func (h mergeHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].start < h[b].start
}

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(c mergeCandidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *mergeHeap) pop() mergeCandidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h mergeHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h mergeHeap) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
