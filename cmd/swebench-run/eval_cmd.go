package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/sandbox"
)

func evalCommand(ctx context.Context, stop <-chan struct{}, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		predsPath, split, out, runID, fromLogs, ids string
		imageTemplate, pull, dockerHost, filter     string
		workers                                     int
		timeout                                     time.Duration
		redo                                        bool
	)
	fs.StringVar(&predsPath, "predictions", "", "predictions: a preds.json (object keyed by id), a JSON list, a .jsonl file, or `gold` for the dataset's gold patches")
	fs.StringVar(&split, "split", "", "dataset the predictions are for (as for run)")
	fs.StringVar(&out, "o", "", "output directory (default: eval/ beside the predictions file, or runs/eval-<run id> for gold)")
	fs.StringVar(&runID, "run-id", "", "run id naming the run report (default: the run's id from run.json beside the predictions, else a new one)")
	fs.StringVar(&fromLogs, "from-logs", "", "regrade existing logs in DIR (harness logs/run_evaluation/<run_id>/<model>/ or our eval/) without containers")
	fs.StringVar(&ids, "instance-ids", "", "only these ids: id,id,… or @FILE")
	fs.StringVar(&filter, "filter", "", "only ids matching this regex at their start")
	fs.IntVar(&workers, "workers", 4, "instances evaluated at once")
	fs.DurationVar(&timeout, "timeout", eval.DefaultTimeout, "time limit of one instance's eval script (e.g. 1800s, 30m)")
	fs.BoolVar(&redo, "redo", false, "re-evaluate instances that already have a report.json")
	fs.StringVar(&imageTemplate, "image-template", dataset.DefaultImageTemplate, "image for rows without an image column (as for run)")
	fs.StringVar(&pull, "pull", "missing", "when to pull images: missing, always or never")
	fs.StringVar(&dockerHost, "docker-host", "", "Docker engine address (default DOCKER_HOST or the local socket)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: swebench-run eval --predictions PATH|gold --split DATASET [flags]\n\nGrades predictions like the SWE-bench harness, in fresh containers, and writes\n<out>/<id>/{patch.diff,eval.sh,test_output.txt,report.json} and <out>/<model>.<run_id>.json.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitStatusError{code: exitUsage}
	}
	if workers < 1 || timeout <= 0 {
		return fmt.Errorf("%w: --workers must be at least 1 and --timeout positive", errUsage)
	}
	if predsPath == "" || split == "" {
		return fmt.Errorf("%w: eval needs --predictions and --split", errUsage)
	}
	sel := dataset.Selection{Filter: filter}
	var err error
	if sel.IDs, err = parseIDs(ids, "--instance-ids"); err != nil {
		return err
	}
	loaded, err := dataset.Load(ctx, split, dataset.LoadOptions{Progress: stderr, Selection: &sel, Require: dataset.RequireEval})
	if err != nil {
		return err
	}
	insts := loaded.Instances

	var preds map[string]eval.Prediction
	if predsPath == "gold" {
		preds = eval.GoldPredictions(insts)
	} else if preds, err = eval.LoadPredictions(predsPath); err != nil {
		return err
	}
	if !sel.IsZero() {
		preds = onlySelected(preds, insts)
	}
	if runID == "" {
		runID = defaultEvalRunID(predsPath)
	}
	if out == "" {
		if predsPath == "gold" {
			out = filepath.Join("runs", "eval-"+runID)
		} else {
			out = filepath.Join(filepath.Dir(predsPath), "eval")
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}

	var rep eval.RunReport
	var results []eval.Result
	if fromLogs != "" {
		rep, results, err = eval.RegradeFromLogs(eval.RegradeOptions{LogsDir: fromLogs, OutDir: out, RunID: runID}, insts, preds)
		if err != nil {
			return err
		}
	} else {
		switch dockerenv.PullPolicy(pull) {
		case dockerenv.PullMissing, dockerenv.PullAlways, dockerenv.PullNever:
		default:
			return fmt.Errorf("%w: --pull %q: want missing, always or never", errUsage, pull)
		}
		engine, err := dockerenv.ConnectWith(ctx, dockerHost, dockerenv.Options{Pull: dockerenv.PullPolicy(pull)})
		if err != nil {
			return err
		}
		defer engine.Close()
		ev, err := newEvaluator(engine, out, runID, workers, timeout, redo, imageTemplate, stop)
		if err != nil {
			return err
		}
		rep, results, err = ev.Run(ctx, insts, preds)
		if n, serr := engine.Sweep(ctx, sandbox.Selector{RunID: runID}); serr == nil && n > 0 {
			fmt.Fprintf(stderr, "swebench-run: removed %d leftover eval containers\n", n)
		}
		if err != nil {
			if ctx.Err() != nil || isClosed(stop) {
				return &exitStatusError{code: exitInterrupted, msg: "evaluation interrupted; rerun the same command to resume"}
			}
			return err
		}
	}
	path, err := eval.WriteRunReport(out, eval.ModelName(preds), runID, rep)
	if err != nil {
		return err
	}
	printEvalSummary(stdout, rep, results, path)
	if isClosed(stop) {
		return &exitStatusError{code: exitInterrupted, msg: "evaluation interrupted; rerun the same command to resume"}
	}
	if rep.ErrorInstances > 0 {
		return &exitStatusError{code: exitFailedInsts, msg: fmt.Sprintf("%d instances could not be evaluated (see error_reasons in %s)", rep.ErrorInstances, path)}
	}
	return nil
}

// The evaluations' containers start on a Docker engine.
var (
	_ sandbox.Starter = (*dockerenv.Engine)(nil)
	_ sandbox.Sweeper = (*dockerenv.Engine)(nil)
)

// newEvaluator wires a sandbox backend (its pull policy decides when images are pulled) into an
// Evaluator.
func newEvaluator(backend sandbox.Starter, out, runID string, workers int, timeout time.Duration, redo bool, imageTemplate string, stop <-chan struct{}) (*eval.Evaluator, error) {
	return eval.New(eval.Options{
		OutDir: out, RunID: runID, Workers: workers, Timeout: timeout, Redo: redo, Drain: stop,
		Starter: &eval.SandboxStarter{Backend: backend, RunID: runID},
		Image:   func(inst dataset.Instance) (string, error) { return inst.ImageName(imageTemplate) },
		Logger:  slog.New(slog.DiscardHandler),
	})
}

func onlySelected(preds map[string]eval.Prediction, insts []dataset.Instance) map[string]eval.Prediction {
	keep := make(map[string]eval.Prediction, len(insts))
	for _, inst := range insts {
		if p, ok := preds[inst.InstanceID]; ok {
			keep[inst.InstanceID] = p
		}
	}
	return keep
}

func defaultEvalRunID(predsPath string) string {
	if predsPath != "gold" {
		if man, err := readManifestBeside(predsPath); err == nil && man != "" {
			return man
		}
	}
	return newRunID()
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func printEvalSummary(w io.Writer, rep eval.RunReport, results []eval.Result, path string) {
	fmt.Fprintf(w, "evaluated %d of %d instances: %d resolved, %d unresolved, %d empty patches, %d errors\n",
		rep.CompletedInstances+rep.ErrorInstances, rep.TotalInstances, rep.ResolvedInstances, rep.UnresolvedInstances, rep.EmptyPatchInstances, rep.ErrorInstances)
	if rep.SubmittedInstances > 0 {
		fmt.Fprintf(w, "resolved rate: %.1f%% of submitted (%d/%d), %.1f%% of the dataset (%d/%d)\n",
			100*float64(rep.ResolvedInstances)/float64(rep.SubmittedInstances), rep.ResolvedInstances, rep.SubmittedInstances,
			100*float64(rep.ResolvedInstances)/float64(max(rep.TotalInstances, 1)), rep.ResolvedInstances, rep.TotalInstances)
	}
	ids := make([]string, 0, len(rep.ErrorReasons))
	for id := range rep.ErrorReasons {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(w, "  error %s: %s\n", id, rep.ErrorReasons[id])
	}
	fmt.Fprintf(w, "report: %s\n", path)
}
