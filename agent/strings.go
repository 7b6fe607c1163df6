package agent

import "strings"

func stringReader(s string) *strings.Reader { return strings.NewReader(s) }
