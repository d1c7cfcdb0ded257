package lazyguarded_test

import (
	"testing"

	"github.com/deferbench/deferbench/conformance"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
)

// read submits fn on the world's pipe of a lazyguarded strategy.
func read(s deferral.Strategy, fn func(w *ecs.World) error) conformance.ReadTask {
	return s.(*lazyguarded.ECS).Read(fn)
}

func TestConformanceReaders(t *testing.T) { conformance.TestReaders(t, lazyguarded.Factory, read) }
func TestConformanceReadersPass(t *testing.T) {
	conformance.TestReaders(t, lazyguarded.FactoryPass, read)
}

// submitRead submits fn as a read through the pipe's generic entry, Guarded.Submit(Read, fn),
// which must be Read.
func submitRead(s deferral.Strategy, fn func(w *ecs.World) error) conformance.ReadTask {
	return s.(*lazyguarded.ECS).Guarded().Submit(lazyguarded.Read, fn)
}

func TestConformanceReadersSubmit(t *testing.T) {
	conformance.TestReaders(t, lazyguarded.Factory, submitRead)
}
