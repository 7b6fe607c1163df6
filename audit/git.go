package audit

import (
	"regexp"
	"strconv"
	"strings"
)

// gitCall is a git invocation: its subcommand and the arguments after it, global options read.
type gitCall struct {
	sub  string
	args []string
	dir  string // -C or --git-dir, when given
}

// parseGit reads git's global options (-C, -c, --git-dir, --work-tree, --no-pager, …).
func parseGit(args []string) (gitCall, bool) {
	var g gitCall
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--exec-path" || a == "--config-env":
			if i+1 < len(args) && (a == "-C" || a == "--git-dir") {
				g.dir = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "--git-dir="):
			g.dir = strings.TrimPrefix(a, "--git-dir=")
		case strings.HasPrefix(a, "-"):
			// --no-pager, -p, --paginate, --bare, --work-tree=…, --literal-pathspecs, …
		default:
			g.sub, g.args = a, args[i+1:]
			return g, true
		}
	}
	return g, false
}

var (
	hexRe     = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)
	versionRe = regexp.MustCompile(`^v?(\d+(?:\.\d+)+)(?:[-._]?[A-Za-z0-9]+)*$`)
	// Names that are refs, never paths, whatever the repository holds.
	refNames = map[string]bool{"main": true, "master": true, "develop": true, "dev": true, "trunk": true, "stable": true,
		"origin": true, "upstream": true, "FETCH_HEAD": true, "ORIG_HEAD": true, "MERGE_HEAD": true, "CHERRY_PICK_HEAD": true, "REBASE_HEAD": true, "AUTO_MERGE": true, "stash": true}
)

// rev is what a revision argument names, as far as the task's start is concerned.
type revKind int

const (
	revStart   revKind = iota // HEAD, its ancestors, the base commit, a commit the task or the run's own history output names
	revBeyond                 // a ref or commit that is none of those
	revPath                   // not a revision: a path
	revReflog                 // @{…}: the reflog
	revUnknown                // a version tag whose age is not known
)

// classifyRev says what the revision expression r names. Ranges (a..b, a...b) name the worst of
// their ends; ^r, r~n, r^n and r:path name what r names. asRev: the argument is known to be a
// revision (before --, or git show's), so a name that could be a path is a ref.
func (s *scanner) classifyRev(r string, asRev bool) (revKind, string) {
	if r == "" {
		return revStart, ""
	}
	for _, sep := range []string{"...", ".."} {
		if a, b, ok := strings.Cut(r, sep); ok && !strings.Contains(r, "/.") {
			ka, wa := s.classifyRev(orHEAD(a), true)
			kb, wb := s.classifyRev(orHEAD(b), true)
			if worse(kb, ka) {
				return kb, wb
			}
			return ka, wa
		}
	}
	if strings.Contains(r, "@{") {
		if strings.HasPrefix(r, "@{u") || strings.HasPrefix(r, "@{push") || strings.Contains(r, "@{upstream") {
			return revBeyond, r
		}
		return revReflog, r
	}
	name := r
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
		asRev = true
	}
	name = strings.TrimPrefix(name, "^")
	if i := strings.IndexAny(name, "~^"); i >= 0 {
		name = name[:i]
		asRev = true
	}
	switch {
	case name == "HEAD" || name == "@" || name == "":
		return revStart, ""
	case hexRe.MatchString(name):
		if s.knownCommit(name) {
			return revStart, ""
		}
		return revBeyond, name
	case refNames[name] || strings.HasPrefix(name, "origin/") || strings.HasPrefix(name, "upstream/") || strings.HasPrefix(name, "refs/") || strings.HasPrefix(name, "remotes/"):
		if s.task.names(name) {
			return revStart, ""
		}
		return revBeyond, name
	case versionRe.MatchString(name) && !looksLikeFile(name):
		return s.versionTag(name), name
	}
	if !asRev || looksLikeFile(name) {
		return revPath, ""
	}
	if s.task.names(name) {
		return revStart, ""
	}
	return revBeyond, name
}

func orHEAD(s string) string {
	if s == "" {
		return "HEAD"
	}
	return s
}

// worse orders rev kinds by how far beyond the task's start they reach.
func worse(a, b revKind) bool {
	rank := map[revKind]int{revPath: 0, revStart: 0, revUnknown: 1, revBeyond: 2, revReflog: 2}
	return rank[a] > rank[b]
}

// looksLikeFile reports whether a word reads as a file path rather than a ref: it has a file
// extension, starts like a path, or is . or a directory with a slash at its end.
func looksLikeFile(w string) bool {
	if w == "." || w == ".." || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "../") || strings.HasSuffix(w, "/") || strings.ContainsAny(w, "*?") {
		return true
	}
	last := w[strings.LastIndexByte(w, '/')+1:]
	if i := strings.LastIndexByte(last, '.'); i > 0 && i < len(last)-1 {
		ext := last[i+1:]
		if _, err := strconv.Atoi(ext); err != nil { // v1.2: a version, not an extension
			return true
		}
	}
	return false
}

// versionTag says whether a version tag is of the task's past: not newer than the instance's
// version when that is known, unknown otherwise. A tag the task text names is of the past.
func (s *scanner) versionTag(tag string) revKind {
	if s.task.names(tag) {
		return revStart
	}
	m := versionRe.FindStringSubmatch(tag)
	if m == nil || s.task.Version == "" {
		return revUnknown
	}
	if compareVersions(m[1], strings.TrimPrefix(s.task.Version, "v")) <= 0 {
		return revStart
	}
	return revBeyond
}

// compareVersions compares dotted numeric versions (1.10 > 1.9), missing parts as 0.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(leadingDigits(pa[i]))
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(leadingDigits(pb[i]))
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// Options of git's history commands that take a value as the next argument.
var gitValueOptions = map[string]bool{
	"-n": true, "--max-count": true, "--skip": true, "--since": true, "--after": true, "--until": true, "--before": true,
	"--author": true, "--committer": true, "--grep": true, "-S": true, "-G": true, "--format": true, "--pretty": true,
	"-L": true, "--date": true, "--encoding": true, "-O": true, "--stat": false, "-U": true, "--unified": true,
	"--diff-filter": true, "-M": false, "--min-parents": true, "--max-parents": true, "--exclude": true,
	"--find-object": true, "-e": true, "--message": true, "-F": true, "--file": true,
	"--source": true, "-s": false, "--orphan": true, "--onto": true, "--strategy": true, "-X": true, "--depth": true,
}

// beyondOptions are the options of log-like commands that walk refs other than HEAD.
func beyondOption(a string) (string, bool) {
	name, _, _ := strings.Cut(a, "=")
	switch name {
	case "--all", "--branches", "--remotes", "--tags", "--glob", "--reflog", "--walk-reflogs", "--bisect", "--alternate-refs", "--exclude-hidden", "--indexed-objects", "--not":
		if name == "--not" {
			return "", false
		}
		return name, true
	case "-g":
		return "-g", true
	}
	return "", false
}

// positional splits a git subcommand's arguments into options and positional arguments, the
// latter before and after a -- separator.
func positional(args []string) (opts, revs, paths []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, revs, append(paths, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
			opts = append(opts, a)
			if gitValueOptions[a] && i+1 < len(args) {
				i++
			}
		default:
			revs = append(revs, a)
		}
	}
	return opts, revs, paths
}

// gitFinding classifies one git invocation.
func (s *scanner) gitFinding(args []string) *finding {
	g, ok := parseGit(args)
	if !ok {
		return nil
	}
	opts, revs, paths := positional(g.args)
	hist := func(why string) *finding { return &finding{class: ClassHistory, reason: "git " + g.sub + " " + why} }
	net := func() *finding { return &finding{class: ClassNetwork, reason: "git " + g.sub} }
	// The revisions named: worst first.
	checkRevs := func(asRev bool) *finding {
		for _, r := range revs {
			switch k, what := s.classifyRev(r, asRev); k {
			case revBeyond:
				return hist("of " + what + ", not the task's")
			case revReflog:
				return hist("of the reflog (" + what + ")")
			}
		}
		return nil
	}
	switch g.sub {
	case "fetch", "pull", "clone", "ls-remote":
		return net()
	case "remote":
		if len(revs) > 0 && (revs[0] == "update" || revs[0] == "show" && !contains(opts, "-n")) {
			return net()
		}
	case "submodule":
		if contains(g.args, "--remote") || len(revs) > 0 && (revs[0] == "update" || revs[0] == "sync") && contains(g.args, "--init") {
			return net()
		}
	case "reflog":
		if len(revs) == 0 || revs[0] != "expire" && revs[0] != "delete" && revs[0] != "exists" {
			return hist("")
		}
	case "fsck":
		if !contains(opts, "--no-dangling") || contains(opts, "--unreachable") || contains(opts, "--lost-found") {
			return hist(strings.Join(opts, " "))
		}
	case "notes":
		return hist("")
	case "for-each-ref", "show-ref":
		return hist("")
	case "cat-file":
		if contains(opts, "--batch-all-objects") {
			return hist("--batch-all-objects")
		}
		for _, r := range revs {
			if k, what := s.classifyRev(r, true); k == revBeyond || k == revReflog {
				return hist("of " + what + ", not the task's")
			}
		}
	case "stash":
		act := "push"
		if len(revs) > 0 {
			act = revs[0]
		}
		switch act {
		case "push", "save", "create", "store", "clear", "drop":
			if act == "push" || act == "save" {
				s.stashed = true
			}
		default: // list, show, apply, pop, branch
			if !s.stashed {
				return hist(act + " of a stash the agent did not make")
			}
		}
	case "branch":
		for _, o := range opts {
			if o == "-a" || o == "-r" || o == "--all" || o == "--remotes" || strings.HasPrefix(o, "--contains") || strings.HasPrefix(o, "--merged") || strings.HasPrefix(o, "--no-merged") {
				return hist(o)
			}
		}
	case "tag":
		creating := len(revs) > 0 && !contains(opts, "-l") && !contains(opts, "--list") && !hasPrefix(opts, "--contains") && !hasPrefix(opts, "--sort")
		if !creating && !contains(opts, "-d") && !contains(opts, "--delete") {
			return hist("(lists the tags)")
		}
	case "describe":
		if contains(opts, "--contains") || contains(opts, "--all") {
			return hist(strings.Join(opts, " "))
		}
		return checkRevs(true)
	case "rev-parse":
		for _, o := range opts {
			if _, ok := beyondOption(o); ok {
				return hist(o)
			}
		}
	case "log", "rev-list", "shortlog", "whatchanged", "show-branch", "range-diff":
		for _, o := range opts {
			if name, ok := beyondOption(o); ok {
				return hist(name)
			}
		}
		if g.sub == "show-branch" && (contains(opts, "-a") || contains(opts, "-r")) {
			return hist(strings.Join(opts, " "))
		}
		return checkRevs(len(paths) > 0)
	case "show", "cherry-pick", "merge", "rebase", "format-patch", "archive", "ls-tree", "grep", "diff-tree", "cherry", "am", "revert", "worktree":
		if g.sub == "grep" || g.sub == "worktree" {
			return s.gitGrepRevs(g)
		}
		if g.sub == "show" {
			for _, o := range opts {
				if name, ok := beyondOption(o); ok {
					return hist(name)
				}
			}
		}
		return checkRevs(true)
	case "diff", "blame", "annotate", "difftool":
		return checkRevs(len(paths) > 0)
	case "checkout", "switch", "reset", "restore":
		for _, o := range opts {
			if v, ok := strings.CutPrefix(o, "--source="); ok {
				revs = append(revs, v)
			}
		}
		if contains(opts, "-b") || contains(opts, "-B") || contains(opts, "--orphan") || contains(opts, "-c") {
			return nil // a new branch at HEAD (a start point after it is read as a revision)
		}
		if g.sub == "restore" {
			revs = nil
			for i, a := range g.args {
				if (a == "-s" || a == "--source") && i+1 < len(g.args) {
					revs = append(revs, g.args[i+1])
				} else if v, ok := strings.CutPrefix(a, "--source="); ok {
					revs = append(revs, v)
				}
			}
			return checkRevs(true)
		}
		if len(paths) > 0 || g.sub == "switch" {
			return checkRevs(true)
		}
		return checkRevs(false)
	}
	return nil
}

// gitGrepRevs checks the revisions git grep or git worktree add name (after the pattern).
func (s *scanner) gitGrepRevs(g gitCall) *finding {
	_, revs, _ := positional(g.args)
	if g.sub == "grep" {
		if len(revs) == 0 {
			return nil
		}
		revs = revs[1:] // the pattern
		hasE := false
		for _, a := range g.args {
			if a == "-e" || a == "-f" {
				hasE = true
			}
		}
		if hasE {
			_, revs, _ = positional(g.args)
		}
	} else {
		if len(revs) < 3 || revs[0] != "add" {
			return nil
		}
		revs = revs[2:]
	}
	for _, r := range revs {
		if k, what := s.classifyRev(r, false); k == revBeyond || k == revReflog {
			return &finding{class: ClassHistory, reason: "git " + g.sub + " of " + what + ", not the task's"}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasPrefix(list []string, p string) bool {
	for _, x := range list {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}
