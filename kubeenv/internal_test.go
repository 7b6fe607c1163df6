package kubeenv

import (
	"bytes"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/swebench-run/swebench-run/sandbox"
)

func TestLabelValue(t *testing.T) {
	tests := []struct {
		in   string
		same bool
	}{
		{"20250101-120000-abc123", true},
		{"django__django-11099", true},
		{"agent", true},
		{"sweep/nightly:gpt-5@2025-01-01", false},
		{strings.Repeat("a", 64), false},
		{"-leading", false},
		{"Ünïcode", false},
		{":::", false},
	}
	for _, tt := range tests {
		got := labelValue(tt.in)
		if errs := validation.IsValidLabelValue(got); len(errs) > 0 {
			t.Errorf("labelValue(%q) = %q: not a label value: %v", tt.in, got, errs)
		}
		if (got == tt.in) != tt.same {
			t.Errorf("labelValue(%q) = %q; want it unchanged: %v", tt.in, got, tt.same)
		}
		if labelValue(tt.in) != got {
			t.Errorf("labelValue(%q) is not stable", tt.in)
		}
	}
	if labelValue("a:b") == labelValue("a/b") {
		t.Error("two ids that differ only in unsafe characters got the same label value")
	}
}

func TestPodName(t *testing.T) {
	for _, id := range []string{"django__django-11099", "Org/Repo:PR-1", strings.Repeat("x", 100), "___"} {
		got := podName(id)
		if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
			t.Errorf("podName(%q) = %q: not a DNS label: %v", id, got, errs)
		}
	}
	if podName("a") == podName("a") {
		t.Error("two pods of one instance got the same name")
	}
}

func TestDecodeConfig(t *testing.T) {
	tests := []struct {
		name    string
		section any
		wantErr string
	}{
		{"none", nil, ""},
		{"full", map[string]any{
			"context": "prod", "namespace": "swebench", "pull_timeout": 120, "stale_after": 600,
			"node_selector":      map[string]any{"pool": "swebench"},
			"tolerations":        []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "swebench", "effect": "NoSchedule"}},
			"service_account":    "runner",
			"image_pull_secrets": []any{"regcred"},
			"runtime_class":      "gvisor",
			"priority_class":     "batch-low",
			"labels":             map[string]any{"team": "evals"},
			"annotations":        map[string]any{"example.com/cost-center": "42"},
			"cpu_request":        "500m",
			"memory_request":     "2Gi",
		}, ""},
		{"unknown key", map[string]any{"nodeSelector": map[string]any{}}, "nodeSelector"},
		{"bad label value", map[string]any{"labels": map[string]any{"team": "a b"}}, "kubernetes.labels.team"},
		{"our own label", map[string]any{"labels": map[string]any{"swebench-run/run-id": "x"}}, "swebench-run's own"},
		{"bad operator", map[string]any{"tolerations": []any{map[string]any{"key": "k", "operator": "In"}}}, "tolerations[0].operator"},
		{"exists with value", map[string]any{"tolerations": []any{map[string]any{"key": "k", "operator": "Exists", "value": "v"}}}, "Exists takes no value"},
		{"seconds without NoExecute", map[string]any{"tolerations": []any{map[string]any{"key": "k", "toleration_seconds": 5}}}, "NoExecute"},
		{"bad quantity", map[string]any{"cpu_request": "lots"}, "kubernetes.cpu_request"},
		{"bad runtime class", map[string]any{"runtime_class": "G Visor"}, "kubernetes.runtime_class"},
		{"bad namespace", map[string]any{"namespace": "Swe_Bench"}, "kubernetes.namespace"},
		{"negative timeout", map[string]any{"pull_timeout": -1}, "pull_timeout"},
		{"wrong type", map[string]any{"image_pull_secrets": "regcred"}, "config kubernetes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeConfig(tt.section)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want one naming %q", err, tt.wantErr)
			}
		})
	}
}

func TestPodFor(t *testing.T) {
	cfg, err := DecodeConfig(map[string]any{
		"node_selector":      map[string]any{"pool": "swebench"},
		"tolerations":        []any{map[string]any{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}},
		"service_account":    "runner",
		"image_pull_secrets": []any{"regcred"},
		"runtime_class":      "gvisor",
		"labels":             map[string]any{"team": "evals"},
		"annotations":        map[string]any{"example.com/note": "x"},
		"cpu_request":        "1",
	})
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{ns: "swebench", pull: corev1.PullNever, opts: Options{Pod: cfg.PodOptions}}
	spec := sandbox.Spec{Image: "img:1", RunID: "sweep/cell:1", InstanceID: "django__django-11099", Lifetime: 90 * time.Minute,
		Limits: sandbox.Limits{CPUs: 2, MemoryBytes: 4 << 30, PidsLimit: 64}}.WithDefaults()
	pod, err := c.podFor(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctr := pod.Spec.Containers[0]
	checks := []struct {
		what      string
		got, want any
	}{
		{"namespace", pod.Namespace, "swebench"},
		{"managed-by", pod.Labels[LabelManagedBy], ManagedBy},
		{"run label", pod.Labels[LabelRun], labelValue("sweep/cell:1")},
		{"run annotation", pod.Annotations[LabelRun], "sweep/cell:1"},
		{"instance label", pod.Labels[LabelInstance], "django__django-11099"},
		{"role", pod.Labels[LabelRole], "agent"},
		{"extra label", pod.Labels["team"], "evals"},
		{"extra annotation", pod.Annotations["example.com/note"], "x"},
		{"owner", pod.Annotations[AnnotationOwner], Owner()},
		{"restart policy", pod.Spec.RestartPolicy, corev1.RestartPolicyNever},
		{"lifetime", *pod.Spec.ActiveDeadlineSeconds, int64(5400)},
		{"no token", *pod.Spec.AutomountServiceAccountToken, false},
		{"no service links", *pod.Spec.EnableServiceLinks, false},
		{"node selector", pod.Spec.NodeSelector, map[string]string{"pool": "swebench"}},
		{"service account", pod.Spec.ServiceAccountName, "runner"},
		{"runtime class", *pod.Spec.RuntimeClassName, "gvisor"},
		{"pull secrets", pod.Spec.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "regcred"}}},
		{"tolerations", pod.Spec.Tolerations, []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}},
		{"image", ctr.Image, "img:1"},
		{"pull policy", ctr.ImagePullPolicy, corev1.PullNever},
		{"stdin for PID 1", ctr.Stdin && !ctr.StdinOnce && !ctr.TTY, true},
		{"PID 1", ctr.Command[:2], []string{"bash", "-c"}},
		{"cwd", ctr.WorkingDir, "/testbed"},
		{"cpu limit", ctr.Resources.Limits.Cpu().String(), "2"},
		{"memory limit", ctr.Resources.Limits.Memory().String(), "4Gi"},
		{"cpu request", ctr.Resources.Requests.Cpu().String(), "1"},
		{"memory request (the limit)", ctr.Resources.Requests.Memory().IsZero(), true},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	t.Setenv(EnvTestSession, "session-1")
	if pod, _ := c.podFor(spec); pod.Labels[LabelTestSession] != "session-1" {
		t.Errorf("test session label %q, want session-1", pod.Labels[LabelTestSession])
	}
}

func TestPodForRefuses(t *testing.T) {
	tests := []struct {
		name    string
		limits  sandbox.Limits
		pod     PodOptions
		wantErr string
	}{
		{"network none", sandbox.Limits{NetworkMode: "none"}, PodOptions{}, "NetworkPolicy"},
		{"network name", sandbox.Limits{NetworkMode: "mynet"}, PodOptions{}, "network mode"},
		{"request above limit", sandbox.Limits{CPUs: 1}, PodOptions{CPURequest: "2"}, "above the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cluster{ns: "default", opts: Options{Pod: tt.pod}}
			_, err := c.podFor(sandbox.Spec{Image: "x", RunID: "r", InstanceID: "i", Limits: tt.limits}.WithDefaults())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one naming %q", err, tt.wantErr)
			}
		})
	}
}

func TestOrphaned(t *testing.T) {
	host, _ := os.Hostname()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	pod := func(owner string, beat time.Time, created time.Time) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationOwner: owner}, CreationTimestamp: metav1.NewTime(created)}}
		if !beat.IsZero() {
			p.Annotations[AnnotationHeartbeat] = beat.UTC().Format(time.RFC3339)
		}
		return p
	}
	me := Owner()
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"this process, fresh", pod(me, now, now), false},
		{"this process, stale heartbeat", pod(me, now.Add(-time.Hour), now.Add(-time.Hour)), true},
		{"dead process of this machine, fresh", pod(host+":"+strconv.Itoa(dead.Process.Pid), now, now), true},
		{"other machine, fresh", pod("elsewhere:1", now, now), false},
		{"other machine, stale", pod("elsewhere:1", now.Add(-10*time.Minute), now.Add(-time.Hour)), true},
		{"no heartbeat, old", pod("elsewhere:1", time.Time{}, now.Add(-time.Hour)), true},
		{"no heartbeat, new", pod("elsewhere:1", time.Time{}, now), false},
	}
	for _, tt := range tests {
		if got := orphaned(tt.pod, now, 5*time.Minute); got != tt.want {
			t.Errorf("%s: orphaned = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The wrapper of every command, run by the local bash on execInput: exact argv, environment,
// working directory, stdin closed, stderr merged, the start marker first; and a cut input is
// refused (exit codeNoInput) before anything runs.
func TestExecWrapper(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	run := func(input []byte) (string, int) {
		cmd := exec.Command("bash", "-c", execWrapper)
		cmd.Stdin = bytes.NewReader(input)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	env := sandbox.EnvList(map[string]string{"A": "base", "MULTI": "line1\nline2"}, map[string]string{"A": "over", "EMPTY": ""})
	out, code := run(execInput(dir, env, []string{"bash", "-c", `printf '%s|' "$0" "$#" "$A" "$MULTI" "${EMPTY-unset}" "$PWD"; echo err >&2; cat; exit 3`}))
	want := string(startMarker) + "bash|0|over|line1\nline2||" + dir + "|err\n"
	if out != want || code != 3 {
		t.Errorf("got (%q, %d), want (%q, 3)", out, code, want)
	}
	full := execInput(dir, nil, []string{"bash", "-c", "echo ran > " + dir + "/ran"})
	for _, cut := range []int{0, 5, len(full) / 2, len(full) - 1} {
		if out, code := run(full[:cut]); code != codeNoInput || out != "" {
			t.Errorf("input cut at %d of %d: got (%q, %d), want (\"\", %d)", cut, len(full), out, code, codeNoInput)
		}
	}
	if _, err := os.Stat(dir + "/ran"); err == nil {
		t.Error("a cut input ran the command")
	}
	if out, code := run(execInput(dir+"/missing", nil, []string{"true"})); code != 126 || !strings.Contains(out, "missing") {
		t.Errorf("missing cwd: got (%q, %d), want exit 126 naming the directory", out, code)
	}
}
