package dockerenv_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/internal/testenv"
)

// A fork bomb hits the pids limit instead of the host, and the container stays usable, also
// after a bomb that ignores TERM (its kill then finds the pids limit full).
func TestPidsLimitStopsForkBomb(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{Limits: dockerenv.Limits{PidsLimit: 64}})
	ctx := context.Background()
	bombs := []struct{ name, cmd string }{
		{"bomb", `bomb() { bomb | bomb & }; bomb; sleep 30`},
		{"bomb ignoring TERM", `trap '' TERM; bomb() { bomb | bomb & }; bomb; sleep 30`},
	}
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			res, err := c.Exec(ctx, b.cmd, dockerenv.ExecOptions{Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Output, "Resource temporarily unavailable") {
				t.Errorf("the fork bomb never hit the pids limit; output:\n%.2000s", res.Output)
			}
			if !res.TimedOut {
				t.Errorf("TimedOut = false (exit %d), want true", res.ExitCode)
			}
			tests := []struct {
				name, cmd, want string
			}{
				{"container still answers", "echo alive", "alive\n"},
				{"the limit is the cgroup's", "cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max", "64\n"},
				{"nothing of the bomb is left", "ps -eo args= | grep -c '[b]omb' || true", "0\n"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, err := c.Exec(ctx, tt.cmd, dockerenv.ExecOptions{Timeout: 10 * time.Second})
					if err != nil {
						t.Fatal(err)
					}
					if res.Output != tt.want {
						t.Errorf("%s: got %q, want %q", tt.cmd, res.Output, tt.want)
					}
				})
			}
		})
	}
}

// Memory beyond the limit: the kernel kills the command, not the container; Exec says so.
func TestMemoryLimitOOMKilled(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	c := startTestContainer(t, e, dockerenv.ContainerSpec{Limits: dockerenv.Limits{MemoryBytes: 128 << 20}})
	ctx := context.Background()
	tests := []struct {
		name     string
		cmd      string
		wantCode int
		wantOOM  bool
	}{
		{"within the limit", `python3 -c "x=b'a'*(16<<20); print(len(x))"`, 0, false},
		{"beyond the limit", `python3 -c "x=b'a'*(1<<30)"`, 137, true},
		{"container still runs", "echo ok", 0, false},
		{"SIGKILL without OOM", "kill -9 $$", 137, false},
		{"beyond the limit again", `python3 -c "x=bytearray(b'a'*(1<<30))"`, 137, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Exec(ctx, tt.cmd, dockerenv.ExecOptions{Timeout: 60 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tt.wantCode || res.OOMKilled != tt.wantOOM {
				t.Errorf("got (exit %d, OOMKilled %v), want (exit %d, OOMKilled %v); output %q", res.ExitCode, res.OOMKilled, tt.wantCode, tt.wantOOM, res.Output)
			}
			if got := strings.Contains(res.Output, "memory limit of 128MiB"); got != tt.wantOOM {
				t.Errorf("output %q mentions the memory limit: %v, want %v", res.Output, got, tt.wantOOM)
			}
		})
	}
}

func TestNetworkAndPrivileges(t *testing.T) {
	e := testenv.Docker(t)
	testenv.RequireImage(t, e, testenv.BaseImage)
	tests := []struct {
		network string
		want    string // interfaces
	}{
		{"", "eth0 lo"},
		{"none", "lo"},
	}
	for _, tt := range tests {
		t.Run("network="+tt.network, func(t *testing.T) {
			c := startTestContainer(t, e, dockerenv.ContainerSpec{InstanceID: "net__" + tt.network + "-1", Limits: dockerenv.Limits{NetworkMode: tt.network, CPUs: 0.5}})
			res, err := c.Exec(context.Background(), "ls /sys/class/net | sort | tr '\\n' ' '", dockerenv.ExecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(res.Output); got != tt.want {
				t.Errorf("interfaces = %q, want %q", got, tt.want)
			}
			out, err := exec.Command("docker", "inspect", "-f", "{{.HostConfig.Privileged}} {{json .HostConfig.Binds}} {{json .Mounts}} {{.HostConfig.NanoCpus}}", c.ID).CombinedOutput()
			if err != nil {
				t.Fatalf("docker inspect: %v: %s", err, out)
			}
			if got, want := strings.TrimSpace(string(out)), "false null [] 500000000"; got != want {
				t.Errorf("privileged, binds, mounts, nanocpus = %q, want %q", got, want)
			}
		})
	}
}
