package pyre

import (
	"fmt"
	"math/rand"
	"reflect"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// asciiVM compiles a Go pattern for the VM with Go's own (ASCII) word characters, every search
// running on the VM: it must then answer exactly as Go's regexp does.
func asciiVM(t *testing.T, expr string) *Regexp {
	t.Helper()
	std, err := regexp.Compile(expr)
	if err != nil {
		t.Fatalf("%q: %v", expr, err)
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	return &Regexp{std: std, py: newVM(prog, false, syntax.IsWordChar), vmOnly: true}
}

// randomPattern writes a pattern of Go syntax over a small alphabet, with every construct the
// VM executes: literals, classes, repetitions (greedy and lazy), groups, alternations, anchors,
// word boundaries and flags.
func randomPattern(r *rand.Rand, depth int) string {
	atoms := []string{"a", "b", "é", "_", "1", " ", `\n`, ".", "[ab]", "[^a]", `\w`, `\W`, `\s`, `\d`, "ß", "[é_]", `\pL`}
	if depth <= 0 || r.Intn(3) == 0 {
		switch r.Intn(8) {
		case 0:
			return []string{"^", "$", `\A`, `\z`, `\b`, `\B`, `\b`, `\B`}[r.Intn(8)]
		default:
			return atoms[r.Intn(len(atoms))]
		}
	}
	sub := func() string { return randomPattern(r, depth-1) }
	switch r.Intn(10) {
	case 0, 1:
		return sub() + sub()
	case 2:
		return sub() + "|" + sub()
	case 3:
		return "(" + sub() + ")"
	case 4:
		return "(?:" + sub() + ")" + []string{"*", "+", "?", "*?", "+?", "??", "{1,2}", "{0,3}?"}[r.Intn(8)]
	case 5:
		return "(?P<g" + fmt.Sprint(r.Intn(1000)) + ">" + sub() + ")"
	case 6:
		return []string{"(?i)", "(?m)", "(?s)", "(?U)"}[r.Intn(4)] + sub()
	default:
		return sub() + sub() + sub()
	}
}

func randomText(r *rand.Rand) string {
	runes := []string{"a", "b", "A", "é", "_", "1", " ", "\n", "ß", "-", "\u0301", "\xff"}
	var b strings.Builder
	for n := r.Intn(12); n > 0; n-- {
		b.WriteString(runes[r.Intn(len(runes))])
	}
	return b.String()
}

// TestVMAgainstGo checks the VM against Go's regexp on random patterns and texts: with Go's
// word characters, every method must return what regexp.Regexp's returns.
func TestVMAgainstGo(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	patterns, texts := 2000, 30
	if testing.Short() {
		patterns = 300
	}
	for range patterns {
		expr := randomPattern(r, 4)
		if _, err := regexp.Compile(expr); err != nil {
			continue // duplicate group names and the like
		}
		vm := asciiVM(t, expr)
		std := vm.std
		for range texts {
			s := randomText(r)
			check := func(method string, got, want any) {
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s(%q) of %q: got %q, want %q (Go's regexp)", method, s, expr, got, want)
				}
			}
			check("MatchString", vm.MatchString(s), std.MatchString(s))
			check("FindString", vm.FindString(s), std.FindString(s))
			check("FindStringIndex", vm.FindStringIndex(s), std.FindStringIndex(s))
			check("FindStringSubmatch", vm.FindStringSubmatch(s), std.FindStringSubmatch(s))
			check("FindStringSubmatchIndex", vm.FindStringSubmatchIndex(s), std.FindStringSubmatchIndex(s))
			check("FindAllString", vm.FindAllString(s, -1), std.FindAllString(s, -1))
			check("FindAllString 2", vm.FindAllString(s, 2), std.FindAllString(s, 2))
			check("FindAllStringIndex", vm.FindAllStringIndex(s, -1), std.FindAllStringIndex(s, -1))
			check("FindAllStringSubmatch", vm.FindAllStringSubmatch(s, -1), std.FindAllStringSubmatch(s, -1))
			check("FindAllStringSubmatchIndex", vm.FindAllStringSubmatchIndex(s, -1), std.FindAllStringSubmatchIndex(s, -1))
			check("ReplaceAllString", vm.ReplaceAllString(s, "<$1>"), std.ReplaceAllString(s, "<$1>"))
			check("ReplaceAllLiteralString", vm.ReplaceAllLiteralString(s, "$1"), std.ReplaceAllLiteralString(s, "$1"))
			up := func(m string) string { return "[" + strings.ToUpper(m) + "]" }
			check("ReplaceAllStringFunc", vm.ReplaceAllStringFunc(s, up), std.ReplaceAllStringFunc(s, up))
			check("Split", vm.Split(s, -1), std.Split(s, -1))
			check("Split 2", vm.Split(s, 2), std.Split(s, 2))
		}
	}
}
