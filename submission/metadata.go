package submission

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MetadataFile is the submission's metadata file; get_results also keeps metadata.yml.
const MetadataFile = "metadata.yaml"

// Attempts values of tags.system.attempts: "1" for a system that attempts each instance once
// (pass@1, best@1), "2+" for one that attempts an instance several times and picks one attempt
// without the tests (best@k). pass@k is not accepted at all.
const (
	AttemptsOne  = "1"
	AttemptsMany = "2+"
)

// Metadata is metadata.yaml:
//
//	info:    name (the leaderboard's display name), site, report (the technical report or
//	         blog post the checklist requires), authors, logo (optional)
//	assets:  logs, trajs (where the logs and trajectories are kept; by convention
//	         s3://swe-bench-submissions/<split>/<folder>/{logs,trajs}, uploaded by the team)
//	tags:    checked (set by the SWE-bench team once they reproduced the run; false when
//	         submitting), model (list), org (list), os_model, os_system (booleans),
//	         system.attempts ("1" or "2+"), system.history (environment.history of the run:
//	         past, none or as-is, so that a reader of the leaderboard sees whether the agent
//	         could read the repository's history beyond the task's start; absent when unknown)
//
// Keys of a metadata file we do not know are kept as they are (see ReadMetadata).
type Metadata struct {
	Name, Site, Report, Logo string
	Authors                  []string
	Logs, Trajs              string
	Checked                  bool
	Models, Orgs             []string
	OSModel, OSSystem        bool
	Attempts                 string // AttemptsOne, AttemptsMany, or "" (not declared)
	History                  string // the run's environment.history; "" not known (not written)

	doc *yaml.Node // the file read by ReadMetadata, kept for its other keys
}

// ReadMetadata reads a metadata file to start from. Fields of the wrong type are errors naming
// the key; keys it does not know are kept when the metadata is written again.
func ReadMetadata(path string) (*Metadata, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("metadata %s: %w", path, err)
	}
	root := docRoot(&doc)
	if root == nil {
		root = &yaml.Node{Kind: yaml.MappingNode}
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("metadata %s: not a mapping; expected info:, assets: and tags:", path)
	}
	m := &Metadata{doc: &doc}
	var errs []string
	str := func(dst *string, keys ...string) {
		if n := lookup(root, keys...); n != nil {
			if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
				errs = append(errs, strings.Join(keys, ".")+" is not a string")
				return
			}
			*dst = n.Value
		}
	}
	list := func(dst *[]string, keys ...string) {
		if n := lookup(root, keys...); n != nil {
			l, ok := stringList(n)
			if !ok {
				errs = append(errs, strings.Join(keys, ".")+" is not a list of strings")
			}
			*dst = l
		}
	}
	boolean := func(dst *bool, keys ...string) {
		if n := lookup(root, keys...); n != nil {
			var b bool
			if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
				errs = append(errs, strings.Join(keys, ".")+" is not true or false")
				return
			}
			*dst = b
		}
	}
	str(&m.Name, "info", "name")
	str(&m.Site, "info", "site")
	str(&m.Report, "info", "report")
	str(&m.Logo, "info", "logo")
	list(&m.Authors, "info", "authors")
	str(&m.Logs, "assets", "logs")
	str(&m.Trajs, "assets", "trajs")
	boolean(&m.Checked, "tags", "checked")
	list(&m.Models, "tags", "model")
	list(&m.Orgs, "tags", "org")
	boolean(&m.OSModel, "tags", "os_model")
	boolean(&m.OSSystem, "tags", "os_system")
	if n := lookup(root, "tags", "system", "attempts"); n != nil {
		a, ok := attemptsValue(n)
		if !ok {
			errs = append(errs, fmt.Sprintf("tags.system.attempts is %q; want \"1\" or \"2+\"", n.Value))
		}
		m.Attempts = a
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("metadata %s: %s", path, strings.Join(errs, "; "))
	}
	return m, nil
}

// attemptsValue reads tags.system.attempts: "1" (or the number 1) or "2+".
func attemptsValue(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	switch strings.TrimSpace(n.Value) {
	case "1":
		return AttemptsOne, true
	case "2+":
		return AttemptsMany, true
	}
	return n.Value, false
}

// Marshal renders metadata.yaml: the file it was read from with our fields set, or a new file
// in the canonical order.
func (m *Metadata) Marshal() ([]byte, error) {
	var doc *yaml.Node
	if m.doc != nil {
		doc = deepCopy(m.doc)
	} else {
		doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := docRoot(doc)
	setStr := func(v string, keys ...string) { set(root, scalar(v, "!!str"), keys...) }
	setList := func(v []string, keys ...string) {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, s := range v {
			seq.Content = append(seq.Content, scalar(s, "!!str"))
		}
		set(root, seq, keys...)
	}
	setBool := func(v bool, keys ...string) { set(root, scalar(strconv.FormatBool(v), "!!bool"), keys...) }
	setStr(m.Name, "info", "name")
	setStr(m.Site, "info", "site")
	setStr(m.Report, "info", "report")
	setList(m.Authors, "info", "authors")
	if m.Logo != "" {
		setStr(m.Logo, "info", "logo")
	}
	setStr(m.Logs, "assets", "logs")
	setStr(m.Trajs, "assets", "trajs")
	setBool(m.Checked, "tags", "checked")
	setList(m.Models, "tags", "model")
	setList(m.Orgs, "tags", "org")
	setBool(m.OSModel, "tags", "os_model")
	setBool(m.OSSystem, "tags", "os_system")
	attempts := scalar(m.Attempts, "!!str")
	attempts.Style = yaml.DoubleQuotedStyle
	set(root, attempts, "tags", "system", "attempts")
	if m.History != "" {
		setStr(m.History, "tags", "system", "history")
	}

	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkMetadata validates a metadata file of any origin: the keys the leaderboard reads, with
// their types. A missing or mistyped name, model, os_model, os_system, checked or attempts is a
// failure; missing links (site, report), authors and assets are warnings: the pull request is
// not accepted without a report, but the folder is sound.
func checkMetadata(data []byte, name string) []Finding {
	fail := func(format string, args ...any) Finding {
		return Finding{Check: CheckMetadata, Severity: Fail, Message: name + ": " + fmt.Sprintf(format, args...)}
	}
	warn := func(format string, args ...any) Finding {
		return Finding{Check: CheckMetadata, Severity: Warn, Message: name + ": " + fmt.Sprintf(format, args...)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return []Finding{fail("not YAML: %v", err)}
	}
	root := docRoot(&doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return []Finding{fail("not a mapping; expected info:, assets: and tags:")}
	}
	var out []Finding
	for _, sec := range []string{"info", "assets", "tags"} {
		if n := lookup(root, sec); n == nil || n.Kind != yaml.MappingNode {
			out = append(out, fail("no %s: section (a mapping)", sec))
		}
	}
	text := func(keys ...string) (string, bool, bool) { // value, present, is a string
		n := lookup(root, keys...)
		if n == nil {
			return "", false, false
		}
		return n.Value, true, n.Kind == yaml.ScalarNode && n.Tag != "!!null"
	}
	if v, ok, isStr := text("info", "name"); !ok || !isStr || strings.TrimSpace(v) == "" {
		out = append(out, fail("info.name (the name the leaderboard shows) is missing or empty"))
	}
	for _, k := range []string{"site", "report"} {
		if v, ok, isStr := text("info", k); !ok || !isStr || strings.TrimSpace(v) == "" {
			what := "the system's web site or repository"
			if k == "report" {
				what = "the technical report or blog post the checklist requires"
			}
			out = append(out, warn("info.%s (%s) is missing or empty", k, what))
		}
	}
	if n := lookup(root, "info", "authors"); n == nil {
		out = append(out, warn("info.authors is missing"))
	} else if l, ok := stringList(n); !ok || len(l) == 0 {
		out = append(out, warn("info.authors is empty or not a list of names"))
	}
	if v, ok, isStr := text("info", "logo"); ok && (!isStr || v == "") {
		out = append(out, warn("info.logo is set but not a URL"))
	}
	for _, k := range []string{"logs", "trajs"} {
		if v, ok, isStr := text("assets", k); !ok || !isStr || v == "" {
			out = append(out, warn("assets.%s (where the %s are kept) is missing or empty", k, k))
		}
	}
	if n := lookup(root, "tags", "checked"); n == nil {
		out = append(out, fail("tags.checked is missing (false when submitting; the SWE-bench team sets it)"))
	} else if !isBoolish(n) {
		out = append(out, fail("tags.checked is %q, not true or false", n.Value))
	}
	if n := lookup(root, "tags", "model"); n == nil {
		out = append(out, fail("tags.model (the models the system uses) is missing"))
	} else if l, ok := stringList(n); !ok || len(l) == 0 {
		out = append(out, fail("tags.model is empty or not a list of model names"))
	}
	if n := lookup(root, "tags", "org"); n == nil {
		out = append(out, warn("tags.org (the organisations behind the system) is missing"))
	} else if _, ok := stringList(n); !ok {
		out = append(out, fail("tags.org is not a list of names"))
	}
	for _, k := range []string{"os_model", "os_system"} {
		if n := lookup(root, "tags", k); n == nil {
			out = append(out, fail("tags.%s is missing (true or false)", k))
		} else if b := false; n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
			out = append(out, fail("tags.%s is %q, not true or false", k, n.Value))
		}
	}
	if n := lookup(root, "tags", "system", "attempts"); n == nil {
		out = append(out, fail("tags.system.attempts is missing (\"1\" or \"2+\")"))
	} else if _, ok := attemptsValue(n); !ok {
		out = append(out, fail("tags.system.attempts is %q; want \"1\" (one attempt per instance) or \"2+\" (several, one picked without the tests)", n.Value))
	}
	return out
}

// metadataAttempts reads tags.system.attempts of a metadata file ("" when absent or unreadable).
func metadataAttempts(data []byte) string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return ""
	}
	if n := lookup(docRoot(&doc), "tags", "system", "attempts"); n != nil {
		a, _ := attemptsValue(n)
		return a
	}
	return ""
}

// isBoolish accepts a YAML boolean, or a string that starts with one ("True (by …)").
func isBoolish(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	var b bool
	if n.Decode(&b) == nil {
		return true
	}
	first, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(n.Value)), " ")
	return first == "true" || first == "false"
}

// stringList reads a sequence of strings, or one string as a list of one.
func stringList(n *yaml.Node) ([]string, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" || n.Value == "" {
			return nil, true
		}
		return []string{n.Value}, true
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return out, false
			}
			out = append(out, c.Value)
		}
		return out, true
	}
	return nil, false
}

func docRoot(doc *yaml.Node) *yaml.Node {
	if doc == nil {
		return nil
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil
		}
		return doc.Content[0]
	}
	return doc
}

// lookup follows keys through nested mappings.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// set stores v under keys, creating mappings on the way; an existing key keeps its place.
func set(n *yaml.Node, v *yaml.Node, keys ...string) {
	for i, k := range keys {
		var child *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == k {
				child = n.Content[j+1]
				if i == len(keys)-1 {
					n.Content[j+1] = v
					return
				}
			}
		}
		if i == len(keys)-1 {
			n.Content = append(n.Content, scalar(k, "!!str"), v)
			return
		}
		if child == nil || child.Kind != yaml.MappingNode {
			child = &yaml.Node{Kind: yaml.MappingNode}
			found := false
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == k {
					n.Content[j+1], found = child, true
				}
			}
			if !found {
				n.Content = append(n.Content, scalar(k, "!!str"), child)
			}
		}
		n = child
	}
}

func scalar(v, tag string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v} }

func deepCopy(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = deepCopy(x)
	}
	return &c
}
