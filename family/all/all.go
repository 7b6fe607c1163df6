// Package all is the registry of dataset families: it lists every profile (in the order rows
// are matched against them), looks one up by name, and puts the families' predictions, graders
// and verdict readers behind one function each, for cmd (which wires them into dataset, eval
// and the runner) and for compare and report (which read any family's verdicts through it).
package all

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/family/gym"
	"github.com/swebench-run/swebench-run/family/live"
	"github.com/swebench-run/swebench-run/family/multiswebench"
	"github.com/swebench-run/swebench-run/family/polybench"
	"github.com/swebench-run/swebench-run/family/pro"
	"github.com/swebench-run/swebench-run/family/rebench"
	"github.com/swebench-run/swebench-run/family/rebenchv2"
	"github.com/swebench-run/swebench-run/family/smith"
	"github.com/swebench-run/swebench-run/family/swebench"
	"github.com/swebench-run/swebench-run/results"
)

// Options configure the profiles that need them (grading assets fetched from a harness's
// repository, the options a user sets per family).
type Options struct {
	// AssetCache is the directory grading assets are cached in; "" is swebench-run/assets under
	// the HuggingFace hub cache (dataset.LoadOptions.HubCacheDir).
	AssetCache string
	// Offline uses the asset cache only (also on with HF_HUB_OFFLINE=1, as for datasets).
	Offline bool
	// HTTP downloads assets; nil: a client with timeouts.
	HTTP *http.Client
	// Settings are the families' options (the run config's families section, DecodeSettings);
	// the zero value is every family's defaults.
	Settings Settings
}

// Registry holds every profile.
type Registry struct {
	profiles []family.Profile // in the order rows are matched; SWE-bench last (the default)
}

// New returns the registry of every family.
func New(o Options) *Registry {
	hub := dataset.LoadOptions{Offline: o.Offline}
	if o.AssetCache == "" {
		o.AssetCache = filepath.Join(hub.HubCacheDir(), "swebench-run", "assets")
	}
	assets := &family.AssetStore{Dir: o.AssetCache, Offline: hub.IsOffline(), HTTP: o.HTTP}
	proOpts := o.Settings.Pro
	proOpts.Assets = assets
	return &Registry{profiles: []family.Profile{
		pro.New(proOpts),
		multiswebench.Profile{},
		live.New(o.Settings.Live),
		gym.Profile{},
		rebenchv2.Profile{},
		polybench.Profile{},
		smith.FamilyProfile{},
		rebench.Profile{}, // after SWE-rebench-V2, whose rows have an install_config too
		swebench.Profile{},
	}}
}

// namedOrder is the order the families' named datasets are listed in (swebench-run datasets,
// completions, errors naming them): SWE-bench's first, then the others as they were added.
var namedOrder = []string{swebench.Name, smith.Name, rebenchv2.Name, polybench.Name, rebench.Name, multiswebench.FamilyName, pro.Name, live.Name, gym.Name}

// Named returns the named datasets every family declares (Profile.Datasets), each with its
// family's name, for dataset.LoadOptions.Named: the families of namedOrder first, in that order,
// then any other in the registry's.
func (r *Registry) Named() []dataset.NamedDataset {
	ordered := make([]family.Profile, 0, len(r.profiles))
	for _, n := range namedOrder {
		if p, ok := r.Lookup(n); ok {
			ordered = append(ordered, p)
		}
	}
	for _, p := range r.profiles {
		if !slices.Contains(namedOrder, p.Name()) {
			ordered = append(ordered, p)
		}
	}
	var out []dataset.NamedDataset
	for _, p := range ordered {
		for _, d := range p.Datasets() {
			d.Family = p.Name()
			out = append(out, d)
		}
	}
	return out
}

// Profiles returns every profile, in the order rows are matched against them.
func (r *Registry) Profiles() []family.Profile { return append([]family.Profile(nil), r.profiles...) }

// Families returns the profiles as dataset families, for dataset.LoadOptions.Families.
func (r *Registry) Families() []dataset.Family {
	out := make([]dataset.Family, len(r.profiles))
	for k, p := range r.profiles {
		out[k] = p
	}
	return out
}

// Lookup returns the profile called name; "" (a row no family took) is SWE-bench's.
func (r *Registry) Lookup(name string) (family.Profile, bool) {
	if name == "" {
		name = swebench.Name
	}
	for _, p := range r.profiles {
		if p.Name() == name {
			return p, true
		}
	}
	return nil, false
}

// History is the history guard's layout of inst's family (family.HistoryOf; the default for an
// unknown family).
func (r *Registry) History(inst dataset.Instance) family.History {
	p, ok := r.Lookup(inst.Family)
	if !ok {
		return family.History{}
	}
	return family.HistoryOf(p, inst)
}

// Detect returns the profile of a decoded row, by its columns: the first that matches, else
// SWE-bench's.
func (r *Registry) Detect(inst *dataset.Instance) family.Profile {
	for _, p := range r.profiles {
		if p.Match(inst) {
			return p
		}
	}
	p, _ := r.Lookup(swebench.Name)
	return p
}

// Grader returns the grader of the family called name, for eval.Options.Graders: nil for
// SWE-bench's (eval's built-in grading) and for unknown names.
func (r *Registry) Grader(name string) family.Grader {
	p, ok := r.Lookup(name)
	if !ok {
		return nil
	}
	return p.Grader()
}

// LoadPredictions reads a predictions file: in a family harness's own shape when a profile
// recognises it (SWE-bench Pro's [{instance_id, patch, prefix}]), else in any shape the SWE-bench
// harness and sb-cli accept (eval.LoadPredictions).
func (r *Registry) LoadPredictions(path string) (map[string]family.Prediction, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read predictions: %w", err)
	}
	for _, p := range r.profiles {
		pr, ok := p.(family.PredictionReader)
		if !ok {
			continue
		}
		preds, ok, err := pr.ReadPredictions(path, bytes.TrimPrefix(data, []byte("\ufeff")))
		if err != nil {
			return nil, err
		}
		if ok {
			return preds, nil
		}
	}
	return eval.LoadPredictions(path)
}

// ExportPredictions writes, into outDir, the predictions of every family among insts whose
// harness takes another format than preds.json, each in its harness's input format, and returns
// the files written. preds are the run's predictions by instance id; each family gets those of
// its instances.
func (r *Registry) ExportPredictions(outDir string, insts []dataset.Instance, preds map[string]family.Prediction) ([]string, error) {
	byFamily := map[string][]family.Prediction{}
	for _, inst := range insts {
		if p, ok := preds[inst.InstanceID]; ok {
			name := cmp.Or(inst.Family, swebench.Name)
			byFamily[name] = append(byFamily[name], p)
		}
	}
	names := make([]string, 0, len(byFamily))
	for n := range byFamily {
		names = append(names, n)
	}
	sort.Strings(names)
	var written []string
	for _, n := range names {
		p, ok := r.Lookup(n)
		if !ok {
			continue
		}
		list := byFamily[n]
		sort.Slice(list, func(i, j int) bool { return list[i].InstanceID < list[j].InstanceID })
		file, data, err := p.ExportPredictions(list)
		if err != nil {
			return written, fmt.Errorf("export %s predictions: %w", p.Title(), err)
		}
		if file == "" {
			continue
		}
		path := filepath.Join(outDir, file)
		if err := results.WriteFileAtomic(path, data, 0o644); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// defaults is the registry with default options, for what needs none (verdict readers, ids).
var defaults = sync.OnceValue(func() *Registry { return New(Options{}) })

// Named returns the named datasets of every family (Registry.Named), for what loads a dataset
// without grading it (report's problem statements).
func Named() []dataset.NamedDataset { return defaults().Named() }

// readers are the verdict readers of every family (they need no options).
func readers() []family.ReportReader {
	var out []family.ReportReader
	for _, p := range defaults().profiles {
		if rr := p.Reports(); rr != nil {
			out = append(out, rr)
		}
	}
	return out
}

// ReadEvalFolder reads the verdicts an evaluation folder holds in the formats of the families
// whose verdicts are not SWE-bench's report.json (compare reads those itself): one
// FolderVerdicts per format found, none when dir holds none or does not exist.
func ReadEvalFolder(dir string) ([]family.FolderVerdicts, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var out []family.FolderVerdicts
	// An instance is the first format's that reads it, in the registry's order: readers whose
	// formats look alike (SWE-bench-Live's flat report.json, SWE-smith's) never count an
	// instance twice.
	claimed := map[string]string{}
	for _, rr := range readers() {
		fv, ok, err := rr.ReadEvalFolder(dir)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for id := range fv.Verdicts {
			if _, taken := claimed[id]; taken {
				delete(fv.Verdicts, id)
				continue
			}
			claimed[id] = fv.Format
		}
		if len(fv.Verdicts) > 0 {
			out = append(out, fv)
		}
	}
	return out, nil
}

// ReadReportFile reads a verdict file given on its own in the format of a family's harness
// (SWE-bench Pro's eval_results.json); ok is false when no family's reader takes it.
func ReadReportFile(path string, data []byte) (family.FolderVerdicts, bool, error) {
	for _, rr := range readers() {
		fv, ok, err := rr.ReadReportFile(path, data)
		if err != nil || ok {
			return fv, ok, err
		}
	}
	return family.FolderVerdicts{}, false, nil
}

// RepoOf returns the repository an instance id names in the shape of a family's ids (SWE-bench
// Pro's instance_{owner}__{name}-{commit}-v{…}); ok is false when no family's shape fits.
func RepoOf(id string) (string, bool) {
	for _, p := range defaults().profiles {
		if rn, ok := p.(family.RepoNamer); ok {
			if repo, ok := rn.RepoOf(id); ok {
				return repo, true
			}
		}
	}
	return "", false
}
