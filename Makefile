# deferbench — build, test and benchmark. `make help` lists the targets.

GO      ?= go
BIN     ?= bin
# Flags for `make bench`, e.g. make bench BENCHFLAGS='-count 6 -scenarios Stage'.
BENCHFLAGS ?=

.PHONY: all help build test fmt-check vet test-go bench bench-quick clean

all: build

help:
	@echo "make build        build $(BIN)/deferbench"
	@echo "make test         gofmt check, go vet, go test -race -short"
	@echo "make bench        run the default suite into results/<date>-<host>-<goarch>/ (BENCHFLAGS=...)"
	@echo "make bench-quick  run the smoke suite (deferbench run -quick)"

build:
	$(GO) build -o $(BIN)/deferbench ./cmd/deferbench

test: fmt-check vet test-go

# gofmt check: fail listing the files that need formatting.
fmt-check:
	@files=$$(gofmt -l .); \
	if [ -n "$$files" ]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

vet:
	$(GO) vet ./...

test-go:
	$(GO) test -race -short ./...

bench: build
	$(BIN)/deferbench run $(BENCHFLAGS)

bench-quick: build
	$(BIN)/deferbench run -quick $(BENCHFLAGS)

clean:
	rm -f $(BIN)/deferbench
