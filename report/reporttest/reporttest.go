// Package reporttest checks the pages of a report in a real browser: the overview's figures
// against compare and stats, search, a filter and a sort of the instances table, an instance's
// diff and per-test verdicts, and the compare page. The report's own tests and the command's
// tests (static report, live view) share it.
package reporttest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/browsertest"
)

// Wait is how long a page may take to show what a check waits for.
const Wait = 20 * time.Second

// OpenOverview opens the report at base (a file:// URL of index.html, or the server's URL) and
// waits for the overview.
func OpenOverview(t *testing.T, b *browsertest.Browser, base string) *browsertest.Page {
	t.Helper()
	p := b.Open(t, base)
	p.WaitFor(`document.querySelector('.input-card [data-k="rate"]')`, "the overview", Wait)
	return p
}

// Goto shows the page at hash (e.g. "#/instances?verdict=R") and waits for cond.
func Goto(t *testing.T, p *browsertest.Page, hash, cond, what string) {
	t.Helper()
	js, _ := json.Marshal(hash)
	browsertest.Eval[bool](p, `(location.hash = `+string(js)+`, true)`)
	p.WaitFor(cond, what, Wait)
}

// NoConsoleErrors fails the test when the page wrote an error to the console.
func NoConsoleErrors(t *testing.T, p *browsertest.Page) {
	t.Helper()
	var errs []string
	for _, e := range p.Errors() {
		// Chromium aborts the requests in flight when the machine's network interfaces change
		// (other tests' containers come and go): the page's next poll fetches it again.
		if strings.Contains(e, "net::ERR_NETWORK_CHANGED") {
			t.Logf("ignored: %s", e)
			continue
		}
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		t.Errorf("the page wrote %d errors to the console:\n%s", len(errs), strings.Join(errs, "\n"))
	}
}

// text returns the text of the element of input k with data-k key.
func text(t *testing.T, p *browsertest.Page, k int, key string) string {
	t.Helper()
	return browsertest.Eval[string](p, fmt.Sprintf(`(document.querySelector('[data-input="%d"] [data-k="%s"]') || {textContent: '<missing>'}).textContent`, k, key))
}

var numRe = regexp.MustCompile(`[-−]?[0-9][0-9,]*(\.[0-9]+)?`)

// number parses the first number of a text shown on the page ("26.1%", "$1.46", "1,961"), with
// the precision it was shown with (0.05 for "26.1").
func number(t *testing.T, s string) (v, prec float64) {
	t.Helper()
	m := numRe.FindString(s)
	if m == "" {
		t.Fatalf("no number in %q", s)
	}
	m = strings.ReplaceAll(strings.ReplaceAll(m, ",", ""), "−", "-")
	v, err := strconv.ParseFloat(m, 64)
	if err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	prec = 0.5
	if i := strings.IndexByte(m, '.'); i >= 0 {
		prec = 0.5 * math.Pow(10, -float64(len(m)-i-1))
	}
	return v, prec
}

// Equal fails the test when the number shown as s differs from want beyond its shown precision;
// scale converts want into the unit shown (100 for a percentage).
func Equal(t *testing.T, what, s string, want, scale float64) {
	t.Helper()
	got, prec := number(t, s)
	if math.Abs(got-want*scale) > prec+1e-9 {
		t.Errorf("%s: the page shows %q, want %.6g", what, s, want*scale)
	}
}

// CheckOverview checks every input's figures on the overview against the comparison of the same
// inputs: resolved count and rate, covered instances, the Wilson interval of a single run, the
// verdict counts, submitted, cost, cost per resolved, steps and duration.
func CheckOverview(t *testing.T, p *browsertest.Page, res *compare.Result) {
	t.Helper()
	Goto(t, p, "#/", `document.querySelector('.input-card [data-k="rate"]')`, "the overview")
	if n := browsertest.Eval[int](p, `document.querySelectorAll('.input-card').length`); n != len(res.Inputs) {
		t.Fatalf("the overview shows %d inputs, want %d", n, len(res.Inputs))
	}
	for k, in := range res.Inputs {
		if got := text(t, p, k, "name"); got != in.Name {
			t.Errorf("input %d is named %q, want %q", k, got, in.Name)
		}
		Equal(t, in.Name+" resolved", text(t, p, k, "resolved"), in.Resolved, 1)
		Equal(t, in.Name+" covered", text(t, p, k, "covered"), float64(in.Covered), 1)
		Equal(t, in.Name+" resolved rate", text(t, p, k, "rate"), in.ResolvedRate, 100)
		if in.Repeats == 1 && in.Covered > 0 {
			lo, hi := compare.WilsonCI(int(in.Resolved), in.Covered, res.ConfidenceLevel)
			ci := text(t, p, k, "ci")
			parts := strings.Split(strings.Trim(ci, "[]"), ",")
			if len(parts) != 2 {
				t.Errorf("%s: interval %q", in.Name, ci)
			} else {
				Equal(t, in.Name+" CI low", parts[0], lo, 100)
				Equal(t, in.Name+" CI high", parts[1], hi, 100)
			}
		}
		submitted := 0
		for v, n := range in.Verdicts {
			letter := map[compare.Verdict]string{compare.Resolved: "R", compare.Unresolved: "U", compare.Error: "E", compare.EmptyPatch: "P", compare.NotSubmitted: "N"}[v]
			if n > 0 {
				Equal(t, fmt.Sprintf("%s %s", in.Name, v), text(t, p, k, "v-"+letter), float64(n), 1)
			}
			if v == compare.Resolved || v == compare.Unresolved || v == compare.Error {
				submitted += n
			}
		}
		Equal(t, in.Name+" submitted", text(t, p, k, "submitted"), float64(submitted), 1)
		// Cost and steps are over the instances whose figures are known: "–" when none is.
		m := in.Metrics
		unknown := func(what, key string) {
			if got := text(t, p, k, key); got != "–" {
				t.Errorf("%s %s: the page shows %q but no instance's figure is known, want –", in.Name, what, got)
			}
		}
		switch {
		case m.Cost != nil && m.Cost.N == 0:
			unknown("cost", "cost")
		case m.Cost != nil:
			Equal(t, in.Name+" cost", text(t, p, k, "cost"), m.Cost.Total, 1)
			if m.CostPerResolved != nil {
				Equal(t, in.Name+" cost per resolved", text(t, p, k, "cost-per-resolved"), *m.CostPerResolved, 1)
			}
		}
		switch {
		case m.Steps != nil && m.Steps.N == 0:
			unknown("mean steps", "steps")
		case m.Steps != nil:
			Equal(t, in.Name+" mean steps", text(t, p, k, "steps"), m.Steps.Mean, 1)
			Equal(t, in.Name+" total steps", text(t, p, k, "steps-total"), m.Steps.Total, 1)
		}
	}
}

// CheckStats checks input k's figures against `stats` of its output directory (results.ComputeStats).
func CheckStats(t *testing.T, p *browsertest.Page, k int, st *results.Stats) {
	t.Helper()
	Goto(t, p, "#/", `document.querySelector('.input-card [data-k="rate"]')`, "the overview")
	Equal(t, "stats: total steps", text(t, p, k, "steps-total"), st.Steps.Total, 1)
	Equal(t, "stats: mean steps", text(t, p, k, "steps"), st.Steps.Mean, 1)
	if st.Cost.Total > 0 {
		Equal(t, "stats: cost", text(t, p, k, "cost"), st.Cost.Total, 1)
	}
	if st.Eval != nil {
		Equal(t, "stats: resolved", text(t, p, k, "resolved"), float64(st.Eval.Resolved), 1)
	}
	if !st.FromTrajectories {
		Equal(t, "stats: infrastructure failures", text(t, p, k, "failures"), float64(len(st.Failures)), 1)
	}
}

// Rows returns the instance ids (and runs) of the rows the instances table shows, after waiting
// for it to settle.
func Rows(t *testing.T, p *browsertest.Page) []string {
	t.Helper()
	p.WaitFor(`document.getElementById('count') && document.getElementById('shown-count')`, "the instances table", Wait)
	var ids []string
	raw := browsertest.Eval[string](p, `JSON.stringify([...document.querySelectorAll('#rows tr')].map(tr => tr.dataset.id))`)
	if err := json.Unmarshal([]byte(raw), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// Search types query into the search box and returns the ids it finds.
func Search(t *testing.T, p *browsertest.Page, query string) []string {
	t.Helper()
	Goto(t, p, "#/instances", `document.getElementById('q') && document.getElementById('shown-count')`, "the instances table")
	// "/" focuses the box (the keyboard shortcut), then the query is typed.
	browsertest.Eval[bool](p, `document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '/', bubbles: true})), true`)
	p.WaitFor(`document.activeElement && document.activeElement.id === 'q'`, "'/' to focus the search box", Wait)
	js, _ := json.Marshal(query)
	browsertest.Eval[bool](p, `(() => { const q = document.getElementById('q'); q.value = `+string(js)+`; q.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
	p.WaitFor(`new URLSearchParams(location.hash.split('?')[1] || '').get('q') === `+string(js)+` && document.getElementById('shown-count')`, "the search for "+query, Wait)
	return Rows(t, p)
}

// UniqueWord finds a word of at least six letters that occurs in the trajectory of exactly one
// instance (in a reply or a command's output) and nowhere in the other instances' trajectories
// or problem statements, not even as the start of a longer word. trajs maps ids to trajectory
// files; problems holds the problem statements.
func UniqueWord(t *testing.T, trajs map[string]string, problems map[string]string) (word, id string) {
	t.Helper()
	wordRe := regexp.MustCompile(`[\p{L}\p{Nd}_]+`)
	own := map[string]map[string]bool{} // id → words of replies and outputs
	all := map[string]map[string]bool{} // id → every word of the trajectory and problem
	ids := make([]string, 0, len(trajs))
	for id, path := range trajs {
		ids = append(ids, id)
		tr, err := results.ReadTrajectory(path)
		if err != nil {
			t.Fatal(err)
		}
		own[id], all[id] = map[string]bool{}, map[string]bool{}
		add := func(m map[string]bool, s string) {
			for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
				m[w] = true
			}
		}
		for _, m := range tr.Messages {
			raw, _ := json.Marshal(m)
			add(all[id], string(raw))
			add(all[id], results.MessageText(m))
			extra, _ := m["extra"].(map[string]any)
			if m["role"] == "assistant" {
				add(own[id], results.MessageText(m))
			}
			if out, ok := extra["raw_output"].(string); ok {
				add(own[id], out)
			}
		}
		add(all[id], problems[id])
		add(all[id], id)
	}
	sort.Strings(ids)
	letters := regexp.MustCompile(`^[a-z]{6,30}$`)
	for _, id := range ids {
		var cands []string
		for w := range own[id] {
			if letters.MatchString(w) {
				cands = append(cands, w)
			}
		}
		sort.Strings(cands)
	next:
		for _, w := range cands {
			for _, other := range ids {
				if other == id {
					continue
				}
				for ow := range all[other] {
					if strings.HasPrefix(ow, w) {
						continue next
					}
				}
				if strings.Contains(strings.ToLower(other), w) {
					continue next
				}
			}
			if strings.Contains(strings.ToLower(id), w) {
				continue
			}
			return w, id
		}
	}
	t.Fatal("no word occurs in exactly one trajectory")
	return "", ""
}

// CheckSearchUnique searches a word that occurs only in id's trajectory and expects that one row.
func CheckSearchUnique(t *testing.T, p *browsertest.Page, word, id string) {
	t.Helper()
	got := Search(t, p, word)
	if len(got) != 1 || got[0] != id {
		t.Errorf("searching %q (only in the trajectory of %s) finds %v, want exactly [%s]", word, id, got, id)
	}
}

// CheckFilterAndSort filters the table by verdict (the letter: R, U, …) and expects want rows, all
// with that verdict; then sorts by key (cost, steps or time) with a click on its header,
// descending, and checks the order.
func CheckFilterAndSort(t *testing.T, p *browsertest.Page, verdict string, want int, key string) {
	t.Helper()
	Goto(t, p, "#/instances?verdict="+verdict, `document.getElementById('shown-count')`, "the filtered table")
	rows := Rows(t, p)
	if len(rows) != want {
		t.Errorf("filter verdict=%s shows %d rows, want %d", verdict, len(rows), want)
	}
	badges := browsertest.Eval[[]string](p, `[...document.querySelectorAll('#rows td[data-k="verdict"] .badge')].map(b => b.className)`)
	for _, b := range badges {
		if !strings.Contains(b, "v-"+verdict) {
			t.Errorf("filter verdict=%s shows a row with badge %q", verdict, b)
		}
	}
	// Sort: a click on the header; the first click sorts numbers descending.
	Goto(t, p, "#/instances", `document.getElementById('shown-count') && document.querySelector('th[data-sort="`+key+`"]')`, "the table")
	browsertest.Eval[bool](p, `document.querySelector('th[data-sort="`+key+`"]').click(), true`)
	p.WaitFor(`location.hash.includes('sort=`+key+`') && document.querySelector('th.sorted[data-sort="`+key+`"]')`, "sorting by "+key, Wait)
	vals := browsertest.Eval[[]string](p, `[...document.querySelectorAll('#rows td[data-k="`+key+`"]')].map(td => td.textContent)`)
	prev := math.Inf(1)
	for k, v := range vals {
		if v == "" || v == "–" {
			continue
		}
		x, _ := number(t, v)
		if x > prev+1e-9 {
			t.Errorf("sorted by %s descending, row %d (%s) follows a smaller value %g", key, k, v, prev)
			break
		}
		prev = x
	}
	if len(vals) < 2 {
		t.Errorf("sorted by %s: %d rows", key, len(vals))
	}
}

// CheckInstance opens id's page in run r and checks the diff and the per-test verdicts against
// its report.json (reportPath; "" when the run has none) and its patch.
func CheckInstance(t *testing.T, p *browsertest.Page, id string, r int, reportPath, patch string) {
	t.Helper()
	Goto(t, p, fmt.Sprintf("#/i/%s?r=%d", id, r), `document.querySelector('#trajectory') && document.querySelector('#patch')`, "the page of "+id)
	if got := browsertest.Eval[string](p, `document.getElementById('inst-id').textContent`); got != id {
		t.Errorf("instance page title %q, want %q", got, id)
	}
	if patch != "" {
		var add, del int
		for _, ln := range strings.Split(patch, "\n") {
			switch {
			case strings.HasPrefix(ln, "+++") || strings.HasPrefix(ln, "---"):
			case strings.HasPrefix(ln, "+"):
				add++
			case strings.HasPrefix(ln, "-"):
				del++
			}
		}
		gotAdd := browsertest.Eval[int](p, `document.querySelectorAll('#patch .diff .add').length`)
		gotDel := browsertest.Eval[int](p, `document.querySelectorAll('#patch .diff .del').length`)
		if gotAdd != add || gotDel != del {
			t.Errorf("%s: the diff shows %d added and %d removed lines, the patch has %d and %d", id, gotAdd, gotDel, add, del)
		}
		if n := browsertest.Eval[int](p, `document.querySelectorAll('#patch .diff .file').length`); n != strings.Count(patch, "diff --git") {
			t.Errorf("%s: the diff shows %d files, the patch has %d", id, n, strings.Count(patch, "diff --git"))
		}
	}
	if reportPath == "" {
		return
	}
	rep, _, err := eval.ReadReport(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	if rep.TestsStatus == nil {
		return
	}
	// Show every passing test, then compare the lists.
	browsertest.Eval[bool](p, `[...document.querySelectorAll('#verdict .tests li button')].forEach(b => b.click()), true`)
	for name, tr := range map[string]eval.TestResults{"FAIL_TO_PASS": rep.TestsStatus.FailToPass, "PASS_TO_PASS": rep.TestsStatus.PassToPass} {
		ok := browsertest.Eval[[]string](p, `[...document.querySelectorAll('#verdict ul[data-group="`+name+`"] li.ok')].map(li => li.dataset.test)`)
		bad := browsertest.Eval[[]string](p, `[...document.querySelectorAll('#verdict ul[data-group="`+name+`"] li.bad')].map(li => li.dataset.test)`)
		if !sameSet(ok, tr.Success) || !sameSet(bad, tr.Failure) {
			t.Errorf("%s %s: the page shows %d passing and %d failing tests, report.json %d and %d", id, name, len(ok), len(bad), len(tr.Success), len(tr.Failure))
		}
	}
	want := "unresolved"
	if rep.Resolved {
		want = "resolved"
	}
	if got := browsertest.Eval[string](p, `document.querySelector('.pane [data-k="verdict"] .badge').textContent`); got != want {
		t.Errorf("%s: verdict badge %q, want %q", id, got, want)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// Trajectories maps the ids of a run's output directory to their trajectory files.
func Trajectories(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.traj.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no trajectories in %s: %v", dir, err)
	}
	out := map[string]string{}
	for _, p := range paths {
		out[filepath.Base(filepath.Dir(p))] = p
	}
	return out
}

// Patch reads the prediction of id from a preds.json.
func Patch(t *testing.T, predsPath, id string) string {
	t.Helper()
	preds, err := eval.LoadPredictions(predsPath)
	if err != nil {
		t.Fatal(err)
	}
	return preds[id].Patch()
}

// FileExists reports whether p exists.
func FileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
