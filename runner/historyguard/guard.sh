# The history guard (package historyguard): run by sh inside an instance's sandbox, after the
# family's start-up commands and before the agent's first command, with the image's own git.
#
#   GUARD_REPO   the repository's working directory (the instance's working directory)
#   GUARD_MODE   past (HEAD and its ancestors stay) or none (one root commit of HEAD's tree)
#
# It keeps the working tree, the index and what `git status` and `git diff` say; it removes
# every ref but HEAD's branch, every remote, every reflog, the alternates, git's caches and state
# files, and every object that HEAD (its ancestors with past) and the index do not reach: the
# object store is rebuilt from those alone. Submodules' repositories under .git/modules get the
# same. The last line it prints is `guard: ok …` or `guard: no-repository …`; anything else, or
# a non-zero exit, is a failure.
set -u
umask 022
LC_ALL=C
export LC_ALL
GIT_OPTIONAL_LOCKS=0
export GIT_OPTIONAL_LOCKS
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_COMMON_DIR GIT_NAMESPACE GIT_REPLACE_REF_BASE GIT_GRAFT_FILE GIT_SHALLOW_FILE GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT
GIT_NO_REPLACE_OBJECTS=1
export GIT_NO_REPLACE_OBJECTS
# Fixed identity and dates: the root commit of `none` is the same for the same tree.
GIT_AUTHOR_NAME=swebench-run GIT_AUTHOR_EMAIL=history-guard@swebench-run.invalid
GIT_COMMITTER_NAME=swebench-run GIT_COMMITTER_EMAIL=history-guard@swebench-run.invalid
GIT_AUTHOR_DATE='1970-01-01T00:00:00Z' GIT_COMMITTER_DATE='1970-01-01T00:00:00Z'
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE

fail() {
	echo "guard: failed: $*"
	exit 1
}

repo=${GUARD_REPO:-}
mode=${GUARD_MODE:-past}
case $mode in past | none) ;; *) fail "mode $mode: want past or none" ;; esac
[ -n "$repo" ] || fail "no repository directory given"

if [ ! -d "$repo" ]; then
	echo "guard: no-repository dir=$repo reason=no-directory"
	exit 0
fi
cd "$repo" || fail "cd $repo"
if [ ! -e .git ]; then
	echo "guard: no-repository dir=$repo reason=no-.git"
	exit 0
fi
command -v git >/dev/null 2>&1 || fail "$repo/.git exists but the image has no git to guard it with"

# state: what the agent sees of the working tree and index, as one checksum.
state() {
	{
		git status --porcelain=v1 -z --untracked-files=all --ignored=traditional || echo status-failed
		git diff --binary --no-ext-diff --no-textconv || echo diff-failed
		git diff --cached --binary --no-ext-diff --no-textconv || echo diff-cached-failed
	} 2>&1 | cksum
}

# clean_gitdir GITDIR: removes what the files of GITDIR hold besides the objects, the index, the
# config and HEAD's branch.
clean_gitdir() {
	g=$1
	rm -rf "$g/logs" "$g/rr-cache" "$g/lost-found" "$g/worktrees" "$g/rebase-merge" "$g/rebase-apply" \
		"$g/sequencer" "$g/info/refs" "$g/info/grafts" "$g/shallow.lock" "$g/refs/original" || return 1
	for f in "$g"/*_HEAD "$g"/BISECT_* "$g"/MERGE_MSG "$g"/MERGE_MODE "$g"/MERGE_RR "$g"/AUTO_MERGE "$g"/SQUASH_MSG \
		"$g"/COMMIT_EDITMSG "$g"/TAG_EDITMSG "$g"/NOTES_EDITMSG "$g"/gc.log "$g"/gc.pid "$g"/FETCH_HEAD "$g"/ORIG_HEAD; do
		[ -e "$f" ] || continue
		rm -rf "$f" || return 1
	done
	return 0
}

# guard_repo GITDIR WORKTREE: guards one repository (WORKTREE "" for one without a work tree).
guard_repo() {
	GIT_DIR=$1
	export GIT_DIR
	if [ -n "$2" ]; then
		GIT_WORK_TREE=$2
		export GIT_WORK_TREE
	else
		unset GIT_WORK_TREE
	fi
	[ "$(git rev-parse --git-common-dir 2>/dev/null)" = "$(git rev-parse --git-dir 2>/dev/null)" ] ||
		fail "$GIT_DIR is a linked work tree of another repository"
	case $(git config --get extensions.refstorage 2>/dev/null) in "" | files) ;; *) fail "$GIT_DIR: ref storage $(git config --get extensions.refstorage) is not supported" ;; esac
	objects=$GIT_DIR/objects

	before=""
	[ -n "$2" ] && before=$(state)
	head=$(git rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null) || head=""
	branch=$(git symbolic-ref -q HEAD 2>/dev/null) || branch=""
	case $branch in "" | refs/heads/*) ;; *) fail "HEAD points at $branch, not a branch" ;; esac

	# Grafts (deprecated, still read) could give HEAD a parent it does not have: gone first.
	rm -f "$GIT_DIR/info/grafts" || fail "rm info/grafts"

	# The starting commit: HEAD, or with none (or a layout whose past is the answer) a root
	# commit of HEAD's tree.
	start=$head
	rm -f "$GIT_DIR/shallow.new"
	if [ -n "$head" ] && [ "$mode" = none ] && [ "$3" = shallow ]; then
		# A submodule: its commit is the one the superproject records, made shallow.
		echo "$head" >"$GIT_DIR/shallow" || fail "write shallow"
	elif [ -n "$head" ] && [ "$mode" = none ]; then
		tree=$(git rev-parse --verify "$head^{tree}") || fail "HEAD's tree"
		start=$(echo "The task's starting state (history removed by swebench-run's history guard)" | git commit-tree "$tree") || fail "git commit-tree"
	fi

	# The object store rebuilt: one pack of what the start and the index reach, read through
	# alternates and every pack; then nothing else is left in objects/.
	tmp=$GIT_DIR/guard-tmp.$$
	rm -rf "$tmp" && mkdir -p "$tmp" || fail "mkdir $tmp"
	if [ -n "$start" ]; then
		echo "$start"
	fi | git pack-objects --revs --indexed-objects --window=0 -q "$tmp/pack" >"$tmp/name" 2>"$tmp/err" ||
		fail "git pack-objects: $(head -c 2000 "$tmp/err")"
	# Old objects out: loose directories, every pack and its companions, alternates, caches.
	# Files are removed, never a directory that is then made again: on some overlay file
	# systems (fuse-overlayfs) a directory removed and made again shows the image's layer below.
	mkdir -p "$objects/pack" "$objects/info" || fail "mkdir $objects/pack"
	find "$objects" -mindepth 1 -maxdepth 1 ! -name pack ! -name info -exec rm -rf {} + || fail "emptying $objects"
	find "$objects/pack" "$objects/info" -mindepth 1 -maxdepth 1 -exec rm -rf {} + || fail "emptying $objects"
	if [ -s "$tmp/name" ]; then
		n=$(head -n1 "$tmp/name")
		for ext in pack idx rev; do
			[ -e "$tmp/pack-$n.$ext" ] && { mv "$tmp/pack-$n.$ext" "$objects/pack/" || fail "mv pack"; }
		done
	fi
	rm -rf "$tmp"

	# Refs: only HEAD's branch (at the start), or a detached HEAD.
	clean_gitdir "$GIT_DIR" || fail "cleaning $GIT_DIR"
	rm -f "$GIT_DIR/packed-refs" || fail "rm packed-refs"
	mkdir -p "$GIT_DIR/refs/heads" "$GIT_DIR/refs/tags" || fail "mkdir refs"
	find "$GIT_DIR/refs" -mindepth 1 ! -type d -exec rm -f {} + || fail "rm refs"
	find "$GIT_DIR/refs" -mindepth 1 -depth -type d -empty ! -path "$GIT_DIR/refs/heads" ! -path "$GIT_DIR/refs/tags" -exec rmdir {} + 2>/dev/null
	if [ -n "$start" ]; then
		if [ -n "$branch" ]; then
			mkdir -p "$GIT_DIR/${branch%/*}" && echo "$start" >"$GIT_DIR/$branch" || fail "write $branch"
		else
			echo "$start" >"$GIT_DIR/HEAD" || fail "write HEAD"
		fi
	fi
	# Remotes and what names them.
	for r in $(git config --name-only --get-regexp '^remote\.' 2>/dev/null | sed -n 's/^remote\.\(.*\)\.[^.]*$/\1/p' | sort -u); do
		git config --remove-section "remote.$r" 2>/dev/null
	done
	for k in $(git config --name-only --get-regexp '^branch\..*\.(remote|merge|pushremote)$' 2>/dev/null); do
		git config --unset-all "$k" 2>/dev/null
	done
	git config --unset-all extensions.partialclone 2>/dev/null
	git config --unset-all core.alternateRefsCommand 2>/dev/null
	git config --unset-all core.alternateRefsPrefixes 2>/dev/null
	git config --remove-section notes 2>/dev/null
	# A shallow boundary that is gone goes too.
	if [ -f "$GIT_DIR/shallow" ]; then
		while read -r c; do git cat-file -e "$c^{commit}" 2>/dev/null && echo "$c"; done <"$GIT_DIR/shallow" >"$GIT_DIR/shallow.new"
		if [ -s "$GIT_DIR/shallow.new" ]; then mv "$GIT_DIR/shallow.new" "$GIT_DIR/shallow"; else rm -f "$GIT_DIR/shallow.new" "$GIT_DIR/shallow"; fi
	fi

	# Checks: the start and the index are whole, and nothing the agent sees changed.
	if [ -n "$start" ]; then
		[ "$(git rev-parse -q --verify 'HEAD^{commit}')" = "$start" ] || fail "HEAD is not the start after the guard"
		git cat-file -e "$start^{tree}" || fail "the start's tree is missing"
	fi
	if [ -n "$2" ]; then
		missing=$(git ls-files -s | awk '$1 != "160000" { print $2 }' | git cat-file --batch-check | grep -c ' missing$')
		[ "$missing" = 0 ] || fail "$missing objects of the index are missing"
		after=$(state)
		[ "$before" = "$after" ] || fail "git status or git diff changed"
	fi
	echo "$GIT_DIR ${head:-unborn} ${start:-unborn}" >>"$report"
	return 0
}

gitdir=$(git rev-parse --git-dir 2>/dev/null) && gitdir=$(cd "$gitdir" && pwd -P) || fail "$repo/.git is not a repository git can read"
top=$(git rev-parse --show-toplevel 2>/dev/null) || fail "no work tree at $repo"
report=$(mktemp 2>/dev/null || echo "/tmp/guard-report.$$")
: >"$report"

# Submodules' repositories first (their git dirs live under the superproject's modules/).
if [ -d "$gitdir/modules" ]; then
	find "$gitdir/modules" -name HEAD -type f 2>/dev/null | while read -r h; do
		d=${h%/HEAD}
		[ -d "$d/objects" ] || continue
		wt=$(GIT_DIR=$d git config --get core.worktree 2>/dev/null) || wt=""
		if [ -n "$wt" ]; then
			case $wt in /*) ;; *) wt=$d/$wt ;; esac
			[ -d "$wt" ] && wt=$(cd "$wt" && pwd -P) || wt=""
		fi
		(guard_repo "$d" "$wt" shallow) || exit 1
	done || fail "a submodule's repository"
fi
(guard_repo "$gitdir" "$top" root) || exit 1
subs=$(($(wc -l <"$report") - 1))
set -- $(tail -n1 "$report")
rm -f "$report"
echo "guard: ok dir=$top mode=$mode head=$2 start=$3 submodules=$subs"
