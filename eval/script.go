package eval

import (
	"strings"
	"unicode"
)

// EvalScript returns the eval.sh the harness (v5) runs for a dataset row's eval_script: the script
// with its shebang and `set -uxo pipefail` lines normalised, and the test command's exit status
// recorded after the end marker as ">>>>> Test Exit Code: N", which grading cross-checks against
// the parsed log. A script without the end marker is left as it is.
func EvalScript(evalScript string) string {
	var kept []string
	for _, l := range strings.Split(strings.TrimFunc(evalScript, unicode.IsSpace), "\n") {
		if l != "#!/bin/bash" && l != "set -uxo pipefail" {
			kept = append(kept, l)
		}
	}
	for i, l := range kept {
		if strings.Contains(l, MarkerEnd) {
			withCode := append([]string{}, kept[:i]...)
			withCode = append(withCode, exitCodeVar+"=$?", l, `echo "`+MarkerExitCode+`: $`+exitCodeVar+`"`)
			kept = append(withCode, kept[i+1:]...)
			break
		}
	}
	return "#!/bin/bash\nset -uxo pipefail\n" + strings.Join(kept, "\n") + "\n"
}
