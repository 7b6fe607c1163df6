# shellcheck shell=bash
# Shared helpers for the image scripts. Source it; do not run it.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The label every image built by these scripts carries: the sha256 of the inputs it was built
# from. A script that finds an image whose label matches its current inputs does nothing.
INPUT_HASH_LABEL="org.swebench-run.input-hash"

# The local base image every demo image starts from.
BASE_IMAGE="${SWEBENCH_BASE_IMAGE:-swebench-run/base:bookworm}"

# Where large build state (the debootstrap root, downloaded .debs) lives: outside the repository.
CACHE_DIR="${SWEBENCH_CACHE_DIR:-/var/cache/swebench-run}"

log() { printf '%s %s\n' "[$(basename "$0")]" "$*" >&2; }

die() {
	printf '%s error: %s\n' "[$(basename "$0")]" "$*" >&2
	exit 1
}

need() {
	local cmd
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null 2>&1 || die "'$cmd' is not installed; install it (e.g. apt-get install -y $cmd) and rerun"
	done
}

need_docker() {
	need docker
	docker info >/dev/null 2>&1 || die "no Docker daemon answers (is dockerd running, and may this user reach /var/run/docker.sock?)"
}

# image_label IMAGE LABEL: prints the label's value, or nothing when the image or label is absent.
image_label() {
	docker image inspect --format "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null | sed 's/^<no value>$//' || true
}

# image_id IMAGE: prints the image id, or nothing when the image is absent.
image_id() {
	docker image inspect --format '{{.Id}}' "$1" 2>/dev/null || true
}

# hash_stdin: sha256 of stdin, hex only.
hash_stdin() { sha256sum | cut -d' ' -f1; }

# hash_tree DIR: a sha256 over the relative paths, modes (executable or not) and contents of
# every regular file under DIR, independent of mtimes and of the order find returns them in.
hash_tree() {
	local dir=$1
	(
		cd "$dir"
		find . -type f ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 | LC_ALL=C sort -z |
			while IFS= read -r -d '' f; do
				if [[ -x $f ]]; then printf 'x %s\n' "$f"; else printf 'f %s\n' "$f"; fi
				sha256sum <"$f"
			done
	) | hash_stdin
}

# debian_mirror: the Debian archive URL this machine's apt uses (deb822 .sources files or
# one-line sources.list), unless SWEBENCH_DEBIAN_MIRROR is set.
debian_mirror() {
	if [[ -n ${SWEBENCH_DEBIAN_MIRROR:-} ]]; then
		printf '%s\n' "$SWEBENCH_DEBIAN_MIRROR"
		return
	fi
	local f url=""
	shopt -s nullglob
	for f in /etc/apt/sources.list.d/*.sources; do
		# deb822: the URIs: line of a stanza whose Suites include bookworm (not -security).
		url=$(awk '
			/^[[:space:]]*$/ { if (uris != "" && suites ~ /(^| )bookworm( |$)/) { print uris; exit } uris=""; suites=""; next }
			/^URIs:/   { uris=$2 }
			/^Suites:/ { $1=""; suites=$0 " " }
			END { if (uris != "" && suites ~ /(^| )bookworm( |$)/) print uris }
		' "$f" | head -n1)
		[[ -n $url ]] && break
	done
	if [[ -z $url ]]; then
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[[ -r $f ]] || continue
			url=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { if ($(i+1) == "bookworm") { print $i; exit } break } }' "$f" | head -n1)
			[[ -n $url ]] && break
		done
	fi
	shopt -u nullglob
	[[ -n $url ]] || die "found no Debian bookworm mirror in /etc/apt/sources.list*; set SWEBENCH_DEBIAN_MIRROR=http://<mirror>/debian"
	printf '%s\n' "$url"
}
