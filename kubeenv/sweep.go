package kubeenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/swebench-run/swebench-run/sandbox"
)

// sweepConcurrency bounds the deletions and heartbeat patches in flight at once.
const sweepConcurrency = 8

// Heartbeat renews the heartbeat annotation of this process's live pods every
// Options.HeartbeatInterval until ctx ends; it returns nil then. A sweep anywhere (another
// machine's run, `swebench-run cleanup`) treats pods whose heartbeat is older than
// Options.StaleAfter as orphans of a run that died. Run it beside the runner (the command line
// does) for as long as pods of this Cluster may live.
func (c *Cluster) Heartbeat(ctx context.Context) error {
	tick := time.NewTicker(c.opts.HeartbeatInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			c.beat(ctx)
		}
	}
}

// beat renews the heartbeat of every live pod once.
func (c *Cluster) beat(ctx context.Context) {
	c.mu.Lock()
	pods := make([]*Pod, 0, len(c.live))
	for _, p := range c.live {
		pods = append(pods, p)
	}
	c.mu.Unlock()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": map[string]string{AnnotationHeartbeat: time.Now().UTC().Format(time.RFC3339)},
	}})
	var g errgroup.Group
	g.SetLimit(sweepConcurrency)
	for _, p := range pods {
		g.Go(func() error {
			pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			_, err := c.cs.CoreV1().Pods(c.ns).Patch(pctx, p.name, types.MergePatchType, patch, metav1.PatchOptions{})
			if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
				c.log.Warn("heartbeat of pod failed", "pod", p.name, "err", err)
			}
			return nil
		})
	}
	_ = g.Wait()
}

// orphaned reports whether pod belongs to a process that is gone: one of this machine that no
// longer runs, or any whose heartbeat is older than staleAfter (a pod without one counts from its
// creation).
func orphaned(pod *corev1.Pod, now time.Time, staleAfter time.Duration) bool {
	if ownerGone(pod.Annotations[AnnotationOwner]) {
		return true
	}
	beat := pod.CreationTimestamp.Time
	if t, err := time.Parse(time.RFC3339, pod.Annotations[AnnotationHeartbeat]); err == nil {
		beat = t
	}
	return now.Sub(beat) > staleAfter
}

// ownerGone reports whether owner (hostname:pid) is a process of this machine, not this one,
// that no longer runs.
func ownerGone(owner string) bool {
	host, pidStr, ok := strings.Cut(owner, ":")
	if !ok {
		return false
	}
	if me, _ := os.Hostname(); host != me {
		return false
	}
	pid, err := strconv.Atoi(pidStr)
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// matches reports whether sel matches pod (see sandbox.Selector; Orphaned: see orphaned).
func (c *Cluster) matches(sel sandbox.Selector, pod *corev1.Pod, now time.Time) bool {
	return sel.All ||
		sel.RunID != "" && pod.Annotations[LabelRun] == sel.RunID ||
		sel.Orphaned && orphaned(pod, now, c.opts.StaleAfter)
}

// list returns the pods of this tool in the namespace (of runID's label when not "").
func (c *Cluster) list(ctx context.Context, runID string) ([]corev1.Pod, error) {
	set := labels.Set{LabelManagedBy: ManagedBy}
	if runID != "" {
		set[LabelRun] = labelValue(runID)
	}
	lctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	list, err := c.cs.CoreV1().Pods(c.ns).List(lctx, metav1.ListOptions{LabelSelector: set.AsSelector().String()})
	if err != nil {
		return nil, c.apiError(ctx, fmt.Errorf("list pods in namespace %s: %w", c.ns, err))
	}
	return list.Items, nil
}

// Sweep deletes the pods of this tool in the namespace that sel matches and returns how many it
// deleted; pods already being deleted are not counted. It runs on a context that survives
// cancellation.
func (c *Cluster) Sweep(ctx context.Context, sel sandbox.Selector) (int, error) {
	if !sel.All && sel.RunID == "" && !sel.Orphaned {
		return 0, nil
	}
	ctx = context.WithoutCancel(ctx)
	runID := ""
	if !sel.All && !sel.Orphaned {
		runID = sel.RunID
	}
	pods, err := c.list(ctx, runID)
	if err != nil {
		return 0, err
	}
	now := time.Now()
	var (
		mu   sync.Mutex
		n    int
		errs []error
		g    errgroup.Group
	)
	g.SetLimit(sweepConcurrency)
	for i := range pods {
		pod := &pods[i]
		if pod.DeletionTimestamp != nil || !c.matches(sel, pod, now) {
			continue
		}
		g.Go(func() error {
			dctx, cancel := context.WithTimeout(ctx, deleteTimeout)
			defer cancel()
			err := c.deletePod(dctx, pod.Name, pod.UID)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			n++
			c.mu.Lock()
			p, ok := c.live[pod.Name]
			if ok && p.uid == pod.UID {
				delete(c.live, pod.Name)
			}
			c.mu.Unlock()
			if ok && p.uid == pod.UID {
				// Its commands go to pods/exec, which the API server refuses for a deleted
				// pod, rather than to its launcher, which lives until the kubelet kills it.
				p.closeLauncher()
			}
			return nil
		})
	}
	_ = g.Wait()
	return n, errors.Join(errs...)
}

// ListPods returns the names of this tool's pods of runID ("" = any run) in the namespace,
// sorted; pods being deleted are left out.
func (c *Cluster) ListPods(ctx context.Context, runID string) ([]string, error) {
	pods, err := c.list(ctx, runID)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range pods {
		if p.DeletionTimestamp == nil && (runID == "" || p.Annotations[LabelRun] == runID) {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}
