#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kubectl of one
# Kubernetes release from the Go module k8s.io/kubernetes (through the Go module proxy), in a
# generated build module outside the repository, and prints the directory of the binaries.
# scripts/kube-up.sh calls it; run it alone to warm the cache (e.g. on a CI machine).
#
# Cached: the binaries go to $SWEBENCH_KUBE_CACHE/<version>-<key>/bin, where key is a sha256
# of the version, the Go version, GOOS/GOARCH and the ldflags; a complete directory with that key
# is reused as is (about 0 s). A cold build takes about 4 minutes of both cores on an idle
# machine here; on a machine busy with other work far longer (104 minutes at a load of 25-30).
#
# Usage: scripts/kube-build.sh
# Environment: SWEBENCH_KUBE_VERSION (default v1.34.4), SWEBENCH_KUBE_CACHE (default
#              $SWEBENCH_CACHE_DIR/kube = /var/cache/swebench-run/kube), GO (default go).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
source "$here/lib.sh"
# shellcheck source=scripts/kube-lib.sh
source "$here/kube-lib.sh"

case "${1:-}" in
"") ;;
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
*) die "unknown argument '$1' (usage: $0)" ;;
esac

GO="${GO:-go}"
need "$GO"
# Never let the go command download another toolchain: only the module proxy is reachable.
export GOTOOLCHAIN=local CGO_ENABLED=0
# Its own build cache (about 3 GB) beside the binaries: a new key that only relinks (other
# ldflags) takes seconds, and the shared Go build cache does not carry Kubernetes.
export GOCACHE="$KUBE_CACHE/gocache"

[[ $KUBE_VERSION =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] ||
	die "SWEBENCH_KUBE_VERSION='$KUBE_VERSION' is not a release like v1.34.4"
minor=${BASH_REMATCH[1]} patch=${BASH_REMATCH[2]}
# The staging modules (k8s.io/api, k8s.io/client-go, ...) are published as v0.<minor>.<patch>.
staging_version="v0.$minor.$patch"

# kubectl too: Debian's kubernetes-client (1.20) is too old for a 1.34 API server.
components=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
go_version=$("$GO" env GOVERSION)
goos=$("$GO" env GOOS) goarch=$("$GO" env GOARCH)
# No build date: it would change the binaries, not what they do.
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
	ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
key=$(printf '%s\n' "kube-build-v1" "$KUBE_VERSION" "$go_version" "$goos/$goarch" "$ldflags" "${components[@]}" | hash_stdin)
out="$KUBE_CACHE/$KUBE_VERSION-${key:0:16}"

if [[ -f $out/complete ]]; then
	log "reusing the Kubernetes $KUBE_VERSION binaries in $out/bin"
	printf '%s\n' "$out/bin"
	exit 0
fi

mkdir -p "$KUBE_CACHE"
# One build at a time per key: a second kube-up waits for the first one's build.
exec 9>"$KUBE_CACHE/.build-${key:0:16}.lock"
if ! flock -n 9; then
	log "another build of $KUBE_VERSION is running; waiting for it"
	flock 9
fi
if [[ -f $out/complete ]]; then
	printf '%s\n' "$out/bin"
	exit 0
fi

# The build module: requires k8s.io/kubernetes and replaces each staging module it lists at
# v0.0.0 (its own go.mod points them at ./staging, which a dependency cannot use) by the
# published version.
mod="$KUBE_CACHE/module-$KUBE_VERSION"
rm -rf "$mod"
mkdir -p "$mod"
cd "$mod"
started=$SECONDS
log "resolving k8s.io/kubernetes@$KUBE_VERSION through the Go module proxy"
kube_gomod=$("$GO" mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
[[ -f $kube_gomod ]] || die "could not download k8s.io/kubernetes@$KUBE_VERSION (is the Go module proxy reachable? GOPROXY=$("$GO" env GOPROXY))"
mapfile -t staging < <(awk '$1 ~ /^k8s\.io\// && $2 == "v0.0.0" { print $1 }' "$kube_gomod" | sort -u)
((${#staging[@]} > 0)) || die "found no staging modules (k8s.io/... v0.0.0) in $kube_gomod"
{
	printf 'module swebench-run.invalid/kube-build\n\ngo 1.24.0\n\n'
	# The defaults of the Go release Kubernetes $KUBE_VERSION was built and tested with.
	printf 'godebug default=go1.24\n\n'
	printf 'require k8s.io/kubernetes %s\n\n' "$KUBE_VERSION"
	for m in "${staging[@]}"; do printf 'replace %s => %s %s\n' "$m" "$m" "$staging_version"; done
} >go.mod
{
	printf '//go:build tools\n\n// Package tools records the commands this module builds.\npackage tools\n\nimport (\n'
	for c in "${components[@]}"; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$c"; done
	printf ')\n'
} >tools.go
log "go mod tidy (${#staging[@]} staging modules at $staging_version; about a minute on a cold module cache)"
"$GO" mod tidy >"$mod/tidy.log" 2>&1 || {
	tail -n 30 "$mod/tidy.log" >&2
	die "go mod tidy of the build module $mod failed (log: $mod/tidy.log)"
}

tmp="$out.tmp"
rm -rf "$tmp"
mkdir -p "$tmp/bin"
pkgs=()
for c in "${components[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
log "building ${components[*]} $KUBE_VERSION with $go_version (about 4 minutes cold on 2 idle cores, more under load; log: $mod/build.log)"
nice -n 5 "$GO" build -trimpath -ldflags "$ldflags" -o "$tmp/bin/" "${pkgs[@]}" >"$mod/build.log" 2>&1 || {
	tail -n 30 "$mod/build.log" >&2
	die "building Kubernetes $KUBE_VERSION failed (log: $mod/build.log)"
}
for c in "${components[@]}"; do
	[[ -x $tmp/bin/$c ]] || die "the build of $KUBE_VERSION produced no $c"
done
"$tmp/bin/kubelet" --version | grep -qF "$KUBE_VERSION" || die "the built kubelet does not report $KUBE_VERSION"
printf '%s\n' "version $KUBE_VERSION" "go $go_version" "ldflags $ldflags" "seconds $((SECONDS - started))" >"$tmp/build-info"
touch "$tmp/complete"
rm -rf "$out"
mv "$tmp" "$out"
# Binaries of other keys are of no further use.
find "$KUBE_CACHE" -mindepth 1 -maxdepth 1 -type d -name 'v*-*' ! -name '*.tmp' ! -name "$(basename "$out")" -exec rm -rf {} +
log "built Kubernetes $KUBE_VERSION in $((SECONDS - started)) s into $out/bin"
printf '%s\n' "$out/bin"
