// Command genmanifest writes SWE-bench Pro's run_scripts manifest (family/pro/run_scripts.manifest)
// from a checkout of scaleapi/SWE-bench_Pro-os at the commit to pin: the size and sha256 of every
// run_scripts/<instance_id>/run_script.sh and parser.py. The files themselves are never committed.
//
//	go run ./family/pro/internal/genmanifest -checkout DIR -commit SHA > family/pro/run_scripts.manifest
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swebench-run/swebench-run/family"
)

func main() {
	checkout := flag.String("checkout", "", "a checkout of scaleapi/SWE-bench_Pro-os (or a copy of its run_scripts/ folder's parent)")
	commit := flag.String("commit", "", "the commit the checkout is at (40 hex digits)")
	flag.Parse()
	if err := run(*checkout, *commit); err != nil {
		fmt.Fprintln(os.Stderr, "genmanifest:", err)
		os.Exit(1)
	}
}

func run(checkout, commit string) error {
	if checkout == "" || len(commit) != 40 {
		return fmt.Errorf("want -checkout DIR and -commit SHA (40 hex digits)")
	}
	m := &family.AssetManifest{Repo: "scaleapi/SWE-bench_Pro-os", Commit: commit, Files: map[string]family.AssetFile{}}
	dirs, err := os.ReadDir(filepath.Join(checkout, "run_scripts"))
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		for _, name := range []string{"run_script.sh", "parser.py"} {
			rel := "run_scripts/" + d.Name() + "/" + name
			data, err := os.ReadFile(filepath.Join(checkout, filepath.FromSlash(rel)))
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			m.Files[rel] = family.AssetFile{Path: rel, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
		}
	}
	return m.Write(os.Stdout, []string{
		"SWE-bench Pro's per-instance grading scripts at the pinned commit of its harness repository:",
		"PATH SIZE SHA256 of every run_scripts/<instance_id>/{run_script.sh,parser.py}. The files are",
		"downloaded from https://raw.githubusercontent.com/<repo>/<commit>/<path> on first use and",
		"cached (family.AssetStore); never committed. Made by family/pro/internal/genmanifest.",
	})
}
