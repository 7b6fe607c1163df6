package audit

import (
	"regexp"
	"strconv"
	"strings"
)

// Class is what a flagged command reached for.
type Class string

// The classes of flags.
const (
	// ClassHistory: git history beyond HEAD and its ancestors (other refs, the reflog, stashes
	// the agent did not make, unreachable objects, commits and refs the task does not name).
	ClassHistory Class = "history"
	// ClassGitDir: reading git's own files by hand (.git/objects, refs, logs, packed-refs, …).
	ClassGitDir Class = "git-internals"
	// ClassNetwork: the project's hosting or its packages over the network (git fetch, clone,
	// pull, ls-remote; curl or wget of its repository; pip, npm or go downloads of the project).
	ClassNetwork Class = "network"
)

// Classes lists the classes in the order they are reported.
var Classes = []Class{ClassHistory, ClassGitDir, ClassNetwork}

// History modes of a run (environment.history), as recorded in run.json and trajectories.
const (
	HistoryPast = "past"  // HEAD and its ancestors kept, everything else removed
	HistoryNone = "none"  // one root commit holding the starting tree
	HistoryAsIs = "as-is" // the image's repository untouched
)

// Task is what the scanner knows of an instance's start; every field may be empty (unknown).
type Task struct {
	BaseCommit string   // the commit the task starts from
	Text       string   // the problem statement: commits and tags it names are the task's
	Repo       string   // owner/name of the project under repair: its hosting and packages
	Version    string   // the instance's version ("3.0"): tags not newer are of the past
	Packages   []string // the project's package names (default: from Repo's name)
	Module     string   // its Go module path (default: github.com/Repo)
	// History is the run's environment.history ("past", "none", "as-is"; "" unknown). Behind
	// the guard ("past", "none") history and .git commands can show nothing beyond the start.
	History string
}

// Guarded reports whether the run's repository was reduced to the task's start.
func (t Task) Guarded() bool { return t.History == HistoryPast || t.History == HistoryNone }

// names reports whether the task's text names w as a word (a commit, a tag, a ref).
func (t Task) names(w string) bool {
	if t.Text == "" || len(w) < 3 {
		return false
	}
	for i := 0; ; {
		j := strings.Index(t.Text[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !wordByte(t.Text[start-1])) && (end == len(t.Text) || !wordByte(t.Text[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Step is one command the agent ran and what it printed.
type Step struct {
	Step     int    // the step (model call) it belongs to, 1-based
	Command  string // as the agent wrote it
	Output   string // the observation (the agent's rendering included, e.g. <returncode> tags)
	ExitCode int    // meaningful when HasExit
	HasExit  bool
}

// Flag is a command that reached beyond the task's start.
type Flag struct {
	Instance string `json:"instance"`
	Step     int    `json:"step"`
	Command  string `json:"command"`
	Class    Class  `json:"class"`
	Reason   string `json:"reason"`
	// Revealed: the output showed something (see Revealed) and, for history and .git flags,
	// the run was not behind the history guard.
	Revealed bool `json:"revealed"`
}

// Scan returns the flags of one trajectory's commands, in order.
func Scan(instance string, task Task, steps []Step) []Flag {
	s := newScanner(task)
	var flags []Flag
	for _, st := range steps {
		f := s.command(st.Command)
		if f == nil {
			s.learn(st.Command, st.Output)
			continue
		}
		shown := Revealed(st.Output, st.ExitCode, st.HasExit)
		if f.class != ClassNetwork && task.Guarded() {
			shown = false
		}
		flags = append(flags, Flag{Instance: instance, Step: st.Step, Command: st.Command, Class: f.class, Reason: f.reason, Revealed: shown})
	}
	return flags
}

// Classify classifies one command alone, with no earlier commands of its trajectory: its class
// and why, or "" when it stays within the task's start.
func Classify(command string, task Task) (Class, string) {
	f := newScanner(task).command(command)
	if f == nil {
		return "", ""
	}
	return f.class, f.reason
}

type finding struct {
	class  Class
	reason string
}

type scanner struct {
	task    Task
	known   map[string]bool // commits of the task's start: the base, those the text names, those HEAD's history printed
	stashed bool            // the agent made a stash of its own
}

var hashInText = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

func newScanner(t Task) *scanner {
	s := &scanner{task: t, known: map[string]bool{}}
	if t.BaseCommit != "" {
		s.known[strings.ToLower(t.BaseCommit)] = true
	}
	for _, h := range hashInText.FindAllString(t.Text, -1) {
		s.known[h] = true
	}
	return s
}

// knownCommit reports whether h (an abbreviated or full hash) is one of the start's commits.
func (s *scanner) knownCommit(h string) bool {
	h = strings.ToLower(h)
	for k := range s.known {
		if strings.HasPrefix(k, h) || strings.HasPrefix(h, k) {
			return true
		}
	}
	return false
}

// learn keeps the commits an unflagged git command printed (git log of HEAD, git blame, …):
// they are HEAD's ancestors, so a later git show of one reads the past.
func (s *scanner) learn(command, output string) {
	if !strings.Contains(command, "git") || output == "" {
		return
	}
	for _, c := range parseScript(command, 0) {
		args := unwrap(c.args)
		if len(args) == 0 || base(args[0]) != "git" {
			continue
		}
		if g, ok := parseGit(args); ok && historyReaders[g.sub] {
			for _, h := range hashInText.FindAllString(output, -1) {
				s.known[h] = true
			}
			return
		}
	}
}

// historyReaders are the git commands whose output, when unflagged, names HEAD's ancestors.
var historyReaders = map[string]bool{"log": true, "show": true, "blame": true, "annotate": true, "rev-parse": true,
	"rev-list": true, "shortlog": true, "describe": true, "whatchanged": true, "merge-base": true}

// command classifies one command line: the first of its simple commands that reaches beyond.
func (s *scanner) command(line string) *finding {
	inGit := false // the line cd'ed into a .git directory
	for _, c := range parseScript(line, 0) {
		args := unwrap(c.args)
		for _, in := range c.inputs {
			if gitInternal(in, inGit) {
				return &finding{ClassGitDir, "reads " + in}
			}
		}
		if len(args) == 0 {
			continue
		}
		prog := base(args[0])
		if prog == "cd" || prog == "pushd" {
			if len(args) > 1 {
				inGit = insideGitDir(args[1]) || inGit && !strings.HasPrefix(args[1], "/") && !strings.HasPrefix(args[1], "..")
			}
			continue
		}
		var f *finding
		switch prog {
		case "git":
			f = s.gitFinding(args)
			if f == nil {
				f = gitPlumbing(args)
			}
		default:
			f = s.otherFinding(prog, args, inGit)
		}
		if f != nil {
			return f
		}
	}
	return nil
}

// gitPlumbing flags git's commands that read pack and object files by name.
func gitPlumbing(args []string) *finding {
	g, ok := parseGit(args)
	if !ok {
		return nil
	}
	switch g.sub {
	case "verify-pack", "show-index", "unpack-objects", "unpack-file":
		return &finding{ClassGitDir, "git " + g.sub}
	}
	return nil
}

// Programs that read the files named in their arguments.
var readers = map[string]bool{
	"cat": true, "tac": true, "less": true, "more": true, "head": true, "tail": true, "strings": true, "xxd": true,
	"od": true, "hexdump": true, "zcat": true, "zlib-flate": true, "gzip": true, "gunzip": true, "pigz": true,
	"ls": true, "find": true, "tree": true, "du": true, "grep": true, "egrep": true, "fgrep": true, "rg": true,
	"ag": true, "ack": true, "awk": true, "gawk": true, "sed": true, "cp": true, "tar": true, "zip": true,
	"file": true, "stat": true, "wc": true, "sort": true, "base64": true, "diff": true, "cmp": true, "nl": true,
	"md5sum": true, "sha1sum": true, "sha256sum": true, "openssl": true, "python": true, "python3": true,
	"perl": true, "ruby": true, "vim": true, "vi": true, "nano": true, "view": true, "bat": true, "jq": true,
	"rsync": true, "fd": true, "locate": true, "str_replace_editor": true, "open": true,
}

// Programs that walk a directory tree given as an argument.
var walkers = map[string]bool{"find": true, "tree": true, "du": true, "rg": true, "ag": true, "ack": true, "tar": true, "zip": true, "fd": true, "rsync": true}

// Interpreters whose -c/-e code is searched for .git paths and URLs.
var interpreters = map[string]string{"python": "-c", "python3": "-c", "python2": "-c", "perl": "-e", "ruby": "-e", "node": "-e"}

func (s *scanner) otherFinding(prog string, args []string, inGit bool) *finding {
	if flag, ok := interpreters[prog]; ok || strings.HasPrefix(prog, "python3.") {
		if !ok {
			flag = "-c"
		}
		if f := s.packageFinding(prog, args); f != nil {
			return f
		}
		for i := 1; i+1 < len(args); i++ {
			if args[i] == flag {
				return s.codeFinding(args[i+1])
			}
		}
	}
	if f := s.packageFinding(prog, args); f != nil {
		return f
	}
	switch prog {
	case "gh", "hub":
		// GitHub's command-line clients: every subcommand but their own help talks to the hosting.
		if len(args) > 1 && args[1] != "help" && args[1] != "--help" && args[1] != "--version" && args[1] != "version" && args[1] != "auth" && args[1] != "completion" && args[1] != "config" && args[1] != "alias" {
			return &finding{ClassNetwork, prog + " " + args[1]}
		}
		return nil
	case "curl", "wget", "http", "https", "aria2c", "lynx", "w3m", "links", "elinks", "axel", "httpie", "xh":
		for _, a := range args[1:] {
			if u, ok := s.projectURL(a); ok {
				return &finding{ClassNetwork, prog + " " + u}
			}
		}
		return nil
	}
	if !readers[prog] {
		return nil
	}
	recursive := walkers[prog] || hasRecursiveFlag(prog, args[1:])
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if gitInternal(a, inGit) || recursive && (isGitDir(a) || inGit && (a == "." || a == "./")) {
			return &finding{ClassGitDir, prog + " " + a}
		}
	}
	if recursive && inGit && (prog == "find" || prog == "tree" || prog == "du") && len(args) == 1 {
		return &finding{ClassGitDir, prog + " in .git"}
	}
	return nil
}

func hasRecursiveFlag(prog string, args []string) bool {
	for _, a := range args {
		if a == "--recursive" || a == "-R" {
			return true
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
			if strings.Contains(a, "r") && (prog == "grep" || prog == "egrep" || prog == "fgrep" || prog == "cp") || strings.Contains(a, "R") {
				return true
			}
		}
	}
	return false
}

// codeFinding searches interpreter code for .git internals and the project's URLs.
func (s *scanner) codeFinding(code string) *finding {
	for _, w := range strings.FieldsFunc(code, func(r rune) bool {
		return r == '\'' || r == '"' || r == ' ' || r == '(' || r == ')' || r == ',' || r == '\n' || r == ';'
	}) {
		if gitInternal(w, false) {
			return &finding{ClassGitDir, "code reads " + w}
		}
		if u, ok := s.projectURL(w); ok {
			return &finding{ClassNetwork, "code fetches " + u}
		}
	}
	return nil
}

// gitInternalNames are the files and directories under .git that hold history beyond the
// working tree's state (HEAD, index and config do not).
var gitInternalNames = map[string]bool{"objects": true, "refs": true, "logs": true, "packed-refs": true, "ORIG_HEAD": true,
	"FETCH_HEAD": true, "MERGE_HEAD": true, "modules": true, "lost-found": true, "info": true, "shallow": true, "worktrees": true}

// gitInternal reports whether path p names something under .git that holds history (objects,
// refs, logs, packed-refs, …); inGit: relative paths are inside .git.
func gitInternal(p string, inGit bool) bool {
	p = strings.Trim(p, "'\"")
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if part == ".git" && i+1 < len(parts) {
			name := strings.TrimRight(parts[i+1], "*")
			if gitInternalNames[name] || strings.HasPrefix(parts[i+1], "*") {
				return true
			}
		}
	}
	if inGit && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "..") {
		first := strings.TrimPrefix(p, "./")
		first, _, _ = strings.Cut(first, "/")
		return gitInternalNames[strings.TrimRight(first, "*")]
	}
	return false
}

// isGitDir reports whether p is a .git directory itself.
func isGitDir(p string) bool {
	p = strings.TrimRight(p, "/")
	return p == ".git" || strings.HasSuffix(p, "/.git")
}

// insideGitDir reports whether directory p is a .git directory or inside one.
func insideGitDir(p string) bool {
	return isGitDir(p) || strings.Contains(p, "/.git/") || strings.HasPrefix(p, ".git/")
}

// Hosts of source hosting: a URL on one of them fetches a repository's files.
var hostingHosts = map[string]bool{"github.com": true, "www.github.com": true, "raw.githubusercontent.com": true,
	"api.github.com": true, "codeload.github.com": true, "gist.github.com": true, "gist.githubusercontent.com": true,
	"objects.githubusercontent.com": true, "patch-diff.githubusercontent.com": true, "gitlab.com": true,
	"bitbucket.org": true, "sourceforge.net": true, "git.kernel.org": true, "salsa.debian.org": true, "codeberg.org": true}

// Hosts of package registries: a URL on one of them naming the project downloads it.
var registryHosts = map[string]bool{"pypi.org": true, "files.pythonhosted.org": true, "pypi.python.org": true,
	"registry.npmjs.org": true, "www.npmjs.com": true, "registry.yarnpkg.com": true, "proxy.golang.org": true,
	"pkg.go.dev": true, "crates.io": true, "static.crates.io": true, "rubygems.org": true, "repo1.maven.org": true,
	"search.maven.org": true, "central.sonatype.com": true, "packagist.org": true}

// projectURL reports whether word w is a URL of the project's hosting or packages (any
// hosting URL when the project is not known), returning it without its scheme.
func (s *scanner) projectURL(w string) (string, bool) {
	w = strings.Trim(w, "'\"<>")
	rest := w
	if i := strings.Index(w, "://"); i >= 0 {
		rest = w[i+3:]
	} else if strings.HasPrefix(w, "git@") {
		rest = strings.Replace(strings.TrimPrefix(w, "git@"), ":", "/", 1)
	} else if !strings.HasPrefix(w, "github.com/") && !strings.HasPrefix(w, "raw.githubusercontent.com/") && !strings.HasPrefix(w, "api.github.com/") {
		return "", false
	}
	host, path, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	host, _, _ = strings.Cut(host, ":")
	host = strings.ToLower(host)
	lowPath := strings.ToLower("/" + path)
	owner, name, _ := strings.Cut(strings.ToLower(s.task.Repo), "/")
	switch {
	case hostingHosts[host]:
		if s.task.Repo == "" || host == "objects.githubusercontent.com" {
			return rest, true
		}
		repoPath := "/" + owner + "/" + strings.TrimSuffix(name, ".git")
		if host == "api.github.com" {
			return rest, strings.HasPrefix(lowPath, "/repos"+repoPath) || strings.Contains(lowPath, "repo:"+owner+"/"+name) || strings.Contains(lowPath, "repo%3a"+owner+"%2f"+name)
		}
		return rest, strings.HasPrefix(lowPath, repoPath+"/") || lowPath == repoPath || strings.HasPrefix(lowPath, repoPath+".git") || strings.HasPrefix(lowPath, repoPath+"?") || strings.HasPrefix(lowPath, repoPath+"#")
	case registryHosts[host]:
		for _, p := range s.packages() {
			for _, seg := range strings.FieldsFunc(lowPath, func(r rune) bool { return r == '/' || r == '?' || r == '=' }) {
				if normalizePackage(seg) == p || strings.HasPrefix(normalizePackage(seg), p+"-") && hasDigitAfter(seg, len(p)) {
					return rest, true
				}
			}
		}
		if m := s.module(); m != "" && strings.Contains(lowPath, "/"+strings.ToLower(m)+"/") {
			return rest, true
		}
	}
	return "", false
}

func hasDigitAfter(s string, i int) bool {
	return i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'
}

// packages are the project's package names, normalized as PEP 503 does.
func (s *scanner) packages() []string {
	names := s.task.Packages
	if len(names) == 0 && s.task.Repo != "" {
		_, name, _ := strings.Cut(s.task.Repo, "/")
		names = []string{name}
		for _, affix := range []string{"-python", "python-", ".py", "py-", "-py", ".js", "-js", "node-", "go-"} {
			if t := strings.TrimSuffix(strings.TrimPrefix(name, affix), affix); t != name && t != "" {
				names = append(names, t)
			}
		}
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, normalizePackage(n))
	}
	return out
}

func (s *scanner) module() string {
	if s.task.Module != "" {
		return s.task.Module
	}
	if s.task.Repo != "" {
		return "github.com/" + s.task.Repo
	}
	return ""
}

var pepSep = regexp.MustCompile(`[-_.]+`)

func normalizePackage(n string) string { return pepSep.ReplaceAllString(strings.ToLower(n), "-") }

// requirementName is the package a requirement names (django==4.2, requests[socks]>=2 → django,
// requests); "" for paths, URLs and options.
func requirementName(r string) string {
	if r == "" || strings.HasPrefix(r, "-") || strings.ContainsAny(r, "/\\") || r == "." || strings.HasSuffix(r, ".whl") || strings.HasSuffix(r, ".tar.gz") || strings.HasSuffix(r, ".zip") {
		return ""
	}
	end := strings.IndexAny(r, "[=<>!~@; ")
	if end >= 0 {
		r = r[:end]
	}
	return normalizePackage(r)
}

// packageFinding flags package downloads of the project itself: pip download/install of its
// package from an index, npm pack/install, go get/install/mod download of its module at a
// version.
func (s *scanner) packageFinding(prog string, args []string) *finding {
	args = args[1:]
	switch {
	case prog == "python" || prog == "python3" || strings.HasPrefix(prog, "python3."):
		if len(args) >= 2 && args[0] == "-m" && (args[1] == "pip" || args[1] == "pip3") {
			return s.pipFinding("pip", args[2:])
		}
		return nil
	case prog == "pip" || prog == "pip3" || strings.HasPrefix(prog, "pip3."):
		return s.pipFinding(prog, args)
	case prog == "uv" && len(args) > 0 && args[0] == "pip":
		return s.pipFinding("uv pip", args[1:])
	case prog == "npm" || prog == "yarn" || prog == "pnpm":
		if len(args) == 0 {
			return nil
		}
		switch args[0] {
		case "pack", "install", "i", "add", "view", "info":
			if args[0] == "view" || args[0] == "info" {
				return nil // metadata only
			}
			for _, a := range args[1:] {
				name := strings.ToLower(a)
				if strings.HasPrefix(name, "@") {
					if i := strings.IndexByte(name[1:], '@'); i >= 0 {
						name = name[:i+1]
					}
				} else {
					name, _, _ = strings.Cut(name, "@")
				}
				for _, p := range s.packages() {
					if name != "" && normalizePackage(name) == p {
						return &finding{ClassNetwork, prog + " " + args[0] + " " + a}
					}
				}
				if u, ok := s.projectURL(a); ok {
					return &finding{ClassNetwork, prog + " " + args[0] + " " + u}
				}
			}
		}
	case prog == "go":
		if len(args) == 0 || !(args[0] == "get" || args[0] == "install" || args[0] == "mod" && len(args) > 1 && args[1] == "download") {
			return nil
		}
		m := strings.ToLower(s.module())
		for _, a := range args[1:] {
			path, _, _ := strings.Cut(strings.ToLower(a), "@")
			if m != "" && (path == m || strings.HasPrefix(path, m+"/")) && (strings.Contains(a, "@") || args[0] == "get") {
				return &finding{ClassNetwork, "go " + args[0] + " " + a}
			}
		}
	}
	return nil
}

func (s *scanner) pipFinding(prog string, args []string) *finding {
	if len(args) == 0 || (args[0] != "install" && args[0] != "download" && args[0] != "wheel") {
		return nil
	}
	pkgs := s.packages()
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "-e" || a == "--editable" || a == "-r" || a == "--requirement" || a == "-c" || a == "--constraint" || a == "-t" || a == "--target" || a == "-d" || a == "--dest" || a == "-i" || a == "--index-url" || a == "--extra-index-url" || a == "-f" || a == "--find-links" {
			i++ // its value is a path, a URL or a local project
			continue
		}
		if u, ok := s.projectURL(strings.TrimPrefix(a, "git+")); ok {
			return &finding{ClassNetwork, prog + " " + args[0] + " " + u}
		}
		name := requirementName(a)
		for _, p := range pkgs {
			if name != "" && name == p {
				return &finding{ClassNetwork, prog + " " + args[0] + " " + a + " (the project's own package)"}
			}
		}
	}
	return nil
}

// Revealed reports whether an observation showed anything: after the agent's rendering is taken
// off (<returncode>/<output> tags, OpenHands' exit-code and directory lines), some line is left
// that is not an error or progress message (fatal:, error:, curl: (6) …, Could not resolve host,
// No such file or directory, …), and the command exited 0 (or its exit code is not known).
func Revealed(output string, exit int, hasExit bool) bool {
	text, code, ok := unwrapObservation(output)
	if !hasExit && ok {
		exit, hasExit = code, true
	}
	if hasExit && exit != 0 {
		return false
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || errorLine(line) {
			continue
		}
		return true
	}
	return false
}

var (
	returnCodeTag = regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`)
	wrapperTag    = regexp.MustCompile(`</?(output|output_head|output_tail|elided_chars|warning|returncode|exception_info)>`)
	ohExitLine    = regexp.MustCompile(`^\[(The command completed with exit code (-?\d+)\.|Command finished with exit code (-?\d+)|Current working directory: .*|Python interpreter: .*|Command .* exited with code (-?\d+).*)\]$`)
	errorLineRe   = regexp.MustCompile(`(?i)^(fatal|error|warning|hint|usage|ssh|npm ERR!|ERROR)[: ]|^curl: \(\d+\)|^wget: |could not resolve|temporary failure in name resolution|name or service not known|no such file or directory|command not found|permission denied|connection (refused|timed out)|network is unreachable|unable to access|failed to connect|^--\d{4}-\d\d-\d\d |^resolving |^connecting to |^http request sent|^\d+ elided characters|^looking in indexes|retrying \(retry|^\(standard input\)|^\s*\^|^bash: `)
)

// unwrapObservation takes the agent's rendering off an observation: mini-swe-agent's tags and
// OpenHands' trailer lines. ok reports an exit code found in them.
func unwrapObservation(s string) (text string, code int, ok bool) {
	if m := returnCodeTag.FindStringSubmatch(s); m != nil {
		code, _ = strconv.Atoi(m[1])
		ok = true
		s = returnCodeTag.ReplaceAllString(s, "")
	}
	s = wrapperTag.ReplaceAllString(s, "")
	var kept []string
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if m := ohExitLine.FindStringSubmatch(t); m != nil {
			for _, g := range m[2:] {
				if g != "" {
					code, _ = strconv.Atoi(g)
					ok = true
				}
			}
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "\n"), code, ok
}

func errorLine(l string) bool { return errorLineRe.MatchString(l) }
