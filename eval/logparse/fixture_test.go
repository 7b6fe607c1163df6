package logparse

import (
	"os"
	"reflect"
	"testing"

	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// TestDjangoMultiLineDescriptions parses a real django log (fixture from SWE-bench PR 314) whose
// tests print a docstring line before "... ok"; the names must be those of the Verified row
// django__django-16950 (its FAIL_TO_PASS and PASS_TO_PASS), all passed.
func TestDjangoMultiLineDescriptions(t *testing.T) {
	data, err := os.ReadFile(testenv.Fixtures(t, "logs", "django_16950_log_output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseDjango(string(data), "django__django-16950")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"If form data is provided, a parent's auto-generated alternate key is":   Passed,
		"#24377 - Inlines with a model field default should ignore that default": Passed,
		"#24377 - If we're adding a new object, a parent's auto-generated pk":    Passed,
		"#24958 - Variant of test_inlineformset_factory_nulls_default_pks for":   Passed,
	}
	if got := m.Statuses(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
