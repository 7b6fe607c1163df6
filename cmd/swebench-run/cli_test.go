package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// commandPaths lists every available command of the tree (the root as nil), depth first.
func commandPaths(cmd *cobra.Command, path []string) [][]string {
	out := [][]string{path}
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			out = append(out, commandPaths(c, append(append([]string{}, path...), c.Name()))...)
		}
	}
	return out
}

// Every command's help matches its golden file, with examples.
func TestHelpGolden(t *testing.T) {
	root := newRootCmd(nil)
	root.InitDefaultHelpCmd()
	paths := commandPaths(root, nil)
	if len(paths) < 14 {
		t.Fatalf("only %d commands: %v", len(paths), paths)
	}
	for _, path := range paths {
		name := "root"
		if len(path) > 0 {
			name = strings.Join(path, "-")
		}
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(append([]string{}, path...), "--help")...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if !strings.Contains(stdout, "\nExamples:\n  ") {
				t.Errorf("help has no examples:\n%s", stdout)
			}
			golden := filepath.Join("testdata", "help-"+name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestHelpGolden -update to create it)", err)
			}
			if stdout != string(want) {
				t.Errorf("help of %q differs from %s (rerun with -update if intended):\n%s", name, golden, stdout)
			}
		})
	}
}

// The other ways to ask for help print the same text as --help.
func TestHelpForms(t *testing.T) {
	tests := []struct {
		args, same []string
	}{
		{nil, []string{"--help"}},
		{[]string{"-h"}, []string{"--help"}},
		{[]string{"help"}, []string{"--help"}},
		{[]string{"help", "run"}, []string{"run", "--help"}},
		{[]string{"help", "config", "show"}, []string{"config", "show", "--help"}},
		{[]string{"--split", "x", "--help"}, []string{"run", "--help"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, got, stderr := runCLI(t, tt.args...)
			_, want, _ := runCLI(t, tt.same...)
			if code != 0 || stderr != "" || got != want {
				t.Errorf("exit %d, stderr %q, output differs from %v:\n%s", code, stderr, tt.same, got)
			}
		})
	}
}

func TestRunHelpGroupsFlags(t *testing.T) {
	_, out, _ := runCLI(t, "run", "--help")
	// Each section in order, with one of its flags right after its title.
	at := 0
	for _, s := range []string{"Selection:\n      --split DATASET", "Model and config:\n      --model MODEL", "Docker:\n      --workers N",
		"Limits:\n      --memory SIZE", "Resume:\n      --redo-existing", "Evaluation:\n      --eval", "Output:\n  -o, --output DIR",
		"Other flags:\n  -h, --help", "Exit codes:\n  0 "} {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("run --help lacks %q after byte %d:\n%s", s, at, out)
		}
		at += i
	}
	if !strings.Contains(out, "--docker-host URL") || !strings.Contains(out, "[repeatable]") {
		t.Errorf("--docker-host is not shown as repeatable:\n%s", out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || stdout != "swebench-run "+version+"\n" || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, stdout, stderr, "swebench-run "+version+"\n")
		}
	}
}

// A mistyped flag or command is a usage error that names the right one.
func TestSuggestions(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--worker", "4"}, "unknown flag: --worker\n\nDid you mean this?\n\t--workers\n"},
		{[]string{"run", "--split", "x", "--max-atempts", "2"}, "Did you mean this?\n\t--max-attempts\n"},
		{[]string{"run", "--dryrun"}, "Did you mean this?\n\t--dry-run\n"},
		{[]string{"run", "--image-templte", "x"}, "Did you mean this?\n\t--image-template\n"},
		{[]string{"eval", "--prediction", "gold"}, "Did you mean this?\n\t--predictions\n"},
		{[]string{"stats", "--jsn", "dir"}, "Did you mean this?\n\t--json\n"},
		{[]string{"stat"}, "unknown command \"stat\" for \"swebench-run\"\n\nDid you mean this?\n\tstats\n"},
		{[]string{"stat", "--json", "runs/x"}, "Did you mean this?\n\tstats\n"},
		{[]string{"evl"}, "Did you mean this?\n\teval\n"},
		{[]string{"config", "sho"}, "unknown command \"sho\" for \"swebench-run config\"\n\nDid you mean this?\n\tshow\n"},
		{[]string{"help", "inspekt"}, "Did you mean this?\n\tinspect\n"},
		{[]string{"-workers", "4"}, "-workers: long flags take two dashes: --workers"},
		{[]string{"--split", "x", "-output", "out"}, "-output: long flags take two dashes: --output"},
		{[]string{"--split", "x", "-cpus=2"}, "-cpus=2: long flags take two dashes: --cpus"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and stderr with %q", code, stdout, stderr, exitUsage, tt.want)
			}
		})
	}
}

func TestFlagSuggestionsNearest(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	new(runFlags).register(fs)
	tests := []struct {
		typed string
		want  []string
	}{
		{"worker", []string{"--workers"}},
		{"max", []string{"--max-cost", "--max-attempts", "--max-duration"}},
		{"retry-failed", []string{"--retry-failed"}},
		{"instanceids", []string{"--instance-ids"}},
		{"zzzzzz", nil},
	}
	for _, tt := range tests {
		if got := flagSuggestions(fs, tt.typed); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("flagSuggestions(%q) = %v, want %v", tt.typed, got, tt.want)
		}
	}
}

// Every flag of run keeps its name, default and meaning.
func TestRunFlags(t *testing.T) {
	defaults := runFlags{
		workers: 4, maxAttempts: 3, imageTemplate: dataset.DefaultImageTemplate, pull: "missing",
		pullWorkers: 4, platform: "linux/amd64", imageCache: "keep", progress: "auto",
		evalTimeout: eval.DefaultTimeout, sel: dataset.Selection{Seed: dataset.DefaultSeed},
	}
	all := defaults
	all.split, all.model, all.out, all.runID = "lite", "openai/gpt-5", "runs/x", "r1"
	all.workers, all.maxAttempts, all.pullWorkers = 8, 5, 2
	all.configs = []string{"a.yaml", "agent.step_limit=5", "b.yaml"}
	all.sel = dataset.Selection{Filter: "django", Slice: "0:10", Shuffle: true, Seed: 7, Shard: "1/4"}
	all.ids, all.exclude = "a,b", "@skip.txt"
	all.imageTemplate, all.pull, all.platform, all.imageCache = "img/{id}", "never", "linux/arm64", "budget=10GB"
	all.dockerHosts = []string{"unix:///a.sock", "ssh://me@b,workers=3"}
	all.redo, all.dryRun, all.force, all.quiet, all.retryFailed, all.eval = true, true, true, true, true, true
	all.progress, all.memory, all.network = "json", "8g", "none"
	all.cpus, all.pids, all.maxCost = 1.5, 100, 2.5
	all.evalTimeout, all.maxDuration = 10*time.Minute, 8*time.Hour

	outShort := defaults
	outShort.out = "runs/y"
	outShort.configs = []string{"swebench_backticks.yaml"}
	tests := []struct {
		name string
		args []string
		want runFlags
	}{
		{"defaults", nil, defaults},
		{"every flag", []string{
			"--split", "lite", "--model", "openai/gpt-5", "--output", "runs/x", "--run-id", "r1",
			"--workers", "8", "--max-attempts", "5", "--pull-workers", "2",
			"-c", "a.yaml", "--config", "agent.step_limit=5", "-c=b.yaml",
			"--filter", "django", "--slice", "0:10", "--shuffle", "--seed", "7", "--shard", "1/4",
			"--instance-ids", "a,b", "--exclude", "@skip.txt",
			"--image-template", "img/{id}", "--pull", "never", "--platform", "linux/arm64", "--image-cache", "budget=10GB",
			"--docker-host", "unix:///a.sock", "--docker-host", "ssh://me@b,workers=3",
			"--redo-existing", "--dry-run", "--force", "--quiet", "--retry-failed", "--eval",
			"--progress", "json", "--memory", "8g", "--network", "none",
			"--cpus", "1.5", "--pids-limit", "100", "--max-cost", "2.5",
			"--eval-timeout", "10m", "--max-duration", "8h",
		}, all},
		{"short -o and -c", []string{"-o", "runs/y", "-c", "swebench_backticks.yaml"}, outShort},
		{"flag=value", []string{"--output=runs/y", "--config=swebench_backticks.yaml"}, outShort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got runFlags
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			got.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parsed %+v\nwant   %+v", got, tt.want)
			}
		})
	}
}

// Without a command, flags run a batch: the same as `run`.
func TestDefaultCommandRuns(t *testing.T) {
	split := filepath.Join(testenv.RepoRoot(t), "demo", "dataset.jsonl")
	code, explicit, stderr := runCLI(t, "run", "--split", split, "--model", "scripted", "--dry-run", "--slice", "0:3")
	if code != 0 || strings.Count(explicit, "\n") != 3 {
		t.Fatalf("run --dry-run: exit %d, stdout %q, stderr %q", code, explicit, stderr)
	}
	code, implicit, stderr := runCLI(t, "--split", split, "--model", "scripted", "--dry-run", "--slice", "0:3")
	if code != 0 || implicit != explicit {
		t.Errorf("without run: exit %d, stdout %q (want %q), stderr %q", code, implicit, explicit, stderr)
	}
}

// `completion bash` prints a bash completion script; the completion requests it makes list the
// subcommands and the flags, and bash itself completes with it.
func TestCompletionBash(t *testing.T) {
	code, script, stderr := runCLI(t, "completion", "bash")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"# bash completion V2 for swebench-run", "__start_swebench-run()", "complete -o default -F __start_swebench-run swebench-run", " __complete "} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	// The script asks the binary: `swebench-run __complete WORDS…`.
	_, subs, _ := runCLI(t, "__complete", "")
	root := newRootCmd(nil)
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && !strings.Contains(subs, "\n"+c.Name()+"\t") && !strings.HasPrefix(subs, c.Name()+"\t") {
			t.Errorf("__complete does not offer %s:\n%s", c.Name(), subs)
		}
	}
	if _, flags, _ := runCLI(t, "__complete", "--wor"); !strings.HasPrefix(flags, "--workers\t") {
		t.Errorf("__complete --wor = %q, want --workers (run is the default command)", flags)
	}
	if _, pulls, _ := runCLI(t, "__complete", "run", "--pull", ""); !strings.HasPrefix(pulls, "missing\nalways\nnever\n") {
		t.Errorf("__complete run --pull '' = %q", pulls)
	}
	for _, shell := range []string{"zsh", "fish", "powershell"} {
		if code, out, _ := runCLI(t, "completion", shell); code != 0 || !strings.Contains(out, "swebench-run") {
			t.Errorf("completion %s: exit %d, %d bytes", shell, code, len(out))
		}
	}

	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here to check the script with")
	}
	path := filepath.Join(t.TempDir(), "swebench-run.bash")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bash, "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("bash -n rejects the script: %v\n%s", err, out)
	}
	if testing.Short() {
		return
	}
	// Complete for real: the binary on PATH, the words in COMP_WORDS. _get_comp_words_by_ref
	// comes from the bash-completion package; a minimal one stands in when it is not installed.
	bin := binary(t)
	complete := func(words ...string) []string {
		t.Helper()
		prog := `[ -f /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
if ! declare -F _get_comp_words_by_ref >/dev/null; then
  _get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
fi
. "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
__start_swebench-run swebench-run "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, append([]string{"-c", prog, "bash", path}, words...)...)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("completing %q: %v", words, err)
		}
		return strings.Fields(string(out))
	}
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{"swebench-run", "sta"}, "stats"},
		{[]string{"swebench-run", "run", "--work"}, "--workers"},
		{[]string{"swebench-run", "--split", "verif"}, "verified"},
		{[]string{"swebench-run", "config", "sh"}, "show"},
	}
	for _, tt := range tests {
		if got := complete(tt.words...); !reflect.DeepEqual(got, []string{tt.want}) {
			t.Errorf("bash completes %q to %q, want [%s]", tt.words, got, tt.want)
		}
	}
}

// --image-template names the images of rows without an image column; given explicitly, it names
// every row's (a registry mirror of SWE-bench's images, whose rows carry an image column).
func TestImageTemplateExplicitOverridesRowImage(t *testing.T) {
	split := filepath.Join(testenv.RepoRoot(t), "demo", "dataset.jsonl")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"row image", nil, "demo__confparse-31\tswebench-run-demo/sweb.eval.x86_64.demo_1776_confparse-31:latest\n"},
		{"explicit template", []string{"--image-template", "ghcr.io/mirror/{id}:v1"}, "demo__confparse-31\tghcr.io/mirror/demo__confparse-31:v1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "--split", split, "--dry-run", "--slice", "0:1"}, tt.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 || stdout != tt.want {
				t.Errorf("exit %d, stdout %q, want %q\n%s", code, stdout, tt.want, stderr)
			}
		})
	}
}
