package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/corpus"
)

// VerifiedCorpusPath is the 500-row SWE-bench Verified test split in the test corpus.
const VerifiedCorpusPath = "datasets/SWE-bench_Verified.test.parquet"

// VerifiedParquet returns the path of the Verified test split in the test corpus cache (filled
// by `make testdata`, or from the local mirror).
func VerifiedParquet() (string, error) {
	return corpus.Ensure(context.Background(), RepoRoot(), VerifiedCorpusPath)
}

type synthRow struct {
	Repo             string `parquet:"repo,optional"`
	InstanceID       string `parquet:"instance_id,optional"`
	BaseCommit       string `parquet:"base_commit,optional"`
	Patch            string `parquet:"patch,optional"`
	TestPatch        string `parquet:"test_patch,optional"`
	ProblemStatement string `parquet:"problem_statement,optional"`
	HintsText        string `parquet:"hints_text,optional"`
	CreatedAt        string `parquet:"created_at,optional"`
	Version          string `parquet:"version,optional"`
	FailToPass       string `parquet:"FAIL_TO_PASS,optional"`
	PassToPass       string `parquet:"PASS_TO_PASS,optional"`
	EnvSetupCommit   string `parquet:"environment_setup_commit,optional"`
	Difficulty       string `parquet:"difficulty,optional"`
}

// WriteSyntheticParquet writes n SWE-bench-shaped rows (about 4 kB of text each, zstd) to path.
func WriteSyntheticParquet(path string, n int) error {
	rows := make([]synthRow, n)
	for k := range rows {
		rows[k] = synthRow{
			Repo: fmt.Sprintf("org%d/repo", k%40), InstanceID: fmt.Sprintf("org%d__repo-%06d", k%40, k),
			BaseCommit: fmt.Sprintf("%040x", k), Patch: strings.Repeat(fmt.Sprintf("+line %d\n", k), 100),
			TestPatch: strings.Repeat("+test\n", 80), ProblemStatement: strings.Repeat(fmt.Sprintf("The bug %d. ", k), 100),
			HintsText: strings.Repeat("hint ", 40), CreatedAt: "2023-01-01T00:00:00Z", Version: "1.0",
			FailToPass: fmt.Sprintf(`["tests/test_mod_%d.py::test_a"]`, k), PassToPass: `["tests/test_x.py::test_1", "tests/test_x.py::test_2"]`,
			EnvSetupCommit: fmt.Sprintf("%040x", k+1), Difficulty: "<15 min fix",
		}
	}
	return parquet.WriteFile(path, rows, parquet.Compression(&parquet.Zstd))
}

// TimeLoad returns the durations of n loads (with run and eval validation, as `run --eval` does).
func TimeLoad(path string, want, n int) ([]time.Duration, error) {
	var ds []time.Duration
	for range n {
		start := time.Now()
		l, err := dataset.Load(context.Background(), path, dataset.LoadOptions{Require: dataset.RequireRun | dataset.RequireEval})
		d := time.Since(start)
		if err != nil {
			return nil, err
		}
		if len(l.Instances) != want {
			return nil, fmt.Errorf("%s: %d instances, want %d", path, len(l.Instances), want)
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// Load is the dataset-load result.
type Load struct{ Verified, Synthetic Sample }

// MeasureLoad times n loads of each dataset (after one warm-up load, so the page cache holds
// the file).
func MeasureLoad(tmp string, n int) (Load, error) {
	verified, err := VerifiedParquet()
	if err != nil {
		return Load{}, err
	}
	synth := filepath.Join(tmp, "synthetic-20000.parquet")
	if err := WriteSyntheticParquet(synth, 20000); err != nil {
		return Load{}, err
	}
	var l Load
	for _, c := range []struct {
		path string
		want int
		dst  *Sample
	}{{verified, 500, &l.Verified}, {synth, 20000, &l.Synthetic}} {
		if _, err := TimeLoad(c.path, c.want, 1); err != nil {
			return l, err
		}
		ds, err := TimeLoad(c.path, c.want, n)
		if err != nil {
			return l, err
		}
		*c.dst = Summarize(ds)
	}
	return l, nil
}

func (l Load) Rows() []Row {
	return []Row{
		{What: "dataset load: SWE-bench Verified parquet (500 rows)", Measured: fmt.Sprintf("median %s, p90 %s (n=%d)", ms(l.Verified.Median), ms(l.Verified.P90), l.Verified.N),
			Goal: "< 50 ms", Pass: l.Verified.Median < 50*time.Millisecond},
		{What: "dataset load: synthetic parquet (20,000 rows)", Measured: fmt.Sprintf("median %s, p90 %s (n=%d)", ms(l.Synthetic.Median), ms(l.Synthetic.P90), l.Synthetic.N),
			Goal: "< 1 s", Pass: l.Synthetic.Median < time.Second},
	}
}
