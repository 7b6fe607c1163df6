package polybench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The logs in testdata/logs were written for these tests in the forms the harness's containers
// print them (xtrace on stderr first, then stdout, then the harness's two "Container exited" lines):
// Maven runs that cat Surefire XML reports (also a compilation error and a log with more than 16
// "+ read -r file" traces), Mocha's JSON reporter (three.js, serverless, vscode, material-ui's
// variant with files), TAP, Jest's --json report (prettier, tailwindcss, code-server, a broken
// one), `bazel test` (angular), pytest (verbose, summary only, banners out of order) and unittest
// -v. Each testdata/expected/<Parser>__<log>.json holds what the parser class of the same name in
// SWE-PolyBench's harness (src/poly_bench_evaluation/parsers at amazon-science/SWE-PolyBench@
// 9c836c5d) returns for that log: its passed and failed tests, or null for its empty dict.

func TestParsersAgainstHarness(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "expected", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no expectations: %v", err)
	}
	covered := map[string]bool{}
	for _, f := range files {
		class, log, ok := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), "__")
		if !ok {
			t.Fatalf("%s: want <Parser>__<log>.json", f)
		}
		covered[class] = true
		t.Run(class+"/"+log, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want *struct {
				Passed []string `json:"passed"`
				Failed []string `json:"failed"`
			}
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			text, err := os.ReadFile(filepath.Join("testdata", "logs", log+".log"))
			if err != nil {
				t.Fatal(err)
			}
			parse, ok := parsers[class]
			if !ok {
				t.Fatalf("no parser %s", class)
			}
			got := parse(string(text))
			switch {
			case want == nil && got != nil:
				t.Fatalf("got %+v, want the empty dict (no logs)", got)
			case want == nil:
				return
			case got == nil:
				t.Fatalf("got the empty dict, want %+v", *want)
			}
			norm := func(s []string) []string {
				if s == nil {
					return []string{}
				}
				return s
			}
			if !reflect.DeepEqual(norm(got.PassedTests), norm(want.Passed)) || !reflect.DeepEqual(norm(got.FailedTests), norm(want.Failed)) {
				t.Errorf("got  passed %q failed %q\nwant passed %q failed %q", got.PassedTests, got.FailedTests, want.Passed, want.Failed)
			}
		})
	}
	for class := range parsers {
		if !covered[class] {
			t.Errorf("parser %s has no expectation in testdata/expected", class)
		}
	}
}

func TestParserFor(t *testing.T) {
	if _, name, err := ParserFor("angular/angular"); err != nil || name != "TypescriptBazelAngular" {
		t.Errorf("angular/angular: got %s, %v", name, err)
	}
	for repo, class := range repoParsers {
		if _, ok := parsers[class]; !ok {
			t.Errorf("%s names parser %s, which does not exist", repo, class)
		}
	}
	if _, _, err := ParserFor("acme/acme"); err == nil || !strings.Contains(err.Error(), "acme/acme") {
		t.Errorf("got %v, want an error naming the repository", err)
	}
}

func TestRunLog(t *testing.T) {
	got := RunLog("+ npm test\n", "ok\n", 1)
	want := "+ npm test\nok\n\nContainer exited with status code: 1\nContainer exited with status code: 1"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
