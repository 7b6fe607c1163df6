package sandbox

import (
	"fmt"
	"strings"
)

// CommandArgv is the argv that runs command under interpreter (default ["bash", "-c"]) with
// stderr joined to stdout: `sh -c 'exec "$@" 2>&1' sh INTERPRETER... COMMAND`. sh points stderr
// at stdout, so both share one pipe and keep their order, and replaces itself with the
// interpreter, so the command gets exact `bash -c` semantics and costs one extra exec of sh.
// Backends that start a process in a sandbox from an argv use it.
func CommandArgv(interpreter []string, command string) []string {
	if len(interpreter) == 0 {
		interpreter = []string{"bash", "-c"}
	}
	argv := make([]string, 0, 5+len(interpreter))
	argv = append(argv, "sh", "-c", `exec "$@" 2>&1`, "sh")
	argv = append(argv, interpreter...)
	return append(argv, command)
}

// OutputBuffer keeps the first and last max/2 bytes written to it and counts the rest, so that
// a command printing gigabytes costs constant memory. Backends write a command's output into one
// and return its String and Dropped as ExecResult.Output and TruncatedBytes. Not safe for
// concurrent use.
type OutputBuffer struct {
	headMax, tailMax int
	head             []byte
	tail             []byte // ring buffer once full
	tailPos          int
	tailFull         bool
	dropped          int64
}

// NewOutputBuffer returns a buffer that keeps max bytes (DefaultMaxOutput when max <= 0).
func NewOutputBuffer(max int) *OutputBuffer {
	if max <= 0 {
		max = DefaultMaxOutput
	}
	h := max / 2
	return &OutputBuffer{headMax: h, tailMax: max - h}
}

func (b *OutputBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if !b.tailFull {
			room := b.tailMax - len(b.tail)
			k := min(room, len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			if len(b.tail) == b.tailMax {
				b.tailFull = true
			}
			continue
		}
		// Overwrite the oldest tail bytes; they count as dropped.
		k := min(b.tailMax-b.tailPos, len(p))
		copy(b.tail[b.tailPos:], p[:k])
		b.dropped += int64(k)
		b.tailPos = (b.tailPos + k) % b.tailMax
		p = p[k:]
	}
	return n, nil
}

// Skip counts n bytes as written and dropped from the middle without their content: a writer
// that keeps the tail itself (the launcher, see package launcher) writes the head, calls Skip
// with the count it dropped, then writes the tail it kept (at most the tail's size, so that
// nothing of it is overwritten).
func (b *OutputBuffer) Skip(n int64) { b.dropped += n }

// Dropped is the number of bytes dropped from the middle.
func (b *OutputBuffer) Dropped() int64 { return b.dropped }

// String returns the kept output; a note marks where bytes were dropped. Invalid UTF-8 is
// replaced, as the peers decode output with errors="replace".
func (b *OutputBuffer) String() string {
	var sb strings.Builder
	sb.Write(b.head)
	if b.dropped > 0 {
		fmt.Fprintf(&sb, "\n[swebench-run: %d bytes of output elided]\n", b.dropped)
		sb.Write(b.tail[b.tailPos:])
		sb.Write(b.tail[:b.tailPos])
	} else {
		sb.Write(b.tail)
	}
	return strings.ToValidUTF8(sb.String(), "\uFFFD")
}
