package lazyguarded_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

func TestConformanceGeneric(t *testing.T) {
	conformance.TestGeneric(t, func(t *conformance.Ints) conformance.Generic {
		return genericPipe{lazyguarded.NewReadersWait(t)}
	}, conformance.GenericOptions{Order: conformance.BySubmission})
}

func TestConformanceGenericPass(t *testing.T) {
	conformance.TestGeneric(t, func(t *conformance.Ints) conformance.Generic {
		return genericPipe{lazyguarded.NewReadersPass(t)}
	}, conformance.GenericOptions{Order: conformance.BySubmission})
}

type genericPipe struct {
	g *lazyguarded.Guarded[conformance.Ints]
}

func (p genericPipe) NewRecorder() conformance.GenericRecorder {
	return genericRecorder{lazyguarded.NewRecorder(p.g, conformance.ApplyInt)}
}

func (p genericPipe) Commit() error { return p.g.Flush() }
func (p genericPipe) Pending() int  { return p.g.Pending() }

// Discard drops what is pending; its error (ErrFlushing) cannot occur at the suite's sync
// points.
func (p genericPipe) Discard() int {
	n, _ := p.g.Discard()
	return n
}

type genericRecorder struct {
	*lazyguarded.Recorder[conformance.Ints, int]
}

func (r genericRecorder) Stage(c int)                                  { r.Recorder.Stage(c) }
func (r genericRecorder) StageFunc(fn func(t *conformance.Ints) error) { r.Recorder.StageFunc(fn) }
func (r genericRecorder) StageTask(c int) conformance.ReadTask         { return r.Recorder.Stage(c) }
func (genericRecorder) Done()                                          {}
