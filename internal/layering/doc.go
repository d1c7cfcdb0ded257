// Package layering holds no code: its test checks the import rules of the library module.
//
//   - Every package of the module imports only the standard library and the module's own
//     packages.
//   - The core (ecs, deferral, conformance and its subpackages, workload) imports no
//     strategy: the conformance suite depends only on the contract it tests.
//   - A strategy (strategies/NAME) imports neither the workload nor the conformance suite, so
//     importing one registers no workload components. Adapters that join a strategy to the
//     workload live in a subpackage (strategies/hybrid/hybridframe), which the strategy does
//     not import.
package layering
