package conformance

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// readsName names the subtest of the declared read behaviour.
func readsName(caps deferral.Capabilities) string {
	if caps.ReadsPreviousVersion {
		return "ReadsPreviousVersion"
	}
	return "ReadsNotVersioned"
}

// checkReads asserts Capabilities.ReadsPreviousVersion as declared. Declared: 4 reader
// goroutines read through deferral.VersionReader while 4 recorders stage and the owner commits
// three times; every read sees one published version whole (its hash is one the world had right
// after a commit), no reader sees an older version after a newer one, staged commands are not
// visible before their commit, and a read from inside a commit (a closure command) sees the
// version before it. Not declared: the strategy does not offer a versioned read.
func checkReads(x *fixture) {
	vr, ok := x.s.(deferral.VersionReader)
	if !x.caps.ReadsPreviousVersion {
		if ok {
			x.Errorf("strategy implements deferral.VersionReader but does not declare Capabilities.ReadsPreviousVersion")
		}
		return
	}
	if !ok {
		x.Fatalf("strategy declares ReadsPreviousVersion but does not implement deferral.VersionReader")
	}
	readHash := func() uint64 {
		var h uint64
		if err := vr.Read(func(w *ecs.World) error { h = w.Hash(); return nil }); err != nil {
			x.Errorf("read: got error %v, want nil", err)
		}
		return h
	}
	const g, rounds, perRound = 4, 3, 40
	owned := make([]ecs.Entity, g)
	for k := range owned {
		owned[k] = x.create(x.w, pt(float64(k), 0)) // direct writes at a sync point
	}
	x.commit("publish the setup", x.s)
	published := []uint64{x.w.Hash()}
	want(x, "read after the setup's commit (hash)", readHash(), published[0])

	var stop atomic.Bool
	seen := make([][]uint64, g) // per reader: the hashes it read, in order
	var readers sync.WaitGroup
	for k := range g {
		readers.Go(func() {
			defer x.recoverPanic(fmt.Sprintf("reader %d", k))
			for !stop.Load() {
				h := readHash()
				if n := len(seen[k]); n == 0 || seen[k][n-1] != h {
					seen[k] = append(seen[k], h)
				}
			}
		})
	}
	recs := make([]*deferral.Recorder, g)
	for k := range recs {
		recs[k] = x.s.NewRecorder()
	}
	for round := range rounds {
		var producers sync.WaitGroup
		for k := range g {
			producers.Go(func() {
				defer x.recoverPanic(fmt.Sprintf("producer %d", k))
				for i := range perRound {
					p := recs[k].Create(pt(float64(k), float64(round*perRound+i)))
					recs[k].Add(p, vl(1, 1))
					recs[k].Set(owned[k], pt(float64(k), float64(round*perRound+i)))
				}
			})
		}
		producers.Wait()
		want(x, fmt.Sprintf("round %d: read while commands are staged (hash of the last version)", round), readHash(), published[len(published)-1])
		x.commit(fmt.Sprintf("round %d: commit while readers read", round), x.s)
		published = append(published, x.w.Hash())
		want(x, fmt.Sprintf("round %d: read after the commit (hash of the world)", round), readHash(), published[len(published)-1])
	}
	stop.Store(true)
	readers.Wait()
	for k, hs := range seen {
		last := -1
		for _, h := range hs {
			i := slices.Index(published, h)
			switch {
			case i < 0:
				x.Errorf("reader %d: read a world with hash %#x, which no commit published (a mix of versions?); published %#x", k, h, published)
			case i < last:
				x.Errorf("reader %d: read version %d after version %d", k, i, last)
			default:
				last = i
			}
		}
	}

	before := x.w.Hash()
	r := recs[0]
	r.Set(owned[0], pt(-1, -1))
	r.Do(func(*ecs.World) error {
		if h := readHash(); h != before {
			x.Errorf("read from inside a commit: hash %#x, want the previous version's %#x", h, before)
		}
		return nil
	})
	x.commit("commit with a closure that reads", x.s)
	want(x, "read after the commit with a closure (hash of the world)", readHash(), x.w.Hash())
	rep, err := x.s.TakeReport()
	x.wantNil("take report", err)
	want(x, "report.Applied", rep.Applied, rounds*g*perRound*3+2)
	want(x, "report: created entities", len(rep.Created), rounds*g*perRound)
}
