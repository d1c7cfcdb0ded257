package main

import (
	"github.com/deferbench/deferbench/cmd/deferbench/internal/peerload"
	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
	"github.com/deferbench/deferbench/strategies/handrolled"
	"github.com/deferbench/deferbench/strategies/hybrid"
	"github.com/deferbench/deferbench/strategies/lazyguarded"
	"github.com/deferbench/deferbench/strategies/versioned"
)

// The peer workloads (package peerload): NAME-STRATEGY-STORAGE through a strategy's
// documented API, NAME-ark-collect and NAME-ark-batch through Ark. One op is what peerload
// says; a run rounds n up to whole rounds (W2's 512 ops: 0.03 % at the default counts).
func init() {
	for _, name := range peerload.Names {
		for _, s := range []struct {
			name string
			mk   deferral.Factory
		}{
			{"cmdbuffer", cmdbuffer.Factory}, {"handrolled", handrolled.Factory}, {"hybrid", hybrid.Factory},
			{"lazyguarded", lazyguarded.Factory}, {"versioned", versioned.Factory},
		} {
			for _, st := range []ecs.Storage{ecs.Slots, ecs.Archetypes} {
				register(name+"-"+s.name+"-"+st.String(), name+" through "+s.name+" on "+st.String()+" storage (package peerload)", func() func(int) {
					l, err := peerload.Strategy(name, s.mk, st)
					return loop(l, err)
				})
			}
		}
		register(name+"-ark-collect", name+" through Ark's collect-then-apply (package peerload)", func() func(int) {
			l, err := peerload.ArkCollect(name)
			return loop(l, err)
		})
		if _, ok, _ := peerload.ArkBatch(name); ok {
			register(name+"-ark-batch", name+" through Ark's batch operations (package peerload)", func() func(int) {
				l, _, err := peerload.ArkBatch(name)
				return loop(l, err)
			})
		}
	}
}

// loop warms l up with four rounds and returns its run of n ops; it panics on an error, as
// the other workloads do.
func loop(l peerload.Load, err error) func(int) {
	if err == nil {
		err = l.Run(4 * l.Ops)
	}
	if err != nil {
		panic(err)
	}
	return func(n int) {
		if err := l.Run(n); err != nil {
			panic(err)
		}
	}
}
