package deferral_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

type life struct{ T float64 }
type tag struct{ N int32 }

var (
	lifeC = ecs.NewComponent[life]("life", func(l life) bool { return l.T > 0 })
	tagC  = ecs.NewComponent[tag]("tag", nil)
)

// sliceSink is the smallest Sink: one slice, FIFO.
type sliceSink struct {
	cmds []deferral.Command
	fns  map[int]func(*ecs.World) error
}

func (s *sliceSink) StageKeyed(_ uint64, c deferral.Command) { s.cmds = append(s.cmds, c) }
func (s *sliceSink) StageFuncKeyed(_ uint64, fn func(*ecs.World) error) {
	if s.fns == nil {
		s.fns = map[int]func(*ecs.World) error{}
	}
	s.fns[len(s.cmds)] = fn
	s.cmds = append(s.cmds, deferral.Command{Verb: deferral.VerbFunc})
}

func commit(t *testing.T, c *deferral.Core, s *sliceSink) error {
	t.Helper()
	if err := c.Begin(); err != nil {
		return err
	}
	for i := range s.cmds {
		var err error
		if s.cmds[i].Verb == deferral.VerbFunc {
			err = c.ApplyFunc(deferral.Pos{Index: i}, s.fns[i])
		} else {
			err = c.Apply(deferral.Pos{Index: i}, &s.cmds[i])
		}
		if err != nil {
			s.cmds = s.cmds[i:]
			c.End(false)
			return err
		}
	}
	s.cmds = s.cmds[:0]
	c.End(true)
	return nil
}

func TestCulledCreateDoesNotAllocate(t *testing.T) {
	w := ecs.NewWorld()
	c := deferral.NewCore(w)
	cmd := deferral.Command{Verb: deferral.VerbCreate, Bundle: lifeC.Value(life{-1})}
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() {
		if err := c.Apply(deferral.Pos{}, &cmd); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("allocs per culled create = %v, want 0", a)
	}
	c.End(true)
	rep, _ := c.TakeReport(0)
	if rep.IgnoredCreates == 0 || len(rep.Created) != 0 || w.Len() != 0 {
		t.Fatalf("report %+v, world len %d: want culled creates only", rep, w.Len())
	}
}

func TestCommandErrorNamesTheCommand(t *testing.T) {
	w := ecs.NewWorld()
	c := deferral.NewCore(w)
	s := &sliceSink{}
	r := c.NewRecorder(s)
	p := r.Create(lifeC.Value(life{1}))
	r.Set(p, tagC.Value(tag{1}))
	err := commit(t, c, s)
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || !errors.Is(err, ecs.ErrMissingComponent) {
		t.Fatalf("commit = %v, want *CommandError wrapping ErrMissingComponent", err)
	}
	for _, want := range []string{"recorder 0", "command 1", "set tag"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !c.Failed() {
		t.Error("Failed() = false after a failed commit")
	}
	if e, err := c.Resolve(p); err != nil || !w.Alive(e) {
		t.Errorf("Resolve(prefix placeholder) after failure = %v, %v; want the created entity", e, err)
	}
	c.Discarded()
	if c.Failed() {
		t.Error("Failed() = true after the failed suffix was discarded")
	}
}

func TestWrap(t *testing.T) {
	base := errors.New("boom")
	err := deferral.Wrap(deferral.Pos{Recorder: 2, Index: 3}, deferral.VerbTyped, base)
	var ce *deferral.CommandError
	if !errors.As(err, &ce) || ce.Verb != deferral.VerbTyped || !errors.Is(err, base) {
		t.Fatalf("Wrap = %#v", err)
	}
	if again := deferral.Wrap(deferral.Pos{Recorder: 2, Index: 3}, deferral.VerbFunc, err); again != err {
		t.Fatalf("Wrap of a CommandError at the same position = %v, want it unchanged", again)
	}
	outer := deferral.Wrap(deferral.Pos{Recorder: 0, Index: 9}, deferral.VerbFunc, err)
	if !errors.As(outer, &ce) || ce.Pos.Index != 9 || !errors.Is(outer, base) {
		t.Fatalf("Wrap of a nested CommandError = %v, want one naming index 9 that wraps it", outer)
	}
	if deferral.Wrap(deferral.Pos{}, deferral.VerbFunc, nil) != nil {
		t.Fatal("Wrap(nil) != nil")
	}
}

func TestPlaceholderExpiresAfterNextCommit(t *testing.T) {
	w := ecs.NewWorld()
	c := deferral.NewCore(w)
	s := &sliceSink{}
	r := c.NewRecorder(s)
	p := r.Create(lifeC.Value(life{1}))
	if _, err := c.Resolve(p); !errors.Is(err, deferral.ErrUnresolved) {
		t.Fatalf("Resolve before commit = %v, want ErrUnresolved", err)
	}
	if err := commit(t, c, s); err != nil {
		t.Fatal(err)
	}
	e, err := c.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	r.Destroy(p) // p belongs to the previous commit: skipped, e survives
	if err := commit(t, c, s); err != nil {
		t.Fatal(err)
	}
	if !w.Alive(e) {
		t.Fatal("a placeholder from an earlier commit reached its old entity")
	}
	if _, err := c.Resolve(p); !errors.Is(err, deferral.ErrUnresolved) {
		t.Fatalf("Resolve after the next commit = %v, want ErrUnresolved", err)
	}
	if v := deferral.VerbTyped.String(); v != "typed" {
		t.Fatalf("VerbTyped.String() = %q", v)
	}
}

// TestApplyRun: ApplyRun applies a run as Apply would command by command, numbering positions
// from at, and stops at the first failing command, counting the ones before it and returning
// an error naming it.
func TestApplyRun(t *testing.T) {
	w := ecs.NewWorld()
	e, err := w.Create(tagC.Value(tag{1}))
	if err != nil {
		t.Fatal(err)
	}
	c := deferral.NewCore(w)
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	run := []deferral.Command{
		{Verb: deferral.VerbAdd, Entity: e, Bundle: lifeC.Value(life{2})},
		{Verb: deferral.VerbSet, Entity: e, Bundle: tagC.Value(tag{3})},
		{Verb: deferral.VerbAdd, Entity: e, Bundle: lifeC.Value(life{-1})}, // refused by its validator
		{Verb: deferral.VerbRemove, Entity: e, Component: tagC.ID()},
	}
	n := 0
	err = c.ApplyRun(deferral.Pos{Recorder: 3, Index: 10}, run, &n)
	var ce *deferral.CommandError
	if n != 2 || !errors.As(err, &ce) || ce.Pos != (deferral.Pos{Recorder: 3, Index: 12}) || !errors.Is(err, ecs.ErrInvalidValue) {
		t.Fatalf("ApplyRun = %d, %v; want 2 and an invalid-value error at recorder 3, index 12", n, err)
	}
	if v, _ := tagC.Get(w, e); !w.Has(e, lifeC.ID()) || v != (tag{3}) {
		t.Errorf("after the run: has life %v, tag %v; want the first two commands applied", w.Has(e, lifeC.ID()), v)
	}
	n = 0
	err = c.ApplyRun(deferral.Pos{Index: 13}, run[3:], &n)
	c.End(err == nil)
	if n != 1 || err != nil || w.Has(e, tagC.ID()) {
		t.Errorf("rest of the run: %d, %v, tag kept %v; want 1, nil, false", n, err, w.Has(e, tagC.ID()))
	}
}

// TestStreamRoundTrip: every record a recorder writes into a stream decodes to the command it
// stages (bundles of one to several values, of every size), so the keyed path, which decodes,
// applies what the stream path would.
func TestStreamRoundTrip(t *testing.T) {
	type w3 struct{ A, B, C uint64 }
	c4 := ecs.NewComponent[uint32]("rt.u32", nil)
	c8 := ecs.NewComponent[float64]("rt.f64", nil)
	c24 := ecs.NewComponent[w3]("rt.w3", nil)
	c0 := ecs.NewComponent[struct{}]("rt.tag", nil)
	e := ecs.NewPlaceholder(7, 8, 9)
	bundles := []ecs.Bundle{
		c4.Value(5), c8.Value(2.5), c24.Value(w3{1, 2, 3}), c0.Value(struct{}{}),
		ecs.NewBundle(c4.Value(1), c8.Value(2)), ecs.NewBundle(c24.Value(w3{4, 5, 6}), c8.Value(7), c4.Value(8)),
	}
	var want []deferral.Command
	var s deferral.Stream
	core := deferral.NewCore(ecs.NewWorld())
	r := core.NewRecorder(streamSink{&s})
	for _, b := range bundles {
		for _, v := range []deferral.Verb{deferral.VerbCreate, deferral.VerbAdd, deferral.VerbSet} {
			r.Stage(deferral.Command{Verb: v, Entity: e, Bundle: b})
			want = append(want, deferral.Command{Verb: v, Entity: e, Bundle: b})
		}
	}
	r.Remove(e, c24.ID())
	r.Destroy(e)
	deferral.Set(r, e, c24, w3{7, 8, 9})
	want = append(want, deferral.Command{Verb: deferral.VerbRemove, Entity: e, Component: c24.ID()},
		deferral.Command{Verb: deferral.VerbDestroy, Entity: e},
		deferral.Command{Verb: deferral.VerbSet, Entity: e, Bundle: c24.Value(w3{7, 8, 9})})
	got := deferral.AppendCommands(&s, nil)
	if len(got) != len(want) || s.Len() != len(want) {
		t.Fatalf("decoded %d records (stream counts %d), want %d", len(got), s.Len(), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d decodes to %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestAppendCommandRoundTrip: AppendCommand writes every Command — the ones the compact
// forms say and the ones only a raw record can (no verb, a set without values, an unknown
// verb) — so that it decodes as staged (a remove without the values it carried); AppendSlot decodes as a closure's place;
// AppendStream moves records in order and empties its source, also into a held stream.
func TestAppendCommandRoundTrip(t *testing.T) {
	c8 := ecs.NewComponent[float64]("ac.f64", nil)
	c16 := ecs.NewComponent[[2]float64]("ac.v2", nil)
	e := ecs.NewPlaceholder(3, 4, 5)
	cmds := []deferral.Command{
		{Verb: deferral.VerbSet, Entity: e, Bundle: c16.Value([2]float64{1, 2})},
		{Verb: deferral.VerbCreate, Entity: e, Bundle: ecs.NewBundle(c8.Value(3), c16.Value([2]float64{4, 5}))},
		{Verb: deferral.VerbRemove, Entity: e, Component: c8.ID()},
		{Verb: deferral.VerbDestroy, Entity: e},
		{},                                          // no verb: raw
		{Verb: deferral.VerbSet, Entity: e},         // no values: raw
		{Verb: 200, Entity: e, Bundle: c8.Value(2)}, // unknown verb: raw
		{Verb: deferral.VerbRemove, Entity: e, Component: c16.ID(), Bundle: c8.Value(1)},
	}
	var src, dst deferral.Stream
	var want []deferral.Command
	for i := range 70 { // past the first array, so that both streams grow
		c := cmds[i%len(cmds)]
		if i%5 == 4 {
			src.AppendSlot()
			want = append(want, deferral.Command{Verb: deferral.VerbFunc})
			continue
		}
		src.AppendCommand(&c)
		if c.Verb == deferral.VerbRemove {
			c.Bundle = ecs.Bundle{} // a remove's values mean nothing (Apply ignores them): not kept
		}
		want = append(want, c)
	}
	dst.Hold(true)
	dst.AppendCommand(&cmds[0])
	dst.AppendStream(&src)
	want = append([]deferral.Command{cmds[0]}, want...)
	if src.Len() != 0 || len(src.Words()) != 0 {
		t.Fatalf("AppendStream left %d records (%d words) in its source", src.Len(), len(src.Words()))
	}
	got := deferral.AppendCommands(&dst, nil)
	if len(got) != len(want) || dst.Len() != len(want) {
		t.Fatalf("decoded %d records (stream counts %d), want %d", len(got), dst.Len(), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d decodes to %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestCompactRoundTrip: Compress takes the commands that fit in 32 bytes and gives them back
// as staged; it refuses the rest.
func TestCompactRoundTrip(t *testing.T) {
	c4 := ecs.NewComponent[uint32]("cp.u32", nil)
	c16 := ecs.NewComponent[[2]float64]("cp.v2", nil)
	c24 := ecs.NewComponent[[3]uint64]("cp.w3", nil)
	e := ecs.NewPlaceholder(1, 2, 3)
	for _, c := range []deferral.Command{
		{Verb: deferral.VerbSet, Entity: e, Bundle: c16.Value([2]float64{1, 2})},
		{Verb: deferral.VerbAdd, Entity: e, Bundle: c4.Value(7)},
		{Verb: deferral.VerbRemove, Entity: e, Component: c24.ID()},
		{Verb: deferral.VerbDestroy, Entity: e},
	} {
		r, ok := deferral.Compress(&c)
		if got := r.Command(); !ok || got != c {
			t.Errorf("Compress(%+v) = %v, decodes to %+v", c, ok, got)
		}
	}
	for _, c := range []deferral.Command{
		{Verb: deferral.VerbSet, Entity: e, Bundle: c24.Value([3]uint64{1, 2, 3})},
		{Verb: deferral.VerbAdd, Entity: e, Bundle: ecs.NewBundle(c4.Value(1), c16.Value([2]float64{}))},
		{Verb: deferral.VerbCreate, Entity: e, Bundle: c4.Value(1)},
		{Verb: deferral.VerbSet, Entity: e},
		{},
	} {
		if _, ok := deferral.Compress(&c); ok {
			t.Errorf("Compress(%+v) took a command that does not fit", c)
		}
	}
}

type streamSink struct{ s *deferral.Stream }

func (k streamSink) StageKeyed(uint64, deferral.Command)           { panic("not keyed") }
func (k streamSink) StageFuncKeyed(uint64, func(*ecs.World) error) { panic("no closures") }
func (k streamSink) Stream() *deferral.Stream                      { return k.s }

// TestApplyStreamMatchesApply holds the stream's commit (ApplyStream, whose runs of one-value
// records the World's ApplyValues applies) to Apply of the same commands one by one: the
// same world hash and report, for one-value and bundle Adds and Sets, removes of components
// the entity has, lacks, or that no component has, targets that are dead, stale or empty,
// and a destroy in between.
func TestApplyStreamMatchesApply(t *testing.T) {
	c4 := ecs.NewComponent[uint32]("as.u32", nil)
	c16 := ecs.NewComponent[[2]float64]("as.v2", nil)
	c24 := ecs.NewComponent[[3]uint64]("as.w3", nil)
	build := func() (*ecs.World, []ecs.Entity) {
		w := ecs.NewWorld()
		var es []ecs.Entity
		for i := range 6 {
			e, err := w.Create(c4.Value(uint32(i)))
			if err != nil {
				t.Fatal(err)
			}
			es = append(es, e)
		}
		if err := w.Destroy(es[5]); err != nil { // es[5] is stale from here on
			t.Fatal(err)
		}
		return w, es
	}
	stage := func(r *deferral.Recorder, es []ecs.Entity) {
		for i, e := range es {
			r.Add(e, c16.Value([2]float64{float64(i), 1}))
			r.Set(e, c4.Value(uint32(10+i)))
			r.Add(e, ecs.NewBundle(c24.Value([3]uint64{1, 2, uint64(i)}), c4.Value(7)))
			deferral.Set(r, e, c16, [2]float64{2, float64(i)})
			r.Remove(e, c24.ID())
			r.Remove(e, c24.ID())                  // lacks it now: a no-op remove
			r.Remove(e, ecs.MaxComponents+c4.ID()) // no component has this id (its low bits name c4)
			r.Set(e, ecs.NewBundle(c4.Value(3), c16.Value([2]float64{3, 3})))
			if i == 2 {
				r.Destroy(e)
			}
			deferral.Add(r, e, c24, [3]uint64{9, 9, uint64(i)})
			r.Remove(e, c4.ID())
		}
		r.Set(ecs.Entity{}, c4.Value(1))
	}

	wa, ea := build()
	var s deferral.Stream
	ca := deferral.NewCore(wa)
	stage(ca.NewRecorder(streamSink{&s}), ea)
	if err := ca.Begin(); err != nil {
		t.Fatal(err)
	}
	next, off := 0, 0
	if err := ca.ApplyStream(deferral.Pos{}, &s, s.Len(), &next, &off); err != nil {
		t.Fatal(err)
	}
	ca.End(true)
	if next != s.Len() || off != len(s.Words()) {
		t.Fatalf("ApplyStream's cursor stopped at record %d, word %d; want %d, %d", next, off, s.Len(), len(s.Words()))
	}
	ra, _ := ca.TakeReport(0)

	wb, eb := build()
	var sb deferral.Stream
	cb := deferral.NewCore(wb)
	stage(cb.NewRecorder(streamSink{&sb}), eb)
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	for i, c := range deferral.AppendCommands(&sb, nil) {
		if err := cb.Apply(deferral.Pos{Index: i}, &c); err != nil {
			t.Fatal(err)
		}
	}
	cb.End(true)
	rb, _ := cb.TakeReport(0)

	if ha, hb := wa.Hash(), wb.Hash(); ha != hb {
		t.Errorf("world hash after ApplyStream %x, after Apply one by one %x", ha, hb)
	}
	if ra.Applied != rb.Applied || ra.Skipped != rb.Skipped || ra.NoopRemoves != rb.NoopRemoves {
		t.Errorf("ApplyStream reports applied/skipped/noop removes %d/%d/%d; Apply %d/%d/%d",
			ra.Applied, ra.Skipped, ra.NoopRemoves, rb.Applied, rb.Skipped, rb.NoopRemoves)
	}
	if ra.Applied != s.Len() {
		t.Errorf("applied %d of %d records", ra.Applied, s.Len())
	}
}

// TestAppendSetMatchesStream: the Stage baseline's record (AppendSet) is the record Set
// writes into a recorder's stream, word for word, for values of 0, 4, 16 and 24 bytes.
func TestAppendSetMatchesStream(t *testing.T) {
	c0 := ecs.NewComponent[struct{}]("aps.tag", nil)
	c4 := ecs.NewComponent[uint32]("aps.u32", nil)
	c16 := ecs.NewComponent[[2]float64]("aps.v2", nil)
	c24 := ecs.NewComponent[[3]uint64]("aps.w3", nil)
	var s deferral.Stream
	r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
	e := ecs.NewPlaceholder(3, 4, 5)
	var got []uint64
	deferral.Set(r, e, c0, struct{}{})
	got = deferral.AppendSet(got, e, c0, struct{}{})
	deferral.Set(r, e, c4, 7)
	got = deferral.AppendSet(got, e, c4, 7)
	deferral.Set(r, e, c16, [2]float64{1, 2})
	got = deferral.AppendSet(got, e, c16, [2]float64{1, 2})
	deferral.Set(r, e, c24, [3]uint64{4, 5, 6})
	got = deferral.AppendSet(got, e, c24, [3]uint64{4, 5, 6})
	if want := s.Words(); !slices.Equal(got, want) {
		t.Errorf("AppendSet wrote %x; the stream holds %x", got, want)
	}
}

// TestPutValueHeadMatchesStream: PutValueHead's two words open the record Set, Add and Remove write
// into a recorder's stream, for values of 0, 4, 16 and 24 bytes.
func TestPutValueHeadMatchesStream(t *testing.T) {
	c0 := ecs.NewComponent[struct{}]("vh.tag", nil)
	c4 := ecs.NewComponent[uint32]("vh.u32", nil)
	c16 := ecs.NewComponent[[2]float64]("vh.v2", nil)
	c24 := ecs.NewComponent[[3]uint64]("vh.w3", nil)
	e := ecs.NewPlaceholder(3, 4, 5)
	for _, tc := range []struct {
		name  string
		verb  deferral.Verb
		id    ecs.ComponentID
		size  uintptr
		stage func(r *deferral.Recorder)
	}{
		{"set tag", deferral.VerbSet, c0.ID(), 0, func(r *deferral.Recorder) { deferral.Set(r, e, c0, struct{}{}) }},
		{"set u32", deferral.VerbSet, c4.ID(), 4, func(r *deferral.Recorder) { deferral.Set(r, e, c4, 7) }},
		{"add v2", deferral.VerbAdd, c16.ID(), 16, func(r *deferral.Recorder) { deferral.Add(r, e, c16, [2]float64{1, 2}) }},
		{"set w3", deferral.VerbSet, c24.ID(), 24, func(r *deferral.Recorder) { deferral.Set(r, e, c24, [3]uint64{4, 5, 6}) }},
		{"remove", deferral.VerbRemove, c16.ID(), 0, func(r *deferral.Recorder) { r.Remove(e, c16.ID()) }},
	} {
		var s deferral.Stream
		r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
		tc.stage(r)
		h := [2]uint64{^uint64(0), ^uint64(0)} // PutValueHead writes every byte
		deferral.PutValueHead(&h, tc.verb, e, tc.id, tc.size)
		if w := s.Words(); len(w) < 2 || w[0] != h[0] || w[1] != h[1] {
			t.Errorf("%s: PutValueHead wrote %x; the stream holds %x", tc.name, h, w)
		}
	}
}

// TestReusedStreamRecordsAreClean: a record staged over words a dropped record used holds
// its own bytes only — the words of a value smaller than a word are padded with zeros, as
// Component.Value pads them — so that it decodes to the command Recorder.Set would have
// staged, and AppendSet still writes the same words.
func TestReusedStreamRecordsAreClean(t *testing.T) {
	c4 := ecs.NewComponent[uint32]("clean.u32", nil)
	c12 := ecs.NewComponent[[3]uint32]("clean.u96", nil)
	c24 := ecs.NewComponent[[3]uint64]("clean.w3", nil)
	var s deferral.Stream
	r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
	e := ecs.NewPlaceholder(3, 4, 5)
	for range 2 {
		deferral.Set(r, e, c24, [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)})
		deferral.Add(r, e, c24, [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)})
	}
	s.Drop(s.Len(), len(s.Words()))
	deferral.Set(r, e, c4, 7)
	deferral.Add(r, e, c12, [3]uint32{1, 2, 3})
	got := deferral.AppendCommands(&s, nil)
	want := []deferral.Command{
		{Verb: deferral.VerbSet, Entity: e, Bundle: c4.Value(7)},
		{Verb: deferral.VerbAdd, Entity: e, Bundle: c12.Value([3]uint32{1, 2, 3})},
	}
	if !slices.Equal(got, want) {
		t.Errorf("records staged over dropped ones decode to %+v; want %+v", got, want)
	}
	if w := deferral.AppendSet(nil, e, c4, 7); !slices.Equal(w, s.Words()[:len(w)]) {
		t.Errorf("AppendSet wrote %x; the stream holds %x", w, s.Words()[:len(w)])
	}
}

// padded has padding inside it: bytes 1–3 and 9–15, which a store of the value does not
// write.
type padded struct {
	A uint8
	B uint32
	C uint8
}

// TestReusedStreamRecordsPadInside: a value with padding between or after its fields, staged
// with Set or Add over words a dropped record used (or appended with AppendSet to a slice
// whose spare capacity holds old words), carries zeros in its padding, as Component.Value's
// Bundle does — not the dropped record's bytes, which ApplyValues would copy into the column
// and World.Hash would see.
func TestReusedStreamRecordsPadInside(t *testing.T) {
	cp := ecs.NewComponent[padded]("clean.padded", nil)
	c24 := ecs.NewComponent[[3]uint64]("clean.dirty", nil)
	ones := [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)}
	var s deferral.Stream
	r := deferral.NewCore(ecs.NewWorld()).NewRecorder(streamSink{&s})
	e := ecs.NewPlaceholder(3, 4, 5)
	for range 4 {
		deferral.Set(r, e, c24, ones)
	}
	s.Drop(s.Len(), len(s.Words()))
	v := padded{A: 1, B: 2, C: 3}
	deferral.Set(r, e, cp, v)
	deferral.Add(r, e, cp, v)
	got := deferral.AppendCommands(&s, nil)
	want := []deferral.Command{
		{Verb: deferral.VerbSet, Entity: e, Bundle: cp.Value(v)},
		{Verb: deferral.VerbAdd, Entity: e, Bundle: cp.Value(v)},
	}
	if !slices.Equal(got, want) {
		t.Errorf("padded values staged over dropped records decode to %+v; want %+v", got, want)
	}
	dirty := []uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	if w := deferral.AppendSet(dirty[:0], e, cp, v); !slices.Equal(w, s.Words()[:len(w)]) {
		t.Errorf("AppendSet over old words wrote %x; the stream holds %x", w, s.Words()[:len(w)])
	}
}
