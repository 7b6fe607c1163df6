// Package redact removes secrets, and on request host paths, from what the program shows or
// writes for others to read: the report's pages and the exported training data. It is the one
// redaction of the program (stdlib only).
package redact

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces a secret wherever it would be shown.
const Redacted = "[redacted]"

// HostPath replaces a path of the machine the tool ran on (WithHostPaths).
const HostPath = "[host-path]"

// secretKey matches the names of keys (and environment variables) that hold secrets: api keys,
// tokens, secrets, passwords, authorization headers. Counters such as "tokens", "max_tokens" or
// "cache_read_tokens" are no secrets: only string values are ever redacted.
var secretKey = regexp.MustCompile(`(?i)(key|token|secret|passw|authori[sz]ation|credential|cookie)`)

// isSecretKey reports whether a key's string value must be redacted.
func isSecretKey(k string) bool {
	if !secretKey.MatchString(k) {
		return false
	}
	lk := strings.ToLower(k)
	// "tokens", "max_tokens", "input_tokens": counts. "token", "api_token", "hf_token": secrets.
	if strings.Contains(lk, "tokens") && !strings.Contains(lk, "key") && !strings.Contains(lk, "secret") {
		return false
	}
	switch lk {
	case "keys", "key_count", "monkey", "keyboard":
		return false
	}
	return true
}

// Redactor removes secrets from what is shown: values of secret-looking keys in configs,
// credentials and secret query parameters inside URLs, and the values of this process's secret
// environment variables wherever they occur in text; with WithHostPaths, also the host's paths.
type Redactor struct {
	values []string // secret values to replace in any text, longest first
	rep    *strings.Replacer
	paths  *regexp.Regexp // host paths (WithHostPaths); nil: none
}

// New collects the secret values of the environment (variables named like secrets, values of 8
// characters or more) besides the extra values given.
func New(extra ...string) *Redactor {
	seen := map[string]bool{}
	var vals []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= 8 && !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if ok && isSecretKey(k) && !harmlessEnv[k] {
			add(v)
		}
	}
	for _, v := range extra {
		add(v)
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	r := &Redactor{values: vals}
	if len(vals) > 0 {
		pairs := make([]string, 0, 2*len(vals))
		for _, v := range vals {
			pairs = append(pairs, v, Redacted)
		}
		r.rep = strings.NewReplacer(pairs...)
	}
	return r
}

// harmlessEnv are variables whose names look secret but whose values are paths or switches that
// occur in ordinary text (replacing them would mangle it).
var harmlessEnv = map[string]bool{"SSH_AUTH_SOCK": true, "GPG_AGENT_INFO": true, "KEYTIMEOUT": true}

// Text removes secret values, URL credentials and host paths from a text.
func (r *Redactor) Text(s string) string {
	if r != nil && r.rep != nil {
		s = r.rep.Replace(s)
	}
	if strings.Contains(s, "://") {
		s = urlCreds.ReplaceAllStringFunc(s, redactURL)
	}
	if r != nil && r.paths != nil && r.paths.MatchString(s) {
		// Twice: a match takes the character on each side, which may be the boundary of the next
		// path (two paths one space apart).
		for range 2 {
			s = r.paths.ReplaceAllString(s, "${1}"+HostPath+"${2}")
		}
	}
	return s
}

// WithHostPaths returns a copy of r that also replaces the given directories of this machine,
// wherever a text names them or a path below them, by HostPath. Relative paths are made
// absolute. A path of fewer than two components (/, /root, /tmp, /testbed) is no host path: such
// paths are as common inside the containers the agents work in, and replacing them would
// mangle what the agent saw. What follows a host path stays: /home/alice/proj/src/a.py with the
// host path /home/alice/proj becomes [host-path]/src/a.py. Home folders of macOS and Windows
// (/Users/NAME, C:\Users\NAME) are host paths on any machine: no container has them, and a
// trajectory made on a laptop shows them. The home directory and the working directory are added
// by the caller when it wants them (HostDirs).
func (r *Redactor) WithHostPaths(paths ...string) *Redactor {
	out := *r
	seen := map[string]bool{}
	var alts []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		p = filepath.Clean(p)
		if strings.Count(strings.Trim(p, "/"), "/") < 1 || seen[p] {
			continue
		}
		seen[p] = true
		alts = append(alts, p)
	}
	// Longest first, so that a path below another is replaced whole; a match starts and ends at
	// the text's ends or at a character that cannot continue a path.
	sort.Slice(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
	quoted := make([]string, len(alts), len(alts)+2)
	for k, a := range alts {
		quoted[k] = regexp.QuoteMeta(a)
	}
	quoted = append(quoted, `/Users/[^/\s"'<>:]+`, `[A-Za-z]:\\Users\\[^\\\s"'<>:]+`)
	out.paths = regexp.MustCompile(`(^|[^\w./-])(?:` + strings.Join(quoted, "|") + `)($|[^\w.-])`)
	return &out
}

// HostDirs are this process's home and working directories, the host paths that text written
// on this machine is most likely to hold.
func HostDirs() []string {
	var dirs []string
	if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, h)
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	return dirs
}

// urlCreds finds URLs with credentials or query strings.
var urlCreds = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]*(@|\?)[^\s"'<>]*`)

// redactURL hides a URL's password (or lone user token) and the values of its secret-looking
// query parameters.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
		} else {
			u.User = url.User("REDACTED")
		}
		changed = true
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err == nil {
			for k := range q {
				if isSecretKey(k) || strings.EqualFold(k, "sig") || strings.EqualFold(k, "signature") {
					q[k] = []string{"REDACTED"}
					changed = true
				}
			}
			if changed {
				u.RawQuery = q.Encode()
			}
		}
	}
	if !changed {
		return s
	}
	return strings.ReplaceAll(u.String(), "REDACTED", Redacted)
}

// Value returns a copy of a decoded JSON or YAML value with every secret removed: the string
// value of a secret-looking key becomes Redacted; every other string goes through Text.
func (r *Redactor) Value(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if s, ok := x.(string); ok && s != "" && isSecretKey(k) {
				out[k] = Redacted
				continue
			}
			out[k] = r.Value(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = r.Value(x)
		}
		return out
	case string:
		return r.Text(t)
	}
	return v
}
