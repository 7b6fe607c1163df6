#!/usr/bin/env bash
# Starts a local image registry (Debian's docker-registry, i.e. distribution v2) on
# 127.0.0.1:PORT, for the pull tests of dockerenv. The Docker engine treats registries on
# 127.0.0.0/8 as insecure, so plain http works without any daemon configuration.
# Idempotent: when a registry started by this script already answers on PORT, it does nothing.
#
# Usage: scripts/start-registry.sh [--port PORT] [--dir DIR] [--stop]
# Prints the registry's address (127.0.0.1:PORT) on stdout. DIR (default
# /tmp/swebench-run-registry-PORT) holds the config, the storage, the pid file and registry.log,
# the access log (one line per request: tests count manifest GETs in it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
source "$here/lib.sh"

port=5055
dir=""
action=start
while [[ $# -gt 0 ]]; do
	case "$1" in
	--port)
		port=${2:?--port needs a value}
		shift 2
		;;
	--dir)
		dir=${2:?--dir needs a value}
		shift 2
		;;
	--stop)
		action=stop
		shift
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument '$1' (usage: $0 [--port PORT] [--dir DIR] [--stop])" ;;
	esac
done
[[ $port =~ ^[0-9]+$ ]] || die "--port $port: want a number"
dir=${dir:-/tmp/swebench-run-registry-$port}
pidfile="$dir/registry.pid"
addr="127.0.0.1:$port"

answers() { curl -fsS -o /dev/null "http://$addr/v2/" 2>/dev/null; }
running() { [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

if [[ $action == stop ]]; then
	if running; then
		pid=$(cat "$pidfile")
		kill "$pid"
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
	fi
	rm -f "$pidfile"
	exit 0
fi

need docker-registry curl
if running && answers; then
	printf '%s\n' "$addr"
	exit 0
fi
mkdir -p "$dir/storage"
cat >"$dir/config.yml" <<YAML
version: 0.1
log:
  level: info
  formatter: text
storage:
  filesystem:
    rootdirectory: $dir/storage
  delete:
    enabled: true
http:
  addr: $addr
YAML
setsid nohup docker-registry serve "$dir/config.yml" >>"$dir/registry.log" 2>&1 </dev/null &
echo $! >"$pidfile"
for _ in $(seq 1 100); do
	answers && break
	running || die "docker-registry exited at start; see $dir/registry.log"
	sleep 0.1
done
answers || die "the registry did not answer on $addr within 10 s; see $dir/registry.log"
printf '%s\n' "$addr"
