package deferral_test

import (
	"errors"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// zzSink is a FIFO Sink for the break tests (typed commands only).
type zzSink struct{ cmds []deferral.Command }

func (s *zzSink) StageKeyed(_ uint64, c deferral.Command)       { s.cmds = append(s.cmds, c) }
func (s *zzSink) StageFuncKeyed(uint64, func(*ecs.World) error) { panic("zzSink: no closures") }

func zzCommit(t *testing.T, c *deferral.Core, s *zzSink) {
	t.Helper()
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	for i := range s.cmds {
		if err := c.Apply(deferral.Pos{Index: i}, &s.cmds[i]); err != nil {
			t.Fatal(err)
		}
	}
	s.cmds = s.cmds[:0]
	c.End(true)
}

// Placeholders carry the commit epoch in 16 bits. A placeholder kept for exactly 65536
// commits used to alias the placeholder minted at the same recorder and sequence number
// then: Resolve answered the new entity, and a Destroy naming the old placeholder destroyed
// the new entity.
func TestZZEpochWrapDoesNotAlias(t *testing.T) {
	for _, via := range []string{"commit", "discard"} {
		t.Run(via, func(t *testing.T) {
			w := ecs.NewWorld()
			c := deferral.NewCore(w)
			s := &zzSink{}
			r := c.NewRecorder(s)
			old := r.Create(tagC.Value(tag{1}))
			zzCommit(t, c, s)
			first, err := c.Resolve(old)
			if err != nil {
				t.Fatal(err)
			}
			for range 1<<16 - 1 {
				if via == "commit" {
					zzCommit(t, c, s)
				} else {
					c.Discarded()
				}
			}
			p := r.Create(tagC.Value(tag{2}))
			if p == old {
				t.Errorf("placeholder %v minted again 65536 epochs later", p)
			}
			r.Destroy(old) // expired placeholder: skipped
			zzCommit(t, c, s)
			e, err := c.Resolve(p)
			if err != nil || !w.Alive(e) {
				t.Fatalf("resolve new placeholder = %v, %v (alive %v)", e, err, w.Alive(e))
			}
			if !w.Alive(first) || w.Len() != 2 {
				t.Errorf("world: %d entities, first alive %v; want 2, true", w.Len(), w.Alive(first))
			}
			if e, err := c.Resolve(old); !errors.Is(err, deferral.ErrUnresolved) {
				t.Errorf("resolve expired placeholder = %v, %v; want ErrUnresolved", e, err)
			}
			rep, _ := c.TakeReport(0)
			if rep.Skipped != 1 || rep.Destroyed != 0 {
				t.Errorf("report: skipped %d destroyed %d; want 1, 0", rep.Skipped, rep.Destroyed)
			}
		})
	}
}

// A placeholder minted in the last epoch before the 16-bit epoch wraps still resolves after
// its commit, and expired ones stay ErrUnresolved (not foreign) across any number of wraps;
// another Core's placeholder stays foreign.
func TestZZResolveAcrossEpochWrap(t *testing.T) {
	w := ecs.NewWorld()
	c := deferral.NewCore(w)
	s := &zzSink{}
	r := c.NewRecorder(s)
	early := r.Create(tagC.Value(tag{0}))
	zzCommit(t, c, s)
	var last ecs.Entity
	for i := range 3 << 16 {
		if i%(1<<16) == 1<<16-2 { // the commit right before the epoch's low 16 bits wrap
			last = r.Create(tagC.Value(tag{int32(i)}))
			zzCommit(t, c, s)
			if _, err := c.Resolve(last); err != nil {
				t.Fatalf("commit %d: resolve placeholder of the last epoch before the wrap: %v", i, err)
			}
			if _, err := c.Resolve(early); !errors.Is(err, deferral.ErrUnresolved) {
				t.Fatalf("commit %d: resolve early placeholder: %v, want ErrUnresolved", i, err)
			}
			continue
		}
		zzCommit(t, c, s)
	}
	if _, err := c.Resolve(last); !errors.Is(err, deferral.ErrUnresolved) {
		t.Errorf("resolve expired placeholder: %v, want ErrUnresolved", err)
	}
	other := deferral.NewCore(w)
	op := other.NewRecorder(&zzSink{}).Create(tagC.Value(tag{9}))
	if _, err := c.Resolve(op); !errors.Is(err, deferral.ErrForeignPlaceholder) {
		t.Errorf("resolve another core's placeholder: %v, want ErrForeignPlaceholder", err)
	}
	if w.Len() != 4 {
		t.Errorf("world has %d entities, want 4", w.Len())
	}
}
