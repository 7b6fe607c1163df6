#!/usr/bin/env bash
# Checks every demo instance for real, inside its image (build them first with
# scripts/build-demo-images.sh):
#   1. /testbed is clean and at base_commit;
#   2. the row's eval_script without a patch: every FAIL_TO_PASS test fails, every PASS_TO_PASS
#      test passes, the test command exits non-zero;
#   3. the same after `git apply` of the gold patch: all of them pass, the test command exits 0,
#      and the tests the log reports are exactly FAIL_TO_PASS + PASS_TO_PASS;
#   4. the commands of demo/scripted.yaml, run one by one with `docker exec -w /testbed ... bash -c`
#      in a fresh container, submit (output after the COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT line)
#      exactly the gold patch, byte for byte.
#
# Usage: scripts/check-demo.sh [INSTANCE_ID...]   (default: all of demo/dataset.jsonl)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$here/lib.sh"

need_docker
need go
work=$(mktemp -d)
containers=()
cleanup() {
	if ((${#containers[@]} > 0)); then
		docker rm -f "${containers[@]}" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

log "building the demo/gen helper"
(cd "$root" && go build -o "$work/gen" ./demo/gen) || die "go build ./demo/gen failed"
gen() { (cd "$root" && "$work/gen" "$@"); }
gen -check || die "demo/ generated files are stale; run 'go run ./demo/gen'"

if (($# > 0)); then ids=("$@"); else mapfile -t ids < <(gen -ids); fi
((${#ids[@]} > 0)) || die "no instances to check"

start_container() { # IMAGE -> container id
	local id
	id=$(docker run -d --rm --network none --label org.swebench-run.check-demo=1 -w /testbed "$1" sleep 900) ||
		die "could not start a container of $1 (built? run scripts/build-demo-images.sh)"
	containers+=("$id")
	printf '%s\n' "$id"
}

stop_container() {
	docker rm -f "$1" >/dev/null 2>&1 || true
}

# statuses LOG: "STATUS test" lines of pytest -rA's summary, between the markers.
statuses() {
	sed -n "/^+ : '>>>>> Start Test Output'/,/^+ : '>>>>> End Test Output'/p" "$1" |
		grep -E '^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) ' | awk '{print $1, $2}' | sort -u -k2
}

status_of() { # STATUS_FILE TEST
	awk -v t="$2" '$2 == t { print $1; exit }' "$1"
}

exit_code_of() { # LOG
	sed -n 's/^+ TEST_EXIT_CODE=\([0-9]*\)$/\1/p' "$1" | tail -n1
}

failures=0
fail() {
	printf '%s FAIL: %s\n' "[check-demo.sh]" "$*" >&2
	failures=$((failures + 1))
}

for id in "${ids[@]}"; do
	d="$work/$id"
	mkdir -p "$d"
	image=$(gen -field "$id" image)
	base=$(gen -field "$id" base_commit)
	gen -field "$id" patch >"$d/gold.patch"
	gen -field "$id" eval_script >"$d/eval.sh"
	gen -tests "$id" FAIL_TO_PASS >"$d/f2p"
	gen -tests "$id" PASS_TO_PASS >"$d/p2p"
	log "$id: $image"

	# 1-3: eval script before and after the gold patch.
	c=$(start_container "$image")
	head=$(docker exec "$c" git rev-parse HEAD)
	[[ $head == "$base" ]] || fail "$id: /testbed is at $head, the dataset says base_commit $base"
	[[ -z $(docker exec "$c" git status --porcelain) ]] || fail "$id: /testbed has uncommitted changes"
	docker cp "$d/eval.sh" "$c:/eval.sh"
	docker exec "$c" bash /eval.sh >"$d/before.log" 2>&1 || true
	statuses "$d/before.log" >"$d/before.st"
	while read -r t; do
		s=$(status_of "$d/before.st" "$t")
		[[ $s == PASSED || $s == XFAIL ]] && fail "$id: FAIL_TO_PASS $t passes before the gold patch"
	done <"$d/f2p"
	while read -r t; do
		s=$(status_of "$d/before.st" "$t")
		[[ $s == PASSED ]] || fail "$id: PASS_TO_PASS $t is '${s:-missing}' before the gold patch (log: $d/before.log)"
	done <"$d/p2p"
	rc=$(exit_code_of "$d/before.log")
	[[ -n $rc && $rc != 0 ]] || fail "$id: test exit code before the gold patch is '${rc}', want non-zero"

	docker cp "$d/gold.patch" "$c:/tmp/patch.diff"
	docker exec "$c" git apply -v /tmp/patch.diff >"$d/apply.log" 2>&1 || fail "$id: the gold patch does not apply: $(cat "$d/apply.log")"
	docker exec "$c" bash /eval.sh >"$d/after.log" 2>&1 || true
	statuses "$d/after.log" >"$d/after.st"
	while read -r t; do
		s=$(status_of "$d/after.st" "$t")
		[[ $s == PASSED ]] || fail "$id: $t is '${s:-missing}' after the gold patch"
	done < <(cat "$d/f2p" "$d/p2p")
	rc=$(exit_code_of "$d/after.log")
	[[ $rc == 0 ]] || fail "$id: test exit code after the gold patch is '${rc}', want 0"
	if ! diff <(awk '{print $2}' "$d/after.st" | sort) <(sort "$d/f2p" "$d/p2p") >"$d/listed.diff"; then
		fail "$id: the tests run are not exactly FAIL_TO_PASS + PASS_TO_PASS (< run only, > listed only):
$(cat "$d/listed.diff")"
	fi
	stop_container "$c"

	# 4: the scripted actions submit the gold patch.
	c=$(start_container "$image")
	submitted=0
	n=0
	while IFS= read -r -d '' cmd; do
		n=$((n + 1))
		out="$d/cmd$n.out"
		code=0
		docker exec -w /testbed "$c" timeout -s KILL 60 bash -c "$cmd" >"$out" 2>&1 || code=$?
		if [[ $code == 0 && $(head -n1 "$out") == COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT ]]; then
			tail -n +2 "$out" >"$d/submission.patch"
			submitted=1
			break
		fi
	done < <(gen -commands "$id")
	if [[ $submitted == 0 ]]; then
		fail "$id: the scripted commands ($n) never submitted"
	elif ! cmp -s "$d/submission.patch" "$d/gold.patch"; then
		fail "$id: the scripted submission differs from the gold patch:
$(diff "$d/gold.patch" "$d/submission.patch" | head -n 20)"
	else
		log "$id: ok (F2P $(wc -l <"$d/f2p"), P2P $(wc -l <"$d/p2p"), scripted submission = gold patch)"
	fi
	stop_container "$c"
done

((failures == 0)) || die "$failures check(s) failed"
log "all ${#ids[@]} demo instances check out"
