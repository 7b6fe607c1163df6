#!/usr/bin/env bash
# Builds the history guard's test images: for every dataset family's layout, an image of that
# family's demo instance whose repository holds the instance's fix in every place an agent could
# read it from (scripts/planted/plant.sh): a branch, a remote-tracking ref and its remote, tags
# (lightweight and annotated, packed), a stash, a note, the reflog, ORIG_HEAD and FETCH_HEAD, a
# dangling loose object, a pack no ref names, rr-cache, and an alternate object store (which
# also holds HEAD's own objects, removed from the repository, so that HEAD needs it).
#
#   swebench-run-planted/swebench:1   /testbed   demo/dataset.jsonl's first row (also SWE-rebench v1's layout)
#   swebench-run-planted/pro:1        /app       demo/pro/dataset.jsonl
#   swebench-run-planted/msb:1        /home/jq   family/multiswebench/testdata/demo/dataset.jsonl
#   swebench-run-planted/live:1       /testbed   family/live/testdata/e2e/rows.jsonl
#   swebench-run-planted/gym:1        /testbed   family/gym/testdata/e2e/rows.jsonl
#   swebench-run-planted/rebench-v2:1 /tallykit  demo/rebench-v2/dataset.jsonl
#   swebench-run-planted/polybench:1  /repo      demo/polybench/dataset.jsonl
#   swebench-run-planted/smith:1      /testbed   demo/smith/dataset.jsonl (planted on the instance's
#                                                branch; the fix is HEAD~1 → HEAD~2 there)
#
# Each image is its family's demo image (make images) with the planting in one more layer, so
# that a row of the family's demo dataset with its image replaced grades as before. /planted
# holds the test's answer key: fix-objects (every object of the fix planted), fix-lines (the
# fix's added lines the start does not hold) and start (the task's starting commit).
#
# Cached: each image carries org.swebench-run.input-hash = sha256 of its family image's id and
# of this script and plant.sh; an image whose label matches is kept as is.
#
# Usage: scripts/build-planted-image.sh [--force] [FAMILY...]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$here/lib.sh"

force=0
families=()
for a in "$@"; do
	case $a in
	--force) force=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*) die "unknown argument '$a' (usage: $0 [--force] [FAMILY...])" ;;
	*) families+=("$a") ;;
	esac
done
need_docker
need python3

# family|image|repository|dataset|patch column|start command ("" for none)
table="swebench|swebench-run-demo/sweb.eval.x86_64.demo_1776_confparse-31:latest|/testbed|demo/dataset.jsonl|patch|
pro|swebench-run-demo/sweap-pro:calc|/app|demo/pro/dataset.jsonl|patch|
msb|mswebench/jqlang_m_jq:pr-990001|/home/jq|family/multiswebench/testdata/demo/dataset.jsonl|fix_patch|
live|swebench-run-demo/live-livecalc:latest|/testbed|family/live/testdata/e2e/rows.jsonl|patch|
gym|swebench-run-demo/gym-gymcalc:latest|/testbed|family/gym/testdata/e2e/rows.jsonl|patch|
rebench-v2|swebench-run-demo/rebench-v2-tallykit:1|/tallykit|demo/rebench-v2/dataset.jsonl|patch|
polybench|swebench-run-demo/polybench-ytdl:1|/repo|demo/polybench/dataset.jsonl|patch|
smith|swebench-run-demo/swesmith.x86_64.mewwts_1776_addict.75284f95:latest|/testbed|demo/smith/dataset.jsonl|-|git checkout -q mewwts__addict.75284f95.func_pm_op_swap__demo1"

work=$(mktemp -d)
container=""
cleanup() {
	[[ -n $container ]] && docker rm -f "$container" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# Fixed identity and date: the planted commits are the same on every build.
ident=(-e GIT_AUTHOR_NAME=planted -e GIT_AUTHOR_EMAIL=planted@swebench-run.invalid -e GIT_AUTHOR_DATE=2030-01-01T00:00:00Z
	-e GIT_COMMITTER_NAME=planted -e GIT_COMMITTER_EMAIL=planted@swebench-run.invalid -e GIT_COMMITTER_DATE=2030-01-01T00:00:00Z)

while IFS='|' read -r fam image repo dataset column start; do
	if ((${#families[@]} > 0)) && [[ " ${families[*]} " != *" $fam "* ]]; then continue; fi
	out="swebench-run-planted/$fam:1"
	from_id=$(image_id "$image")
	[[ -n $from_id ]] || die "$image is missing: build it first (make images)"
	hash=$(printf '%s\n' "$from_id" "$repo" "$column" "$start" | cat - "$0" "$here/planted/plant.sh" | hash_stdin)
	if [[ $force == 0 && $(image_label "$out" "$INPUT_HASH_LABEL") == "$hash" ]]; then
		log "$out is up to date"
		continue
	fi
	log "building $out from $image"
	fix=-
	if [[ $column != - ]]; then
		python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]], end="")' "$root/$dataset" "$column" >"$work/fix.diff" ||
			die "$dataset: no $column in its first row"
		fix=/tmp/planted-fix.diff
	fi
	container=$(docker create --network none --entrypoint "" -w / --label org.swebench-run.build=1 "${ident[@]}" "$image" \
		bash -c "bash /tmp/plant.sh '$repo' '$fix' '$start' && rm -f /tmp/plant.sh /tmp/planted-fix.diff")
	docker cp "$here/planted/plant.sh" "$container:/tmp/plant.sh" >/dev/null
	[[ $fix == - ]] || docker cp "$work/fix.diff" "$container:/tmp/planted-fix.diff" >/dev/null
	docker start -a "$container" >"$work/log" 2>&1 || {
		cat "$work/log" >&2
		die "planting in $image failed (its output is above)"
	}
	old_id=$(image_id "$out")
	docker commit --message "swebench-run planted image of $fam" \
		--change "LABEL $INPUT_HASH_LABEL=$hash org.swebench-run.image=planted" "$container" "$out" >/dev/null
	docker rm "$container" >/dev/null
	container=""
	if [[ -n $old_id && $old_id != "$(image_id "$out")" ]]; then docker rmi "$old_id" >/dev/null 2>&1 || true; fi
	log "built $out: $(tail -n1 "$work/log")"
done <<<"$table"
