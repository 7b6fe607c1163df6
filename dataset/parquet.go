package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// pqKind is how a top-level parquet column maps to a row value.
type pqKind int

const (
	pqFlat    pqKind = iota // one primitive value per row
	pqList                  // a LIST of primitives (3-level or legacy 2-level), or a repeated primitive
	pqComplex               // anything else (structs, maps, nested lists): read generically
)

type pqColumn struct {
	name    string
	kind    pqKind
	leaf    int // leaf column index, for pqFlat and pqList
	nullDef int // pqList: def levels below this mean the list is null
	elemDef int // pqList: def levels at or above this are an element (null element below leafDef)
	leafDef int // max definition level of the leaf
}

// parquetTable reads one parquet file column by column, materialising only the rows asked for.
type parquetTable struct {
	name string // the path as shown in errors
	pf   *parquet.File
	cols []pqColumn
}

// openParquetBytes opens a parquet file held in memory; name is what errors show.
func openParquetBytes(name string, data []byte) (*parquetTable, error) {
	var pf *parquet.File
	err := catchPanic(func() error {
		var err error
		pf, err = parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable parquet file (truncated or corrupt? download or export it again): %w", name, err)
	}
	t := &parquetTable{name: name, pf: pf}
	for _, c := range pf.Root().Columns() {
		t.cols = append(t.cols, classify(c))
	}
	return t, nil
}

func (t *parquetTable) numRows() int { return int(t.pf.NumRows()) }

func classify(c *parquet.Column) pqColumn {
	col := pqColumn{name: c.Name(), kind: pqComplex}
	if c.Leaf() {
		col.leaf = c.Index()
		col.leafDef = c.MaxDefinitionLevel()
		if c.MaxRepetitionLevel() == 0 {
			col.kind = pqFlat
			return col
		}
		if c.MaxRepetitionLevel() == 1 { // "repeated binary x": a list, empty when absent
			col.kind = pqList
			col.nullDef = 0
			col.elemDef = c.MaxDefinitionLevel()
		}
		return col
	}
	lt := c.Type().LogicalType()
	if _, isList := logicalValue(lt).(*format.ListType); !isList || len(c.Columns()) != 1 {
		return col
	}
	rep := c.Columns()[0]
	if !rep.Repeated() {
		return col
	}
	leaf := rep
	if !rep.Leaf() {
		if len(rep.Columns()) != 1 || !rep.Columns()[0].Leaf() {
			return col
		}
		leaf = rep.Columns()[0]
	}
	if leaf.MaxRepetitionLevel() != 1 {
		return col
	}
	col.kind = pqList
	col.leaf = leaf.Index()
	col.leafDef = leaf.MaxDefinitionLevel()
	col.nullDef = c.MaxDefinitionLevel()
	col.elemDef = rep.MaxDefinitionLevel()
	return col
}

// column returns the top-level column called name, or nil.
func (t *parquetTable) column(name string) *pqColumn {
	for k := range t.cols {
		if t.cols[k].name == name {
			return &t.cols[k]
		}
	}
	return nil
}

// ids returns the instance_id of every row ("" for null), or nil when there is no such column.
func (t *parquetTable) ids() ([]string, error) {
	c := t.column("instance_id")
	if c == nil {
		return nil, nil
	}
	if c.kind != pqFlat {
		return nil, &RowError{File: t.name, Field: "instance_id", Err: errors.New("the column is not a string column")}
	}
	ids := make([]string, t.numRows())
	var bad error
	err := t.scan(c, nil, func(row int, v any) {
		s, err := stringValue(v)
		if err != nil && bad == nil {
			bad = &RowError{File: t.name, Row: row + 1, Field: "instance_id", Err: err}
		}
		ids[row] = s
	})
	if err != nil {
		return nil, err
	}
	return ids, bad
}

func (t *parquetTable) values(rows []int, cols []string) ([]map[string]any, error) {
	out := make([]map[string]any, len(rows))
	slot := make([]int, t.numRows())
	for r := range slot {
		slot[r] = -1
	}
	for k, r := range rows {
		slot[r] = k
		out[k] = map[string]any{}
	}
	for _, name := range cols {
		c := t.column(name)
		if c == nil || c.kind == pqComplex {
			continue
		}
		if err := t.scan(c, slot, func(row int, v any) { out[slot[row]][name] = v }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rows decodes the rows whose slot is >= 0 into insts[slot]. set reports a column error.
func (t *parquetTable) rows(ctx context.Context, slot []int, insts []Instance, set func(row int, col string, err error)) error {
	var complexCols []string
	for k := range t.cols {
		c := &t.cols[k]
		if c.kind == pqComplex {
			complexCols = append(complexCols, c.name)
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		err := t.scan(c, slot, func(row int, v any) {
			if err := setColumn(&insts[slot[row]], c.name, v); err != nil {
				set(row, c.name, err)
			}
		})
		if err != nil {
			return err
		}
	}
	if len(complexCols) > 0 {
		return t.readComplex(slot, insts, complexCols, set)
	}
	return nil
}

// scan reads every value of column c, calling emit for each row whose slot is >= 0 (all rows when
// slot is nil) with the row's decoded value.
func (t *parquetTable) scan(c *pqColumn, slot []int, emit func(row int, v any)) error {
	return catchPanic(func() error {
		buf := make([]parquet.Value, 256)
		row := -1
		var list []any
		inList := false
		keep := func(r int) bool { return slot == nil || (r >= 0 && r < len(slot) && slot[r] >= 0) }
		flush := func() {
			if inList && keep(row) {
				if list == nil {
					emit(row, nil)
				} else {
					emit(row, list)
				}
			}
			list, inList = nil, false
		}
		for _, rg := range t.pf.RowGroups() {
			pages := rg.ColumnChunks()[c.leaf].Pages()
			for {
				page, err := pages.ReadPage()
				if err == io.EOF {
					break
				}
				if err != nil {
					pages.Close()
					return t.columnError(c, err)
				}
				vr := page.Values()
				for {
					n, err := vr.ReadValues(buf)
					for _, v := range buf[:n] {
						if c.kind == pqFlat {
							row++
							if keep(row) {
								emit(row, leafValue(v, c.leafDef))
							}
							continue
						}
						if v.RepetitionLevel() == 0 {
							flush()
							row++
							inList = true
							if !keep(row) {
								continue
							}
							switch d := v.DefinitionLevel(); {
							case d < c.nullDef:
								continue // null list
							case d < c.elemDef:
								list = []any{}
								continue
							}
						} else if !keep(row) {
							continue
						}
						list = append(list, leafValue(v, c.leafDef))
					}
					if err == io.EOF {
						break
					}
					if err != nil {
						parquet.Release(page)
						pages.Close()
						return t.columnError(c, err)
					}
				}
				parquet.Release(page)
			}
			pages.Close()
		}
		flush()
		if row+1 != t.numRows() {
			return t.columnError(c, fmt.Errorf("has %d rows, the file says %d", row+1, t.numRows()))
		}
		return nil
	}, func(err error) error { return t.columnError(c, err) })
}

func (t *parquetTable) columnError(c *pqColumn, err error) error {
	return fmt.Errorf("%s: column %q: cannot decode (corrupt file? delete it and download it again): %w", t.name, c.name, err)
}

// leafValue converts a parquet value to a Go value: nil, string, bool, int64 or float64.
func leafValue(v parquet.Value, maxDef int) any {
	if v.DefinitionLevel() < maxDef || v.IsNull() {
		return nil
	}
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	case parquet.Boolean:
		return v.Boolean()
	case parquet.Int32:
		return int64(v.Int32())
	case parquet.Int64:
		return v.Int64()
	case parquet.Float:
		return float64(v.Float())
	case parquet.Double:
		return v.Double()
	case parquet.Int96:
		return v.Int96().String()
	default:
		return v.String()
	}
}

// readComplex reads the nested columns (structs, maps, lists of structs) with parquet-go's
// generic row reconstruction. It is slower than scan, and used only when such columns exist.
func (t *parquetTable) readComplex(slot []int, insts []Instance, names []string, set func(row int, col string, err error)) error {
	return catchPanic(func() error {
		r := parquet.NewReader(t.pf)
		defer r.Close()
		for row := 0; row < t.numRows(); row++ {
			m := map[string]any{}
			if err := r.Read(&m); err != nil {
				return fmt.Errorf("%s: row %d: cannot decode: %w", t.name, row+1, err)
			}
			if slot[row] < 0 {
				continue
			}
			for _, name := range names {
				if err := setColumn(&insts[slot[row]], name, m[name]); err != nil {
					set(row, name, err)
				}
			}
		}
		return nil
	}, nil)
}

// catchPanic runs fn, turning a panic (parquet-go panics on some corrupt inputs) into an error.
func catchPanic(fn func() error, wrap ...func(error) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoder panic: %v", r)
			if len(wrap) > 0 && wrap[0] != nil {
				err = wrap[0](err)
			}
		}
	}()
	return fn()
}

func logicalValue(lt *format.LogicalType) format.LogicalTypeValue {
	if lt == nil {
		return nil
	}
	return lt.Value
}
