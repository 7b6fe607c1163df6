package agent

import (
	"io"

	"github.com/sirupsen/logrus"
)

// SetTemplateLogOutput sends what the template engine (gonja) logs on its own — through
// logrus, to the terminal by default — to w. The func returned restores the previous output.
func SetTemplateLogOutput(w io.Writer) (restore func()) {
	std := logrus.StandardLogger()
	prev := std.Out
	std.SetOutput(w)
	return func() { std.SetOutput(prev) }
}
