package kubeenv

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/swebench-run/swebench-run/sandbox"
)

// Labels and annotations of every pod this tool starts. Label values are limited to 63
// characters of [A-Za-z0-9._-]: a run or instance id that does not fit is shortened and
// suffixed with a hash in the label (see labelValue), and kept exactly in the annotation of
// the same name, which is what a sweep compares. Values with ':' (the owner) live in annotations
// only.
const (
	LabelManagedBy      = "app.kubernetes.io/managed-by" // value ManagedBy
	ManagedBy           = "swebench-run"
	labelPrefix         = "swebench-run/"
	LabelRun            = "swebench-run/run-id"      // label and annotation: the run that started the pod
	LabelInstance       = "swebench-run/instance-id" // label and annotation: the dataset instance it serves
	LabelRole           = "swebench-run/role"        // "agent" or "eval"
	LabelTestSession    = "swebench-run/test-session"
	AnnotationOwner     = "swebench-run/owner"     // hostname:pid of the process that started it
	AnnotationStarted   = "swebench-run/started"   // RFC 3339 start time
	AnnotationHeartbeat = "swebench-run/heartbeat" // RFC 3339 time the owner last said it lives
)

// EnvTestSession, set by the test suite (scripts/test.sh), labels every pod with
// LabelTestSession so that the suite can delete what a killed test binary left (the same
// variable as dockerenv's).
const EnvTestSession = "SWEBENCH_RUN_TEST_SESSION"

// containerName is the name of the pod's only container.
const containerName = "sandbox"

var labelUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// labelValue returns s when it is a valid label value, else a valid one derived from it
// (unsafe characters replaced, shortened, a hash of s appended).
func labelValue(s string) string {
	if len(validation.IsValidLabelValue(s)) == 0 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	v := labelUnsafe.ReplaceAllString(s, "-")
	if len(v) > 50 {
		v = v[:50]
	}
	v = strings.TrimRight(strings.TrimLeft(v, "-_."), "-_.")
	if v == "" {
		return "h" + hex.EncodeToString(sum[:6])
	}
	return v + "-" + hex.EncodeToString(sum[:6])
}

var nameUnsafe = regexp.MustCompile(`[^a-z0-9-]+`)

// podName is swebench-run-INSTANCE-RANDOM, a DNS label (at most 63 characters, so the pod's
// hostname is its name).
func podName(instance string) string {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	s := strings.Trim(nameUnsafe.ReplaceAllString(strings.ToLower(instance), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "instance"
	}
	return "swebench-run-" + s + "-" + hex.EncodeToString(suffix)
}

// Owner identifies this process on this machine: hostname:pid.
func Owner() string {
	host, _ := os.Hostname()
	return host + ":" + strconv.Itoa(os.Getpid())
}

// podFor builds the pod of spec (defaults applied).
func (c *Cluster) podFor(spec sandbox.Spec) (*corev1.Pod, error) {
	if err := CheckLimits(spec.Limits); err != nil {
		return nil, err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	labels := map[string]string{}
	for k, v := range c.opts.Pod.Labels {
		labels[k] = v
	}
	labels[LabelManagedBy] = ManagedBy
	labels[LabelRun] = labelValue(spec.RunID)
	labels[LabelInstance] = labelValue(spec.InstanceID)
	labels[LabelRole] = labelValue(spec.Role)
	if s := os.Getenv(EnvTestSession); s != "" {
		labels[LabelTestSession] = labelValue(s)
	}
	annotations := map[string]string{}
	for k, v := range c.opts.Pod.Annotations {
		annotations[k] = v
	}
	annotations[LabelRun] = spec.RunID
	annotations[LabelInstance] = spec.InstanceID
	annotations[AnnotationOwner] = Owner()
	annotations[AnnotationStarted] = now
	annotations[AnnotationHeartbeat] = now

	res, err := resources(spec.Limits, c.opts.Pod)
	if err != nil {
		return nil, err
	}
	lifetime := int64(math.Ceil(spec.Lifetime.Seconds()))
	grace := int64(1)
	automount := c.opts.Pod.AutomountServiceAccountToken
	links := false
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        podName(spec.InstanceID),
			Namespace:   c.ns,
			Labels:      labels,
			Annotations: annotations,
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:         &lifetime,
			TerminationGracePeriodSeconds: &grace,
			AutomountServiceAccountToken:  &automount,
			EnableServiceLinks:            &links,
			NodeSelector:                  c.opts.Pod.NodeSelector,
			ServiceAccountName:            c.opts.Pod.ServiceAccount,
			PriorityClassName:             c.opts.Pod.PriorityClass,
			Containers: []corev1.Container{{
				Name:            containerName,
				Image:           spec.Image,
				ImagePullPolicy: c.pull,
				// The image's entrypoint is replaced: PID 1 must be ours.
				Command:    []string{"bash", "-c", mainProcess(spec.Lifetime)},
				WorkingDir: spec.Cwd,
				// PID 1 reads its kill requests on stdin, which stays open between attaches.
				Stdin:     true,
				StdinOnce: false,
				Resources: res,
			}},
		},
	}
	if c.opts.Pod.RuntimeClass != "" {
		rc := c.opts.Pod.RuntimeClass
		pod.Spec.RuntimeClassName = &rc
	}
	for _, s := range c.opts.Pod.ImagePullSecrets {
		pod.Spec.ImagePullSecrets = append(pod.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: s})
	}
	for _, t := range c.opts.Pod.Tolerations {
		op := corev1.TolerationOperator(t.Operator)
		if op == "" {
			op = corev1.TolerationOpEqual
		}
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{
			Key: t.Key, Operator: op, Value: t.Value, Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds,
		})
	}
	return pod, nil
}

// CheckLimits reports limits a pod cannot have: a network mode other than the cluster's
// network ("", "bridge"). Limits.PidsLimit is not honoured per pod (see resources).
func CheckLimits(l sandbox.Limits) error {
	switch l.NetworkMode {
	case "", "bridge":
		return nil
	case "none":
		return fmt.Errorf("kubernetes: a pod's network cannot be turned off (--network none); deny the pods' traffic with a NetworkPolicy selecting %s=%s instead", LabelManagedBy, ManagedBy)
	}
	return fmt.Errorf("kubernetes: network mode %q: pods use the cluster's network (leave --network empty)", l.NetworkMode)
}

// resources maps the limits to the container's limits, and the config's requests (default: the
// limits) to its requests. Limits.PidsLimit has no per-pod equivalent in Kubernetes: the
// kubelet's podPidsLimit bounds every pod of a node.
func resources(l sandbox.Limits, o PodOptions) (corev1.ResourceRequirements, error) {
	var r corev1.ResourceRequirements
	limits, requests := corev1.ResourceList{}, corev1.ResourceList{}
	if l.CPUs > 0 {
		limits[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(math.Ceil(l.CPUs*1000)), resource.DecimalSI)
	}
	if l.MemoryBytes > 0 {
		limits[corev1.ResourceMemory] = *resource.NewQuantity(l.MemoryBytes, resource.BinarySI)
	}
	for name, q := range map[corev1.ResourceName]string{corev1.ResourceCPU: o.CPURequest, corev1.ResourceMemory: o.MemoryRequest} {
		if q == "" {
			continue
		}
		v, err := resource.ParseQuantity(q)
		if err != nil {
			return r, fmt.Errorf("kubernetes: %s request %q: %w", name, q, err)
		}
		if lim, ok := limits[name]; ok && v.Cmp(lim) > 0 {
			return r, fmt.Errorf("kubernetes: the %s request %s is above the limit %s (--cpus/--memory)", name, v.String(), lim.String())
		}
		requests[name] = v
	}
	if len(limits) > 0 {
		r.Limits = limits
	}
	if len(requests) > 0 {
		r.Requests = requests
	}
	return r, nil
}

// Pod is a running pod of this tool: the sandbox of one instance.
type Pod struct {
	c    *Cluster
	name string
	uid  types.UID
	spec sandbox.Spec
	node string

	removed atomic.Bool
	// oomKills is the container's cgroup OOM-kill count last seen (-1: never read).
	oomKills atomic.Int64
	// killMu orders the kill requests to PID 1.
	killMu sync.Mutex
	// ls is the pod's launcher (nil: commands run with pods/exec); commands counts the pod's
	// commands.
	ls       atomic.Pointer[launcherState]
	commands atomic.Int64
}

var _ sandbox.Sandbox = (*Pod)(nil)

// ID is the pod's UID.
func (p *Pod) ID() string { return string(p.uid) }

// Name is the pod's name.
func (p *Pod) Name() string { return p.name }

// Node is the node the pod runs on.
func (p *Pod) Node() string { return p.node }

// createTimeout bounds one create or delete call.
const createTimeout = time.Minute

// start creates the pod of spec and waits until its container runs. On error the pod is
// deleted.
func (c *Cluster) start(ctx context.Context, spec sandbox.Spec) (*Pod, error) {
	spec = spec.WithDefaults()
	pod, err := c.podFor(spec)
	if err != nil {
		return nil, err
	}
	created, err := c.create(ctx, pod, spec.InstanceID)
	if err != nil {
		return nil, err
	}
	p := &Pod{c: c, name: created.Name, uid: created.UID, spec: spec}
	p.oomKills.Store(-1)
	if err := p.waitRunning(ctx, created); err != nil {
		_ = p.delete(context.WithoutCancel(ctx))
		return nil, err
	}
	p.startLauncher(ctx)
	if err := ctx.Err(); err != nil {
		p.closeLauncher()
		_ = p.delete(context.WithoutCancel(ctx))
		return nil, err
	}
	c.mu.Lock()
	c.live[p.name] = p
	c.mu.Unlock()
	return p, nil
}

// create creates pod, waiting while a resource quota of the namespace has no room for it
// (reported through OnPending). The create runs to completion even when ctx ends meanwhile, so
// that no pod is left that nobody knows of; the pod is then deleted.
func (c *Cluster) create(ctx context.Context, pod *corev1.Pod, instance string) (*corev1.Pod, error) {
	pending := ""
	defer func() {
		if pending != "" && c.opts.OnPending != nil {
			c.opts.OnPending(instance, "")
		}
	}()
	wait := time.Second
	for {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
		created, err := c.cs.CoreV1().Pods(c.ns).Create(cctx, pod, metav1.CreateOptions{})
		cancel()
		if err == nil {
			if ctx.Err() != nil {
				p := &Pod{c: c, name: created.Name, uid: created.UID}
				_ = p.delete(ctx)
				return nil, ctx.Err()
			}
			return created, nil
		}
		if !overQuota(err) {
			return nil, c.apiError(ctx, fmt.Errorf("create pod for %s: %w", instance, err))
		}
		if reason := err.Error(); reason != pending {
			pending = reason
			c.log.Info("pod waits for room in the namespace's resource quota", "instance", instance, "reason", reason)
			if c.opts.OnPending != nil {
				c.opts.OnPending(instance, reason)
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 15*time.Second)
	}
}

// overQuota reports whether a create was refused because a ResourceQuota of the namespace is
// used up: the pod fits once other pods end. The API server says so only in the message of a
// Forbidden error (the quota admission plugin gives no reason of its own).
func overQuota(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota")
}

// apiError turns an error of an API call into a *DownError when the API server does not answer.
func (c *Cluster) apiError(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err // the API server answered
	}
	if perr := c.ping(ctx); perr != nil {
		return &DownError{Host: c.host, Err: err}
	}
	return err
}

// Reasons of a waiting container that say the image cannot be had now.
var (
	pullFailing = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "RegistryUnavailable": true, "SignatureValidationFailed": true}
	pullRefused = map[string]bool{"ErrImageNeverPull": true, "InvalidImageName": true, "ImageInspectError": true}
	// Reasons of a container that cannot be created as configured (a missing secret, a bad
	// runtime class): they may resolve, so they get the pull's bounded wait.
	configFailing = map[string]bool{"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true}
)

// waitRunning watches the pod until its container runs. A pod that nothing can schedule waits
// (reported through OnPending); pull errors that last Options.PullTimeout, and refused pulls at
// once, fail with sandbox.ErrImageUnavailable; a scheduled pod that does not run within
// Options.StartTimeout fails.
func (p *Pod) waitRunning(ctx context.Context, pod *corev1.Pod) error {
	c := p.c
	var (
		pending       string    // the unschedulable reason last reported
		scheduled     time.Time // first seen scheduled
		failing       time.Time // first seen failing to pull or create
		failingReason string
		failingPull   bool
		node          string
	)
	defer func() {
		if pending != "" && c.opts.OnPending != nil {
			c.opts.OnPending(p.spec.InstanceID, "")
		}
	}()
	// Once the pod is scheduled, exec probes find the container running as soon as it runs:
	// the kubelet reports a started container in the pod's status only at its next relist of
	// the runtime (every second), which would add half a second to every start.
	probed := make(chan struct{})
	pctx, stopProbe := context.WithCancel(ctx)
	var probeWG sync.WaitGroup
	defer func() { stopProbe(); probeWG.Wait() }()
	probing := false
	probe := func() {
		defer probeWG.Done()
		for {
			if _, code, err := p.run(pctx, []string{"true"}, nil); err == nil && code == 0 {
				close(probed)
				return
			}
			select {
			case <-pctx.Done():
				return
			case <-time.After(probeInterval):
			}
		}
	}
	check := func(pod *corev1.Pod) (bool, error) {
		if pod.UID != p.uid {
			return false, fmt.Errorf("pod %s was replaced while it started", p.name)
		}
		if pod.DeletionTimestamp != nil {
			return false, fmt.Errorf("pod %s was deleted while it started", p.name)
		}
		st, hasStatus := containerStatus(pod)
		switch {
		case hasStatus && st.State.Running != nil:
			p.node = pod.Spec.NodeName
			return true, nil
		case hasStatus && st.State.Terminated != nil:
			t := st.State.Terminated
			return false, fmt.Errorf("pod %s: its container ended as it started (%s, exit code %d): %s", p.name, t.Reason, t.ExitCode, t.Message)
		case pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded:
			return false, fmt.Errorf("pod %s ended before it ran (%s): %s", p.name, pod.Status.Reason, pod.Status.Message)
		}
		if cond := podCondition(pod, corev1.PodScheduled); cond != nil && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable {
			if cond.Message != pending {
				pending = cond.Message
				if pending == "" {
					pending = cond.Reason
				}
				c.log.Info("pod waits for room in the cluster", "pod", p.name, "instance", p.spec.InstanceID, "reason", pending)
				if c.opts.OnPending != nil {
					c.opts.OnPending(p.spec.InstanceID, pending)
				}
			}
			return false, nil
		}
		if pod.Spec.NodeName != "" && !probing {
			probing = true
			probeWG.Add(1)
			go probe()
		}
		if pod.Spec.NodeName != "" && scheduled.IsZero() {
			scheduled, node = time.Now(), pod.Spec.NodeName
			if pending != "" && c.opts.OnPending != nil {
				c.opts.OnPending(p.spec.InstanceID, "")
			}
			pending = ""
		}
		if hasStatus && st.State.Waiting != nil {
			w := st.State.Waiting
			switch {
			case pullRefused[w.Reason]:
				return false, fmt.Errorf("pod %s: %w: %s: %s: %s", p.name, sandbox.ErrImageUnavailable, p.spec.Image, w.Reason, w.Message)
			case pullFailing[w.Reason] || configFailing[w.Reason]:
				if failing.IsZero() {
					failing = time.Now()
				}
				failingReason, failingPull = w.Reason+": "+w.Message, pullFailing[w.Reason]
			default:
				failing = time.Time{}
			}
		}
		return false, nil
	}
	timeouts := func() error {
		if !failing.IsZero() && time.Since(failing) > c.opts.PullTimeout {
			if !failingPull {
				return fmt.Errorf("pod %s could not create its container for %s: %s", p.name, c.opts.PullTimeout, failingReason)
			}
			return fmt.Errorf("pod %s: %w: %s: the pull kept failing for %s: %s", p.name, sandbox.ErrImageUnavailable, p.spec.Image, c.opts.PullTimeout, failingReason)
		}
		if !scheduled.IsZero() && time.Since(scheduled) > c.opts.StartTimeout {
			return fmt.Errorf("pod %s was scheduled on %s but did not run within %s", p.name, node, c.opts.StartTimeout)
		}
		return nil
	}

	rv := pod.ResourceVersion
	if ok, err := check(pod); ok || err != nil {
		return err
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		w, err := c.cs.CoreV1().Pods(c.ns).Watch(ctx, metav1.ListOptions{
			FieldSelector:   fields.OneTermEqualSelector("metadata.name", p.name).String(),
			ResourceVersion: rv,
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// The watch could not start (resource version too old, API server busy): read
			// the pod and start again from there.
			gctx, cancel := context.WithTimeout(ctx, createTimeout)
			cur, gerr := c.cs.CoreV1().Pods(c.ns).Get(gctx, p.name, metav1.GetOptions{})
			cancel()
			switch {
			case apierrors.IsNotFound(gerr):
				return fmt.Errorf("pod %s was deleted while it started", p.name)
			case gerr != nil:
				return c.apiError(ctx, fmt.Errorf("watch pod %s: %w", p.name, err))
			}
			rv = cur.ResourceVersion
			if ok, err := check(cur); ok || err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
			continue
		}
		ok, err := func() (bool, error) {
			defer w.Stop()
			for {
				select {
				case <-ctx.Done():
					return false, ctx.Err()
				case <-tick.C:
					if err := timeouts(); err != nil {
						return false, err
					}
				case <-probed:
					p.node = node
					return true, nil
				case ev, open := <-w.ResultChan():
					if !open {
						return false, nil // the API server ended the watch: start another
					}
					switch ev.Type {
					case watch.Deleted:
						return false, fmt.Errorf("pod %s was deleted while it started", p.name)
					case watch.Error:
						rv = "" // e.g. 410 Gone: start from the current state
						return false, nil
					case watch.Added, watch.Modified:
						cur, isPod := ev.Object.(*corev1.Pod)
						if !isPod {
							continue
						}
						rv = cur.ResourceVersion
						if ok, err := check(cur); ok || err != nil {
							return ok, err
						}
						if err := timeouts(); err != nil {
							return false, err
						}
					}
				}
			}
		}()
		if ok || err != nil {
			return err
		}
	}
}

func containerStatus(pod *corev1.Pod) (corev1.ContainerStatus, bool) {
	for _, st := range pod.Status.ContainerStatuses {
		if st.Name == containerName {
			return st, true
		}
	}
	return corev1.ContainerStatus{}, false
}

func podCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// probeInterval is the pause between two exec probes of a starting pod.
const probeInterval = 50 * time.Millisecond

// deleteTimeout bounds pod deletion, which runs even after the run was cancelled.
const deleteTimeout = 30 * time.Second

// delete deletes the pod at once (grace period 0: the API object goes now, the kubelet kills the
// container right after). A pod already gone is no error.
func (p *Pod) delete(ctx context.Context) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deleteTimeout)
	defer cancel()
	return p.c.deletePod(dctx, p.name, p.uid)
}

func (c *Cluster) deletePod(ctx context.Context, name string, uid types.UID) error {
	zero := int64(0)
	opts := metav1.DeleteOptions{GracePeriodSeconds: &zero}
	if uid != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	err := c.cs.CoreV1().Pods(c.ns).Delete(ctx, name, opts)
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or replaced by another pod of that name
	}
	return c.apiError(ctx, fmt.Errorf("delete pod %s: %w", name, err))
}

// Remove deletes the pod. It runs on a context detached from ctx's cancellation; a pod already
// gone is not an error; every operation after Remove fails with a *sandbox.DiedError.
func (p *Pod) Remove(ctx context.Context) error {
	p.removed.Store(true)
	p.closeLauncher()
	p.c.mu.Lock()
	delete(p.c.live, p.name)
	p.c.mu.Unlock()
	return p.delete(ctx)
}

var errRemoved = errors.New("the pod was removed")

// classifyWait bounds how long classify waits for the pod's status to show why an operation
// failed: the kubelet reports a container's end a moment after it happened.
const classifyWait = 15 * time.Second

// classify turns the error of an operation on the pod into a *sandbox.DiedError when the pod
// is gone, ended, was evicted or its node was lost, and into a *DownError when the API server
// does not answer; other errors are returned as they are.
func (p *Pod) classify(ctx context.Context, opErr error) error {
	if p.removed.Load() {
		return &sandbox.DiedError{Name: p.name, ExitCode: -1, Err: errRemoved}
	}
	c := p.c
	deadline := time.Now().Add(classifyWait)
	for {
		gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		pod, err := c.cs.CoreV1().Pods(c.ns).Get(gctx, p.name, metav1.GetOptions{})
		cancel()
		switch {
		case apierrors.IsNotFound(err):
			return &sandbox.DiedError{Name: p.name, ExitCode: -1, Err: fmt.Errorf("the pod was deleted: %w", opErr)}
		case err != nil:
			return c.apiError(ctx, opErr)
		}
		if died := p.diedFrom(ctx, pod, opErr); died != nil {
			return died
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return opErr
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// ended returns a *sandbox.DiedError when the pod is gone, ending or ended (one look, no
// waiting), nil otherwise.
func (p *Pod) ended(ctx context.Context, opErr error) error {
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	pod, err := p.c.cs.CoreV1().Pods(p.c.ns).Get(gctx, p.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return &sandbox.DiedError{Name: p.name, ExitCode: -1, Err: fmt.Errorf("the pod was deleted: %w", opErr)}
	case err != nil:
		return nil
	}
	if died := p.diedFrom(ctx, pod, opErr); died != nil {
		return died
	}
	return nil
}

// diedFrom returns the *sandbox.DiedError that pod's state shows, nil when it looks alive.
func (p *Pod) diedFrom(ctx context.Context, pod *corev1.Pod, opErr error) *sandbox.DiedError {
	died := func(code int, oom bool, why string) *sandbox.DiedError {
		return &sandbox.DiedError{Name: p.name, ExitCode: code, OOMKilled: oom, Err: fmt.Errorf("%s: %w", why, opErr)}
	}
	if pod.UID != p.uid {
		return died(-1, false, "the pod was deleted and another took its name")
	}
	if pod.DeletionTimestamp != nil {
		return died(-1, false, "the pod is being deleted")
	}
	st, ok := containerStatus(pod)
	if ok && st.State.Terminated != nil {
		t := st.State.Terminated
		why := "its container ended (" + t.Reason + ")"
		if pod.Status.Reason != "" {
			why += " (" + pod.Status.Reason + ": " + pod.Status.Message + ")"
		}
		return died(int(t.ExitCode), t.Reason == "OOMKilled", why)
	}
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return died(-1, false, fmt.Sprintf("the pod ended (%s: %s)", pod.Status.Reason, pod.Status.Message))
	}
	if pod.Spec.NodeName != "" {
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		node, err := p.c.cs.CoreV1().Nodes().Get(nctx, pod.Spec.NodeName, metav1.GetOptions{})
		cancel()
		switch {
		case apierrors.IsNotFound(err):
			return died(-1, false, "its node "+pod.Spec.NodeName+" is gone")
		case err == nil:
			for _, cond := range node.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status != corev1.ConditionTrue {
					return died(-1, false, fmt.Sprintf("its node %s is not ready (%s)", pod.Spec.NodeName, cond.Reason))
				}
			}
		}
		// Without the right to read nodes (Forbidden), the pod's own state has to do.
	}
	return nil
}
