// Package audit finds the commands of a trajectory that reach beyond the task's start: git
// history past HEAD and its ancestors, git's own files read by hand, and the project's hosting
// or packages over the network. It is the one scanner every reader of trajectories calls
// (audit, stats, report, compare, submission); it reads no files.
//
// # How a command is read
//
// A command line is parsed as bash parses it, far enough to know which programs run with which
// arguments: quoting ('…', "…", $'…', backslashes), comments, the operators between commands
// (; & && || | |& newlines, parentheses, braces), redirections, here-documents, command
// substitutions, and the scripts handed to bash -c, sh -c and eval (read in turn). Wrappers
// (sudo, env, timeout, nohup, nice, time, xargs, …) and assignments before a program are
// skipped, cd is followed (into a .git directory), and git's global options (-C, -c, --git-dir,
// --no-pager, …) are read before its subcommand. So "cd /testbed && git -c core.pager=cat log
// --all" is git log --all, while text that only mentions git (a here-document written to a
// file, an echo, a grep for "git log --all") is not a command.
//
// # What is flagged
//
// history (ClassHistory): git log, rev-list, shortlog and show with --all, --branches,
// --remotes, --tags, --glob, --reflog or -g; git reflog; git fsck (dangling, unreachable,
// lost-found objects); git cat-file --batch-all-objects; git notes, for-each-ref, show-ref;
// git branch -a/-r, git tag listing, git describe --contains; stash show/apply/pop/list of a
// stash the agent did not make itself; and show, diff, log, checkout, switch, restore, reset,
// cherry-pick, merge, rebase, grep, ls-tree, cat-file, archive, blame of a revision that is not
// the task's. A revision is the task's when it is HEAD or an ancestor written from it (HEAD~2,
// HEAD^, @), the base commit, a commit or tag the problem statement names, a commit an earlier
// unflagged git command of the same trajectory printed (git log's own output: HEAD's
// ancestors), or a version tag not newer than the instance's version. Other branch and remote
// names (main, origin/…, FETCH_HEAD, refs/…), other hashes and the reflog (@{…}) are not.
// Ranges (a..b) are judged by their worst end. A word that could be a path (a file extension,
// a leading ./ or /, a trailing /, a glob) is a path where git would read it as one.
//
// git-internals (ClassGitDir): reading .git/objects, refs, logs, packed-refs, ORIG_HEAD,
// FETCH_HEAD, modules, info, … with cat, head, ls, find, grep, xxd, zlib-flate, python -c
// and the like (or through a < redirection, or after cd .git), walking .git itself with find,
// tree, grep -r, ls -R, and git verify-pack, show-index, unpack-objects. Reading .git/HEAD,
// .git/config or .git/index, or listing .git, shows only the start and is not flagged.
//
// network (ClassNetwork): git fetch, pull, clone, ls-remote, remote update, submodule update
// --remote; GitHub's gh and hub; curl, wget and the like of the project's hosting
// (github.com/OWNER/REPO, raw.githubusercontent.com, api.github.com/repos/OWNER/REPO, codeload,
// gitlab, …; any hosting URL when the project is not known); pip install/download of the project's own
// package from an index (not pip install -e .), npm pack/install of it, go get/install/mod
// download of its module, and registry URLs naming it.
//
// Not flagged, because they read only the past: git log (of HEAD, with -n, --grep, -S, -p,
// --follow), git blame, git show HEAD / HEAD~n / a commit the task names, git diff (of the
// working tree, of HEAD~n), git checkout HEAD~1 -- file, git status, git stash of the agent's
// own work, a range between two past tags.
//
// # Revealed
//
// A flag's Revealed says whether its output could have shown something beyond the start: the
// observation (its rendering removed: mini-swe-agent's <returncode>/<output> tags, OpenHands'
// exit-code lines) has a line that is not an error or progress message, the command exited 0
// or its exit code is unknown, and — for history and .git flags — the run was not behind the
// history guard (environment.history past or none), where those commands can only show the
// start. An empty git log --all, a fatal: from git fetch, curl: (6) Could not resolve host
// are tries, not leaks. The output is the whole command's: a flagged part followed by ls
// counts as revealing when ls printed.
//
// # Limits
//
// Code run from files (a python script written earlier that opens .git/objects), a
// here-document piped into a shell (cat <<EOF | bash) and programs that reach the network on
// their own are not seen; a grep -r of the whole repository reads
// .git too but is not flagged (it is the ordinary way to search the code); a hash the agent
// learned from a flagged command's output stays not the task's; version tags are of unknown
// age when the instance's version is not known, and are not flagged then.
package audit
