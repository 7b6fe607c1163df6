package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestConfigShow(t *testing.T) {
	dir := t.TempDir()
	extra := filepath.Join(dir, "extra.yaml")
	if err := os.WriteFile(extra, []byte("agent:\n  step_limit: 7\nenvironment:\n  image: python:3.11\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		json       bool
		stepLimit  int
		modelName  string
		modelClass any
		wantStderr string
	}{
		{"default", []string{"show"}, false, 250, "", nil, ""},
		{"text mode by name", []string{"show", "-c", "swebench_backticks.yaml"}, false, 250, "", "litellm_textbased", ""},
		{"files, overrides and model", []string{"show", "-c", "swebench.yaml", "-c", extra, "-c", "agent.cost_limit=0.5", "--model", "openai/gpt-5", "--json"}, true, 7, "openai/gpt-5", nil, "environment.image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := execCLI(append([]string{"config"}, tt.args...), &out, &errOut); err != nil {
				t.Fatalf("config show: %v", err)
			}
			var got map[string]any
			var err error
			if tt.json {
				err = json.Unmarshal(out.Bytes(), &got)
			} else {
				err = yaml.Unmarshal(out.Bytes(), &got)
			}
			if err != nil {
				t.Fatalf("output does not parse: %v\n%s", err, out.String())
			}
			agentSec := got["agent"].(map[string]any)
			if n, _ := agentSec["step_limit"].(float64); tt.json && int(n) != tt.stepLimit {
				t.Errorf("step_limit = %v, want %d", agentSec["step_limit"], tt.stepLimit)
			}
			if n, _ := agentSec["step_limit"].(int); !tt.json && n != tt.stepLimit {
				t.Errorf("step_limit = %v, want %d", agentSec["step_limit"], tt.stepLimit)
			}
			m := got["model"].(map[string]any)
			if m["model_name"] != tt.modelName || m["model_class"] != tt.modelClass {
				t.Errorf("model %v class %v, want %q %v", m["model_name"], m["model_class"], tt.modelName, tt.modelClass)
			}
			if !strings.Contains(errOut.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to mention %q", errOut.String(), tt.wantStderr)
			}
		})
	}
}

func TestConfigList(t *testing.T) {
	var out bytes.Buffer
	if err := execCLI([]string{"config", "list"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "swebench.yaml\t(default)\nswebench_backticks.yaml\nswebench_v1.yaml\n"; got != want {
		t.Errorf("list = %q, want %q", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantUsage bool
		want      string
	}{
		{"no subcommand", nil, true, "show or list"},
		{"unknown subcommand", []string{"edit"}, true, "edit"},
		{"stray argument", []string{"show", "x.yaml"}, true, "-c"},
		{"unknown key", []string{"show", "-c", "agent.step_limt=3"}, false, "agent.step_limt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := execCLI(append([]string{"config"}, tt.args...), &out, &out)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, errUsage); got != tt.wantUsage {
				t.Errorf("usage error = %v, want %v (%v)", got, tt.wantUsage, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// config show --model describes how 20 models across the providers would be called: the
// endpoint, where the key or credentials come from (never the key), and the price.
func TestConfigShowModels(t *testing.T) {
	for _, k := range []string{"OPENAI_BASE_URL", "OPENAI_API_BASE", "ANTHROPIC_BASE_URL", "AWS_ACCESS_KEY_ID", "AWS_PROFILE",
		"AWS_BEARER_TOKEN_BEDROCK", "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_AD_TOKEN", "XAI_API_KEY", "XAI_API_BASE"} {
		t.Setenv(k, "")
	}
	t.Setenv("OPENAI_API_KEY", "sk-secret-never-printed")
	t.Setenv("GEMINI_API_KEY", "gm-secret-never-printed")
	t.Setenv("AWS_REGION", "us-west-2")
	t.Setenv("VERTEXAI_PROJECT", "my-project")
	t.Setenv("VERTEXAI_LOCATION", "global")
	t.Setenv("AZURE_API_BASE", "https://my-resource.openai.azure.com")
	t.Setenv("AZURE_API_KEY", "az-secret-never-printed")
	t.Setenv("MOONSHOT_API_BASE", "https://api.moonshot.cn/v1")
	tests := []struct {
		model, endpoint, creds, price string
	}{
		{"openai/gpt-4o", "https://api.openai.com/v1/chat/completions", "$OPENAI_API_KEY (set)", "$2.5 in, $10 out"},
		{"gpt-5", "https://api.openai.com/v1/chat/completions", "$OPENAI_API_KEY (set)", "$1.25 in, $10 out"},
		{"openai/gpt-5-codex", "https://api.openai.com/v1/responses", "$OPENAI_API_KEY (set)", ""},
		{"anthropic/claude-sonnet-4-5-20250929", "https://api.anthropic.com/v1/messages", "$ANTHROPIC_API_KEY (not set)", "$3 in, $15 out"},
		{"gemini/gemini-3-pro-preview", "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:generateContent", "$GEMINI_API_KEY (set)", ""},
		{"vertex_ai/gemini-2.5-pro", "https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/google/models/gemini-2.5-pro:generateContent", "Application Default Credentials", ""},
		{"vertex_ai/claude-sonnet-4-5@20250929", "https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict", "Application Default Credentials", ""},
		{"bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke (region us-west-2)", "AWS default credential chain", ""},
		{"bedrock/qwen.qwen3-coder-480b-a35b-v1:0", "https://bedrock-runtime.us-west-2.amazonaws.com/model/qwen.qwen3-coder-480b-a35b-v1%3A0/converse (region us-west-2)", "AWS default credential chain", ""},
		{"azure/my-gpt-4o", "https://my-resource.openai.azure.com/openai/deployments/my-gpt-4o/chat/completions?api-version=2024-10-21", "$AZURE_API_KEY (api-key header)", ""},
		{"xai/grok-4", "https://api.x.ai/v1/chat/completions", "$XAI_API_KEY (not set)", ""},
		{"mistral/devstral-medium-2507", "https://api.mistral.ai/v1/chat/completions", "$MISTRAL_API_KEY (not set)", ""},
		{"groq/moonshotai/kimi-k2-instruct", "https://api.groq.com/openai/v1/chat/completions", "$GROQ_API_KEY (not set)", ""},
		{"fireworks_ai/accounts/fireworks/models/kimi-k2-instruct", "https://api.fireworks.ai/inference/v1/chat/completions", "$FIREWORKS_AI_API_KEY or", ""},
		{"moonshot/kimi-k2-0905-preview", "https://api.moonshot.cn/v1/chat/completions (from $MOONSHOT_API_BASE)", "$MOONSHOT_API_KEY (not set)", ""},
		{"zai/glm-4.6", "https://api.z.ai/api/paas/v4/chat/completions", "$ZAI_API_KEY (not set)", ""},
		{"dashscope/qwen3-coder-plus", "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions", "$DASHSCOPE_API_KEY (not set)", ""},
		{"cerebras/qwen-3-coder-480b", "https://api.cerebras.ai/v1/chat/completions", "$CEREBRAS_API_KEY (not set)", ""},
		{"deepinfra/Qwen/Qwen3-Coder-480B-A35B-Instruct", "https://api.deepinfra.com/v1/openai/chat/completions", "$DEEPINFRA_API_KEY (not set)", ""},
		{"nebius/Qwen/Qwen3-Coder-480B-A35B-Instruct", "https://api.studio.nebius.ai/v1/chat/completions", "$NEBIUS_API_KEY (not set)", ""},
		{"deepseek/deepseek-chat", "https://api.deepseek.com/chat/completions", "$DEEPSEEK_API_KEY (not set)", "$0.28 in, $0.42 out"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := execCLI([]string{"config", "show", "--model", tt.model}, &out, &errOut); err != nil {
				t.Fatalf("config show: %v", err)
			}
			got := errOut.String()
			for _, want := range []string{"endpoint:    " + tt.endpoint, "credentials: " + tt.creds, "price:       " + tt.price} {
				if !strings.Contains(got, want) {
					t.Errorf("stderr lacks %q:\n%s", want, got)
				}
			}
			if strings.Contains(got+out.String(), "never-printed") {
				t.Errorf("a secret is printed:\n%s", got)
			}
		})
	}
}
