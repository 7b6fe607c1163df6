package eval

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/family"
	"github.com/swebench-run/swebench-run/results"
)

// SWE-bench Multimodal rows list in image_assets the binary files of their patch and test_patch
// (rendering baselines such as expected.png) that a text diff cannot carry. The harness downloads
// them, copies them into the container under /image_assets/<path with / → __>, and restores them
// into the working tree just before the test output starts, after the eval script's own reset
// and `git apply`. Evaluate does the same.

const (
	containerAssetDir = "/image_assets"
	// assetFetchTimeout is the harness's timeout of one asset download.
	assetFetchTimeout = 60 * time.Second
	// maxAssetBytes bounds one asset.
	maxAssetBytes = 64 << 20
	assetDirName  = "image_assets" // beside the instance's other files
)

// fetchAsset downloads one asset URL with client (nil: http.DefaultClient).
func fetchAsset(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, assetFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAssetBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxAssetBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB", url, maxAssetBytes>>20)
	}
	return data, nil
}

// stageAssets copies the row's patch and test_patch assets into the container (and into dir, as
// the harness keeps them beside its logs) and returns the commands that restore them into the
// working tree. An asset that cannot be downloaded is skipped with a line in the instance log, as
// the harness does; the error is for failures of the container or of the output directory.
func stageAssets(ctx context.Context, client *http.Client, sb family.Sandbox, inst dataset.Instance, dir string, ilog io.Writer) ([]string, error) {
	a, err := inst.ImageAssets()
	if err != nil {
		return nil, err
	}
	assets := append(append([]dataset.Asset{}, a.TestPatch...), a.Patch...)
	if len(assets) == 0 {
		return nil, nil
	}
	local := filepath.Join(dir, assetDirName)
	if err := os.MkdirAll(local, 0o755); err != nil {
		return nil, err
	}
	if _, _, _, err := sb.Exec(ctx, "mkdir -p "+containerAssetDir, commandTimeout); err != nil {
		return nil, err
	}
	var restore []string
	for _, as := range assets {
		if as.URL == "" {
			fmt.Fprintf(ilog, "No asset for %s at %s\n", inst.InstanceID, as.Path)
			continue
		}
		data, err := fetchAsset(ctx, client, as.URL)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			fmt.Fprintf(ilog, "Could not fetch image asset %s: %v\n", as.URL, err)
			continue
		}
		flat := strings.ReplaceAll(as.Path, "/", "__")
		if err := results.WriteFileAtomic(filepath.Join(local, flat), data, 0o644); err != nil {
			return nil, err
		}
		if err := sb.WriteFile(ctx, path.Join(containerAssetDir, flat), data); err != nil {
			return nil, err
		}
		restore = append(restore, fmt.Sprintf("mkdir -p $(dirname %s) && cp %s/%s %s", as.Path, containerAssetDir, flat, as.Path))
	}
	if len(restore) > 0 {
		fmt.Fprintf(ilog, "Staged %d patch asset(s) for restore after git apply (0 from the local mirror, %d fetched)\n", len(restore), len(restore))
	}
	return restore, nil
}

// injectAssetRestore puts the restore commands just before the line that starts the test output
// (at the end when there is none), as the harness does.
func injectAssetRestore(script string, restore []string) string {
	if len(restore) == 0 {
		return script
	}
	lines := strings.Split(script, "\n")
	for i, l := range lines {
		if strings.Contains(l, MarkerStart) {
			out := append(append(append([]string{}, lines[:i]...), restore...), lines[i:]...)
			return strings.Join(out, "\n")
		}
	}
	return script + "\n" + strings.Join(restore, "\n")
}
