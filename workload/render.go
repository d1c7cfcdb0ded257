package workload

import (
	"encoding/binary"
	"hash/fnv"
	"math"

	"github.com/deferbench/deferbench/deferral"
)

// DrawCmd is one draw call of the render-queue workload: a mesh and material id and a screen
// position in pixels. It is 16 bytes and pointer-free.
type DrawCmd struct {
	Mesh, Material uint32
	X, Y           float32
}

// RenderQueue is the render-queue workload's target: draw commands in submission order. It is
// not safe for concurrent use; producers defer their Submit calls through a strategy over
// RenderQueue, whose apply function is ApplyDraw.
type RenderQueue struct {
	Draws []DrawCmd
}

// Submit appends c to the queue.
func (q *RenderQueue) Submit(c DrawCmd) { q.Draws = append(q.Draws, c) }

// Reset empties the queue, keeping its capacity.
func (q *RenderQueue) Reset() { q.Draws = q.Draws[:0] }

// ApplyDraw appends *c to q: the apply function a generic strategy over RenderQueue is built
// with (for example cmdbuffer.New(q, ApplyDraw)). at is unused; it never fails.
func ApplyDraw(q *RenderQueue, at deferral.Pos, c *DrawCmd) error {
	q.Draws = append(q.Draws, *c)
	return nil
}

// Hash returns a 64-bit FNV-1a digest of the queue's draws in order (little-endian fields), so
// two runs that submitted the same draws in the same order hash alike.
func (q *RenderQueue) Hash() uint64 {
	h := fnv.New64a()
	var buf [16]byte
	for _, d := range q.Draws {
		binary.LittleEndian.PutUint32(buf[0:], d.Mesh)
		binary.LittleEndian.PutUint32(buf[4:], d.Material)
		binary.LittleEndian.PutUint32(buf[8:], math.Float32bits(d.X))
		binary.LittleEndian.PutUint32(buf[12:], math.Float32bits(d.Y))
		h.Write(buf[:])
	}
	return h.Sum64()
}
