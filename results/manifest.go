package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Manifest is <out>/run.json: what a run was made of, so that runs can be checked for
// comparability and a resume can refuse to mix different setups.
type Manifest struct {
	Tool      string          `json:"tool"`
	Version   string          `json:"version"`
	RunID     string          `json:"run_id"`
	Created   time.Time       `json:"created"`
	Updated   time.Time       `json:"updated"`
	Model     string          `json:"model"`
	Dataset   json.RawMessage `json:"dataset"`   // dataset.Manifest: source, files, selection
	Instances int             `json:"instances"` // selected
	Config    map[string]any  `json:"config"`    // resolved, secrets removed
}

// ReadManifest reads <dir>/run.json; a missing file is (nil, nil).
func ReadManifest(dir string) (*Manifest, error) {
	p := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s is not a run manifest (%v); move it away or use a new -o", p, err)
	}
	return &m, nil
}
