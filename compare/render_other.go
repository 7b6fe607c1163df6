package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// maxMatrixRows bounds the Markdown matrix (a CI comment must stay readable).
const maxMatrixRows = 100

// WriteJSON writes the result as indented JSON (schema: JSON.md).
func WriteJSON(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// WriteMarkdown writes the comparison as GitHub-flavoured Markdown, for CI comments: the gate
// first (dataset by dataset, and the pooled lines), then per dataset the inputs, each pair and the
// matrix (folded), then the figures over the datasets and the warnings.
func WriteMarkdown(w io.Writer, res *Result) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	multi := len(res.Datasets) > 1
	p("### swebench-run compare\n\n")
	if g := res.Gate; g != nil {
		p("**Regression gate** (baseline %s, α = %g%s)\n\n", code(g.Baseline), g.Alpha, correctionNote(res))
		for _, v := range g.Verdicts {
			mark := "✅"
			switch v.Outcome {
			case OutcomeRegression:
				mark = "❌"
			case OutcomeNoOverlap:
				mark = "⚠️"
			}
			on := ""
			if multi {
				on = " on " + code(datasetTitle(v.Dataset))
			}
			p("- %s %s vs %s%s — %s\n", mark, code(v.Candidate), code(v.Baseline), on, v.Line)
		}
		for _, po := range res.Pooled {
			p("- ➕ %s vs %s pooled (not gated) — %s\n", code(po.B), code(po.A), po.Line)
		}
		p("\n")
	}
	if writeFlagsText(w, res, "- ") {
		p("\n")
	}
	if writeSetApartMarkdown(w, res) {
		p("\n")
	}
	for _, ds := range res.Datasets {
		idx := res.datasetInputs(ds.Name)
		ins := pick(res.Inputs, idx)
		if multi {
			p("#### Dataset %s\n\n%s\n\n", code(datasetTitle(ds.Name)), cellText(datasetLine(ds)))
		}
		writeInputsMarkdown(w, ins)
		pairs, vsBest := onlyDataset(res.Pairs, ds.Name), onlyDataset(res.VsBest, ds.Name)
		if len(ins) <= 2 || res.Gate != nil {
			for _, pr := range pairs {
				writePairMarkdown(w, pr, res)
			}
		} else if len(pairs) > 0 {
			p("#### Pairs (b against a)\n\n")
			writePairTableMarkdown(w, pairs)
		}
		if len(vsBest) > 0 {
			p("#### Each input against the best (%s)\n\n", code(ds.Best))
			writePairTableMarkdown(w, vsBest)
			differ, known := differingRows(res, idx)
			p("<details><summary>%d of %d instances differ (✓ resolved, ✗ not, – not covered, k/n over repeats, * flaky)</summary>\n\n", len(differ), known)
			p("| instance |")
			for _, in := range ins {
				p(" %s |", code(in.Name))
			}
			p("\n|---|%s\n", strings.Repeat(":-:|", len(ins)))
			for k, r := range differ {
				if k == maxMatrixRows {
					p("\n… and %d more (see the CSV or JSON output)\n", len(differ)-maxMatrixRows)
					break
				}
				flag := ""
				if r.Flaky {
					flag = " \\*"
				}
				p("| %s%s |", r.ID, flag)
				for _, vs := range r.Verdicts {
					p(" %s |", Symbol(vs))
				}
				p("\n")
			}
			p("\n</details>\n\n")
		}
	}
	if len(res.Variants) > 0 || len(res.Pooled) > 0 {
		p("#### Over %d datasets\n\n", len(res.Datasets))
		if len(res.Variants) > 0 {
			p("| input | datasets | covered | resolved | rate by instance | macro rate |\n|---|---|--:|--:|--:|--:|\n")
			for _, v := range res.Variants {
				p("| %s | %s | %d | %s | %s | %s |\n", code(v.Name), cellText(strings.Join(v.Datasets, ", ")), v.Covered, count(v.Resolved), Percent1(v.ResolvedRate), Percent1(v.MacroRate))
			}
			p("\n")
		}
		if len(res.Pooled) > 0 {
			p("Pairs pooled over datasets (paired within each dataset; by instance: every instance alike, macro: every dataset alike):\n\n")
			p("| a | b | datasets | paired | rate a | rate b | newly | regressed | flaky | by instance | CI | macro | CI | McNemar p |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
			for _, po := range res.Pooled {
				inst, instCI, macro, macroCI := pooledFigures(po)
				p("| %s | %s | %d | %d | %s | %s | %d | %d | %d | %s | %s | %s | %s | %s |\n", code(po.A), code(po.B), len(po.Datasets), po.Paired, Percent1(po.RateA), Percent1(po.RateB),
					po.Newly, po.Regressed, po.Flaky, inst, instCI, macro, macroCI, PValue(po.McNemarP))
			}
			p("\n")
			for _, po := range res.Pooled {
				if b := po.Bootstrap; b != nil {
					p("- %s vs %s, mean over repeats (bootstrap within datasets, %d resamples, seed %d): %s points by instance, %s CI [%s, %s]; %s points macro, %s CI [%s, %s]\n",
						code(po.B), code(po.A), b.Resamples, b.Seed, Points(b.ByInstance.Difference), Percent(res.ConfidenceLevel), Points(b.ByInstance.CILow), Points(b.ByInstance.CIHigh),
						Points(b.Macro.Difference), Percent(res.ConfidenceLevel), Points(b.Macro.CILow), Points(b.Macro.CIHigh))
				}
			}
			p("\n")
		}
	}
	if len(res.Trend) > 0 {
		p("#### History\n\n")
		writeTrendMarkdown(w, res.Trend)
	}
	p("<sub>%s; %s", MethodCI, MethodTest)
	if hasBootstrap(res) {
		p("; with repeats, %s", MethodBootstrap)
	}
	if len(res.Pooled) > 0 {
		p("; %s", MethodPooled)
	}
	p(".</sub>\n")
	if len(res.Warnings) > 0 {
		p("\n**Warnings**\n\n")
		for _, s := range res.Warnings {
			p("- %s\n", cellText(s))
		}
	}
	return nil
}

// writeInputsMarkdown writes one dataset's inputs: their figures, verdicts, and repeats.
func writeInputsMarkdown(w io.Writer, ins []Input) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("| input | form | model | runs | covered | resolved | rate | cost | cost / resolved | steps p50 |\n")
	p("|---|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, in := range ins {
		m := in.Metrics
		p("| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s |\n", code(in.Name), kindsOf(in), cellText(dash(modelsOf(in))), in.Repeats,
			in.Covered, count(in.Resolved), Percent1(in.ResolvedRate), distField(m.Cost, money, true), optMoney(m.CostPerResolved), medianField(m.Steps, num))
	}
	p("\n")
	p("| verdict |")
	for _, in := range ins {
		p(" %s |", code(in.Name))
	}
	p("\n|---|%s\n", strings.Repeat("--:|", len(ins)))
	for _, v := range Verdicts {
		p("| %s |", v)
		for _, in := range ins {
			p(" %d |", in.Verdicts[v])
		}
		p("\n")
	}
	p("\n")
	if repeatsOrFlaky(ins) {
		p("| input | repeats | mean resolved | pass@k | pass^k | flaky (repeats) | flaky (history) |\n|---|--:|--:|--:|--:|--:|--:|\n")
		for _, in := range ins {
			at, hat := "–", "–"
			if in.Pass != nil {
				at = fmt.Sprintf("pass@%d %s", in.Pass.K, Percent1(in.Pass.PassAtK))
				hat = fmt.Sprintf("pass^%d %s", in.Pass.K, Percent1(in.Pass.PassHatK))
			}
			p("| %s | %d | %s | %s | %s | %d | %d |\n", code(in.Name), in.Repeats, Percent1(in.ResolvedRate), at, hat, len(in.Flaky), len(in.FlakyHistory))
		}
		p("\n")
	}
}

func writePairMarkdown(w io.Writer, pr Pair, res *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("#### %s against %s\n\n", code(pr.B), code(pr.A))
	p("| on %d common instances | %s | %s |\n|---|--:|--:|\n", pr.Common, code(pr.A), code(pr.B))
	p("| resolved | %s (%s) | %s (%s) |\n", count(pr.ResolvedA), Percent1(pr.RateA), count(pr.ResolvedB), Percent1(pr.RateB))
	p("| alone (not compared) | %d | %d |\n\n", len(pr.AOnly), len(pr.BOnly))
	p("- flips: **%d newly resolved, %d regressed**; both %d, neither %d; %d flaky left out\n", len(pr.Newly), len(pr.Regressed), pr.Both, pr.Neither, len(pr.Flaky))
	if pr.Difference != nil {
		p("- difference: **%s points**, %s CI [%s, %s] (Tango score), on %d paired instances\n", Points(*pr.Difference), Percent(res.ConfidenceLevel), Points(*pr.CILow), Points(*pr.CIHigh), pr.Paired)
	}
	p("- McNemar exact: p = %s\n", PValue(pr.McNemarP))
	if b := pr.Bootstrap; b != nil {
		p("- mean over repeats: %s points, %s CI [%s, %s] (bootstrap by instance, %d resamples, seed %d)\n", Points(b.Difference), Percent(res.ConfidenceLevel), Points(b.CILow), Points(b.CIHigh), b.Resamples, b.Seed)
	}
	for _, l := range []struct {
		what string
		ids  []string
	}{{"newly resolved", pr.Newly}, {"regressed", pr.Regressed}, {"flaky", pr.Flaky}} {
		if len(l.ids) == 0 {
			continue
		}
		p("\n<details><summary>%d %s</summary>\n\n", len(l.ids), l.what)
		for _, id := range l.ids {
			p("- %s\n", id)
		}
		p("\n</details>\n")
	}
	if len(pr.Repos) > 1 {
		p("\n<details><summary>by repository</summary>\n\n| repository | common | %s | %s | newly | regressed |\n|---|--:|--:|--:|--:|--:|\n", code(pr.A), code(pr.B))
		for _, r := range pr.Repos {
			p("| %s | %d | %s | %s | %d | %d |\n", r.Repo, r.Common, count(r.ResolvedA), count(r.ResolvedB), r.Newly, r.Regressed)
		}
		p("\n</details>\n")
	}
	for _, s := range pr.Warnings {
		p("\n_%s_\n", cellText(s))
	}
	p("\n")
}

func writePairTableMarkdown(w io.Writer, pairs []Pair) {
	fmt.Fprintf(w, "| a | b | common | alone a/b | rate a | rate b | newly | regressed | flaky | difference | CI | McNemar p |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, pr := range pairs {
		diff, ci := "n/a", "n/a"
		if pr.Difference != nil {
			diff, ci = Points(*pr.Difference), fmt.Sprintf("[%s, %s]", Points(*pr.CILow), Points(*pr.CIHigh))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d/%d | %s | %s | %d | %d | %d | %s | %s | %s |\n", code(pr.A), code(pr.B), pr.Common, len(pr.AOnly), len(pr.BOnly), Percent1(pr.RateA), Percent1(pr.RateB),
			len(pr.Newly), len(pr.Regressed), len(pr.Flaky), diff, ci, PValue(pr.McNemarP))
	}
	fmt.Fprintln(w)
}

func repeatsOrFlaky(inputs []Input) bool {
	for _, in := range inputs {
		if in.Repeats > 1 || len(in.FlakyHistory) > 0 {
			return true
		}
	}
	return false
}

// code quotes a name for a Markdown table cell.
func code(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

// cellText escapes the characters that break a Markdown table or list item.
func cellText(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "<", "&lt;").Replace(s)
}

// CSVHeader is the header of WriteCSV's output.
var CSVHeader = []string{"instance_id", "repo", "input", "run", "repeat", "verdict", "exit_status", "detail",
	"cost", "steps", "input_tokens", "output_tokens", "duration_seconds", "flaky", "attempts"}

// WriteCSV writes one row per instance and run (repeats are runs): its verdict, exit status,
// costs and attempts. A figure that is not known (the run's form does not record it, or not for
// this instance) is empty, never 0.
func WriteCSV(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	f := strconv.FormatFloat
	for i, row := range res.Rows {
		for k, in := range res.Inputs {
			for ri, r := range res.runs[k] {
				v := res.verdicts[k][ri][i]
				if v == "" {
					continue
				}
				rec := []string{row.ID, row.Repo, in.Name, r.Label, "", string(v), "", "", "", "", "", "", "", strconv.FormatBool(row.Flaky), ""}
				if r.Repeat > 0 {
					rec[4] = strconv.Itoa(r.Repeat)
				}
				if inst, ok := r.Get(row.ID); ok {
					rec[6], rec[7] = inst.ExitStatus, inst.Detail
					if inst.Cost != nil {
						rec[8] = f(*inst.Cost, 'f', 6, 64)
					}
					if inst.Steps != nil {
						rec[9] = strconv.Itoa(*inst.Steps)
					}
					if inst.Tokens != nil {
						rec[10], rec[11] = strconv.Itoa(inst.Tokens.Input), strconv.Itoa(inst.Tokens.Output)
					}
					if inst.Seconds != nil {
						rec[12] = f(*inst.Seconds, 'f', 3, 64)
					}
					if r.HasAttempts && inst.Attempts > 0 {
						rec[14] = strconv.Itoa(inst.Attempts)
					}
				}
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// trendDatasets reports whether the trend covers several datasets (then it names them).
func trendDatasets(trend []VariantTrend) bool {
	for _, t := range trend {
		if t.Dataset != trend[0].Dataset {
			return true
		}
	}
	return false
}

// trendName names a trend's line: its variant, on its dataset when the trend has several.
func trendName(t VariantTrend, several bool) string {
	if several {
		return t.Variant + " on " + datasetTitle(t.Dataset)
	}
	return t.Variant
}

// WriteTrendText writes the last nights per variant and dataset as a table: one line each with
// its rates oldest first and the change.
func WriteTrendText(w io.Writer, trend []VariantTrend) error {
	several := trendDatasets(trend)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "variant\tnights\tresolved rate, oldest first\tlast\tchange\tcost (last)\n")
	for _, t := range trend {
		rates := make([]string, len(t.Nights))
		for k, n := range t.Nights {
			rates[k] = fmt.Sprintf("%s %s", n.Date, Percent1(n.Rate))
		}
		last := t.Nights[len(t.Nights)-1]
		change := "–"
		if t.Change != nil {
			change = Points(*t.Change) + " points"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", trendName(t, several), len(t.Nights), strings.Join(rates, ", "), Percent1(last.Rate), change, money(last.Cost))
	}
	tw.Flush()
	for _, t := range trend {
		for _, c := range t.Changes {
			fmt.Fprintf(w, "  %s: %s\n", trendName(t, several), c)
		}
	}
	return nil
}

func writeTrendMarkdown(w io.Writer, trend []VariantTrend) {
	several := trendDatasets(trend)
	fmt.Fprintf(w, "| variant | nights | resolved rate, oldest first | last | change | cost (last) |\n|---|--:|---|--:|--:|--:|\n")
	for _, t := range trend {
		rates := make([]string, len(t.Nights))
		for k, n := range t.Nights {
			rates[k] = fmt.Sprintf("%s %s", n.Date, Percent1(n.Rate))
		}
		last := t.Nights[len(t.Nights)-1]
		change := "–"
		if t.Change != nil {
			change = Points(*t.Change)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", code(trendName(t, several)), len(t.Nights), strings.Join(rates, ", "), Percent1(last.Rate), change, money(last.Cost))
	}
	for _, t := range trend {
		for _, c := range t.Changes {
			fmt.Fprintf(w, "\n- %s: %s", code(trendName(t, several)), cellText(c))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
}
