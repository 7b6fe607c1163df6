package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// DefaultSeed is the shuffle seed mini-swe-agent uses; cmd uses it when --seed is not given.
const DefaultSeed = 42

// Selection picks the instances a run works on. Steps, in order:
//
//  1. IDs: keep only these ids (dataset order); an id not in the dataset is an error.
//  2. Exclude: drop these ids; an id not in the dataset is an error (it is likely a typo).
//  3. Shuffle: sort by instance_id, then shuffle with Seed (mini-swe-agent's order of steps).
//     The permutation is deterministic for a seed (a PCG generator and a Fisher–Yates shuffle),
//     but it is not Python's random.shuffle: the same seed gives a different order than
//     mini-swe-agent.
//  4. Filter: a regular expression (Go RE2 syntax) matched at the start of instance_id, like
//     Python's re.match.
//  5. Slice: Python slice syntax "A:B" or "A:B:C" (negative indices and steps allowed; a single
//     number N means ":N", as in mini-swe-agent).
//  6. Shard "I/N": the I-th (1-based) of N shards. Instance k of the selection goes to shard
//     k mod N + 1, so shards are disjoint, together cover the selection, and differ in size by at
//     most one.
type Selection struct {
	Filter  string   `json:"filter,omitempty"`
	Slice   string   `json:"slice,omitempty"`
	Shuffle bool     `json:"shuffle,omitempty"`
	Seed    int64    `json:"seed,omitempty"`
	IDs     []string `json:"instance_ids,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	Shard   string   `json:"shard,omitempty"`
}

// IsZero reports whether the selection keeps every instance in dataset order.
func (s Selection) IsZero() bool {
	return s.Filter == "" && s.Slice == "" && !s.Shuffle && len(s.IDs) == 0 && len(s.Exclude) == 0 && s.Shard == ""
}

// Validate checks the filter, slice and shard syntax without a dataset.
func (s Selection) Validate() error {
	_, err := s.compile()
	return err
}

type compiledSelection struct {
	filter      *regexp.Regexp
	slice       *pySlice
	shard, of   int
	ids, exclud map[string]bool
}

func (s Selection) compile() (*compiledSelection, error) {
	c := &compiledSelection{}
	var errs []error
	if s.Filter != "" {
		re, err := regexp.Compile(`^(?:` + s.Filter + `)`)
		if err != nil {
			errs = append(errs, fmt.Errorf("--filter %q: not a valid regular expression (Go RE2 syntax): %w", s.Filter, err))
		}
		c.filter = re
	}
	if s.Slice != "" {
		sl, err := parseSlice(s.Slice)
		if err != nil {
			errs = append(errs, err)
		}
		c.slice = sl
	}
	if s.Shard != "" {
		i, n, err := ParseShard(s.Shard)
		if err != nil {
			errs = append(errs, err)
		}
		c.shard, c.of = i, n
	}
	return c, errors.Join(errs...)
}

// ParseShard parses "I/N" (1 <= I <= N).
func ParseShard(spec string) (i, n int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(spec), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 1 <= I <= N (shards are numbered from 1, e.g. 1/4 … 4/4)", spec)
	}
	return i, n, nil
}

type pySlice struct {
	start, stop, step *int
}

func parseSlice(spec string) (*pySlice, error) {
	bad := func(why string) error {
		return fmt.Errorf("--slice %q: %s; want Python slice syntax A:B or A:B:C (e.g. 0:5, 10:, ::2, -3:)", spec, why)
	}
	parts := strings.Split(strings.TrimSpace(spec), ":")
	if len(parts) > 3 {
		return nil, bad("too many ':'")
	}
	var vals [3]*int
	for k, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		v, err := strconv.Atoi(p)
		if err != nil {
			return nil, bad(fmt.Sprintf("%q is not an integer", p))
		}
		vals[k] = &v
	}
	if len(parts) == 1 { // "N" means ":N", like slice(N) in Python
		if vals[0] == nil {
			return nil, bad("empty")
		}
		return &pySlice{stop: vals[0]}, nil
	}
	if vals[2] != nil && *vals[2] == 0 {
		return nil, bad("the step cannot be zero")
	}
	return &pySlice{start: vals[0], stop: vals[1], step: vals[2]}, nil
}

// indices returns the positions of a Python slice of a sequence of length n.
func (s *pySlice) indices(n int) []int {
	step := 1
	if s.step != nil {
		step = *s.step
	}
	clamp := func(p *int, def, lo, hi int) int {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += n
		}
		return min(max(v, lo), hi)
	}
	var out []int
	if step > 0 {
		start, stop := clamp(s.start, 0, 0, n), clamp(s.stop, n, 0, n)
		for k := start; k < stop; k += step {
			out = append(out, k)
		}
	} else {
		start, stop := clamp(s.start, n-1, -1, n-1), clamp(s.stop, -1, -1, n-1)
		for k := start; k > stop; k += step {
			out = append(out, k)
		}
	}
	return out
}

// ParseIDList parses --instance-ids / --exclude: "a,b,c", or "@file" with one id per line (blank
// lines and # comments ignored; commas also separate ids).
func ParseIDList(arg string) ([]string, error) {
	text := arg
	from := "argument"
	if strings.HasPrefix(arg, "@") {
		path := arg[1:]
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read id list: %w", err)
		}
		text, from = string(data), path
	}
	var ids []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader([]byte(text)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if from != "argument" {
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = line[:i]
			}
		}
		for _, id := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' }) {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read id list %s: %w", from, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("id list %s: no instance ids in it", from)
	}
	return ids, nil
}

// UnknownIDsError lists ids given on the command line that are not in the dataset.
type UnknownIDsError struct {
	Flag string // "--instance-ids" or "--exclude"
	IDs  []string
}

func (e *UnknownIDsError) Error() string {
	show := e.IDs
	more := ""
	if len(show) > 20 {
		show, more = show[:20], fmt.Sprintf(" and %d more", len(e.IDs)-20)
	}
	return fmt.Sprintf("%s: %d id(s) not in the dataset: %s%s; check the spelling and the dataset/split",
		e.Flag, len(e.IDs), strings.Join(show, ", "), more)
}

// Apply returns the selected instances, in selection order. The input is not modified.
func (s Selection) Apply(insts []Instance) ([]Instance, error) {
	ids := make([]string, len(insts))
	for k := range insts {
		ids[k] = insts[k].InstanceID
	}
	idx, err := s.indices(ids)
	if err != nil {
		return nil, err
	}
	out := make([]Instance, len(idx))
	for k, i := range idx {
		out[k] = insts[i]
	}
	return out, nil
}

// indices returns the positions in ids of the selected instances, in selection order.
func (s Selection) indices(ids []string) ([]int, error) {
	c, err := s.compile()
	if err != nil {
		return nil, err
	}
	idx := make([]int, 0, len(ids))
	if len(s.IDs) > 0 || len(s.Exclude) > 0 {
		present := make(map[string]bool, len(ids))
		for _, id := range ids {
			present[id] = true
		}
		want := map[string]bool{}
		drop := map[string]bool{}
		var errs []error
		for _, l := range []struct {
			flag string
			ids  []string
			set  map[string]bool
		}{{"--instance-ids", s.IDs, want}, {"--exclude", s.Exclude, drop}} {
			var unknown []string
			for _, id := range l.ids {
				if !present[id] {
					unknown = append(unknown, id)
				}
				l.set[id] = true
			}
			if unknown != nil {
				errs = append(errs, &UnknownIDsError{Flag: l.flag, IDs: unknown})
			}
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		for k, id := range ids {
			if (len(want) == 0 || want[id]) && !drop[id] {
				idx = append(idx, k)
			}
		}
	} else {
		for k := range ids {
			idx = append(idx, k)
		}
	}
	if s.Shuffle {
		sort.SliceStable(idx, func(a, b int) bool { return ids[idx[a]] < ids[idx[b]] })
		r := rand.New(rand.NewPCG(uint64(s.Seed), 0x5eed5eed5eed5eed))
		r.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
	}
	if c.filter != nil {
		kept := idx[:0]
		for _, k := range idx {
			if c.filter.MatchString(ids[k]) {
				kept = append(kept, k)
			}
		}
		idx = kept
	}
	if c.slice != nil {
		pos := c.slice.indices(len(idx))
		sliced := make([]int, len(pos))
		for k, p := range pos {
			sliced[k] = idx[p]
		}
		idx = sliced
	}
	if c.of > 0 {
		kept := make([]int, 0, len(idx)/c.of+1)
		for k := c.shard - 1; k < len(idx); k += c.of {
			kept = append(kept, idx[k])
		}
		idx = kept
	}
	return idx, nil
}
