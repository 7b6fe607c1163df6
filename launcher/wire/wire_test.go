package wire

import (
	"bytes"
	"crypto/rand"
	"errors"
	"reflect"
	"testing"
)

func key(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, KeyLen)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

// frames writes fs in direction dir under k and returns the stream.
func frames(t *testing.T, k []byte, dir byte, fs ...Frame) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, k, dir)
	for _, f := range fs {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// decode feeds stream to a decoder in chunks of size n and returns the frames and the error.
func decode(k []byte, dir byte, stream []byte, n int) ([]Frame, error) {
	var got []Frame
	d := NewDecoder(k, dir, MaxToClient, func(f Frame) error {
		got = append(got, Frame{Kind: f.Kind, ID: f.ID, Payload: append([]byte{}, f.Payload...)})
		return nil
	})
	for len(stream) > 0 {
		c := min(n, len(stream))
		if _, err := d.Write(stream[:c]); err != nil {
			return got, err
		}
		stream = stream[c:]
	}
	return got, nil
}

func TestFramesRoundTrip(t *testing.T) {
	k := key(t)
	want := []Frame{{Kind: KindHello, Payload: EncodeHello(42)}, {Kind: KindOutput, ID: 7, Payload: []byte("out\x00put")}, {Kind: KindResult, ID: 7, Payload: EncodeResult(Result{ExitCode: 137, TimedOut: true})}, {Kind: KindHeartbeat, Payload: []byte{}}}
	stream := frames(t, k, ToClient, want...)
	for _, n := range []int{1, 3, 29, len(stream)} {
		got, err := decode(k, ToClient, stream, n)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("chunks of %d: got (%v, %v), want %v", n, got, err, want)
		}
	}
}

// Whatever is not a frame of this session and direction, in order, fails the stream.
func TestCorruptStreams(t *testing.T) {
	k := key(t)
	good := frames(t, k, ToClient, Frame{Kind: KindOutput, ID: 1, Payload: []byte("a")}, Frame{Kind: KindOutput, ID: 1, Payload: []byte("b")})
	one := frames(t, k, ToClient, Frame{Kind: KindOutput, ID: 1, Payload: []byte("a")})
	garbage := make([]byte, 4096)
	_, _ = rand.Read(garbage)
	flipped := append([]byte{}, good...)
	flipped[len(one)+headerLen] ^= 1 // the second frame's payload
	big := append([]byte{}, one...)
	big[24], big[25] = 0xff, 0xff // its length
	tests := []struct {
		name   string
		stream []byte
		frames int // that pass before the failure
	}{
		{"random bytes", garbage, 0},
		{"text", []byte("hello from the agent\n"), 0},
		{"another key", frames(t, key(t), ToClient, Frame{Kind: KindOutput, ID: 1}), 0},
		{"the other direction", frames(t, k, ToLauncher, Frame{Kind: KindOutput, ID: 1}), 0},
		{"a frame replayed", append(append([]byte{}, one...), one...), 1},
		{"garbage between frames", append(append(append([]byte{}, one...), garbage[:10]...), good[len(one):]...), 1},
		{"a flipped bit", flipped, 1},
		{"a frame too large", big, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decode(k, ToClient, tt.stream, 7)
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
			if len(got) != tt.frames {
				t.Errorf("%d frames passed, want %d", len(got), tt.frames)
			}
		})
	}
}

func TestRequestRoundTrip(t *testing.T) {
	tests := []Request{
		{Argv: []string{"sh", "-c", "exec \"$@\" 2>&1", "sh", "bash", "-c", "echo 'a b'\n"}, Env: []string{"A=1", "B="}, Cwd: "/testbed", TimeoutMS: 60000, MaxOutput: 1 << 20, Drain: DrainDocker},
		{Argv: []string{"bash", "-c", "x"}, Cwd: "/tmp", Stdin: []byte("in\x00put"), Drain: DrainEOF},
		{Argv: []string{"true"}, Cwd: "/", Stdin: []byte{}},
	}
	for _, r := range tests {
		got, err := DecodeRequest(EncodeRequest(r))
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("got (%+v, %v), want %+v", got, err, r)
		}
	}
	for _, bad := range [][]byte{nil, {0, 0, 0, 0}, EncodeRequest(tests[0])[:20], append(EncodeRequest(tests[0]), 0), {0xff, 0xff, 0xff, 0xff}} {
		if _, err := DecodeRequest(bad); err == nil {
			t.Errorf("DecodeRequest(%q) succeeded", bad)
		}
	}
}
