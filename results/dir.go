package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// File names inside the output directory.
const (
	PredsFile    = "preds.json"
	LedgerFile   = "status.jsonl"
	ManifestFile = "run.json"
	LogFile      = "swebench-run.log"
)

// Prediction is one entry of preds.json, the shape the SWE-bench harness and sb-cli read.
type Prediction struct {
	ModelNameOrPath string `json:"model_name_or_path"`
	InstanceID      string `json:"instance_id"`
	ModelPatch      string `json:"model_patch"`
}

// Categories of a finished attempt: a model outcome is final; an infrastructure failure is
// retried on resume (up to --max-attempts); an unfinished attempt (cut by a run-wide budget) says
// nothing about the model and nothing about the infrastructure: it runs again, from the start,
// whenever a run has budget left, without using up attempts.
const (
	CategoryModel          = "model"
	CategoryInfrastructure = "infrastructure"
	CategoryUnfinished     = "unfinished"
)

// Record is one line of status.jsonl: one finished attempt of one instance.
type Record struct {
	InstanceID string  `json:"instance_id"`
	Attempt    int     `json:"attempt"`
	ExitStatus string  `json:"exit_status"`
	Category   string  `json:"category"`
	ModelName  string  `json:"model_name"`
	Cost       float64 `json:"cost"`
	APICalls   int     `json:"api_calls"`
	Steps      int     `json:"steps"`
	Tokens     Tokens  `json:"tokens"`
	PatchBytes int     `json:"patch_bytes"`
	Queued     float64 `json:"queued_at,omitempty"`      // unix seconds
	ImageReady float64 `json:"image_ready_at,omitempty"` // unix seconds
	FirstStep  float64 `json:"first_step_at,omitempty"`  // unix seconds
	End        float64 `json:"ended_at"`                 // unix seconds
	Host       string  `json:"host,omitempty"`
	Image      string  `json:"image,omitempty"`
	ImageID    string  `json:"image_id,omitempty"`
	// History is what the history guard did before the agent's first command: past, none,
	// as-is (environment.history; none also for past on a family whose past is the answer),
	// or "no repository"; "" when no container started or the guard had not ended.
	History string `json:"history,omitempty"`
	// HistoryGuard is the guard's time in seconds (it runs while the first model call is in
	// flight).
	HistoryGuard float64 `json:"history_guard_seconds,omitempty"`
	Error        string  `json:"error,omitempty"`
}

// Dir is an open output directory. Its methods are safe for concurrent use; one Dir is the only
// writer of preds.json and status.jsonl.
type Dir struct {
	path       string
	mu         sync.Mutex
	preds      map[string]Prediction
	ledger     *os.File
	history    map[string][]Record
	exitFile   string
	TornLedger bool // the ledger's last line was torn by a crash and was ignored
	// RepairedPreds counts predictions restored from trajectories at Open: a crash of an earlier
	// version between its ledger line and preds.json left them out. MissingPreds lists finished
	// instances whose prediction could not be restored (no readable trajectory).
	RepairedPreds int
	MissingPreds  []string
}

// Open opens (creating it if needed) the output directory and loads what earlier runs left.
func Open(path string) (*Dir, error) {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	d := &Dir{path: path, preds: map[string]Prediction{}, history: map[string][]Record{}}
	if err := d.loadPreds(); err != nil {
		return nil, err
	}
	if err := d.loadLedger(); err != nil {
		return nil, err
	}
	if err := d.repairPreds(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(path, LedgerFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	d.ledger = f
	d.exitFile = exitStatusesPath(path)
	return d, nil
}

// Path returns the directory's path.
func (d *Dir) Path() string { return d.path }

// Close closes the ledger.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ledger == nil {
		return nil
	}
	err := d.ledger.Close()
	d.ledger = nil
	return err
}

func (d *Dir) loadPreds() error {
	p := filepath.Join(d.path, PredsFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if err := json.Unmarshal(data, &d.preds); err != nil {
		return fmt.Errorf("%s is not a JSON object of predictions (%v); move it away or pass a new -o", p, err)
	}
	return nil
}

func (d *Dir) loadLedger() error {
	h, torn, err := ReadLedger(d.path)
	if err != nil {
		return err
	}
	d.history = h
	if torn {
		d.TornLedger = true
		return dropTornLine(filepath.Join(d.path, LedgerFile))
	}
	return nil
}

// ReadLedger reads <dir>/status.jsonl without changing it: every attempt per instance, oldest
// first. torn reports a last line cut short by a crash (ignored). A missing ledger is empty.
func ReadLedger(dir string) (history map[string][]Record, torn bool, err error) {
	p := filepath.Join(dir, LedgerFile)
	history = map[string][]Record{}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return history, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	lines := bytes.Split(data, []byte("\n"))
	for i, b := range lines {
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil || r.InstanceID == "" {
			// Only the last line, without its newline, can be torn by a crash; anything else
			// is corruption.
			if i == len(lines)-1 {
				return history, true, nil
			}
			return nil, false, fmt.Errorf("%s line %d is not a status record (%v); fix or remove that line", p, i+1, err)
		}
		history[r.InstanceID] = append(history[r.InstanceID], r)
	}
	return history, false, nil
}

// dropTornLine rewrites the ledger without its torn last line.
func dropTornLine(p string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	return WriteFileAtomic(p, data, 0o644)
}

// History returns every recorded attempt per instance, oldest first.
func (d *Dir) History() map[string][]Record {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string][]Record, len(d.history))
	for k, v := range d.history {
		out[k] = append([]Record(nil), v...)
	}
	return out
}

// Spent returns the cost and the billed model calls of every recorded attempt: what the output
// directory has cost so far, over all runs.
func (d *Dir) Spent() (cost float64, calls int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range d.history {
		for _, r := range h {
			cost += r.Cost
			calls += r.APICalls
		}
	}
	return cost, calls
}

// Predictions returns a copy of the predictions.
func (d *Dir) Predictions() map[string]Prediction {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]Prediction, len(d.preds))
	for k, v := range d.preds {
		out[k] = v
	}
	return out
}

// Record sets the instance's prediction when pred is not nil (rewriting preds.json atomically),
// then appends rec to the ledger (fsynced) and rewrites the exit-status summary. The prediction
// is written first: a crash between the two leaves an instance the ledger does not call finished
// (it runs again), never a finished one without its prediction.
func (d *Dir) Record(rec Record, pred *Prediction) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if pred != nil {
		old, had := d.preds[rec.InstanceID]
		d.preds[rec.InstanceID] = *pred
		if err := d.writePreds(); err != nil {
			if had {
				d.preds[rec.InstanceID] = old
			} else {
				delete(d.preds, rec.InstanceID)
			}
			return err
		}
	}
	if _, err := d.ledger.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("append to %s: %w", LedgerFile, err)
	}
	if err := d.ledger.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", LedgerFile, err)
	}
	d.history[rec.InstanceID] = append(d.history[rec.InstanceID], rec)
	return d.writeExitStatuses()
}

// repairPreds restores the predictions of finished instances that preds.json lacks, from their
// trajectories.
func (d *Dir) repairPreds() error {
	n := 0
	for id, h := range d.history {
		last := h[len(h)-1]
		if _, ok := d.preds[id]; ok || last.Category != CategoryModel {
			continue
		}
		pred, err := predictionFromTrajectory(d.path, last)
		if err != nil {
			d.MissingPreds = append(d.MissingPreds, id)
			continue
		}
		d.preds[id] = pred
		n++
	}
	sort.Strings(d.MissingPreds)
	if n == 0 {
		return nil
	}
	d.RepairedPreds = n
	return d.writePreds()
}

func (d *Dir) writePreds() error {
	data, err := marshalIndent(d.preds)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(d.path, PredsFile), data, 0o644)
}

// ExitStatuses groups instance ids by the exit status of their last attempt, ids sorted.
func (d *Dir) ExitStatuses() map[string][]string {
	by := map[string][]string{}
	for id, h := range d.history {
		st := h[len(h)-1].ExitStatus
		by[st] = append(by[st], id)
	}
	for _, ids := range by {
		sort.Strings(ids)
	}
	return by
}

func (d *Dir) writeExitStatuses() error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(4)
	if err := enc.Encode(map[string]any{"instances_by_exit_status": d.ExitStatuses()}); err != nil {
		return err
	}
	return WriteFileAtomic(d.exitFile, buf.Bytes(), 0o644)
}

// exitStatusesPath names a new exit-status summary of dir, after the current time as
// mini-swe-agent does (exit_statuses_<unix time>.yaml).
func exitStatusesPath(dir string) string {
	return filepath.Join(dir, "exit_statuses_"+strconv.FormatFloat(float64(time.Now().UnixNano())/1e9, 'f', 6, 64)+".yaml")
}

// TrajectoryPath is where the trajectory of id lives.
func (d *Dir) TrajectoryPath(id string) string {
	return filepath.Join(d.path, id, id+".traj.json")
}

// WriteTrajectory writes the trajectory of t.InstanceID atomically.
func (d *Dir) WriteTrajectory(t *Trajectory) error {
	p := d.TrajectoryPath(t.InstanceID)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("trajectory dir: %w", err)
	}
	data, err := marshalIndent(t)
	if err != nil {
		return fmt.Errorf("encode trajectory of %s: %w", t.InstanceID, err)
	}
	return WriteFileAtomic(p, data, 0o644)
}

// WriteJSON writes v as indented JSON to name inside the directory, atomically.
func (d *Dir) WriteJSON(name string, v any) error {
	data, err := marshalIndent(v)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(d.path, name), data, 0o644)
}

// marshalIndent encodes v as indented JSON with a final newline, without escaping <, > and &
// (patches are full of them, and Python's json.dumps leaves them alone).
func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
