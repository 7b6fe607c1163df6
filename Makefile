# swebench-run — build, test, demo. Every target works on a fresh machine with Go and Docker.
GO      ?= go
BIN     := bin/swebench-run
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DEMO_OUT ?= runs/demo

.PHONY: build test testdata unit demo images lint bench clean

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/swebench-run

# Test images (base + demo instances), built offline from Debian packages and cached.
images:
	scripts/build-demo-images.sh

# The whole suite: unit tests and integration tests against the real Docker engine. Runs
# `make testdata` first, ends with the count of corpus tests that ran and skipped, and stops what
# the tests started (the second Docker engine: SWEBENCH_RUN_KEEP_ENGINES=1 keeps it).
test: images
	GO="$(GO)" scripts/test.sh

# The test corpus (real SWE-bench files listed in internal/corpus/manifest.txt) into its cache,
# $$XDG_CACHE_HOME/swebench-run/testdata (SWEBENCH_RUN_TESTDATA moves it): from the local mirror
# (../shared/fixtures or SWEBENCH_RUN_TESTDATA_MIRROR), else from the pinned origins; verified.
testdata:
	$(GO) run ./internal/corpus/cmd/corpus

# Unit tests only (no Docker needed; Docker tests skip when no daemon answers, unless CI is set).
unit:
	$(GO) test -count=1 -short ./...

# The offline demo: the scripted model solves every demo instance in its own container.
demo: build images
	$(BIN) run --split demo/dataset.jsonl --model scripted --workers 4 -o $(DEMO_OUT) --redo-existing --eval

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run ./demo/gen -check

clean:
	rm -rf bin

# Benchmarks against the references (raw Docker API, `docker exec` subprocesses, bare Docker
# calls): prints the table and writes BENCHMARKS.md. Takes 25–35 minutes here; not part of
# `make test`, which runs a one-iteration smoke version (internal/bench).
bench: build images
	scripts/bench/run.sh
