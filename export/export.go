package export

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/internal/atomicfile"
	"github.com/swebench-run/swebench-run/internal/redact"
	"github.com/swebench-run/swebench-run/results"
)

// Format is an output format.
type Format string

// The formats.
const (
	OpenAI   Format = "openai"   // OpenAI chat fine-tuning JSONL
	ShareGPT Format = "sharegpt" // ShareGPT JSONL (LLaMA-Factory's convention)
	Parquet  Format = "parquet"  // one row per trajectory, with a dataset card for the HuggingFace hub
	SWESmith Format = "swesmith" // SWE-smith's SFT JSONL (transform_traj_xml)
)

// Formats lists the formats.
var Formats = []Format{OpenAI, ShareGPT, Parquet, SWESmith}

// PerInstance says which trajectories of one instance are written.
type PerInstance string

// The choices of PerInstance.
const (
	AllTrajectories PerInstance = "all"   // every one that passed the filters
	FirstTrajectory PerInstance = "first" // the first in input order
	// BestTrajectory is the resolved one first, then the one with the fewest steps, then the
	// cheapest, then the first in input order; a trajectory without a verdict ranks between
	// resolved and unresolved ones, one without a cost after those with one.
	BestTrajectory PerInstance = "best"
)

// Filter selects trajectories. Zero values select everything.
type Filter struct {
	Resolved       bool     // only those whose evaluation resolved their instance
	Statuses       []string // exit statuses to keep (Submitted, LimitsExceeded, …)
	MinSteps       *int     // model calls, inclusive
	MaxSteps       *int
	MinCost        *float64 // dollars, inclusive; a trajectory whose cost is not known is left out when a bound is set
	MaxCost        *float64
	ExcludeFlagged bool // leave out trajectories with a command reaching beyond the task's start (audit)
	// Runs: sweep cells, or any run, by what they were made with.
	Models       []string // the cell's variant or model, or the run's model
	ConfigHashes []string // config hashes (prefixes of at least 6 digits match)
	Datasets     []string // dataset names as sweep.json and run.json record them (compare.DatasetOf), or a part after the last '/'
	Repeats      []int
}

// Options of an export.
type Options struct {
	Inputs      []Input
	Format      Format
	Output      string // the file to write; with a split, FILE's name gets .train and .validation before its extension
	Filter      Filter
	PerInstance PerInstance // default AllTrajectories
	// ValFraction, when above 0, splits the trajectories into train and validation by
	// repository, about this fraction of them in validation; Seed orders the repositories.
	ValFraction float64
	Seed        uint64
	// DropFormatErrors leaves out format-error messages (and the mini-swe-agent 1.x replies they
	// answer); kept, such a reply is not trainable.
	DropFormatErrors bool
	// SystemPrompt, when set, replaces the system prompt of every trajectory (SWE-smith's
	// conversion puts the system template of its agent config there).
	SystemPrompt *string
	// Redactor removes secrets and host paths; nil: redact.New() with the inputs' and the
	// output's folders, the home and the working directory as host paths.
	Redactor *redact.Redactor
	Progress Progress // nil: none
	Version  string   // written into the Parquet file and the dataset card
}

// Event is one trajectory read: what became of it.
type Event struct {
	Run      string
	Instance string
	Outcome  string // OutcomeKept, or why the trajectory was left out
	Cost     float64
}

// Outcomes of a trajectory in the first pass (Summary.Skipped counts the others, and
// OutcomeNotChosen, by name).
const (
	OutcomeKept            = "kept"
	OutcomeRun             = "run not selected" // --model, --config-hash, --dataset, --repeat
	OutcomeUnresolved      = "unresolved"
	OutcomeNotEvaluated    = "not evaluated"
	OutcomeStatus          = "exit status"
	OutcomeSteps           = "steps"
	OutcomeCost            = "cost"
	OutcomeFlagged         = "flagged"
	OutcomeUnrepresentable = "unrepresentable"
	OutcomeNotChosen       = "another trajectory of the instance" // --per-instance
)

// Progress is told of every trajectory read. Start comes first with how many there are.
type Progress interface {
	Start(total int)
	Trajectory(Event)
	Finish()
}

// OutputFile is one file written.
type OutputFile struct {
	Path         string `json:"path"`
	Split        string `json:"split"` // "train", "validation"; "train" without a split
	Trajectories int    `json:"trajectories"`
	Repos        int    `json:"repos"`
}

// Summary says what an export read and wrote.
type Summary struct {
	Found    int            `json:"found"`   // trajectory files of the inputs
	Kept     int            `json:"kept"`    // passed the filters
	Written  int            `json:"written"` // after --per-instance
	Skipped  map[string]int `json:"skipped"` // by outcome
	Files    []OutputFile   `json:"files"`
	Card     string         `json:"card,omitempty"` // the dataset card (Parquet)
	Warnings []string       `json:"warnings"`
}

// entry is what the selection needs of a kept trajectory; its payload waits in the spool.
type entry struct {
	id, repo string
	off      int64
	cost     float64
	steps    int32
	n        int32
	resolved int8 // 1 resolved, -1 not, 0 not known
	split    int8 // 0 train, 1 validation
	hasCost  bool
	chosen   bool
}

// Export reads the inputs' trajectories one at a time, keeps those the filter selects, and
// writes them in the format. Memory holds a few figures per trajectory; the converted
// trajectories wait in a spool file beside the output until the selection (one per instance,
// the split) is made.
func Export(ctx context.Context, o Options) (*Summary, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	sum := &Summary{Skipped: map[string]int{}, Warnings: []string{}}
	// Verdicts are read when something uses them: --resolved, the best trajectory, the Parquet
	// columns.
	verdicts := o.Filter.Resolved || o.PerInstance == BestTrajectory || o.Format == Parquet
	var units []*unit
	for _, in := range o.Inputs {
		us, err := resolve(in, verdicts)
		if err != nil {
			return nil, err
		}
		units = append(units, us...)
	}
	red := o.Redactor
	if red == nil {
		paths := append(redact.HostDirs(), filepath.Dir(o.Output))
		for _, in := range o.Inputs {
			paths = append(paths, in.Path, in.EvalLogs)
		}
		red = redact.New().WithHostPaths(paths...)
	}
	card := ""
	if o.Format == Parquet {
		card = filepath.Join(filepath.Dir(o.Output), "README.md")
		if err := checkCardPath(card); err != nil {
			return nil, err
		}
	}
	spool, err := os.CreateTemp(filepath.Dir(o.Output), ".export-spool-*")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer func() {
		spool.Close()
		os.Remove(spool.Name())
	}()
	sw := bufio.NewWriterSize(spool, 1<<20)

	progress := o.Progress
	if progress == nil {
		progress = quiet{}
	}
	for _, u := range units {
		sum.Found += len(u.files)
	}
	progress.Start(sum.Found)
	entries, err := o.read(ctx, units, red, sw, sum, progress)
	progress.Finish()
	if err != nil {
		return nil, err
	}
	units = nil // the runs' verdicts and file lists: the second pass needs only the entries
	if err := sw.Flush(); err != nil {
		return nil, fmt.Errorf("export: spool: %w", err)
	}
	sum.Kept = len(entries)
	sum.Skipped[OutcomeNotChosen] += choose(entries, o.PerInstance)
	if sum.Skipped[OutcomeNotChosen] == 0 {
		delete(sum.Skipped, OutcomeNotChosen)
	}
	if sum.Kept == 0 {
		return sum, fmt.Errorf("export: no trajectory of the %d found passed the filters (%s): %w", sum.Found, skippedLine(sum.Skipped), ErrNothingSelected)
	}
	splits := 1
	if o.ValFraction > 0 {
		if err := splitByRepo(entries, o.ValFraction, o.Seed); err != nil {
			return nil, err
		}
		splits = 2
	}
	if err := o.write(ctx, entries, spool, splits, sum); err != nil {
		return nil, err
	}
	if o.Format == Parquet {
		if err := writeCard(card, o, sum); err != nil {
			return nil, err
		}
		sum.Card = card
	}
	return sum, nil
}

// ErrNothingSelected is wrapped by the error of an export whose filters left no trajectory;
// nothing is written then.
var ErrNothingSelected = errors.New("nothing to write")

// skippedLine lists the skipped counts, largest first.
func skippedLine(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	if len(parts) == 0 {
		return "none left out"
	}
	return strings.Join(parts, ", ")
}

// SkippedLine lists what the export left out, and why, largest count first.
func (s *Summary) SkippedLine() string { return skippedLine(s.Skipped) }

func (o *Options) check() error {
	if !slices.Contains(Formats, o.Format) {
		return fmt.Errorf("export: format %q: want one of %s", o.Format, formatList())
	}
	switch o.PerInstance {
	case "":
		o.PerInstance = AllTrajectories
	case AllTrajectories, FirstTrajectory, BestTrajectory:
	default:
		return fmt.Errorf("export: per-instance %q: want all, first or best", o.PerInstance)
	}
	if o.ValFraction < 0 || o.ValFraction >= 1 {
		return fmt.Errorf("export: validation fraction %g: want at least 0 and less than 1", o.ValFraction)
	}
	if o.Output == "" {
		return errors.New("export: no output file")
	}
	if len(o.Inputs) == 0 {
		return errors.New("export: no input")
	}
	if fi, err := os.Stat(filepath.Dir(o.Output)); err != nil || !fi.IsDir() {
		return fmt.Errorf("export: the output's folder %s does not exist: create it first", filepath.Dir(o.Output))
	}
	return nil
}

func formatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// read is the first pass: every trajectory read, converted, filtered and, when kept, rendered
// into the spool.
func (o *Options) read(ctx context.Context, units []*unit, red *redact.Redactor, spool *bufio.Writer, sum *Summary, progress Progress) ([]entry, error) {
	var entries []entry
	repos := map[string]string{} // one copy of each repository's name
	var off int64
	skip := func(u *unit, id, outcome string, cost float64) {
		sum.Skipped[outcome]++
		progress.Trajectory(Event{Run: u.label, Instance: id, Outcome: outcome, Cost: cost})
	}
	noVerdicts := 0
	for _, u := range units {
		selected := o.Filter.selectsRun(u)
		for _, p := range u.files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			id := instanceOfPath(p)
			if !selected {
				skip(u, id, OutcomeRun, 0)
				continue
			}
			// The file's name is its instance in every layout read here: an instance the
			// evaluation did not resolve is left without reading its trajectory.
			resolved, verdict := u.verdict(id)
			if o.Filter.Resolved && (resolved == nil || !*resolved) {
				if resolved == nil {
					if u.verdicts == nil {
						noVerdicts++
					}
					skip(u, id, OutcomeNotEvaluated, 0)
				} else {
					skip(u, id, OutcomeUnresolved, 0)
				}
				continue
			}
			c, err := o.convert(p, u, red)
			if err != nil {
				return nil, err
			}
			cost := 0.0
			if c.Cost != nil {
				cost = *c.Cost
			}
			if outcome := o.Filter.rejects(c); outcome != "" {
				skip(u, c.InstanceID, outcome, cost)
				continue
			}
			rec := &Record{Run: u.label, Cell: u.cell, Repeat: u.repeat, Repo: repoOf(c.InstanceID), Dataset: u.dataset,
				DatasetRevision: u.datasetRevision, Family: u.family, Model: firstOf(u.model, c.Model), ConfigHash: firstOf(u.configHash, c.ConfigHash),
				Resolved: resolved, Verdict: verdict, Conversation: c}
			payload, err := o.render(rec)
			if errors.Is(err, errUnrepresentable) {
				skip(u, c.InstanceID, OutcomeUnrepresentable, cost)
				if sum.Skipped[OutcomeUnrepresentable] <= 3 {
					sum.Warnings = append(sum.Warnings, fmt.Sprintf("%s (%s) is not representable in %s: %v", c.InstanceID, u.label, o.Format, err))
				}
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("export %s: %w", p, err)
			}
			payload = append(payload, '\n')
			if len(payload) > math.MaxInt32 {
				return nil, fmt.Errorf("export %s: the trajectory renders to %d bytes, more than a line can hold here", p, len(payload))
			}
			if _, err := spool.Write(payload); err != nil {
				return nil, fmt.Errorf("export: spool: %w", err)
			}
			repo, ok := repos[rec.Repo]
			if !ok {
				repo = rec.Repo
				repos[repo] = repo
			}
			e := entry{id: c.InstanceID, repo: repo, steps: int32(c.Steps), off: off, n: int32(len(payload)), chosen: true}
			off += int64(len(payload))
			switch {
			case resolved == nil:
			case *resolved:
				e.resolved = 1
			default:
				e.resolved = -1
			}
			if c.Cost != nil {
				e.cost, e.hasCost = *c.Cost, true
			}
			entries = append(entries, e)
			progress.Trajectory(Event{Run: u.label, Instance: c.InstanceID, Outcome: OutcomeKept, Cost: cost})
		}
	}
	if noVerdicts > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("--resolved left out %d trajectories of inputs without an evaluation: give their harness logs with --eval-logs", noVerdicts))
	}
	return entries, nil
}

// convert reads one trajectory file into a conversation.
func (o *Options) convert(p string, u *unit, red *redact.Redactor) (*Conversation, error) {
	co := convertOptions{dropFormatErrors: o.DropFormatErrors, systemPrompt: o.SystemPrompt, smith: o.Format == SWESmith, redact: red, history: u.history}
	if strings.HasSuffix(p, ".traj") {
		t, err := results.ReadSWEAgent(p)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		return fromSWEAgent(t, co)
	}
	t, err := results.ReadTrajectory(p)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return fromTrajectory(t, p, co), nil
}

// render is what the spool keeps of a record: the line of a JSONL format, the record itself
// for Parquet.
func (o *Options) render(r *Record) ([]byte, error) {
	switch o.Format {
	case OpenAI:
		return openAILine(r.Conversation)
	case ShareGPT:
		return shareGPTLine(r.Conversation)
	case SWESmith:
		return smithLine(r.Conversation)
	}
	return json.Marshal(r)
}

// write is the second pass: the chosen trajectories, in input order, from the spool into the
// output files.
func (o *Options) write(ctx context.Context, entries []entry, spool *os.File, splits int, sum *Summary) error {
	names := []string{"train", "validation"}
	type out struct {
		file    *atomicfile.File
		buf     *bufio.Writer
		pq      *parquetWriter
		n       int
		repos   map[string]bool
		outFile OutputFile
	}
	outs := make([]*out, splits)
	for k := range outs {
		path := o.Output
		if splits > 1 {
			path = splitPath(o.Output, names[k])
		}
		f, err := atomicfile.Create(path, 0o644)
		if err != nil {
			for _, w := range outs[:k] {
				w.file.Discard()
			}
			return fmt.Errorf("export: %w", err)
		}
		w := &out{file: f, buf: bufio.NewWriterSize(f, 1<<20), repos: map[string]bool{}, outFile: OutputFile{Path: path, Split: names[k]}}
		if o.Format == Parquet {
			w.pq = newParquetWriter(w.buf, o.Version)
		}
		outs[k] = w
	}
	discard := func() {
		for _, w := range outs {
			w.file.Discard()
		}
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		discard()
		return fmt.Errorf("export: spool: %w", err)
	}
	rd := bufio.NewReaderSize(spool, 1<<20)
	var pos int64
	buf := []byte{}
	for i := range entries {
		e := &entries[i]
		if !e.chosen {
			continue
		}
		if err := ctx.Err(); err != nil {
			discard()
			return err
		}
		if _, err := rd.Discard(int(e.off - pos)); err != nil {
			discard()
			return fmt.Errorf("export: spool: %w", err)
		}
		n := int(e.n)
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(rd, buf); err != nil {
			discard()
			return fmt.Errorf("export: spool: %w", err)
		}
		pos = e.off + int64(e.n)
		w := outs[e.split]
		var err error
		if w.pq != nil {
			var r Record
			if err = json.Unmarshal(buf, &r); err == nil {
				err = w.pq.write(&r)
			}
		} else {
			_, err = w.buf.Write(buf)
		}
		if err != nil {
			discard()
			return fmt.Errorf("export: write %s: %w", w.outFile.Path, err)
		}
		w.n++
		w.repos[e.repo] = true
	}
	for _, w := range outs {
		var err error
		if w.pq != nil {
			err = w.pq.close()
		}
		if err == nil {
			err = w.buf.Flush()
		}
		if err != nil {
			discard()
			return fmt.Errorf("export: write %s: %w", w.outFile.Path, err)
		}
	}
	for _, w := range outs {
		if err := w.file.Commit(); err != nil {
			discard()
			return fmt.Errorf("export: %w", err)
		}
		w.outFile.Trajectories, w.outFile.Repos = w.n, len(w.repos)
		sum.Written += w.n
		sum.Files = append(sum.Files, w.outFile)
	}
	return nil
}

// splitPath is the file of one split: FILE's name with .SPLIT before its extension.
func splitPath(path, split string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + split + ext
}

// instanceOfPath is the instance a trajectory file is of: its name without .traj.json or .traj.
func instanceOfPath(p string) string {
	base := filepath.Base(p)
	for _, suffix := range []string{".traj.json", ".traj", ".json"} {
		if strings.HasSuffix(base, suffix) {
			return strings.TrimSuffix(base, suffix)
		}
	}
	return base
}

// repoOf is the repository an instance belongs to, for the split: the owner/name its id names,
// else the id itself.
func repoOf(id string) string {
	if r := results.RepoOfInstance(id); r != "" {
		return r
	}
	return id
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

type quiet struct{}

func (quiet) Start(int)        {}
func (quiet) Trajectory(Event) {}
func (quiet) Finish()          {}
