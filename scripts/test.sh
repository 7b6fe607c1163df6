#!/usr/bin/env bash
# The whole test suite (`make test`): fills the test corpus cache (`make testdata`), runs every
# package's tests against the real Docker engine, prints how many corpus tests ran and how many
# skipped, and leaves the machine as it found it, even when tests fail or time out:
#   - the second Docker engine (scripts/start-second-engine.sh) is stopped if it was not running
#     before, unless SWEBENCH_RUN_KEEP_ENGINES=1 keeps it for a faster rerun;
#   - containers the tests started and did not remove (a test binary killed by a panic or a
#     timeout cannot clean up) are removed: they carry this run's SWEBENCH_RUN_TEST_SESSION label;
#   - registries started by tests (scripts/start-registry.sh) in their temporary directories are
#     stopped, and the temporary directories removed;
#   - the Kubernetes test cluster (scripts/kube-up.sh) is stopped (scripts/kube-down.sh) when
#     this script started it, unless SWEBENCH_RUN_KEEP_ENGINES=1 keeps it;
#     SWEBENCH_KUBE_STOP_AFTER_TESTS=1 (.ci/run, which starts it first) stops it all the same. A
#     cluster that keeps running loses the pods the tests left (they carry this run's
#     swebench-run/test-session label).
#
# The Kubernetes tests run against the test cluster when it is up. The tests themselves never
# start it: starting it can mean building Kubernetes (about 5 minutes the first time on 2 idle
# cores, over an hour on a loaded machine), which does not belong under go test's timeout. SWEBENCH_RUN_KUBE=1 starts it here,
# before the tests (as .ci/run does), and CI set does the same: there the Kubernetes tests never
# skip. Otherwise they skip with one line naming `make kube-up`. The tests use the test cluster's
# kubeconfig, not $KUBECONFIG (a person's own cluster gets no test pods); SWEBENCH_RUN_TEST_KUBECONFIG
# points them at another cluster on purpose.
#
# Without CI, corpus files that cannot be had (no mirror, no network) do not fail the suite: the
# tests that need them skip with a line naming `make testdata`. With CI set, a missing corpus
# file, or any corpus test that skips, fails it.
#
# It always ends with the line "test: corpus tests: N ran, M skipped, F failed; … in T" — also
# when tests fail, time out or the suite is interrupted. The first run on a new 2-core machine
# (empty Go caches, no images) took 12 minutes here, 2.5 of them building the test images; later
# runs 8-10 minutes; SWEBENCH_RUN_KUBE=1 on a new machine adds the Kubernetes build and start
# (about 5 minutes on idle cores, once).
#
# Usage: scripts/test.sh [go test flags and packages; default: -timeout 45m ./...; cmd/swebench-run takes 10-11 minutes on 2 idle cores and far more on a loaded machine]
# Environment: GO (default go), MAKE (default make), CI, SWEBENCH_RUN_KUBE, SWEBENCH_RUN_KEEP_ENGINES,
# SWEBENCH_KUBE_STOP_AFTER_TESTS, SWEBENCH_RUN_TEST_KUBECONFIG, and the test corpus variables of
# README.md (SWEBENCH_RUN_TESTDATA, SWEBENCH_RUN_TESTDATA_MIRROR).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root" || exit 1
GO=${GO:-go}
MAKE=${MAKE:-make}

case "${1:-}" in
-h | --help)
	sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
esac

say() { printf 'test: %s\n' "$*" >&2; }
truthy() { case "${1,,}" in 1 | true | yes | on) return 0 ;; esac; return 1; }

second=scripts/start-second-engine.sh
second_host="unix://${SWEBENCH_TEST_ENGINE_DIR:-/run/swebench-run-test}/docker.sock"
second_was_up=0
"$second" --status 2>/dev/null && second_was_up=1

kube_up=scripts/kube-up.sh
kube_dir=${SWEBENCH_KUBE_DIR:-/var/lib/swebench-run-kube}
kube_started=0 # this script started the test cluster
started_at=$SECONDS
rc=1 # until the tests ran
kube_note="not reached"

work=$(mktemp -d "${TMPDIR:-/tmp}/swebench-run-test.XXXXXX") || exit 1
mkdir -p "$work/tmp"
export SWEBENCH_RUN_CORPUS_LOG="$work/corpus.log"
export SWEBENCH_RUN_TEST_SESSION="${work##*/}"

# leftovers removes what the tests started and did not stop.
leftovers() {
	# Registries of tests whose binary died before its cleanups.
	local pidfile pid
	while IFS= read -r pidfile; do
		pid=$(cat "$pidfile" 2>/dev/null || true)
		if [[ -n $pid ]] && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == docker-registry* ]]; then
			kill "$pid" 2>/dev/null && say "stopped a registry left by a test (pid $pid)"
		fi
	done < <(find "$work/tmp" -name registry.pid 2>/dev/null)
	# Containers the tests started and did not remove: every container of this tool carries
	# the label of this suite run (dockerenv.EnvTestSession), on the first engine and the second.
	local host n ids
	for host in "" "$second_host"; do
		[[ -z $host ]] || "$second" --status 2>/dev/null || continue
		ids=$(docker ${host:+-H "$host"} ps -aq --filter "label=swebench-run.test-session=$SWEBENCH_RUN_TEST_SESSION" 2>/dev/null) || continue
		[[ -n $ids ]] || continue
		# shellcheck disable=SC2086 # one id a word
		n=$(docker ${host:+-H "$host"} rm -f $ids 2>/dev/null | wc -l)
		say "removed $n container(s) the tests left${host:+ on the second engine}"
	done
	# The second engine.
	if ((second_was_up)); then
		"$second" --status 2>/dev/null && say "the second Docker engine was running before the tests and keeps running; stop it with $second --stop"
	elif truthy "${SWEBENCH_RUN_KEEP_ENGINES:-}"; then
		"$second" --status 2>/dev/null && say "the second Docker engine keeps running (SWEBENCH_RUN_KEEP_ENGINES); stop it with $second --stop"
	elif "$second" --status 2>/dev/null || [[ -f ${SWEBENCH_TEST_ENGINE_DIR:-/run/swebench-run-test}/docker.pid ]]; then
		"$second" --stop >/dev/null 2>&1 && say "stopped the second Docker engine the tests started (SWEBENCH_RUN_KEEP_ENGINES=1 keeps it)"
	fi
	# The Kubernetes test cluster: stopped when this script started it (or .ci/run asks), else
	# it keeps running without the pods the tests left.
	local kubectl
	if [[ $(id -u) == 0 && -f $kube_dir/bin-dir ]]; then
		if { ((kube_started)) || truthy "${SWEBENCH_KUBE_STOP_AFTER_TESTS:-}"; } && ! truthy "${SWEBENCH_RUN_KEEP_ENGINES:-}"; then
			scripts/kube-down.sh && say "stopped the Kubernetes test cluster (SWEBENCH_RUN_KEEP_ENGINES=1 keeps it)"
		else
			kubectl="$(cat "$kube_dir/bin-dir")/kubectl"
			if "$kube_up" --status 2>/dev/null && [[ -x $kubectl ]]; then
				n=$("$kubectl" --kubeconfig "$kube_dir/admin.kubeconfig" --request-timeout 20s delete pods --all-namespaces \
					-l "swebench-run/test-session=$SWEBENCH_RUN_TEST_SESSION" --grace-period=0 --force -o name 2>/dev/null | wc -l)
				((n == 0)) || say "deleted $n pod(s) the tests left in the Kubernetes test cluster"
				say "the Kubernetes test cluster keeps running; stop it with make kube-down"
			fi
		fi
	fi
	rm -rf "$work"
}

# count_corpus reads the corpus log (in $work, which leftovers removes) into ran, skipped and
# failed, and prints the skipped tests; summary prints the last line of every run, whatever
# ended it.
ran=0 skipped=0 failed=0
count_corpus() {
	# One line per test ("ran|skipped|failed<TAB>package<TAB>test"); a test that ran twice (a
	# subtest rerun) counts once, with its last outcome.
	[[ -s $SWEBENCH_RUN_CORPUS_LOG ]] || return 0
	read -r ran skipped failed < <(awk -F'\t' '{s[$2" "$3]=$1} END {for (k in s) c[s[k]]++; print c["ran"]+0, c["skipped"]+0, c["failed"]+0}' "$SWEBENCH_RUN_CORPUS_LOG")
	if ((skipped > 0)); then
		awk -F'\t' '{s[$2" "$3]=$1} END {for (k in s) if (s[k] == "skipped") print "  skipped: " k}' "$SWEBENCH_RUN_CORPUS_LOG" | sort | head -5 >&2
		((skipped <= 5)) || say "  … and $((skipped - 5)) more"
		say "run \`make testdata\` to get the corpus (README.md, \"Test data\")"
	fi
}

summary() {
	local took=$((SECONDS - started_at)) verdict=passed
	((rc == 0)) || verdict="FAILED (exit $rc)"
	say "corpus tests: $ran ran, $skipped skipped, $failed failed; Kubernetes tests: $kube_note; $verdict in $((took / 60)) min $((took % 60)) s"
}

on_exit() {
	local code=$?
	((rc != 0 || code == 0)) || rc=$code
	count_corpus
	leftovers
	summary
	exit "$rc"
}
trap on_exit EXIT
trap 'rc=130; exit 130' INT
trap 'rc=143; exit 143' TERM

# 1. The corpus.
if ! "$MAKE" --no-print-directory testdata GO="$GO"; then
	if [[ -n ${CI:-} ]]; then
		say "CI is set and the test corpus is incomplete (see above): failing"
		exit 1
	fi
	say "the test corpus is incomplete (see above): the tests that need it will skip"
fi

# 2. The Kubernetes test cluster: the tests use it when it is up; SWEBENCH_RUN_KUBE=1 and CI
#    start it first (never the tests: see above).
export KUBECONFIG=${SWEBENCH_RUN_TEST_KUBECONFIG:-$kube_dir/admin.kubeconfig}
kube_note="skipped (no cluster: make kube-up, or SWEBENCH_RUN_KUBE=1 make test)"
if [[ -n ${SWEBENCH_RUN_TEST_KUBECONFIG:-} ]]; then
	kube_note="on $SWEBENCH_RUN_TEST_KUBECONFIG"
elif "$kube_up" --status 2>/dev/null; then
	kube_note="on the test cluster"
elif truthy "${SWEBENCH_RUN_KUBE:-}" || [[ -n ${CI:-} ]]; then
	why="SWEBENCH_RUN_KUBE=1"
	[[ -z ${CI:-} ]] || why="CI is set"
	say "starting the Kubernetes test cluster ($why; the first start on a machine builds Kubernetes, about 5 minutes on idle cores)"
	kubeconfig=$("$kube_up") || {
		say "the Kubernetes test cluster did not start (see above)"
		exit 1
	}
	kube_started=1
	export KUBECONFIG=$kubeconfig
	kube_note="on the test cluster (started for these tests)"
else
	say "the Kubernetes tests will skip: no test cluster is up. $(if compgen -G "${SWEBENCH_KUBE_CACHE:-${SWEBENCH_CACHE_DIR:-/var/cache/swebench-run}/kube}/v*/complete" >/dev/null; then echo "make kube-up starts it (about 10 s when built)"; else echo "make kube-up builds and starts it (about 5 minutes the first time, then about 10 s)"; fi), or run SWEBENCH_RUN_KUBE=1 make test"
fi

# 3. The tests. TMPDIR holds every t.TempDir, so that leftovers can find what they started.
args=("$@")
((${#args[@]})) || args=(-timeout 45m ./...)
TMPDIR="$work/tmp" "$GO" test -count=1 "${args[@]}"
rc=$?

# 4. With CI set a corpus test that skipped fails the suite (summary, at exit, counts them).
if [[ -n ${CI:-} && -s $SWEBENCH_RUN_CORPUS_LOG ]] &&
	awk -F'\t' '{s[$2" "$3]=$1} END {for (k in s) if (s[k] == "skipped") exit 0; exit 1}' "$SWEBENCH_RUN_CORPUS_LOG"; then
	say "CI is set: a corpus test skipped, failing"
	((rc != 0)) || rc=1
fi
exit "$rc"
