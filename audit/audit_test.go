package audit

import (
	"testing"
)

func TestClassify(t *testing.T) {
	task := Task{
		BaseCommit: "bfd2593d4b416122e30cdefe0500fb6d3ee21b23",
		Text:       "TimeDelta serialization precision broke in 3.0.0 (see commit 1a2b3c4d); compare with v2.9.0.",
		Repo:       "marshmallow-code/marshmallow",
		Version:    "3.0",
	}
	tests := []struct {
		cmd  string
		want Class
	}{
		// history beyond HEAD's ancestry
		{"git log --all --oneline", ClassHistory},
		{"cd /testbed && git log --all -S 'functionName' -- src/", ClassHistory},
		{`git log --all --grep="L031" -p | head -200`, ClassHistory},
		{"git -C /testbed --no-pager log --branches", ClassHistory},
		{"git -c core.pager=cat log --remotes=origin", ClassHistory},
		{"git log --tags --simplify-by-decoration", ClassHistory},
		{"git log -g", ClassHistory},
		{"git reflog", ClassHistory},
		{"git reflog show --all", ClassHistory},
		{"git fsck --lost-found", ClassHistory},
		{"git fsck --unreachable --no-reflogs", ClassHistory},
		{"git cat-file --batch-all-objects --batch-check", ClassHistory},
		{"git show 9f2a1c7e", ClassHistory},
		{"git show a4aeb26a7c154a0c1da321848922b448ff34bbb2:src/file.ts", ClassHistory},
		{"git diff HEAD origin/main", ClassHistory},
		{"git diff main -- src/", ClassHistory},
		{"git checkout 5e3c2f1a", ClassHistory},
		{"git checkout main", ClassHistory},
		{"git cherry-pick deadbee1", ClassHistory},
		{"git log HEAD..origin/master", ClassHistory},
		{"git show HEAD@{1}", ClassHistory},
		{"git branch -a", ClassHistory},
		{"git tag", ClassHistory},
		{"git tag -l 'v3*'", ClassHistory},
		{"git stash list", ClassHistory},
		{"git for-each-ref", ClassHistory},
		{"git rev-list --all | head", ClassHistory},
		{"git log v4.0.0", ClassHistory},
		{"bash -c 'git log --all --oneline | grep fix'", ClassHistory},
		{"sh -c \"cd /testbed; git log --reflog\"", ClassHistory},
		{"eval git log --all", ClassHistory},
		{"timeout 10 git log --all", ClassHistory},
		{"echo $(git log --all --format=%H | head -1)", ClassHistory},
		{"git restore --source=origin/main src/x.py", ClassHistory},
		{"bash <<'EOF'\ngit log --all\nEOF", ClassHistory},
		// .git internals
		{"cat .git/packed-refs", ClassGitDir},
		{"ls .git/refs/remotes/origin", ClassGitDir},
		{"find .git/objects -type f | head", ClassGitDir},
		{"find /testbed/.git -name '*.pack'", ClassGitDir},
		{"cd .git && cat ORIG_HEAD", ClassGitDir},
		{"cd /testbed/.git; ls logs/refs", ClassGitDir},
		{"grep -r fix .git", ClassGitDir},
		{"zlib-flate -uncompress < .git/objects/ab/cdef0123", ClassGitDir},
		{`python3 -c "import zlib;print(zlib.decompress(open('.git/objects/ab/cd','rb').read()))"`, ClassGitDir},
		{"git verify-pack -v .git/objects/pack/pack-1.idx", ClassGitDir},
		{"tail .git/logs/HEAD", ClassGitDir},
		// network
		{"git fetch origin", ClassNetwork},
		{"git pull", ClassNetwork},
		{"git clone https://github.com/marshmallow-code/marshmallow /tmp/m", ClassNetwork},
		{"git ls-remote origin", ClassNetwork},
		{"curl -sL https://github.com/marshmallow-code/marshmallow/pull/1234.diff", ClassNetwork},
		{"curl https://raw.githubusercontent.com/marshmallow-code/marshmallow/dev/src/marshmallow/fields.py", ClassNetwork},
		{"wget -qO- 'https://api.github.com/repos/marshmallow-code/marshmallow/commits?path=src'", ClassNetwork},
		{"pip download marshmallow==3.20.0", ClassNetwork},
		{"pip install -U marshmallow", ClassNetwork},
		{"python -m pip install 'marshmallow>=3.1'", ClassNetwork},
		{"pip install git+https://github.com/marshmallow-code/marshmallow.git", ClassNetwork},
		{"npm pack marshmallow", ClassNetwork},
		{"gh pr view 1234 --repo marshmallow-code/marshmallow", ClassNetwork},
		{"gh api repos/marshmallow-code/marshmallow/pulls/1234/files", ClassNetwork},
		{"git log origin --oneline", ClassHistory},
		{"git diff upstream/dev", ClassHistory},
		{"curl -s https://pypi.org/pypi/marshmallow/json", ClassNetwork},
		{`python -c "import urllib.request as u; print(u.urlopen('https://raw.githubusercontent.com/marshmallow-code/marshmallow/dev/x.py').read())"`, ClassNetwork},
		// reading only the past, or nothing of git
		{"git log -n 5", ""},
		{"git log --oneline -5", ""},
		{"git log", ""},
		{"git log -p src/marshmallow/fields.py", ""},
		{"git log --grep=TimeDelta --oneline", ""},
		{"git log -S precision -- src/", ""},
		{"git blame src/marshmallow/fields.py", ""},
		{"git show HEAD", ""},
		{"git show HEAD~3:src/marshmallow/fields.py", ""},
		{"git show --stat", ""},
		{"git show 1a2b3c4d", ""},       // named in the task
		{"git show bfd2593d", ""},       // the base commit
		{"git diff v2.9.0..v3.0.0", ""}, // two past tags
		{"git log v2.9.0..HEAD", ""},    // a tag the task names
		{"git checkout HEAD~1 -- src/marshmallow/fields.py", ""},
		{"git checkout src/marshmallow/fields.py", ""},
		{"git checkout -- .", ""},
		{"git checkout -b fix", ""},
		{"git diff", ""},
		{"git diff HEAD~1", ""},
		{"git diff --cached", ""},
		{"git diff src/marshmallow/fields.py > patch.txt", ""},
		{"git status", ""},
		{"git stash", ""},
		{"git branch", ""},
		{"git remote -v", ""},
		{"git add -A && git diff --cached", ""},
		{"cat .git/HEAD", ""},
		{"ls -la .git", ""},
		{"cat .git/config", ""},
		{"grep -rn 'git log --all' .", ""},
		{"echo 'git log --all'", ""},
		{"cat > notes.md <<'EOF'\nrun git log --all and curl https://github.com/marshmallow-code/marshmallow\nEOF", ""},
		{"pip install -e .", ""},
		{"pip install pytest simplejson", ""},
		{"curl https://example.com/data.json", ""},
		{"curl -sL https://github.com/python/cpython/raw/main/Lib/json/__init__.py", ""}, // another project
		{"find . -name '*.py' | xargs grep -l TimeDelta", ""},
		{"python reproduce.py", ""},
		{"gh --version", ""},
		{"git log --format=%H -n 3", ""},
		{"git log -p -n 2 -- src/marshmallow/fields.py", ""},
		{"git grep -n TimeDelta HEAD~1 -- src", ""},
		{"git show HEAD --stat --format=%B", ""},
		{"git rev-parse HEAD", ""},
		{"git config --get remote.origin.url", ""},
		{"git ls-files | head", ""},
		{"git log --oneline v2.9.0..v2.9.1 2>/dev/null || git log --oneline e36b4388^..e36b4388", ClassHistory}, // e36b4388 unknown
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			got, why := Classify(tt.cmd, task)
			if got != tt.want {
				t.Errorf("Classify(%q) = %q (%s), want %q", tt.cmd, got, why, tt.want)
			}
		})
	}
}

func TestScanLearnsPastCommits(t *testing.T) {
	// A hash that git log of HEAD printed is an ancestor: showing it reads the past. One only
	// git log --all printed is not.
	steps := []Step{
		{Step: 1, Command: "git log --oneline -3", Output: "<returncode>0</returncode>\n<output>\n66557412 Fix namespace\n1b2c3d4e Bump\n</output>"},
		{Step: 2, Command: "git show 66557412", Output: "<returncode>0</returncode>\n<output>\ncommit 66557412…\n</output>"},
		{Step: 3, Command: "git log --all --oneline | head -1", Output: "<returncode>0</returncode>\n<output>\nabcdef12 Fix the bug for real\n</output>"},
		{Step: 4, Command: "git show abcdef12", Output: "<returncode>0</returncode>\n<output>\ndiff --git a/x b/x\n</output>"},
	}
	got := Scan("x__y-1", Task{}, steps)
	if len(got) != 2 || got[0].Step != 3 || got[1].Step != 4 || got[0].Class != ClassHistory || !got[0].Revealed || !got[1].Revealed {
		t.Fatalf("Scan = %+v, want steps 3 and 4 flagged history, revealed", got)
	}
}

func TestScanStashOfItsOwn(t *testing.T) {
	steps := []Step{{Step: 1, Command: "git stash"}, {Step: 2, Command: "git stash pop"}}
	if got := Scan("i", Task{}, steps); len(got) != 0 {
		t.Errorf("the agent's own stash: flags %+v, want none", got)
	}
	if got := Scan("i", Task{}, steps[1:]); len(got) != 1 {
		t.Errorf("a stash the agent did not make: flags %+v, want one", got)
	}
}

func TestRevealed(t *testing.T) {
	tests := []struct {
		name   string
		output string
		exit   int
		has    bool
		want   bool
	}{
		{"mini output", "<returncode>0</returncode>\n<output>\nabc123 Fix the bug\n</output>", 0, false, true},
		{"empty git log --all", "<returncode>0</returncode>\n<output>\n</output>", 0, false, false},
		{"fatal from fetch", "<returncode>128</returncode>\n<output>\nfatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com\n</output>", 0, false, false},
		{"curl without network", "curl: (6) Could not resolve host: github.com", 6, true, false},
		{"exit code known, non-zero", "some text", 1, true, false},
		{"swe-agent, no code", "commit a4aeb26a\nAuthor: x", 0, false, true},
		{"openhands trailer", "a4aeb26 Log if no protocol\n[The command completed with exit code 0.]", 0, false, true},
		{"openhands trailer only", "\n[The command completed with exit code 0.]\n[Current working directory: /workspace]", 0, false, false},
		{"openhands failed", "fatal: not a git repository\n[The command completed with exit code 128.]", 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Revealed(tt.output, tt.exit, tt.has); got != tt.want {
				t.Errorf("Revealed(%q) = %v, want %v", tt.output, got, tt.want)
			}
		})
	}
}

func TestGuardedRunRevealsNoHistory(t *testing.T) {
	steps := []Step{
		{Step: 1, Command: "git log --all --oneline", Output: "<returncode>0</returncode>\n<output>\nbfd2593 start\n</output>"},
		{Step: 2, Command: "curl https://github.com/o/r/pull/1.diff", Output: "<returncode>0</returncode>\n<output>\ndiff --git\n</output>"},
	}
	for _, mode := range []string{HistoryPast, HistoryNone} {
		got := Scan("i", Task{Repo: "o/r", History: mode}, steps)
		if len(got) != 2 || got[0].Revealed || !got[1].Revealed {
			t.Errorf("history %s: %+v, want the history flag not revealed, the network one revealed", mode, got)
		}
	}
	got := Scan("i", Task{Repo: "o/r", History: HistoryAsIs}, steps)
	if len(got) != 2 || !got[0].Revealed {
		t.Errorf("history as-is: %+v, want the history flag revealed", got)
	}
}
