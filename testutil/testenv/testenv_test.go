package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/corpus"
)

// fakeTB records what Fixtures does to a test: skip, fail, cleanups.
type fakeTB struct {
	testing.TB // nil: methods Fixtures must not call panic
	name       string
	skipped    bool
	failed     bool
	msg        string
	cleanups   []func()
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Name() string      { return f.name }
func (f *fakeTB) Skipped() bool     { return f.skipped }
func (f *fakeTB) Failed() bool      { return f.failed }
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Skip(args ...any) {
	f.skipped, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatal(args ...any) {
	f.failed, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
}

// fixtures runs Fixtures as the fake test name would, then its cleanups, and returns the path.
func (f *fakeTB) fixtures(parts ...string) string {
	var p string
	done := make(chan struct{})
	go func() {
		defer close(done)
		p = Fixtures(f, parts...)
	}()
	<-done
	for k := len(f.cleanups) - 1; k >= 0; k-- {
		f.cleanups[k]()
	}
	return p
}

func TestFixtures(t *testing.T) {
	tests := []struct {
		name        string
		ci          string
		realMirror  bool // the real corpus as the mirror (the subtest skips without it); else an empty one
		parts       []string
		wantSkip    bool
		wantFail    bool
		wantMsg     string
		wantLogLine string
	}{
		{name: "missing", parts: []string{"trajectories", "results.json"}, wantSkip: true, wantMsg: "run `make testdata`", wantLogLine: "skipped\ttestutil/testenv\tfake/missing"},
		{name: "missing in CI", ci: "true", parts: []string{"trajectories/results.json"}, wantFail: true, wantMsg: "CI is set and test corpus file trajectories/results.json is not in the cache", wantLogLine: "failed\ttestutil/testenv\tfake/missing in CI"},
		{name: "directory", parts: []string{"runs", "deepseek-chat-lite-dev"}, wantSkip: true, wantMsg: "(nor 119 more); run `make testdata` (not in the mirror"},
		{name: "not listed", parts: []string{"trajectories", "nope.json"}, wantFail: true, wantMsg: "not in the test corpus manifest"},
		{name: "from the mirror", realMirror: true, parts: []string{"trajectories", "results.json"}, wantLogLine: "ran\ttestutil/testenv\tfake/from the mirror"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mirror := t.TempDir()
			if tt.realMirror {
				// The cache of the real corpus is laid out as a mirror (skips without it).
				real := Fixtures(t, "trajectories", "results.json")
				mirror = strings.TrimSuffix(real, filepath.Join("trajectories", "results.json"))
			}
			cache := t.TempDir()
			t.Setenv(corpus.EnvCache, cache)
			t.Setenv(corpus.EnvMirror, mirror)
			t.Setenv("CI", tt.ci)
			log := filepath.Join(t.TempDir(), "corpus.log")
			t.Setenv(EnvCorpusLog, log)

			f := &fakeTB{name: "fake/" + tt.name}
			p := f.fixtures(tt.parts...)
			if f.skipped != tt.wantSkip || f.failed != tt.wantFail {
				t.Fatalf("skipped %v, failed %v (%s); want skipped %v, failed %v", f.skipped, f.failed, f.msg, tt.wantSkip, tt.wantFail)
			}
			if !strings.Contains(f.msg, tt.wantMsg) || strings.Contains(f.msg, "\n") {
				t.Errorf("message %q: want one line containing %q", f.msg, tt.wantMsg)
			}
			if !tt.wantSkip && !tt.wantFail {
				if want := filepath.Join(cache, filepath.Join(tt.parts...)); p != want {
					t.Errorf("path %s, want %s", p, want)
				}
				if _, err := os.Stat(p); err != nil {
					t.Error(err)
				}
			}
			if tt.wantLogLine != "" {
				data, err := os.ReadFile(log)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := string(data), tt.wantLogLine+"\n"; got != want {
					t.Errorf("%s = %q, want %q", EnvCorpusLog, got, want)
				}
			}
		})
	}
}
