package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/dockerenv"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/runner"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/validation"
)

type validateFlags struct {
	split, ids, filter, runID, store string
	imageTemplate, pull, dockerHost  string
	progress                         string
	knownBad, configs                []string // configs: -c files and key=value overrides
	workers, repeat                  int
	timeout                          time.Duration
	refresh, quiet, wait, asJSON     bool
	imageTemplateSet                 bool
	be                               backendFlags
}

func newValidateCmd(stop <-chan struct{}) *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:     "validate --split DATASET [flags]",
		Short:   "check every instance's environment: gold resolves, empty does not, verdicts repeat",
		GroupID: groupBatch,
		Long: `Grades, for every selected instance of any dataset family, its gold patch and an empty patch (an
added file that changes nothing), each as the family's harness grades and each in a fresh
container, --repeat times each, and records the instance's outcome:

  ok              the gold patch resolves it every time, the empty patch never
  gold_fails      the gold patch does not resolve it: the tests that fail and how (failed, error,
                  missing: not collected), or that the test runner collected none
  empty_passes    the empty patch resolves it: its FAIL_TO_PASS tests do not test the bug
  flaky           the verdict, or a named test's status, differs between repeats
  infrastructure  the image, the container or a timeout failed (retried by the next validate)
  known_bad       listed broken by a --known-bad file, not validated here

Records are kept per instance under the validation store (--validation, default
$SWEBENCH_RUN_VALIDATION or $XDG_CACHE_HOME/swebench-run/validation), in a folder per dataset and
revision, each with the image digest it holds for: a later validate grades only instances whose
image changed, that were never validated or need more repeats (--refresh grades all again). Each
record is written as soon as it is known, so an interrupted validate loses nothing. eval, compare,
sweep, report, stats and submission --check read the store: docs/validation.md.`,
		Example: `  # before a night: validate the whole dataset, 8 gradings at once
  swebench-run validate --split verified --workers 8
  # three repeats of a few suspicious instances
  swebench-run validate --split verified --instance-ids django__django-11099,astropy__astropy-7606 --repeat 3
  # take the maintainers' list of broken instances into the record
  swebench-run validate --split pro --known-bad broken-instances.txt`,
		Annotations: map[string]string{annExitCodes: `  0    every selected instance has a validation (whatever its outcome)
  1    the validation failed (bad input, backend unreachable, store not writable)
  2    bad command line
  3    some instances failed for infrastructure reasons (image, container, timeout): rerun to retry them
  130  interrupted (Ctrl-C, SIGTERM or SIGHUP): rerun the same command to resume`},
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.imageTemplateSet = cmd.Flags().Changed("image-template")
			if err := f.be.check(cmd.Flags(), "docker-host"); err != nil {
				return err
			}
			return runValidate(cmd.Context(), stop, &f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.split, "split", "", "dataset to validate (as for run)")
	fs.StringVar(&f.ids, "instance-ids", "", "only these ids: id,id,… or @FILE")
	fs.StringVar(&f.filter, "filter", "", "only ids matching this regex at their start")
	fs.StringArrayVar(&f.knownBad, "known-bad", nil, "a list of instances known to be broken (one id per line, `ID [OUTCOME] [NOTE]`, or JSON): recorded as listed, not graded")
	fs.StringArrayVarP(&f.configs, "config", "c", nil, "config file or key.path=value override, as for eval: its families section (the families' options) and, on Kubernetes, its kubernetes section")
	flagGroup(fs, "Input", "split", "instance-ids", "filter", "known-bad", "config")
	metavar(fs, "config", "FILE|KEY=VALUE")
	metavar(fs, "split", "DATASET")
	metavar(fs, "instance-ids", "IDS")
	metavar(fs, "filter", "REGEX")
	metavar(fs, "known-bad", "FILE")

	fs.IntVar(&f.repeat, "repeat", 1, "grade each patch this many times, each in a fresh container (flaky tests show from 2)")
	fs.BoolVar(&f.refresh, "refresh", false, "grade every selected instance again, even when the store holds its validation")
	fs.StringVar(&f.store, "validation", "", "the validation store (default $"+validation.EnvDir+", else $XDG_CACHE_HOME/swebench-run/validation)")
	flagGroup(fs, "Validation", "repeat", "refresh", "validation")
	metavar(fs, "repeat", "N")
	metavar(fs, "validation", "DIR")

	fs.IntVar(&f.workers, "workers", 4, "gradings at once")
	fs.DurationVar(&f.timeout, "timeout", eval.DefaultTimeout, "time limit of one grading's tests (e.g. 1800s, 30m)")
	fs.StringVar(&f.imageTemplate, "image-template", dataset.DefaultImageTemplate, "image of every row when given, else of rows without an image column (as for run)")
	fs.StringVar(&f.pull, "pull", "missing", "when to pull images: missing, always or never")
	fs.StringVar(&f.dockerHost, "docker-host", "", "Docker engine address (default DOCKER_HOST or the local socket)")
	flagGroup(fs, "Docker", "workers", "timeout", "image-template", "pull", "docker-host")
	metavar(fs, "workers", "N")
	metavar(fs, "image-template", "TEMPLATE")
	metavar(fs, "pull", "POLICY")
	metavar(fs, "docker-host", "URL")
	f.be.register(cmd, fs)

	fs.StringVar(&f.runID, "run-id", "", "labels the validation's containers (default validate-<time>-<random>)")
	fs.StringVar(&f.progress, "progress", "auto", "progress display: auto, bar, lines, json or none")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress display (same as --progress none)")
	fs.BoolVar(&f.asJSON, "json", false, "print the selected instances' records as JSON (the validation file's form)")
	waitFlag(fs, &f.wait)
	flagGroup(fs, "Output", "run-id", "progress", "quiet", "json", "wait")
	metavar(fs, "run-id", "ID")
	metavar(fs, "progress", "MODE")
	completeFlags(cmd, map[string]cobra.CompletionFunc{
		"split":      completeDataset,
		"pull":       oneOf("missing", "always", "never"),
		"progress":   oneOf("auto", "bar", "lines", "json", "none"),
		"validation": completeDirs,
		"config":     completeConfig,
	})
	return cmd
}

// imageDigester is what validate needs of a backend to key its records: the digest of an
// image's content, pulling it by the backend's policy (Docker engines).
type imageDigester interface {
	EnsureImage(ctx context.Context, image string, policy dockerenv.PullPolicy) (string, error)
}

var _ imageDigester = (*dockerenv.Engine)(nil)

// datasetKey names a loaded dataset and its revision as compare reads them from run.json, so
// that the store's folder of a dataset is found from a run.
func datasetKey(loaded *dataset.Loaded) (name, revision string) {
	raw, err := json.Marshal(loaded.Manifest())
	if err != nil {
		return loaded.Source.Spec, ""
	}
	return compare.DatasetOf(raw)
}

// validationStore is the store of --validation DIR, or the default one.
func validationStore(dir string) (validation.Store, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		return validation.Store{Dir: abs}, err
	}
	d, err := validation.DefaultDir()
	return validation.Store{Dir: d}, err
}

func runValidate(ctx context.Context, stop <-chan struct{}, f *validateFlags, stdout, stderr io.Writer) error {
	switch {
	case f.split == "":
		return fmt.Errorf("%w: validate needs --split", errUsage)
	case f.workers < 1 || f.repeat < 1 || f.timeout <= 0:
		return fmt.Errorf("%w: --workers and --repeat must be at least 1 and --timeout positive", errUsage)
	}
	switch dockerenv.PullPolicy(f.pull) {
	case dockerenv.PullMissing, dockerenv.PullAlways, dockerenv.PullNever:
	default:
		return fmt.Errorf("%w: --pull %q: want missing, always or never", errUsage, f.pull)
	}
	var known []validation.KnownEntry
	knownFrom := map[string]string{}
	for _, path := range f.knownBad {
		entries, err := validation.ReadKnownBad(path)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if prev, dup := knownFrom[e.InstanceID]; dup {
				return fmt.Errorf("%w: %s is listed by both %s and %s; keep it in one --known-bad file", errUsage, e.InstanceID, prev, path)
			}
			knownFrom[e.InstanceID] = path
			known = append(known, e)
		}
	}
	sel := dataset.Selection{Filter: f.filter}
	var err error
	if sel.IDs, err = parseIDs(f.ids, "--instance-ids"); err != nil {
		return err
	}
	files, overrides := splitConfigArgs(f.configs)
	cfg, err := configs.Load(files, overrides)
	if err != nil {
		return err
	}
	if _, err := kubeenv.DecodeConfig(cfg.Kubernetes); err != nil {
		return err
	}
	f.be.kubeSection = cfg.Kubernetes
	reg, err := familiesFor(cfg)
	if err != nil {
		return err
	}
	loaded, err := dataset.Load(ctx, f.split, dataset.LoadOptions{Progress: stderr, Selection: &sel, Require: dataset.RequireEval, Complete: true, Families: reg.Families(), Named: reg.Named()})
	if err != nil {
		return err
	}
	insts := loaded.Instances
	if f.imageTemplateSet {
		if err := dataset.ApplyImageTemplate(insts, f.imageTemplate); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	if err := eval.CheckFamilies(insts, reg.Grader); err != nil {
		return err
	}
	store, err := validationStore(f.store)
	if err != nil {
		return err
	}
	dsName, dsRev := datasetKey(loaded)
	folder := store.Folder(dsName, dsRev)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return fmt.Errorf("validation store: %w", err)
	}
	lock, err := lockOutput(ctx, folder, f.wait, stderr)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	set, err := store.Load(dsName, dsRev)
	if err != nil {
		return err
	}
	runID := f.runID
	if runID == "" {
		runID = "validate-" + newRunID()
	}
	now := time.Now().UTC()
	stamp := func(rec *validation.Record) {
		rec.Dataset, rec.DatasetRevision, rec.ToolVersion, rec.Date = dsName, dsRev, version, time.Now().UTC()
	}

	// Listed instances are recorded as their list says.
	inDataset := map[string]bool{}
	for _, inst := range insts {
		inDataset[inst.InstanceID] = true
	}
	listed := map[string]bool{}
	var outside []string
	for _, e := range known {
		if !inDataset[e.InstanceID] {
			outside = append(outside, e.InstanceID)
			continue
		}
		listed[e.InstanceID] = true
		rec := e.Record(knownFrom[e.InstanceID])
		if old, ok := set.Get(e.InstanceID); ok && old.FromKnownBad() && old.Outcome == rec.Outcome && old.Note == rec.Note && old.Source == rec.Source {
			continue
		}
		stamp(&rec)
		if err := store.Put(rec); err != nil {
			return err
		}
		set.Records[rec.InstanceID] = rec
	}
	if len(outside) > 0 && len(sel.IDs) == 0 && sel.Filter == "" {
		fmt.Fprintf(stderr, "swebench-run: warning: %d ids of the known-bad lists are not in %s: %s\n", len(outside), dsName, abbreviateIDs(outside))
	}

	engine, closeBackend, err := f.be.openSimple(ctx, f.workers, f.pull, stderr, func() (evalBackend, func(), error) {
		e, err := dockerenv.ConnectWith(ctx, f.dockerHost, dockerenv.Options{Pull: dockerenv.PullPolicy(f.pull)})
		if err != nil {
			return nil, nil, err
		}
		return e, func() { e.Close() }, nil
	})
	if err != nil {
		return err
	}
	defer closeBackend()
	digester, _ := engine.(imageDigester)
	if digester == nil {
		fmt.Fprintln(stderr, "swebench-run: note: this backend does not tell image digests: validations are kept until --refresh")
	}

	// What the store answers, and what must be graded.
	var todo []dataset.Instance
	digests := map[string]string{}
	redo := map[string]bool{}
	cached := 0
	for _, inst := range insts {
		id := inst.InstanceID
		if listed[id] {
			cached++
			continue
		}
		image, err := inst.ImageName(f.imageTemplate)
		if err != nil {
			return err
		}
		if digester != nil {
			d, err := digester.EnsureImage(ctx, image, dockerenv.PullPolicy(f.pull))
			if ctx.Err() != nil {
				return interrupted()
			}
			if err == nil {
				digests[id] = d
			}
			// An image that cannot be had is graded anyway: its failure is the record.
		}
		rec, ok := set.Get(id)
		if ok && !f.refresh && rec.Outcome != validation.Infrastructure && rec.Fresh(digests[id], f.repeat) {
			cached++
			continue
		}
		redo[id] = f.refresh || ok
		todo = append(todo, inst)
	}

	logger, closeLog, err := openEvalLog(folder, runID)
	if err != nil {
		return err
	}
	defer closeLog()
	progress := chooseProgress(&runFlags{progress: f.progress, quiet: f.quiet}, stderr)
	progress.Start(len(todo), cached)
	var mu sync.Mutex
	fresh := map[string]validation.Record{}
	gradings := 0
	vErr := eval.Validate(ctx, todo, eval.ValidateOptions{
		LogDir: store.LogDir(dsName, dsRev), RunID: runID, Workers: f.workers, Repeat: f.repeat, Timeout: f.timeout,
		Starter: &eval.SandboxStarter{Backend: engine, RunID: runID},
		Image:   func(inst dataset.Instance) (string, error) { return inst.ImageName(f.imageTemplate) },
		Graders: reg.Grader, Logger: logger, Drain: stop,
		Redo: func(id string) bool { return redo[id] },
		OnStart: func(inst dataset.Instance) {
			progress.Event(runner.Event{Instance: inst.InstanceID, Phase: runner.PhaseEvaluating})
		},
		OnRecord: func(inst dataset.Instance, rec validation.Record) error {
			stamp(&rec)
			rec.ImageDigest = digests[inst.InstanceID]
			if err := store.Put(rec); err != nil {
				return err
			}
			mu.Lock()
			fresh[rec.InstanceID] = rec
			gradings += len(rec.Gradings)
			mu.Unlock()
			progress.Event(runner.Event{Instance: inst.InstanceID, Phase: runner.PhaseDone, ExitStatus: string(rec.Outcome)})
			return nil
		},
	})
	progress.Finish()
	if n, serr := engine.Sweep(context.WithoutCancel(ctx), sandbox.Selector{RunID: runID}); serr == nil && n > 0 {
		fmt.Fprintf(stderr, "swebench-run: removed %d leftover validation containers\n", n)
	}
	path, werr := store.WriteFile(dsName, dsRev, now)
	if vErr != nil {
		if ctx.Err() != nil || isClosed(stop) {
			return interrupted()
		}
		return vErr
	}
	if werr != nil {
		return werr
	}
	all, err := store.Load(dsName, dsRev)
	if err != nil {
		return err
	}
	selected := map[string]validation.Record{}
	for _, inst := range insts {
		if r, ok := all.Get(inst.InstanceID); ok {
			selected[inst.InstanceID] = r
		}
	}
	if f.asJSON {
		err = writeValidationJSON(stdout, dsName, dsRev, selected)
	} else {
		printValidation(stdout, dsName, selected, len(fresh), cached, gradings, path)
	}
	if err != nil {
		return err
	}
	if isClosed(stop) {
		return interrupted()
	}
	if n := validation.Counts(fresh)[validation.Infrastructure]; n > 0 {
		return &exitStatusError{code: exitFailedInsts, msg: fmt.Sprintf("%d instances could not be validated for infrastructure reasons (see their reasons above); rerun the same command to retry them", n)}
	}
	return nil
}

func interrupted() error {
	return &exitStatusError{code: exitInterrupted, msg: "validation interrupted; rerun the same command to resume (finished instances are kept)"}
}

func abbreviateIDs(ids []string) string {
	sort.Strings(ids)
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(", and %d more", len(ids)-10)
	}
	return strings.Join(ids, ", ")
}

// printValidation prints the validation of the selected instances: the counts, then every
// instance that is not ok with its reason.
func printValidation(w io.Writer, dsName string, recs map[string]validation.Record, graded, cached, gradings int, path string) {
	fmt.Fprintf(w, "validated %d instances of %s: %s\n", len(recs), dsName, validation.CountsLine(validation.Counts(recs)))
	fmt.Fprintf(w, "graded now: %d instances (%d gradings, each in a fresh container); from the store: %d\n", graded, gradings, cached)
	ids := make([]string, 0, len(recs))
	for id, r := range recs {
		if r.Outcome != validation.OK {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := recs[ids[i]], recs[ids[j]]
		if a.Outcome != b.Outcome {
			return outcomeRank(a.Outcome) < outcomeRank(b.Outcome)
		}
		return ids[i] < ids[j]
	})
	if len(ids) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, id := range ids {
			r := recs[id]
			reason := r.Reason
			if r.Note != "" {
				reason += ": " + r.Note
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Outcome, id, reason)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "validation: %s\n", path)
}

func outcomeRank(o validation.Outcome) int {
	for i, x := range validation.Outcomes {
		if x == o {
			return i
		}
	}
	return len(validation.Outcomes)
}

func writeValidationJSON(w io.Writer, dsName, dsRev string, recs map[string]validation.Record) error {
	f := validation.File{SchemaVersion: validation.SchemaVersion, Dataset: dsName, DatasetRevision: dsRev, Updated: time.Now().UTC(),
		Counts: validation.Counts(recs), Records: []validation.Record{}}
	ids := make([]string, 0, len(recs))
	for id := range recs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f.Records = append(f.Records, recs[id])
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// openValidation is the validation a command reads for a dataset: the file or folder of
// --validation PATH when given (a validation.json, a dataset's folder of a store, or a store),
// else the default store's folder of the dataset. A missing default store is no validation.
func openValidation(path, dsName, dsRev string) (*validation.Set, error) {
	if path != "" {
		set, err := validation.Open(path)
		if err != nil {
			return nil, fmt.Errorf("--validation %s: %w", path, err)
		}
		return set, nil
	}
	store, err := validationStore("")
	if err != nil {
		return nil, nil //nolint:nilerr // without a cache directory there is no validation to read
	}
	set, err := store.Load(dsName, dsRev)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return set, err
}

// environmentCheck is the evaluator option that marks the failures that are the environment's,
// from the validation of the loaded dataset (--validation PATH, else the default store).
func environmentCheck(path string, loaded *dataset.Loaded) (func(*eval.Options), error) {
	name, rev := datasetKey(loaded)
	set, err := openValidation(path, name, rev)
	if err != nil {
		return nil, err
	}
	return func(o *eval.Options) {
		if set.Len() > 0 {
			o.Validation = set.Get
		}
	}, nil
}

// environmentNote is " (2 of them the environment's)" for the summary's unresolved count.
func environmentNote(rep eval.RunReport) string {
	if rep.EnvironmentInstances == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of them set apart as the environment's)", rep.EnvironmentInstances)
}

// printEvalMarks prints what the run report adds to the harness's: the environment's failures
// with their evidence, and the verdicts that changed between repeated gradings.
func printEvalMarks(w io.Writer, rep eval.RunReport) {
	for _, id := range rep.EnvironmentIDs {
		fmt.Fprintf(w, "  environment %s: %s\n", id, rep.EnvironmentEvidence[id])
	}
	if rep.GradingRepeats > 1 {
		fmt.Fprintf(w, "repeats: every prediction graded %d times; %d verdicts changed between them (flaky_ids in the run report)\n", rep.GradingRepeats, len(rep.FlakyIDs))
		for _, id := range rep.FlakyIDs {
			fmt.Fprintf(w, "  flaky %s: %s\n", id, strings.Join(rep.FlakyVerdicts[id], ", "))
		}
	}
}

// cellEnvironmentCheck is environmentCheck for a sweep cell's dataset, from the default store; a
// store that cannot be read leaves the cell's evaluation to the log alone.
func cellEnvironmentCheck(loaded *dataset.Loaded) func(*eval.Options) {
	check, err := environmentCheck("", loaded)
	if err != nil {
		return nil
	}
	return check
}

// runsValidation is the validation compare, sweep, report and submission --check read for
// their runs: the validation at path (--validation), else the default store's folder of every
// dataset and revision the runs name. It returns the records by instance id and where they were
// read ("" and nil when there are none).
func runsValidation(runs []*compare.Run, path string) (map[string]validation.Record, string, error) {
	if path != "" {
		set, err := validation.Open(path)
		if err != nil {
			return nil, "", fmt.Errorf("--validation %s: %w", path, err)
		}
		return set.Records, path, nil
	}
	store, err := validationStore("")
	if err != nil {
		return nil, "", nil //nolint:nilerr // without a cache directory there is no validation to read
	}
	recs := map[string]validation.Record{}
	var sources []string
	seen := map[string]bool{}
	for _, r := range runs {
		key := r.Dataset + "\x00" + r.DatasetRevision
		if r.Dataset == "" || seen[key] {
			continue
		}
		seen[key] = true
		set, err := store.Load(r.Dataset, r.DatasetRevision)
		if err != nil {
			return nil, "", err
		}
		if set.Len() == 0 {
			continue
		}
		sources = append(sources, set.Path)
		for id, rec := range set.Records {
			recs[id] = rec
		}
	}
	if len(recs) == 0 {
		return nil, "", nil
	}
	return recs, strings.Join(sources, ", "), nil
}

// datasetValidation is the validation of a dataset loaded from src: the one at path
// (--validation), else the default store's folder of the dataset.
func datasetValidation(path string, src dataset.Source) (map[string]validation.Record, error) {
	raw, err := json.Marshal(dataset.Manifest{Source: src})
	if err != nil {
		return nil, err
	}
	name, rev := compare.DatasetOf(raw)
	set, err := openValidation(path, name, rev)
	if err != nil || set == nil {
		return nil, err
	}
	return set.Records, nil
}
