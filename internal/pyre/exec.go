package pyre

import (
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Go's regexp decides \b and \B with ASCII word characters and has no hook to change that. A
// pattern holding them is also compiled here, by Go's own parser and compiler, into a
// syntax.Prog that vm runs: a Pike VM giving the matches Go's regexp gives (leftmost-first, the
// same submatches), except that its word characters are Python's.

// isWord reports whether Python's re counts r as a word character in a str pattern: r is
// alphanumeric (str.isalnum: the Unicode categories L and N) or '_'. Combining marks (Mn, Mc)
// and connector punctuation other than '_' (U+203F '‿') are not.
func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// asciiBoundariesHold reports whether Go's ASCII \b and \B decide every position of s as
// Python's do: s is not empty and holds no word character outside ASCII (ASCII word characters
// are the same for both; every other character is a non-word character for both).
func asciiBoundariesHold(s string) bool {
	if s == "" {
		return false // \B does not hold in an empty text
	}
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWord(r) {
			return false
		}
		i += size - 1
	}
	return true
}

// lazyContext is the position between r1 and r2, whose assertions are worked out when an
// instruction asks.
type lazyContext struct {
	r1, r2 rune
	op     syntax.EmptyOp
	done   bool
}

func (c *lazyContext) get(v *vm) syntax.EmptyOp {
	if !c.done {
		c.op, c.done = v.context(c.r1, c.r2), true
	}
	return c.op
}

// context is the zero-width assertions that hold between r1 and r2 (-1: the start or the end
// of the text), as syntax.EmptyOpContext but with v's word characters.
func (v *vm) context(r1, r2 rune) syntax.EmptyOp {
	op := syntax.EmptyOpContext(r1, r2) &^ (syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary)
	if (r1 >= 0 && v.word(r1)) != (r2 >= 0 && v.word(r2)) {
		return op | syntax.EmptyWordBoundary
	}
	if r1 < 0 && r2 < 0 && v.python {
		return op // CPython's sre before 3.14 finds no \B in an empty text
	}
	return op | syntax.EmptyNoWordBoundary
}

// vm runs a compiled program. It is safe for concurrent use: each search takes a machine from
// a pool.
type vm struct {
	prog     *syntax.Prog
	word     func(rune) bool
	python   bool   // no \B in an empty text, as in the harnesses' Pythons (Go and 3.14 find one)
	anchored bool   // every match starts at the beginning of the text
	never    bool   // the program cannot match
	prefix   string // literal every match starts with
	machines sync.Pool
}

// newVM makes a VM with Python's word characters and empty text, or (python false, for the
// tests that hold it to Go's regexp) with word and Go's.
func newVM(prog *syntax.Prog, python bool, word func(rune) bool) *vm {
	v := &vm{prog: prog, python: python, word: word}
	cond := prog.StartCond()
	v.never = cond == ^syntax.EmptyOp(0)
	v.anchored = cond&syntax.EmptyBeginText != 0
	if !v.anchored {
		v.prefix, _ = prog.Prefix()
	}
	v.machines.New = func() any {
		n := len(prog.Inst)
		return &machine{
			q0: queue{sparse: make([]uint32, n), dense: make([]entry, 0, n)},
			q1: queue{sparse: make([]uint32, n), dense: make([]entry, 0, n)},
		}
	}
	return v
}

// thread states are kept in a sparse set indexed by instruction: dense holds them in priority
// order.
type queue struct {
	sparse []uint32
	dense  []entry
}

type entry struct {
	pc  uint32
	cap []int // for instructions that consume a rune or match; nil for the others
}

func (q *queue) has(pc uint32) bool {
	j := q.sparse[pc]
	return int(j) < len(q.dense) && q.dense[j].pc == pc
}

type machine struct {
	v        *vm
	q0, q1   queue
	free     [][]int
	matchcap []int
	matched  bool
}

func (m *machine) alloc(n int) []int {
	if k := len(m.free); k > 0 {
		c := m.free[k-1]
		m.free = m.free[:k-1]
		if cap(c) >= n {
			return c[:n]
		}
	}
	return make([]int, n)
}

func (m *machine) release(q *queue) {
	for _, e := range q.dense {
		if e.cap != nil {
			m.free = append(m.free, e.cap)
		}
	}
	q.dense = q.dense[:0]
}

// exec finds the leftmost-first match in s starting at or after pos, with ncap capture slots
// (0: only whether there is one). It returns the slots, or nil when there is no match.
func (v *vm) exec(s string, pos, ncap int) []int {
	if v.never || (v.anchored && pos != 0) {
		return nil
	}
	m := v.machines.Get().(*machine)
	m.v = v
	if cap(m.matchcap) < ncap {
		m.matchcap = make([]int, ncap)
	}
	m.matchcap = m.matchcap[:ncap]
	var found []int
	if m.run(s, pos) {
		found = append([]int{}, m.matchcap...)
	}
	v.machines.Put(m)
	return found
}

func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func (m *machine) run(s string, pos int) bool {
	v := m.v
	m.matched = false
	for i := range m.matchcap {
		m.matchcap[i] = -1
	}
	runq, nextq := &m.q0, &m.q1
	prev := rune(-1)
	if pos > 0 {
		prev, _ = utf8.DecodeLastRuneInString(s[:pos])
	}
	r, width := runeAt(s, pos)
	for {
		if len(runq.dense) == 0 {
			if m.matched || (v.anchored && pos != 0) {
				break
			}
			if v.prefix != "" && !strings.HasPrefix(s[pos:], v.prefix) {
				// No thread is alive: skip to where the literal every match starts with is.
				k := strings.Index(s[pos:], v.prefix)
				if k < 0 {
					break
				}
				pos += k
				prev, _ = utf8.DecodeLastRuneInString(s[:pos])
				r, width = runeAt(s, pos)
			}
		}
		if !m.matched && (pos == 0 || !v.anchored) {
			if len(m.matchcap) > 0 {
				m.matchcap[0] = pos
			}
			m.add(runq, uint32(v.prog.Start), pos, m.matchcap, &lazyContext{r1: prev, r2: r}, nil)
		}
		next, nextWidth := runeAt(s, pos+width)
		m.step(runq, nextq, pos, pos+width, r, &lazyContext{r1: r, r2: next})
		if width == 0 {
			break
		}
		if len(m.matchcap) == 0 && m.matched {
			break
		}
		pos += width
		prev, r, width = r, next, nextWidth
		runq, nextq = nextq, runq
	}
	m.release(runq)
	m.release(nextq)
	return m.matched
}

// add follows pc's empty transitions at pos and queues the threads that wait on a rune or match,
// each with its own copy of cap. The first such thread takes reuse (a slice holding cap's values,
// or nil) instead of a new one; add returns reuse when no thread took it.
func (m *machine) add(q *queue, pc uint32, pos int, cap []int, ctx *lazyContext, reuse []int) []int {
	for {
		if q.has(pc) {
			return reuse
		}
		j := len(q.dense)
		q.dense = q.dense[:j+1]
		q.dense[j] = entry{pc: pc}
		q.sparse[pc] = uint32(j)
		inst := &m.v.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			reuse = m.add(q, inst.Out, pos, cap, ctx, reuse)
			pc = inst.Arg
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^ctx.get(m.v) != 0 {
				return reuse
			}
			pc = inst.Out
		case syntax.InstNop:
			pc = inst.Out
		case syntax.InstCapture:
			if int(inst.Arg) >= len(cap) {
				pc = inst.Out
				continue
			}
			// cap changes below: reuse, which holds its old values, is not given on.
			old := cap[inst.Arg]
			cap[inst.Arg] = pos
			m.add(q, inst.Out, pos, cap, ctx, nil)
			cap[inst.Arg] = old
			return reuse
		case syntax.InstMatch, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			t := reuse
			if t == nil {
				t = m.alloc(len(cap))
				copy(t, cap)
			}
			q.dense[j].cap = t
			return nil
		default: // InstFail
			return reuse
		}
	}
}

// step advances the threads of runq over r (the rune at pos, -1 at the end) into nextq, and
// empties runq. A thread reaching a match ends the threads of lower priority.
func (m *machine) step(runq, nextq *queue, pos, nextPos int, r rune, nextCtx *lazyContext) {
	for j := 0; j < len(runq.dense); j++ {
		t := runq.dense[j].cap // nil for the instructions none of these cases handle
		if t == nil {
			continue
		}
		inst := &m.v.prog.Inst[runq.dense[j].pc]
		ok := false
		switch inst.Op {
		case syntax.InstMatch:
			if len(t) > 0 {
				t[1] = pos
				copy(m.matchcap, t)
			}
			m.matched = true
			for _, e := range runq.dense[j+1:] {
				if e.cap != nil {
					m.free = append(m.free, e.cap)
				}
			}
			runq.dense = runq.dense[:j+1]
		case syntax.InstRune:
			ok = inst.MatchRune(r)
		case syntax.InstRune1:
			ok = r == inst.Rune[0]
		case syntax.InstRuneAny:
			ok = r >= 0
		case syntax.InstRuneAnyNotNL:
			ok = r >= 0 && r != '\n'
		}
		if ok {
			t = m.add(nextq, inst.Out, nextPos, t, nextCtx, t)
		}
		if t != nil {
			m.free = append(m.free, t)
		}
	}
	runq.dense = runq.dense[:0]
}
