// Package pyparser runs a test-log parser that a dataset row carries as Python source (the
// log_parser column of SWE-bench-Live's MultiLang rows) inside a sandbox — a container with
// Python 3.10 or newer — and never in this process: the source is code from a dataset.
//
// It does what SWE-bench-Live's harness does with such a parser (RepoLaunch's run_parser): the
// source is executed in a fresh namespace, its function parser is called on the log with stdout
// and stderr captured, and a false result counts as an empty map. A parser that raises, defines
// no function parser, or returns anything but a map of strings is a *ParserError carrying the
// traceback, as the harness records such an instance as an error.
package pyparser

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/sandbox"
)

// Sandbox is what Run needs of a sandbox (a family.Sandbox, an eval.Sandbox; Adapt makes one of
// a sandbox.Sandbox).
type Sandbox interface {
	// Exec runs `bash -c cmd` with a timeout enforced in the sandbox; output is stdout and
	// stderr merged, capped at its tail; err is for failures of the sandbox.
	Exec(ctx context.Context, cmd string, timeout time.Duration) (output string, exitCode int, timedOut bool, err error)
	// WriteFile writes data to an absolute path in the sandbox, whose directory exists.
	WriteFile(ctx context.Context, path string, data []byte) error
}

// Adapt returns sb as a Sandbox: commands run in /, their output capped at maxOutput (0:
// sandbox.DefaultMaxOutput) keeping its tail.
func Adapt(sb sandbox.Sandbox, maxOutput int) Sandbox { return adapted{sb, maxOutput} }

type adapted struct {
	sb        sandbox.Sandbox
	maxOutput int
}

func (a adapted) Exec(ctx context.Context, cmd string, timeout time.Duration) (string, int, bool, error) {
	res, err := a.sb.Exec(ctx, cmd, sandbox.ExecOptions{Timeout: timeout, Cwd: "/", MaxOutput: a.maxOutput})
	if err != nil {
		return "", 0, false, err
	}
	return res.Output, res.ExitCode, res.TimedOut, nil
}

func (a adapted) WriteFile(ctx context.Context, path string, data []byte) error {
	return a.sb.WriteFile(ctx, path, data)
}

// DefaultTimeout bounds one parser run when Run is given none.
const DefaultTimeout = 5 * time.Minute

//go:embed driver.py
var driver []byte

// replyMark starts the driver's reply line (driver.py's MARK).
const replyMark = "@@swebench-run-parser-reply@@"

// ErrNoPython means the sandbox has no Python 3.10 or newer to run a parser in (the parsers use
// 3.10 syntax); run them in a container of a Python image instead.
var ErrNoPython = errors.New("no Python 3.10 or newer in the sandbox")

// ParserError is a parser that failed the way the harness sees it fail: it raised, defined no
// function parser, or returned something other than a map from test name to status string.
type ParserError struct {
	Traceback string // Python's traceback
	Stderr    string // what the parser wrote to stderr before it failed
}

func (e *ParserError) Error() string {
	return "the row's log_parser failed: " + lastLine(e.Traceback)
}

// Entry is one item of the map a parser returned.
type Entry struct {
	// Test is the key as the harness's json.dump writes it into status.json: a str as it is, an
	// int, float, bool or None as its JSON text ("5", "1.5", "true", "null").
	Test   string
	Status string
	// NotStr marks a key that was not a Python str: the harness keeps it as it is, so it equals
	// no test name of FAIL_TO_PASS or PASS_TO_PASS ({5: "pass"} does not pass the test "5").
	NotStr bool
}

// Run runs the parser source on log in sb and returns the map it returned, in its order
// (statuses verbatim: SWE-bench-Live's parsers write "pass", "fail" and "skip"). timeout bounds
// the run (0: DefaultTimeout). Errors: a *ParserError for a failing parser, ErrNoPython (wrapped)
// when sb has no suitable Python, a timeout error, or the sandbox's own error.
func Run(ctx context.Context, sb Sandbox, source, log string, timeout time.Duration) ([]Entry, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rnd := make([]byte, 8)
	if _, err := rand.Read(rnd); err != nil {
		return nil, err
	}
	// One file, in /tmp (which exists): the driver removes it once read.
	req := "/tmp/swebench-run-parser-" + hex.EncodeToString(rnd) + ".json"
	data, err := json.Marshal(map[string]string{"source": source, "log": log})
	if err != nil {
		return nil, fmt.Errorf("parser request: %w", err)
	}
	if err := sb.WriteFile(ctx, req, data); err != nil {
		return nil, fmt.Errorf("parser sandbox: write %s: %w", req, err)
	}
	// In /, so that a parser that looks for files finds none of the repository's. -I: no PYTHON*
	// variables, no user site, no script directory on sys.path.
	cmd := `cd / || exit 1
py=$(command -v python3 || command -v python) || { echo 'no python3 or python on PATH'; rm -f ` + req + `; exit 127; }
exec "$py" -I -c '` + strings.ReplaceAll(string(driver), "'", `'\''`) + `' ` + req
	out, code, timedOut, err := sb.Exec(ctx, cmd, timeout)
	if err != nil || timedOut {
		// A run killed early leaves the request behind.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		sb.Exec(cctx, "rm -f "+req, time.Minute)
		cancel()
	}
	if err != nil {
		return nil, fmt.Errorf("parser sandbox: %w", err)
	}
	if timedOut {
		return nil, fmt.Errorf("the row's log_parser ran longer than %s and was killed", timeout)
	}
	i := strings.LastIndex(out, replyMark)
	if i < 0 {
		if code == 127 {
			return nil, fmt.Errorf("%w: %s", ErrNoPython, lastLine(out))
		}
		return nil, fmt.Errorf("parser driver gave no reply (exit %d; a Python older than 3, a broken interpreter, or a reply larger than the sandbox keeps?): %s", code, lastLine(out))
	}
	line, _, _ := strings.Cut(out[i+len(replyMark):], "\n")
	var reply struct {
		Status *[][]any `json:"status"`
		Error  *string  `json:"error"`
		Stderr string   `json:"stderr"`
		Python string   `json:"python"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(line)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&reply); err != nil {
		return nil, fmt.Errorf("parser driver reply: %w", err)
	}
	switch {
	case reply.Python != "":
		return nil, fmt.Errorf("%w: the sandbox's Python is %s", ErrNoPython, reply.Python)
	case reply.Error != nil:
		return nil, &ParserError{Traceback: *reply.Error, Stderr: reply.Stderr}
	case reply.Status == nil:
		return nil, errors.New("parser driver reply has neither status nor error")
	}
	entries := make([]Entry, 0, len(*reply.Status))
	for _, item := range *reply.Status {
		var e Entry
		var isStr, ok1, ok2, ok3 bool
		if len(item) == 3 {
			e.Test, ok1 = item[0].(string)
			e.Status, ok2 = item[1].(string)
			isStr, ok3 = item[2].(bool)
		}
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("parser driver reply: status item %v is not [test, status, is_str]", item)
		}
		e.NotStr = !isStr
		entries = append(entries, e)
	}
	return entries, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
