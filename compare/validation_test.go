package compare

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/validation"
)

// Broken instances leave the pairs' figures and the gate, flaky ones count as flaky, and with
// IncludeBroken every figure is the one without a validation.
func TestCompareSetsBrokenApart(t *testing.T) {
	a := synth("a", map[string]Verdict{
		"o__ok-1": Resolved, "o__ok-2": Resolved, "o__ok-3": Unresolved,
		"o__gold-4": Resolved, "o__empty-5": Resolved, "o__infra-6": Resolved, "o__flaky-7": Resolved, "o__known-8": Resolved,
	})
	b := synth("b", map[string]Verdict{
		"o__ok-1": Resolved, "o__ok-2": Unresolved, "o__ok-3": Resolved,
		"o__gold-4": Unresolved, "o__empty-5": Unresolved, "o__infra-6": Error, "o__flaky-7": Unresolved, "o__known-8": Unresolved,
	})
	// eval --repeat saw o__ok-3's verdict change in b's evaluation.
	b.GradingFlaky = []string{"o__ok-3"}
	recs := map[string]validation.Record{
		"o__ok-1":    {Outcome: validation.OK},
		"o__gold-4":  {Outcome: validation.GoldFails, Reason: "2 tests do not pass under the gold patch"},
		"o__empty-5": {Outcome: validation.EmptyPasses, Reason: "the empty patch resolves the instance"},
		"o__infra-6": {Outcome: validation.Infrastructure, Reason: "image missing"},
		"o__flaky-7": {Outcome: validation.Flaky, Reason: "the gold patch's verdict differs"},
		"o__known-8": validation.KnownEntry{InstanceID: "o__known-8", Outcome: validation.KnownBad, Note: "upstream"}.Record("bad.txt"),
	}
	plain, err := Compare([]*Run{a, b}, Options{Baseline: "a"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare([]*Run{a, b}, Options{Baseline: "a", Validation: recs, ValidationSource: "store/x"})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Pairs[0]
	if got, want := p.SetApart, []string{"o__empty-5", "o__gold-4", "o__infra-6", "o__known-8"}; !reflect.DeepEqual(got, want) {
		t.Errorf("set apart %v, want %v", got, want)
	}
	if got, want := p.Flaky, []string{"o__flaky-7", "o__ok-3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("flaky %v, want %v (validated flaky and a verdict changing between gradings)", got, want)
	}
	if p.Common != 4 || p.Paired != 2 || !reflect.DeepEqual(p.Regressed, []string{"o__ok-2"}) || len(p.Newly) != 0 {
		t.Errorf("pair: common %d, paired %d, regressed %v, newly %v", p.Common, p.Paired, p.Regressed, p.Newly)
	}
	// Without the validation the broken instances are regressions.
	if pp := plain.Pairs[0]; len(pp.Regressed) != 6 || pp.Common != 8 || len(pp.SetApart) != 0 {
		t.Errorf("without validation: regressed %v, common %d", pp.Regressed, pp.Common)
	}
	sa := res.SetApart
	if sa == nil || sa.Count() != 4 || sa.Validated != 6 || !reflect.DeepEqual(sa.Flaky, []string{"o__flaky-7"}) || sa.Included {
		t.Fatalf("set apart summary %+v", sa)
	}
	if !strings.Contains(res.Gate.Verdicts[0].Line, "4 with a broken environment set apart") {
		t.Errorf("gate line: %s", res.Gate.Verdicts[0].Line)
	}
	for _, row := range res.Rows {
		if want := recs[row.ID].Outcome; row.Environment != want {
			t.Errorf("%s: row environment %q, want %q", row.ID, row.Environment, want)
		}
	}
	var text bytes.Buffer
	if err := WriteText(&text, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"validation (6 of the instances, store/x): 4 instances whose environment is broken (1 gold fails, 1 empty passes, 1 infrastructure, 1 known bad), 1 flaky: left out of the paired figures and the gate; the flaky ones treated as flaky (--include-broken keeps them)",
		"o__known-8: known bad: listed broken by bad.txt (upstream)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "- validation (6 of the instances") || !strings.Contains(md.String(), "- `o__gold-4`: gold fails: 2 tests") {
		t.Errorf("markdown lacks the validation:\n%s", md.String())
	}

	// --include-broken: the figures are those without the validation, which is still named.
	incl, err := Compare([]*Run{a, b}, Options{Baseline: "a", Validation: recs, ValidationSource: "store/x", IncludeBroken: true})
	if err != nil {
		t.Fatal(err)
	}
	ip, pp := incl.Pairs[0], plain.Pairs[0]
	if !reflect.DeepEqual(ip, pp) || !reflect.DeepEqual(incl.Gate, plain.Gate) || !reflect.DeepEqual(incl.Inputs, plain.Inputs) {
		t.Errorf("--include-broken changes the figures:\n%+v\n%+v", ip, pp)
	}
	if incl.SetApart == nil || !incl.SetApart.Included || !strings.Contains(incl.SetApart.Line(), "kept in the figures (--include-broken)") {
		t.Errorf("--include-broken: %+v", incl.SetApart)
	}
}
