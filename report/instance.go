package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/internal/redact"
	"github.com/swebench-run/swebench-run/results"
)

// Caps on what one instance page carries. Outputs beyond them keep their start and end, as the
// agent's own observation template does.
const (
	maxOutput     = 16 << 10 // one command's output, one command, one message
	maxTestOutput = 64 << 10 // test_output.txt
	maxPatch      = 256 << 10
)

// instanceData is data/i/<run>/<id>.js: everything the instance page shows of one instance in
// one run.
type instanceData struct {
	ID            string         `json:"id"`
	Run           int            `json:"run"`
	Verdict       string         `json:"verdict"`
	Detail        string         `json:"detail,omitempty"`
	Problem       string         `json:"problem,omitempty"`
	ProblemSource string         `json:"problem_source,omitempty"` // "dataset" or "task message"
	Info          *trajInfo      `json:"info,omitempty"`
	Config        any            `json:"config,omitempty"`
	Prompts       []prompt       `json:"prompts,omitempty"`
	Steps         []step         `json:"steps,omitempty"`
	Patch         string         `json:"patch,omitempty"`
	PatchSource   string         `json:"patch_source,omitempty"`
	PatchElided   int            `json:"patch_elided,omitempty"`
	Eval          *evalData      `json:"eval,omitempty"`
	Notes         []string       `json:"notes,omitempty"`
	Files         map[string]int `json:"files,omitempty"` // raw files view serves: name → bytes
	Flags         []pageFlag     `json:"flags,omitempty"` // commands that reached beyond the task's start
	// Agent is an installed agent's run and its proxy record (nil for our loop).
	Agent *agentData `json:"agent,omitempty"`
}

type trajInfo struct {
	Format      string          `json:"format,omitempty"`
	ExitStatus  string          `json:"exit_status,omitempty"`
	Cost        float64         `json:"cost"`
	APICalls    int             `json:"api_calls"`
	Model       string          `json:"model,omitempty"`
	MiniVersion string          `json:"mini_version,omitempty"`
	Writer      string          `json:"writer,omitempty"`
	Tokens      *results.Tokens `json:"tokens,omitempty"`
	Exception   string          `json:"exception,omitempty"`
	Traceback   string          `json:"traceback,omitempty"`
	Image       string          `json:"image,omitempty"`
	Attempt     int             `json:"attempt,omitempty"`
	Messages    int             `json:"messages"`
	Seconds     float64         `json:"seconds,omitempty"` // first to last message timestamp
}

type prompt struct {
	Kind string `json:"kind"` // system, task
	Text string `json:"text"`
}

// step is one turn of the loop: a model reply and the outputs of its commands, or a message of
// the loop itself (a format error, an interrupt, the exit).
type step struct {
	N       int      `json:"n,omitempty"` // model call number (replies only)
	Kind    string   `json:"kind"`        // reply, format_error, interrupt, exit
	Thought string   `json:"thought,omitempty"`
	Calls   []call   `json:"calls,omitempty"`
	Text    string   `json:"text,omitempty"`
	Label   string   `json:"label,omitempty"` // interrupt type or exit status
	Cost    *float64 `json:"cost,omitempty"`
	ModelS  *float64 `json:"model_s,omitempty"`
	EnvS    *float64 `json:"env_s,omitempty"`
	At      *float64 `json:"at,omitempty"` // seconds since the first message
}

type call struct {
	Cmd    string `json:"cmd"`
	RC     *int   `json:"rc,omitempty"`
	Out    string `json:"out"`
	Elided int    `json:"elided,omitempty"` // characters of the output left out
	Exc    string `json:"exc,omitempty"`
	// Flag is the class of the flag on this command ("" none), FlagWhy its reason, Revealed
	// whether its output revealed something.
	Flag     string `json:"flag,omitempty"`
	FlagWhy  string `json:"flag_why,omitempty"`
	Revealed bool   `json:"revealed,omitempty"`
}

type evalData struct {
	Resolved bool              `json:"resolved"`
	Applied  bool              `json:"applied"`
	Exists   bool              `json:"patch_exists"`
	HasTests bool              `json:"has_tests"`
	Tests    map[string]tests  `json:"tests,omitempty"`
	Output   string            `json:"test_output,omitempty"`
	Elided   int               `json:"test_output_elided,omitempty"`
	Bytes    int               `json:"test_output_bytes,omitempty"`
	Extra    map[string]string `json:"extra,omitempty"`
	Layout   string            `json:"layout,omitempty"` // the layout report.json was read in (eval.ReportLayout), or FamilyLayout
	// FamilyLayout: Layout is another dataset family's (compare.Instance.FamilyLayout), whose
	// verdict files are not necessarily a report.json.
	FamilyLayout bool `json:"family_layout,omitempty"`
	// OutputFile names the file Output comes from when it is not test_output.txt (another
	// dataset family's log).
	OutputFile   string `json:"test_output_file,omitempty"`
	ApplyUnknown bool   `json:"apply_unknown,omitempty"` // Applied and Exists are not known
}

// readOutput reads the test output at p into e, clipped, secrets redacted.
func (e *evalData) readOutput(p string, red *redact.Redactor) {
	data, err := os.ReadFile(p)
	if err != nil {
		return
	}
	s := red.Text(toValidUTF8(string(data)))
	e.Bytes = len(data)
	e.Output, e.Elided = clip(s, maxTestOutput, maxTestOutput/6)
}

type tests struct {
	Success []string `json:"success"`
	Failure []string `json:"failure"`
}

// instance builds the page data of id in run k and the text its search index holds.
func (r *Report) instance(k int, id string) (*instanceData, string, error) {
	if k < 0 || k >= len(r.runs) {
		return nil, "", fmt.Errorf("no run %d", k)
	}
	rd := r.runs[k]
	in, ok := rd.Get(id)
	if !ok {
		return nil, "", fmt.Errorf("run %s does not know %s: %w", rd.Label, id, fs.ErrNotExist)
	}
	red := r.opts.Redactor
	d := &instanceData{ID: id, Run: k, Verdict: string(in.Verdict), Detail: red.Text(in.Detail), Files: map[string]int{}}
	if p, ok := r.problems[id]; ok {
		d.Problem, d.ProblemSource = red.Text(p), "dataset"
	}
	var text strings.Builder
	if p := rd.trajPath(id); p != "" {
		t, err := results.ReadTrajectory(p)
		if err != nil {
			d.Notes = append(d.Notes, red.Text(fmt.Sprintf("the trajectory could not be read: %v", err)))
		} else {
			r.addTrajectory(d, t, &text)
			r.markFlags(d, t, p)
			r.addAgent(d, t, p)
			d.Files["trajectory"] = fileSize(p)
		}
	} else if rd.trajDir != "" {
		d.Notes = append(d.Notes, "no trajectory file (the instance has not started, or its output folder was moved)")
	}
	if d.Config == nil && rd.config != nil {
		d.Config = red.Value(rd.config)
	}
	if p, ok := rd.preds[id]; ok && !p.Empty() {
		d.Patch, d.PatchSource = p.Patch(), "preds.json"
	}
	if p := rd.evalPath(id, "report.json"); p != "" {
		rep, layout, err := eval.ReadReport(p)
		switch {
		case in.FamilyLayout != "":
			// another dataset family's report.json, even when SWE-bench's reader takes it too
			// (SWE-smith's): its reader gave the verdict and the tests
		case errors.Is(err, eval.ErrNotAReport):
			// another dataset family's report.json: its reader gave the verdict (and the tests)
		case err != nil:
			d.Notes = append(d.Notes, red.Text(err.Error()))
		default:
			e := &evalData{Resolved: rep.Resolved, Applied: rep.PatchSuccessfullyApplied, Exists: rep.PatchExists, Layout: string(layout)}
			if ts := rep.TestsStatus; ts != nil {
				e.HasTests = true
				e.Tests = map[string]tests{}
				for name, tr := range map[string]eval.TestResults{"FAIL_TO_PASS": ts.FailToPass, "PASS_TO_PASS": ts.PassToPass, "FAIL_TO_FAIL": ts.FailToFail, "PASS_TO_FAIL": ts.PassToFail} {
					if len(tr.Success)+len(tr.Failure) > 0 || name == "FAIL_TO_PASS" || name == "PASS_TO_PASS" {
						e.Tests[name] = tests{Success: nonNil(tr.Success), Failure: nonNil(tr.Failure)}
					}
				}
			}
			d.Eval = e
		}
		d.Files["report.json"] = fileSize(p)
	}
	if len(in.Tests) > 0 && (d.Eval == nil || !d.Eval.HasTests) {
		// Another dataset family's verdict file listed the tests (tests ran: the patch applied).
		d.Eval = &evalData{Resolved: in.Verdict == compare.Resolved, Applied: true, Exists: true, HasTests: true, Tests: map[string]tests{}}
		for name, g := range in.Tests {
			d.Eval.Tests[name] = tests{Success: nonNil(g.Success), Failure: nonNil(g.Failure)}
		}
	}

	if p := rd.evalPath(id, "test_output.txt"); p != "" {
		if d.Eval == nil {
			d.Eval = &evalData{}
		}
		d.Eval.readOutput(p, red)
		d.Files["test_output.txt"] = fileSize(p)
	} else if in.Log != "" {
		// another dataset family's test output (Multi-SWE-bench's fix-patch-run.log, …)
		if d.Eval == nil {
			// whether the patch applied is in the log, not known here
			d.Eval = &evalData{Resolved: in.Verdict == compare.Resolved, ApplyUnknown: true}
		}
		d.Eval.OutputFile = filepath.Base(in.Log)
		d.Eval.readOutput(in.Log, red)
	}
	if p := rd.evalPath(id, "patch.diff"); p != "" {
		if d.Patch == "" {
			if data, err := os.ReadFile(p); err == nil && len(data) > 0 {
				d.Patch, d.PatchSource = string(data), "evaluation (patch.diff)"
			}
		}
		d.Files["patch.diff"] = fileSize(p)
	}
	if p := rd.evalPath(id, "eval.sh"); p != "" {
		d.Files["eval.sh"] = fileSize(p)
	}
	if d.Eval != nil && in.FamilyLayout != "" {
		d.Eval.Layout, d.Eval.FamilyLayout = in.FamilyLayout, true
	}
	d.Patch = red.Text(toValidUTF8(d.Patch))
	d.Patch, d.PatchElided = clip(d.Patch, maxPatch, maxPatch/2)
	if d.Problem != "" {
		text.WriteString(d.Problem)
	}
	if len(d.Files) == 0 {
		d.Files = nil
	}
	return d, text.String(), nil
}

// addTrajectory turns the messages into prompts and steps, and writes the text the search index
// holds of them (replies, commands, outputs, loop messages; not the prompts) to text.
func (r *Report) addTrajectory(d *instanceData, t *results.Trajectory, text *strings.Builder) {
	red := r.opts.Redactor
	info := t.Info
	ti := &trajInfo{Format: t.TrajectoryFormat, ExitStatus: info.ExitStatus, Cost: info.ModelStats.InstanceCost,
		APICalls: info.ModelStats.APICalls, Model: t.ModelName(), MiniVersion: info.MiniVersion,
		Exception: red.Text(info.ExceptionStr), Traceback: red.Text(info.Traceback), Messages: len(t.Messages)}
	if ti.Format == "" {
		ti.Format = "message list"
	}
	var timings []results.StepTiming
	if sr := info.SwebenchRun; sr != nil {
		ti.Writer = "swebench-run " + sr.Version
		tok := sr.Tokens
		ti.Tokens = &tok
		ti.Image, ti.Attempt = sr.Image, sr.Attempt
		timings = sr.StepTimings
	} else if info.MiniVersion != "" {
		ti.Writer = "mini-swe-agent " + info.MiniVersion
	}
	d.Info = ti
	if info.Config != nil {
		d.Config = red.Value(info.Config)
	}
	kinds := t.Kinds()
	var t0, prevT float64
	var cur *step
	pending := 0 // index into cur.Calls of the next command without output
	reply := 0
	for i, m := range t.Messages {
		msgText := red.Text(toValidUTF8(results.MessageText(m)))
		extra, _ := m["extra"].(map[string]any)
		ts, hasTS := extra["timestamp"].(float64)
		firstTS := false
		if hasTS && t0 == 0 {
			t0, prevT, firstTS = ts, ts, true
		}
		switch kinds[i] {
		case results.KindSystem, results.KindTask:
			d.Prompts = append(d.Prompts, prompt{Kind: string(kinds[i]), Text: msgText})
			if kinds[i] == results.KindTask && d.Problem == "" {
				d.Problem, d.ProblemSource = problemOfTask(msgText), "task message"
			}
			continue
		case results.KindReply:
			reply++
			st := step{N: reply, Kind: "reply", Thought: msgText}
			for _, c := range t.Commands(i) {
				cmd, _ := clip(red.Text(toValidUTF8(c)), maxOutput, maxOutput/2)
				st.Calls = append(st.Calls, call{Cmd: cmd})
				text.WriteString(c)
				text.WriteByte('\n')
			}
			text.WriteString(msgText)
			text.WriteByte('\n')
			if c, ok := extra["cost"].(float64); ok {
				st.Cost = &c
			}
			if reply-1 < len(timings) {
				ms, es := timings[reply-1].Model, timings[reply-1].Env
				st.ModelS, st.EnvS = &ms, &es
			} else if hasTS && !firstTS {
				ms := ts - prevT
				st.ModelS = &ms
			}
			if hasTS {
				at := ts - t0
				st.At = &at
				prevT = ts
			}
			d.Steps = append(d.Steps, st)
			cur, pending = &d.Steps[len(d.Steps)-1], 0
			continue
		case results.KindObservation:
			out := msgText
			if raw, ok := extra["raw_output"].(string); ok {
				out = red.Text(toValidUTF8(raw))
			}
			text.WriteString(out)
			text.WriteByte('\n')
			c := call{}
			c.Out, c.Elided = clip(out, maxOutput, maxOutput/2)
			if rc, ok := t.ReturnCode(i); ok {
				c.RC = &rc
			}
			if e, _ := extra["exception_info"].(string); e != "" {
				c.Exc = red.Text(e)
			}
			if cur == nil {
				d.Steps = append(d.Steps, step{Kind: "reply"})
				cur, pending = &d.Steps[len(d.Steps)-1], 0
			}
			if pending < len(cur.Calls) {
				c.Cmd = cur.Calls[pending].Cmd
				cur.Calls[pending] = c
			} else {
				cur.Calls = append(cur.Calls, c)
			}
			pending++
			if hasTS {
				if len(timings) == 0 && cur.At != nil {
					es := ts - (t0 + *cur.At)
					cur.EnvS = &es
				}
				prevT = ts
			}
			continue
		}
		// A message of the loop: a format error, an interrupt, the exit.
		st := step{Kind: string(kinds[i]), Text: msgText}
		switch kinds[i] {
		case results.KindFormatError:
			st.Label = "format error"
		case results.KindExit:
			st.Label = info.ExitStatus
			if s, _ := extra["exit_status"].(string); s != "" {
				st.Label = s
			}
			sub, _ := extra["submission"].(string)
			if sub == "" {
				sub = info.Submission
			}
			if sub != "" && strings.TrimSpace(sub) == strings.TrimSpace(results.MessageText(m)) {
				st.Text = "" // the submission: shown as the patch
			}
		default:
			st.Label, _ = extra["interrupt_type"].(string)
			if st.Label == "" {
				st.Label = agent.Message(m).Role()
			}
		}
		st.Text, _ = clip(st.Text, maxOutput, maxOutput/2)
		text.WriteString(msgText)
		text.WriteByte('\n')
		if hasTS {
			at := ts - t0
			st.At = &at
		}
		d.Steps = append(d.Steps, st)
		cur = nil
	}
	if t0 > 0 && prevT > t0 {
		ti.Seconds = prevT - t0
	}
	if d.Patch == "" && info.Submission != "" {
		d.Patch, d.PatchSource = info.Submission, "trajectory (info.submission)"
	}
}

// problemOfTask is the problem statement inside a task message: the text of its
// <pr_description> element (mini-swe-agent's SWE-bench configs) without the line that
// introduces it, else the whole message.
func problemOfTask(task string) string {
	const open, end = "<pr_description>", "</pr_description>"
	a := strings.Index(task, open)
	b := strings.Index(task, end)
	if a < 0 || b < a {
		return task
	}
	body := strings.TrimSpace(task[a+len(open) : b])
	if first, rest, ok := strings.Cut(body, "\n"); ok && strings.HasSuffix(strings.TrimSpace(first), ":") && len(first) < 80 {
		body = strings.TrimSpace(rest)
	}
	return body
}

// clip keeps s whole when it has at most limit bytes, else its first head bytes and its last
// limit−head bytes (on rune boundaries), and returns how many bytes it left out.
func clip(s string, limit, head int) (string, int) {
	if len(s) <= limit {
		return s, 0
	}
	h := head
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	tail := len(s) - (limit - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	elided := tail - h
	return s[:h] + fmt.Sprintf("\n\n… %d characters left out …\n\n", elided) + s[tail:], elided
}

func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func fileSize(p string) int {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return int(fi.Size())
}
