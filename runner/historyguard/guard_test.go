package historyguard_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/family/smith"
	"github.com/swebench-run/swebench-run/runner/historyguard"
	"github.com/swebench-run/swebench-run/sandbox"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// plantedFamilies are the images of scripts/build-planted-image.sh (make planted-images): each
// family's demo instance with its fix in every hiding place of the repository.
var plantedFamilies = []struct {
	family, repo string
	preAgent     []string // the family's commands before the agent (as its profile prepares them)
	pastIsAnswer bool
}{
	{family: "swebench", repo: "/testbed"},
	{family: "pro", repo: "/app"},
	{family: "msb", repo: "/home/jq", preAgent: []string{"rm -f /home/fix.patch /home/test.patch"}},
	{family: "live", repo: "/testbed"},
	{family: "gym", repo: "/testbed"},
	{family: "rebench-v2", repo: "/tallykit"},
	{family: "polybench", repo: "/repo"},
	{family: "smith", repo: smith.Workdir, preAgent: []string{smith.AgentStart("mewwts__addict.75284f95.func_pm_op_swap__demo1")}, pastIsAnswer: true},
}

type box struct {
	t  *testing.T
	sb sandbox.Sandbox
}

// sh runs command in the sandbox and returns its output; ok is its exit status being 0.
func (b box) sh(command string) (string, bool) {
	b.t.Helper()
	res, err := b.sb.Exec(context.Background(), command, sandbox.ExecOptions{Timeout: time.Minute, Interpreter: []string{"bash", "-c"}, MaxOutput: 8 << 20})
	if err != nil {
		b.t.Fatalf("%s: %v", command, err)
	}
	return res.Output, res.ExitCode == 0
}

func (b box) must(command string) string {
	b.t.Helper()
	out, ok := b.sh(command)
	if !ok {
		b.t.Fatalf("%s failed: %s", command, out)
	}
	return out
}

// The guard on every family's planted image, with each mode: behind past and none no git command
// and no object in .git reaches the fix; the working tree, the index and what git status and git
// diff say are unchanged; HEAD is the start (past: with its ancestors); as-is leaves it all.
func TestGuardOnPlantedImages(t *testing.T) {
	engine := testenv.Docker(t)
	rnd := make([]byte, 4)
	rand.Read(rnd)
	runID := "test-historyguard-" + hex.EncodeToString(rnd)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		engine.Sweep(ctx, sandbox.Selector{RunID: runID})
	})
	for _, fam := range plantedFamilies {
		image := "swebench-run-planted/" + fam.family + ":1"
		for _, mode := range historyguard.Modes {
			t.Run(fam.family+"/"+mode, func(t *testing.T) {
				testenv.RequireImage(t, engine, image)
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				sb, err := engine.Start(ctx, sandbox.Spec{Image: image, RunID: runID, InstanceID: fam.family + "-" + mode, Role: "agent",
					Cwd: fam.repo, Limits: sandbox.Limits{NetworkMode: "none"}})
				t.Cleanup(func() {
					if sb != nil {
						sb.Remove(context.Background())
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				b := box{t, sb}
				for _, c := range fam.preAgent {
					b.must(c)
				}
				// A change of the agent's kind in the work tree and the index: they must stay.
				b.must("echo 'untracked by the image' > guard-untracked.txt && echo staged > guard-staged.txt && git add guard-staged.txt && echo '# edited' >> \"$(git ls-files | head -n1)\"")
				state := "git status --porcelain=v1 --untracked-files=all --ignored; git diff --binary; git diff --cached --binary"
				before := b.must(state)
				head := strings.TrimSpace(b.must("git rev-parse HEAD"))
				ancestors := b.must("git rev-list HEAD")
				headTree := b.must("git rev-parse HEAD^{tree}")
				fixObjects := strings.Fields(b.must("cat /planted/fix-objects"))
				if len(fixObjects) < 10 {
					t.Fatalf("the image lists %d fix objects: rebuild it (scripts/build-planted-image.sh --force)", len(fixObjects))
				}

				res, err := historyguard.Run(ctx, sb, mode, historyguard.Layout{Repo: fam.repo, PastIsAnswer: fam.pastIsAnswer})
				if err != nil {
					t.Fatal(err)
				}
				if res.Mode != mode || res.Seconds <= 0 && mode != historyguard.AsIs {
					t.Errorf("result %+v", res)
				}
				if after := b.must(state); after != before {
					t.Errorf("git status or git diff changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
				present := 0
				for _, o := range fixObjects {
					if _, ok := b.sh("git cat-file -e " + o); ok {
						present++
					}
				}
				if mode == historyguard.AsIs {
					if present != len(fixObjects) {
						t.Errorf("as-is: %d of %d fix objects left", present, len(fixObjects))
					}
					return
				}
				if present != 0 {
					t.Errorf("%d of %d fix objects are still readable", present, len(fixObjects))
				}
				if res.Head != head {
					t.Errorf("guard says HEAD was %s, it was %s", res.Head, head)
				}
				all := b.must("git log --all --format=%H")
				switch {
				case mode == historyguard.Past && !fam.pastIsAnswer:
					if res.Start != head || all != ancestors {
						t.Errorf("past: start %s (HEAD %s), git log --all:\n%s\nwant HEAD's ancestors:\n%s", res.Start, head, all, ancestors)
					}
				default: // none, and past where the past is the answer
					if strings.TrimSpace(all) != res.Start || res.Applied != historyguard.None {
						t.Errorf("%s: git log --all is %q, want the one root commit %s (applied %s)", mode, all, res.Start, res.Applied)
					}
					if tree := b.must("git rev-parse HEAD^{tree}"); tree != headTree {
						t.Errorf("the root commit's tree is %s, HEAD's was %s", tree, headTree)
					}
				}
				lines := b.must("cat /planted/fix-lines")
				if strings.TrimSpace(lines) != "" {
					if out, ok := b.sh("git cat-file --batch-all-objects --batch | grep -a -F -f /planted/fix-lines"); ok {
						t.Errorf("an object holds the fix:\n%.2000s", out)
					}
				}
				for _, c := range []string{"git fsck --unreachable --lost-found --no-progress 2>/dev/null", "git branch -r", "git tag", "git stash list", "git notes list",
					"git remote", "git reflog 2>/dev/null", "git for-each-ref --format='%(refname)' | grep -v '^refs/heads/'", "cat .git/packed-refs .git/ORIG_HEAD .git/FETCH_HEAD .git/objects/info/alternates 2>/dev/null",
					"ls .git/rr-cache .git/logs .git/lost-found 2>/dev/null"} {
					if out, _ := b.sh(c); strings.TrimSpace(out) != "" {
						t.Errorf("%s shows:\n%s", c, out)
					}
				}
				if out := b.must("git for-each-ref --format='%(refname)' refs/heads"); len(strings.Fields(out)) > 1 {
					t.Errorf("branches left: %s", out)
				}
				if fam.pastIsAnswer {
					if out, ok := b.sh("git diff HEAD~1 --stat; git diff HEAD~2 --stat"); ok {
						t.Errorf("git diff HEAD~1/HEAD~2 answer:\n%s", out)
					}
				}
			})
		}
	}
}

// A submodule's repository (.git/modules) is guarded too, and the superproject's status stays
// (none keeps the submodule at the commit the superproject records, made shallow); a directory
// without .git is said to hold no repository.
func TestGuardSubmoduleAndNoRepository(t *testing.T) {
	engine := testenv.Docker(t)
	testenv.RequireImage(t, engine, testenv.BaseImage)
	rnd := make([]byte, 4)
	rand.Read(rnd)
	runID := "test-historyguard-" + hex.EncodeToString(rnd)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		engine.Sweep(ctx, sandbox.Selector{RunID: runID})
	})
	setup := `set -e
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@a GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@a
git config --global protocol.file.allow always
mkdir -p /src/lib && cd /src/lib && git init -q -b main && echo 1 > l && git add l && git commit -qm l1
echo 2 > l && git commit -qam "the future of the submodule" && git branch future && git reset -q --hard HEAD~1
mkdir -p /testbed && cd /testbed && git init -q -b main && echo a > a && git add a && git submodule add -q /src/lib lib && git commit -qm super
git -C lib fetch -q origin future && echo edit >> a && mkdir -p /empty`
	for _, mode := range []string{historyguard.Past, historyguard.None} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			sb, err := engine.Start(ctx, sandbox.Spec{Image: testenv.BaseImage, RunID: runID, InstanceID: "submodule-" + mode, Role: "agent",
				Cwd: "/", Limits: sandbox.Limits{NetworkMode: "none"}})
			t.Cleanup(func() {
				if sb != nil {
					sb.Remove(context.Background())
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			b := box{t, sb}
			b.must(setup)
			state := "cd /testbed && git status --porcelain && git diff && git submodule status"
			before := b.must(state)
			lib := strings.TrimSpace(b.must("git -C /testbed/lib rev-parse HEAD"))
			res, err := historyguard.Run(ctx, sb, mode, historyguard.Layout{Repo: "/testbed"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Submodules != 1 {
				t.Errorf("guarded %d submodules, want 1", res.Submodules)
			}
			if after := b.must(state); after != before {
				t.Errorf("status changed:\n%s\nwant\n%s", after, before)
			}
			if all := strings.TrimSpace(b.must("git -C /testbed/lib log --all --format=%H")); all != lib {
				t.Errorf("the submodule's git log --all is %q, want its HEAD %s only", all, lib)
			}
			if out, _ := b.sh("git -C /testbed/lib cat-file --batch-all-objects --batch | grep -a 'the future'"); out != "" {
				t.Errorf("the submodule keeps the future: %s", out)
			}
			res, err = historyguard.Run(ctx, sb, mode, historyguard.Layout{Repo: "/empty"})
			if err != nil || res.Applied != historyguard.NoRepository {
				t.Errorf("a directory without .git: %+v, %v", res, err)
			}
		})
	}
}
