#!/usr/bin/env bash
# Builds the local image of the SWE-bench Pro demo instances (demo/pro/dataset.jsonl) in the
# layout of SWE-bench Pro's images (jefzda/sweap-images): from swebench-run/base:bookworm, without
# pulling (docker create + cp + start + commit), the repository demo/pro/repo committed in /app
# with a fixed author, committer and date (the rows' base_commit), the commit of each of its
# pull requests (demo/pro/prs/<name>/: the test files the PR adds) on a branch pr-<name>, HEAD
# back at the base commit; python3 (and python) from the base image; ENTRYPOINT ["/bin/bash"]
# and WORKDIR /app, as the real images have. The commit shas are checked against
# demo/pro/dataset.jsonl (the build fails if they differ).
#
# Image: swebench-run-demo/sweap-pro:calc. The grading scripts (run_script.sh, parser.py) are not
# in it: as in SWE-bench Pro, they are per-instance files outside the image
# (demo/pro/run_scripts/<instance_id>/), copied into /workspace when an evaluation runs.
# Cached: the image carries org.swebench-run.input-hash = sha256 of the base image id, this
# script and the repository files; an image whose label matches is kept as is.
#
# Usage: scripts/build-pro-image.sh [--force]
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

image=swebench-run-demo/sweap-pro:calc
src="$root/demo/pro"
commit_name="swebench-run demo"
commit_email="demo@swebench-run.invalid"
commit_date="1743607656 +0000"
prs=(add mul)

need_docker
"$here/build-base-image.sh"
base_id=$(image_id "$BASE_IMAGE")
[[ -n $base_id ]] || die "$BASE_IMAGE is missing after build-base-image.sh"

# The shas the rows name: base_commit, and the commit of each PR (the last line of the rows'
# before_repo_set_cmd checks its test files out).
want_base=$(grep -o '"base_commit": *"[0-9a-f]*"' "$src/dataset.jsonl" | head -n1 | grep -o '[0-9a-f]\{40\}') ||
	die "$src/dataset.jsonl names no base_commit"

setup="set -euo pipefail
find /app /pr -type d -exec chmod 0755 {} +
find /app /pr -type f -exec chmod 0644 {} +
cd /app
git init -q
git add -A
git commit -q -m 'calc: small arithmetic helpers'
base=\$(git rev-parse HEAD)
[ \"\$base\" = '$want_base' ] || { echo \"error: /app is at \$base, demo/pro/dataset.jsonl says base_commit $want_base\" >&2; exit 1; }
for pr in ${prs[*]}; do
	git checkout -q -b pr-\$pr \$base
	cp -r /pr/\$pr/. /app/
	git add -A
	git commit -q -m \"tests for \$pr\"
	echo \"pr-\$pr \$(git rev-parse HEAD)\"
done
git checkout -q --detach \$base
rm -rf /pr"

hash=$( {
	printf '%s\n' "$base_id" "$commit_name" "$commit_email" "$commit_date" "$setup"
	hash_tree "$src/repo"
	hash_tree "$src/prs"
} | hash_stdin)
if [[ $force == 0 && $(image_label "$image" "$INPUT_HASH_LABEL") == "$hash" ]]; then
	log "$image is up to date"
	exit 0
fi

work=$(mktemp -d)
build_container=""
cleanup() {
	[[ -n $build_container ]] && docker rm -f "$build_container" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

log "building $image"
mkdir -p "$work/app" "$work/pr"
(cd "$src/repo" && tar -c --exclude=__pycache__ .) | tar -x -C "$work/app"
(cd "$src/prs" && tar -c --exclude=__pycache__ .) | tar -x -C "$work/pr"
run_build_container /app "$setup" "$work/build.log" "$work/app/." /app "$work/pr" /pr
while read -r branch sha; do
	grep -q "$sha" "$src/dataset.jsonl" || die "$branch is at $sha, which demo/pro/dataset.jsonl does not name (regenerate the rows)"
done <"$work/build.log"
commit_build_container "$image" "swebench-run SWE-bench Pro demo image" 'WORKDIR /app' 'ENTRYPOINT ["/bin/bash"]' 'CMD []' \
	"LABEL $INPUT_HASH_LABEL=$hash org.swebench-run.image=demo-pro"
log "built $image"
