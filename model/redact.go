package model

import "strings"

// redactor removes secrets from everything the model layer returns or logs: error messages
// (OpenAI echoes the key it rejected), and, defensively, the decoded responses.
type redactor struct{ secrets []string }

const redacted = "[REDACTED]"

func newRedactor(secrets ...string) redactor {
	var r redactor
	for _, s := range secrets {
		if len(s) >= 4 {
			r.secrets = append(r.secrets, s)
		}
	}
	return r
}

func (r redactor) string(s string) string {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}

// value redacts the strings of a decoded JSON value in place and returns it.
func (r redactor) value(v any) any {
	if len(r.secrets) == 0 {
		return v
	}
	switch x := v.(type) {
	case string:
		return r.string(x)
	case map[string]any:
		for k, e := range x {
			x[k] = r.value(e)
		}
	case []any:
		for i, e := range x {
			x[i] = r.value(e)
		}
	}
	return v
}
