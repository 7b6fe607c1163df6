# swebench-run — build, test, demo. Every target works on a fresh machine with Go and Docker.
GO      ?= go
BIN     := bin/swebench-run
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DEMO_OUT ?= runs/demo
DEMO_KUBE_OUT ?= runs/demo-kube

.PHONY: build launcher test testdata unit demo demo-kube images planted-images lint bench clean kube-up kube-down

build: launcher
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/swebench-run

# The launcher that runs commands inside sandboxes (package launcher), static, for both
# architectures a sandbox may have; swebench-run embeds what this builds (a plain `go build`
# gets none, and runs every command with the backend's exec).
LAUNCHER_ARCHES := amd64 arm64
launcher:
	@for arch in $(LAUNCHER_ARCHES); do \
		CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w" \
			-o launcher/bin/launcher-linux-$$arch ./launcher/cmd/launcher || exit 1; \
	done

# Test images (base + demo instances, and one demo image or more per dataset family: SWE-bench
# Pro, Multi-SWE-bench, SWE-bench-Live, SWE-Gym, SWE-rebench-V2, SWE-PolyBench and SWE-smith),
# built offline from Debian packages and cached.
images:
	scripts/build-demo-images.sh
	scripts/build-pro-image.sh
	scripts/build-msb-demo-images.sh
	scripts/build-live-gym-images.sh
	scripts/build-rebench-polybench-smith-images.sh

# The history guard's test images: every family's demo image with the fix planted in every
# hiding place of its repository (runner/historyguard's and the guard's end-to-end tests, so
# `make test` builds them too; a few seconds each, cached).
planted-images: images
	scripts/build-planted-image.sh

# The whole suite: unit tests and integration tests against the real Docker engine. Runs
# `make testdata` first, ends with the count of corpus tests that ran and skipped, and stops what
# the tests started (the second Docker engine: SWEBENCH_RUN_KEEP_ENGINES=1 keeps it).
test: images planted-images launcher
	GO="$(GO)" scripts/test.sh

# The test corpus (real SWE-bench files listed in testutil/corpus/manifest.txt) into its cache,
# $$XDG_CACHE_HOME/swebench-run/testdata (SWEBENCH_RUN_TESTDATA moves it): from the local mirror
# (../shared/fixtures or SWEBENCH_RUN_TESTDATA_MIRROR), else from the pinned origins; verified.
testdata:
	$(GO) run ./testutil/corpus/cmd/corpus

# Unit tests only (no Docker needed; Docker tests skip when no daemon answers, unless CI is set).
unit:
	$(GO) test -count=1 -short ./...

# The offline demo: the scripted model solves every demo instance in its own container.
demo: build images
	$(BIN) run --split demo/dataset.jsonl --model scripted --workers 4 -o $(DEMO_OUT) --redo-existing --eval

# The same demo on Kubernetes: the local test cluster (scripts/kube-up.sh, as root; started when
# down, left running — `make kube-down` stops it), one pod per instance and per evaluation, then a
# check that no pod of the run is left.
demo-kube: build images
	@kubeconfig=$$(scripts/kube-up.sh) && \
	run_id=demo-kube-$$(date +%Y%m%d-%H%M%S) && \
	KUBECONFIG=$$kubeconfig $(BIN) run --split demo/dataset.jsonl --model scripted --workers 4 -o $(DEMO_KUBE_OUT) \
		--redo-existing --eval --backend kubernetes --pull never --run-id $$run_id && \
	left=$$("$$(cat $${SWEBENCH_KUBE_DIR:-/var/lib/swebench-run-kube}/bin-dir)/kubectl" --kubeconfig "$$kubeconfig" get pods \
		-l swebench-run/run-id=$$run_id -o name) && \
	if [ -n "$$left" ]; then echo "pods left by the demo: $$left" >&2; exit 1; fi && \
	echo "no pod of run $$run_id left" >&2

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run ./demo/gen -check

clean:
	rm -rf bin launcher/bin/launcher-linux-*

# Benchmarks against the references (raw Docker API, `docker exec` subprocesses, bare Docker
# calls): prints the table and writes BENCHMARKS.md. Takes 25–35 minutes here; not part of
# `make test`, which runs a one-iteration smoke version (bench).
bench: build images
	scripts/bench/run.sh

# A single-node Kubernetes cluster on this machine for the Kubernetes backend's tests (as root;
# docs/kubernetes-test-cluster.md). kube-up prints the kubeconfig path: export KUBECONFIG=...
kube-up:
	@scripts/kube-up.sh

kube-down:
	@scripts/kube-down.sh
