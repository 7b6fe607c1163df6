package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// tagFamily is a family whose rows carry an x_tag column: its image is named after the tag, its
// repository lives in /work, and its task adds the row's notes.
type tagFamily struct{}

func (tagFamily) Name() string { return "tag" }

func (tagFamily) Match(inst *Instance) bool { _, ok := inst.Extra["x_tag"]; return ok }

func (tagFamily) Prepare(inst *Instance) error {
	tag, _ := inst.Extra["x_tag"].(string)
	if tag == "" {
		return &FieldError{"x_tag", "missing: a tag row names its image with it"}
	}
	inst.Image = "example/tags:" + tag
	inst.WorkDir = "/work"
	inst.Task = inst.ProblemStatement + "\n\nNotes:\n" + inst.Extra["notes"].(string)
	inst.PreAgentCommands = []string{"git checkout " + tag}
	return nil
}

func writeRows(t *testing.T, rows string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(p, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Rows are read as the first family that matches them; a row none matches is a SWE-bench row,
// used as it is; without families every row is.
func TestLoadFamilies(t *testing.T) {
	p := writeRows(t, `{"instance_id": "a__b-1", "problem_statement": "Fix it.", "x_tag": "v1", "notes": "be quick"}
{"instance_id": "a__b-2", "problem_statement": "Fix that.", "image": "plain:latest"}
`)
	l, err := Load(context.Background(), p, LoadOptions{Families: []Family{tagFamily{}}, Require: RequireRun})
	if err != nil {
		t.Fatal(err)
	}
	got := l.Instances
	if got[0].Family != "tag" || got[0].Image != "example/tags:v1" || got[0].WorkingDir("/testbed") != "/work" ||
		got[0].TaskText() != "Fix it.\n\nNotes:\nbe quick" || strings.Join(got[0].PreAgentCommands, ";") != "git checkout v1" {
		t.Errorf("tag row: %+v", got[0])
	}
	if got[1].Family != "" || got[1].Image != "plain:latest" ||
		got[1].WorkingDir("/testbed") != "/testbed" || got[1].TaskText() != "Fix that." {
		t.Errorf("SWE-bench row: %+v", got[1])
	}
	l, err = Load(context.Background(), p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Instances[0].Family != "" || l.Instances[0].Task != "" {
		t.Errorf("without families the row was prepared: %+v", l.Instances[0])
	}
}

// A row the family cannot prepare is refused with the file, row, instance and the column.
func TestLoadFamilyFieldError(t *testing.T) {
	p := writeRows(t, `{"instance_id": "a__b-1", "problem_statement": "Fix it.", "x_tag": "", "notes": ""}
`)
	_, err := Load(context.Background(), p, LoadOptions{Families: []Family{tagFamily{}}})
	var re *RowError
	if !errors.As(err, &re) {
		t.Fatalf("error %v, want a *RowError", err)
	}
	if re.Field != "x_tag" || re.InstanceID != "a__b-1" || re.Row != 1 || !strings.Contains(err.Error(), "names its image") {
		t.Errorf("error %v: field %q, instance %q, row %d", err, re.Field, re.InstanceID, re.Row)
	}
}

// A named dataset's rows are read as its family, whatever their columns; a named dataset whose
// family the caller did not give is an error.
func TestForcedFamily(t *testing.T) {
	src := Source{Kind: "named", Name: "pro"}
	named := []NamedDataset{{Name: "pro", HFRepo: "o/pro", Split: "test", Family: "pro"}}
	proLike := namedFamily{tagFamily{}, "pro"}
	f, err := forcedFamily(src, named, []Family{tagFamily{}, proLike})
	if err != nil || f == nil || f.Name() != "pro" {
		t.Fatalf("forced family %v, %v; want pro", f, err)
	}
	inst := &Instance{InstanceID: "x", Extra: map[string]any{}}
	err = prepare(inst, f, nil)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "x_tag" || inst.Family != "pro" {
		t.Errorf("a row without the family's column: %v (family %q)", err, inst.Family)
	}
	if _, err := forcedFamily(src, named, []Family{tagFamily{}}); err == nil || !strings.Contains(err.Error(), "pro family") {
		t.Errorf("a named dataset of a family not given: %v", err)
	}
	if f, err := forcedFamily(src, named, nil); f != nil || err != nil {
		t.Errorf("without families nothing is forced: %v, %v", f, err)
	}
	if f, err := forcedFamily(Source{Kind: "file"}, named, []Family{proLike}); f != nil || err != nil {
		t.Errorf("a file's rows are detected, not forced: %v, %v", f, err)
	}
}

type namedFamily struct {
	Family
	name string
}

func (n namedFamily) Name() string { return n.name }

// pairFamily names its rows by two columns, as Multi-SWE-bench's own files do (org, repo and
// number, no instance_id).
type pairFamily struct{}

func (pairFamily) Name() string                 { return "pair" }
func (pairFamily) Match(inst *Instance) bool    { _, ok := inst.Extra["org"]; return ok }
func (pairFamily) Prepare(inst *Instance) error { return nil }
func (pairFamily) IDColumns() []string          { return []string{"org", "number"} }
func (pairFamily) InstanceIDOf(cols map[string]any) string {
	org, _ := cols["org"].(string)
	n, ok := cols["number"]
	if org == "" || !ok {
		return ""
	}
	return org + "-" + fmt.Sprint(n)
}

// A row without an instance_id is named by its family's columns (IDNamer), in JSON lines, JSON
// lists and parquet alike; a row no family names is still refused, naming the field.
func TestLoadRowsNamedByFamily(t *testing.T) {
	p := writeRows(t, `{"org": "acme", "number": 7, "problem_statement": "Fix it."}
{"instance_id": "given", "org": "acme", "number": 8, "problem_statement": "Fix that."}
`)
	l, err := Load(context.Background(), p, LoadOptions{Families: []Family{pairFamily{}}, Require: RequireRun})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{l.Instances[0].InstanceID, l.Instances[1].InstanceID}; got[0] != "acme-7" || got[1] != "given" {
		t.Errorf("ids %v, want [acme-7 given]", got)
	}
	sel := Selection{IDs: []string{"acme-7"}}
	if l, err := Load(context.Background(), p, LoadOptions{Families: []Family{pairFamily{}}, Selection: &sel}); err != nil || len(l.Instances) != 1 || l.Instances[0].InstanceID != "acme-7" {
		t.Errorf("selecting a named row: %v, %+v", err, l)
	}
	type pqRow struct {
		Org              string `parquet:"org"`
		Number           int64  `parquet:"number"`
		ProblemStatement string `parquet:"problem_statement"`
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []pqRow{{"acme", 9, "Fix it."}}); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(t.TempDir(), "rows.parquet")
	if err := os.WriteFile(pq, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := Load(context.Background(), pq, LoadOptions{Families: []Family{pairFamily{}}}); err != nil || l.Instances[0].InstanceID != "acme-9" {
		t.Errorf("a parquet row without instance_id: %v, %+v", err, l)
	}
	_, err = Load(context.Background(), p, LoadOptions{Families: []Family{tagFamily{}}})
	var re *RowError
	if !errors.As(err, &re) || re.Field != "instance_id" || re.Row != 1 {
		t.Errorf("without a family that names rows: %v, want a row error on instance_id", err)
	}
}

// A JSON file holding one row as an object (SWE-bench-Live's instance.json, SWE-smith's task
// files) is that row; an object of rows keyed by id stays one; an object that is neither is
// refused with what would make it one.
func TestLoadOneRowObject(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, content string
		want          []string
		wantErr       string
	}{
		{"one.json", `{"repo": "a/b", "instance_id": "a__b-1", "problem_statement": "Fix it.", "install_config": {"test_cmd": "pytest"}}`, []string{"a__b-1"}, ""},
		{"pair.json", `{"org": "acme", "number": 3, "problem_statement": "Fix it."}`, []string{"acme-3"}, ""},
		{"rows.json", `{"a__b-1": {"problem_statement": "x"}, "a__b-2": {"problem_statement": "y"}}`, []string{"a__b-1", "a__b-2"}, ""},
		{"bad.json", `{"a__b-1": {"problem_statement": "x"}, "repo": "a/b"}`, nil, "an object that is one row has an instance_id or org, number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := Load(context.Background(), write(c.name, c.content), LoadOptions{Families: []Family{pairFamily{}}})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, inst := range l.Instances {
				got = append(got, inst.InstanceID)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("ids %v, want %v", got, c.want)
			}
		})
	}
}

// lateFamily's rows (with an x_late column) may lack FAIL_TO_PASS: its grader says so later.
type lateFamily struct{}

func (lateFamily) Name() string                 { return "late" }
func (lateFamily) Match(inst *Instance) bool    { _, ok := inst.Extra["x_late"]; return ok }
func (lateFamily) Prepare(inst *Instance) error { return nil }
func (lateFamily) ValidateForEval(inst *Instance) error {
	if inst.InstanceID == "" {
		return &FieldError{"instance_id", "missing"}
	}
	return nil
}

// An evaluation checks a row by its family's rule when the family is an EvalValidator, and by
// ValidateForEval otherwise.
func TestLoadEvalValidator(t *testing.T) {
	p := writeRows(t, `{"instance_id": "a__b-1", "problem_statement": "Fix it.", "x_late": 1}
`)
	l, err := Load(context.Background(), p, LoadOptions{Families: []Family{lateFamily{}}, Require: RequireEval})
	if err != nil {
		t.Fatal(err)
	}
	if inst := l.Instances[0]; inst.Family != "late" || inst.FailToPass != nil {
		t.Errorf("loaded %+v", inst)
	}
	_, err = Load(context.Background(), p, LoadOptions{Families: []Family{tagFamily{}}, Require: RequireEval})
	var re *RowError
	if !errors.As(err, &re) || re.Field != "FAIL_TO_PASS" {
		t.Errorf("without the family: %v, want the FAIL_TO_PASS of ValidateForEval", err)
	}
}

// log_parser fills its field and is kept raw in Extra, so that an empty column is told from an
// absent one.
func TestLogParserKeptRaw(t *testing.T) {
	p := writeRows(t, `{"instance_id": "a__b-1", "log_parser": ""}
{"instance_id": "a__b-2", "log_parser": null}
{"instance_id": "a__b-3", "log_parser": "pytest"}
{"instance_id": "a__b-4"}
`)
	l, err := Load(context.Background(), p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		field string
		raw   any
		has   bool
	}{{"", "", true}, {"", nil, true}, {"pytest", "pytest", true}, {"", nil, false}}
	for k, inst := range l.Instances {
		raw, has := inst.Extra["log_parser"]
		if inst.LogParser != want[k].field || raw != want[k].raw || has != want[k].has {
			t.Errorf("%s: LogParser %q, Extra %v (%t)", inst.InstanceID, inst.LogParser, raw, has)
		}
	}
}
