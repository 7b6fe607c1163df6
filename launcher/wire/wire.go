// Package wire is the framing the launcher (package launcher's program inside a sandbox) and
// its client speak over the launcher's standard input and output. Stdlib only: the program
// inside the sandbox imports it.
//
// The stream starts with the client's greeting (Greeting: a magic and the session's random
// key), which the launcher reads before anything else. Every frame after it, in either
// direction, is
//
//	magic "SRL1" | kind (1) | 3 zero bytes | seq (8) | id (8) | length (4) | payload | mac (16)
//
// seq counts the frames of one direction from 1; id names the request a frame belongs to (0
// for the session's own frames); mac is the first 16 bytes of HMAC-SHA256 under the session
// key of the direction byte, the header and the payload. Bytes that another process writes
// into the launcher's descriptors (the agent runs as root in the same sandbox) fail the
// magic, the length bound, the sequence or the mac: the reader reports an error and the
// session is over.
package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"strconv"
)

// Version is the protocol version; the launcher states it in its Hello, and a client speaks
// only to a launcher of its own version.
const Version = 1

const (
	magic     = "SRL1"
	greeting  = "SRLK"
	headerLen = 28
	macLen    = 16
	// KeyLen is the length of a session key.
	KeyLen = 32
	// GreetingLen is the length of the greeting.
	GreetingLen = len(greeting) + KeyLen
)

// Directions, mixed into every mac so that a frame of one direction never passes in the other.
const (
	ToLauncher = 'C'
	ToClient   = 'L'
)

// Kind is the type of a frame.
type Kind uint8

// Frames to the launcher.
const (
	KindRun    Kind = 1 // payload: EncodeRequest
	KindCancel Kind = 2 // kill the request's command as for a timeout; no payload
)

// Frames to the client.
const (
	KindHello      Kind = 16 // payload: version (4), pid (4)
	KindAccepted   Kind = 17 // the request is read; sent before anything of it runs
	KindNotStarted Kind = 18 // nothing of the request ran; payload: the reason
	KindStarted    Kind = 19 // the command runs (its timeout starts)
	KindOutput     Kind = 20 // payload: output bytes
	KindElided     Kind = 21 // payload: count (8) of output bytes dropped here; the kept tail follows
	KindResult     Kind = 22 // payload: EncodeResult; the request is over
	KindHeartbeat  Kind = 23 // the launcher lives; no payload
	KindFatal      Kind = 24 // the launcher ends (its input failed the checks); payload: the reason
)

// Limits of a frame's payload.
const (
	MaxToLauncher = 16 << 20 // a request (argv, environment, stdin data)
	MaxToClient   = 64 << 10 // a reply
	// OutputChunk is the size of the output frames the launcher sends.
	OutputChunk = 16 << 10
)

// Frame is one frame.
type Frame struct {
	Kind    Kind
	ID      uint64
	Payload []byte
}

// Greeting returns the greeting that opens a session with key.
func Greeting(key []byte) []byte { return append([]byte(greeting), key...) }

// ReadGreeting reads the greeting from r and returns the key.
func ReadGreeting(r io.Reader) ([]byte, error) {
	b := make([]byte, GreetingLen)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	if string(b[:len(greeting)]) != greeting {
		return nil, errors.New("no greeting")
	}
	return b[len(greeting):], nil
}

// Writer writes the frames of one direction. Not safe for concurrent use.
type Writer struct {
	w   io.Writer
	dir byte
	seq uint64
	mac hash.Hash
	buf []byte
}

// NewWriter returns a Writer of direction dir (ToLauncher, ToClient) under key.
func NewWriter(w io.Writer, key []byte, dir byte) *Writer {
	return &Writer{w: w, dir: dir, mac: hmac.New(sha256.New, key)}
}

// Write writes one frame with one call to the underlying writer.
func (w *Writer) Write(f Frame) error {
	w.seq++
	n := headerLen + len(f.Payload) + macLen
	if cap(w.buf) < n {
		w.buf = make([]byte, n)
	}
	b := w.buf[:n]
	copy(b, magic)
	b[4], b[5], b[6], b[7] = byte(f.Kind), 0, 0, 0
	binary.BigEndian.PutUint64(b[8:], w.seq)
	binary.BigEndian.PutUint64(b[16:], f.ID)
	binary.BigEndian.PutUint32(b[24:], uint32(len(f.Payload)))
	copy(b[headerLen:], f.Payload)
	w.mac.Reset()
	w.mac.Write([]byte{w.dir})
	w.mac.Write(b[:headerLen+len(f.Payload)])
	copy(b[headerLen+len(f.Payload):], w.mac.Sum(nil)[:macLen])
	_, err := w.w.Write(b)
	return err
}

// ErrCorrupt is matched by the errors of a stream that fails the checks.
var ErrCorrupt = errors.New("launcher stream corrupt")

func corrupt(what string) error { return &corruptError{what} }

type corruptError struct{ what string }

func (e *corruptError) Error() string        { return "launcher stream corrupt: " + e.what }
func (e *corruptError) Is(target error) bool { return target == ErrCorrupt }

// Decoder checks and splits the frames of one direction as their bytes arrive (Write), and
// hands each to its callback. After an error every Write fails with it.
type Decoder struct {
	dir  byte
	max  int
	seq  uint64
	mac  hash.Hash
	buf  []byte
	sum  []byte
	err  error
	emit func(Frame) error
}

// NewDecoder returns a Decoder of direction dir under key that accepts payloads of at most max
// bytes and calls emit for each frame (its Payload is valid until emit returns); an error of
// emit ends the stream.
func NewDecoder(key []byte, dir byte, max int, emit func(Frame) error) *Decoder {
	return &Decoder{dir: dir, max: max, mac: hmac.New(sha256.New, key), emit: emit}
}

// Write takes the stream's next bytes.
func (d *Decoder) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n := len(p)
	d.buf = append(d.buf, p...)
	for {
		f, used, err := d.next()
		if err != nil {
			d.err = err
			d.buf = nil
			return 0, err
		}
		if used == 0 {
			break
		}
		if err := d.emit(f); err != nil {
			d.err = err
			d.buf = nil
			return 0, err
		}
		d.buf = d.buf[used:]
	}
	if len(d.buf) == 0 {
		d.buf = d.buf[:0:0] // let a large buffer go
	}
	return n, nil
}

// next parses the frame at the start of d.buf; used 0: it is not complete yet.
func (d *Decoder) next() (Frame, int, error) {
	b := d.buf
	// Check what is there as early as it can be checked: garbage fails at its first bytes.
	for i := 0; i < len(magic) && i < len(b); i++ {
		if b[i] != magic[i] {
			return Frame{}, 0, corrupt("bad magic")
		}
	}
	if len(b) < headerLen {
		return Frame{}, 0, nil
	}
	if b[5] != 0 || b[6] != 0 || b[7] != 0 {
		return Frame{}, 0, corrupt("bad header")
	}
	if seq := binary.BigEndian.Uint64(b[8:]); seq != d.seq+1 {
		return Frame{}, 0, corrupt("frame " + strconv.FormatUint(seq, 10) + " out of sequence")
	}
	size := binary.BigEndian.Uint32(b[24:])
	if int64(size) > int64(d.max) {
		return Frame{}, 0, corrupt("frame of " + strconv.FormatUint(uint64(size), 10) + " bytes")
	}
	n := headerLen + int(size) + macLen
	if len(b) < n {
		return Frame{}, 0, nil
	}
	d.mac.Reset()
	d.mac.Write([]byte{d.dir})
	d.mac.Write(b[:headerLen+int(size)])
	d.sum = d.mac.Sum(d.sum[:0])
	if !hmac.Equal(d.sum[:macLen], b[headerLen+int(size):n]) {
		return Frame{}, 0, corrupt("bad mac")
	}
	d.seq++
	return Frame{Kind: Kind(b[4]), ID: binary.BigEndian.Uint64(b[16:]), Payload: b[headerLen : headerLen+int(size)]}, n, nil
}

// Drain says how a command's output ends once its process exited.
type Drain uint8

const (
	// DrainEOF: when every process that holds the output closed it (Kubernetes' exec).
	DrainEOF Drain = 0
	// DrainDocker: as Docker's exec does, at the latest DockerDrain after the exit; a process
	// that still holds the output then loses the next bytes it writes, and the pipe is closed
	// under it (its writes after that fail).
	DrainDocker Drain = 1
)

// Request is one command for the launcher.
type Request struct {
	Argv []string
	// Env replaces or adds variables of the environment the launcher started with (the
	// runtime's, as a plain exec gets it; see the launcher's documentation).
	Env       []string
	Cwd       string // absolute
	Stdin     []byte // nil: /dev/null
	TimeoutMS uint64 // 0: none
	MaxOutput uint32 // head and tail kept, as sandbox.OutputBuffer keeps them
	Drain     Drain
}

// EncodeRequest encodes r as a KindRun payload.
func EncodeRequest(r Request) []byte {
	var b []byte
	b = putStrings(b, r.Argv)
	b = putStrings(b, r.Env)
	b = putBytes(b, []byte(r.Cwd))
	if r.Stdin == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = putBytes(b, r.Stdin)
	}
	b = binary.BigEndian.AppendUint64(b, r.TimeoutMS)
	b = binary.BigEndian.AppendUint32(b, r.MaxOutput)
	return append(b, byte(r.Drain))
}

// DecodeRequest decodes a KindRun payload.
func DecodeRequest(p []byte) (Request, error) {
	var r Request
	var ok bool
	d := decoder{b: p}
	r.Argv = d.strings()
	r.Env = d.strings()
	r.Cwd = string(d.bytes())
	switch d.byte1() {
	case 0:
	case 1:
		r.Stdin = d.bytes()
		if r.Stdin == nil {
			r.Stdin = []byte{}
		}
	default:
		d.fail = true
	}
	r.TimeoutMS = d.u64()
	r.MaxOutput = d.u32()
	r.Drain = Drain(d.byte1())
	ok = !d.fail && len(d.b) == 0 && len(r.Argv) > 0 && r.Drain <= DrainDocker
	if !ok {
		return Request{}, errors.New("malformed request")
	}
	return r, nil
}

// Result is the end of a command.
type Result struct {
	ExitCode int32 // 128+N for a process killed by signal N
	TimedOut bool
}

// EncodeResult encodes r as a KindResult payload.
func EncodeResult(r Result) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(r.ExitCode))
	if r.TimedOut {
		return append(b, 1)
	}
	return append(b, 0)
}

// DecodeResult decodes a KindResult payload.
func DecodeResult(p []byte) (Result, error) {
	if len(p) != 5 || p[4] > 1 {
		return Result{}, errors.New("malformed result")
	}
	return Result{ExitCode: int32(binary.BigEndian.Uint32(p)), TimedOut: p[4] == 1}, nil
}

// EncodeHello is the payload of KindHello.
func EncodeHello(pid int) []byte {
	b := binary.BigEndian.AppendUint32(nil, Version)
	return binary.BigEndian.AppendUint32(b, uint32(pid))
}

// DecodeHello decodes a KindHello payload.
func DecodeHello(p []byte) (version uint32, pid int, err error) {
	if len(p) != 8 {
		return 0, 0, errors.New("malformed hello")
	}
	return binary.BigEndian.Uint32(p), int(binary.BigEndian.Uint32(p[4:])), nil
}

func putBytes(b, s []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func putStrings(b []byte, ss []string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(ss)))
	for _, s := range ss {
		b = putBytes(b, []byte(s))
	}
	return b
}

type decoder struct {
	b    []byte
	fail bool
}

func (d *decoder) take(n int) []byte {
	if d.fail || n < 0 || n > len(d.b) {
		d.fail = true
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u32() uint32 {
	v := d.take(4)
	if v == nil {
		return 0
	}
	return binary.BigEndian.Uint32(v)
}

func (d *decoder) u64() uint64 {
	v := d.take(8)
	if v == nil {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func (d *decoder) byte1() byte {
	v := d.take(1)
	if v == nil {
		return 0
	}
	return v[0]
}

func (d *decoder) bytes() []byte {
	n := d.u32()
	if int64(n) > int64(len(d.b)) {
		d.fail = true
		return nil
	}
	v := d.take(int(n))
	if v == nil {
		return nil
	}
	return append([]byte(nil), v...)
}

func (d *decoder) strings() []string {
	n := d.u32()
	if int64(n) > int64(len(d.b))/4 {
		d.fail = true
		return nil
	}
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, string(d.bytes()))
		if d.fail {
			return nil
		}
	}
	return out
}
