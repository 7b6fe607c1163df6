#!/usr/bin/env bash
# Builds the local image swebench-run/base:bookworm without pulling anything: a Debian bookworm
# root made by debootstrap from this machine's apt mirror, imported with `docker import`.
#
# It holds what the demo instances and the runner need: bash, git (with a user and
# safe.directory '*'), patch, coreutils (timeout), procps, python3 with Debian's pytest, and a
# harmless /root/.bashrc (SWE-bench images are run with BASH_ENV=/root/.bashrc).
#
# Cached: the image carries the label org.swebench-run.input-hash = sha256 of this script and
# lib.sh; when the label matches, the script does nothing. The debootstrap root and the
# downloaded packages are kept under /var/cache/swebench-run (SWEBENCH_CACHE_DIR), outside the
# repository, so a rebuild after `docker rmi` needs neither the network nor debootstrap.
#
# Usage: scripts/build-base-image.sh [--force]
# Environment: SWEBENCH_DEBIAN_MIRROR (default: the bookworm mirror in /etc/apt/sources.list*),
#              SWEBENCH_CACHE_DIR (default /var/cache/swebench-run).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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

suite=bookworm
packages=(
	bash coreutils procps patch git ca-certificates
	python3 python3-pytest python-is-python3
)

need_docker
# The build inputs: this script and its helpers. The mirror is not one: any mirror serves the
# same suite.
input_hash=$(cat "$here/build-base-image.sh" "$here/lib.sh" | hash_stdin)

if [[ $force == 0 && $(image_label "$BASE_IMAGE" "$INPUT_HASH_LABEL") == "$input_hash" ]]; then
	log "$BASE_IMAGE is up to date (input hash ${input_hash:0:12})"
	exit 0
fi

[[ $(id -u) == 0 ]] || die "debootstrap needs root; rerun as root (sudo $0)"
if ! command -v debootstrap >/dev/null 2>&1; then
	log "installing debootstrap with apt-get"
	apt-get install -y debootstrap >&2 || { apt-get update >&2 && apt-get install -y debootstrap >&2; } ||
		die "could not install debootstrap; install it (apt-get install -y debootstrap) and rerun"
fi

# The debootstrap root depends only on the suite and the package list, so edits to the
# configuration below reuse it.
root_parent="$CACHE_DIR/base-$suite"
root_key=$(printf '%s\n' "rootfs-v1" "$suite" "${packages[@]}" | hash_stdin)
rootfs="$root_parent/rootfs-${root_key:0:16}"
mkdir -p "$root_parent" "$CACHE_DIR/debs"

if [[ ! -f $rootfs/.swebench-run-complete ]]; then
	mirror=$(debian_mirror)
	tmp="$root_parent/tmp-${root_key:0:16}"
	rm -rf "$tmp"
	log "debootstrap $suite from $mirror into $tmp (about 2 minutes on first run)"
	include=$(
		IFS=,
		echo "${packages[*]}"
	)
	if ! debootstrap --variant=minbase --include="$include" --cache-dir="$CACHE_DIR/debs" \
		"$suite" "$tmp" "$mirror" >"$root_parent/debootstrap.log" 2>&1; then
		tail -n 30 "$root_parent/debootstrap.log" >&2 || true
		[[ -f $tmp/debootstrap/debootstrap.log ]] && tail -n 30 "$tmp/debootstrap/debootstrap.log" >&2
		die "debootstrap of $suite from $mirror failed (full log: $root_parent/debootstrap.log)"
	fi
	# Smaller image: no package lists or downloaded archives.
	rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/var/cache/apt/archives/*.deb "$tmp"/debootstrap
	for tool in bash git patch timeout ps python3 pytest; do
		chroot "$tmp" /usr/bin/env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			sh -c "command -v $tool" >/dev/null || die "the debootstrap root lacks '$tool'"
	done
	touch "$tmp/.swebench-run-complete"
	rm -rf "$rootfs"
	mv "$tmp" "$rootfs"
	# Roots of other package lists are of no further use.
	find "$root_parent" -mindepth 1 -maxdepth 1 -type d \( -name 'rootfs-*' -o -name 'tmp-*' \) \
		! -name "$(basename "$rootfs")" -exec rm -rf {} +
else
	log "reusing the debootstrap root $rootfs"
fi

# Configuration inside the image, rewritten on every import.
cat >"$rootfs/root/.bashrc" <<'EOF'
# swebench-run base image. SWE-bench images activate their conda env here (the runner sets
# BASH_ENV=/root/.bashrc); this image has no conda, so there is nothing to do. Keep this file
# silent: anything it prints would end up in every command's output.
export PAGER=cat
EOF
cat >"$rootfs/etc/gitconfig" <<'EOF'
[user]
	name = swebench-run
	email = swebench-run@localhost
[safe]
	directory = *
[init]
	defaultBranch = main
[advice]
	detachedHead = false
EOF

log "importing $rootfs as $BASE_IMAGE"
tar -C "$rootfs" --numeric-owner --exclude=./.swebench-run-complete \
	--exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' --exclude='./run/*' -c . |
	docker import \
		--change 'CMD ["/bin/bash"]' \
		--change 'WORKDIR /' \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'ENV LANG=C.UTF-8' \
		--change "LABEL org.swebench-run.image=base org.opencontainers.image.description=\"swebench-run base image ($suite)\" $INPUT_HASH_LABEL=$input_hash" \
		--message "swebench-run base image ($suite, debootstrap minbase)" \
		- "$BASE_IMAGE" >/dev/null

[[ $(image_label "$BASE_IMAGE" "$INPUT_HASH_LABEL") == "$input_hash" ]] ||
	die "imported $BASE_IMAGE but its $INPUT_HASH_LABEL label is not $input_hash"
docker run --rm --network none "$BASE_IMAGE" bash -c 'git --version && python3 -m pytest --version && timeout --version | head -n1' >&2 ||
	die "$BASE_IMAGE was imported but does not run git, pytest or timeout"
log "built $BASE_IMAGE ($(image_id "$BASE_IMAGE" | cut -c1-19), input hash ${input_hash:0:12})"
