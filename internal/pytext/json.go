package pytext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// JSONDumps encodes v as Python's json.dumps(v, indent=indent, ensure_ascii=ensureASCII) does
// for indent > 0: indent spaces per level, ", " and ": " separators, no HTML escaping, with
// ensureASCII every non-ASCII character as a \uXXXX escape (surrogate pairs beyond the BMP), no
// final newline. Struct fields keep their order, as a Python dict keeps its keys'.
func JSONDumps(v any, indent int, ensureASCII bool) ([]byte, error) {
	if indent <= 0 {
		return nil, fmt.Errorf("JSONDumps: indent %d: only indented output is supported", indent)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", string(bytes.Repeat([]byte(" "), indent)))
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if ensureASCII {
		b = asciiEscape(b)
	}
	return b, nil
}

// asciiEscape replaces every non-ASCII character of a JSON text (which Go only puts inside string
// literals) by its \uXXXX escape.
func asciiEscape(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r < utf8.RuneSelf:
			out = append(out, b[0])
		case r > 0xFFFF:
			r -= 0x10000
			out = fmt.Appendf(out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		b = b[size:]
	}
	return out
}

// QuoteJSON is s as a JSON string the way Python's json module writes it: \" \\ \n \r \t \b \f,
// other control characters as \u00XX, and with ensureASCII every non-ASCII character as \uXXXX
// (surrogate pairs beyond the BMP). Invalid UTF-8 becomes U+FFFD.
func QuoteJSON(s string, ensureASCII bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r < utf8.RuneSelf || !ensureASCII:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
