package all

import (
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/family/live"
	"github.com/swebench-run/swebench-run/family/pro"
)

// The families section is read as strictly as the rest of the config.
func TestDecodeSettings(t *testing.T) {
	tests := []struct {
		name    string
		section map[string]any
		want    Settings
		wantErr string
	}{
		{"none", nil, Settings{}, ""},
		{"both", map[string]any{"pro": map[string]any{"scripts_dir": "/x"}, "live": map[string]any{"python_image": "python:3.13"}},
			Settings{Pro: pro.Options{ScriptsDir: "/x"}, Live: live.Options{PythonImage: "python:3.13"}}, ""},
		{"an empty family", map[string]any{"pro": nil}, Settings{}, ""},
		{"an unknown key", map[string]any{"pro": map[string]any{"scripts": "/x"}}, Settings{}, "config: unknown key families.pro.scripts (known keys of families.pro: scripts_dir)"},
		{"a key not for users", map[string]any{"pro": map[string]any{"assets": "/x"}}, Settings{}, "unknown key families.pro.assets"},
		{"a family without options", map[string]any{"smith": map[string]any{"x": 1}}, Settings{}, "config: families.smith: SWE-smith has no options (the families with options: live, pro)"},
		{"no family", map[string]any{"prо": map[string]any{}}, Settings{}, "config: unknown family families.prо (the families with options: live, pro; the families: pro, multiswebench"},
		{"not a mapping", map[string]any{"live": "python:3"}, Settings{}, "config: families.live must be a mapping of its options, got python:3"},
		{"a wrong type", map[string]any{"live": map[string]any{"python_image": []any{"a"}}}, Settings{}, "config families.live: cannot unmarshal !!seq into string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeSettings(tt.section)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
