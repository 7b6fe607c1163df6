package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/validation"
)

// EmptyPatchDiff is the patch an instance is validated with as "empty": it adds one file outside
// the repository's code and tests, so that every family's grader runs its tests exactly as for
// a prediction that changes nothing (a harness skips an empty prediction without running it).
const EmptyPatchDiff = "diff --git a/.swebench-run-empty-patch b/.swebench-run-empty-patch\n" +
	"new file mode 100644\n" +
	"--- /dev/null\n" +
	"+++ b/.swebench-run-empty-patch\n" +
	"@@ -0,0 +1 @@\n" +
	"+The empty patch of swebench-run validate: it changes no file of the repository.\n"

// ValidateModel is the model name of the validation's predictions.
const ValidateModel = "validate"

// ValidateOptions configure Validate.
type ValidateOptions struct {
	// LogDir receives the gradings, one folder per patch and repeat laid out as an evaluation's
	// folder: <LogDir>/gold-1/<id>/…, <LogDir>/empty-1/<id>/…
	LogDir string
	// RunID labels the containers.
	RunID string
	// Starter makes the containers; Workers gradings run at once (default 1).
	Starter Starter
	Workers int
	// Repeat is how many times each patch is graded, each in a fresh container (default 1).
	Repeat int
	// Timeout bounds one grading's tests (default DefaultTimeout).
	Timeout time.Duration
	// Redo regrades an instance even when its folders hold gradings (an earlier validation of
	// another image, or --refresh); by default the gradings an interrupted validation left are
	// reused.
	Redo func(id string) bool
	// Image, Graders, Logger, Drain and AssetClient are as in Options.
	Image       func(dataset.Instance) (string, error)
	Graders     func(family string) family.Grader
	Logger      *slog.Logger
	Drain       <-chan struct{}
	AssetClient *http.Client
	// OnStart, if set, is called when an instance's first grading starts; OnRecord when its
	// gradings are done, with its record (outcome, reason, tests, gradings, image; the caller
	// adds the provenance). Calls are serialised; an error of OnRecord stops the validation.
	OnStart  func(inst dataset.Instance)
	OnRecord func(inst dataset.Instance, rec validation.Record) error
}

// pass is one grading of every instance: a patch and a repeat.
type pass struct {
	patch  string
	repeat int
}

func (p pass) dir() string { return p.patch + "-" + strconv.Itoa(p.repeat) }

// Validate grades, for every instance, its gold patch and the empty patch (EmptyPatchDiff),
// opts.Repeat times each, each time in a fresh container through the evaluation engine (the
// family's grader, as `eval` grades), and classifies the instance (validation.Classify). An
// instance's record is handed to OnRecord as soon as its gradings are done, so an interrupted
// validation keeps every finished instance. Rows that cannot be graded are an error before any
// container starts; the error is otherwise for failures of the validation itself (cancellation,
// a folder not writable, OnRecord's).
func Validate(ctx context.Context, insts []dataset.Instance, opts ValidateOptions) error {
	if opts.LogDir == "" {
		return errors.New("validate: no log directory")
	}
	if opts.Repeat <= 0 {
		opts.Repeat = 1
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.Image == nil {
		opts.Image = DefaultImage
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Redo == nil {
		opts.Redo = func(string) bool { return false }
	}
	if err := CheckFamilies(insts, opts.Graders); err != nil {
		return err
	}
	var passes []pass
	for k := 1; k <= opts.Repeat; k++ {
		passes = append(passes, pass{validation.PatchGold, k}, pass{validation.PatchEmpty, k})
	}
	evaluators := map[string]*Evaluator{}
	for _, p := range passes {
		for _, redo := range []bool{false, true} {
			ev, err := New(Options{
				OutDir: filepath.Join(opts.LogDir, p.dir()), RunID: opts.RunID, Starter: opts.Starter, Timeout: opts.Timeout,
				Redo: redo, Image: opts.Image, Logger: opts.Logger.With("patch", p.patch, "repeat", p.repeat),
				AssetClient: opts.AssetClient, Graders: opts.Graders,
			})
			if err != nil {
				return fmt.Errorf("validate: %w", err)
			}
			evaluators[p.dir()+"/"+strconv.FormatBool(redo)] = ev
		}
	}

	type state struct {
		inst     dataset.Instance
		gradings []validation.Grading
		left     int
		started  bool
	}
	var mu sync.Mutex
	states := make([]*state, len(insts))
	for i, inst := range insts {
		states[i] = &state{inst: inst, left: len(passes)}
	}
	var recordErr error
	finish := func(st *state) {
		rec := classify(st.inst, st.gradings, opts.Repeat)
		if img, err := opts.Image(st.inst); err == nil {
			rec.Image = img
		}
		if opts.OnRecord != nil && recordErr == nil {
			recordErr = opts.OnRecord(st.inst, rec)
		}
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Workers)
	drained := func() bool {
		select {
		case <-opts.Drain:
			return true
		default:
			return gctx.Err() != nil
		}
	}
	gold := GoldPredictions(insts)
	empty := EmptyPatchDiff
schedule:
	for i := range insts {
		for _, p := range passes {
			if drained() {
				break schedule
			}
			st := states[i]
			g.Go(func() error {
				if drained() {
					return nil
				}
				id := st.inst.InstanceID
				mu.Lock()
				if !st.started {
					st.started = true
					if opts.OnStart != nil {
						opts.OnStart(st.inst)
					}
				}
				mu.Unlock()
				pred := gold[id]
				if p.patch == validation.PatchEmpty {
					pred = Prediction{InstanceID: id, ModelNameOrPath: ValidateModel, ModelPatch: &empty}
				}
				ev := evaluators[p.dir()+"/"+strconv.FormatBool(opts.Redo(id))]
				res, err := ev.Evaluate(gctx, st.inst, pred)
				if err != nil {
					return err
				}
				gr, err := gradingOf(st.inst, res, filepath.Join(ev.opts.OutDir, id), p, opts.Graders)
				if err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				st.gradings = append(st.gradings, gr)
				st.left--
				if st.left == 0 {
					finish(st)
				}
				if recordErr != nil {
					return recordErr
				}
				return nil
			})
		}
	}
	err := g.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// classify makes an instance's record from its gradings.
func classify(inst dataset.Instance, gradings []validation.Grading, repeat int) validation.Record {
	outcome, reason, tests := validation.Classify(validation.Expected{FailToPass: inst.FailToPass, PassToPass: inst.PassToPass}, gradings)
	return validation.Record{InstanceID: inst.InstanceID, Outcome: outcome, Reason: reason, Tests: tests,
		Repeats: repeat, Gradings: sortGradings(gradings), Source: validation.SourceValidate}
}

func sortGradings(gs []validation.Grading) []validation.Grading {
	out := append([]validation.Grading{}, gs...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Repeat != out[j].Repeat {
			return out[i].Repeat < out[j].Repeat
		}
		return out[i].Patch == validation.PatchGold && out[j].Patch != validation.PatchGold
	})
	return out
}

// gradingOf is one evaluation's result as a grading of the validation, with the statuses of the
// expected tests when the log can say.
func gradingOf(inst dataset.Instance, res Result, dir string, p pass, graders func(string) family.Grader) (validation.Grading, error) {
	gr := validation.Grading{Patch: p.patch, Repeat: p.repeat, Dir: dir}
	switch res.Outcome {
	case Resolved:
		gr.Verdict = validation.VerdictResolved
	case Unresolved:
		gr.Verdict = validation.VerdictUnresolved
	default:
		gr.Verdict = validation.VerdictError
		gr.ErrorKind, gr.Reason, gr.Infrastructure = string(res.ErrorKind), res.Reason, res.ErrorKind.Infrastructure()
		return gr, nil
	}
	run, ok, err := ReadTests(inst, dir, graders)
	if err != nil {
		return gr, fmt.Errorf("validate %s: %w", inst.InstanceID, err)
	}
	if ok {
		gr.Tests = expectedStatuses(inst, run)
		n := len(run.Statuses)
		gr.Collected, gr.ExitCode = &n, run.ExitCode
	}
	return gr, nil
}
