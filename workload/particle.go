package workload

import (
	"fmt"
	"math/rand/v2"

	"github.com/deferbench/deferbench/ecs"
)

// Vec2 is a 2-D vector: a position in world units, or a velocity in world units per second.
type Vec2 struct{ X, Y float64 }

// Life is a particle's remaining lifetime, in seconds.
type Life struct{ Remaining float64 }

// The particle components. Position and Velocity accept any value. Lifetime's validator
// rejects Remaining ≤ 0 (and NaN): World.Create, Add and Set refuse such a value with
// ecs.ErrInvalidValue, and a deferred create carrying one is culled at commit.
var (
	Position = ecs.NewComponent[Vec2]("Position", nil)
	Velocity = ecs.NewComponent[Vec2]("Velocity", nil)
	Lifetime = ecs.NewComponent[Life]("Lifetime", func(l Life) bool { return l.Remaining > 0 })
)

// Particle returns the component set of one particle: Position pos, Velocity vel and a
// Lifetime of life seconds. A life ≤ 0 makes the bundle invalid (see Lifetime).
func Particle(pos, vel Vec2, life float64) ecs.Bundle {
	return Position.Value(pos).With(Velocity.Value(vel)).With(Lifetime.Value(Life{Remaining: life}))
}

// pcgStream is the second PCG seed word, so that Populate(seed) and other users of the same
// seed draw different streams.
const pcgStream = 0x9e3779b97f4a7c15

// Populate creates n particles in w, drawn from math/rand/v2's PCG seeded with seed: positions
// in [-1000, 1000)² units, velocities in [-10, 10)² units/s, lifetimes in [1, 10) s. The same
// seed on an empty world yields the same world (equal ecs.World.Hash). Errors: n < 0, or the
// error of the first World.Create that fails (e.g. ecs.ErrIterating while a query iterates);
// particles created before it stay.
func Populate(w *ecs.World, n int, seed uint64) error {
	if n < 0 {
		return fmt.Errorf("populate: n %d is negative", n)
	}
	r := rand.New(rand.NewPCG(seed, pcgStream))
	for i := range n {
		pos := Vec2{X: r.Float64()*2000 - 1000, Y: r.Float64()*2000 - 1000}
		vel := Vec2{X: r.Float64()*20 - 10, Y: r.Float64()*20 - 10}
		life := 1 + r.Float64()*9
		if _, err := w.Create(Particle(pos, vel, life)); err != nil {
			return fmt.Errorf("populate: particle %d of %d: %w", i, n, err)
		}
	}
	return nil
}
