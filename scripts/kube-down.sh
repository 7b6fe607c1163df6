#!/usr/bin/env bash
# Stops the test cluster of scripts/kube-up.sh and undoes what it changed on this machine:
#   - deletes every pod through the API (so the kubelet tears their networks down), then
#     stops the kubelet, scheduler, controller manager, API server and etcd by the pids kube-up
#     recorded; kills and deletes what is left in its containerd, then stops that containerd;
#   - kills what still runs in the kubelet's cgroups (/kubepods) and the shims of its
#     containerd (found by its socket), removes those cgroups;
#   - unmounts everything under $SWEBENCH_KUBE_DIR (etcd's tmpfs, pod volumes, container root
#     filesystems, the pods' network namespaces), deletes the CNI bridge and its veths;
#   - restores the kernel settings the kubelet rewrote, removes the kubelet's iptables
#     canary chains and its /var/log/containers links.
# Kept for the next start: the containerd root (imported images), the logs and the build cache.
# The Docker engine, its containerd, docker0 and other bridges are not touched.
# Idempotent: with nothing running it only checks that nothing is left. Prints nothing on stdout.
#
# Processes are found by their pid files and, for those of an earlier start that crashed or was
# killed, by their command lines (a cluster process whose arguments name $SWEBENCH_KUBE_DIR).
# While test processes use the cluster (they hold $SWEBENCH_KUBE_DIR/users.lock) it refuses to
# stop it, naming them; --force stops it all the same.
#
# Usage: scripts/kube-down.sh [--force]
# Environment: SWEBENCH_KUBE_DIR (default /var/lib/swebench-run-kube), SWEBENCH_KUBE_BRIDGE.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
source "$here/lib.sh"
# shellcheck source=scripts/kube-lib.sh
source "$here/kube-lib.sh"

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

exec 1>&2
[[ $(id -u) == 0 ]] || die "stopping the test cluster needs root; rerun as root"
if [[ ! -d $KUBE_DIR ]]; then
	exit 0
fi
exec 9>"$KUBE_LOCK"
flock -w 1800 9 || die "another kube-up.sh or kube-down.sh holds $KUBE_LOCK for more than 30 minutes"
# No test process may be using the cluster: they hold the users lock shared.
exec 8>>"$KUBE_USERS_LOCK"
running=$(strays)
for p in "${KUBE_PROCS[@]}"; do
	[[ -z $(pid_of "$p") ]] || running+=" $p"
done
# Test processes that hold the lock while nothing of the cluster runs use nothing of it.
if [[ -n ${running// /} ]] && ! flock -n -x 8; then
	holders=$(users)
	if ((force)); then
		log "stopping the cluster although test processes use it (--force): ${holders:-unknown}"
	else
		die "test processes use the cluster (pids ${holders:-unknown}, holding $KUBE_USERS_LOCK); let them finish or stop them, or pass --force"
	fi
fi

# stop_pid NAME PID: SIGTERM, up to 15 s, then SIGKILL.
stop_pid() {
	local name=$1 pid=$2
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 300); do
		alive "$pid" || break
		sleep 0.05
	done
	if alive "$pid"; then
		log "$name ($pid) ignored SIGTERM for 15 s; killing it"
		kill -9 "$pid" 2>/dev/null || true
		sleep 0.2
	fi
}

# STRAYS: the processes of an earlier start that no pid file names ("pid name" lines).
STRAYS=$(strays)
if [[ -n $STRAYS ]]; then
	log "found $(wc -l <<<"$STRAYS") process(es) of an earlier start that crashed or was killed: $(awk '{ printf "%s%s (%s)", sep, $2, $1; sep = ", " }' <<<"$STRAYS")"
fi

# stop_proc NAME: the process of NAME's pid file (only when it still runs that program), and
# every stray process of that program.
stop_proc() {
	local name=$1 pid
	pid=$(pid_of "$name")
	if [[ -n $pid ]]; then
		stop_pid "$name" "$pid"
		log "stopped $name ($pid)"
	fi
	for pid in $(awk -v n="$name" '$2 == n { print $1 }' <<<"$STRAYS"); do
		alive "$pid" || continue
		stop_pid "$name" "$pid"
		log "stopped $name ($pid) of an earlier start"
	done
	rm -f "$KUBE_RUN/$name.pid"
}

# 1. Pods: deleted through the API while the kubelet runs, so it stops their sandboxes and
# the CRI tears their networks down.
if [[ -n $(pid_of kube-apiserver) && -n $(pid_of kubelet) && -x $(kube_bin)/kubectl ]] &&
	kctl get --raw /readyz >/dev/null 2>&1; then
	if [[ -n $(kctl get pods --all-namespaces -o name 2>/dev/null) ]]; then
		log "deleting all pods"
		kctl delete pods --all --all-namespaces --grace-period=1 --wait=false >/dev/null 2>&1 || true
		for _ in $(seq 1 300); do
			[[ -z $(kctl get pods --all-namespaces -o name 2>/dev/null) ]] && break
			sleep 0.1
		done
		[[ -z $(kctl get pods --all-namespaces -o name 2>/dev/null) ]] ||
			log "some pods were still terminating after 30 s; removing their containers directly"
	fi
fi

# 2. The Kubernetes processes, in reverse start order (containerd last).
for ((i = ${#KUBE_PROCS[@]} - 1; i >= 1; i--)); do
	stop_proc "${KUBE_PROCS[i]}"
done

# 3. What is left in the cluster's containerd: tasks killed, containers (and their
# snapshots) deleted. The images stay.
if [[ -n $(pid_of containerd) ]] && kctr version >/dev/null 2>&1; then
	for c in $(kctr containers ls -q 2>/dev/null); do
		kctr tasks delete --force "$c" >/dev/null 2>&1 || true
		kctr containers delete "$c" >/dev/null 2>&1 || log "could not delete container $c"
	done
fi
stop_proc containerd

# 4. Processes that outlived their containerd: what runs in the kubelet's cgroups, and the
# shims whose -address is this cluster's socket.
cgroup_roots() { awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts; }
for _ in 1 2 3; do
	pids=$(for r in $(cgroup_roots); do
		if [[ -d $r/kubepods ]]; then find "$r/kubepods" -name cgroup.procs -exec cat {} + 2>/dev/null || true; fi
	done | sort -u)
	pids+=$'\n'$(pgrep -f -- "^[^ ]*containerd-shim[^ ]* .*-address $CONTAINERD_SOCK( |\$)" || true)
	pids=$(printf '%s\n' "$pids" | grep -E '^[0-9]+$' || true)
	[[ -z $pids ]] && break
	log "killing $(wc -l <<<"$pids") leftover container/shim process(es)"
	# shellcheck disable=SC2086
	kill -9 $pids 2>/dev/null || true
	sleep 0.3
done
for r in $(cgroup_roots); do
	if [[ -d $r/kubepods ]]; then
		find "$r/kubepods" -depth -type d -exec rmdir {} + 2>/dev/null || true
		[[ ! -d $r/kubepods ]] || log "could not remove the cgroup $r/kubepods"
	fi
done

# 5. Mounts under the cluster's directory, deepest first: container root filesystems, pod
# volumes, sandbox /dev/shm, network namespaces, etcd's tmpfs, the kubelet's bind mount.
ours() { awk -v d="$KUBE_DIR" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-; }
for _ in 1 2 3; do
	mounts=$(ours)
	[[ -z $mounts ]] && break
	while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done <<<"$mounts"
done
[[ -z $(ours) ]] || log "still mounted: $(ours | tr '\n' ' ')"

# 6. The pods' network: veths on the bridge (their namespaces are gone), then the bridge.
if ip link show "$KUBE_BRIDGE" >/dev/null 2>&1; then
	for l in $(ip -o link show master "$KUBE_BRIDGE" | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		ip link delete "$l" 2>/dev/null || true
	done
	ip link delete "$KUBE_BRIDGE" || log "could not delete the bridge $KUBE_BRIDGE"
	log "deleted the bridge $KUBE_BRIDGE"
fi

# 7. Kernel settings and the kubelet's iptables canaries.
if [[ -f $KUBE_SAVED_SYSCTLS ]]; then
	while IFS='=' read -r key value; do
		[[ -n $key ]] || continue
		[[ $(sysctl -n "$key" 2>/dev/null) == "$value" ]] && continue
		sysctl -q -w "$key=$value" || log "could not restore $key=$value"
	done <"$KUBE_SAVED_SYSCTLS"
	rm -f "$KUBE_SAVED_SYSCTLS"
	log "restored the kernel settings the kubelet changed"
fi
# The kubelet's chains: canaries (mangle, nat, filter), the iptables hint (mangle) and, for IPv4,
# KUBE-FIREWALL (filter; jumped to from INPUT and OUTPUT) that drops non-local packets to
# 127.0.0.0/8.
for ipt in iptables ip6tables; do
	command -v $ipt >/dev/null 2>&1 || continue
	for hook in INPUT OUTPUT; do
		while $ipt -w 5 -t filter -C $hook -j KUBE-FIREWALL >/dev/null 2>&1; do
			$ipt -w 5 -t filter -D $hook -j KUBE-FIREWALL || break
		done
	done
	for table in mangle nat filter; do
		for chain in KUBE-KUBELET-CANARY KUBE-IPTABLES-HINT KUBE-FIREWALL; do
			if $ipt -w 5 -t $table -S $chain >/dev/null 2>&1; then
				if $ipt -w 5 -t $table -F $chain && $ipt -w 5 -t $table -X $chain; then :; else
					log "could not remove the $ipt chain $table/$chain"
				fi
			fi
		done
	done
done

# 8. Files: the host paths the kubelet created, our links in /var/log/containers, and
# everything under KUBE_DIR but the imported images, the logs and the lock.
if [[ -d /var/log/containers ]]; then
	find /var/log/containers -maxdepth 1 -type l -lname "$KUBE_DIR/*" -delete 2>/dev/null || true
fi
if [[ -f $KUBE_HOST_PATHS && -z $(ours) ]]; then
	while read -r p; do
		for known in "${KUBELET_HOST_PATHS[@]}"; do
			if [[ $p == "$known" ]]; then rm -rf "$p"; fi
		done
	done <"$KUBE_HOST_PATHS"
	rm -f "$KUBE_HOST_PATHS"
fi
if [[ -z $(ours) ]]; then
	rm -rf "$KUBE_RUN" "$KUBELET_ROOT" "$KUBE_PKI" "$KUBE_DIR/cni" "$KUBE_DIR/etcd" \
		"$KUBE_DIR/pod-logs" "$KUBE_DIR/volume-plugins" "$KUBE_DIR/containerd/opt" \
		"$KUBECONFIG_PATH" "$KUBE_DIR/kubelet.kubeconfig" "$KUBE_DIR/kubelet.yaml" "$KUBE_DIR/bin-dir"
fi
