package tokens

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
)

// noRank marks a pair of parts that is no token.
const noRank = math.MaxUint32

// vocab maps a token's bytes to its rank, which is also its ID, in an
// open-addressed table over one string of every token's bytes; a lookup
// compares a hash tag before it touches a token's bytes.
type vocab struct {
	tokens string   // every token, in rank order
	ends   []uint32 // ends[r] is where token r ends in tokens
	slots  []uint64 // tokens over 8 bytes: hash>>32<<32 | rank+1; 0 is an empty slot
	seed   uint64
	pairs  *[1 << 16]uint32 // ranks of two-byte tokens, which BPE looks up most
	// short holds the tokens of up to 8 bytes (most words) with their
	// bytes packed in the slot: a look-up reads one slot, not a slot, two
	// ends and the token's bytes in three tables of megabytes.
	short      []shortSlot
	shortShift uint8 // 64 - log2(len(short))
}

// shortSlot is a token of 1-8 bytes: key is its bytes, little-endian and
// zero-padded (pack); n its length, 0 in an empty slot.
type shortSlot struct {
	key  uint64
	rank uint32
	n    uint32
}

// newVocab indexes tokens, where token r ends at ends[r].
func newVocab(tokens string, ends []uint32) *vocab {
	v := &vocab{tokens: tokens, ends: ends, seed: rand.Uint64(), pairs: new([1 << 16]uint32)}
	for i := range v.pairs {
		v.pairs[i] = noRank
	}
	nShort := 0
	for r := range uint32(len(ends)) {
		if len(v.token(r)) <= 8 {
			nShort++
		}
	}
	// At most two thirds full, so that a probe sequence is short.
	shortBits := bits.Len(uint(nShort + nShort/2))
	v.short, v.shortShift = make([]shortSlot, 1<<shortBits), uint8(64-shortBits)
	shortMask := uint64(len(v.short) - 1)
	// At most half full.
	v.slots = make([]uint64, 1<<bits.Len(uint(2*(len(ends)-nShort))))
	mask := uint64(len(v.slots) - 1)
	for r := range uint32(len(ends)) {
		t := v.token(r)
		if len(t) == 2 {
			v.pairs[uint16(t[0])<<8|uint16(t[1])] = r
		}
		if len(t) <= 8 {
			// In rank order, so that a probe finds the lowest rank of
			// equal tokens first, as in slots.
			k := pack(t)
			i := v.shortSlot(k, len(t))
			for v.short[i].n != 0 {
				i = (i + 1) & shortMask
			}
			v.short[i] = shortSlot{key: k, rank: r, n: uint32(len(t))}
			continue
		}
		h := hash(t, v.seed)
		i := h & mask
		for v.slots[i] != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = h>>32<<32 | uint64(r+1)
	}
	return v
}

// hash is wyhash's construction, inlined for the short strings of BPE
// (hash/maphash costs three calls per lookup).
func hash(s string, seed uint64) uint64 {
	const p0, p1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	h := seed ^ uint64(len(s))*p0
	for len(s) > 16 {
		h = mix(le64(s)^p1, le64(s[8:])^h)
		s = s[16:]
	}
	var a, b uint64
	switch {
	case len(s) > 8:
		a, b = le64(s), le64(s[len(s)-8:])
	case len(s) >= 4:
		a, b = le32(s), le32(s[len(s)-4:])
	case len(s) > 0:
		a = uint64(s[0])<<16 | uint64(s[len(s)>>1])<<8 | uint64(s[len(s)-1])
	}
	return mix(a^p1, b^h)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

func (v *vocab) token(r uint32) string {
	start := uint32(0)
	if r > 0 {
		start = v.ends[r-1]
	}
	return v.tokens[start:v.ends[r]]
}

// pack is s (1-8 bytes) as a little-endian integer, zero-padded.
func pack(s string) uint64 {
	switch {
	case len(s) >= 4:
		// The two words overlap on the same bytes at the same places.
		return le32(s) | le32(s[len(s)-4:])<<(8*(len(s)-4))
	case len(s) == 3:
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16
	case len(s) == 2:
		return uint64(s[0]) | uint64(s[1])<<8
	}
	return uint64(s[0])
}

// shortSlot is where a probe for the packed token k of n bytes starts
// (Fibonacci hashing: the top bits of a multiplication).
func (v *vocab) shortSlot(k uint64, n int) uint64 {
	return ((k ^ v.seed) + uint64(n)) * 0x9e3779b97f4a7c15 >> v.shortShift
}

// rank returns the rank of the token t, or noRank.
func (v *vocab) rank(t string) uint32 {
	if len(t) == 2 {
		return v.pairs[uint16(t[0])<<8|uint16(t[1])]
	}
	if len(t) <= 8 {
		if len(t) == 0 {
			return noRank
		}
		k := pack(t)
		mask := uint64(len(v.short) - 1)
		for i := v.shortSlot(k, len(t)); ; i = (i + 1) & mask {
			s := &v.short[i]
			if s.n == 0 {
				return noRank
			}
			if s.key == k && s.n == uint32(len(t)) {
				return s.rank
			}
		}
	}
	h := hash(t, v.seed)
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

// count returns the number of tokens byte-pair encoding makes of piece:
// the pair of adjacent parts that is the lowest-ranked token merges first,
// the leftmost among equals, until no pair is a token. A piece that is a
// token, as most words are, needs only the one lookup; *bufs is fetched
// from the pool for the first long piece.
func (v *vocab) count(piece string, bufs **buffers) int {
	if len(piece) == 1 || v.rank(piece) != noRank {
		return 1
	}
	if len(piece) <= shortPiece {
		return v.mergeShort(piece)
	}
	if *bufs == nil {
		*bufs = bufferPool.Get().(*buffers)
	}
	return v.merge(piece, *bufs)
}

// shortPiece is the longest piece mergeShort takes: scanning for the
// lowest rank costs O(n) a merge, but beats a heap on short pieces.
const shortPiece = 24

// mergeShort is merge for short pieces, on the stack.
func (v *vocab) mergeShort(piece string) int {
	// start[k] is where part k begins; rank[k] is the rank of parts k and
	// k+1 merged.
	var start [shortPiece + 1]uint8
	var rank [shortPiece]uint32
	n := len(piece) // parts
	for k := range n + 1 {
		start[k] = uint8(k)
	}
	for k := range n - 1 {
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

// buffers are merge's, reused from piece to piece and count to count.
type buffers struct {
	nodes []mergeNode
	heap  mergeHeap
}

var bufferPool = sync.Pool{New: func() any { return new(buffers) }}

// release returns bufs to the pool unless a long piece grew them.
func release(bufs *buffers) {
	if bufs != nil && cap(bufs.nodes) <= 1<<12 {
		bufferPool.Put(bufs)
	}
}

// mergeNode is a part in merge's doubly linked list of parts.
type mergeNode struct {
	prev, next int32
	rank       uint32 // of this part merged with the next
}

type mergeCandidate struct {
	rank  uint32
	start int32
}

// merge counts the parts left when no pair merges, taking pairs from a
// heap: O(n log n) where scanning for the lowest rank is O(n²).
func (v *vocab) merge(piece string, bufs *buffers) int {
	n := int32(len(piece))
	nodes := slices.Grow(bufs.nodes[:0], int(n)+1)[:n+1]
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
	h := bufs.heap[:0]
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
	bufs.nodes, bufs.heap = nodes, h
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
