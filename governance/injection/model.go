package injection

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Model is a logistic regression over hashed features.
type Model struct {
	W    []float32 // Dims weights
	Bias float32
}

var magic = [4]byte{'G', 'G', 'P', 'I'}

// MarshalBinary encodes the model: magic, feature version, dims, bias, and
// the weights as little-endian float32.
func (m *Model) MarshalBinary() ([]byte, error) {
	if len(m.W) != Dims {
		return nil, fmt.Errorf("model has %d weights, want %d", len(m.W), Dims)
	}
	b := make([]byte, 16+4*Dims)
	copy(b, magic[:])
	binary.LittleEndian.PutUint32(b[4:], FeatureVersion)
	binary.LittleEndian.PutUint32(b[8:], Dims)
	binary.LittleEndian.PutUint32(b[12:], math.Float32bits(m.Bias))
	for i, w := range m.W {
		binary.LittleEndian.PutUint32(b[16+4*i:], math.Float32bits(w))
	}
	return b, nil
}

// UnmarshalBinary decodes a model written by MarshalBinary, refusing one
// built for other features.
func (m *Model) UnmarshalBinary(b []byte) error {
	if len(b) < 16 || [4]byte(b[:4]) != magic {
		return errors.New("injection model: bad magic")
	}
	if v := binary.LittleEndian.Uint32(b[4:]); v != FeatureVersion {
		return fmt.Errorf("injection model: feature version %d, code has %d (run make train-injection)", v, FeatureVersion)
	}
	if d := binary.LittleEndian.Uint32(b[8:]); d != Dims || len(b) != 16+4*Dims {
		return fmt.Errorf("injection model: %d dims / %d bytes, want %d", d, len(b), Dims)
	}
	m.Bias = math.Float32frombits(binary.LittleEndian.Uint32(b[12:]))
	m.W = make([]float32, Dims)
	for i := range m.W {
		m.W[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[16+4*i:]))
	}
	return nil
}

// Score is the model's probability that the features are an attack. The
// feature sum is scaled by 1/sqrt(count), as in training, so a long text
// does not win on length alone.
func (m *Model) Score(feats []uint32) float64 {
	if len(feats) == 0 {
		return 0
	}
	z := 0.0
	for _, f := range feats {
		z += float64(m.W[f])
	}
	return m.finish(z, len(feats))
}

// finish turns the sum z of count feature weights into the probability.
func (m *Model) finish(z float64, count int) float64 {
	z = float64(m.Bias) + z/math.Sqrt(float64(count))
	return 1 / (1 + math.Exp(-z))
}
