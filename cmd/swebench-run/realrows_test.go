package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/corpus"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The corpus's files of the kinds a dataset is read from (parquet, JSON, JSON lines), each
// classified: a file of dataset rows, or one of the other kinds the corpus holds. A new corpus
// file of these kinds that matches neither list fails TestRealRowFilesLoad, so that it is
// classified (and, if it holds rows, walked) when it is added.
var (
	rowFiles = []*regexp.Regexp{
		regexp.MustCompile(`^datasets/[^/]+\.(parquet|jsonl)$`),
		regexp.MustCompile(`^datasets/json-edge-cases/[^/]+\.json$`),
		regexp.MustCompile(`^more-datasets/multi-swe-bench/pr39_seal-research/mswebench_dataset/[^/]+/[^/]+_dataset\.jsonl$`),
		regexp.MustCompile(`^more-datasets/swe-rebench-v2/sample\.json$`),
		regexp.MustCompile(`^more-datasets/swe-bench-live/repolaunch-trajectory-archive/[^/]+/playground/[^/]+/instance\.json$`),
		regexp.MustCompile(`^more-datasets/swe-smith/tests/test_logs/[^/]+\.json$`), // a SWE-smith task file: one row
	}
	notRowFiles = []*regexp.Regexp{
		regexp.MustCompile(`^runs/`),         // predictions, trajectories, harness logs and reports
		regexp.MustCompile(`^reports/`),      // run and per-instance reports
		regexp.MustCompile(`^predictions/`),  // predictions
		regexp.MustCompile(`^trajectories/`), // trajectories and replayed outputs
		regexp.MustCompile(`/eval_results\.json$`),
		regexp.MustCompile(`^more-datasets/swe-polybench/evaluation/`), // a submission: predictions and verdicts
		regexp.MustCompile(`^more-datasets/swe-smith/tests/test_logs/(run_evaluation|run_validation|trajectories)/`),
		regexp.MustCompile(`^more-datasets/swe-smith/tests/test_logs/ft_xml_example\.jsonl$`), // SFT data
		regexp.MustCompile(`/playground/[^/]+/result\.json$`),                                 // RepoLaunch's environment results
		regexp.MustCompile(`^more-datasets/multi-swe-bench/legacy_swe-bench-java_experiments/`),
	}
)

// rowFileExceptions are the real row files that are refused on purpose, with what must be said.
var rowFileExceptions = map[string]struct{ run, eval string }{
	// SWE-agent's edge case of a duplicated id: refused, naming the id and its rows.
	"datasets/json-edge-cases/swe-bench-dev-easy.json": {
		run:  "duplicated instance_id(s): pylint-dev__astroid-1268 (rows 2, 4)",
		eval: "duplicated instance_id(s): pylint-dev__astroid-1268 (rows 2, 4)",
	},
	// Rows of swe-bench/humaneval: no eval_script and in no official SWE-bench dataset, so no
	// harness can build their eval script; they run, and eval says why it cannot grade them.
	"datasets/json-edge-cases/human_eval.json": {eval: "5 rows cannot be graded: they have no eval_script"},
	// Four of these five rows are in the full test split only, which the corpus (and so the hub
	// served here) does not hold; the fifth is completed from Verified.
	"datasets/json-edge-cases/debug_20240322.json": {eval: "4 rows cannot be graded: they have no eval_script"},
}

// serveOfficialDatasets serves the corpus's copies of the official SWE-bench datasets as the hub
// does, so that rows without the harness-v5 columns are completed from them (as eval does from
// the real hub); the full test split is not in the corpus and is answered 404.
func serveOfficialDatasets(t *testing.T) string {
	t.Helper()
	const sha = "2222222222222222222222222222222222222222"
	files := map[string]string{ // repo:split → corpus file
		"SWE-bench/SWE-bench_Verified:test":     "datasets/SWE-bench_Verified.test.parquet",
		"SWE-bench/SWE-bench_Lite:test":         "datasets/SWE-bench_Lite.test.parquet",
		"SWE-bench/SWE-bench_Lite:dev":          "datasets/SWE-bench_Lite.dev.parquet",
		"SWE-bench/SWE-bench:dev":               "datasets/SWE-bench.dev.parquet",
		"SWE-bench/SWE-bench_Multilingual:test": "datasets/SWE-bench_Multilingual.test.parquet",
		"SWE-bench/SWE-bench_Multimodal:dev":    "datasets/SWE-bench_Multimodal.dev.parquet",
	}
	type served struct {
		name string
		data []byte
	}
	byRepo := map[string][]served{}
	for key, f := range files {
		repo, split, _ := strings.Cut(key, ":")
		data, err := os.ReadFile(testenv.Fixtures(t, f))
		if err != nil {
			t.Fatal(err)
		}
		byRepo[repo] = append(byRepo[repo], served{"data/" + split + "-00000-of-00001.parquet", data})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for repo, fs := range byRepo {
			if r.URL.Path == "/api/datasets/"+repo {
				var sibs []string
				for _, f := range fs {
					sum := sha256.Sum256(f.data)
					sibs = append(sibs, fmt.Sprintf(`{"rfilename": %q, "size": %d, "lfs": {"sha256": %q, "size": %d}}`, f.name, len(f.data), hex.EncodeToString(sum[:]), len(f.data)))
				}
				fmt.Fprintf(w, `{"sha": %q, "siblings": [%s]}`, sha, strings.Join(sibs, ", "))
				return
			}
			for _, f := range fs {
				if r.URL.Path == "/datasets/"+repo+"/resolve/"+sha+"/"+f.name {
					w.Write(f.data)
					return
				}
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRealRowFilesLoad walks every file of dataset rows in the test corpus — the SWE-bench
// datasets, Multi-SWE-bench's Java rows as its harness's files have them (empty test sets, no
// instance_id column), SWE-rebench-V2's row, SWE-bench-Live's RepoLaunch instance.json files,
// SWE-smith's task file — through the user's commands: `run --dry-run` loads and validates them
// for a run, and `eval --predictions gold --from-logs EMPTY` for an evaluation (both families'
// checks and the graders' Check), which then finds no log to grade (exit 3). A shape the harness
// accepts must never be refused again.
func TestRealRowFilesLoad(t *testing.T) {
	t.Setenv("HF_ENDPOINT", serveOfficialDatasets(t))
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	t.Setenv("HF_HUB_OFFLINE", "")
	var files []string
	for _, e := range corpus.Default().Entries {
		if !regexp.MustCompile(`\.(parquet|jsonl|json)$`).MatchString(e.Path) {
			continue
		}
		matches := func(res []*regexp.Regexp) bool {
			for _, re := range res {
				if re.MatchString(e.Path) {
					return true
				}
			}
			return false
		}
		switch isRows, isOther := matches(rowFiles), matches(notRowFiles); {
		case isRows && isOther:
			t.Errorf("%s is classified both as rows and as another kind", e.Path)
		case isRows:
			files = append(files, e.Path)
		case !isOther:
			t.Errorf("corpus file %s is neither a known file of rows nor of another kind: add it to rowFiles or notRowFiles", e.Path)
		}
	}
	if len(files) < 40 {
		t.Fatalf("only %d row files found in the corpus manifest", len(files))
	}
	empty := t.TempDir()
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			split := testenv.Fixtures(t, f)
			want := rowFileExceptions[f]
			code, stdout, stderr := runCLI(t, "run", "--dry-run", "--split", split, "--model", "scripted", "-o", filepath.Join(t.TempDir(), "run"))
			switch {
			case want.run != "":
				if code != exitFailure || !strings.Contains(stderr, want.run) {
					t.Errorf("run --dry-run: exit %d, want %d saying %q\n%s", code, exitFailure, want.run, stderr)
				}
			case code != 0 || !strings.Contains(stderr, "instances selected") || stdout == "":
				t.Errorf("run --dry-run: exit %d, want 0 and the instances listed\n%s", code, stderr)
			}
			code, stdout, stderr = runCLI(t, "eval", "--predictions", "gold", "--split", split, "--from-logs", empty, "-o", filepath.Join(t.TempDir(), "eval"))
			switch {
			case want.eval != "":
				if code != exitFailure || !strings.Contains(stderr, want.eval) {
					t.Errorf("eval: exit %d, want %d saying %q\n%s", code, exitFailure, want.eval, stderr)
				}
			case code != exitFailedInsts || !strings.Contains(stdout, ": no_test_output: "):
				// Loaded and checked for grading: every instance then has no log in the empty folder.
				t.Errorf("eval --from-logs EMPTY: exit %d, want %d (no log to regrade)\nstdout: %s\nstderr: %s", code, exitFailedInsts, firstLines(stdout, 5), firstLines(stderr, 10))
			}
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}
