package bench

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/export/exporttest"
)

// ExportSizes are the numbers of synthetic trajectories the export benchmark writes: the
// smaller run is the reference that shows whether memory stays flat.
var ExportSizes = []int{2000, 20000}

// ExportRun is one export of a synthetic run by the binary.
type ExportRun struct {
	Format       string
	Trajectories int
	InputBytes   int64 // the trajectory files
	Usage        Usage
	Load         string // the machine's load averages when the export started (/proc/loadavg)
	// LiveMB is the largest heap left live after a garbage collection (GODEBUG=gctrace=1):
	// what the process holds, without the memory the Go runtime keeps after freeing it.
	LiveMB int
}

// gcLine is a line of GODEBUG=gctrace=1: heap before, at the end of, and live after a collection.
var gcLine = regexp.MustCompile(`^gc \d+ .* (\d+)->(\d+)->(\d+) MB`)

// PerSecond is the throughput: trajectories ÷ wall time of the whole process.
func (r ExportRun) PerSecond() float64 { return float64(r.Trajectories) / r.Usage.Wall.Seconds() }

// PerCPUSecond is trajectories ÷ the process's CPU time: the throughput a machine with a core
// to spare gives, whatever else runs on it.
func (r ExportRun) PerCPUSecond() float64 { return float64(r.Trajectories) / r.Usage.CPUSec() }

// loadAverage is the first three fields of /proc/loadavg ("" elsewhere).
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// Export is the export benchmark: each format at each size.
type Export struct{ Runs []ExportRun }

// exportInstances are n instances over 50 repositories, 8 replies each (the last submits), a
// 600-byte output per observation, every third resolved.
func exportInstances(n int) []exporttest.Instance {
	out := strings.Repeat("src/module/file.py:12: def function(argument):\n", 12)
	insts := make([]exporttest.Instance, n)
	for k := range insts {
		insts[k] = exporttest.Instance{ID: fmt.Sprintf("org%02d__repo-%06d", k%50, k), Steps: 8, Cost: 0.01 * float64(k%7+1),
			Resolved: exporttest.Bool(k%3 == 0), Output: out, Commands: []string{"ls", "grep -rn function src", "cat src/module/file.py", "python -m pytest -q"}}
	}
	return insts
}

// MeasureExport writes synthetic runs of each size (our output directory: run.json, ledger,
// preds.json, eval/<id>/report.json, <id>/<id>.traj.json) and exports each with the binary under
// /usr/bin/time, into Parquet and OpenAI JSONL, without filters: every trajectory is read (its
// verdict from eval/, its flags scanned), converted and written; the output is read back.
func MeasureExport(ctx context.Context, bin, tmp string, sizes []int) (Export, error) {
	var e Export
	for _, n := range sizes {
		dir := filepath.Join(tmp, fmt.Sprintf("export-%d", n))
		os.RemoveAll(dir)
		run := filepath.Join(dir, "run")
		if err := exporttest.WriteRun(run, exporttest.Run{Instances: exportInstances(n)}); err != nil {
			return e, err
		}
		size, err := trajectoryBytes(run)
		if err != nil {
			return e, err
		}
		for _, format := range []string{"parquet", "openai"} {
			out := filepath.Join(dir, "out-"+format)
			if err := os.MkdirAll(out, 0o755); err != nil {
				return e, err
			}
			file := filepath.Join(out, "trajs.jsonl")
			if format == "parquet" {
				file = filepath.Join(out, "trajs.parquet")
			}
			load := loadAverage()
			live := 0
			u, err := TimeBinaryEnv(ctx, bin, []string{"export", run, "-o", file, "--format", format, "--progress", "none"}, []string{"GODEBUG=gctrace=1"},
				func(line string, _ time.Duration) {
					if m := gcLine.FindStringSubmatch(line); m != nil {
						n, _ := strconv.Atoi(m[3])
						live = max(live, n)
					}
				})
			if err != nil {
				return e, fmt.Errorf("export of %d trajectories to %s: %w", n, format, err)
			}
			if format == "parquet" {
				rows, err := exporttest.ReadParquet(file)
				if err != nil {
					return e, err
				}
				if len(rows) != n {
					return e, fmt.Errorf("export of %d trajectories: %d rows read back", n, len(rows))
				}
			} else if got, err := exporttest.CheckOpenAI(file); err != nil || got != n {
				return e, fmt.Errorf("export of %d trajectories: %d lines read back (%v)", n, got, err)
			}
			e.Runs = append(e.Runs, ExportRun{Format: format, Trajectories: n, InputBytes: size, Usage: u, Load: load, LiveMB: live})
		}
		os.RemoveAll(dir)
	}
	return e, nil
}

// trajectoryBytes sums the sizes of the trajectory files under dir.
func trajectoryBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".traj.json") {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	return n, err
}

// Rows renders the result: throughput and peak RSS per format at the largest size, and the
// peak RSS against the smallest size's (the goal: flat memory).
func (e Export) Rows() []Row {
	var rows []Row
	for _, format := range []string{"parquet", "openai"} {
		var small, large *ExportRun
		for i := range e.Runs {
			r := &e.Runs[i]
			if r.Format != format {
				continue
			}
			if small == nil || r.Trajectories < small.Trajectories {
				small = r
			}
			if large == nil || r.Trajectories > large.Trajectories {
				large = r
			}
		}
		if large == nil {
			continue
		}
		name := map[string]string{"parquet": "Parquet", "openai": "OpenAI JSONL"}[format]
		rows = append(rows, Row{What: fmt.Sprintf("export: %d synthetic trajectories (%.0f MB) to %s", large.Trajectories, float64(large.InputBytes)/1e6, name),
			Measured: fmt.Sprintf("%.0f trajectories/s (wall %s, load average %s); %.0f per CPU second (CPU %.1f s); peak RSS %.1f MB",
				large.PerSecond(), large.Usage.Wall.Round(10e6), large.Load, large.PerCPUSecond(), large.Usage.CPUSec(), float64(large.Usage.MaxRSSKiB)/1024),
			NA: true})
		if small != large {
			// gctrace counts whole MB: the growth is known to ±1 MB.
			perTraj := float64(large.LiveMB-small.LiveMB) * (1 << 20) / float64(large.Trajectories-small.Trajectories)
			perFile := float64(large.InputBytes) / float64(large.Trajectories)
			rows = append(rows, Row{What: fmt.Sprintf("export memory, %s: %d vs %d trajectories", name, large.Trajectories, small.Trajectories),
				Measured: fmt.Sprintf("peak live heap %d MB vs %d MB: %.0f bytes more per trajectory (a trajectory file: %.1f kB); peak RSS %.1f MB vs %.1f MB",
					large.LiveMB, small.LiveMB, perTraj, perFile/1e3, float64(large.Usage.MaxRSSKiB)/1024, float64(small.Usage.MaxRSSKiB)/1024),
				Goal: "≤ 1 kB per trajectory (none of it held)", Pass: perTraj <= 1024})
		}
	}
	return rows
}
