package historyguard

import (
	"context"
	"errors"
	"testing"

	"github.com/swebench-run/swebench-run/sandbox"
)

type fakeExec func(command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error)

func (f fakeExec) Exec(_ context.Context, command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
	return f(command, opts)
}

const hash = "81f427870194e49590a304c70d31a04e22f2c888"

// What the script's output means: ok, no repository, a failure, a lie; as-is runs nothing.
func TestRunReadsTheScript(t *testing.T) {
	died := &sandbox.DiedError{Err: errors.New("gone")}
	tests := []struct {
		name    string
		mode    string
		layout  Layout
		out     sandbox.ExecResult
		execErr error
		applied string
		wantErr any // nil, *Error or the exec's error
	}{
		{"past", Past, Layout{Repo: "/testbed"}, sandbox.ExecResult{Output: "guard: ok dir=/testbed mode=past head=" + hash + " start=" + hash + " submodules=1\n"}, nil, Past, nil},
		{"past where the past is the answer", Past, Layout{Repo: "/testbed", PastIsAnswer: true}, sandbox.ExecResult{Output: "guard: ok dir=/testbed mode=none head=" + hash + " start=" + hash + "\n"}, nil, None, nil},
		{"no repository", None, Layout{Repo: "/app"}, sandbox.ExecResult{Output: "guard: no-repository dir=/app reason=no-.git\n"}, nil, NoRepository, nil},
		{"as-is runs nothing", AsIs, Layout{Repo: "/testbed"}, sandbox.ExecResult{ExitCode: 1}, errors.New("must not run"), AsIs, nil},
		{"the script fails", Past, Layout{Repo: "/testbed"}, sandbox.ExecResult{ExitCode: 1, Output: "guard: failed: git status or git diff changed\n"}, nil, "", &Error{}},
		{"a mode the script did not apply", Past, Layout{Repo: "/testbed"}, sandbox.ExecResult{Output: "guard: ok dir=/testbed mode=none head=" + hash + " start=" + hash + "\n"}, nil, "", &Error{}},
		{"output that is not the script's", Past, Layout{Repo: "/testbed"}, sandbox.ExecResult{Output: "hello\n"}, nil, "", &Error{}},
		{"timed out", Past, Layout{Repo: "/testbed"}, sandbox.ExecResult{TimedOut: true, ExitCode: 137}, nil, "", &Error{}},
		{"the sandbox died", Past, Layout{Repo: "/testbed"}, sandbox.ExecResult{}, died, "", died},
		{"a relative directory", Past, Layout{Repo: "testbed"}, sandbox.ExecResult{}, nil, "", &Error{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env map[string]string
			res, err := Run(context.Background(), fakeExec(func(command string, opts sandbox.ExecOptions) (sandbox.ExecResult, error) {
				env = opts.Env
				return tt.out, tt.execErr
			}), tt.mode, tt.layout)
			switch want := tt.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if res.Applied != tt.applied {
					t.Errorf("applied %q, want %q", res.Applied, tt.applied)
				}
				if tt.mode != AsIs && env["GUARD_MODE"] != map[bool]string{true: None, false: tt.mode}[tt.layout.PastIsAnswer] {
					t.Errorf("the script ran with mode %q", env["GUARD_MODE"])
				}
			case *Error:
				var ge *Error
				if !errors.As(err, &ge) {
					t.Errorf("err = %v, want a *historyguard.Error", err)
				}
			default:
				if !errors.Is(err, want.(error)) {
					t.Errorf("err = %v, want %v", err, want)
				}
			}
		})
	}
	if _, err := ParseMode("all"); err == nil {
		t.Error("mode all accepted")
	}
}
