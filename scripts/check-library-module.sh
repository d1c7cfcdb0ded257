#!/usr/bin/env bash
# A user's module that imports one strategy of the library (through a replace directive, as
# docs/library.md says while the module is unpublished) must list no module but deferbench in
# `go list -m all`, and must build with the go version the library's go.mod declares.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
want_go=$(awk '$1 == "go" { print $2; exit }' "$repo/go.mod")
cat > "$tmp/go.mod" <<MOD
module example.com/user

go $want_go

require github.com/deferbench/deferbench v0.0.0

replace github.com/deferbench/deferbench => $repo
MOD
cat > "$tmp/main.go" <<'SRC'
package main

import (
	"fmt"

	"github.com/deferbench/deferbench/ecs"
	"github.com/deferbench/deferbench/strategies/cmdbuffer"
)

func main() {
	s := cmdbuffer.NewECS(ecs.NewWorld())
	s.NewRecorder().Create(ecs.Bundle{})
	fmt.Println(s.Commit(), s.World().Len())
}
SRC
cd "$tmp"
export GOWORK=off GOFLAGS=-mod=mod
mods=$(go list -m all)
if [ "$mods" != "$(printf 'example.com/user\ngithub.com/deferbench/deferbench v0.0.0 => %s' "$repo")" ]; then
	echo "check-library-module: go list -m all of a module importing strategies/cmdbuffer lists more than deferbench:" >&2
	echo "$mods" >&2
	exit 1
fi
out=$(go run .)
if [ "$out" != "<nil> 1" ]; then
	echo "check-library-module: the user's program printed $out, want '<nil> 1'" >&2
	exit 1
fi
echo "check-library-module: ok (go $want_go; go list -m all: only deferbench)"
