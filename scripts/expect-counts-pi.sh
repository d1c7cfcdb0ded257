#!/usr/bin/env bash
# expect-counts-pi.sh regenerates .ci/expect-counts-pi.txt, the instruction counts of the
# Raspberry Pi's instruction sets that .ci/run gates on any host (docs/counts.md): Stage (21
# rows: every strategy, typed and closure commands) counted under qemu-user on pi4 (arm64,
# Cortex-A72 model), pi5 (arm64, Cortex-A76 model) and pi4-32 (arm, GOARM=7), REPEATS
# repetitions per row (default 3) so that each row's spread is measured. An emulated ISA's
# instruction stream does not depend on the host's CPU, so unlike .ci/expect-counts.txt the
# file holds on every x86 machine. Run it after a change that moves the counts on purpose, or
# a new Go toolchain, and say in the commit what moved.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-qemu-count.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags=-w -o "$tmp/deferbench" ./cmd/deferbench
"$tmp/deferbench" run -measure instructions -isa pi4,pi5,pi4-32 -repeats "${REPEATS:-3}" -scenarios Stage -out "$tmp/c"
{
	echo "Instruction counts of the Pi's instruction sets .ci/run gates on any host (docs/counts.md), from scripts/expect-counts-pi.sh:"
	echo "  deferbench run -measure instructions -isa pi4,pi5,pi4-32 -repeats ${REPEATS:-3} -scenarios Stage"
	echo "  go run ./cmd/deferbench compare -ignore '*' -fail 'instr/op>0.5%' .ci/expect-counts-pi.txt RUN"
	echo "Counted under qemu-user: they depend on the Go toolchain and the code, not on the host: regenerate after changing either."
	echo
	grep -v '^partial:' "$tmp/c/bench.txt"
} >.ci/expect-counts-pi.txt
echo "expect-counts-pi: wrote .ci/expect-counts-pi.txt ($(grep -c 'instr/op' .ci/expect-counts-pi.txt) results)"
