package validation

import (
	"fmt"
	"sort"
	"strings"
)

// Expected are an instance's expected tests.
type Expected struct {
	FailToPass []string
	PassToPass []string
}

func (e Expected) group(name string) string {
	for _, t := range e.FailToPass {
		if t == name {
			return GroupFailToPass
		}
	}
	return GroupPassToPass
}

// maxNamed bounds the tests a reason names before "and N more".
const maxNamed = 5

// Classify decides an instance's outcome from its gradings, in this order:
//
//   - Infrastructure: a grading failed for the environment's reasons (image, container,
//     timeout, assets);
//   - Flaky: the verdict of one patch differs between its repeats, or a test's status does;
//   - GoldFails: the gold patch never resolves (an error of the gold grading that is not the
//     infrastructure's — the gold patch does not apply, its log cannot be graded — counts so);
//     the tests are those not passing under it, or none when no test was collected;
//   - EmptyPasses: the empty patch resolves the instance; the tests are the FAIL_TO_PASS tests
//     passing without the fix;
//   - OK otherwise.
//
// An empty patch's grading that is an error of another kind than the infrastructure's counts as
// not resolved.
func Classify(exp Expected, gradings []Grading) (Outcome, string, []Test) {
	tests := []Test{}
	if len(gradings) == 0 {
		return Infrastructure, "no grading ran", tests
	}
	for _, g := range gradings {
		if g.Infrastructure {
			return Infrastructure, fmt.Sprintf("%s patch, repeat %d: %s: %s", g.Patch, g.Repeat, g.ErrorKind, g.Reason), tests
		}
	}
	byPatch := map[string][]Grading{}
	for _, g := range gradings {
		byPatch[g.Patch] = append(byPatch[g.Patch], g)
	}
	for _, p := range []string{PatchGold, PatchEmpty} {
		gs := byPatch[p]
		sort.SliceStable(gs, func(i, j int) bool { return gs[i].Repeat < gs[j].Repeat })
		if reason, varied := flaky(exp, p, gs); reason != "" {
			return Flaky, reason, varied
		}
	}
	gold, empty := byPatch[PatchGold], byPatch[PatchEmpty]
	if len(gold) > 0 && gold[0].Verdict != VerdictResolved {
		return GoldFails, goldReason(exp, gold[0]), failing(exp, gold[0])
	}
	if len(empty) > 0 && empty[0].Verdict == VerdictResolved {
		passing := []Test{}
		for _, name := range exp.FailToPass {
			if st := empty[0].Tests[name]; Passing(st) || empty[0].Tests == nil {
				passing = append(passing, Test{Name: name, Group: GroupFailToPass, Patch: PatchEmpty, Status: orUnknown(st)})
			}
		}
		reason := "the empty patch resolves the instance: its FAIL_TO_PASS tests pass without the fix"
		if len(passing) > 0 && empty[0].Tests != nil {
			reason += ": " + testList(passing)
		}
		return EmptyPasses, reason, passing
	}
	return OK, "the gold patch resolves the instance every time, the empty patch never", tests
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// verdictOf is a grading's verdict for the flaky check: errors that are no infrastructure's are
// not resolved.
func verdictOf(g Grading) string {
	if g.Verdict == VerdictResolved {
		return VerdictResolved
	}
	return VerdictUnresolved
}

// flaky says why the gradings of one patch differ between repeats ("" when they agree) and
// which tests changed status.
func flaky(exp Expected, patch string, gs []Grading) (string, []Test) {
	if len(gs) < 2 {
		return "", nil
	}
	verdicts := make([]string, len(gs))
	differ := false
	for i, g := range gs {
		verdicts[i] = verdictOf(g)
		differ = differ || verdicts[i] != verdicts[0]
	}
	var varied []Test
	for _, name := range append(append([]string{}, exp.FailToPass...), exp.PassToPass...) {
		statuses := make([]string, len(gs))
		known, changes := true, false
		for i, g := range gs {
			if g.Tests == nil {
				known = false
				break
			}
			statuses[i] = orUnknown(g.Tests[name])
			changes = changes || statuses[i] != statuses[0]
		}
		if known && changes {
			varied = append(varied, Test{Name: name, Group: exp.group(name), Patch: patch, Status: statuses[0], Statuses: statuses})
		}
	}
	if !differ && len(varied) == 0 {
		return "", nil
	}
	var b strings.Builder
	if differ {
		fmt.Fprintf(&b, "the %s patch's verdict differs between %d repeats (%s)", patch, len(gs), strings.Join(verdicts, ", "))
	} else {
		fmt.Fprintf(&b, "under the %s patch, tests change status between %d repeats", patch, len(gs))
	}
	if len(varied) > 0 {
		b.WriteString(": " + testList(varied))
	}
	if varied == nil {
		varied = []Test{}
	}
	return b.String(), varied
}

func failing(exp Expected, g Grading) []Test {
	out := []Test{}
	if g.Tests == nil {
		return out
	}
	for _, name := range append(append([]string{}, exp.FailToPass...), exp.PassToPass...) {
		if st, ok := g.Tests[name]; ok && !Passing(st) {
			out = append(out, Test{Name: name, Group: exp.group(name), Patch: PatchGold, Status: st})
		}
	}
	return out
}

// goldReason says why the gold patch's grading is not resolved.
func goldReason(exp Expected, g Grading) string {
	switch {
	case g.Verdict == VerdictError:
		return fmt.Sprintf("the gold patch cannot be graded: %s: %s", g.ErrorKind, g.Reason)
	case g.Collected != nil && *g.Collected == 0:
		return "the test runner collected no test under the gold patch" + exitNote(g.ExitCode)
	case g.Tests == nil:
		return "the gold patch is not resolved" + exitNote(g.ExitCode)
	}
	if fails := failing(exp, g); len(fails) > 0 {
		return fmt.Sprintf("%d tests do not pass under the gold patch%s: %s", len(fails), exitNote(g.ExitCode), testList(fails))
	}
	return "the gold patch is not resolved although every listed test passes (the family's rule: e.g. a passing test the row does not list)"
}

// exitNote describes a test command's exit status: " (the test runner was killed by signal 11)".
func exitNote(code *int) string {
	switch {
	case code == nil || *code == 0:
		return ""
	case *code > 128 && *code < 160:
		return fmt.Sprintf(" (the test runner was killed by signal %d, exit %d)", *code-128, *code)
	}
	return fmt.Sprintf(" (the test command exited %d)", *code)
}

// testList lists tests for a reason: the first maxNamed, then "and N more".
func testList(tests []Test) string {
	parts := make([]string, 0, min(len(tests), maxNamed))
	for i, t := range tests {
		if i == maxNamed {
			break
		}
		parts = append(parts, t.String())
	}
	s := strings.Join(parts, ", ")
	if len(tests) > maxNamed {
		s += fmt.Sprintf(", and %d more", len(tests)-maxNamed)
	}
	return s
}
