package deferral_test

import (
	"errors"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"github.com/deferbench/deferbench/strategies/versioned"
)

// TestDoNilClosure: Do(nil) through every strategy does not panic, neither when staged nor
// at commit; the commit fails with a *CommandError wrapping ErrInvalidCommand, and after
// Discard the strategy commits again.
func TestDoNilClosure(t *testing.T) {
	for name, f := range map[string]deferral.Factory{
		"cmdbuffer": cmdbuffer.Factory, "handrolled": handrolled.Factory, "hybrid": hybrid.Factory,
		"lazyguarded": lazyguarded.Factory, "lazyguarded-pass": lazyguarded.FactoryPass,
		"versioned": versioned.Factory,
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic: %v", p)
				}
			}()
			w := ecs.NewWorld()
			s := f(w)
			r := s.NewRecorder()
			r.Do(nil)
			err := s.Commit()
			var ce *deferral.CommandError
			if !errors.Is(err, deferral.ErrInvalidCommand) || !errors.As(err, &ce) || ce.Verb != deferral.VerbFunc {
				t.Fatalf("Commit after Do(nil) = %v; want a *CommandError for the closure wrapping ErrInvalidCommand", err)
			}
			s.Discard()
			ran := false
			r.Do(func(*ecs.World) error { ran = true; return nil })
			if err := s.Commit(); err != nil || !ran || s.Pending() != 0 {
				t.Errorf("after Discard: Commit = %v, closure ran %v, Pending %d; want nil, true, 0", err, ran, s.Pending())
			}
		})
	}
}

// TestApplyFuncNil: Core.ApplyFunc given a nil closure (a strategy that stored one without
// going through Do) fails with a *CommandError of verb VerbFunc at its position wrapping
// ErrInvalidCommand, records no receipt, and does not panic; NilClosure fails the same way.
func TestApplyFuncNil(t *testing.T) {
	c := deferral.NewCore(ecs.NewWorld())
	at := deferral.Pos{Recorder: 2, Index: 5}
	for name, fn := range map[string]func(*ecs.World) error{"nil": nil, "NilClosure": deferral.NilClosure[ecs.World]} {
		err := c.Commit(func() error { return c.ApplyFunc(at, fn) })
		var ce *deferral.CommandError
		if !errors.As(err, &ce) || ce.Pos != at || ce.Verb != deferral.VerbFunc || !errors.Is(err, deferral.ErrInvalidCommand) {
			t.Errorf("%s: ApplyFunc = %v; want a *CommandError (func) at %+v wrapping ErrInvalidCommand", name, err, at)
		}
	}
	if rep, _ := c.TakeReport(0); rep.Applied != 0 {
		t.Errorf("report after failing closures: Applied %d, want 0", rep.Applied)
	}
}
