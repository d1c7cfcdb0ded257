package lazyguarded_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

func TestConformanceGeneric(t *testing.T) {
	conformance.TestGeneric(t, func(t *conformance.Ints) conformance.Generic {
		return genericPipe{g: lazyguarded.NewReadersWait(t)}
	}, conformance.GenericOptions{Order: conformance.BySubmission})
}

func TestConformanceGenericPass(t *testing.T) {
	conformance.TestGeneric(t, func(t *conformance.Ints) conformance.Generic {
		return genericPipe{g: lazyguarded.NewReadersPass(t), submit: true}
	}, conformance.GenericOptions{Order: conformance.BySubmission})
}

// genericPipe adapts a Guarded to conformance.Generic. With submit, its recorders stage tasks
// through Guarded.Submit(Write), the entry point that declares the access, instead of a
// Recorder (the GenericTasks row checks no positions).
type genericPipe struct {
	g      *lazyguarded.Guarded[conformance.Ints]
	submit bool
}

func (p genericPipe) NewRecorder() conformance.GenericRecorder {
	r := genericRecorder{Recorder: lazyguarded.NewRecorder(p.g, conformance.ApplyInt)}
	if p.submit {
		r.submit = p.g
	}
	return r
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
	submit *lazyguarded.Guarded[conformance.Ints] // set: StageTask submits to it
}

func (r genericRecorder) Stage(c int)                                  { r.Recorder.Stage(c) }
func (r genericRecorder) StageFunc(fn func(t *conformance.Ints) error) { r.Recorder.StageFunc(fn) }
func (r genericRecorder) StageTask(c int) conformance.ReadTask {
	if r.submit != nil {
		return r.submit.Submit(lazyguarded.Write, func(t *conformance.Ints) error {
			return conformance.ApplyInt(t, deferral.Pos{}, &c)
		})
	}
	return r.Recorder.Stage(c)
}
func (genericRecorder) Done() {}
