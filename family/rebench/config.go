package rebench

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/dataset"
)

// Column is a SWE-rebench row's per-row install recipe: its test_cmd and log_parser are what the
// harness fork builds the eval script and grades from. SWE-rebench-V2's rows carry one too.
const Column = "install_config"

// InstallConfig returns the row's install_config (a parquet struct, a JSON object, or a string
// holding one) and whether the row has one. Null values are dropped, as SWE-rebench's harness
// fork does before it reads the config.
func InstallConfig(inst *dataset.Instance) (map[string]any, bool, error) {
	m, ok, err := inst.ObjectColumn(Column)
	if !ok || err != nil {
		return nil, ok, err
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out, true, nil
}

var errNoConfig = errors.New("no install_config")

// config is the part of an install_config the eval script and grading read.
type config struct {
	testCmd      string
	install      string
	hasInstall   bool
	evalCommands []string
	logParser    string
}

func configOf(inst dataset.Instance) (config, error) {
	var c config
	m, ok, err := InstallConfig(&inst)
	if err != nil {
		return c, err
	}
	if !ok {
		return c, errNoConfig
	}
	var isStr bool
	if c.testCmd, isStr = m["test_cmd"].(string); !isStr {
		return c, fmt.Errorf("install_config.test_cmd: want a string, got %v", describe(m["test_cmd"]))
	}
	if v, has := m["install"]; has {
		if c.install, isStr = v.(string); !isStr {
			return c, fmt.Errorf("install_config.install: want a string, got %v", describe(v))
		}
		c.hasInstall = true
	}
	if v, has := m["eval_commands"]; has {
		list, isList := v.([]any)
		if !isList {
			return c, fmt.Errorf("install_config.eval_commands: want a list of strings, got %v", describe(v))
		}
		for _, e := range list {
			s, isStr := e.(string)
			if !isStr {
				return c, fmt.Errorf("install_config.eval_commands: want a list of strings, found %v", describe(e))
			}
			c.evalCommands = append(c.evalCommands, s)
		}
	}
	if c.logParser, isStr = m["log_parser"].(string); !isStr || c.logParser == "" {
		return c, fmt.Errorf("install_config.log_parser: want a parser name (one of %s), got %v",
			strings.Join(ParserNames(), ", "), describe(m["log_parser"]))
	}
	return c, nil
}

func describe(v any) string {
	if v == nil {
		return "nothing"
	}
	return fmt.Sprintf("%T %v", v, v)
}
