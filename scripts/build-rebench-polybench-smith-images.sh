#!/usr/bin/env bash
# Builds the local images of the SWE-rebench-V2, SWE-PolyBench and SWE-smith demo instances
# (demo/rebench-v2, demo/polybench, demo/smith), each in its dataset's layout, from
# swebench-run/base:bookworm without pulling (docker create + cp + start + commit):
#
#   swebench-run-demo/rebench-v2-tallykit:1    the repository in /tallykit (/<repo name>), at the
#                                              rows' base_commit
#   swebench-run-demo/polybench-ytdl:1         the repository in /repo, the image's WORKDIR (as the
#                                              rows' Dockerfile says), at the rows' base_commit
#   swebench-run-demo/swesmith.x86_64.mewwts_1776_addict.75284f95
#                                              the repository in /testbed on main, and per instance
#                                              a branch named after it: the bug commit
#                                              (demo/smith/branches/<id>/bug.diff), then a commit
#                                              removing its FAIL_TO_PASS test files
#
# Commits have a fixed author, committer and date, so their shas are those of the dataset rows
# (checked: the build fails if not).
# Cached: each image carries org.swebench-run.input-hash = sha256 of the base image id, this
# script and its files; an image whose label matches is kept as is.
#
# Usage: scripts/build-rebench-polybench-smith-images.sh [--force]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$here/lib.sh"

force=0
case "${1:-}" in
"") ;;
--force) force=1 ;;
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
*) die "unknown argument '$1' (usage: $0 [--force])" ;;
esac

commit_name="swebench-run demo"
commit_email="demo@swebench-run.invalid"
commit_date="1743607656 +0000"

need_docker
"$here/build-base-image.sh"
base_id=$(image_id "$BASE_IMAGE")
[[ -n $base_id ]] || die "$BASE_IMAGE is missing after build-base-image.sh"

work=$(mktemp -d)
build_container=""
cleanup() {
	[[ -n $build_container ]] && docker rm -f "$build_container" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# The commands that commit the copied files as the first commit, checked against the rows.
init_repo() { # DIR MESSAGE DATASET
	local want
	want=$(grep -o '"base_commit": *"[0-9a-f]*"' "$3" | head -n1 | grep -o '[0-9a-f]\{40\}') || die "$3 names no base_commit"
	# the script goes into the image's input hash: it names the dataset relative to the checkout,
	# so that every clone of the repository computes the same hash
	set -- "$1" "$2" "${3#"$root"/}"
	printf '%s\n' "set -euo pipefail
find $1 -type d -exec chmod 0755 {} +
find $1 -type f -exec chmod 0644 {} +
cd $1
git init -q -b main
git add -A
git commit -q -m '$2'
head=\$(git rev-parse HEAD)
[ \"\$head\" = '$want' ] || { echo \"error: $1 is at \$head, $3 says base_commit $want\" >&2; exit 1; }"
}

# build IMAGE WORKDIR SRC SETUP [EXTRA_DIR]: copies SRC into WORKDIR (and EXTRA_DIR into /extra),
# runs SETUP there and commits the container as IMAGE with WORKDIR, unless IMAGE is up to date.
build() {
	local image=$1 workdir=$2 src=$3 setup=$4 extra=${5:-} hash
	hash=$( {
		printf '%s\n' "$base_id" "$commit_name" "$commit_email" "$commit_date" "$setup" "$workdir"
		sha256sum <"$0"
		hash_tree "$src"
		if [[ -n $extra ]]; then hash_tree "$extra"; fi
	} | hash_stdin)
	if [[ $force == 0 && $(image_label "$image" "$INPUT_HASH_LABEL") == "$hash" ]]; then
		log "$image is up to date"
		return
	fi
	log "building $image"
	rm -rf "$work/ctx" && mkdir -p "$work/ctx/repo" "$work/ctx/extra"
	(cd "$src" && tar -c --exclude=__pycache__ .) | tar -x -C "$work/ctx/repo"
	local copies=("$work/ctx/repo/." "$workdir")
	if [[ -n $extra ]]; then
		(cd "$extra" && tar -c .) | tar -x -C "$work/ctx/extra"
		copies+=("$work/ctx/extra" /extra)
	fi
	run_build_container / "$setup" "$work/build.log" "${copies[@]}"
	commit_build_container "$image" "swebench-run demo image $image" "WORKDIR $workdir" 'CMD ["/bin/bash"]' \
		"LABEL $INPUT_HASH_LABEL=$hash org.swebench-run.image=demo-family"
	log "built $image"
}

demo="$root/demo"

build swebench-run-demo/rebench-v2-tallykit:1 /tallykit "$demo/rebench-v2/repo" \
	"$(init_repo /tallykit 'tally: count the items of an iterable' "$demo/rebench-v2/dataset.jsonl")"

build swebench-run-demo/polybench-ytdl:1 /repo "$demo/polybench/repo" \
	"$(init_repo /repo 'ytdl: media metadata helpers' "$demo/polybench/dataset.jsonl")"

# SWE-smith: a branch per instance, as SWE-smith's mirrors have them.
smith_setup="$(init_repo /testbed 'Initial commit' "$demo/smith/dataset.jsonl")
for b in /extra/*/; do
	id=\$(basename \"\$b\")
	git checkout -q -b \"\$id\" main
	git apply \"\$b/bug.diff\"
	git commit -q -am 'Bug Patch'
	xargs git rm -q <\"\$b/removed_tests.txt\"
	git commit -q -m 'Remove F2P Tests'
done
git checkout -q main
rm -rf /extra"
build swebench-run-demo/swesmith.x86_64.mewwts_1776_addict.75284f95 /testbed "$demo/smith/repo" "$smith_setup" "$demo/smith/branches"
