package logparse

import (
	"fmt"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pytext"
)

// SWE-rebench's harness fork (built on SWE-bench harness 4.0) names its parser in each row's
// install_config.log_parser and looks it up in its own table, whose parsers predate fixes the
// harness made later: its pytest parsers keep pytest's "SKIPPED [N] file:line" summary lines as
// tests, and its parse_log_pytest_v2 keeps only the first word after the status as the test
// name. Grading a SWE-rebench row exactly as its harness does needs these older versions.
var rebenchRegistry = map[string]Parser{
	"parse_log_pytest":         parsePytestRebench,
	"parse_log_pytest_options": parsePytestOptionsRebench,
	"parse_log_pytest_v2":      parsePytestV2Rebench,
}

// GetSWERebench returns the parser SWE-rebench's harness fork uses for a row whose
// install_config.log_parser is name.
func GetSWERebench(name string) (Parser, error) {
	p, ok := rebenchRegistry[name]
	if !ok {
		return nil, fmt.Errorf("install_config.log_parser %q is not a parser SWE-rebench's harness knows: use one of %s", name, strings.Join(SWERebenchNames(), ", "))
	}
	return p, nil
}

// SWERebenchNames lists the parser names SWE-rebench rows may use, sorted.
func SWERebenchNames() []string {
	names := make([]string, 0, len(rebenchRegistry))
	for n := range rebenchRegistry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// rebenchPytestFields is pytestFields without the skip-summary rule.
func rebenchPytestFields(line string) []string {
	if !startsWithStatus(line) {
		return nil
	}
	if strings.HasPrefix(line, Failed) {
		line = strings.ReplaceAll(line, " - ", " ")
	}
	if f := pytext.Fields(line); len(f) > 1 {
		return f
	}
	return nil
}

func parsePytestRebench(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		if f := rebenchPytestFields(line); f != nil {
			m.Set(f[1], f[0])
		}
	}
	return m, nil
}

func parsePytestOptionsRebench(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		if f := rebenchPytestFields(line); f != nil {
			m.Set(pytestOptionName(f[1]), f[0])
		}
	}
	return m, nil
}

func parsePytestV2Rebench(log, _ string) (*Map, error) {
	m := NewMap()
	for _, line := range lines(log) {
		line = stripColourAndControls(line)
		switch {
		case startsWithStatus(line):
			if strings.HasPrefix(line, Failed) {
				line = strings.ReplaceAll(line, " - ", " ")
			}
			if f := pytext.Fields(line); len(f) >= 2 {
				m.Set(f[1], f[0])
			}
		case endsWithStatus(line):
			if f := pytext.Fields(line); len(f) >= 2 {
				m.Set(f[0], f[1])
			}
		}
	}
	return m, nil
}
