package dockerenv_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The limits become the container's: its network, CPUs and pids limit (the cgroup's, as the
// container sees it), never privileged, no mounts. (What the limits do is the conformance
// suite's.)
func TestLimitsOnDocker(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	tests := []struct {
		name       string
		limits     sandbox.Limits
		interfaces string
		pidsMax    string
		inspect    string // privileged, binds, mounts, nanocpus, pids limit
	}{
		{"defaults", sandbox.Limits{}, "eth0 lo", "4096", "false null [] 0 4096"},
		{"no network, half a CPU, 64 pids", sandbox.Limits{NetworkMode: "none", CPUs: 0.5, PidsLimit: 64}, "lo", "64", "false null [] 500000000 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startTestContainer(t, e, sandbox.Spec{InstanceID: "limits__" + tt.limits.NetworkMode + "-1", Limits: tt.limits})
			res, err := c.Exec(context.Background(), "echo $(ls /sys/class/net | sort); cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max", sandbox.ExecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.TrimSpace(res.Output), tt.interfaces+"\n"+tt.pidsMax; got != want {
				t.Errorf("interfaces and pids.max = %q, want %q", got, want)
			}
			out, err := exec.Command("docker", "inspect", "-f", "{{.HostConfig.Privileged}} {{json .HostConfig.Binds}} {{json .Mounts}} {{.HostConfig.NanoCpus}} {{.HostConfig.PidsLimit}}", c.ID()).CombinedOutput()
			if err != nil {
				t.Fatalf("docker inspect: %v: %s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != tt.inspect {
				t.Errorf("privileged, binds, mounts, nanocpus, pids = %q, want %q", got, tt.inspect)
			}
		})
	}
}
