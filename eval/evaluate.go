package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/validation"
)

// Sandbox is a fresh container of an instance image, used for one evaluation: what a grader
// uses of it (family.Sandbox: Exec in the instance's working directory, /testbed for SWE-bench,
// and WriteFile), and Close.
type Sandbox interface {
	family.Sandbox
	// Close stops and removes the container.
	Close(ctx context.Context) error
}

// Starter starts a fresh container from image for inst (never the one an agent used). An error
// wrapping ErrImageNotFound means the image does not exist (locally or in its registry).
type Starter interface {
	Start(ctx context.Context, inst dataset.Instance, image string) (Sandbox, error)
}

// ErrImageNotFound is wrapped by a Starter's error when the instance image does not exist.
var ErrImageNotFound = errors.New("image not found")

// Paths in the container, as the harness uses them.
const (
	containerPatchPath = "/tmp/patch.diff"
	containerEvalPath  = "/eval.sh"
)

// harnessApply is the harness's way to apply a patch: its commands tried in order, the tree reset
// between attempts because a failed --reject leaves partial changes behind, and the reverse check.
var harnessApply = family.PatchApply{
	Commands: []string{
		"git apply --verbose " + containerPatchPath,
		"git apply --verbose --reject " + containerPatchPath,
		// --forward: an already-applied patch is left alone (the reverse check then accepts
		// it) instead of being reverse-applied, which --batch alone would do.
		"patch --batch --forward --fuzz=5 -p1 -i " + containerPatchPath,
	},
	Reset:        "git checkout -- . ; git clean -fd",
	ReverseCheck: "git apply --check --reverse " + containerPatchPath,
	Timeout:      commandTimeout,
}

const (
	// DefaultTimeout is the harness's default timeout of the eval script.
	DefaultTimeout = 1800 * time.Second
	// commandTimeout bounds each patch command.
	commandTimeout = 5 * time.Minute
	// closeTimeout bounds the removal of a container, which runs even after cancellation.
	closeTimeout = 2 * time.Minute
)

// Options configure an Evaluator.
type Options struct {
	// OutDir receives one folder per instance and the run report (the run's eval/ folder).
	OutDir string
	// RunID names the run report.
	RunID string
	// Starter makes the containers.
	Starter Starter
	// Workers is the number of instances evaluated at once (default 1).
	Workers int
	// Timeout bounds the eval script of one instance (default DefaultTimeout).
	Timeout time.Duration
	// Redo re-evaluates instances that already have a report.json in OutDir; by default their
	// report is reused (resume).
	Redo bool
	// Image returns the image of an instance (default DefaultImage); wire
	// dataset.Instance.ImageName with the configured template here.
	Image func(dataset.Instance) (string, error)
	// Logger receives progress; nil discards it.
	Logger *slog.Logger
	// OnResult, if set, is called after each instance; calls are serialised.
	OnResult func(Result)
	// Drain, when closed, stops Run from starting more instances while the running ones finish
	// (a first Ctrl-C); cancelling Run's context stops the running ones too (a second Ctrl-C).
	Drain <-chan struct{}
	// AssetClient downloads the image_assets of multimodal rows (default http.DefaultClient,
	// with the harness's 60 s timeout per file), and what other families' graders download.
	AssetClient *http.Client
	// Graders returns the grader of a dataset family (an instance's Family, "" for a row no
	// family took); a nil func or a nil Grader grades the instance as the SWE-bench harness does
	// (built in). cmd wires the family registry here.
	Graders func(family string) family.Grader
	// Validation returns the validation of an instance (package validation), when one is
	// known: Run marks an unresolved prediction whose failure is its environment's (see
	// Environment). nil: only the log says.
	Validation func(id string) (validation.Record, bool)
	// Repeat grades each prediction this many times, each in a fresh container; Run lists the
	// instances whose verdict changes (the run report's flaky_ids). The first grading is the
	// instance's folder, the k-th goes to <OutDir>-repeats/<k>/<id>/. Default 1.
	Repeat int
}

// Evaluator evaluates predictions in fresh containers and writes the harness's files.
type Evaluator struct {
	opts     Options
	resultMu sync.Mutex // serialises OnResult
}

// New checks opts and returns an Evaluator.
func New(opts Options) (*Evaluator, error) {
	if opts.OutDir == "" {
		return nil, errors.New("eval: no output directory")
	}
	if opts.RunID == "" {
		return nil, errors.New("eval: empty run id; pass --run-id")
	}
	if opts.Starter == nil {
		return nil, errors.New("eval: no container starter")
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Image == nil {
		opts.Image = DefaultImage
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("eval: output directory: %w", err)
	}
	return &Evaluator{opts: opts}, nil
}

// DefaultImage is the row's image (image, image_name or docker_image column) verbatim, or else
// the SWE-bench image derived from its id: docker.io/swebench/sweb.eval.x86_64.<id with __ →
// _1776_, lower-cased>:latest.
func DefaultImage(inst dataset.Instance) (string, error) {
	if inst.Image != "" {
		return inst.Image, nil
	}
	for _, col := range []string{"image_name", "docker_image"} {
		if s, ok := inst.Extra[col].(string); ok && s != "" {
			return s, nil
		}
	}
	if inst.InstanceID == "" {
		return "", errors.New("image: row has no instance_id")
	}
	id := strings.ToLower(strings.ReplaceAll(inst.InstanceID, "__", "_1776_"))
	return "docker.io/swebench/sweb.eval.x86_64." + id + ":latest", nil
}

// CheckInstances returns an error naming the rows the SWE-bench harness cannot evaluate: no
// eval_script (harness v5), an unknown log_parser or eval_type, or unreadable image_assets.
func CheckInstances(insts []dataset.Instance) error {
	var noScript, bad []string
	for _, inst := range insts {
		if strings.TrimSpace(inst.EvalScript) == "" {
			noScript = append(noScript, inst.InstanceID)
			continue
		}
		if _, err := evalTypeOf(inst); err != nil {
			bad = append(bad, err.Error())
		}
		if _, err := parserOf(inst); err != nil {
			bad = append(bad, err.Error())
		}
		if _, err := inst.ImageAssets(); err != nil {
			bad = append(bad, fmt.Sprintf("instance %s: %v", inst.InstanceID, err))
		}
	}
	var errs []error
	if len(noScript) > 0 {
		errs = append(errs, fmt.Errorf("%d rows have no eval_script (the harness-v5 columns eval_script, log_parser, eval_type): %s; load the dataset with completion from the official SWE-bench datasets (as `eval` and `run --eval` do), or use a dataset with these columns", len(noScript), Abbreviate(noScript)))
	}
	if len(bad) > 0 {
		errs = append(errs, fmt.Errorf("%d rows cannot be graded: %s", len(bad), Abbreviate(bad)))
	}
	return errors.Join(errs...)
}

// Script returns the eval script of a row: its eval_script prepared as the harness v5 runs it
// (EvalScript).
func Script(inst dataset.Instance) (string, error) {
	if strings.TrimSpace(inst.EvalScript) == "" {
		return "", fmt.Errorf("instance %s: no eval_script", inst.InstanceID)
	}
	return EvalScript(inst.EvalScript), nil
}

// Abbreviate joins items with ", ", the first ten and how many more, for errors naming rows.
func Abbreviate(items []string) string {
	const limit = 10
	if len(items) <= limit {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:limit], ", ") + fmt.Sprintf(", and %d more", len(items)-limit)
}

// Run evaluates every prediction against its instance with a pool of Options.Workers, writes the
// run report into OutDir and returns it with the results (sorted by instance id). insts is the
// dataset evaluated against (its size is total_instances). Predictions for ids not in insts, and
// rows that cannot be evaluated, are errors before any container starts. An instance that fails
// is a Result, not an error; the error is for failures of the run (output not writable,
// cancellation), in which case the results so far are returned.
func (e *Evaluator) Run(ctx context.Context, insts []dataset.Instance, preds map[string]Prediction) (RunReport, []Result, error) {
	if err := CheckPredictions(preds, insts); err != nil {
		return RunReport{}, nil, err
	}
	var todo []dataset.Instance
	for _, inst := range insts {
		if p, ok := preds[inst.InstanceID]; ok && !p.Empty() {
			todo = append(todo, inst)
		}
	}
	if err := CheckFamilies(todo, e.opts.Graders); err != nil {
		return RunReport{}, nil, err
	}

	var mu sync.Mutex
	results := make(map[string]Result, len(preds))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.opts.Workers)
	drained := func() bool {
		select {
		case <-e.opts.Drain:
			return true
		default:
			return gctx.Err() != nil
		}
	}
	for _, inst := range todo {
		if drained() {
			break // stop scheduling; running instances finish or see the cancellation
		}
		g.Go(func() error {
			if drained() {
				return nil
			}
			res, err := e.Evaluate(gctx, inst, preds[inst.InstanceID])
			if err == nil {
				res, err = e.afterGrading(gctx, inst, preds[inst.InstanceID], res)
			}
			if err != nil {
				return err
			}
			mu.Lock()
			results[inst.InstanceID] = res
			mu.Unlock()
			return nil
		})
	}
	runErr := g.Wait()
	if runErr == nil {
		runErr = ctx.Err()
	}
	for id, p := range preds {
		if p.Empty() {
			results[id] = Result{InstanceID: id, Outcome: EmptyPatch}
			e.done(results[id])
		}
	}
	list := make([]Result, 0, len(results))
	for _, r := range results {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].InstanceID < list[j].InstanceID })
	rep := BuildRunReport(insts, preds, results)
	addMarks(&rep, results, e.opts.Repeat)
	if runErr != nil {
		return rep, list, runErr
	}
	if err := finishFamilies(e.opts.OutDir, insts, preds, results, e.opts.Graders); err != nil {
		return rep, list, err
	}
	if _, err := WriteRunReport(e.opts.OutDir, ModelName(preds), e.opts.RunID, rep); err != nil {
		return rep, list, err
	}
	return rep, list, nil
}

// Evaluate evaluates one prediction (REFERENCE §5): in a fresh container of the instance image it
// writes the patch to /tmp/patch.diff, applies it with the harness's fallbacks, runs the eval
// script with the timeout, keeps the output as test_output.txt and grades it. Files go to
// OutDir/<id>/: patch.diff, eval.sh, run_instance.log, test_output.txt, report.json. A
// report.json already there is reused unless Options.Redo. The error is for failures of the run
// (output not writable, ctx cancelled); everything that goes wrong with the instance is in the
// Result. A row of a family with a grader of its own (Options.Graders) is graded by it.
func (e *Evaluator) Evaluate(ctx context.Context, inst dataset.Instance, pred Prediction) (Result, error) {
	if pred.Empty() {
		res := Result{InstanceID: inst.InstanceID, Outcome: EmptyPatch}
		e.done(res)
		return res, nil
	}
	if g := graderOf(inst, e.opts.Graders); g != nil {
		return e.evaluateWith(ctx, g, inst, pred)
	}
	return e.evaluateHarness(ctx, swebench, inst, pred)
}

// evaluateHarness evaluates one non-empty prediction the SWE-bench harness's way, with h's script
// and grading.
func (e *Evaluator) evaluateHarness(ctx context.Context, h Harness, inst dataset.Instance, pred Prediction) (Result, error) {
	id := inst.InstanceID
	res := Result{InstanceID: id}
	log := e.opts.Logger.With("instance", id)
	if err := h.Check([]dataset.Instance{inst}); err != nil {
		return res, err
	}
	dir := filepath.Join(e.opts.OutDir, id)
	if !e.opts.Redo {
		if rep, layout, err := ReadReport(filepath.Join(dir, reportFile)); err == nil && rep.InstanceID == id {
			res.Report, res.Outcome = &rep, Unresolved
			if rep.Resolved {
				res.Outcome = Resolved
			}
			log.Info("evaluation reused", "resolved", rep.Resolved, "layout", layout)
			e.done(res)
			return res, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("eval %s: %w", id, err)
	}
	if err := removeOutputs(dir, id, instanceLog); err != nil {
		return res, err
	}
	patch := pred.Patch()
	script, err := h.Script(inst)
	if err != nil {
		return res, err
	}
	if err := writeInputs(dir, patch, script); err != nil {
		return res, err
	}

	res, err = e.runInContainer(ctx, h, inst, patch, script, dir)
	if err != nil {
		return res, err
	}
	if res.Outcome == Error {
		log.Warn("evaluation error", "kind", res.ErrorKind, "reason", res.Reason)
	} else {
		log.Info("evaluated", "resolved", res.Outcome == Resolved)
	}
	e.done(res)
	return res, nil
}

// removeOutputs removes what an earlier evaluation of the instance left in dir (its report,
// test output and the extra files named), so that nothing stale survives a new grading.
func removeOutputs(dir, id string, extra ...string) error {
	for _, f := range append([]string{reportFile, testOutputFile}, extra...) {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("eval %s: %w", id, err)
		}
	}
	return nil
}

// writeInputs keeps the patch and the eval script of an evaluation in dir, in the harness's names.
func writeInputs(dir, patch, script string) error {
	if err := results.WriteFileAtomic(filepath.Join(dir, patchFile), []byte(patch), 0o644); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, evalScriptFile), []byte(script), 0o644)
}

func (e *Evaluator) done(res Result) {
	if e.opts.OnResult != nil {
		e.resultMu.Lock()
		defer e.resultMu.Unlock()
		e.opts.OnResult(res)
	}
}

func errorResult(id string, kind ErrorKind, format string, args ...any) Result {
	return Result{InstanceID: id, Outcome: Error, ErrorKind: kind, Reason: fmt.Sprintf(format, args...)}
}

var diffHeader = regexp.MustCompile(`(?m)^(diff --git |--- \S|\+\+\+ \S|@@ -\d)`)

// looksLikeDiff reports whether text has the headers of a unified or git diff.
func looksLikeDiff(text string) bool {
	return strings.Contains(text, "\n+++ ") || strings.HasPrefix(text, "+++ ") || strings.Contains(text, "diff --git ") ||
		(diffHeader.MatchString(text) && strings.Contains(text, "@@"))
}

// startFresh starts the fresh sandbox of inst's image, saying so in ilog. Without a sandbox, res
// is the instance's result (no image, the start failed) or err the context's end.
func (e *Evaluator) startFresh(ctx context.Context, inst dataset.Instance, ilog *strings.Builder) (sb Sandbox, res Result, err error) {
	id := inst.InstanceID
	image, err := e.opts.Image(inst)
	if err != nil {
		fmt.Fprintf(ilog, "No image: %v\n", err)
		return nil, errorResult(id, KindImageMissing, "%v", err), nil
	}
	fmt.Fprintf(ilog, "Starting container from %s\n", image)
	sb, err = e.opts.Starter.Start(ctx, inst, image)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Result{InstanceID: id}, ctx.Err()
		}
		fmt.Fprintf(ilog, "Start failed: %v\n", err)
		if errors.Is(err, ErrImageNotFound) {
			return nil, errorResult(id, KindImageMissing, "image %s: %v", image, err), nil
		}
		return nil, errorResult(id, KindContainer, "start container from %s: %v", image, err), nil
	}
	return sb, Result{}, nil
}

// closeSandbox removes sb, also after ctx ended; a failure is logged (the sweep removes it later).
func (e *Evaluator) closeSandbox(ctx context.Context, sb Sandbox, id string, attrs ...any) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	if err := sb.Close(cctx); err != nil {
		e.opts.Logger.Warn("container not removed", append([]any{"instance", id, "err", err}, attrs...)...)
	}
}

func (e *Evaluator) runInContainer(ctx context.Context, h Harness, inst dataset.Instance, patch, script, dir string) (Result, error) {
	id := inst.InstanceID
	var ilog strings.Builder
	defer func() {
		// The instance log is for humans; losing it must not fail the run.
		_ = results.WriteFileAtomic(filepath.Join(dir, instanceLog), []byte(ilog.String()), 0o644)
	}()
	if !looksLikeDiff(patch) {
		return notADiff(id, patch, &ilog), nil
	}
	sb, res, err := e.startFresh(ctx, inst, &ilog)
	if sb == nil {
		return res, err
	}
	defer e.closeSandbox(ctx, sb, id)
	res, err = runHarness(ctx, harnessRun{sb: sb, h: h, inst: inst, patch: patch, script: script, dir: dir, log: &ilog, timeout: e.opts.Timeout, assets: e.opts.AssetClient})
	if err == nil && res.Report != nil {
		fmt.Fprintf(&ilog, "Result for %s: resolved: %t\n", id, res.Report.Resolved)
	}
	return res, err
}

// notADiff is the result of a prediction whose patch is no diff at all, said in the instance log.
func notADiff(id, patch string, ilog io.Writer) Result {
	fmt.Fprintf(ilog, "%s: the prediction's model_patch has no diff headers (diff --git / --- / +++ / @@); it is not a patch\n", markerApplyFailed)
	return errorResult(id, KindNotADiff, "model_patch is not a diff (no diff --git, ---/+++ or @@ headers); first line: %q", firstLine(patch))
}

// harnessRun is one evaluation the SWE-bench harness's way, in a sandbox already started.
type harnessRun struct {
	sb                 family.Sandbox
	h                  Harness
	inst               dataset.Instance
	patch, script, dir string
	log                io.Writer // run_instance.log
	timeout            time.Duration
	assets             *http.Client
}

// runHarness applies the patch in the sandbox with the harness's fallbacks, stages the row's
// image assets, runs the eval script under the timeout, keeps its output as test_output.txt and
// grades it into report.json. Everything that goes wrong with the instance is the Result; the
// error is for failures of the run (ctx ended, dir not writable).
func runHarness(ctx context.Context, r harnessRun) (Result, error) {
	id, sb, ilog, script := r.inst.InstanceID, r.sb, r.log, r.script
	containerErr := func(step string, err error) (Result, error) {
		if ctx.Err() != nil {
			return Result{InstanceID: id}, ctx.Err()
		}
		fmt.Fprintf(ilog, "%s: %v\n", step, err)
		return errorResult(id, KindContainer, "%s: %v", step, err), nil
	}

	if err := sb.WriteFile(ctx, containerPatchPath, []byte(r.patch)); err != nil {
		return containerErr("copy patch into container", err)
	}
	applied, applyOut, err := family.ApplyPatch(ctx, sb, harnessApply, ilog)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return containerErr("apply patch", err)
	}
	if !applied {
		fmt.Fprintf(ilog, "%s:\n%s\n", markerApplyFailed, applyOut)
		return errorResult(id, KindPatchApplyFailed, "%s: %s", markerApplyFailed, lastLines(applyOut, 5)), nil
	}

	restore, err := stageAssets(ctx, r.assets, sb, r.inst, r.dir, ilog)
	if err != nil {
		return containerErr("stage image assets", err)
	}
	if len(restore) > 0 {
		script = injectAssetRestore(script, restore)
		if err := results.WriteFileAtomic(filepath.Join(r.dir, evalScriptFile), []byte(script), 0o644); err != nil {
			return Result{InstanceID: id}, err
		}
	}
	if err := sb.WriteFile(ctx, containerEvalPath, []byte(script)); err != nil {
		return containerErr("copy eval script into container", err)
	}
	start := time.Now()
	out, _, timedOut, err := sb.Exec(ctx, "/bin/bash "+containerEvalPath, r.timeout)
	fmt.Fprintf(ilog, "Test runtime: %.2f seconds\n", time.Since(start).Seconds())
	if ctx.Err() != nil {
		// Interrupted: the output is of a killed run and must not be graded.
		return Result{InstanceID: id}, ctx.Err()
	}
	if err != nil && !timedOut {
		if out != "" {
			if werr := results.WriteFileAtomic(filepath.Join(r.dir, testOutputFile), []byte(out), 0o644); werr != nil {
				return Result{InstanceID: id}, werr
			}
		}
		return containerErr("run eval script", err)
	}
	if timedOut {
		secs := int(r.timeout.Round(time.Second) / time.Second)
		out += fmt.Sprintf("\n\nTimeout error: %d seconds exceeded.", secs)
		if err := results.WriteFileAtomic(filepath.Join(r.dir, testOutputFile), []byte(out), 0o644); err != nil {
			return Result{InstanceID: id}, err
		}
		fmt.Fprintf(ilog, "Tests timed out after %d seconds\n", secs)
		return errorResult(id, KindTimeout, "eval script timed out after %d seconds", secs), nil
	}
	if err := results.WriteFileAtomic(filepath.Join(r.dir, testOutputFile), []byte(out), 0o644); err != nil {
		return Result{InstanceID: id}, err
	}
	return gradeAndWrite(r.h, r.inst, out, r.dir)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}
