package compare

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/swebench-run/swebench-run/eval"
)

// maxListed is how many ids a flip list shows before "… and N more" in the text and Markdown
// forms (JSON and CSV hold them all).
const maxListed = 20

// WriteText writes the comparison as terminal tables, dataset by dataset: the inputs, their
// verdicts, statuses, costs and repeats, then each pair; then the figures pooled over the
// datasets, the history, the methods, the gate and the warnings.
func WriteText(w io.Writer, res *Result) error {
	multi := len(res.Datasets) > 1
	if multi {
		fmt.Fprintf(w, "%d datasets, %d inputs, %d instances\n", len(res.Datasets), len(res.Inputs), res.Instances)
	} else {
		fmt.Fprintf(w, "%d inputs, %d instances\n", len(res.Inputs), res.Instances)
	}
	writeSetApartText(w, res, "")
	for _, ds := range res.Datasets {
		ins := pick(res.Inputs, res.datasetInputs(ds.Name))
		fmt.Fprintln(w)
		if multi {
			fmt.Fprintf(w, "== dataset %s: %s ==\n\n", datasetTitle(ds.Name), datasetLine(ds))
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
		p("input\tform\tmodel\truns\tinstances\tcovered\tresolved\trate\n")
		for _, in := range ins {
			p("%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", in.Name, kindsOf(in), dash(modelsOf(in)), in.Repeats, in.Instances, in.Covered, count(in.Resolved), Percent1(in.ResolvedRate))
		}
		p("\n")
		writeVerdictTable(p, ins)
		writeStatusTable(p, ins)
		writeMetricsTable(p, ins)
		writeRepeats(p, ins)
		tw.Flush()

		pairs, vsBest := onlyDataset(res.Pairs, ds.Name), onlyDataset(res.VsBest, ds.Name)
		if len(ins) <= 2 || res.Gate != nil {
			for _, pr := range pairs {
				writePairText(w, pr, res)
			}
		} else if len(pairs) > 0 {
			fmt.Fprintln(w, "\npairs (b against a)")
			writePairTable(w, pairs)
		}
		if len(vsBest) > 0 {
			fmt.Fprintf(w, "\neach input against the best (%s)\n", ds.Best)
			writePairTable(w, vsBest)
			writeMatrixText(w, res, res.datasetInputs(ds.Name))
		}
	}
	if len(res.Variants) > 0 || len(res.Pooled) > 0 {
		fmt.Fprintf(w, "\n== over %d datasets ==\n", len(res.Datasets))
		writeVariantsText(w, res)
		writePooledText(w, res)
	}
	writeFlagsText(w, res, "  ")
	if len(res.Trend) > 0 {
		fmt.Fprintln(w, "\nhistory")
		WriteTrendText(w, res.Trend)
	}
	fmt.Fprintf(w, "\nmethods: %s; %s", MethodCI, MethodTest)
	if hasBootstrap(res) {
		fmt.Fprintf(w, "; with repeats, %s", MethodBootstrap)
	}
	if len(res.Pooled) > 0 {
		fmt.Fprintf(w, "; %s", MethodPooled)
	}
	fmt.Fprintln(w)
	if res.Gate != nil {
		fmt.Fprintf(w, "\nregression gate (baseline %s, α = %g%s)\n", res.Gate.Baseline, res.Gate.Alpha, correctionNote(res))
		for _, v := range res.Gate.Verdicts {
			fmt.Fprintf(w, "  %s: %s\n", res.GateSubject(v), v.Line)
		}
		for _, po := range res.Pooled {
			fmt.Fprintf(w, "  %s vs %s pooled (not gated): %s\n", po.B, po.A, po.Line)
		}
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings")
		for _, s := range res.Warnings {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	return nil
}

// correctionNote says how the gate corrects for several datasets, when it does.
func correctionNote(res *Result) string {
	for _, v := range res.Gate.Verdicts {
		if v.Tests > 1 {
			return "; p-values adjusted by " + MethodCorrection
		}
	}
	return ""
}

// datasetLine describes a dataset: its recorded name and revisions, its instances and inputs.
func datasetLine(ds DatasetGroup) string {
	var parts []string
	if ds.Dataset != "" && ds.Dataset != ds.Name {
		parts = append(parts, ds.Dataset)
	}
	switch len(ds.Revisions) {
	case 0:
	case 1:
		parts = append(parts, "revision "+revisionText(ds.Revisions[0]))
	default:
		revs := make([]string, len(ds.Revisions))
		for k, r := range ds.Revisions {
			revs[k] = revisionText(r)
		}
		parts = append(parts, "revisions "+strings.Join(revs, ", "))
	}
	parts = append(parts, fmt.Sprintf("%d instances", ds.Instances), fmt.Sprintf("%d inputs", len(ds.Inputs)))
	return strings.Join(parts, ", ")
}

// pick returns the inputs at the indices.
func pick(inputs []Input, idx []int) []Input {
	out := make([]Input, len(idx))
	for k, i := range idx {
		out[k] = inputs[i]
	}
	return out
}

// onlyDataset returns the pairs on dataset name.
func onlyDataset(pairs []Pair, name string) []Pair {
	var out []Pair
	for _, p := range pairs {
		if p.Dataset == name {
			out = append(out, p)
		}
	}
	return out
}

// writeVariantsText writes each input found on several datasets over them.
func writeVariantsText(w io.Writer, res *Result) {
	if len(res.Variants) == 0 {
		return
	}
	fmt.Fprintln(w, "\ninputs over their datasets (by instance: every instance alike; macro: every dataset alike)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  input\tdatasets\tcovered\tresolved\trate by instance\tmacro rate\n")
	for _, v := range res.Variants {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\n", v.Name, strings.Join(v.Datasets, ", "), v.Covered, count(v.Resolved), Percent1(v.ResolvedRate), Percent1(v.MacroRate))
	}
	tw.Flush()
}

// writePooledText writes each pair pooled over its datasets.
func writePooledText(w io.Writer, res *Result) {
	if len(res.Pooled) == 0 {
		return
	}
	fmt.Fprintln(w, "\npairs pooled over datasets (paired within each dataset)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  a\tb\tdatasets\tpaired\trate a\trate b\tnewly\tregressed\tflaky\tby instance\tCI\tmacro\tCI\tMcNemar p\n")
	for _, po := range res.Pooled {
		inst, instCI, macro, macroCI := pooledFigures(po)
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", po.A, po.B, len(po.Datasets), po.Paired, Percent1(po.RateA), Percent1(po.RateB),
			po.Newly, po.Regressed, po.Flaky, inst, instCI, macro, macroCI, PValue(po.McNemarP))
	}
	tw.Flush()
	for _, po := range res.Pooled {
		if po.Bootstrap != nil {
			fmt.Fprintf(w, "  %s vs %s, mean over repeats (bootstrap within datasets, %d resamples, seed %d): %s points by instance, %s CI [%s, %s]; %s points macro, %s CI [%s, %s]\n",
				po.B, po.A, po.Bootstrap.Resamples, po.Bootstrap.Seed,
				Points(po.Bootstrap.ByInstance.Difference), Percent(res.ConfidenceLevel), Points(po.Bootstrap.ByInstance.CILow), Points(po.Bootstrap.ByInstance.CIHigh),
				Points(po.Bootstrap.Macro.Difference), Percent(res.ConfidenceLevel), Points(po.Bootstrap.Macro.CILow), Points(po.Bootstrap.Macro.CIHigh))
		}
	}
}

// pooledFigures formats a pooled pair's differences and intervals ("n/a" without paired
// instances).
func pooledFigures(po Pooled) (inst, instCI, macro, macroCI string) {
	inst, instCI, macro, macroCI = "n/a", "n/a", "n/a", "n/a"
	if e := po.ByInstance; e != nil {
		inst, instCI = Points(e.Difference), fmt.Sprintf("[%s, %s]", Points(e.CILow), Points(e.CIHigh))
	}
	if e := po.Macro; e != nil {
		macro, macroCI = Points(e.Difference), fmt.Sprintf("[%s, %s]", Points(e.CILow), Points(e.CIHigh))
	}
	return inst, instCI, macro, macroCI
}

func writeVerdictTable(p func(string, ...any), inputs []Input) {
	p("verdict")
	for _, in := range inputs {
		p("\t%s", in.Name)
	}
	p("\n")
	for _, v := range Verdicts {
		p("%s", v)
		for _, in := range inputs {
			p("\t%d", in.Verdicts[v])
		}
		p("\n")
	}
	p("\n")
}

func writeStatusTable(p func(string, ...any), inputs []Input) {
	set := map[string]bool{}
	for _, in := range inputs {
		for s := range in.ExitStatuses {
			set[s] = true
		}
	}
	if len(set) == 0 {
		return
	}
	p("exit status")
	for _, in := range inputs {
		p("\t%s", in.Name)
	}
	p("\n")
	for _, s := range sortedKeys(set) {
		p("%s", s)
		for _, in := range inputs {
			p("\t%s", countOrDash(in.ExitStatuses[s], len(in.ExitStatuses) > 0))
		}
		p("\n")
	}
	p("attempts (retried instances)")
	for _, in := range inputs {
		if a := in.Attempts; a != nil {
			p("\t%d (%d)", a.Total, len(a.Retried))
		} else {
			p("\t–")
		}
	}
	p("\n\n")
}

func writeMetricsTable(p func(string, ...any), inputs []Input) {
	any := false
	for _, in := range inputs {
		m := in.Metrics
		any = any || m.Cost != nil || m.Steps != nil || m.Seconds != nil || m.Tokens != nil
	}
	if !any {
		return
	}
	p("input\tcost\tcost p50\tcost/resolved\tsteps\tsteps p50\ttokens in\ttokens out\tduration\tduration p50\n")
	for _, in := range inputs {
		m := in.Metrics
		p("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", in.Name,
			distField(m.Cost, money, true), distField(m.Cost, money, false), optMoney(m.CostPerResolved),
			distField(m.Steps, num, true), distField(m.Steps, num, false),
			tokensField(m.Tokens, true), tokensField(m.Tokens, false),
			distField(m.Seconds, Duration, true), distField(m.Seconds, Duration, false))
	}
	p("\n")
}

func writeRepeats(p func(string, ...any), inputs []Input) {
	any := false
	for _, in := range inputs {
		any = any || in.Repeats > 1 || len(in.FlakyHistory) > 0
	}
	if !any {
		return
	}
	p("input\trepeats\tmean resolved\tpass@k\tpass^k\tflaky (repeats)\tflaky (history)\n")
	for _, in := range inputs {
		at, hat := "–", "–"
		if in.Pass != nil {
			at = fmt.Sprintf("pass@%d %s", in.Pass.K, Percent1(in.Pass.PassAtK))
			hat = fmt.Sprintf("pass^%d %s", in.Pass.K, Percent1(in.Pass.PassHatK))
		}
		p("%s\t%d\t%s\t%s\t%s\t%d\t%d\n", in.Name, in.Repeats, Percent1(in.ResolvedRate), at, hat, len(in.Flaky), len(in.FlakyHistory))
	}
	p("\n")
}

func writePairText(w io.Writer, pr Pair, res *Result) {
	fmt.Fprintf(w, "\n%s against %s\n", pr.B, pr.A)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	p("  instances\t%d in common; %s %d alone, %s %d alone\n", pr.Common, pr.A, len(pr.AOnly), pr.B, len(pr.BOnly))
	p("  resolved\t%s %s (%s) → %s %s (%s)\n", pr.A, count(pr.ResolvedA), Percent1(pr.RateA), pr.B, count(pr.ResolvedB), Percent1(pr.RateB))
	p("  flips\t%d newly resolved, %d regressed; both %d, neither %d; %d flaky left out\n", len(pr.Newly), len(pr.Regressed), pr.Both, pr.Neither, len(pr.Flaky))
	if pr.Difference != nil {
		p("  difference\t%s points, %s CI [%s, %s] (Tango score), on %d paired instances\n", Points(*pr.Difference), Percent(res.ConfidenceLevel), Points(*pr.CILow), Points(*pr.CIHigh), pr.Paired)
	} else {
		p("  difference\tn/a (no paired instances)\n")
	}
	p("  McNemar\tp = %s (exact, %d newly resolved vs %d regressed)\n", PValue(pr.McNemarP), len(pr.Newly), len(pr.Regressed))
	if b := pr.Bootstrap; b != nil {
		p("  mean over repeats\t%s points, %s CI [%s, %s] (bootstrap by instance, %d resamples, seed %d)\n", Points(b.Difference), Percent(res.ConfidenceLevel), Points(b.CILow), Points(b.CIHigh), b.Resamples, b.Seed)
	}
	tw.Flush()
	writeIDs(w, "newly resolved", pr.Newly)
	writeIDs(w, "regressed", pr.Regressed)
	writeIDs(w, "flaky", pr.Flaky)
	writeIDs(w, "covered by "+pr.A+" only", pr.AOnly)
	writeIDs(w, "covered by "+pr.B+" only", pr.BOnly)
	if len(pr.Repos) > 1 {
		fmt.Fprintln(w, "  by repository")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    repository\tcommon\t%s\t%s\tnewly\tregressed\n", pr.A, pr.B)
		for _, r := range pr.Repos {
			fmt.Fprintf(tw, "    %s\t%d\t%s\t%s\t%d\t%d\n", r.Repo, r.Common, count(r.ResolvedA), count(r.ResolvedB), r.Newly, r.Regressed)
		}
		tw.Flush()
	}
	for _, s := range pr.Warnings {
		fmt.Fprintf(w, "  note: %s\n", s)
	}
}

func writeIDs(w io.Writer, what string, ids []string) {
	if len(ids) == 0 {
		return
	}
	shown := ids
	more := ""
	if len(ids) > maxListed {
		shown, more = ids[:maxListed], fmt.Sprintf(" … and %d more", len(ids)-maxListed)
	}
	fmt.Fprintf(w, "  %s: %s%s\n", what, strings.Join(shown, ", "), more)
}

func writePairTable(w io.Writer, pairs []Pair) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  a\tb\tcommon\talone a/b\trate a\trate b\tnewly\tregressed\tflaky\tdifference\tCI\tMcNemar p\n")
	for _, pr := range pairs {
		diff, ci := "n/a", "n/a"
		if pr.Difference != nil {
			diff, ci = Points(*pr.Difference), fmt.Sprintf("[%s, %s]", Points(*pr.CILow), Points(*pr.CIHigh))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d/%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", pr.A, pr.B, pr.Common, len(pr.AOnly), len(pr.BOnly), Percent1(pr.RateA), Percent1(pr.RateB),
			len(pr.Newly), len(pr.Regressed), len(pr.Flaky), diff, ci, PValue(pr.McNemarP))
	}
	tw.Flush()
}

// writeMatrixText shows the instances on which the inputs (indices into res.Inputs, one
// dataset's) disagree.
func writeMatrixText(w io.Writer, res *Result, inputs []int) {
	differ, known := differingRows(res, inputs)
	fmt.Fprintf(w, "\ninstances where the inputs differ (%d of %d; ✓ resolved, ✗ not, – not covered, k/n over repeats, * flaky)\n", len(differ), known)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  instance")
	for _, k := range inputs {
		fmt.Fprintf(tw, "\t%s", res.Inputs[k].Name)
	}
	fmt.Fprintln(tw)
	for _, r := range differ {
		flag := ""
		if r.Flaky {
			flag = " *"
		}
		fmt.Fprintf(tw, "  %s%s", r.ID, flag)
		for _, vs := range r.Verdicts {
			fmt.Fprintf(tw, "\t%s", Symbol(vs))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// differingRows returns the rows known to one of the inputs (indices into res.Inputs) whose
// cells of those inputs are not all the same, keeping only those inputs' verdicts, and how many
// rows those inputs know.
func differingRows(res *Result, inputs []int) (differ []Row, known int) {
	for _, r := range res.Rows {
		first := ""
		same, seen := true, false
		vs := make([][]Verdict, len(inputs))
		for j, k := range inputs {
			vs[j] = r.Verdicts[k]
			for _, v := range r.Verdicts[k] {
				seen = seen || v != ""
			}
			c := Symbol(vs[j])
			if j == 0 {
				first = c
			} else if c != first {
				same = false
			}
		}
		if !seen {
			continue
		}
		known++
		if !same {
			r.Verdicts = vs
			differ = append(differ, r)
		}
	}
	return differ, known
}

// Symbol is the matrix symbol of one input's verdicts on one instance: ✓ resolved, ✗ covered and
// not resolved, – not covered; with repeats, resolved/covered ("2/3").
func Symbol(vs []Verdict) string {
	n, c := 0, 0
	for _, v := range vs {
		if v.Covered() {
			n++
			if v == Resolved {
				c++
			}
		}
	}
	switch {
	case n == 0:
		return "–"
	case len(vs) > 1:
		return fmt.Sprintf("%d/%d", c, n)
	case c == 1:
		return "✓"
	}
	return "✗"
}

func hasBootstrap(res *Result) bool {
	for _, p := range append(append([]Pair(nil), res.Pairs...), res.VsBest...) {
		if p.Bootstrap != nil {
			return true
		}
	}
	return false
}

// kindsOf names the forms of an input's runs, with the layouts of the report.json files read:
// "report_dir (sb-cli layout)".
func kindsOf(in Input) string {
	set := map[string]bool{}
	layouts := map[string]int{}
	for _, r := range in.Runs {
		set[string(r.Kind)] = true
		for l, n := range r.ReportLayouts {
			layouts[l] += n
		}
	}
	s := strings.Join(sortedKeys(set), ",")
	if len(layouts) > 0 {
		s += " (" + eval.LayoutCounts(layouts) + ")"
	}
	return s
}

func modelsOf(in Input) string {
	set := map[string]bool{}
	for _, r := range in.Runs {
		if r.Model != "" {
			set[r.Model] = true
		}
	}
	return strings.Join(sortedKeys(set), ",")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// count formats a resolved count, whole or a mean over repeats.
func count(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.2f", f)
}

func countOrDash(n int, known bool) string {
	if !known {
		return "–"
	}
	return fmt.Sprintf("%d", n)
}

// Percent1 formats a fraction as a percentage with one decimal: "26.1%".
func Percent1(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

func money(f float64) string { return fmt.Sprintf("$%.2f", f) }
func num(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}

// Duration formats seconds: "42s", "3m05s", "2h01m".
func Duration(s float64) string {
	t := int64(s + 0.5)
	switch {
	case t < 60:
		return fmt.Sprintf("%ds", t)
	case t < 3600:
		return fmt.Sprintf("%dm%02ds", t/60, t%60)
	}
	return fmt.Sprintf("%dh%02dm", t/3600, t%3600/60)
}

// distField formats a distribution's total (with how many instances it is over, when not all
// are known) or median; "–" when no value is known.
func distField(d *Dist, f func(float64) string, total bool) string {
	if d == nil || d.N == 0 {
		return "–"
	}
	if total {
		return f(d.Total) + over(d.N, d.Of)
	}
	return f(d.Median)
}

// medianField formats a distribution's median with how many instances it is over, when not all
// are known; "–" when none is.
func medianField(d *Dist, f func(float64) string) string {
	if d == nil || d.N == 0 {
		return "–"
	}
	return f(d.Median) + over(d.N, d.Of)
}

// over says over how many instances a figure was taken when some are unknown: " over 3 of 100".
func over(n, of int) string {
	if n >= of {
		return ""
	}
	return fmt.Sprintf(" over %d of %d", n, of)
}

func optMoney(f *float64) string {
	if f == nil {
		return "–"
	}
	return money(*f)
}

func tokensField(t *TokenTotals, in bool) string {
	if t == nil || t.N == 0 {
		return "–"
	}
	if in {
		return fmt.Sprintf("%d", t.Input) + over(t.N, t.Of)
	}
	return fmt.Sprintf("%d", t.Output)
}
