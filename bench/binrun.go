package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/model"
)

// BuildBinary builds the launcher (into launcher/bin, as make launcher does, for this
// machine's architecture) and cmd/swebench-run into dir and returns its path.
func BuildBinary(ctx context.Context, dir string) (string, error) {
	if err := buildLauncher(ctx); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "swebench-run")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/swebench-run")
	cmd.Dir = RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w: %s", err, out)
	}
	return bin, nil
}

// WriteDataset writes a JSONL dataset of ids on the base image and a scripted.yaml giving each
// of scripted the given turns; it returns the paths.
func WriteDataset(dir string, ids []string, scripted map[string][]model.ScriptedTurn) (jsonl, script string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	var b bytes.Buffer
	for _, id := range ids {
		line, _ := json.Marshal(map[string]string{"instance_id": id, "problem_statement": "Benchmark task " + id + ": do nothing.", "image": BaseImage, "repo": "bench/bench"})
		b.Write(line)
		b.WriteByte('\n')
	}
	jsonl, script = filepath.Join(dir, "dataset.jsonl"), filepath.Join(dir, "scripted.yaml")
	if err := os.WriteFile(jsonl, b.Bytes(), 0o644); err != nil {
		return "", "", err
	}
	type turn struct {
		Content  string   `yaml:"content"`
		Commands []string `yaml:"commands"`
		Delay    string   `yaml:"delay,omitempty"`
	}
	out := map[string][]turn{}
	for id, ts := range scripted {
		for _, t := range ts {
			tt := turn{Content: t.Content, Commands: t.Commands}
			if t.Delay > 0 {
				tt.Delay = t.Delay.String()
			}
			out[id] = append(out[id], tt)
		}
	}
	data, err := yaml.Marshal(out)
	if err != nil {
		return "", "", err
	}
	return jsonl, script, os.WriteFile(script, data, 0o644)
}

// RunArgs are the flags of every benchmark run of the binary besides dataset, model and output.
func RunArgs(workers int) []string {
	return []string{"--workers", strconv.Itoa(workers), "-c", "environment.cwd=/tmp", "--network", Network, "--pull", "never"}
}

// Usage is what /usr/bin/time -v reports about a process.
type Usage struct {
	Wall      time.Duration
	MaxRSSKiB int64
	UserSec   float64
	SysSec    float64
	ExitCode  int
}

func (u Usage) CPUSec() float64 { return u.UserSec + u.SysSec }

var (
	reRSS  = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
	reUser = regexp.MustCompile(`User time \(seconds\): ([\d.]+)`)
	reSys  = regexp.MustCompile(`System time \(seconds\): ([\d.]+)`)
)

// TimeBinary runs bin args under `/usr/bin/time -v` and returns its resource usage. stderr of
// the binary goes to stderrTo (nil: discarded); onLine, when set, sees each stderr line as it
// arrives, with the time since the process started.
func TimeBinary(ctx context.Context, bin string, args []string, onLine func(line string, since time.Duration)) (Usage, error) {
	return TimeBinaryEnv(ctx, bin, args, nil, onLine)
}

// TimeBinaryEnv is TimeBinary with env (KEY=VALUE) added to the binary's environment.
func TimeBinaryEnv(ctx context.Context, bin string, args, env []string, onLine func(line string, since time.Duration)) (Usage, error) {
	tf, err := os.CreateTemp("", "bench-time-*")
	if err != nil {
		return Usage{}, err
	}
	tf.Close()
	defer os.Remove(tf.Name())
	cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-v", "-o", tf.Name(), bin}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	var tail bytes.Buffer
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if onLine != nil {
				onLine(sc.Text(), time.Since(start))
			}
			tail.WriteString(sc.Text() + "\n")
			if tail.Len() > 16<<10 {
				tail.Next(tail.Len() - 8<<10)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	if err := cmd.Start(); err != nil {
		return Usage{}, fmt.Errorf("/usr/bin/time (apt-get install time): %w", err)
	}
	werr := cmd.Wait()
	wall := time.Since(start)
	pw.Close()
	<-done
	u := Usage{Wall: wall, ExitCode: cmd.ProcessState.ExitCode()}
	rep, err := os.ReadFile(tf.Name())
	if err != nil {
		return u, err
	}
	if m := reRSS.FindSubmatch(rep); m != nil {
		u.MaxRSSKiB, _ = strconv.ParseInt(string(m[1]), 10, 64)
	}
	if m := reUser.FindSubmatch(rep); m != nil {
		u.UserSec, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := reSys.FindSubmatch(rep); m != nil {
		u.SysSec, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if werr != nil && u.ExitCode != 0 {
		return u, fmt.Errorf("%s exited with %d: %s", filepath.Base(bin), u.ExitCode, strings.TrimSpace(tail.String()))
	}
	return u, nil
}
