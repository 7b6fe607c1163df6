package validation

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func intp(n int) *int { return &n }

func grading(patch string, repeat int, verdict string, tests map[string]string) Grading {
	return Grading{Patch: patch, Repeat: repeat, Verdict: verdict, Tests: tests, Collected: intp(len(tests))}
}

func TestClassify(t *testing.T) {
	exp := Expected{FailToPass: []string{"t::f2p"}, PassToPass: []string{"t::p2p"}}
	pass := map[string]string{"t::f2p": StatusPassed, "t::p2p": StatusPassed}
	fixNeeded := map[string]string{"t::f2p": StatusFailed, "t::p2p": StatusPassed}
	missing := map[string]string{"t::f2p": StatusMissing, "t::p2p": StatusMissing}
	tests := []struct {
		name     string
		gradings []Grading
		want     Outcome
		reason   string // a part of the reason
		tests    []Test
	}{
		{"ok", []Grading{grading(PatchGold, 1, VerdictResolved, pass), grading(PatchEmpty, 1, VerdictUnresolved, fixNeeded)},
			OK, "every time", []Test{}},
		{"gold fails: a dependency missing", []Grading{
			grading(PatchGold, 1, VerdictUnresolved, missing), grading(PatchEmpty, 1, VerdictUnresolved, missing)},
			GoldFails, "2 tests do not pass under the gold patch: t::f2p (missing), t::p2p (missing)",
			[]Test{{Name: "t::f2p", Group: GroupFailToPass, Patch: PatchGold, Status: StatusMissing}, {Name: "t::p2p", Group: GroupPassToPass, Patch: PatchGold, Status: StatusMissing}}},
		{"gold fails: the runner crashed", []Grading{
			{Patch: PatchGold, Repeat: 1, Verdict: VerdictUnresolved, Tests: missing, Collected: intp(0), ExitCode: intp(139)},
			{Patch: PatchEmpty, Repeat: 1, Verdict: VerdictUnresolved, Tests: missing, Collected: intp(0), ExitCode: intp(139)}},
			GoldFails, "collected no test under the gold patch (the test runner was killed by signal 11, exit 139)", nil},
		{"gold fails: does not apply", []Grading{
			{Patch: PatchGold, Repeat: 1, Verdict: VerdictError, ErrorKind: "patch_apply_failed", Reason: "hunk 1 failed"},
			grading(PatchEmpty, 1, VerdictUnresolved, fixNeeded)},
			GoldFails, "cannot be graded: patch_apply_failed: hunk 1 failed", []Test{}},
		{"empty passes", []Grading{grading(PatchGold, 1, VerdictResolved, pass), grading(PatchEmpty, 1, VerdictResolved, pass)},
			EmptyPasses, "pass without the fix: t::f2p (passed)", []Test{{Name: "t::f2p", Group: GroupFailToPass, Patch: PatchEmpty, Status: StatusPassed}}},
		{"flaky verdict", []Grading{
			grading(PatchGold, 1, VerdictResolved, pass), grading(PatchGold, 2, VerdictUnresolved, map[string]string{"t::f2p": StatusPassed, "t::p2p": StatusFailed}),
			grading(PatchEmpty, 1, VerdictUnresolved, fixNeeded), grading(PatchEmpty, 2, VerdictUnresolved, fixNeeded)},
			Flaky, "the gold patch's verdict differs between 2 repeats (resolved, unresolved): t::p2p (passed, failed)",
			[]Test{{Name: "t::p2p", Group: GroupPassToPass, Patch: PatchGold, Status: StatusPassed, Statuses: []string{StatusPassed, StatusFailed}}}},
		{"flaky test under a stable verdict", []Grading{
			grading(PatchGold, 1, VerdictResolved, pass), grading(PatchGold, 2, VerdictResolved, pass),
			grading(PatchEmpty, 1, VerdictUnresolved, fixNeeded), grading(PatchEmpty, 2, VerdictUnresolved, map[string]string{"t::f2p": StatusFailed, "t::p2p": StatusFailed})},
			Flaky, "under the empty patch, tests change status between 2 repeats: t::p2p (passed, failed)", nil},
		{"infrastructure wins", []Grading{
			grading(PatchGold, 1, VerdictUnresolved, missing),
			{Patch: PatchEmpty, Repeat: 1, Verdict: VerdictError, ErrorKind: "timeout", Infrastructure: true, Reason: "eval script timed out after 1800 seconds"}},
			Infrastructure, "empty patch, repeat 1: timeout: eval script timed out", []Test{}},
		{"an empty patch's grading error is not a pass", []Grading{
			grading(PatchGold, 1, VerdictResolved, pass), {Patch: PatchEmpty, Repeat: 1, Verdict: VerdictError, ErrorKind: "no_test_output", Reason: "no output"}},
			OK, "every time", []Test{}},
		{"a family that cannot name tests", []Grading{
			{Patch: PatchGold, Repeat: 1, Verdict: VerdictUnresolved}, {Patch: PatchEmpty, Repeat: 1, Verdict: VerdictUnresolved}},
			GoldFails, "the gold patch is not resolved", []Test{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reason, gotTests := Classify(exp, tc.gradings)
			if got != tc.want || !strings.Contains(reason, tc.reason) {
				t.Errorf("Classify = %s, %q; want %s with %q", got, reason, tc.want, tc.reason)
			}
			if tc.tests != nil && !reflect.DeepEqual(gotTests, tc.tests) {
				t.Errorf("tests = %+v, want %+v", gotTests, tc.tests)
			}
		})
	}
}

func TestReadKnownBad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, text string
		want       []KnownEntry
		err        string
	}{
		{"plain list", "# broken on our images\nb__b-2\n\na__a-1  # see issue 586\n",
			[]KnownEntry{{InstanceID: "a__a-1", Outcome: KnownBad}, {InstanceID: "b__b-2", Outcome: KnownBad}}, ""},
		{"ids with outcomes and notes", "a__a-1 gold-fails needs network access\nb__b-2 empty passes\nc__c-3 flaky timing-dependent test\nd__d-4 the tests are wrong\n",
			[]KnownEntry{{"a__a-1", GoldFails, "needs network access"}, {"b__b-2", EmptyPasses, ""}, {"c__c-3", Flaky, "timing-dependent test"}, {"d__d-4", KnownBad, "the tests are wrong"}}, ""},
		{"tab-separated", "a__a-1\tinfrastructure\timage pull fails\n",
			[]KnownEntry{{"a__a-1", Infrastructure, "image pull fails"}}, ""},
		{"JSON list of ids", `["b__b-2", "a__a-1"]`,
			[]KnownEntry{{InstanceID: "a__a-1", Outcome: KnownBad}, {InstanceID: "b__b-2", Outcome: KnownBad}}, ""},
		{"JSON list of objects", `[{"instance_id": "a__a-1", "outcome": "gold_fails", "reason": "flaky network"}]`,
			[]KnownEntry{{"a__a-1", GoldFails, "flaky network"}}, ""},
		{"JSON object", `{"a__a-1": "no longer builds", "b__b-2": {"outcome": "empty-passes"}}`,
			[]KnownEntry{{"a__a-1", KnownBad, "no longer builds"}, {"b__b-2", EmptyPasses, ""}}, ""},
		{"an id twice", "a__a-1\na__a-1 flaky\n", nil, "listed twice"},
		{"ok is no known-bad outcome", "a__a-1 ok\n", nil, ":1: a__a-1 is listed as ok"},
		{"a bad JSON outcome", `[{"instance_id": "a__a-1", "outcome": "sometimes"}]`, nil, `item 1: a__a-1: unknown outcome "sometimes"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadKnownBad(write(strings.ReplaceAll(tc.name, " ", "_"), tc.text))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestStore(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	const ds, rev = "demo/dataset.jsonl", "sha256:abc"
	day := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	recs := []Record{
		{InstanceID: "a__a-1", Outcome: OK, Dataset: ds, DatasetRevision: rev, ImageDigest: "sha256:1", Repeats: 1, Source: SourceValidate, Date: day},
		{InstanceID: "b__b-2", Outcome: GoldFails, Dataset: ds, DatasetRevision: rev, ImageDigest: "sha256:2", Repeats: 5, Source: SourceValidate, Date: day},
		KnownEntry{InstanceID: "c__c-3", Outcome: KnownBad, Note: "upstream says so"}.Record("list.txt"),
	}
	recs[2].Dataset, recs[2].DatasetRevision = ds, rev
	for _, r := range recs {
		if err := st.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	set, err := st.Load(ds, rev)
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 3 || Counts(set.Records)[GoldFails] != 1 {
		t.Fatalf("loaded %d records: %v", set.Len(), Counts(set.Records))
	}
	if got := BrokenIDs(set.Records); !reflect.DeepEqual(got, []string{"b__b-2", "c__c-3"}) {
		t.Errorf("broken = %v", got)
	}
	if other, _ := st.Load(ds, "sha256:other"); other.Len() != 0 {
		t.Errorf("another revision has %d records, want none", other.Len())
	}
	// Freshness: the digest must match, the repeats suffice, a known-bad entry always holds.
	a, _ := set.Get("a__a-1")
	b, _ := set.Get("b__b-2")
	c, _ := set.Get("c__c-3")
	for _, tc := range []struct {
		r       Record
		digest  string
		repeats int
		want    bool
	}{{a, "sha256:1", 1, true}, {a, "sha256:9", 1, false}, {a, "sha256:1", 5, false}, {b, "sha256:2", 1, true}, {c, "sha256:x", 5, true}} {
		if got := tc.r.Fresh(tc.digest, tc.repeats); got != tc.want {
			t.Errorf("%s.Fresh(%s, %d) = %v, want %v", tc.r.InstanceID, tc.digest, tc.repeats, got, tc.want)
		}
	}

	path, err := st.WriteFile(ds, rev, day)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, st.Folder(ds, rev), st.Dir} {
		got, err := Open(p)
		if err != nil {
			t.Fatalf("Open(%s): %v", p, err)
		}
		if got.Len() != 3 {
			t.Errorf("Open(%s): %d records, want 3", p, got.Len())
		}
		if r, _ := got.Get("c__c-3"); !r.FromKnownBad() || r.Note != "upstream says so" || !r.Outcome.Broken() {
			t.Errorf("Open(%s): known-bad record %+v", p, r)
		}
	}
	if _, err := Open(filepath.Join(st.Dir, "nowhere")); err == nil {
		t.Error("Open of a missing path: no error")
	}
}
