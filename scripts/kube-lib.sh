# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are used by the scripts that source this file
# Shared settings and helpers of scripts/kube-up.sh and scripts/kube-down.sh. Source it after
# lib.sh; do not run it.

# The Kubernetes release whose components are built from the Go module k8s.io/kubernetes.
# Stay on 1.34: from 1.35 on the kubelet refuses cgroup v1 hosts by default.
KUBE_VERSION="${SWEBENCH_KUBE_VERSION:-v1.34.4}"

# Everything the cluster keeps while it runs: certificates, kubeconfigs, etcd data, the
# containerd root (which keeps imported images across kube-down/kube-up), the kubelet root,
# pid files and logs. Not in the repository.
KUBE_DIR="${SWEBENCH_KUBE_DIR:-/var/lib/swebench-run-kube}"
# The built binaries, one directory per (version, Go version, ldflags) key.
KUBE_CACHE="${SWEBENCH_KUBE_CACHE:-$CACHE_DIR/kube}"

KUBECONFIG_PATH="$KUBE_DIR/admin.kubeconfig"
KUBE_LOCK="$KUBE_DIR/lock" # held by kube-up and kube-down while they work
# Held shared by every test process that uses the cluster (kubeenv/kubetest); kube-down and a
# kube-up that would replace the cluster take it exclusively, so they never pull a cluster from
# under tests that still use it.
KUBE_USERS_LOCK="$KUBE_DIR/users.lock"
KUBE_PKI="$KUBE_DIR/pki"
KUBE_CNI_CONF="$KUBE_DIR/cni/net.d"
KUBE_IMPORTED="$KUBE_DIR/containerd/imported" # the Docker image id last imported, per image
KUBE_RUN="$KUBE_DIR/run"   # pid files and sockets
KUBE_LOGS="$KUBE_DIR/logs" # one log per process
KUBE_SAVED_SYSCTLS="$KUBE_DIR/sysctls.saved"
CONTAINERD_SOCK="$KUBE_RUN/containerd.sock"
CONTAINERD_ROOT="$KUBE_DIR/containerd/root"
CONTAINERD_STATE="$KUBE_RUN/containerd-state"
KUBELET_ROOT="$KUBE_DIR/kubelet"
# The CNI bridge of the cluster's pods and its subnet: distinct from docker0 (172.17/16) and
# from the second test engine's swbr-test0 (172.31.254/24).
KUBE_BRIDGE="${SWEBENCH_KUBE_BRIDGE:-swkube0}"
KUBE_POD_SUBNET="${SWEBENCH_KUBE_POD_SUBNET:-10.244.77.0/24}"
KUBE_SERVICE_RANGE="10.96.0.0/24"
KUBE_FIRST_SERVICE_IP="10.96.0.1"
KUBE_NODE_NAME="${SWEBENCH_KUBE_NODE:-swebench-run-node}"
# Loopback ports: etcd client and peer, API server.
ETCD_CLIENT_PORT="${SWEBENCH_KUBE_ETCD_PORT:-23790}"
ETCD_PEER_PORT=$((ETCD_CLIENT_PORT + 1))
KUBE_APISERVER_PORT="${SWEBENCH_KUBE_APISERVER_PORT:-16443}"
# The processes kube-up starts, in start order; kube-down stops them in reverse.
KUBE_PROCS=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet)
# The kernel settings the kubelet rewrites at start (kubelet's setupKernelTunables and
# the key quotas) and the CNI bridge plugin (ip_forward): saved before the kubelet starts, restored by kube-down.
KUBE_SYSCTLS=(
	vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
	kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward
)

# Host paths outside KUBE_DIR that the kubelet or the controller manager create whatever their
# flags say (the device plugin socket's directory, the flex volume default, the container log
# links). kube-up lists
# those that did not exist in KUBE_HOST_PATHS; kube-down removes them.
KUBELET_HOST_PATHS=(/var/lib/kubelet /usr/libexec/kubernetes /var/log/containers /var/log/pods)
KUBE_HOST_PATHS="$KUBE_DIR/host-paths.created"

# alive PID: the process exists and is not a zombie (this machine's PID 1 reaps orphans only
# every second or so, and the daemons are its children).
alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}

# pid_of NAME: the pid in the pid file of one of KUBE_PROCS when that process still runs and
# is still that program (a pid file that outlived a reboot may name an unrelated process).
pid_of() {
	local pid argv0
	pid=$(cat "$KUBE_RUN/$1.pid" 2>/dev/null || true)
	[[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 0
	argv0=$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | head -n1) || return 0
	[[ ${argv0##*/} == "$1" ]] && printf '%s\n' "$pid"
	return 0
}

# strays: the pids of processes of a test cluster that run under KUBE_DIR but that no pid file
# names: those of an earlier start that crashed or was killed (a test binary that died on go
# test's timeout, a pid file lost with its directory). Found by their command line: one of
# KUBE_PROCS or a containerd shim, with KUBE_DIR in its arguments (every process of the cluster
# names its config, data, certificates or socket there). Prints "pid name" lines.
strays() {
	local dir cmd argv0 name pid known=" "
	for name in "${KUBE_PROCS[@]}"; do
		pid=$(pid_of "$name")
		[[ -n $pid ]] && known+="$pid "
	done
	for dir in /proc/[0-9]*; do
		pid=${dir#/proc/}
		[[ $known == *" $pid "* ]] && continue
		cmd=$(tr '\0' '\n' 2>/dev/null <"$dir/cmdline") || continue
		[[ -n $cmd ]] || continue
		argv0=$(head -n1 <<<"$cmd")
		name=${argv0##*/}
		case " ${KUBE_PROCS[*]} " in
		*" $name "*) ;;
		*) [[ $name == containerd-shim* ]] || continue ;;
		esac
		grep -qF -- "$KUBE_DIR/" <<<"$cmd" || continue
		alive "$pid" && printf '%s %s\n' "$pid" "$name"
	done
	return 0
}

# users: the pids that hold KUBE_USERS_LOCK (test processes using the cluster), space separated.
users() {
	[[ -e $KUBE_USERS_LOCK ]] || return 0
	local inode
	inode=$(stat -c %i "$KUBE_USERS_LOCK" 2>/dev/null) || return 0
	# /proc/locks: "1: FLOCK  ADVISORY  READ 1234 fd:01:5678 0 EOF"; the inode is the last field of MAJ:MIN:INODE.
	awk -v ino="$inode" '$2 == "FLOCK" { split($6, a, ":"); if (a[3] == ino) print $5 }' /proc/locks | sort -un | paste -sd' ' -
}

# kube_bin: the directory of the binaries the running cluster was started from.
kube_bin() { cat "$KUBE_DIR/bin-dir" 2>/dev/null || true; }

# kctl ARGS...: kubectl (the one built with the cluster) as the cluster admin.
kctl() { "$(kube_bin)/kubectl" --kubeconfig "$KUBECONFIG_PATH" --request-timeout 20s "$@"; }

# kctr ARGS...: ctr on the cluster's containerd, in the CRI namespace.
kctr() { ctr --address "$CONTAINERD_SOCK" --namespace k8s.io "$@"; }
