// Package historyguard reduces the repository in an instance's sandbox to the task's start
// before the agent's first command: HEAD (at the commit the task starts from) and, with
// environment.history past, its ancestors; with none, one root commit of HEAD's tree. Every other
// ref, every remote and reflog, the alternates and every object that HEAD and the index do not
// reach are removed; the working tree, the index and what `git status` and `git diff` say stay as
// they were. It runs a POSIX sh script (guard.sh, embedded) through the sandbox's exec with the
// image's own git, so it works on every backend.
package historyguard

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/sandbox"
)

//go:embed guard.sh
var script string

// Modes of environment.history.
const (
	Past = "past"  // HEAD and its ancestors stay (the default)
	None = "none"  // one root commit with HEAD's tree: no past
	AsIs = "as-is" // the image's repository untouched
)

// Modes are the values environment.history takes, in the order docs list them.
var Modes = []string{Past, None, AsIs}

// ParseMode checks a mode of environment.history; "" is Past.
func ParseMode(s string) (string, error) {
	switch s {
	case "":
		return Past, nil
	case Past, None, AsIs:
		return s, nil
	}
	return "", fmt.Errorf("history %q: want past, none or as-is", s)
}

// Layout is what a family's images need of the guard (see family.History).
type Layout struct {
	// Repo is the repository's working directory in the sandbox.
	Repo string
	// PastIsAnswer: HEAD's ancestors hold the fix (SWE-smith: the clean code is HEAD~2), so
	// past keeps none of them, as none does.
	PastIsAnswer bool
}

// DefaultTimeout bounds the guard's script.
const DefaultTimeout = 30 * time.Minute

// Execer is what the guard needs of a sandbox.
type Execer interface {
	Exec(ctx context.Context, command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error)
}

// Result is what the guard did, as recorded in status.jsonl and the trajectory's info.
type Result struct {
	// Mode is the mode asked for (past, none, as-is).
	Mode string `json:"mode"`
	// Applied is what was done: the mode, "none" for past on a layout whose past is the
	// answer, "no repository" when the directory holds none, "as-is" when the guard was off.
	Applied string `json:"applied"`
	Repo    string `json:"repo,omitempty"`
	// Head is the commit HEAD was at; Start the commit it is at after the guard (Head with
	// past, a root commit of Head's tree with none).
	Head       string  `json:"head,omitempty"`
	Start      string  `json:"start,omitempty"`
	Submodules int     `json:"submodules,omitempty"` // submodules' repositories guarded too
	Seconds    float64 `json:"seconds"`
	Note       string  `json:"note,omitempty"`
}

// NoRepository is Result.Applied when the working directory holds no repository.
const NoRepository = "no repository"

// Error is a failed guard: the instance ends with an infrastructure failure, never as-is.
type Error struct {
	Repo string
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("history guard of %s: %s: %v", e.Repo, e.Msg, e.Err)
	}
	return fmt.Sprintf("history guard of %s: %s", e.Repo, e.Msg)
}
func (e *Error) Unwrap() error { return e.Err }

// Run guards the repository of layout in sb with mode. With AsIs it does nothing. A sandbox
// error (the sandbox died, the backend is down) is returned as it is, so that its status is kept;
// the script's failure is an *Error.
func Run(ctx context.Context, sb Execer, mode string, layout Layout) (Result, error) {
	mode, err := ParseMode(mode)
	if err != nil {
		return Result{}, err
	}
	res := Result{Mode: mode, Applied: mode, Repo: layout.Repo}
	if mode == AsIs {
		return res, nil
	}
	applied := mode
	if layout.PastIsAnswer {
		applied = None
	}
	if layout.Repo == "" || !strings.HasPrefix(layout.Repo, "/") {
		return res, &Error{Repo: layout.Repo, Msg: "the repository's directory is not an absolute path"}
	}
	start := time.Now()
	out, err := sb.Exec(ctx, script, sandbox.ExecOptions{
		Timeout:     DefaultTimeout,
		Cwd:         "/",
		Interpreter: []string{"sh", "-c"},
		Env:         map[string]string{"GUARD_REPO": layout.Repo, "GUARD_MODE": applied},
		MaxOutput:   64 << 10,
	})
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		return res, err
	}
	last := lastLine(out.Output)
	switch {
	case out.TimedOut:
		return res, &Error{Repo: layout.Repo, Msg: fmt.Sprintf("timed out after %s", DefaultTimeout)}
	case out.ExitCode != 0 || !strings.HasPrefix(last, "guard: "):
		return res, &Error{Repo: layout.Repo, Msg: fmt.Sprintf("exited with %d: %s", out.ExitCode, tail(out.Output, 2000))}
	}
	fields := strings.Fields(strings.TrimPrefix(last, "guard: "))
	kv := map[string]string{}
	for _, f := range fields[1:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = v
		}
	}
	switch fields[0] {
	case "no-repository":
		res.Applied = NoRepository
		res.Note = "no git repository at " + layout.Repo + " (" + kv["reason"] + ")"
		return res, nil
	case "ok":
	default:
		return res, &Error{Repo: layout.Repo, Msg: "unexpected output: " + tail(out.Output, 2000)}
	}
	res.Applied = applied
	if kv["mode"] != applied || !isHash(kv["start"]) && kv["start"] != "unborn" {
		return res, &Error{Repo: layout.Repo, Msg: "unexpected output: " + tail(out.Output, 2000)}
	}
	res.Head, res.Start = kv["head"], kv["start"]
	if d := kv["dir"]; d != "" && d != layout.Repo {
		res.Note = "the repository's top level is " + d
	}
	fmt.Sscan(kv["submodules"], &res.Submodules)
	if layout.PastIsAnswer && mode == Past {
		res.Note = strings.TrimSpace(res.Note + " HEAD's past holds the fix in this family's images: past keeps none of it")
	}
	return res, nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
