package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestOutputBuffer(t *testing.T) {
	tests := []struct {
		name        string
		max         int
		writes      []string
		want        string
		wantDropped int64
	}{
		{"empty", 8, nil, "", 0},
		{"fits", 8, []string{"abc", "def"}, "abcdef", 0},
		{"exactly full", 8, []string{"abcdefgh"}, "abcdefgh", 0},
		{"head and tail", 8, []string{"abcdefghij"}, "abcd\n[swebench-run: 2 bytes of output elided]\nghij", 2},
		{"tail wraps around", 8, []string{"abcd", "efgh", "ijk", "lmnop"}, "abcd\n[swebench-run: 8 bytes of output elided]\nmnop", 8},
		{"byte by byte", 4, strings.Split("0123456789", ""), "01\n[swebench-run: 6 bytes of output elided]\n89", 6},
		{"odd max keeps the extra byte in the tail", 5, []string{"0123456789"}, "01\n[swebench-run: 5 bytes of output elided]\n789", 5},
		{"invalid UTF-8 replaced", 8, []string{"a\xffb"}, "a\uFFFDb", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewOutputBuffer(tt.max)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := b.String(); got != tt.want || b.Dropped() != tt.wantDropped {
				t.Errorf("got (%q, %d), want (%q, %d)", got, b.Dropped(), tt.want, tt.wantDropped)
			}
		})
	}
	t.Run("default cap", func(t *testing.T) {
		b := NewOutputBuffer(0)
		chunk := []byte(strings.Repeat("x", 4096))
		for range 1024 {
			b.Write(chunk)
		}
		if got, want := b.Dropped(), int64(4<<20-DefaultMaxOutput); got != want {
			t.Errorf("dropped %d of 4 MiB, want %d", got, want)
		}
	})
}

func TestCommandArgv(t *testing.T) {
	tests := []struct {
		interp []string
		want   string
	}{
		{nil, `sh -c exec "$@" 2>&1 sh bash -c echo hi`},
		{[]string{"sh", "-c"}, `sh -c exec "$@" 2>&1 sh sh -c echo hi`},
		{[]string{"python3", "-c"}, `sh -c exec "$@" 2>&1 sh python3 -c echo hi`},
	}
	for _, tt := range tests {
		if got := strings.Join(CommandArgv(tt.interp, "echo hi"), " "); got != tt.want {
			t.Errorf("CommandArgv(%q) = %s, want %s", tt.interp, got, tt.want)
		}
	}
}

func TestSpecWithDefaults(t *testing.T) {
	got := Spec{Image: "i"}.WithDefaults()
	want := Spec{Image: "i", Role: "agent", Cwd: "/testbed", Lifetime: 4 * time.Hour}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	kept := Spec{Role: "eval", Cwd: "/tmp", Lifetime: time.Minute}
	if got := kept.WithDefaults(); fmt.Sprint(got) != fmt.Sprint(kept) {
		t.Errorf("set fields changed: got %+v, want %+v", got, kept)
	}
}

func TestDiedError(t *testing.T) {
	cause := errors.New("exec: no such container")
	tests := []struct {
		err        *DiedError
		wantStatus string
		wantMsg    string
	}{
		{&DiedError{Name: "c", ExitCode: 137, Err: cause}, "ContainerDied", "container c is no longer running (exit code 137): exec: no such container"},
		{&DiedError{Name: "c", OOMKilled: true, ExitCode: 137, Err: cause}, "OOMKilled", "container c was killed for exceeding its memory limit (OOM)"},
	}
	for _, tt := range tests {
		wrapped := fmt.Errorf("step 3: %w", tt.err)
		var died *DiedError
		if !errors.As(wrapped, &died) || !errors.Is(wrapped, cause) {
			t.Errorf("%v: not found through a wrap", tt.err)
		}
		if got := tt.err.ExitStatus(); got != tt.wantStatus {
			t.Errorf("ExitStatus = %s, want %s", got, tt.wantStatus)
		}
		if got := tt.err.Error(); got != tt.wantMsg {
			t.Errorf("Error = %q, want %q", got, tt.wantMsg)
		}
	}
}
