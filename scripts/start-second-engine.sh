#!/usr/bin/env bash
# Starts a second Docker engine on this machine, for the multi-host tests of dockerenv: its own
# dockerd with its own socket, data root, exec root, pid file, config and bridge (swbr-test0;
# nothing touches the first engine's iptables or its docker0 bridge). Idempotent: when the engine already answers, it does nothing.
#
# The engine gets the base image (swebench-run/base:bookworm) from the first engine with
# `docker save | docker load`, once, so tests can start containers on it without a registry.
#
# Usage: scripts/start-second-engine.sh [--stop | --status]
# Prints the engine's address (unix:///run/swebench-run-test/docker.sock) on stdout.
# --stop stops it (its containers stop with it) and removes its bridge; its data root (the copied
# base image) stays for the next start. --status exits 0 when it answers, 1 when not.
# Environment: SWEBENCH_TEST_ENGINE_DIR (default /run/swebench-run-test) for socket, pid, exec
#              root and log; SWEBENCH_TEST_ENGINE_DATA (default /var/lib/swebench-run-test)
#              for images; SWEBENCH_TEST_ENGINE_STORAGE (default: the first engine's driver).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
source "$here/lib.sh"

dir="${SWEBENCH_TEST_ENGINE_DIR:-/run/swebench-run-test}"
data="${SWEBENCH_TEST_ENGINE_DATA:-/var/lib/swebench-run-test}"
sock="$dir/docker.sock"
host="unix://$sock"
pidfile="$dir/docker.pid"
logfile="$dir/dockerd.log"
# Its own bridge: with `--bridge none` dockerd deletes the interface docker0, which breaks the
# networking of the first engine on this machine.
bridge=swbr-test0

answers() { docker -H "$host" info >/dev/null 2>&1; }

stop() {
	local pid
	pid=$(cat "$pidfile" 2>/dev/null || true)
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		for _ in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
	fi
	rm -f "$pidfile"
	if ip link show "$bridge" >/dev/null 2>&1; then
		ip link delete "$bridge" 2>/dev/null || log "could not remove the bridge $bridge"
	fi
	log "second engine stopped"
}

case "${1:-}" in
"") ;;
--stop)
	stop
	exit 0
	;;
--status)
	answers
	exit
	;;
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
*) die "unknown argument '$1' (usage: $0 [--stop | --status])" ;;
esac

need dockerd
need_docker

if ! answers; then
	mkdir -p "$dir/exec" "$data"
	storage="${SWEBENCH_TEST_ENGINE_STORAGE:-$(docker info --format '{{.Driver}}')}"
	# Its own config file: dockerd reads /etc/docker/daemon.json by default, whose data-root
	# would conflict with ours.
	printf '{"storage-driver": "%s", "log-driver": "json-file", "log-opts": {"max-size": "10m"}}\n' "$storage" >"$dir/daemon.json"
	if ! ip link show "$bridge" >/dev/null 2>&1; then
		ip link add "$bridge" type bridge
		ip addr add 172.31.254.1/24 dev "$bridge"
		ip link set "$bridge" up
	fi
	# A stale pid file of a dead dockerd blocks the start.
	if [[ -f $pidfile ]] && ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then rm -f "$pidfile"; fi
	log "starting dockerd on $host (data root $data, storage $storage, log $logfile)"
	setsid nohup dockerd \
		--config-file "$dir/daemon.json" \
		--host "$host" \
		--data-root "$data" \
		--exec-root "$dir/exec" \
		--pidfile "$pidfile" \
		--bridge "$bridge" \
		--iptables=false \
		--ip-masq=false \
		>"$logfile" 2>&1 </dev/null &
	for _ in $(seq 1 150); do
		answers && break
		sleep 0.2
	done
	answers || die "the second engine did not answer within 30 s; see $logfile"
fi

if [[ -z $(docker -H "$host" image inspect --format '{{.Id}}' "$BASE_IMAGE" 2>/dev/null || true) ]]; then
	[[ -n $(image_id "$BASE_IMAGE") ]] || die "$BASE_IMAGE is missing on the first engine; run scripts/build-base-image.sh"
	log "copying $BASE_IMAGE to the second engine"
	docker save "$BASE_IMAGE" | docker -H "$host" load >/dev/null
fi
printf '%s\n' "$host"
