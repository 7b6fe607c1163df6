#!/usr/bin/env bash
# Starts a single-node Kubernetes cluster on this machine for the tests and the demo of the
# Kubernetes backend, and prints the path of its admin kubeconfig on stdout (nothing else goes
# to stdout). See docs/kubernetes-test-cluster.md.
#
#   export KUBECONFIG=$(scripts/kube-up.sh)
#
# What it does, as root:
#   1. installs from Debian what is missing (etcd-server, containernetworking-plugins,
#      conntrack, socat, containerd, runc, openssl, gcc, libc6-dev, curl, iptables);
#   2. builds kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kubectl
#      (scripts/kube-build.sh; cached outside the repository, about 4 min cold on an idle 2-core machine, 0 s warm);
#   3. generates a CA, certificates and kubeconfigs (fresh on every start);
#   4. starts its own containerd (own root, state and socket; the Docker engine and its
#      containerd are not touched), etcd (data on a tmpfs), the control plane and the kubelet;
#   5. imports into that containerd, with `docker save | ctr images import`, the images pods
#      may use: its own pause image (scripts/kube-pause.c, FROM scratch), swebench-run/base:bookworm,
#      the demo images of demo/images.tsv (`make images` builds them when missing) and
#      SWEBENCH_KUBE_IMAGES; an image already imported with the same Docker image id is skipped;
#   6. waits for the node to be Ready and for the `default` ServiceAccount.
# Idempotent: with the cluster up and healthy it only re-imports changed images and prints
# the path (about a second); a healthy cluster is never replaced, so clients that hold its
# certificates keep working. After a crash or a half start it says what an earlier start left
# running (processes found by their state directory), runs scripts/kube-down.sh and starts
# again — unless test processes still use the cluster (users.lock), then it stops and names them.
# A failed start is cleaned up the same way (the logs stay in $SWEBENCH_KUBE_DIR/logs).
#
# Usage: scripts/kube-up.sh [--status]   (--status: exit 0 when the cluster is up and healthy, start nothing)
# Environment: SWEBENCH_KUBE_DIR (default /var/lib/swebench-run-kube), SWEBENCH_KUBE_CACHE
#   (default /var/cache/swebench-run/kube), SWEBENCH_KUBE_VERSION (default v1.34.4),
#   SWEBENCH_KUBE_IMAGES (more local Docker images to import, space separated),
#   SWEBENCH_KUBE_NODE_IP (default: the address of the default route's interface),
#   SWEBENCH_KUBE_APISERVER_PORT (default 16443), SWEBENCH_KUBE_ETCD_PORT (default 23790),
#   SWEBENCH_KUBE_BRIDGE (default swkube0), SWEBENCH_KUBE_POD_SUBNET (default 10.244.77.0/24),
#   SWEBENCH_KUBE_NODE (node name, default swebench-run-node), SWEBENCH_KUBE_POD_PIDS_LIMIT
#   (the kubelet's podPidsLimit, the process limit of every pod, default 1024).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$here/lib.sh"
# shellcheck source=scripts/kube-lib.sh
source "$here/kube-lib.sh"

status_only=0
case "${1:-}" in
"") ;;
--status) status_only=1 ;;
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
*) die "unknown argument '$1' (usage: $0 [--status])" ;;
esac

# stdout is for the kubeconfig path only: everything else, ours and the tools', goes to stderr.
exec 3>&1 1>&2

[[ $(id -u) == 0 || $status_only == 1 ]] || die "the test cluster needs root (containerd, kubelet, mounts, network); rerun as root"
if ((!status_only)); then
	mkdir -p "$KUBE_DIR"
	exec 9>"$KUBE_LOCK"
	flock -w 1800 9 || die "another kube-up.sh or kube-down.sh holds $KUBE_LOCK for more than 30 minutes (a cold build takes up to 18)"
fi

t0=$(date +%s.%N)
elapsed() { awk -v now="$(date +%s.%N)" -v t0="$t0" 'BEGIN { printf "%.1f", now - t0 }'; }

# --- packages ------------------------------------------------------------------------------
install_missing() {
	local -a missing=()
	local cmd pkg
	while read -r cmd pkg; do
		[[ -e $cmd ]] || command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
	done <<-'EOF'
		etcd etcd-server
		/usr/lib/cni/bridge containernetworking-plugins
		conntrack conntrack
		socat socat
		containerd containerd
		ctr containerd
		runc runc
		openssl openssl
		gcc gcc
		/usr/lib/x86_64-linux-gnu/libc.a libc6-dev
		curl curl
		iptables iptables
		flock util-linux
	EOF
	((${#missing[@]} == 0)) && return
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
	log "installing from Debian: ${missing[*]}"
	# policy-rc.d (if any) keeps the packages' own services (etcd) from starting.
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; } ||
		die "could not install ${missing[*]}; install them with apt-get and rerun"
}

# --- health --------------------------------------------------------------------------------
node_ready() {
	[[ $(kctl get node "$KUBE_NODE_NAME" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null) == True ]]
}

healthy() {
	local p
	for p in "${KUBE_PROCS[@]}"; do
		[[ -n $(pid_of "$p") ]] || return 1
	done
	[[ -f $KUBECONFIG_PATH && -x $(kube_bin)/kubectl ]] || return 1
	# A kubelet started with other settings (an older kube-up) is restarted.
	grep -qx "podPidsLimit: ${SWEBENCH_KUBE_POD_PIDS_LIMIT:-1024}" "$KUBE_DIR/kubelet.yaml" 2>/dev/null || return 1
	kctl get --raw /readyz >/dev/null 2>&1 && node_ready
}

# --- images --------------------------------------------------------------------------------
PAUSE_IMAGE="swebench-run/kube-pause:v1"
# The name the CRI gives the pause image (docker.io/ is what a short Docker name means).
PAUSE_IMAGE_REF="docker.io/$PAUSE_IMAGE"

build_pause_image() {
	local src="$here/kube-pause.c" cflags="-static -Os -s -Wall -Werror" hash ctx old_id
	hash=$(printf '%s\n' "kube-pause-image-v1" "$cflags" "$(cat "$src")" | hash_stdin)
	if [[ $(image_label "$PAUSE_IMAGE" "$INPUT_HASH_LABEL") == "$hash" ]]; then
		return
	fi
	log "building $PAUSE_IMAGE from $src"
	old_id=$(image_id "$PAUSE_IMAGE")
	ctx=$(mktemp -d)
	# shellcheck disable=SC2086
	gcc $cflags -o "$ctx/pause" "$src" || die "gcc could not build $src (is libc6-dev installed?)"
	"$ctx/pause" -v >/dev/null || die "the built pause program does not run"
	# One file, no builder: an image FROM scratch is a tar of its files.
	tar -C "$ctx" --owner=0 --group=0 --numeric-owner -c pause |
		docker import \
			--change 'ENTRYPOINT ["/pause"]' \
			--change 'USER 65535:65535' \
			--change "LABEL org.swebench-run.image=kube-pause $INPUT_HASH_LABEL=$hash" \
			--message "swebench-run test cluster pause image" \
			- "$PAUSE_IMAGE" >/dev/null || die "docker import of $PAUSE_IMAGE failed"
	rm -rf "$ctx"
	[[ $(image_label "$PAUSE_IMAGE" "$INPUT_HASH_LABEL") == "$hash" ]] || die "built $PAUSE_IMAGE, but its $INPUT_HASH_LABEL label is not $hash"
	# The image this one replaces is of no further use.
	if [[ -n $old_id && $old_id != "$(image_id "$PAUSE_IMAGE")" ]]; then
		docker rmi "$old_id" >/dev/null 2>&1 || true
	fi
}

# The images pods may use: base, demo, pause and SWEBENCH_KUBE_IMAGES.
wanted_images() {
	printf '%s\n' "$PAUSE_IMAGE" "$BASE_IMAGE"
	awk -F'\t' '!/^#/ && NF >= 3 { print $3 }' "$root/demo/images.tsv"
	local img
	for img in ${SWEBENCH_KUBE_IMAGES:-}; do
		[[ ${img##*/} == *:* ]] || img+=":latest"
		printf '%s\n' "$img"
	done
}

# DOCKER_IDS[name:tag]: the Docker engine's image ids, read with one call.
declare -A DOCKER_IDS
load_docker_ids() {
	local ref id
	DOCKER_IDS=()
	while read -r ref id; do
		DOCKER_IDS[$ref]=$id
	done < <(docker images --no-trunc --format '{{.Repository}}:{{.Tag}} {{.ID}}')
}

ensure_docker_images() {
	need_docker
	build_pause_image
	load_docker_ids
	local img make_images=0
	while read -r img; do
		[[ -n ${DOCKER_IDS[$img]:-} ]] && continue
		case "$img" in
		"$BASE_IMAGE" | swebench-run-demo/*) make_images=1 ;;
		*) die "image $img (SWEBENCH_KUBE_IMAGES) is not in the Docker engine; build or pull it first" ;;
		esac
	done < <(wanted_images)
	if ((make_images)); then
		log "base or demo images are missing; running make images"
		make -C "$root" images || die "make images failed; the cluster needs swebench-run/base:bookworm and the demo images"
		load_docker_ids
	fi
}

# import_images: imports the wanted images whose Docker image id differs from the one last
# imported (or that the cluster's containerd lacks), in one `docker save` so shared layers
# are read once.
import_images() {
	local img ref marker todo=()
	local -A present=()
	mkdir -p "$KUBE_IMPORTED"
	for ref in $(kctr images ls -q); do present[$ref]=1; done
	while read -r img; do
		[[ -n ${DOCKER_IDS[$img]:-} ]] || die "image $img is not in the Docker engine"
		marker="$KUBE_IMPORTED/${img//[\/:]/_}"
		if [[ -f $marker && $(<"$marker") == "${DOCKER_IDS[$img]}" && -n ${present[$(full_ref "$img")]:-} ]]; then
			continue
		fi
		todo+=("$img")
	done < <(wanted_images)
	((${#todo[@]} == 0)) && return
	log "importing ${#todo[@]} image(s) into the cluster's containerd: ${todo[*]}"
	docker save "${todo[@]}" | kctr images import - >/dev/null || die "importing ${todo[*]} into the cluster's containerd failed"
	present=()
	for ref in $(kctr images ls -q); do present[$ref]=1; done
	for img in "${todo[@]}"; do
		[[ -n ${present[$(full_ref "$img")]:-} ]] || die "$img is not in the cluster's containerd after the import"
		printf '%s\n' "${DOCKER_IDS[$img]}" >"$KUBE_IMPORTED/${img//[\/:]/_}"
	done
}

# full_ref NAME: the name containerd gives a Docker image name (docker.io/..., :latest).
full_ref() {
	local ref=$1
	[[ ${ref##*/} == *:* ]] || ref+=":latest"
	if [[ $ref != */* ]]; then
		ref="docker.io/library/$ref"
	elif [[ ${ref%%/*} != *.* && ${ref%%/*} != *:* && ${ref%%/*} != localhost ]]; then
		ref="docker.io/$ref"
	fi
	printf '%s\n' "$ref"
}

# --- processes -----------------------------------------------------------------------------
# launch NAME COMMAND...: starts a daemon in its own session (so it outlives this script and
# its caller's process group), logging to $KUBE_LOGS/NAME.log, pid in $KUBE_RUN/NAME.pid.
launch() {
	local name=$1 pid
	shift
	setsid "$@" >"$KUBE_LOGS/$name.log" 2>&1 </dev/null 3>&- 9>&- &
	pid=$!
	printf '%s\n' "$pid" >"$KUBE_RUN/$name.pid"
	# Until the exec, the pid is a copy of this shell, which pid_of does not recognise.
	for _ in $(seq 1 200); do
		[[ -n $(pid_of "$name") ]] && return
		alive "$pid" || break
		sleep 0.05
	done
	tail -n 25 "$KUBE_LOGS/$name.log" >&2 || true
	die "$name did not start (log: $KUBE_LOGS/$name.log)"
}

# wait_until SECONDS WHAT PROC COMMAND...: polls COMMAND until it succeeds; fails with the tail
# of PROC's log when PROC exits or the time is up.
wait_until() {
	local limit=$1 what=$2 proc=$3 deadline
	shift 3
	deadline=$((SECONDS + limit))
	until "$@" >/dev/null 2>&1; do
		if [[ -z $(pid_of "$proc") ]]; then
			tail -n 25 "$KUBE_LOGS/$proc.log" >&2 || true
			die "$proc exited while waiting for $what (log: $KUBE_LOGS/$proc.log)"
		fi
		if ((SECONDS >= deadline)); then
			tail -n 25 "$KUBE_LOGS/$proc.log" >&2 || true
			die "no $what after $limit s (log: $KUBE_LOGS/$proc.log)"
		fi
		sleep 0.1
	done
}

detect_node_ip() {
	if [[ -n ${SWEBENCH_KUBE_NODE_IP:-} ]]; then
		printf '%s\n' "$SWEBENCH_KUBE_NODE_IP"
		return
	fi
	local dev ip
	dev=$(ip -4 route show default | awk '{ for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit } }')
	[[ -n $dev ]] && ip=$(ip -4 -o addr show dev "$dev" scope global | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
	[[ -n ${ip:-} ]] || die "found no IPv4 address on the default route's interface; set SWEBENCH_KUBE_NODE_IP to an address of this machine (not loopback)"
	printf '%s\n' "$ip"
}

# --- certificates --------------------------------------------------------------------------
# new_cert NAME SUBJECT EXTENSIONS: an EC P-256 key and a certificate signed by the cluster CA.
new_cert() {
	local name=$1 subject=$2 ext=$3
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$KUBE_PKI/$name.key" 2>/dev/null
	openssl req -new -key "$KUBE_PKI/$name.key" -subj "$subject" -out "$KUBE_PKI/$name.csr"
	printf '%s\n' "$ext" >"$KUBE_PKI/$name.ext"
	openssl x509 -req -in "$KUBE_PKI/$name.csr" -CA "$KUBE_PKI/ca.crt" -CAkey "$KUBE_PKI/ca.key" \
		-set_serial "0x$(openssl rand -hex 12)" -days 3650 -extfile "$KUBE_PKI/$name.ext" \
		-out "$KUBE_PKI/$name.crt" 2>/dev/null || die "openssl could not sign the $name certificate"
	rm -f "$KUBE_PKI/$name.csr" "$KUBE_PKI/$name.ext"
}

# write_kubeconfig FILE USER CERT-NAME: a self-contained kubeconfig (certificates inline).
write_kubeconfig() {
	local file=$1 user=$2 name=$3
	cat >"$file.tmp" <<-EOF
		apiVersion: v1
		kind: Config
		clusters:
		- name: swebench-run
		  cluster:
		    server: https://127.0.0.1:$KUBE_APISERVER_PORT
		    certificate-authority-data: $(base64 -w0 "$KUBE_PKI/ca.crt")
		users:
		- name: $user
		  user:
		    client-certificate-data: $(base64 -w0 "$KUBE_PKI/$name.crt")
		    client-key-data: $(base64 -w0 "$KUBE_PKI/$name.key")
		contexts:
		- name: swebench-run
		  context:
		    cluster: swebench-run
		    user: $user
		    namespace: default
		current-context: swebench-run
	EOF
	chmod 600 "$file.tmp"
	mv "$file.tmp" "$file"
}

make_pki() {
	local node_ip=$1
	rm -rf "$KUBE_PKI"
	mkdir -p "$KUBE_PKI"
	chmod 700 "$KUBE_PKI"
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$KUBE_PKI/ca.key" 2>/dev/null
	openssl req -x509 -new -key "$KUBE_PKI/ca.key" -subj "/CN=swebench-run-kube-ca" -days 3650 \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
		-out "$KUBE_PKI/ca.crt" || die "openssl could not make the cluster CA"
	local leaf="basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature"
	new_cert apiserver "/CN=kube-apiserver" "$leaf
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:$KUBE_FIRST_SERVICE_IP,IP:$node_ip,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
	new_cert admin "/O=system:masters/CN=swebench-run-admin" "$leaf
extendedKeyUsage=clientAuth"
	new_cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "$leaf
extendedKeyUsage=clientAuth"
	new_cert kubelet-client "/O=system:nodes/CN=system:node:$KUBE_NODE_NAME" "$leaf
extendedKeyUsage=clientAuth"
	new_cert kubelet-server "/CN=$KUBE_NODE_NAME" "$leaf
extendedKeyUsage=serverAuth
subjectAltName=IP:$node_ip,DNS:$KUBE_NODE_NAME"
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$KUBE_PKI/sa.key" 2>/dev/null
	openssl pkey -in "$KUBE_PKI/sa.key" -pubout -out "$KUBE_PKI/sa.pub" 2>/dev/null
	write_kubeconfig "$KUBECONFIG_PATH" swebench-run-admin admin
	write_kubeconfig "$KUBE_DIR/kubelet.kubeconfig" "system:node:$KUBE_NODE_NAME" kubelet-client
}

# --- configuration files -------------------------------------------------------------------
write_containerd_config() {
	mkdir -p "$KUBE_DIR/containerd" "$KUBE_CNI_CONF"
	cat >"$KUBE_DIR/containerd/config.toml" <<-EOF
		# Generated by scripts/kube-up.sh: the test cluster's own containerd.
		version = 2
		root = "$CONTAINERD_ROOT"
		state = "$CONTAINERD_STATE"
		disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

		[grpc]
		  address = "$CONTAINERD_SOCK"

		[ttrpc]
		  address = "$CONTAINERD_SOCK.ttrpc"

		[plugins."io.containerd.internal.v1.opt"]
		  path = "$KUBE_DIR/containerd/opt"

		[plugins."io.containerd.grpc.v1.cri"]
		  sandbox_image = "$PAUSE_IMAGE_REF"
		  # Without it runc fails ("can't get final child's PID from pipe: EOF"): this machine
		  # lacks CAP_SYS_RESOURCE, so oom_score_adj may not be lowered.
		  restrict_oom_score_adj = true
		  # Network namespaces under the state directory, so kube-down finds exactly ours.
		  netns_mounts_under_state_dir = true
		  stream_server_address = "127.0.0.1"
		  stream_server_port = "0"

		  [plugins."io.containerd.grpc.v1.cri".containerd]
		    snapshotter = "overlayfs"
		    default_runtime_name = "runc"

		    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
		      runtime_type = "io.containerd.runc.v2"

		      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
		        SystemdCgroup = false

		  [plugins."io.containerd.grpc.v1.cri".cni]
		    bin_dir = "/usr/lib/cni"
		    conf_dir = "$KUBE_CNI_CONF"
		    max_conf_num = 1

		  # Registry hosts: see certs.d below.
		  [plugins."io.containerd.grpc.v1.cri".registry]
		    config_path = "$KUBE_DIR/containerd/certs.d"
	EOF
	# No pull leaves this machine: the registries images are commonly named after resolve to
	# a closed port on loopback, so pulling an image that was not imported fails at once
	# (ErrImagePull, then ImagePullBackOff) instead of reaching out.
	local host
	rm -rf "$KUBE_DIR/containerd/certs.d"
	for host in docker.io registry.k8s.io k8s.gcr.io gcr.io quay.io ghcr.io registry.gitlab.com public.ecr.aws mcr.microsoft.com; do
		mkdir -p "$KUBE_DIR/containerd/certs.d/$host"
		printf 'server = "http://127.0.0.1:1"\n\n[host."http://127.0.0.1:1"]\n  capabilities = ["pull", "resolve"]\n' \
			>"$KUBE_DIR/containerd/certs.d/$host/hosts.toml"
	done
	# The pods' network: a bridge of our own with host-local addresses, no masquerading (pods
	# have no business outside this machine). The CRI adds the loopback interface itself.
	cat >"$KUBE_CNI_CONF/10-swebench-run.conflist" <<-EOF
		{
		  "cniVersion": "0.4.0",
		  "name": "swebench-run-kube",
		  "plugins": [
		    {
		      "type": "bridge",
		      "bridge": "$KUBE_BRIDGE",
		      "isGateway": true,
		      "ipMasq": false,
		      "hairpinMode": true,
		      "ipam": {
		        "type": "host-local",
		        "dataDir": "$KUBE_DIR/cni/ipam",
		        "ranges": [[{ "subnet": "$KUBE_POD_SUBNET" }]],
		        "routes": [{ "dst": "0.0.0.0/0" }]
		      }
		    }
		  ]
		}
	EOF
}

write_kubelet_config() {
	local node_ip=$1
	cat >"$KUBE_DIR/kubelet.yaml" <<-EOF
		# Generated by scripts/kube-up.sh.
		apiVersion: kubelet.config.k8s.io/v1beta1
		kind: KubeletConfiguration
		address: $node_ip
		port: 10250
		readOnlyPort: 0
		healthzBindAddress: 127.0.0.1
		healthzPort: 10248
		authentication:
		  anonymous:
		    enabled: false
		  webhook:
		    enabled: false
		  x509:
		    clientCAFile: $KUBE_PKI/ca.crt
		# Only holders of a certificate of the cluster CA get past authentication.
		authorization:
		  mode: AlwaysAllow
		tlsCertFile: $KUBE_PKI/kubelet-server.crt
		tlsPrivateKeyFile: $KUBE_PKI/kubelet-server.key
		cgroupDriver: cgroupfs
		containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
		podLogsDir: $KUBE_DIR/pod-logs
		volumePluginDir: $KUBE_DIR/volume-plugins
		failSwapOn: false
		serializeImagePulls: false
		# Never collect the imported images (nothing could pull them back), and evict only when
		# the machine is really short: test machines have small disks.
		imageGCHighThresholdPercent: 100
		imageGCLowThresholdPercent: 99
		evictionHard:
		  memory.available: 100Mi
		  nodefs.available: 1%
		  nodefs.inodesFree: 1%
		  imagefs.available: 1%
		  imagefs.inodesFree: 1%
		clusterDomain: cluster.local
		resolvConf: /etc/resolv.conf
		maxPods: 110
		# Every pod's processes (threads included) are bounded, as Docker's --pids-limit bounds a
		# container's: a fork bomb in a pod fills its own limit, not the machine's pid space
		# (kernel.pid_max is 32768 here). Kubernetes has no per-pod setting: this is the one
		# limit of the node's pods; 1024 is ample for the test and demo images.
		podPidsLimit: ${SWEBENCH_KUBE_POD_PIDS_LIMIT:-1024}
	EOF
}

# --- start ---------------------------------------------------------------------------------
start_cluster() {
	local bin=$1 node_ip
	node_ip=$(detect_node_ip)
	mkdir -p "$KUBE_RUN" "$KUBE_LOGS" "$KUBE_DIR/etcd" "$KUBE_DIR/cni/ipam" "$KUBE_DIR/pod-logs" "$KUBE_DIR/volume-plugins" "$KUBELET_ROOT"
	make_pki "$node_ip"
	write_containerd_config
	write_kubelet_config "$node_ip"

	# Host paths the kubelet and the controller manager create whatever their flags say;
	# kube-down removes those that did not exist before.
	if [[ ! -f $KUBE_HOST_PATHS ]]; then
		local p
		for p in "${KUBELET_HOST_PATHS[@]}"; do
			[[ -e $p ]] || printf '%s\n' "$p"
		done >"$KUBE_HOST_PATHS"
	fi

	log "starting containerd on $CONTAINERD_SOCK (node IP $node_ip)"
	launch containerd containerd --config "$KUBE_DIR/containerd/config.toml"
	wait_until 30 "answer from containerd" containerd ctr --address "$CONTAINERD_SOCK" version
	# Containers left by a crash: the pods they belonged to are gone with etcd.
	local c
	for c in $(kctr containers ls -q); do
		kctr tasks delete --force "$c" >/dev/null 2>&1 || true
		kctr containers delete "$c" >/dev/null 2>&1 || true
	done
	import_images &
	local import_pid=$!

	# etcd's data lives as long as the cluster: a tmpfs spares it the disk's fsync latency.
	mount -t tmpfs -o size=1g,mode=0700 swebench-run-kube-etcd "$KUBE_DIR/etcd"
	launch etcd etcd --name swebench-run --data-dir "$KUBE_DIR/etcd/data" \
		--listen-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
		--listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
		--initial-cluster "swebench-run=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
		--logger zap --log-level warn
	wait_until 30 "healthy etcd" etcd curl -fsS "http://127.0.0.1:$ETCD_CLIENT_PORT/health"

	launch kube-apiserver "$bin/kube-apiserver" \
		--etcd-servers "http://127.0.0.1:$ETCD_CLIENT_PORT" \
		--bind-address 127.0.0.1 --secure-port "$KUBE_APISERVER_PORT" --advertise-address "$node_ip" \
		--service-cluster-ip-range "$KUBE_SERVICE_RANGE" \
		--client-ca-file "$KUBE_PKI/ca.crt" \
		--tls-cert-file "$KUBE_PKI/apiserver.crt" --tls-private-key-file "$KUBE_PKI/apiserver.key" \
		--kubelet-client-certificate "$KUBE_PKI/apiserver-kubelet-client.crt" \
		--kubelet-client-key "$KUBE_PKI/apiserver-kubelet-client.key" \
		--kubelet-certificate-authority "$KUBE_PKI/ca.crt" \
		--kubelet-preferred-address-types InternalIP \
		--service-account-issuer https://kubernetes.default.svc.cluster.local \
		--service-account-key-file "$KUBE_PKI/sa.pub" \
		--service-account-signing-key-file "$KUBE_PKI/sa.key" \
		--authorization-mode Node,RBAC \
		--enable-admission-plugins NodeRestriction \
		--profiling=false
	wait_until 60 "ready API server" kube-apiserver kctl get --raw /readyz

	launch kube-controller-manager "$bin/kube-controller-manager" \
		--kubeconfig "$KUBECONFIG_PATH" --leader-elect=false --secure-port 0 \
		--controllers '*,-nodeipam,-service-lb-controller,-cloud-node-lifecycle-controller' \
		--service-account-private-key-file "$KUBE_PKI/sa.key" --root-ca-file "$KUBE_PKI/ca.crt" \
		--use-service-account-credentials=false --profiling=false \
		--flex-volume-plugin-dir "$KUBE_DIR/volume-plugins"
	launch kube-scheduler "$bin/kube-scheduler" \
		--kubeconfig "$KUBECONFIG_PATH" --leader-elect=false --secure-port 0 --profiling=false

	# The kubelet rewrites kernel settings at start; kube-down puts them back.
	if [[ ! -f $KUBE_SAVED_SYSCTLS ]]; then
		local s
		for s in "${KUBE_SYSCTLS[@]}"; do
			printf '%s=%s\n' "$s" "$(sysctl -n "$s")"
		done >"$KUBE_SAVED_SYSCTLS.tmp"
		mv "$KUBE_SAVED_SYSCTLS.tmp" "$KUBE_SAVED_SYSCTLS"
	fi
	launch kubelet "$bin/kubelet" \
		--config "$KUBE_DIR/kubelet.yaml" --kubeconfig "$KUBE_DIR/kubelet.kubeconfig" \
		--hostname-override "$KUBE_NODE_NAME" --node-ip "$node_ip" \
		--root-dir "$KUBELET_ROOT" --cert-dir "$KUBELET_ROOT/pki"
	wait_until 120 "Ready node $KUBE_NODE_NAME" kubelet node_ready
	log "node $KUBE_NODE_NAME Ready after $(elapsed) s"
	wait_until 60 "default ServiceAccount" kube-controller-manager kctl -n default get serviceaccount default
	for p in kube-controller-manager kube-scheduler; do
		[[ -n $(pid_of "$p") ]] || die "$p exited (log: $KUBE_LOGS/$p.log)"
	done
	wait "$import_pid" || die "importing the images into the cluster's containerd failed"
}

# --- main ----------------------------------------------------------------------------------
if ((status_only)); then
	# Exit status only: 0 when the cluster is up and healthy (nothing is started or changed). A
	# cluster that is not up but whose processes of an earlier start still run is named.
	[[ -f $KUBE_DIR/bin-dir ]] && healthy && exit 0
	left=$(strays | awk '{printf "%s%s (%s)", (NR > 1 ? ", " : ""), $2, $1}')
	[[ -z $left ]] || log "not up, but processes of an earlier start that crashed or was killed hold $KUBE_DIR: $left (scripts/kube-down.sh stops them; kube-up.sh does before it starts)"
	exit 1
fi
install_missing
ensure_docker_images

if [[ -f $KUBE_DIR/bin-dir ]] && healthy; then
	import_images
	log "the cluster is up (kubeconfig $KUBECONFIG_PATH)"
	printf '%s\n' "$KUBECONFIG_PATH" >&3
	exit 0
fi

bin=$("$here/kube-build.sh")
[[ -x $bin/kube-apiserver ]] || die "scripts/kube-build.sh printed '$bin', which holds no kube-apiserver"
t0=$(date +%s.%N)
# Whatever a crash or a half start left behind goes first, unless tests still use it.
holders=$(users)
running=$(strays)
for p in "${KUBE_PROCS[@]}"; do
	[[ -z $(pid_of "$p") ]] || running+=" $p"
done
if [[ -n $holders && -n ${running// /} ]]; then
	die "the test cluster is not healthy, but test processes use it (pids $holders, holding $KUBE_USERS_LOCK); replacing it would leave them with the old cluster's certificates. Let them finish (or stop them), then rerun"
fi
left=$(strays)
if [[ -n $left ]]; then
	log "an earlier start that crashed or was killed left $(wc -l <<<"$left") process(es) holding $KUBE_DIR: $(awk '{ printf "%s%s (%s)", sep, $2, $1; sep = ", " }' <<<"$left"); stopping them"
elif [[ -d $KUBE_RUN ]]; then
	log "cleaning up after an earlier start that did not finish or stopped"
fi
flock -u 9
"$here/kube-down.sh" || die "cleaning up the previous cluster failed"
flock -w 1800 9 || die "another kube-up.sh or kube-down.sh holds $KUBE_LOCK"
printf '%s\n' "$bin" >"$KUBE_DIR/bin-dir"

on_failure() {
	log "the start failed; cleaning up (logs stay in $KUBE_LOGS)"
	flock -u 9
	"$here/kube-down.sh" || true
}
trap on_failure EXIT
start_cluster "$bin"
trap - EXIT
log "cluster up in $(elapsed) s; kubeconfig $KUBECONFIG_PATH, API server https://127.0.0.1:$KUBE_APISERVER_PORT"
printf '%s\n' "$KUBECONFIG_PATH" >&3
