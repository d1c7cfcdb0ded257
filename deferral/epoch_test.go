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
func TestEpochWrapDoesNotAlias(t *testing.T) {
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
func TestResolveAcrossEpochWrap(t *testing.T) {
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

type zzLife struct{ T float64 }
type zzTag struct{ N int32 }

var (
	zzLifeC = ecs.NewComponent[zzLife]("zz.life", func(l zzLife) bool { return l.T > 0 })
	zzTagC  = ecs.NewComponent[zzTag]("zz.tag", nil)
)

// zzHandle is one handle the fuzz test names: the same entity in the world under test (e) and
// in the model world (m), or a placeholder with the epoch it was minted in.
type zzHandle struct {
	e, m  ecs.Entity
	ph    bool
	epoch int
}

// zzStaged is one staged command as the model sees it.
type zzStaged struct {
	verb  deferral.Verb
	h     int // index into handles
	comp  int // 0 life, 1 tag
	value int32
}

// FuzzCoreLenient drives deferral.Core with several recorders (committed recorder by
// recorder, FIFO, a failure keeping its suffix; closures staging during a commit for the next
// one) and checks every command against an
// independent model of the lenient table (package doc) built on the strict World API: world hash, report
// counts, Resolve answers and the failing command's position after every commit.
func FuzzCoreLenient(f *testing.F) {
	f.Add([]byte{0, 1, 0, 9, 2, 3, 5, 0, 1, 1, 4, 2, 3, 0, 6, 0, 5, 5, 7, 1})
	f.Add([]byte{0, 200, 1, 3, 0, 9, 3, 4, 9, 9, 6, 6, 2, 2, 8, 0, 5, 1, 5, 2, 6, 7, 7, 0})
	// A recorder staged ahead during two commits in a row, the second failing, then staged
	// normally: its placeholder repeated one staged ahead before.
	f.Add([]byte("000900200001877001210000"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		ops = ops[:min(len(ops), 900)]
		w, mw := ecs.NewWorld(), ecs.NewWorld()
		other := ecs.NewWorld()
		foreign, _ := other.Create(ecs.Bundle{})
		c := deferral.NewCore(w)
		const R = 3
		sinks := make([]*zzSink, R)
		recs := make([]*deferral.Recorder, R)
		for i := range R {
			sinks[i] = &zzSink{}
			recs[i] = c.NewRecorder(sinks[i])
		}
		staged := make([][]zzStaged, R) // model's pending, per recorder
		handles := []zzHandle{{}, {e: foreign, m: foreign}}
		created := map[int]ecs.Entity{} // placeholder handle index → model entity (this epoch)
		culled := map[int]bool{}
		epoch, tabEpoch := 0, -1
		var want deferral.Report
		failed, failedRec := false, 0
		val := func(comp int, v int32) ecs.Bundle {
			if comp == 0 {
				return zzLifeC.Value(zzLife{float64(v)})
			}
			return zzTagC.Value(zzTag{v})
		}
		ids := [2]ecs.ComponentID{zzLifeC.ID(), zzTagC.ID()}
		// apply applies one staged command to the model; false when it fails.
		apply := func(s zzStaged) bool {
			h := handles[s.h]
			if s.verb == deferral.VerbCreate {
				if s.value <= 0 { // life ≤ 0: culled
					culled[s.h] = true
					want.IgnoredCreates++
					want.Applied++
					return true
				}
				e, err := mw.Create(val(0, s.value))
				if err != nil {
					t.Fatalf("model create: %v", err)
				}
				created[s.h] = e
				want.Applied++
				return true
			}
			m, ok := h.m, true
			if h.ph {
				m, ok = created[s.h]
				ok = ok && (h.epoch == tabEpoch || h.epoch == tabEpoch+1)
			}
			alive := ok && mw.Alive(m)
			switch s.verb {
			case deferral.VerbDestroy:
				switch {
				case !ok:
					want.Skipped++
				case !alive:
					want.IgnoredDestroys++
				default:
					if err := mw.Destroy(m); err != nil {
						t.Fatalf("model destroy: %v", err)
					}
					want.Destroyed++
				}
			case deferral.VerbAdd, deferral.VerbRemove, deferral.VerbSet:
				if !alive {
					want.Skipped++
					break
				}
				has := mw.Has(m, ids[s.comp])
				switch {
				case s.verb == deferral.VerbAdd:
					if err := mw.Upsert(m, val(s.comp, s.value)); err != nil {
						t.Fatalf("model upsert: %v", err)
					}
				case s.verb == deferral.VerbRemove && !has:
					want.NoopRemoves++
				case s.verb == deferral.VerbRemove:
					if err := mw.Remove(m, ids[s.comp]); err != nil {
						t.Fatalf("model remove: %v", err)
					}
				case !has:
					return false // Set of a missing component fails
				default:
					if err := mw.Set(m, val(s.comp, s.value)); err != nil {
						t.Fatalf("model set: %v", err)
					}
				}
			}
			want.Applied++
			return true
		}
		for i := 0; i+2 < len(ops); i += 3 {
			op, x, y := ops[i]%10, ops[i+1], ops[i+2]
			ri := int(x) % R
			hi := int(y) % len(handles)
			comp := int(x>>2) & 1
			value := int32(y>>1) - 20 // add/set values of life may be invalid: keep them valid below
			switch op {
			case 0, 1: // create (value ≤ 0 is culled)
				p := recs[ri].Create(zzLifeC.Value(zzLife{float64(value)}))
				handles = append(handles, zzHandle{e: p, ph: true, epoch: epoch})
				staged[ri] = append(staged[ri], zzStaged{deferral.VerbCreate, len(handles) - 1, 0, value})
			case 2:
				recs[ri].Destroy(handles[hi].e)
				staged[ri] = append(staged[ri], zzStaged{deferral.VerbDestroy, hi, 0, 0})
			case 3, 4:
				v := max(value, 1)
				recs[ri].Add(handles[hi].e, val(comp, v))
				staged[ri] = append(staged[ri], zzStaged{deferral.VerbAdd, hi, comp, v})
			case 5:
				recs[ri].Remove(handles[hi].e, ids[comp])
				staged[ri] = append(staged[ri], zzStaged{deferral.VerbRemove, hi, comp, 0})
			case 6:
				v := max(value, 1)
				recs[ri].Set(handles[hi].e, val(comp, v))
				staged[ri] = append(staged[ri], zzStaged{deferral.VerbSet, hi, comp, v})
			case 7, 8: // commit, recorder by recorder
				if err := c.Begin(); err != nil {
					t.Fatal(err)
				}
				if tabEpoch != epoch { // a new epoch's commit: earlier answers expire
					created, culled = map[int]ecs.Entity{}, map[int]bool{}
				}
				tabEpoch = epoch
				var ends, mends [R]int
				for r := range R {
					ends[r], mends[r] = len(sinks[r].cmds), len(staged[r])
				}
				if op == 8 { // a closure stages during the commit: for the next commit
					rj := int(y) % R
					v := int32(y%7) - 1 // ≤ 0: culled
					p := recs[rj].Create(zzLifeC.Value(zzLife{float64(v)}))
					handles = append(handles, zzHandle{e: p, ph: true, epoch: epoch + 1})
					staged[rj] = append(staged[rj], zzStaged{deferral.VerbCreate, len(handles) - 1, 0, v})
					recs[rj].Add(p, zzTagC.Value(zzTag{5}))
					staged[rj] = append(staged[rj], zzStaged{deferral.VerbAdd, len(handles) - 1, 1, 5})
					if x&1 != 0 {
						recs[rj].Destroy(handles[hi].e)
						staged[rj] = append(staged[rj], zzStaged{deferral.VerbDestroy, hi, 0, 0})
					}
				}
				var cerr error
				var failRec, failIdx int
				for r := 0; r < R && cerr == nil; r++ {
					for k := range ends[r] {
						if cerr = c.Apply(deferral.Pos{Recorder: r, Index: k}, &sinks[r].cmds[k]); cerr != nil {
							sinks[r].cmds = sinks[r].cmds[k:]
							failRec, failIdx = r, k
							break
						}
					}
					if cerr == nil {
						sinks[r].cmds = sinks[r].cmds[ends[r]:]
					}
				}
				c.End(cerr == nil)
				mfail, mrec, midx := false, 0, 0
				for r := 0; r < R && !mfail; r++ {
					for k, s := range staged[r][:mends[r]] {
						if !apply(s) {
							staged[r] = staged[r][k:]
							mfail, mrec, midx = true, r, k
							break
						}
					}
					if !mfail {
						staged[r] = staged[r][mends[r]:]
					}
				}
				var ce *deferral.CommandError
				switch {
				case mfail != (cerr != nil):
					t.Fatalf("op %d: commit error %v, model fails %v", i, cerr, mfail)
				case mfail && (!errors.As(cerr, &ce) || ce.Pos != (deferral.Pos{Recorder: mrec, Index: midx}) || failRec != mrec || failIdx != midx):
					t.Fatalf("op %d: commit error %v, model fails at recorder %d index %d", i, cerr, mrec, midx)
				case mfail && !errors.Is(cerr, ecs.ErrMissingComponent):
					t.Fatalf("op %d: commit error %v, want ErrMissingComponent", i, cerr)
				}
				// Resolve answers for every placeholder, against the table of this commit.
				for k, h := range handles {
					if !h.ph {
						continue
					}
					got, err := c.Resolve(h.e)
					switch {
					case h.epoch != tabEpoch && h.epoch != tabEpoch+1:
						if !errors.Is(err, deferral.ErrUnresolved) {
							t.Fatalf("op %d: resolve of an expired placeholder: %v, %v", i, got, err)
						}
					default:
						m, ok := created[k]
						switch {
						case culled[k]:
							if !errors.Is(err, deferral.ErrCulled) {
								t.Fatalf("op %d: resolve culled: %v", i, err)
							}
						case ok:
							if err != nil || got.Slot() != m.Slot() || got.Generation() != m.Generation() {
								t.Fatalf("op %d: resolve = %v, %v; model %v", i, got, err, m)
							}
						default:
							if !errors.Is(err, deferral.ErrUnresolved) {
								t.Fatalf("op %d: resolve of an unapplied placeholder: %v, %v", i, got, err)
							}
						}
					}
				}
				failed, failedRec = mfail, mrec
				if !mfail {
					epoch++
				}
			case 9: // discard, or fix the failing Set by adding the component strictly
				if failed && y&1 == 0 {
					for r := range R {
						if r != failedRec {
							continue
						}
						s := staged[r][0]
						h := handles[s.h]
						m, e := h.m, h.e
						if h.ph {
							m = created[s.h]
							got, err := c.Resolve(h.e)
							if err != nil {
								t.Fatalf("op %d: resolve the failing set's placeholder: %v", i, err)
							}
							e = got
						}
						if err := w.Upsert(e, val(s.comp, 1)); err != nil {
							t.Fatalf("op %d: fix: %v", i, err)
						}
						if err := mw.Upsert(m, val(s.comp, 1)); err != nil {
							t.Fatalf("op %d: model fix: %v", i, err)
						}
						break
					}
					break
				}
				for r := range R {
					sinks[r].cmds = sinks[r].cmds[:0]
					staged[r] = staged[r][:0]
				}
				c.Discarded()
				epoch++
				failed = false
			}
			// strict handles for the entities both worlds hold: every live entity, by slot
			if op == 7 || op == 8 || op == 9 {
				for e := range w.Entities() {
					m := ecs.Entity{}
					for me := range mw.Entities() {
						if me.Slot() == e.Slot() {
							m = me
						}
					}
					if len(handles) < 300 { // indexes must stay stable: staged commands name them
						handles = append(handles, zzHandle{e: e, m: m})
					}
				}
			}
			if w.Hash() != mw.Hash() {
				t.Fatalf("op %d (%d): world differs from the model", i, op)
			}
			pending := 0
			for r := range R {
				pending += len(staged[r])
			}
			if pending == 0 {
				got, err := c.TakeReport(0)
				if err != nil {
					t.Fatal(err)
				}
				want.Created = got.Created
				if got.Destroyed != want.Destroyed || got.IgnoredDestroys != want.IgnoredDestroys || got.IgnoredCreates != want.IgnoredCreates ||
					got.Skipped != want.Skipped || got.NoopRemoves != want.NoopRemoves || got.Applied != want.Applied {
					t.Fatalf("op %d: report %+v, model %+v", i, got, want)
				}
				want = deferral.Report{}
			}
		}
	})
}

// zzClosureSink is a FIFO Sink whose closures run at commit (through Core.ApplyFunc).
type zzClosureSink struct {
	cmds []deferral.Command
	fns  map[int]func(*ecs.World) error
}

func (s *zzClosureSink) StageKeyed(_ uint64, c deferral.Command) { s.cmds = append(s.cmds, c) }
func (s *zzClosureSink) StageFuncKeyed(_ uint64, fn func(*ecs.World) error) {
	if s.fns == nil {
		s.fns = map[int]func(*ecs.World) error{}
	}
	s.fns[len(s.cmds)] = fn
	s.cmds = append(s.cmds, deferral.Command{Verb: deferral.VerbFunc})
}

// commit applies the commands pending when it starts; commands staged during it (by
// closures) wait for the next commit, as every strategy does. It returns the first error,
// keeping that command and the rest pending.
func (s *zzClosureSink) commit(c *deferral.Core) error {
	if err := c.Begin(); err != nil {
		return err
	}
	end := len(s.cmds)
	for i := 0; i < end; i++ {
		var err error
		if s.cmds[i].Verb == deferral.VerbFunc {
			err = c.ApplyFunc(deferral.Pos{Index: i}, s.fns[i])
		} else {
			err = c.Apply(deferral.Pos{Index: i}, &s.cmds[i])
		}
		if err != nil {
			s.drop(i)
			c.End(false)
			return err
		}
	}
	s.drop(end)
	c.End(true) // succeeded: what closures staged belongs to the next commit
	return nil
}

func (s *zzClosureSink) drop(n int) {
	fns := map[int]func(*ecs.World) error{}
	for i, fn := range s.fns {
		if i >= n {
			fns[i-n] = fn
		}
	}
	s.cmds, s.fns = s.cmds[n:], fns
}

// A closure stages a create and a destroy of its placeholder; a later command of the same
// commit fails. After the failing command is fixed, the retry applies the closure's create
// and destroy: the destroy must reach the entity the create became.
func TestClosurePlaceholderAppliedByRetry(t *testing.T) {
	w := ecs.NewWorld()
	c := deferral.NewCore(w)
	s := &zzClosureSink{}
	r := c.NewRecorder(s)
	target, _ := w.Create(ecs.Bundle{})
	var q ecs.Entity
	r.Do(func(*ecs.World) error {
		q = r.Create(tagC.Value(tag{7}))
		r.Destroy(q)
		return nil
	})
	r.Set(target, tagC.Value(tag{1})) // fails: target lacks tag
	if err := s.commit(c); !errors.Is(err, ecs.ErrMissingComponent) {
		t.Fatalf("commit: %v, want ErrMissingComponent", err)
	}
	if err := w.Add(target, tagC.Value(tag{0})); err != nil {
		t.Fatal(err)
	}
	if err := s.commit(c); err != nil { // the Set, then the closure's create and destroy
		t.Fatal(err)
	}
	if len(s.cmds) != 0 {
		t.Fatalf("%d commands still pending", len(s.cmds))
	}
	if w.Len() != 1 {
		t.Errorf("world has %d entities, want 1: the destroy of the closure's placeholder was skipped", w.Len())
	}
	if _, err := c.Resolve(q); !errors.Is(err, deferral.ErrUnresolved) && err != nil {
		t.Errorf("resolve the closure's placeholder: %v", err)
	}
}

// A recorder mints during a commit that then fails; placeholders it mints afterwards, before
// the retry, must not repeat one it minted before the commit.
func TestPlaceholderUniqueAfterFailedCommitThatMinted(t *testing.T) {
	w := ecs.NewWorld()
	c := deferral.NewCore(w)
	s := &zzClosureSink{}
	r := c.NewRecorder(s)
	target, _ := w.Create(ecs.Bundle{})
	r.Set(target, tagC.Value(tag{1})) // fails: target lacks tag
	p0 := r.Create(tagC.Value(tag{2}))
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	ahead := r.Create(tagC.Value(tag{3})) // as a closure would, during the commit
	c.End(false)                          // the commit failed at its first command
	p1 := r.Create(tagC.Value(tag{4}))
	if p1 == p0 || p1 == ahead {
		t.Fatalf("placeholder %v minted again (before the commit %v, during it %v)", p1, p0, ahead)
	}
	// The retry applies everything; each placeholder resolves to its own entity.
	if err := w.Add(target, tagC.Value(tag{0})); err != nil {
		t.Fatal(err)
	}
	s.cmds = s.cmds[:0]
	s.fns = nil
	r.Set(target, tagC.Value(tag{1}))
	r.Stage(deferral.Command{Verb: deferral.VerbCreate, Entity: p0, Bundle: tagC.Value(tag{2})})
	r.Stage(deferral.Command{Verb: deferral.VerbCreate, Entity: p1, Bundle: tagC.Value(tag{4})})
	if err := s.commit(c); err != nil {
		t.Fatal(err)
	}
	e0, err0 := c.Resolve(p0)
	e1, err1 := c.Resolve(p1)
	if err0 != nil || err1 != nil || e0 == e1 {
		t.Errorf("resolve p0 = %v, %v; p1 = %v, %v: want two distinct entities", e0, err0, e1, err1)
	}
}

// A closure mints placeholders during the commit right before the 16-bit epoch wraps (the
// owner id is renewed then); the next commit applies them, and commands naming them reach
// their entities.
func TestClosurePlaceholderAcrossEpochWrap(t *testing.T) {
	w := ecs.NewWorld()
	c := deferral.NewCore(w)
	s := &zzClosureSink{}
	r := c.NewRecorder(s)
	for k := 0; k < 1<<16+3; k++ {
		r.Do(func(*ecs.World) error {
			q := r.Create(tagC.Value(tag{int32(k)}))
			r.Add(q, lifeC.Value(life{1}))
			return nil
		})
		if err := s.commit(c); err != nil { // applies the previous closure's create and add
			t.Fatal(err)
		}
		rep, _ := c.TakeReport(0)
		if k > 0 && (len(rep.Created) != 1 || rep.Skipped != 0) {
			t.Fatalf("commit %d: created %d, skipped %d; want 1, 0", k, len(rep.Created), rep.Skipped)
		}
		if k > 0 && !lifeC.Has(w, rep.Created[0]) {
			t.Fatalf("commit %d: the add naming the closure's placeholder did not apply", k)
		}
	}
}
