package family

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// PythonJSON re-encodes a JSON text the way Python's json.dump(obj, f, indent=indent) writes the
// object it decodes to, so that files a harness written in Python would write come out byte for
// byte: keys in their order, ", " and ": " separators when indent < 0 (Python's indent=None), one
// item per line indented by indent spaces otherwise (empty lists and objects stay [] and {}),
// every non-ASCII character escaped (ensure_ascii), no final newline. Numbers are kept as
// written.
func PythonJSON(data []byte, indent int) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var b bytes.Buffer
	if err := pyValue(dec, &b, indent, 0); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("python json: data after the first value")
	}
	return b.Bytes(), nil
}

// MarshalPython encodes v as Python's json.dump(v, f, indent=indent) does (see PythonJSON); maps
// are written in Go's order, sorted keys.
func MarshalPython(v any, indent int) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return PythonJSON(buf.Bytes(), indent)
}

func pyValue(dec *json.Decoder, b *bytes.Buffer, indent, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("python json: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		closing := byte(']')
		if t == '{' {
			closing = '}'
		}
		b.WriteByte(byte(t))
		n := 0
		for dec.More() {
			if n > 0 {
				b.WriteByte(',')
				if indent < 0 {
					b.WriteByte(' ')
				}
			}
			if indent >= 0 {
				b.WriteByte('\n')
				b.WriteString(strings.Repeat(" ", indent*(depth+1)))
			}
			if t == '{' {
				key, err := dec.Token()
				if err != nil {
					return fmt.Errorf("python json: %w", err)
				}
				b.WriteString(pytext.QuoteJSON(key.(string), true))
				b.WriteString(": ")
			}
			if err := pyValue(dec, b, indent, depth+1); err != nil {
				return err
			}
			n++
		}
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("python json: %w", err)
		}
		if n > 0 && indent >= 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent*depth))
		}
		b.WriteByte(closing)
	case string:
		b.WriteString(pytext.QuoteJSON(t, true))
	case json.Number:
		b.WriteString(t.String())
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	}
	return nil
}
