package rebench

import (
	"fmt"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/eval/logparse"
	"github.com/swebench-run/swebench-run/internal/pytext"
)

// SWE-rebench's harness fork (built on SWE-bench harness 4.0) names its parser in each row's
// install_config.log_parser and looks it up in its own table, whose parsers predate fixes the
// harness made later: its pytest parsers keep pytest's "SKIPPED [N] file:line" summary lines as
// tests, and its parse_log_pytest_v2 keeps only the first word after the status as the test
// name. Grading a SWE-rebench row exactly as its harness does needs these older versions.
var parsers = map[string]logparse.Parser{
	"parse_log_pytest":         parsePytest,
	"parse_log_pytest_options": parsePytestOptions,
	"parse_log_pytest_v2":      parsePytestV2,
}

// Parser returns the parser SWE-rebench's harness fork uses for a row whose
// install_config.log_parser is name.
func Parser(name string) (logparse.Parser, error) {
	p, ok := parsers[name]
	if !ok {
		return nil, fmt.Errorf("install_config.log_parser %q is not a parser SWE-rebench's harness knows: use one of %s", name, strings.Join(ParserNames(), ", "))
	}
	return p, nil
}

// ParserNames lists the parser names SWE-rebench rows may use, sorted.
func ParserNames() []string {
	names := make([]string, 0, len(parsers))
	for n := range parsers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func parsePytest(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range logparse.Lines(log) {
		if f := logparse.PytestSummaryFields(line); f != nil {
			m.Set(f[1], f[0])
		}
	}
	return m, nil
}

func parsePytestOptions(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range logparse.Lines(log) {
		if f := logparse.PytestSummaryFields(line); f != nil {
			m.Set(logparse.PytestOptionName(f[1]), f[0])
		}
	}
	return m, nil
}

func parsePytestV2(log, _ string) (*logparse.Map, error) {
	m := logparse.NewMap()
	for _, line := range logparse.Lines(log) {
		line = logparse.StripColourAndControls(line)
		switch {
		case logparse.StartsWithStatus(line):
			if strings.HasPrefix(line, logparse.Failed) {
				line = strings.ReplaceAll(line, " - ", " ")
			}
			if f := pytext.Fields(line); len(f) >= 2 {
				m.Set(f[1], f[0])
			}
		case logparse.EndsWithStatus(line):
			if f := pytext.Fields(line); len(f) >= 2 {
				m.Set(f[0], f[1])
			}
		}
	}
	return m, nil
}
