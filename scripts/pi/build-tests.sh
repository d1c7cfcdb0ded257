#!/usr/bin/env bash
# build-tests.sh builds the test binaries of every package with tests, in both
# modules (the library and cmd/deferbench), for the Raspberry Pi, so that
# `scripts/pi/run.sh --tests HOST...` runs them on the boards: x86's stronger
# memory order hides a missing barrier that ARM does not, under emulation too.
#
#	scripts/pi/build-tests.sh [--race] [ARCH...]     ARCH: arm64, arm (default both)
#
# Each architecture gets one tar, bin/tests-linux-<arch>.tar: the repository's
# files (git ls-files, without the run folders under results/) with every
# package's test binary, <name>.test (static, go test -c), in the package's
# folder, and tests.txt listing "<folder> <name>" per binary. run.sh runs each
# binary in its folder, as go test does, so tests that read testdata/ or the
# sources find them. A tar, not a folder, so that the go tool does not take
# the copied sources for packages of the module.
#
# --race also builds arm64 binaries with the race detector into
# bin/tests-linux-arm64-race.tar. The race detector needs cgo, so this uses
# Debian's aarch64 cross C toolchain (gcc-aarch64-linux-gnu, installed when
# missing and this shell may: root, or passwordless sudo, with apt-get); the
# binaries link glibc dynamically, as Raspberry Pi OS 64-bit has it. They do
# not run under qemu-user (ThreadSanitizer wants a 48-bit address space), only
# on a board. Go has no race detector for 32-bit ARM, so arm gets none.
set -euo pipefail

cd "$(dirname "$0")/../.."

race=0
arches=()
for a in "$@"; do
	case $a in
	--race) race=1 ;;
	arm64 | arm) arches+=("$a") ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "build-tests: unknown argument $a (want --race, arm64 or arm)" >&2
		exit 2
		;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(arm64 arm)

# Packages with tests, as "import-path dir".
mapfile -t pkgs < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ./... ./cmd/deferbench/...)
[ ${#pkgs[@]} -gt 0 ] || {
	echo "build-tests: go list found no packages with tests" >&2
	exit 1
}
repo=$PWD
if ! git rev-parse --show-toplevel >/dev/null 2>&1; then
	echo "build-tests: needs git and a git checkout (it ships the files git lists)" >&2
	exit 1
fi

ensure_cc() {
	command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && return 0
	"$repo/scripts/install-debian.sh" "build-tests (--race needs aarch64-linux-gnu-gcc)" gcc-aarch64-linux-gnu libc6-dev-arm64-cross
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/deferbench-tests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# build TAR KIND ENV... builds every package's test binary into a copy of the
# repository's files and packs it as TAR.
build() {
	local tar=$1 kind=$2 line path dir rel name flags=() n=0
	shift 2
	[ "$kind" = race ] && flags=(-race)
	rm -rf "$tmp/tree"
	mkdir -p "$tmp/tree" bin
	git ls-files -co --exclude-standard | grep -v '^results/[^/]*/' | tar -cf - -T - | tar -C "$tmp/tree" -xf -
	: >"$tmp/tree/tests.txt"
	echo "== go test -c ${flags[*]} $* → $tar"
	for line in "${pkgs[@]}"; do
		path=${line%% *}
		dir=${line#* }
		rel=${dir#"$repo"}
		rel=${rel#/}
		[ -n "$rel" ] || rel=.
		name=${rel//\//-}
		[ "$name" != . ] || name=root
		mkdir -p "$tmp/tree/$rel"
		env GOOS=linux "$@" go test -c ${flags[@]+"${flags[@]}"} -o "$tmp/tree/$rel/$name.test" "$path"
		echo "$rel $name" >>"$tmp/tree/tests.txt"
		n=$((n + 1))
	done
	tar -C "$tmp/tree" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
	echo "   $n test binaries, $(du -h "$tar" | cut -f1)"
}

for arch in "${arches[@]}"; do
	case $arch in
	arm64) build bin/tests-linux-arm64.tar plain GOARCH=arm64 CGO_ENABLED=0 ;;
	arm) build bin/tests-linux-arm.tar plain GOARCH=arm GOARM=7 CGO_ENABLED=0 ;;
	esac
done
if [ "$race" -eq 1 ]; then
	ensure_cc
	build bin/tests-linux-arm64-race.tar race GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc
fi
