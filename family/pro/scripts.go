package pro

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/swebench-run/swebench-run/family"
)

//go:embed run_scripts.manifest
var manifestData []byte

// ManifestFile is the manifest's path in the repository.
const ManifestFile = "family/pro/run_scripts.manifest"

// Manifest returns the pinned files of the harness's run_scripts/ (run_scripts.manifest), read
// once.
var Manifest = sync.OnceValue(func() *family.AssetManifest {
	m, err := family.ParseAssetManifest(bytes.NewReader(manifestData), ManifestFile)
	if err != nil {
		panic(err) // a broken committed manifest fails every test of this package
	}
	return m
})

// The per-instance files of the harness that grading runs in the container.
const (
	runScriptFile = "run_script.sh"
	parserFile    = "parser.py"
)

// scripts gives the run_script.sh and parser.py of an instance.
type scripts struct {
	store    *family.AssetStore
	dir      string // Options.ScriptsDir
	manifest *family.AssetManifest
}

func newScripts(o Options) *scripts {
	return &scripts{store: o.Assets, dir: o.ScriptsDir, manifest: Manifest()}
}

// check reports why an instance's scripts cannot be had, without reading them.
func (s *scripts) check(id string) error {
	if s.dir != "" {
		for _, name := range []string{runScriptFile, parserFile} {
			p := filepath.Join(s.dir, id, name)
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("instance %s: %s: %w (the scripts folder holds run_scripts/<instance_id>/{%s,%s})", id, p, err, runScriptFile, parserFile)
			}
		}
		return nil
	}
	if s.store == nil {
		return errors.New("no SWE-bench Pro run_scripts: neither an asset store nor a scripts folder")
	}
	for _, name := range []string{runScriptFile, parserFile} {
		if _, ok := s.manifest.Files["run_scripts/"+id+"/"+name]; !ok {
			return fmt.Errorf("instance %s: the harness has no run_scripts/%s/%s at its commit %s (%s); give a folder of run_scripts with the harness's files for it",
				id, id, name, s.manifest.Commit[:12], ManifestFile)
		}
	}
	return nil
}

// read returns one of an instance's scripts.
func (s *scripts) read(ctx context.Context, id, name string) ([]byte, error) {
	if s.dir != "" {
		return os.ReadFile(filepath.Join(s.dir, id, name))
	}
	if err := s.check(id); err != nil {
		return nil, err
	}
	return s.store.Read(ctx, s.manifest, "run_scripts/"+id+"/"+name)
}
