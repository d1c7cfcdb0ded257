package workload

import (
	"fmt"
	"math"

	"github.com/deferbench/deferbench/deferral"
	"github.com/deferbench/deferbench/ecs"
)

// Replace returns the benchmark's parallel decision rule: each survivor of a producer's part
// that has a Position is destroyed with probability rate (0 ≤ rate ≤ 1) and replaced by a new
// particle. Every choice and value is derived from a hash of seed, the frame number and the
// survivor's position bits — never from goroutine timing or a shared random source — so the
// staged commands are a function of the world, the seed and the frame. Per replacement:
//   - one create is staged; in about half of them the create carries only Position and
//     Lifetime and an Add of Velocity is staged on its placeholder next (placeholder use);
//   - about 1 in 64 replacements has a lifetime ≤ 0, which the Lifetime validator rejects: the
//     commit culls that create and skips the Add naming its placeholder.
//
// With a strategy that commits in sort-key order the world after a frame is the same for any
// producer count, and the same as with ReplaceSerial. Replace panics when rate is NaN or
// outside [0, 1]. The callbacks it returns never fail; they allocate nothing themselves
// (what staging costs is the strategy's).
func Replace(seed uint64, rate float64) ParallelDecisions {
	checkRate(rate)
	return func(v View, _ int, part []ecs.Entity, rec *deferral.Recorder) error {
		for _, e := range part {
			replaceOne(v, e, rec, seed, rate)
		}
		return nil
	}
}

// ReplaceSerial is Replace for one producer (Sim.Step): it walks every survivor in creation
// order. It panics when rate is NaN or outside [0, 1].
func ReplaceSerial(seed uint64, rate float64) Decisions {
	checkRate(rate)
	return func(v View, rec *deferral.Recorder) error {
		for _, e := range v.survivors {
			replaceOne(v, e, rec, seed, rate)
		}
		return nil
	}
}

func checkRate(rate float64) {
	if !(rate >= 0 && rate <= 1) {
		panic(fmt.Sprintf("workload: replace rate %v outside [0, 1]", rate))
	}
}

// replaceOne makes the decision for survivor e.
func replaceOne(v View, e ecs.Entity, rec *deferral.Recorder, seed uint64, rate float64) {
	pos, ok := v.Position(e)
	if !ok {
		return
	}
	h := mix(seed ^ mix(uint64(v.frame)+0x632be59bd9b4e019))
	h = mix(h ^ math.Float64bits(pos.X))
	h = mix(h ^ math.Float64bits(pos.Y))
	if unit(h) >= rate {
		return
	}
	rec.Destroy(e)
	h1, h2, h3 := mix(h+1), mix(h+2), mix(h+3)
	npos := Vec2{X: pos.X + (unit(h1)*2-1)*10, Y: pos.Y + (unit(h2)*2-1)*10}
	nvel := Vec2{X: unit(mix(h+4))*20 - 10, Y: unit(mix(h+5))*20 - 10}
	life := 1 + unit(h3)*9
	if h3&63 == 0 { // 1 in 64: an invalid lifetime, so the create is culled
		life = -life
	}
	if mix(h+6)&1 != 0 {
		rec.Create(Particle(npos, nvel, life))
		return
	}
	p := rec.Create(Position.Value(npos).With(Lifetime.Value(Life{Remaining: life})))
	rec.Add(p, Velocity.Value(nvel))
}

// mix is the splitmix64 finaliser: a bijective 64-bit hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// unit maps h to [0, 1) using its top 53 bits.
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }
