# deferbench — build, test and benchmark. `make help` lists the targets.

GO      ?= go
BIN     ?= bin
# Flags for `make bench`, e.g. make bench BENCHFLAGS='-count 6 -scenarios Stage'.
BENCHFLAGS ?=
# Both modules of the repository: the library (root) and the CLI with its harness (cmd/deferbench).
PKGS    ?= ./... ./cmd/deferbench/...
# The git revision bin/deferbench records in env.json ("-dirty" with uncommitted changes): go
# build stamps none in a workspace (go.work).
REV      := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
REVISION := $(if $(REV),$(REV)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty))

.PHONY: all help build test fmt-check vet test-go mutants-check test-counts bench bench-quick clean cross test-arm

all: build

help:
	@echo "make build        build $(BIN)/deferbench"
	@echo "make test         gofmt check, go vet, the mutants still apply, go test -race -short, the CLI again without -race"
	@echo "make test-counts  the count tier's tests under valgrind's cachegrind (installs Debian's valgrind when missing)"
	@echo "make bench        run the default suite into results/<date>-<host>-<goarch>/ (BENCHFLAGS=...)"
	@echo "make bench-quick  run the smoke suite (deferbench run -quick)"
	@echo "make cross        build bin/deferbench-linux-{arm64,arm,amd64} (Raspberry Pi: docs/pi-setup.md)"
	@echo "make test-arm     shellcheck; test binaries for arm64, arm (GOARM=7), arm64 -race; the tests under qemu-user; scripts/pi in local mode and over ssh"
	@echo "make clean        remove what build, cross and test-arm wrote to $(BIN)/ (results/ is kept)"

build:
	$(GO) build -ldflags "-X github.com/deferbench/deferbench/cmd/deferbench/internal/results.revision=$(REVISION)" -o $(BIN)/deferbench ./cmd/deferbench

test: fmt-check vet mutants-check test-go

# gofmt check: fail listing the files that need formatting.
fmt-check:
	@files=$$(gofmt -l .); \
	if [ -n "$$files" ]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

# vet, also for 32-bit ARM (GOARCH=arm), so that code or a test that does not build where int is
# 32 bits (a constant such as 1 << 40 as an int) fails here, not only in make test-arm.
vet:
	$(GO) vet $(PKGS)
	GOARCH=arm GOARM=7 $(GO) vet $(PKGS)

# The race detector's pass over both modules, then once more without it the packages whose
# tests import internal/racetest or the conformance suite (which imports it): their tests
# whose work runs on one goroutine (drawing plots, rebuilding a whole report, the suite's
# memory rows, most of the differential programs) skip under -race, where they take 10-15
# times as long and the detector has nothing to find, and run here.
test-go:
	$(GO) test -race -short $(PKGS)
	@pkgs=$$($(GO) list -f '{{.ImportPath}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}' $(PKGS) | \
		awk '{for (i = 2; i <= NF; i++) if ($$i ~ /\/internal\/racetest$$/ || $$i == "github.com/deferbench/deferbench/conformance") { print $$1; break }}'); \
	if [ -z "$$pkgs" ]; then echo "make: no package imports internal/racetest" >&2; exit 1; fi; \
	echo "$(GO) test -short" $$pkgs; $(GO) test -short $$pkgs

# The hand-written mutants of scripts/mutants (the conformance suite's power) must still
# apply to today's code: a mutant whose text moved away would be void, not killed.
mutants-check:
	$(GO) run scripts/mutants/main.go -check

# The count tier's tests that run benchmarks under cachegrind: they skip under -race and
# -short, which make test uses, so they run here, after installing valgrind when missing.
test-counts:
	scripts/install-valgrind.sh
	$(GO) test -run 'Count' ./cmd/deferbench ./cmd/deferbench/internal/counts

bench: build
	$(BIN)/deferbench run $(BENCHFLAGS)

bench-quick: build
	$(BIN)/deferbench run -quick $(BENCHFLAGS)

# ARM: static builds for 64-bit and 32-bit Pi OS and x86-64 into bin/, checked with `file`.
cross:
	scripts/cross.sh

# shellcheck on scripts/; the test binaries for the boards (arm64, arm, arm64 with -race:
# bin/tests-linux-*.tar), the non-race ones run through scripts/pi/run.sh --tests under
# qemu-user; scripts/pi/run.sh end to end in PI_SSH=local mode with the arm64 binary, then
# over ssh against a throwaway OpenSSH server on localhost; 10 quick Contention and Readers
# runs under qemu-aarch64 at GOMAXPROCS above the CPUs, each bounded. Installs Debian's shellcheck,
# qemu-user-static, gcc-aarch64-linux-gnu and openssh-server when missing.
# scripts/test-arm.sh is the quicker loop while editing (go test -exec qemu-…-static).
test-arm: cross
	scripts/lint-sh.sh
	scripts/pi/build-tests.sh --race
	scripts/pi/tests-local.sh
	scripts/pi/smoke-local.sh
	scripts/pi/stress-local.sh
	scripts/pi/test-ssh.sh

clean:
	rm -f $(BIN)/deferbench $(BIN)/deferbench-linux-* $(BIN)/tests-linux-*.tar

# Any other target: one line naming it and where the targets are listed, not make's own
# "No rule to make target". (Files make would otherwise rebuild, such as this Makefile, are
# left to make.)
%:
	@echo "make: no target \"$@\": make help lists them (make build, make test, make bench, ...)" >&2; exit 2
