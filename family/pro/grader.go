package pro

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/results"
)

// Paths in the container, as the harness uses them.
const (
	workspace      = "/workspace"
	entryScriptCmd = "bash /workspace/entryscript.sh"
	// commandTimeout bounds the small commands around the entry script.
	commandTimeout = 5 * time.Minute
)

// Names of an instance's files (after the prediction's prefix and "_"), as the harness names them
// in its output folder.
const (
	patchSuffix  = "_patch.diff"
	entrySuffix  = "_entryscript.sh"
	stdoutSuffix = "_stdout.log"
	stderrSuffix = "_stderr.log"
	outputSuffix = "_output.json"
)

// EvalResultsFile holds the verdicts of an evaluation, {instance_id: resolved}.
const EvalResultsFile = "eval_results.json"

type grader struct{ scripts *scripts }

var _ family.Grader = (*grader)(nil)

// Check implements family.Grader: every instance's scripts are known (in the pinned manifest or
// the scripts folder) and its selected test files read.
func (g *grader) Check(insts []dataset.Instance) error {
	var errs []error
	for _, inst := range insts {
		if err := g.scripts.check(inst.InstanceID); err != nil {
			errs = append(errs, err)
		}
		if _, err := selectedTests(inst); err != nil {
			errs = append(errs, fmt.Errorf("instance %s: %s: %w", inst.InstanceID, ColSelectedTests, err))
		}
		if len(errs) >= 10 {
			errs = append(errs, errors.New("(stopped after 10 instances)"))
			break
		}
	}
	return errors.Join(errs...)
}

// EntryScript returns the script the harness runs in the container (create_entryscript),
// without the export lines it makes from the ENV lines of the image's Dockerfiles: the image
// carries that environment already.
func EntryScript(inst dataset.Instance) (string, error) {
	tests, err := selectedTests(inst)
	if err != nil {
		return "", fmt.Errorf("instance %s: %s: %w", inst.InstanceID, ColSelectedTests, err)
	}
	before, _ := inst.Extra[ColBeforeRepoSetCmd].(string)
	lines := strings.Split(strings.TrimSpace(before), "\n")
	return fmt.Sprintf(`

# apply patch
cd /app
git reset --hard %s
git checkout %s
git apply -v /workspace/patch.diff
%s
# run test and save stdout and stderr to separate files
bash /workspace/run_script.sh %s > /workspace/stdout.log 2> /workspace/stderr.log
# run parsing script
python /workspace/parser.py /workspace/stdout.log /workspace/stderr.log /workspace/output.json
`, inst.BaseCommit, inst.BaseCommit, lines[len(lines)-1], strings.Join(tests, ",")), nil
}

var (
	diffStart  = regexp.MustCompile(`(?m)^diff --git `)
	binaryHunk = regexp.MustCompile(`(?m)^(Binary files .* differ|GIT binary patch)$`)
)

// StripBinaryHunks drops the sections of a git patch that change binary files, as the harness's
// strip_binary_hunks does before it applies a patch.
func StripBinaryHunks(patch string) string {
	if patch == "" {
		return patch
	}
	var kept strings.Builder
	starts := diffStart.FindAllStringIndex(patch, -1)
	bounds := []int{0}
	for _, s := range starts {
		if s[0] > 0 {
			bounds = append(bounds, s[0])
		}
	}
	bounds = append(bounds, len(patch))
	for k := 0; k+1 < len(bounds); k++ {
		section := patch[bounds[k]:bounds[k+1]]
		if strings.TrimSpace(section) == "" || binaryHunk.MatchString(section) {
			continue
		}
		kept.WriteString(section)
	}
	return kept.String()
}

// Grade implements family.Grader: the harness's entry script in the container, its outputs
// copied out, the verdict from output.json.
func (g *grader) Grade(ctx context.Context, env family.GradeEnv, sb family.Sandbox, inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, error) {
	id, prefix := inst.InstanceID, Prefix(pred)
	file := func(suffix string) string { return filepath.Join(dir, prefix+suffix) }
	for _, s := range []string{outputSuffix, stdoutSuffix, stderrSuffix} {
		if err := os.Remove(file(s)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return family.Verdict{}, fmt.Errorf("eval %s: %w", id, err)
		}
	}
	patch := pred.Patch()
	if err := results.WriteFileAtomic(file(patchSuffix), []byte(patch), 0o644); err != nil {
		return family.Verdict{}, err
	}
	entry, err := EntryScript(inst)
	if err != nil {
		return family.Errorf(family.KindGrading, "%v", err), nil
	}
	if err := results.WriteFileAtomic(file(entrySuffix), []byte(entry), 0o644); err != nil {
		return family.Verdict{}, err
	}
	files := map[string][]byte{"entryscript.sh": []byte(entry)}
	cleaned := StripBinaryHunks(patch)
	if cleaned != patch {
		fmt.Fprintf(env.Log, "Stripped binary diff hunks from patch for %s\n", id)
	}
	files["patch.diff"] = []byte(cleaned)
	for _, name := range []string{runScriptFile, parserFile} {
		data, err := g.scripts.read(ctx, id, name)
		if err != nil {
			if ctx.Err() != nil {
				return family.Verdict{}, ctx.Err()
			}
			fmt.Fprintf(env.Log, "No %s: %v\n", name, err)
			return family.Errorf(family.KindAssets, "%s of %s: %v", name, id, err), nil
		}
		files[name] = data
	}
	containerErr := func(step string, err error) (family.Verdict, error) {
		if ctx.Err() != nil {
			return family.Verdict{}, ctx.Err()
		}
		fmt.Fprintf(env.Log, "%s: %v\n", step, err)
		return family.Errorf(family.KindContainer, "%s: %v", step, err), nil
	}
	if _, code, _, err := sb.Exec(ctx, "mkdir -p "+workspace, commandTimeout); err != nil || code != 0 {
		if err == nil {
			err = fmt.Errorf("exit code %d", code)
		}
		return containerErr("create "+workspace, err)
	}
	for _, name := range []string{"patch.diff", runScriptFile, parserFile, "entryscript.sh"} {
		if err := sb.WriteFile(ctx, workspace+"/"+name, files[name]); err != nil {
			return containerErr("copy "+name+" into the container", err)
		}
	}
	start := time.Now()
	out, code, timedOut, err := sb.Exec(ctx, entryScriptCmd, env.Timeout)
	fmt.Fprintf(env.Log, "%s (exit code %d, %.2f seconds):\n%s\n", entryScriptCmd, code, time.Since(start).Seconds(), out)
	if err != nil {
		return containerErr("run the entry script", err)
	}
	// The outputs are kept whatever happened, as the harness keeps them (empty when missing).
	for _, c := range []struct{ src, suffix string }{{"stdout.log", stdoutSuffix}, {"stderr.log", stderrSuffix}} {
		data, ok, err := catFile(ctx, sb, workspace+"/"+c.src)
		if err != nil {
			return containerErr("read "+c.src, err)
		}
		if !ok {
			data = ""
		}
		if err := results.WriteFileAtomic(file(c.suffix), []byte(data), 0o644); err != nil {
			return family.Verdict{}, err
		}
	}
	if timedOut {
		secs := int(env.Timeout.Round(time.Second) / time.Second)
		fmt.Fprintf(env.Log, "Tests timed out after %d seconds\n", secs)
		return family.Errorf(family.KindTimeout, "entry script timed out after %d seconds", secs), nil
	}
	if code != 0 {
		fmt.Fprintf(env.Log, "Entryscript failed for %s with return code: %d\n", id, code)
	}
	output, ok, err := catFile(ctx, sb, workspace+"/output.json")
	if err != nil {
		return containerErr("read output.json", err)
	}
	if !ok {
		return family.Errorf(family.KindNoTestOutput, "parser.py wrote no output.json (entry script exit code %d); see %s and %s", code, prefix+stdoutSuffix, prefix+stderrSuffix), nil
	}
	return keepOutput(inst, []byte(output), file(outputSuffix))
}

// catFile reads a file of the sandbox; ok is false when it does not exist.
func catFile(ctx context.Context, sb family.Sandbox, path string) (string, bool, error) {
	out, code, _, err := sb.Exec(ctx, "test -f "+path+" && cat "+path, commandTimeout)
	if err != nil {
		return "", false, err
	}
	return out, code == 0, nil
}

// keepOutput writes output.json as the harness re-dumps it and grades it.
func keepOutput(inst dataset.Instance, output []byte, path string) (family.Verdict, error) {
	dumped, err := family.PythonJSON(output, -1)
	if err != nil {
		return family.Errorf(family.KindGrading, "output.json is not JSON: %v", err), nil
	}
	if err := results.WriteFileAtomic(path, dumped, 0o644); err != nil {
		return family.Verdict{}, err
	}
	return Grade(inst, output), nil
}

// Output is the parser's output.json.
type Output struct {
	Tests []OutputTest `json:"tests"`
}

// OutputTest is one test of Output.
type OutputTest struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// Grade grades the parser's output.json against the row as the harness does: resolved iff every
// fail_to_pass and pass_to_pass test has status PASSED. An output without a "tests" list (which
// makes the harness count the instance unresolved after an exception) is a grading error.
func Grade(inst dataset.Instance, output []byte) family.Verdict {
	var probe struct {
		Tests *[]map[string]any `json:"tests"`
	}
	if err := json.Unmarshal(output, &probe); err != nil {
		return family.Errorf(family.KindGrading, "output.json is not a JSON object: %v", err)
	}
	if probe.Tests == nil {
		return family.Errorf(family.KindGrading, `output.json has no "tests" list`)
	}
	out := &Output{}
	passed := map[string]bool{}
	for k, t := range *probe.Tests {
		name, okName := t["name"].(string)
		status, okStatus := t["status"].(string)
		if _, has := t["name"]; !has {
			return family.Errorf(family.KindGrading, `output.json: test %d has no "name"`, k)
		}
		if _, has := t["status"]; !has {
			return family.Errorf(family.KindGrading, `output.json: test %d has no "status"`, k)
		}
		if okName && okStatus {
			out.Tests = append(out.Tests, OutputTest{Name: name, Status: status})
			if status == "PASSED" {
				passed[name] = true
			}
		}
	}
	resolved := true
	for _, l := range [][]string{inst.FailToPass, inst.PassToPass} {
		for _, t := range l {
			if !passed[t] {
				resolved = false
			}
		}
	}
	return family.Graded(resolved, out)
}

// Reuse implements family.Grader: the output.json an earlier evaluation kept, as the harness
// skips an instance whose output exists.
func (g *grader) Reuse(inst dataset.Instance, pred family.Prediction, dir string) (family.Verdict, bool) {
	data, err := os.ReadFile(filepath.Join(dir, Prefix(pred)+outputSuffix))
	if err != nil {
		return family.Verdict{}, false
	}
	v := Grade(inst, data)
	return v, v.Outcome != family.Error
}

// Regrade implements family.Grader: the harness's (or this tool's) <id>/<prefix>_output.json,
// with the prefix of the prediction, or the only *_output.json of the folder; its files are
// copied into dir under the prediction's prefix.
func (g *grader) Regrade(inst dataset.Instance, pred family.Prediction, logDirs []string, dir string) (family.Verdict, bool, error) {
	prefix := Prefix(pred)
	for _, ld := range logDirs {
		src := filepath.Join(ld, inst.InstanceID)
		srcPrefix, ok := findPrefix(src, prefix)
		if !ok {
			continue
		}
		output, err := os.ReadFile(filepath.Join(src, srcPrefix+outputSuffix))
		missingOutput := errors.Is(err, fs.ErrNotExist)
		if err != nil && !missingOutput {
			return family.Verdict{}, true, fmt.Errorf("regrade %s: %w", inst.InstanceID, err)
		}
		if !sameDir(src, dir) || srcPrefix != prefix {
			for _, s := range []string{entrySuffix, stdoutSuffix, stderrSuffix} {
				data, err := os.ReadFile(filepath.Join(src, srcPrefix+s))
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					return family.Verdict{}, true, fmt.Errorf("regrade %s: %w", inst.InstanceID, err)
				}
				if err := results.WriteFileAtomic(filepath.Join(dir, prefix+s), data, 0o644); err != nil {
					return family.Verdict{}, true, err
				}
			}
			if err := results.WriteFileAtomic(filepath.Join(dir, prefix+patchSuffix), []byte(pred.Patch()), 0o644); err != nil {
				return family.Verdict{}, true, err
			}
		}
		if missingOutput {
			return family.Errorf(family.KindNoTestOutput, "%s has no %s: the tests or the parser failed there (the parser runs inside the instance's container; grade without --from-logs to run it)", src, srcPrefix+outputSuffix), true, nil
		}
		v, err := keepOutput(inst, output, filepath.Join(dir, prefix+outputSuffix))
		return v, true, err
	}
	return family.Verdict{}, false, nil
}

// findPrefix returns the prefix of the harness's files in an instance folder: prefix when its
// output or logs are there, else the one prefix the folder's files have.
func findPrefix(src, prefix string) (string, bool) {
	for _, s := range []string{outputSuffix, stdoutSuffix} {
		if _, err := os.Stat(filepath.Join(src, prefix+s)); err == nil {
			return prefix, true
		}
	}
	for _, s := range []string{outputSuffix, stdoutSuffix} {
		matches, _ := filepath.Glob(filepath.Join(src, "*"+s))
		if len(matches) == 1 {
			return strings.TrimSuffix(filepath.Base(matches[0]), s), true
		}
	}
	return "", false
}

func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// Finish implements family.Grader: eval_results.json, {instance_id: resolved} of every graded
// prediction (errors are false, as the harness records them; empty patches, which are not run,
// are left out), merged into the file an earlier evaluation of other instances left.
func (g *grader) Finish(outDir string, preds map[string]family.Prediction, verdicts map[string]family.Verdict) error {
	path := filepath.Join(outDir, EvalResultsFile)
	merged := map[string]bool{}
	if data, err := os.ReadFile(path); err == nil {
		if old, ok := parseEvalResults(data); ok {
			merged = old
		}
	}
	for id := range preds {
		v, ok := verdicts[id]
		if !ok || v.Outcome == family.EmptyPatch {
			continue
		}
		merged[id] = v.Outcome == family.Resolved
	}
	data, err := family.MarshalPython(merged, -1)
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(path, data, 0o644)
}

// parseEvalResults reads {instance_id: bool}; ok is false for anything else.
func parseEvalResults(data []byte) (map[string]bool, bool) {
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil || len(raw) == 0 {
		return nil, false
	}
	out := make(map[string]bool, len(raw))
	for id, v := range raw {
		switch string(v) {
		case "true":
			out[id] = true
		case "false":
			out[id] = false
		default:
			return nil, false
		}
	}
	return out, true
}
