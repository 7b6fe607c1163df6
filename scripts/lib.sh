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

# Images are built without pulling or a Dockerfile, in one layer (docker create + cp + start +
# commit: much faster than the legacy builder on slow storage drivers such as fuse-overlayfs).
# run_build_container WORKDIR SETUP LOG [SRC DEST]...: creates a container of BASE_IMAGE (no
# network) that runs `bash -c SETUP` in WORKDIR with git's author and committer set to the
# caller's commit_name, commit_email and commit_date (fixed commit shas), copies each SRC to DEST
# in it, and runs it, its output in LOG (printed when it fails). build_container names the
# container until commit_build_container, for the caller's cleanup trap.
run_build_container() {
	local workdir=$1 setup=$2 out=$3
	shift 3
	build_container=$(docker create --network none --label org.swebench-run.build=1 -w "$workdir" \
		-e "GIT_AUTHOR_NAME=$commit_name" -e "GIT_AUTHOR_EMAIL=$commit_email" -e "GIT_AUTHOR_DATE=$commit_date" \
		-e "GIT_COMMITTER_NAME=$commit_name" -e "GIT_COMMITTER_EMAIL=$commit_email" -e "GIT_COMMITTER_DATE=$commit_date" \
		"$BASE_IMAGE" bash -c "$setup") || die "could not create a build container from $BASE_IMAGE"
	while (($# >= 2)); do
		docker cp "$1" "$build_container:$2" || die "docker cp of $1 into the build container failed"
		shift 2
	done
	if ! docker start -a "$build_container" >"$out" 2>&1; then
		cat "$out" >&2
		die "the build container's setup in $workdir failed (its output is above)"
	fi
}

# commit_build_container IMAGE MESSAGE [CHANGE]...: commits the build container as IMAGE with
# each CHANGE as a `docker commit --change`, removes the container, and removes the image IMAGE
# named before (kept while a container still uses it).
commit_build_container() {
	local image=$1 message=$2 old_id change args=()
	shift 2
	for change; do args+=(--change "$change"); done
	old_id=$(image_id "$image")
	docker commit "${args[@]}" --message "$message" "$build_container" "$image" >/dev/null || die "docker commit of $image failed"
	docker rm "$build_container" >/dev/null
	build_container=""
	if [[ -n $old_id && $old_id != "$(image_id "$image")" ]]; then
		docker rmi "$old_id" >/dev/null 2>&1 || true
	fi
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
