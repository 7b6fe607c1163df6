package audit

import (
	"strings"
)

// A command line is read the way bash reads it, far enough to know which programs run with which
// arguments: words and their quoting ('…', "…", $'…', backslashes), comments, the operators that
// separate commands (;, &, &&, ||, |, |&, newlines, parentheses, braces), redirections and their
// targets, here-documents (their bodies are data, unless they feed a shell), command substitutions
// ($(…), `…`) and the scripts handed to bash -c, sh -c and eval, which are read in turn. Variables
// are not expanded: a word keeps its $NAME text.

// simple is one simple command: its words (quotes removed, assignments before the program left
// out) and what its redirections read.
type simple struct {
	args    []string
	inputs  []string // files read through < and <> redirections
	heredoc string   // the body of a here-document or here-string fed to it, if any
}

// parseScript returns the simple commands of a script, those of its substitutions, subshells and
// nested shell scripts included, in the order they appear. depth bounds the nesting of scripts
// inside scripts.
func parseScript(src string, depth int) []simple {
	if depth > 8 {
		return nil
	}
	l := &lexer{src: src, depth: depth}
	l.run()
	out := l.cmds
	// Scripts run by a shell: bash -c '…', sh -c, eval, and here-documents fed to a shell.
	var nested []simple
	for _, c := range out {
		nested = append(nested, expandShell(c, depth)...)
	}
	return append(out, nested...)
}

// expandShell returns the commands of the script c hands to a shell, if it does.
func expandShell(c simple, depth int) []simple {
	args := unwrap(c.args)
	if len(args) == 0 {
		return nil
	}
	prog := base(args[0])
	switch prog {
	case "bash", "sh", "zsh", "dash", "ksh":
		for i := 1; i < len(args); i++ {
			a := args[i]
			if a == "--" || !strings.HasPrefix(a, "-") {
				if c.heredoc != "" && i == len(args) {
					return parseScript(c.heredoc, depth+1)
				}
				break
			}
			if !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+1 < len(args) {
				return parseScript(args[i+1], depth+1)
			}
		}
		if c.heredoc != "" && onlyOptions(args[1:]) {
			return parseScript(c.heredoc, depth+1)
		}
	case "eval":
		return parseScript(strings.Join(args[1:], " "), depth+1)
	case "su":
		for i := 1; i+1 < len(args); i++ {
			if args[i] == "-c" || args[i] == "--command" {
				return parseScript(args[i+1], depth+1)
			}
		}
	}
	return nil
}

func onlyOptions(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// base is the program name of a path (/usr/bin/git → git).
func base(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// unwrap drops the programs that run another program with its arguments unchanged (sudo, env,
// timeout, nohup, nice, time, command, exec, stdbuf, xargs) and shell keywords, so args[0] is the
// program that does the work.
func unwrap(args []string) []string {
	for len(args) > 0 {
		switch base(args[0]) {
		case "sudo", "doas":
			args = skipOptions(args[1:], map[string]bool{"-u": true, "-g": true, "-C": true, "-D": true})
		case "env":
			args = args[1:]
			for len(args) > 0 && (strings.HasPrefix(args[0], "-") || strings.Contains(args[0], "=")) {
				if args[0] == "-u" || args[0] == "-C" || args[0] == "-S" {
					args = args[1:]
				}
				if len(args) > 0 {
					args = args[1:]
				}
			}
		case "timeout":
			args = skipOptions(args[1:], map[string]bool{"-s": true, "-k": true, "--signal": true, "--kill-after": true})
			if len(args) > 0 {
				args = args[1:] // the duration
			}
		case "nice", "ionice":
			args = skipOptions(args[1:], map[string]bool{"-n": true, "-c": true})
		case "stdbuf":
			args = skipOptions(args[1:], map[string]bool{"-i": true, "-o": true, "-e": true})
		case "xargs":
			args = skipOptions(args[1:], map[string]bool{"-I": true, "-n": true, "-P": true, "-d": true, "-L": true, "-s": true, "-a": true, "-E": true})
		case "nohup", "time", "command", "builtin", "exec", "then", "do", "else", "elif", "if", "while", "until", "!", "{", "(":
			args = args[1:]
		default:
			return args
		}
	}
	return args
}

// skipOptions drops the leading options of args, with the values of those in withValue.
func skipOptions(args []string, withValue map[string]bool) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		if args[0] == "--" {
			return args[1:]
		}
		if withValue[args[0]] && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	return args
}

type lexer struct {
	src   string
	pos   int
	depth int
	cmds  []simple

	cur      simple
	word     strings.Builder
	inWord   bool
	pending  []*pendingDoc // here-documents whose bodies start at the next newline
	redirect string        // the redirection whose target the next word is
}

type pendingDoc struct {
	delim string
	strip bool // <<-: leading tabs removed
	cmd   *simple
	index int // the command's index in cmds once ended (-1 while it is current)
}

func (l *lexer) run() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t':
			l.endWord()
			l.pos++
		case c == '\n':
			l.endWord()
			l.pos++
			l.endCommand()
			l.readHeredocs()
		case c == '#' && !l.inWord:
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == '\\':
			if l.pos+1 < len(l.src) {
				if l.src[l.pos+1] != '\n' {
					l.word.WriteByte(l.src[l.pos+1])
					l.inWord = true
				}
				l.pos += 2
			} else {
				l.pos++
			}
		case c == '\'':
			end := strings.IndexByte(l.src[l.pos+1:], '\'')
			l.inWord = true
			if end < 0 {
				l.word.WriteString(l.src[l.pos+1:])
				l.pos = len(l.src)
			} else {
				l.word.WriteString(l.src[l.pos+1 : l.pos+1+end])
				l.pos += end + 2
			}
		case c == '"':
			l.doubleQuoted()
		case c == '`':
			end := l.pos + 1
			for end < len(l.src) && l.src[end] != '`' {
				if l.src[end] == '\\' {
					end++
				}
				end++
			}
			if end > len(l.src) {
				end = len(l.src)
			}
			l.substitute(l.src[l.pos+1 : end])
			l.word.WriteString("$(…)")
			l.inWord = true
			l.pos = end + 1
		case c == '$':
			l.dollar()
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			l.endWord()
			if c == '&' && l.peek(1) == '>' { // &> and &>>: redirections
				l.pos += 2
				if l.peek(0) == '>' {
					l.pos++
				}
				l.redirect = ">"
				continue
			}
			l.pos++
			if l.pos < len(l.src) && (l.src[l.pos] == c || (c == '|' && l.src[l.pos] == '&')) {
				l.pos++
			}
			l.endCommand()
		case c == '<' || c == '>':
			// A word of digits just before is a file descriptor, not an argument.
			if l.inWord && isDigits(l.word.String()) {
				l.word.Reset()
				l.inWord = false
			}
			l.endWord()
			l.operatorRedirect()
		case (c == '{' || c == '}') && !l.inWord && l.wordEnds(l.pos+1):
			l.pos++ // a group's brace: a separator here
			if c == '}' {
				l.endCommand()
			}
		default:
			l.word.WriteByte(c)
			l.inWord = true
			l.pos++
		}
	}
	l.endWord()
	l.endCommand()
}

func (l *lexer) peek(n int) byte {
	if l.pos+n < len(l.src) {
		return l.src[l.pos+n]
	}
	return 0
}

// wordEnds reports whether position i ends a word (a blank, an operator or the end).
func (l *lexer) wordEnds(i int) bool {
	return i >= len(l.src) || strings.IndexByte(" \t\n;&|()", l.src[i]) >= 0
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (l *lexer) operatorRedirect() {
	c := l.src[l.pos]
	l.pos++
	switch {
	case c == '<' && l.peek(0) == '<' && l.peek(1) == '<': // here-string
		l.pos += 2
		l.redirect = "<<<"
	case c == '<' && l.peek(0) == '<':
		l.pos++
		strip := false
		if l.peek(0) == '-' {
			strip = true
			l.pos++
		}
		l.redirect = "<<"
		if strip {
			l.redirect = "<<-"
		}
	case c == '<' && l.peek(0) == '>':
		l.pos++
		l.redirect = "<"
	case c == '<' && l.peek(0) == '&', c == '>' && l.peek(0) == '&':
		l.pos++
		l.redirect = "&" // a descriptor copy: the target is a number or -
	case c == '>' && (l.peek(0) == '>' || l.peek(0) == '|'):
		l.pos++
		l.redirect = ">"
	default:
		l.redirect = string(c)
	}
}

func (l *lexer) doubleQuoted() {
	l.inWord = true
	l.pos++
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch c {
		case '"':
			l.pos++
			return
		case '\\':
			if l.pos+1 < len(l.src) && strings.IndexByte("\"\\$`\n", l.src[l.pos+1]) >= 0 {
				if l.src[l.pos+1] != '\n' {
					l.word.WriteByte(l.src[l.pos+1])
				}
				l.pos += 2
				continue
			}
			l.word.WriteByte(c)
			l.pos++
		case '$':
			l.dollar()
		case '`':
			end := l.pos + 1
			for end < len(l.src) && l.src[end] != '`' {
				end++
			}
			l.substitute(l.src[l.pos+1 : min(end, len(l.src))])
			l.word.WriteString("$(…)")
			l.pos = end + 1
		default:
			l.word.WriteByte(c)
			l.pos++
		}
	}
}

// dollar reads $'…', $(…), $((…)), ${…} or $NAME at l.pos.
func (l *lexer) dollar() {
	l.inWord = true
	switch l.peek(1) {
	case '\'':
		l.pos += 2
		for l.pos < len(l.src) && l.src[l.pos] != '\'' {
			if l.src[l.pos] == '\\' && l.pos+1 < len(l.src) {
				l.word.WriteString(ansiEscape(l.src[l.pos+1]))
				l.pos += 2
				continue
			}
			l.word.WriteByte(l.src[l.pos])
			l.pos++
		}
		l.pos++
	case '(':
		arith := l.peek(2) == '('
		end := matchParen(l.src, l.pos+1)
		if !arith {
			l.substitute(l.src[l.pos+2 : max(l.pos+2, end)])
		}
		l.word.WriteString("$(…)")
		l.pos = end + 1
	case '{':
		end := strings.IndexByte(l.src[l.pos:], '}')
		if end < 0 {
			end = len(l.src) - l.pos - 1
		}
		l.word.WriteString(l.src[l.pos : l.pos+end+1])
		l.pos += end + 1
	default:
		l.word.WriteByte('$')
		l.pos++
	}
}

func ansiEscape(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case '0':
		return ""
	}
	return string(c)
}

// matchParen returns the index of the parenthesis closing the one at open, skipping quoted text;
// len(src) when there is none.
func matchParen(src string, open int) int {
	depth := 0
	for i := open; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '\'':
			if j := strings.IndexByte(src[i+1:], '\''); j >= 0 {
				i += j + 1
			}
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(src)
}

// substitute reads the script of a command substitution into the commands.
func (l *lexer) substitute(script string) {
	l.cmds = append(l.cmds, parseScript(script, l.depth+1)...)
}

func (l *lexer) endWord() {
	if !l.inWord {
		return
	}
	w := l.word.String()
	l.word.Reset()
	l.inWord = false
	switch l.redirect {
	case "":
		if len(l.cur.args) == 0 && isAssignment(w) {
			return
		}
		l.cur.args = append(l.cur.args, w)
	case "<":
		l.cur.inputs = append(l.cur.inputs, w)
	case "<<", "<<-":
		l.pending = append(l.pending, &pendingDoc{delim: w, strip: l.redirect == "<<-", cmd: nil, index: -1})
	case "<<<":
		l.cur.heredoc = w
	}
	l.redirect = ""
}

func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := w[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (l *lexer) endCommand() {
	for _, p := range l.pending {
		if p.index < 0 {
			p.index = len(l.cmds)
		}
	}
	if len(l.cur.args) > 0 || len(l.cur.inputs) > 0 || l.cur.heredoc != "" {
		l.cmds = append(l.cmds, l.cur)
	} else {
		// Nothing to attach a here-document to.
		for _, p := range l.pending {
			if p.index == len(l.cmds) {
				p.index = -2
			}
		}
	}
	l.cur = simple{}
	l.redirect = ""
}

// readHeredocs reads the bodies of the pending here-documents, which start at l.pos.
func (l *lexer) readHeredocs() {
	for _, p := range l.pending {
		var body strings.Builder
		for l.pos < len(l.src) {
			end := strings.IndexByte(l.src[l.pos:], '\n')
			var line string
			if end < 0 {
				line = l.src[l.pos:]
				l.pos = len(l.src)
			} else {
				line = l.src[l.pos : l.pos+end]
				l.pos += end + 1
			}
			check := line
			if p.strip {
				check = strings.TrimLeft(line, "\t")
			}
			if check == p.delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		if p.index >= 0 && p.index < len(l.cmds) {
			l.cmds[p.index].heredoc = body.String()
		}
	}
	l.pending = nil
}
