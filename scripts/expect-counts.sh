#!/usr/bin/env bash
# expect-counts.sh regenerates .ci/expect-counts.txt, the instruction counts .ci/run gates the
# count run against (docs/counts.md): Stage counted under cachegrind (21 rows: every strategy, typed and closure commands), three
# repetitions per row so that each row's spread is measured. Run it after a change that moves
# the counts on purpose, or a new Go toolchain, and say in the commit what moved.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-valgrind.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags=-w -o "$tmp/deferbench" ./cmd/deferbench
"$tmp/deferbench" run -measure instructions -repeats "${REPEATS:-3}" -scenarios Stage -out "$tmp/c"
{
	echo "Instruction counts .ci/run gates the count run against (docs/counts.md), from scripts/expect-counts.sh:"
	echo "  deferbench run -measure instructions -repeats ${REPEATS:-3} -scenarios Stage"
	echo "  go run ./cmd/deferbench compare -ignore '*' -fail 'instr/op>0.5%' .ci/expect-counts.txt RUN"
	echo "Counts depend on the Go toolchain and GOARCH: regenerate after changing either."
	echo
	grep -v '^partial:' "$tmp/c/bench.txt"
} >.ci/expect-counts.txt
echo "expect-counts: wrote .ci/expect-counts.txt ($(grep -c 'instr/op' .ci/expect-counts.txt) results)"
