package ecs

import "errors"

// Sentinel errors returned by World calls. Each names one kind of strict misuse; the call that
// returns it has changed nothing. Match them with errors.Is: calls wrap them with the handle
// and component involved.
var (
	// ErrEmpty: the handle is the zero Entity.
	ErrEmpty = errors.New("empty entity handle")
	// ErrForeign: the handle was issued by another World.
	ErrForeign = errors.New("entity handle from another world")
	// ErrDead: the handle's slot is free (its entity was destroyed and the slot not reused yet).
	ErrDead = errors.New("entity is dead")
	// ErrStale: the handle's slot was reused by a newer entity (generation mismatch).
	ErrStale = errors.New("stale entity handle")
	// ErrPlaceholder: the handle is a deferral placeholder, not an entity of any World.
	ErrPlaceholder = errors.New("placeholder handle (not created yet): resolve it after commit")
	// ErrHasComponent: Add of a component the entity already has.
	ErrHasComponent = errors.New("entity already has component")
	// ErrMissingComponent: Remove, Set or Get of a component the entity lacks.
	ErrMissingComponent = errors.New("entity lacks component")
	// ErrIterating: a structural call (Create, Destroy, Add, Remove) while a query iterates.
	ErrIterating = errors.New("structural change refused while a query is iterating")
	// ErrInvalidValue: a component value rejected by the component's validator.
	ErrInvalidValue = errors.New("invalid component value")
	// ErrUnknownComponent: a ComponentID that no NewComponent call returned.
	ErrUnknownComponent = errors.New("unknown component id")
	// ErrDuplicateComponent: a Bundle naming one component twice.
	ErrDuplicateComponent = errors.New("component given twice")
	// ErrWorldFull: no slot is left (all 2^32-1 slots used or retired).
	ErrWorldFull = errors.New("world has no free slot")
)
