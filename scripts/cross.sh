#!/usr/bin/env bash
# cross.sh builds the deferbench CLI (./cmd/deferbench) for the Raspberry Pi
# and for x86 into bin/:
#
#	bin/deferbench-linux-arm64   64-bit Pi OS (Pi 3, 4, 5)
#	bin/deferbench-linux-arm     32-bit Pi OS (GOARM=7: Pi 2, 3, 4, 5)
#	bin/deferbench-linux-amd64   x86-64 Linux
#
# The binaries are static (CGO_ENABLED=0) and built with -trimpath. When
# `file` is installed, each one is checked to be what its name says.
set -euo pipefail

cd "$(dirname "$0")/.."
mkdir -p bin

# The git revision the binaries record in env.json (go build stamps none in a workspace).
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || true)
if [ -n "$rev" ] && ! git diff --quiet HEAD -- 2>/dev/null; then
	rev="$rev-dirty"
fi

build() { # build GOARCH [GOARM]
	local out="bin/deferbench-linux-$1"
	echo "go build GOOS=linux GOARCH=$1${2:+ GOARM=$2} -o $out ./cmd/deferbench"
	env GOOS=linux GOARCH="$1" ${2:+GOARM="$2"} CGO_ENABLED=0 go build -trimpath \
		-ldflags "-X github.com/deferbench/deferbench/cmd/deferbench/internal/results.revision=$rev" -o "$out" ./cmd/deferbench
}
build arm64
build arm 7
build amd64

if command -v file >/dev/null 2>&1; then
	check() { # check FILE PATTERN
		local what
		what=$(file -b "$1")
		case $what in
		*"$2"*) echo "$1: $what" | cut -c1-120 ;;
		*)
			echo "cross: $1 is not $2: $what" >&2
			exit 1
			;;
		esac
	}
	check bin/deferbench-linux-arm64 "ARM aarch64"
	check bin/deferbench-linux-arm "ARM, EABI5"
	check bin/deferbench-linux-amd64 "x86-64"
fi
