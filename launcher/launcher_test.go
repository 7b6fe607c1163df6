package launcher

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/launcher/wire"
)

// fake is a launcher played by the test: it reads the session's greeting and requests from
// the session's stdin and answers what script says for each request.
type fake struct {
	s     *Session
	out   *wire.Writer
	ended func(exited bool)
}

type buffer struct{ strings.Builder }

func (b *buffer) Skip(n int64) { b.WriteString("[" + strings.Repeat(".", int(n)) + "]") }

// newFake starts a session on pipes; script gets each request's id and kind and answers
// through f (it may end the stream with f.ended).
func newFake(t *testing.T, script func(f *fake, fr wire.Frame)) *fake {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &fake{}
	// Closing the stream ends it, as a backend's reading goroutine then does; a kill ends it
	// too, as the launcher's exit would.
	var mu sync.Mutex
	f.s = New(Stream{Stdin: inW, Close: func() { inW.Close(); f.ended(false) },
		Kill: func(context.Context, int) error { f.ended(true); return nil }}, nil)
	var endOnce bool
	f.ended = func(exited bool) {
		mu.Lock()
		defer mu.Unlock()
		if !endOnce {
			endOnce = true
			outW.Close()
			f.s.End(nil, exited)
		}
	}
	go func() { _, _ = io.Copy(f.s, outR) }()
	go func() {
		k, err := wire.ReadGreeting(inR)
		if err != nil {
			return
		}
		f.out = wire.NewWriter(outW, k, wire.ToClient)
		_ = f.out.Write(wire.Frame{Kind: wire.KindHello, Payload: wire.EncodeHello(99)})
		dec := wire.NewDecoder(k, wire.ToLauncher, wire.MaxToLauncher, func(fr wire.Frame) error {
			script(f, fr)
			return nil
		})
		_, _ = io.Copy(dec, inR)
	}()
	if err := f.s.Handshake(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.s.Close)
	return f
}

func (f *fake) send(kind wire.Kind, id uint64, payload []byte) {
	_ = f.out.Write(wire.Frame{Kind: kind, ID: id, Payload: payload})
}

func runOnce(t *testing.T, f *fake, ctx context.Context) (wire.Result, string, error) {
	t.Helper()
	var out buffer
	res, err := f.s.Run(ctx, wire.Request{Argv: []string{"true"}, Cwd: "/"}, &out)
	return res, out.String(), err
}

func TestSession(t *testing.T) {
	StartTimeout, CancelTimeout = 2*time.Second, 2*time.Second
	tests := []struct {
		name     string
		script   func(f *fake, fr wire.Frame)
		cancel   bool
		wantOut  string
		wantCode int32
		wantErr  func(error) bool
	}{
		{"result", func(f *fake, fr wire.Frame) {
			f.send(wire.KindAccepted, fr.ID, nil)
			f.send(wire.KindStarted, fr.ID, nil)
			f.send(wire.KindOutput, fr.ID, []byte("head"))
			f.send(wire.KindElided, fr.ID, []byte{0, 0, 0, 0, 0, 0, 0, 3})
			f.send(wire.KindOutput, fr.ID, []byte("tail"))
			f.send(wire.KindResult, fr.ID, wire.EncodeResult(wire.Result{ExitCode: 3}))
		}, false, "head[...]tail", 3, nil},
		{"not started", func(f *fake, fr wire.Frame) {
			f.send(wire.KindAccepted, fr.ID, nil)
			f.send(wire.KindNotStarted, fr.ID, []byte("no such directory"))
		}, false, "", 0, func(err error) bool { return errors.Is(err, ErrNotStarted) }},
		{"launcher ended before it took the request", func(f *fake, fr wire.Frame) { f.ended(true) },
			false, "", 0, func(err error) bool { return errors.Is(err, ErrGone) }},
		{"stream cut before the request was taken (the launcher may live)", func(f *fake, fr wire.Frame) { f.ended(false) },
			false, "", 0, func(err error) bool { var l *LostError; return errors.As(err, &l) }},
		{"launcher ended while the command ran", func(f *fake, fr wire.Frame) {
			f.send(wire.KindAccepted, fr.ID, nil)
			f.send(wire.KindStarted, fr.ID, nil)
			f.ended(true)
		}, false, "", 0, func(err error) bool { var l *LostError; return errors.As(err, &l) }},
		{"a frame of another request", func(f *fake, fr wire.Frame) {
			f.send(wire.KindAccepted, fr.ID+1, nil)
		}, false, "", 0, func(err error) bool { var l *LostError; return errors.As(err, &l) }},
		{"output before the start", func(f *fake, fr wire.Frame) {
			f.send(wire.KindAccepted, fr.ID, nil)
			f.send(wire.KindOutput, fr.ID, []byte("x"))
		}, false, "", 0, func(err error) bool { var l *LostError; return errors.As(err, &l) }},
		{"no answer: killed, nothing ran", func(f *fake, fr wire.Frame) {}, false, "", 0,
			func(err error) bool { return errors.Is(err, ErrGone) }},
		{"cancelled", func(f *fake, fr wire.Frame) {
			switch fr.Kind {
			case wire.KindRun:
				f.send(wire.KindAccepted, fr.ID, nil)
				f.send(wire.KindStarted, fr.ID, nil)
			case wire.KindCancel:
				f.send(wire.KindResult, fr.ID, wire.EncodeResult(wire.Result{ExitCode: 143, TimedOut: true}))
			}
		}, true, "", 143, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.script)
			ctx := context.Background()
			if tt.cancel {
				c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				defer cancel()
				ctx = c
			}
			res, out, err := runOnce(t, f, ctx)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr != nil && !tt.wantErr(err):
				t.Fatalf("err = %v, not the one wanted", err)
			}
			if res.ExitCode != tt.wantCode || out != tt.wantOut {
				t.Errorf("got (%d, %q), want (%d, %q)", res.ExitCode, out, tt.wantCode, tt.wantOut)
			}
			if tt.wantErr != nil && !errors.Is(err, ErrNotStarted) && f.s.Gone() == "" {
				t.Error("the session goes on after a failure that ends it")
			}
		})
	}
}
