#!/usr/bin/env bash
# Builds the Multi-SWE-bench demo images from the local swebench-run/base:bookworm, without
# pulling, in the harness's layout (multi_swe_bench/harness/image.py and its jq repository's
# ImageBase and ImageDefault):
#   mswebench/jqlang_m_jq:base      the repository at /home/jq, committed with a fixed author,
#                                   committer and date so its sha is the base.sha of every row of
#                                   family/multiswebench/testdata/demo/dataset.jsonl (the build
#                                   fails if it is not); WORKDIR /home
#   mswebench/jqlang_m_jq:pr-<n>    from :base, one per jq-<n>.fix.patch of the demo: in /home the
#                                   scripts run.sh, test-run.sh and fix-run.sh with the instance's
#                                   test.patch and gold fix.patch; WORKDIR /home/jq
# Grading mounts the prediction over /home/fix.patch and runs `bash /home/fix-run.sh`. The
# harness's run_evaluation uses these images as they are (it builds an image only when it is
# missing), :base included.
#
# The demo rows are named after jq, whose parser (automake's test driver) reads the demo's test
# output; the numbers (990001-990005) are not jq's pull requests.
# Cached: each image carries org.swebench-run.input-hash = sha256 of the image it starts from,
# this script and its files; an image whose label matches is kept as is.
#
# Usage: scripts/build-msb-demo-images.sh [--force]
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

demo="$root/family/multiswebench/testdata/demo"
[[ -d $demo/repo ]] || die "$demo/repo is missing"
repo=jq
# Keep in step with dataset.jsonl's base.sha: the same identity gives the same commit.
commit_name="swebench-run demo"
commit_email="demo@swebench-run.invalid"
commit_date="2025-01-01T00:00:00Z"
base_sha=e5516f8234e4f56eb0a313f2378d6230b5a2abeb

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

built=0 kept=0

# The harness's ImageBase: the repository, cloned (here: committed) at /home/<repo>.
base_image="mswebench/jqlang_m_jq:base"
mkdir -p "$work/base/$repo"
(cd "$demo/repo" && tar -c .) | tar -x -C "$work/base/$repo"
setup="set -euo pipefail
cd /home/$repo
find . -type d -exec chmod 0755 {} +
find . -type f -exec chmod 0644 {} +
git init -q
git add -A
git commit -q -m 'jqlite: identity, keys and length'
head=\$(git rev-parse HEAD)
if [ \"\$head\" != '$base_sha' ]; then
	echo \"error: /home/$repo is at \$head, the demo rows say base.sha $base_sha\" >&2
	exit 1
fi"
hash=$( {
	printf '%s\n' "$base_id" "$commit_name" "$commit_email" "$commit_date" "$setup"
	sha256sum <"$0"
	hash_tree "$work/base"
} | hash_stdin)
if [[ $force == 0 && $(image_label "$base_image" "$INPUT_HASH_LABEL") == "$hash" ]]; then
	kept=$((kept + 1))
	log "$base_image is up to date"
else
	log "building $base_image"
	run_build_container /home "$setup" "$work/base.log" "$work/base/." /home
	commit_build_container "$base_image" "swebench-run Multi-SWE-bench demo jqlang/jq:base" "WORKDIR /home" 'CMD ["/bin/bash"]' \
		"LABEL $INPUT_HASH_LABEL=$hash org.swebench-run.image=msb-demo"
	built=$((built + 1))
fi
jq_base_id=$(image_id "$base_image")
[[ -n $jq_base_id ]] || die "$base_image is missing after its build"

# The harness's ImageDefault: one image per pull request, from the base image.
shopt -s nullglob
fixes=("$demo"/jq-*.fix.patch)
shopt -u nullglob
((${#fixes[@]} > 0)) || die "$demo holds no jq-<number>.fix.patch"
for fix in "${fixes[@]}"; do
	number=${fix##*/jq-}
	number=${number%.fix.patch}
	[[ -f $demo/jq-$number.test.patch ]] || die "$demo/jq-$number.test.patch is missing (beside $fix)"
	image="mswebench/jqlang_m_jq:pr-$number"
	ctx="$work/pr-$number"
	mkdir -p "$ctx/home"
	cp "$demo/jq-$number.test.patch" "$ctx/home/test.patch"
	cp "$fix" "$ctx/home/fix.patch"
	# The harness's scripts, as its repositories' Image.files() write them.
	printf '#!/bin/bash\nset -e\n\ncd /home/%s\nbash tests/run.sh\n' "$repo" >"$ctx/home/run.sh"
	printf '#!/bin/bash\nset -e\n\ncd /home/%s\ngit apply --whitespace=nowarn /home/test.patch\nbash tests/run.sh\n' "$repo" >"$ctx/home/test-run.sh"
	printf '#!/bin/bash\nset -e\n\ncd /home/%s\ngit apply --whitespace=nowarn /home/test.patch /home/fix.patch\nbash tests/run.sh\n' "$repo" >"$ctx/home/fix-run.sh"

	setup="set -euo pipefail
cd /home/$repo
[ \"\$(git rev-parse HEAD)\" = '$base_sha' ] && git diff --quiet HEAD"
	hash=$( {
		printf '%s\n' "$jq_base_id" "$setup"
		sha256sum <"$0"
		hash_tree "$ctx"
	} | hash_stdin)
	if [[ $force == 0 && $(image_label "$image" "$INPUT_HASH_LABEL") == "$hash" ]]; then
		kept=$((kept + 1))
		log "$image is up to date"
		continue
	fi
	log "building $image"
	BASE_IMAGE=$base_image run_build_container /home "$setup" "$work/pr-$number.log" "$ctx/home/." /home
	commit_build_container "$image" "swebench-run Multi-SWE-bench demo jqlang/jq:pr-$number" "WORKDIR /home/$repo" 'CMD ["/bin/bash"]' \
		"LABEL $INPUT_HASH_LABEL=$hash org.swebench-run.image=msb-demo org.swebench-run.instance-id=jqlang__jq-$number"
	built=$((built + 1))
done
log "Multi-SWE-bench demo images: $built built, $kept up to date"
