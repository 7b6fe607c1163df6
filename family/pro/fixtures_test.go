package pro_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/all"
	"github.com/swebench-run/swebench-run/family/pro"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The real SWE-bench Pro files of the test corpus (more-datasets/swe-bench-pro, from
// scaleapi/SWE-bench_Pro-os at the commits PROVENANCE.tsv names): every instance's
// run_scripts/<id>/instance_info.txt, the 30 examples of its pull request 61 (README with the
// task, golden_patch.diff, test_patch.diff), and the published runs' eval_results.json.
const proFixtures = "more-datasets/swe-bench-pro"

// instanceInfo is run_scripts/<id>/instance_info.txt: "Key: value" lines, the lists as JSON.
type instanceInfo struct {
	ID, Repo, BaseCommit              string
	TestFiles, FailToPass, PassToPass []string
}

func readInstanceInfo(t *testing.T, path string) instanceInfo {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ii instanceInfo
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		key, val, ok := strings.Cut(line, ": ")
		if !ok || seen[key] {
			t.Fatalf("%s: line %q is not a new \"Key: value\"", path, line)
		}
		seen[key] = true
		list := func(dst *[]string) {
			if err := json.Unmarshal([]byte(val), dst); err != nil || *dst == nil {
				t.Fatalf("%s: %s is not a JSON list of strings: %v", path, key, err)
			}
		}
		switch key {
		case "Instance ID":
			ii.ID = val
		case "Repository":
			ii.Repo = val
		case "Base Commit":
			ii.BaseCommit = val
		case "Test Files":
			list(&ii.TestFiles)
		case "FAIL_TO_PASS":
			list(&ii.FailToPass)
		case "PASS_TO_PASS":
			list(&ii.PassToPass)
		default:
			t.Fatalf("%s: unknown key %q", path, key)
		}
	}
	if len(seen) != 6 {
		t.Fatalf("%s: %d keys, want 6", path, len(seen))
	}
	return ii
}

var hex40 = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Every SWE-bench Pro instance's instance_info.txt reads the same way and agrees with the rest:
// its folder, a repository and base commit, its test lists; the pinned manifest has its
// run_script.sh and parser.py; its image tag is a valid Docker tag.
func TestInstanceInfoOfEveryInstance(t *testing.T) {
	root := testenv.Fixtures(t, proFixtures, "run_scripts")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	m := pro.Manifest()
	tag := regexp.MustCompile(`^[a-z0-9][A-Za-z0-9._-]{0,127}$`)
	n := 0
	for _, d := range dirs {
		ii := readInstanceInfo(t, filepath.Join(root, d.Name(), "instance_info.txt"))
		n++
		switch {
		case ii.ID != d.Name():
			t.Errorf("%s: instance id %q", d.Name(), ii.ID)
		case !strings.HasPrefix(ii.ID, "instance_"):
			t.Errorf("%s: id without instance_", ii.ID)
		case strings.Count(ii.Repo, "/") != 1:
			t.Errorf("%s: repository %q", ii.ID, ii.Repo)
		case !hex40.MatchString(ii.BaseCommit):
			t.Errorf("%s: base commit %q", ii.ID, ii.BaseCommit)
		case len(ii.TestFiles) == 0 || len(ii.FailToPass) == 0:
			t.Errorf("%s: %d test files, %d FAIL_TO_PASS", ii.ID, len(ii.TestFiles), len(ii.FailToPass))
		}
		for _, f := range []string{"run_script.sh", "parser.py"} {
			if _, ok := m.Files["run_scripts/"+ii.ID+"/"+f]; !ok {
				t.Errorf("%s: the manifest has no %s", ii.ID, f)
			}
		}
		if tg := pro.DockerHubTag(ii.ID, ii.Repo); !tag.MatchString(tg) {
			t.Errorf("%s: tag %q", ii.ID, tg)
		}
	}
	if n != 1000 || len(m.Files) != 2*n {
		t.Errorf("%d instances, %d manifest files; want 1000 and 2000", n, len(m.Files))
	}
}

// example is one of the 30 examples: its README's fields and sections.
type example struct {
	dir                          string
	id, repo, lang, base         string
	problem, requirements, iface string
	patch, testPatch             string
}

func readExample(t *testing.T, dir string) example {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	field := func(re string) string {
		g := regexp.MustCompile(re).FindStringSubmatch(text)
		if g == nil {
			t.Fatalf("%s: no %s", dir, re)
		}
		return g[1]
	}
	section := func(from, to string) string {
		_, rest, ok := strings.Cut(text, "\n## "+from+"\n")
		body, _, ok2 := strings.Cut(rest, "\n## "+to+"\n")
		if !ok || !ok2 {
			t.Fatalf("%s: no section %s before %s", dir, from, to)
		}
		return strings.TrimSpace(body)
	}
	ex := example{dir: dir,
		id:      field("Instance ID:\\*\\* `([^`]+)`"),
		repo:    field(`Repository:\*\* \[([^\]]+)\]`),
		lang:    field(`Language:\*\* (\S+)`),
		base:    field("Base Commit:\\*\\* \\[`([0-9a-f]{40})`\\]"),
		problem: section("Problem Statement", "Requirements"), requirements: section("Requirements", "Interface"),
		iface: section("Interface", "Files"),
	}
	for dst, name := range map[*string]string{&ex.patch: "golden_patch.diff", &ex.testPatch: "test_patch.diff"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		*dst = string(b)
	}
	return ex
}

// pyRepr writes a list of strings the way Python's repr does for plain text (single quotes),
// as the dataset's string columns may hold them.
func pyRepr(l []string) string {
	parts := make([]string, len(l))
	for k, s := range l {
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			parts[k] = `"` + strings.ReplaceAll(s, `\`, `\\`) + `"`
			continue
		}
		parts[k] = "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// The 30 examples of the harness's pull request 61, made into rows of the dataset's columns
// (with run_scripts/<id>/instance_info.txt for the test lists, before_repo_set_cmd composed in
// the dataset's form from the base commit and the test files, no dockerhub_tag), load as
// SWE-bench Pro instances: found by their columns, their image named as the harness names it,
// /app, the task with its requirements and interfaces, their tests, gradeable.
func TestExamplesLoad(t *testing.T) {
	root := testenv.Fixtures(t, proFixtures)
	dirs, _ := filepath.Glob(filepath.Join(root, "pr61_examples", "examples", "*_*"))
	if len(dirs) != 30 {
		t.Fatalf("%d examples, want 30", len(dirs))
	}
	var rows strings.Builder
	byID := map[string]example{}
	infos := map[string]instanceInfo{}
	for k, d := range dirs {
		ex := readExample(t, d)
		ii := readInstanceInfo(t, filepath.Join(root, "run_scripts", ex.id, "instance_info.txt"))
		if ii.BaseCommit != ex.base || ii.Repo != ex.repo || ii.ID != ex.id {
			t.Errorf("%s: README (%s, %s) and instance_info.txt (%s, %s) disagree", d, ex.repo, ex.base, ii.Repo, ii.BaseCommit)
		}
		byID[ex.id], infos[ex.id] = ex, ii
		list := func(l []string) string { // both forms the harness's eval() reads
			if k%2 == 0 {
				return pyRepr(l)
			}
			b, _ := json.Marshal(l)
			return string(b)
		}
		row := map[string]any{
			"instance_id": ex.id, "repo": ex.repo, "repo_language": ex.lang, "base_commit": ex.base,
			"problem_statement": ex.problem, "requirements": ex.requirements, "interface": ex.iface,
			"patch": ex.patch, "test_patch": ex.testPatch,
			"fail_to_pass": list(ii.FailToPass), "pass_to_pass": list(ii.PassToPass),
			"selected_test_files_to_run": list(ii.TestFiles),
			"before_repo_set_cmd": fmt.Sprintf("git reset --hard %s\ngit clean -fd \ngit checkout %s \ngit checkout %s -- %s",
				ex.base, ex.base, ex.base, strings.Join(ii.TestFiles, " ")),
		}
		line, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		rows.Write(line)
		rows.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "pro-examples.jsonl")
	if err := os.WriteFile(path, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := all.New(all.Options{AssetCache: t.TempDir(), Offline: true})
	l, err := dataset.Load(context.Background(), path, dataset.LoadOptions{Families: reg.Families(), Require: dataset.RequireRun | dataset.RequireEval})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Instances) != 30 {
		t.Fatalf("%d instances", len(l.Instances))
	}
	for _, inst := range l.Instances {
		ex, ii := byID[inst.InstanceID], infos[inst.InstanceID]
		wantTask := ex.problem + "\n\nRequirements:\n" + ex.requirements + "\n\nNew interfaces introduced:\n" + ex.iface
		switch {
		case inst.Family != pro.Name:
			t.Errorf("%s: family %q", inst.InstanceID, inst.Family)
		case inst.Image != "jefzda/sweap-images:"+pro.DockerHubTag(ex.id, ex.repo):
			t.Errorf("%s: image %q", inst.InstanceID, inst.Image)
		case inst.WorkingDir("/testbed") != "/app":
			t.Errorf("%s: working dir %q", inst.InstanceID, inst.WorkingDir("/testbed"))
		case inst.TaskText() != wantTask:
			t.Errorf("%s: task\n%s\nwant\n%s", inst.InstanceID, inst.TaskText(), wantTask)
		case strings.Join(inst.FailToPass, "\x00") != strings.Join(ii.FailToPass, "\x00") ||
			strings.Join(inst.PassToPass, "\x00") != strings.Join(ii.PassToPass, "\x00"):
			t.Errorf("%s: tests %d/%d, instance_info %d/%d", inst.InstanceID, len(inst.FailToPass), len(inst.PassToPass), len(ii.FailToPass), len(ii.PassToPass))
		case inst.Patch != ex.patch || inst.BaseCommit != ii.BaseCommit:
			t.Errorf("%s: patch or base commit", inst.InstanceID)
		}
		script, err := pro.EntryScript(inst)
		if err != nil || !strings.Contains(script, "bash /workspace/run_script.sh "+strings.Join(ii.TestFiles, ",")+" > /workspace/stdout.log 2> /workspace/stderr.log\n") ||
			!strings.Contains(script, "\ngit checkout "+ex.base+" -- ") {
			t.Errorf("%s: entry script (%v):\n%s", inst.InstanceID, err, script)
		}
	}
	g := reg.Grader(pro.Name)
	if err := g.Check(l.Instances); err != nil {
		t.Errorf("the examples cannot be graded: %v", err)
	}
	// The harness's own element-web naming for the one element-hq example.
	for _, inst := range l.Instances {
		if inst.Repo == "element-hq/element-web" && !strings.HasPrefix(inst.Image, "jefzda/sweap-images:element-hq.element-") {
			t.Errorf("%s: image %s", inst.InstanceID, inst.Image)
		}
	}
}

// The pinned manifest's run_script.sh and parser.py of the examples are the harness's files.
func TestManifestIsTheHarnesss(t *testing.T) {
	root := testenv.Fixtures(t, proFixtures)
	dirs, _ := filepath.Glob(filepath.Join(root, "pr61_examples", "examples", "*_*"))
	m := pro.Manifest()
	n := 0
	for _, d := range dirs {
		ex := readExample(t, d)
		for _, f := range []string{"run_script.sh", "parser.py"} {
			data, err := os.ReadFile(filepath.Join(root, "run_scripts", ex.id, f))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			e := m.Files["run_scripts/"+ex.id+"/"+f]
			if e.SHA256 != hex.EncodeToString(sum[:]) || e.Size != int64(len(data)) {
				t.Errorf("%s/%s: manifest %d %s, file %d %x", ex.id, f, e.Size, e.SHA256, len(data), sum)
			}
			n++
		}
	}
	if n != 60 {
		t.Errorf("%d files compared, want 60", n)
	}
}

// The published runs' eval_results.json read as SWE-bench Pro verdicts.
func TestPublishedEvalResults(t *testing.T) {
	root := testenv.Fixtures(t, proFixtures, "traj")
	files, _ := filepath.Glob(filepath.Join(root, "*", "eval_results.json"))
	if len(files) != 9 {
		t.Fatalf("%d runs, want 9", len(files))
	}
	distinct := map[string]bool{}
	var summary []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fv, ok, err := all.ReadReportFile(f, data)
		if err != nil || !ok || fv.Format != "SWE-bench Pro eval_results.json" {
			t.Fatalf("%s: %v, %v, %q", f, ok, err, fv.Format)
		}
		var raw map[string]bool
		json.Unmarshal(data, &raw)
		resolved := 0
		for id, v := range fv.Verdicts {
			distinct[id] = true
			if (v.Outcome == family.Resolved) != raw[id] || (v.Outcome != family.Resolved && v.Outcome != family.Unresolved) {
				t.Errorf("%s %s: %s, file says %t", f, id, v.Outcome, raw[id])
			}
			if v.Outcome == family.Resolved {
				resolved++
			}
		}
		if len(fv.Verdicts) != len(raw) {
			t.Errorf("%s: %d verdicts of %d", f, len(fv.Verdicts), len(raw))
		}
		summary = append(summary, fmt.Sprintf("%s %d/%d", filepath.Base(filepath.Dir(f)), resolved, len(raw)))
	}
	sort.Strings(summary)
	t.Log(strings.Join(summary, "; "))
	if len(distinct) != 970 {
		t.Errorf("%d distinct instances, want 970", len(distinct))
	}
}
