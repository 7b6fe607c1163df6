package redact

import (
	"reflect"
	"strings"
	"testing"
)

func TestRedactorValue(t *testing.T) {
	r := New("sk-extra-secret-123")
	in := map[string]any{
		"model": map[string]any{
			"model_name": "openai/gpt-5",
			"model_kwargs": map[string]any{
				"api_key": "sk-abc", "max_tokens": 4096.0, "temperature": 0.0,
				"api_base":      "https://user:pa55word@proxy.example/v1?token=t0k3n&region=eu",
				"extra_headers": map[string]any{"Authorization": "Bearer xyz", "X-Api-Key": "k3y", "Accept": "application/json"},
			},
		},
		"environment": map[string]any{"env": map[string]any{"GITHUB_TOKEN": "ghp_1", "PAGER": "cat", "HF_TOKEN": ""}},
		"tokens":      map[string]any{"input": 10.0, "output": 2.0},
		"secret_list": []any{"a"},
		"note":        "the key is sk-extra-secret-123 here",
		"password":    "hunter2",
	}
	got := r.Value(in).(map[string]any)
	kw := got["model"].(map[string]any)["model_kwargs"].(map[string]any)
	tests := []struct {
		name      string
		got, want any
	}{
		{"api_key", kw["api_key"], Redacted},
		{"max_tokens kept", kw["max_tokens"], 4096.0},
		{"url credentials and token", kw["api_base"], "https://user:" + Redacted + "@proxy.example/v1?region=eu&token=" + Redacted},
		{"authorization header", kw["extra_headers"].(map[string]any)["Authorization"], Redacted},
		{"x-api-key header", kw["extra_headers"].(map[string]any)["X-Api-Key"], Redacted},
		{"accept header kept", kw["extra_headers"].(map[string]any)["Accept"], "application/json"},
		{"env token", got["environment"].(map[string]any)["env"].(map[string]any)["GITHUB_TOKEN"], Redacted},
		{"empty secret stays empty", got["environment"].(map[string]any)["env"].(map[string]any)["HF_TOKEN"], ""},
		{"pager kept", got["environment"].(map[string]any)["env"].(map[string]any)["PAGER"], "cat"},
		{"token counts kept", got["tokens"], map[string]any{"input": 10.0, "output": 2.0}},
		{"value in text", got["note"], "the key is " + Redacted + " here"},
		{"password", got["password"], Redacted},
		{"list under a secret-looking key kept (no string)", got["secret_list"], []any{"a"}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
	if in["password"] != "hunter2" {
		t.Error("Value changed its input")
	}
}

func TestRedactorEnvironment(t *testing.T) {
	t.Setenv("MY_SERVICE_API_KEY", "sk-from-the-environment-42")
	t.Setenv("SHORT_TOKEN", "abc") // too short to replace in text
	r := New()
	if got := r.Text("curl -H 'x: sk-from-the-environment-42' https://a.example/?x=1"); strings.Contains(got, "sk-from") {
		t.Errorf("an environment secret survived: %q", got)
	}
	if got := r.Text("abc def"); got != "abc def" {
		t.Errorf("a short value was replaced: %q", got)
	}
}

func TestHostPaths(t *testing.T) {
	r := New().WithHostPaths("/home/alice", "/work/runs/sonnet", "/tmp", "/", "/work/runs/sonnet", "")
	tests := []struct{ in, want string }{
		{"cd /home/alice && ls", "cd " + HostPath + " && ls"},
		{"/home/alice/proj/src/a.py:12: error", HostPath + "/proj/src/a.py:12: error"},
		{"see /work/runs/sonnet/x/x.traj.json", "see " + HostPath + "/x/x.traj.json"},
		{"/home/alice /home/alice /home/alice", HostPath + " " + HostPath + " " + HostPath},
		{`"/home/alice"`, `"` + HostPath + `"`},
		// Another directory whose name starts alike, or a path ending in it, is not the host's.
		{"/home/alice2/x", "/home/alice2/x"},
		{"/mnt/home/alice/x", "/mnt/home/alice/x"},
		{"/home/alice.bak", "/home/alice.bak"},
		// Paths of one component are left alone: they name the container's directories too.
		{"cat /tmp/patch.txt in /testbed", "cat /tmp/patch.txt in /testbed"},
		// Home folders of macOS and Windows are some host's, whoever ran the agent.
		{"cat: /Users/fuchur/Documents/x.py: No such file", "cat: " + HostPath + "/Documents/x.py: No such file"},
		{`C:\Users\bob\proj\a.py`, HostPath + `\proj\a.py`},
		{"/Users", "/Users"},
	}
	for _, tt := range tests {
		if got := r.Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := New().Text("/home/alice/x"); got != "/home/alice/x" {
		t.Errorf("without host paths: %q", got)
	}
}
