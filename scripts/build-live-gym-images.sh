#!/usr/bin/env bash
# Builds the test images of the SWE-bench-Live and SWE-Gym families from the local
# swebench-run/base:bookworm, without pulling (docker create + cp + start + commit): each holds a
# small repository in /testbed, committed with a fixed identity and date so that its sha is the
# base_commit of the family's test rows (family/<family>/testdata/e2e/rows.jsonl; the build fails
# if it is not).
#
#   swebench-run-demo/live-livecalc:latest  SWE-bench-Live's layout: the repository in /testbed and
#       the environment in /root/.bashrc (REPORTS_DIR), which the harness's interactive shell reads.
#   swebench-run-demo/gym-gymcalc:latest    SWE-Gym's (SWE-bench's) layout: the repository in
#       /testbed and /opt/miniconda3/bin/activate, whose `conda activate testbed` puts
#       /opt/miniconda3/envs/testbed/bin first on PATH (a stand-in for conda: this image has none).
#
# Cached: each image carries org.swebench-run.input-hash = sha256 of the base image id, this
# script and the repository's files; an image whose label matches is kept as is.
#
# Usage: scripts/build-live-gym-images.sh [--force]
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
commit_date="2026-01-01T00:00:00Z"

# image | repository folder | base_commit | layout
images=(
	"swebench-run-demo/live-livecalc:latest|family/live/testdata/e2e/repo|6b0a5414c0c03f1261720c7deed06c97bb3ff977|live"
	"swebench-run-demo/gym-gymcalc:latest|family/gym/testdata/e2e/repo|138539eadc8a3e913d69fb112cdcc2f5ab2a4e09|gym"
)

need_docker
[[ -n $(image_id "$BASE_IMAGE") ]] || "$here/build-base-image.sh"
base_id=$(image_id "$BASE_IMAGE")
[[ -n $base_id ]] || die "$BASE_IMAGE is missing; build it with scripts/build-base-image.sh (make images)"

work=$(mktemp -d)
build_container=""
cleanup() {
	[[ -n $build_container ]] && docker rm -f "$build_container" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

built=0 kept=0
for entry in "${images[@]}"; do
	IFS='|' read -r image rel base_commit layout <<<"$entry"
	src="$root/$rel"
	[[ -d $src ]] || die "$src does not exist"
	case "$layout" in
	live)
		env_setup="printf '%s\n' 'export REPORTS_DIR=/testbed/reports' >>/root/.bashrc"
		;;
	gym)
		env_setup="mkdir -p /opt/miniconda3/bin /opt/miniconda3/envs/testbed/bin
ln -sf /usr/bin/python3 /opt/miniconda3/envs/testbed/bin/python
cat >/opt/miniconda3/bin/activate <<'EOF_ACTIVATE'
# A stand-in for conda's activate script in SWE-bench images (this test image has no conda):
# defines conda, whose 'conda activate ENV' puts /opt/miniconda3/envs/ENV/bin first on PATH.
conda() {
	if [ \"\$1\" != activate ]; then
		echo \"conda stand-in: only 'conda activate ENV' is supported\" >&2
		return 1
	fi
	export CONDA_DEFAULT_ENV=\"\${2:-base}\"
	if [ \"\$CONDA_DEFAULT_ENV\" != base ]; then
		export PATH=\"/opt/miniconda3/envs/\$CONDA_DEFAULT_ENV/bin:\$PATH\"
	fi
}
EOF_ACTIVATE"
		;;
	*) die "unknown layout $layout" ;;
	esac
	setup="set -euo pipefail
$env_setup
cd /testbed
find /testbed -type d -exec chmod 0755 {} +
find /testbed -type f -exec chmod 0644 {} +
git init -q
git add -A
git commit -q -m 'Initial commit'
head=\$(git rev-parse HEAD)
if [ \"\$head\" != '$base_commit' ]; then
	echo \"error: /testbed is at \$head, $(basename "$0") says base_commit $base_commit\" >&2
	exit 1
fi"
	hash=$( {
		printf '%s\n' "$base_id" "$commit_name" "$commit_email" "$commit_date" "$setup"
		hash_tree "$src"
	} | hash_stdin)
	if [[ $force == 0 && $(image_label "$image" "$INPUT_HASH_LABEL") == "$hash" ]]; then
		kept=$((kept + 1))
		log "$image is up to date"
		continue
	fi
	ctx="$work/$layout"
	mkdir -p "$ctx"
	(cd "$src" && tar -c --exclude=__pycache__ --exclude=.pytest_cache --exclude='*.pyc' .) | tar -x -C "$ctx"
	log "building $image"
	run_build_container /testbed "$setup" "$work/$layout.log" "$ctx/." /testbed
	commit_build_container "$image" "swebench-run $layout test image" 'WORKDIR /testbed' 'CMD ["/bin/bash"]' \
		"LABEL $INPUT_HASH_LABEL=$hash org.swebench-run.image=$layout-test org.swebench-run.base-commit=$base_commit"
	built=$((built + 1))
done
log "SWE-bench-Live and SWE-Gym test images: $built built, $kept up to date"
