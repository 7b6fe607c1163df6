package smith

import (
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/internal/pyre"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// profilesTSV lists SWE-smith's repository profiles (the classes of swesmith/profiles/*.py at
// SWE-bench/SWE-smith@4b9fc1c5, one line each): the key the harness's registry finds a profile
// by, the repository and commit its image and mirror were built from, its test command, log
// parser, timeout and the rules it has for test files and commands.
//
//go:embed profiles.tsv
var profilesTSV string

// Profile is one repository profile of SWE-smith's harness.
type Profile struct {
	Key        string // <owner>__<repo>.<commit[:8]>, the prefix of its instance ids
	Owner      string
	Repo       string
	Commit     string
	Language   string // the profiles module it comes from: python, golang, rust, java, …
	Parser     string // the name of its log parser in this package
	TestCmd    string
	Timeout    time.Duration // for the test run of one evaluation
	MinTesting bool          // evaluation runs only the instance's test files
	// TestFiles is how the profile finds an instance's test files (reverted after the patch is
	// applied, and run when MinTesting): "python" (the part of each test id before "::"),
	// "mido", "python-slugify", "tornado", "go" (the _test.go files defining each test,
	// found in the container) or "" (none).
	TestFiles string
	// TestCmdKind is a profile's own test command rule: "mypy", "babel" or "" (the default).
	TestCmdKind string
}

var profiles = func() map[string]Profile {
	out := map[string]Profile{}
	for n, line := range strings.Split(strings.TrimSuffix(profilesTSV, "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 11 {
			panic(fmt.Sprintf("profiles.tsv line %d: %d fields, want 11", n+1, len(f)))
		}
		timeout, err := strconv.Atoi(f[6])
		if err != nil {
			panic(fmt.Sprintf("profiles.tsv line %d: timeout %q", n+1, f[6]))
		}
		out[f[0]] = Profile{Key: f[0], Owner: f[1], Repo: f[2], Commit: f[3], Language: f[4], Parser: f[5],
			Timeout: time.Duration(timeout) * time.Second, MinTesting: f[7] == "min", TestFiles: f[8],
			TestCmdKind: f[9], TestCmd: f[10]}
	}
	return out
}()

// MirrorOrg is the GitHub organisation of SWE-smith's mirrors; a row's repo column names its
// profile's mirror, "swesmith/<key>".
const MirrorOrg = "swesmith"

// ProfileFor returns the profile of an instance as the harness's registry finds it: by the row's
// repo column (the mirror "swesmith/<key>", or the key), else by the instance id without its last
// ".<suffix>".
func ProfileFor(inst dataset.Instance) (Profile, error) {
	key := inst.Repo
	if key == "" {
		i := strings.LastIndex(inst.InstanceID, ".")
		if i < 0 {
			return Profile{}, fmt.Errorf("SWE-smith instance %q: no repo column and an id without the <owner>__<repo>.<commit>. prefix", inst.InstanceID)
		}
		key = inst.InstanceID[:i]
	}
	key = strings.TrimPrefix(key, MirrorOrg+"/")
	p, ok := profiles[key]
	if !ok {
		return Profile{}, fmt.Errorf("SWE-smith instance %s: no repository profile %q in SWE-smith's harness (%d profiles; see family/smith/profiles.tsv)", inst.InstanceID, key, len(profiles))
	}
	return p, nil
}

// ProfileKeys lists the keys of every profile, sorted.
func ProfileKeys() []string {
	keys := make([]string, 0, len(profiles))
	for k := range profiles {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// HarnessImage is the image the harness evaluates a profile's instances in:
// swebench/swesmith.x86_64.<owner>_1776_<repo>.<commit[:8]>, lower case.
func (p Profile) HarnessImage() string {
	return strings.ToLower(fmt.Sprintf("swebench/swesmith.x86_64.%s_1776_%s.%s", p.Owner, p.Repo, p.Commit[:8]))
}

// Image is the image to run an instance in: the row's image_name when it names a repository on a
// registry ("org/name…"), else the harness's image of the profile (rows of the dataset name a bare
// "swesmith.x86_64.<owner>__<repo>.<commit>", which no registry serves).
func Image(inst dataset.Instance, p Profile) string {
	if strings.Contains(inst.Image, "/") {
		return inst.Image
	}
	return p.HarnessImage()
}

// TestFilesOf returns the F2P and P2P test files of an instance by the profile's rule (nil for
// the "go" rule, whose files are found in the container: see GoTestFilesScript).
func (p Profile) TestFilesOf(f2p, p2p []string) (f2pFiles, p2pFiles []string) {
	switch p.TestFiles {
	case "python":
		return beforeDoubleColon(f2p), beforeDoubleColon(p2p)
	case "mido":
		cut := func(files []string) []string {
			for i, f := range files {
				files[i] = strings.TrimPrefix(f, "../dev/")
			}
			return sortedUnique(files)
		}
		return cut(beforeDoubleColon(f2p)), cut(beforeDoubleColon(p2p))
	case "python-slugify":
		return []string{"test.py"}, []string{"test.py"}
	case "tornado":
		return tornadoFiles(f2p), tornadoFiles(p2p)
	}
	return nil, nil
}

func beforeDoubleColon(tests []string) []string {
	out := make([]string, len(tests))
	for i, t := range tests {
		out[i] = strings.SplitN(t, "::", 2)[0]
	}
	return sortedUnique(out)
}

func sortedUnique(s []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

var tornadoModule = pytext.Re(`\s\((.*)\)`)

// tornadoFiles maps "test_x (tornado.test.web_test.Class)" to tornado/test/web_test.py.
func tornadoFiles(tests []string) []string {
	var out []string
	for _, t := range tests {
		if g := tornadoModule.FindStringSubmatch(t); g != nil {
			parts := strings.Split(g[1], ".")
			out = append(out, strings.Join(parts[:len(parts)-1], "/")+".py")
		}
	}
	return sortedUnique(out) // the harness returns a set: any order
}

var mypyCase = pytext.Re(`\[case ([^\]]+)\]`)

// TestCommand is the command an evaluation runs (the profile's get_test_cmd): the profile's test
// command, followed by the instance's test files when the profile tests minimally; mypy's
// selects the [case …] names of the instance's reference test patch, babel's the packages the
// patch touches.
func (p Profile) TestCommand(f2p, p2p []string, patch, refTestPatch string, hasPatch bool) string {
	switch p.TestCmdKind {
	case "mypy":
		keys := pyre.FindAll(mypyCase, refTestPatch)
		if len(keys) > 1 {
			return p.TestCmd + ` "` + strings.Join(keys, " or ") + `"`
		}
		return p.TestCmd
	case "babel":
		if !hasPatch {
			return p.TestCmd
		}
		var folders []string
		for _, path := range PatchPaths(patch) {
			parts := strings.Split(path, "/")
			if len(parts) >= 2 && parts[0] == "packages" {
				folders = append(folders, strings.Join(parts[:2], "/"))
			}
		}
		return p.TestCmd + " " + strings.Join(folders, " ")
	}
	if p.MinTesting && f2p != nil {
		a, b := p.TestFilesOf(f2p, p2p)
		if files := append(a, b...); len(files) > 0 {
			return p.TestCmd + " " + strings.Join(files, " ")
		}
	}
	return p.TestCmd
}

var diffHeader = regexp.MustCompile(`(?m)^--- (\S+).*\n\+\+\+ (\S+)`)

// PatchPaths are the files a unified diff changes, as unidiff's PatchedFile.path names them: the
// source path without "a/", or the target without "b/" for a new file.
func PatchPaths(patch string) []string {
	var out []string
	for _, g := range diffHeader.FindAllStringSubmatch(patch, -1) {
		src, dst := g[1], g[2]
		switch {
		case strings.HasPrefix(src, "a/") && (strings.HasPrefix(dst, "b/") || dst == "/dev/null"):
			out = append(out, src[2:])
		case strings.HasPrefix(dst, "b/") && src == "/dev/null":
			out = append(out, dst[2:])
		default:
			out = append(out, src)
		}
	}
	return out
}
