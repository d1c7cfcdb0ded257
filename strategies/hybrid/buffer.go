package hybrid

import (
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

// Buffer is a cmdbuffer.Buffer that a Graph can declare append access to and flush: design 4
// is design 2 plus graph integration. Everything of the embedded buffer stays available for the
// dynamic (non-graph) path: NewRecorder, Commit, Pending, Discard, Target.
type Buffer[T, C any] struct {
	*cmdbuffer.Buffer[T, C]
	name string
}

var _ CommandBuffer = (*Buffer[struct{}, int])(nil)

// NewBuffer returns a Buffer named name (for edge reasons and errors) bound to target, applying
// typed commands with apply; see cmdbuffer.New.
func NewBuffer[T, C any](name string, target *T, apply cmdbuffer.ApplyFunc[T, C]) *Buffer[T, C] {
	return &Buffer[T, C]{Buffer: cmdbuffer.New(target, apply), name: name}
}

// Wrap returns a Buffer named name over an existing cmdbuffer.Buffer.
func Wrap[T, C any](name string, b *cmdbuffer.Buffer[T, C]) *Buffer[T, C] {
	return &Buffer[T, C]{Buffer: b, name: name}
}

// Recorder returns node n's recorder for b, minted by Compile. Call it from n's body (or
// after Compile, to stage from outside a run — then only while n is not running). It panics
// when n did not declare Append(b) or its graph is not compiled.
func (b *Buffer[T, C]) Recorder(n *Node) *cmdbuffer.Recorder[T, C] {
	return n.recorder(b).(*cmdbuffer.Recorder[T, C])
}

// FlushTarget returns the target (a *T): the resource b's flush node writes.
func (b *Buffer[T, C]) FlushTarget() any { return b.Target() }

func (b *Buffer[T, C]) mint() any     { return b.NewRecorder() }
func (b *Buffer[T, C]) flush() error  { return b.Commit() }
func (b *Buffer[T, C]) label() string { return b.name }
