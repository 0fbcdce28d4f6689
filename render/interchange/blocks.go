package interchange

// blockLen is the values of one block of a blocks: 1,024 (64 KiB of
// regions.csv's rows).
const blockLen = 1024

// blocks is a growable array kept in fixed blocks: growing it neither
// copies the values nor holds an old and a new array at once, so that a
// pass that does not know its count ahead peaks at its values, not at
// up to three times them as an appended slice does. Pointers from at
// stay valid as it grows.
type blocks[T any] struct {
	b [][]T
	n int
}

// Len is the number of values.
func (a *blocks[T]) Len() int { return a.n }

// append adds v at the end.
func (a *blocks[T]) append(v T) {
	if a.n%blockLen == 0 {
		a.b = append(a.b, make([]T, 0, blockLen))
	}
	last := &a.b[len(a.b)-1]
	*last = append(*last, v)
	a.n++
}

// at is value i.
func (a *blocks[T]) at(i int) *T { return &a.b[i/blockLen][i%blockLen] }
