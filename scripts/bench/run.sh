#!/usr/bin/env bash
# make bench: runs every benchmark of bench on the local Docker engine and writes the
# results table to BENCHMARKS.md (and stdout). Not part of `make test` (a 1-iteration smoke
# version of each measurement runs there, as bench's tests).
#
#   scripts/bench/run.sh                 # everything, full size (about 60 minutes on 2 cores)
#   scripts/bench/run.sh -only load,resume -o -   # a subset, table on stdout only
#   MINI_SWE_AGENT=~/src/mini-swe-agent scripts/bench/run.sh   # with the side-by-side against
#                                        # mini-swe-agent's batch runner (scripts/bench/vs_mini.py)
#
# Any flag is passed to bench/cmd/benchrun (see -h). Needs: Go, Docker with the local
# base image (make images), python3 with the docker CLI (subprocess reference), /usr/bin/time
# (apt-get install time). BENCH_NETWORK sets the containers' network mode (default none).
# The launcher is built first (make launcher) and embedded in the binary measured.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ ! -x /usr/bin/time ]]; then
	echo "bench: /usr/bin/time is missing; install it with: apt-get install -y time" >&2
	exit 1
fi
command -v python3 >/dev/null || { echo "bench: python3 is missing (subprocess reference)" >&2; exit 1; }
command -v docker >/dev/null || { echo "bench: the docker CLI is missing (subprocess reference)" >&2; exit 1; }
docker image inspect swebench-run/base:bookworm >/dev/null 2>&1 || {
	echo "bench: image swebench-run/base:bookworm is missing; build it with: make images" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make --no-print-directory launcher
go build -o "$tmp/benchrun" ./bench/cmd/benchrun
go build -o "$tmp/swebench-run" ./cmd/swebench-run
mini=()
[[ -z ${MINI_SWE_AGENT:-} ]] || mini=(-mini "$MINI_SWE_AGENT")
status=0
"$tmp/benchrun" -bin "$tmp/swebench-run" -o BENCHMARKS.md "${mini[@]}" "$@" &
pid=$!
wait $pid || status=$?
# Containers of an interrupted benchmark: those its process started (their owner label), not
# those of other benchmarks running on the same engine.
ids=$(docker ps -aq --filter label=swebench-run.run-id=bench --filter "label=swebench-run.owner=$(hostname):$pid")
[[ -z "$ids" ]] || docker rm -f $ids >/dev/null
exit $status
