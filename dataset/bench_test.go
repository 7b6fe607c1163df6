package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// BenchmarkLoadVerified loads and validates the 500-row SWE-bench Verified parquet (2.4 MB,
// about 20 MB of text once decoded).
func BenchmarkLoadVerified(b *testing.B) {
	p := fixture(b, "datasets/SWE-bench_Verified.test.parquet")
	b.ReportAllocs()
	for b.Loop() {
		l, err := Load(context.Background(), p, LoadOptions{Require: RequireRun | RequireEval})
		if err != nil || len(l.Instances) != 500 {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadVerifiedSelect10 loads 10 instances of Verified: memory follows the selection.
func BenchmarkLoadVerifiedSelect10(b *testing.B) {
	p := fixture(b, "datasets/SWE-bench_Verified.test.parquet")
	sel := &Selection{Filter: "django__django-1", Slice: ":10"}
	b.ReportAllocs()
	for b.Loop() {
		l, err := Load(context.Background(), p, LoadOptions{Selection: sel, Require: RequireRun})
		if err != nil || len(l.Instances) != 10 {
			b.Fatal(err, len(l.Instances))
		}
	}
}

type synthRow struct {
	Repo             string `parquet:"repo,optional"`
	InstanceID       string `parquet:"instance_id,optional"`
	BaseCommit       string `parquet:"base_commit,optional"`
	Patch            string `parquet:"patch,optional"`
	TestPatch        string `parquet:"test_patch,optional"`
	ProblemStatement string `parquet:"problem_statement,optional"`
	Version          string `parquet:"version,optional"`
	FailToPass       string `parquet:"FAIL_TO_PASS,optional"`
	PassToPass       string `parquet:"PASS_TO_PASS,optional"`
	Difficulty       string `parquet:"difficulty,optional"`
}

// synthetic writes a parquet file and a JSONL file of n rows shaped like SWE-bench rows (about
// 3 kB each).
func synthetic(b *testing.B, n int) (pq, jsonl string) {
	rows := make([]synthRow, n)
	var jl bytes.Buffer
	for k := range rows {
		f2p, _ := json.Marshal([]string{fmt.Sprintf("tests/test_mod_%d.py::test_a", k)})
		p2p, _ := json.Marshal([]string{"tests/test_x.py::test_1", "tests/test_x.py::test_2", "tests/test_x.py::test_3"})
		rows[k] = synthRow{
			Repo: fmt.Sprintf("org%d/repo", k%40), InstanceID: fmt.Sprintf("org%d__repo-%06d", k%40, k),
			BaseCommit: fmt.Sprintf("%040x", k), Patch: strings.Repeat(fmt.Sprintf("+line %d\n", k), 100),
			TestPatch: strings.Repeat("+test\n", 80), ProblemStatement: strings.Repeat(fmt.Sprintf("The bug %d. ", k), 60),
			Version: "1.0", FailToPass: string(f2p), PassToPass: string(p2p), Difficulty: "<15 min fix",
		}
		line, _ := json.Marshal(map[string]any{
			"repo": rows[k].Repo, "instance_id": rows[k].InstanceID, "base_commit": rows[k].BaseCommit, "patch": rows[k].Patch,
			"test_patch": rows[k].TestPatch, "problem_statement": rows[k].ProblemStatement, "version": "1.0",
			"FAIL_TO_PASS": rows[k].FailToPass, "PASS_TO_PASS": rows[k].PassToPass, "difficulty": rows[k].Difficulty,
		})
		jl.Write(line)
		jl.WriteByte('\n')
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[synthRow](&buf, parquet.Compression(&parquet.Zstd))
	if _, err := w.Write(rows); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	pq, jsonl = filepath.Join(dir, "synth.parquet"), filepath.Join(dir, "synth.jsonl")
	writeFileB(b, pq, buf.Bytes())
	writeFileB(b, jsonl, jl.Bytes())
	return pq, jsonl
}

func writeFileB(b *testing.B, p string, data []byte) {
	if err := writeFileAtomic(p, data); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkLoadSynthetic20k(b *testing.B) {
	pq, jl := synthetic(b, 20000)
	for _, c := range []struct {
		name string
		path string
		sel  *Selection
		want int
	}{
		{"parquet/all", pq, nil, 20000},
		{"parquet/select100", pq, &Selection{Shuffle: true, Seed: DefaultSeed, Slice: ":100"}, 100},
		{"jsonl/all", jl, nil, 20000},
		{"jsonl/select100", jl, &Selection{Shuffle: true, Seed: DefaultSeed, Slice: ":100"}, 100},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l, err := Load(context.Background(), c.path, LoadOptions{Selection: c.sel, Require: RequireRun | RequireEval})
				if err != nil || len(l.Instances) != c.want {
					b.Fatal(err)
				}
			}
		})
	}
}
