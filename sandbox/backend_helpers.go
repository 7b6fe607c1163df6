package sandbox

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Helpers every backend needs to keep the exec contract the same everywhere.

// EnvList merges a sandbox's environment (base) with an exec's (over wins) into sorted
// "KEY=VALUE" entries.
func EnvList(base, over map[string]string) []string {
	merged := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		merged[k] = v
	}
	for k, v := range over {
		merged[k] = v
	}
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, 0, len(keys))
	for _, k := range keys {
		env = append(env, k+"="+merged[k])
	}
	return env
}

// OOMKillsCommand prints the sandbox's cgroup memory events (cgroup v2 memory.events, v1
// memory.oom_control), whose oom_kill counter tells an OOM kill from any other SIGKILL.
var OOMKillsCommand = []string{"cat", "/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"}

// ParseOOMKills finds the "oom_kill N" line in the output of OOMKillsCommand.
func ParseOOMKills(s string) (int64, bool) {
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && k == "oom_kill" {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// OOMNote is the line appended to the output of a command the kernel killed for exceeding the
// sandbox's memory limit (limit bytes), so that the agent sees why it died.
func OOMNote(limit int64) string {
	return fmt.Sprintf("\n[swebench-run: the command was killed for exceeding the container's memory limit of %s]\n", formatBytes(limit))
}

// formatBytes writes n in binary units with at most two decimals (512MiB, 1.5GiB).
func formatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) + units[i]
}
