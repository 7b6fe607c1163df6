package agent

import (
	"reflect"
	"testing"
)

func TestTemplateNames(t *testing.T) {
	tests := []struct {
		name, src string
		want      []TemplateName
	}{
		{"output", "Fix this:\n{{task}}", []TemplateName{{"task", 2}}},
		{"attribute is not a variable", "{{ x.patch }}", []TemplateName{{"x", 1}}},
		{"skipped branch still counts", "{% if false %}\n\n{{ hints_text }}{% endif %}", []TemplateName{{"if", 1}, {"false", 1}, {"hints_text", 3}, {"endif", 3}}},
		{"filter argument", "{{ FAIL_TO_PASS | join(', ') }}", []TemplateName{{"FAIL_TO_PASS", 1}, {"join", 1}}},
		{"plain text", "patch and hints_text are words here", nil},
		{"comment", "{# {{ hints_text }} #}done", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TemplateNames(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("TemplateNames(%q) = %v, want %v", tt.src, got, tt.want)
			}
		})
	}
	if _, err := TemplateNames("{{ unclosed"); err == nil {
		t.Error("an invalid template gave no error")
	}
}
