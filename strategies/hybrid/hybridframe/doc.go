// Package hybridframe runs the particle frame of package
// [github.com/deferbench/deferbench/workload] as a static task graph of the hybrid strategy
// (package [github.com/deferbench/deferbench/strategies/hybrid]): movement, lifetime, cleanup,
// the decisions split over parallel producer nodes, the flush node derived from the declared
// accesses, and a render read. It is a separate package so that neither the strategy nor the
// workload imports the other: importing hybrid pulls in no workload, and the workload (which
// the conformance suite uses) no strategy.
package hybridframe
