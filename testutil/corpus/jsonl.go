package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// ParquetToJSONL converts a parquet file of flat columns (strings, integers, booleans, nulls) to
// JSON lines: one object per row, in row order, keys sorted, no spaces, non-ASCII text as is
// (the bytes Python's json.dumps(row, sort_keys=True, separators=(",", ":"),
// ensure_ascii=False) writes, one row a line). name labels errors.
func ParquetToJSONL(name string, data []byte) ([]byte, error) {
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a parquet file: %w", name, err)
	}
	fields := pf.Schema().Fields()
	order := make([]int, len(fields)) // column indexes in key order
	for k, f := range fields {
		if !f.Leaf() || f.Repeated() {
			return nil, fmt.Errorf("%s: column %q is nested or repeated; the jsonl conversion handles flat columns only", name, f.Name())
		}
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return compareStrings(fields[a].Name(), fields[b].Name()) })

	var out bytes.Buffer
	r := parquet.NewReader(pf)
	defer r.Close()
	rows := make([]parquet.Row, 64)
	rowNum := 0
	for {
		n, err := r.ReadRows(rows)
		for _, row := range rows[:n] {
			rowNum++
			vals := make([]parquet.Value, len(fields))
			for _, v := range row {
				vals[v.Column()] = v
			}
			out.WriteByte('{')
			for k, col := range order {
				if k > 0 {
					out.WriteByte(',')
				}
				writeJSONString(&out, fields[col].Name())
				out.WriteByte(':')
				if err := writeValue(&out, vals[col]); err != nil {
					return nil, fmt.Errorf("%s: row %d, column %q: %w", name, rowNum, fields[col].Name(), err)
				}
			}
			out.WriteString("}\n")
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: read rows: %w", name, err)
		}
	}
	if int64(rowNum) != pf.NumRows() {
		return nil, fmt.Errorf("%s: read %d rows of %d", name, rowNum, pf.NumRows())
	}
	return out.Bytes(), nil
}

// compareStrings orders keys as Python's sort_keys does: by code point.
func compareStrings(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	return slices.Compare(ra, rb)
}

func writeValue(b *bytes.Buffer, v parquet.Value) error {
	if v.IsNull() {
		b.WriteString("null")
		return nil
	}
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		s := v.ByteArray()
		if !utf8.Valid(s) {
			return fmt.Errorf("binary value is not UTF-8 text")
		}
		writeJSONString(b, string(s))
	case parquet.Boolean:
		b.WriteString(strconv.FormatBool(v.Boolean()))
	case parquet.Int32:
		b.WriteString(strconv.FormatInt(int64(v.Int32()), 10))
	case parquet.Int64:
		b.WriteString(strconv.FormatInt(v.Int64(), 10))
	default:
		return fmt.Errorf("values of kind %s are not handled by the jsonl conversion", v.Kind())
	}
	return nil
}

// writeJSONString quotes s as Python's json module does with ensure_ascii=False: it escapes the
// quote, the backslash and the control characters below U+0020 only.
func writeJSONString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
