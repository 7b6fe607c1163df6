package model

import (
	"net/http"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestResolveProvider(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": "http://proxy:4000/v1", "ZAI_API_BASE": "https://zai.example/v4",
			"AWS_REGION": "eu-west-1", "AZURE_API_BASE": "https://my-resource.openai.azure.com"}[k]
	}
	tests := []struct {
		cfg          Config
		wantKind     apiKind
		wantProvider string
		wantModel    string
		wantBase     string
		wantText     bool
	}{
		{Config{ModelName: "anthropic/claude-sonnet-4-5-20250929"}, kindAnthropic, "anthropic", "claude-sonnet-4-5-20250929", "https://api.anthropic.com", false},
		{Config{ModelName: "claude-opus-4-1", ModelClass: "litellm_textbased"}, kindAnthropic, "anthropic", "claude-opus-4-1", "https://api.anthropic.com", true},
		{Config{ModelName: "openrouter/anthropic/claude-sonnet-4.5"}, kindOpenAI, "openrouter", "anthropic/claude-sonnet-4.5", "https://openrouter.ai/api/v1", false},
		{Config{ModelName: "moonshotai/kimi-k2", ModelClass: "openrouter_textbased"}, kindOpenAI, "openrouter", "moonshotai/kimi-k2", "https://openrouter.ai/api/v1", true},
		{Config{ModelName: "deepseek/deepseek-chat"}, kindOpenAI, "deepseek", "deepseek-chat", "https://api.deepseek.com", false},
		{Config{ModelName: "together_ai/Qwen/Qwen3-Coder"}, kindOpenAI, "together_ai", "Qwen/Qwen3-Coder", "https://api.together.xyz/v1", false},
		{Config{ModelName: "gpt-5"}, kindOpenAI, "openai", "gpt-5", "http://proxy:4000/v1", false},
		{Config{ModelName: "anthropic/claude-sonnet-4-5", ModelClass: "openai"}, kindOpenAI, "openai", "anthropic/claude-sonnet-4-5", "http://proxy:4000/v1", false},
		{Config{ModelName: "gpt-5", ActionRegex: "<cmd>(.*?)</cmd>"}, kindOpenAI, "openai", "gpt-5", "http://proxy:4000/v1", true},
		{Config{ModelName: "replay:/runs/x"}, kindReplay, "replay", "", "", false},
		{Config{ModelName: "gemini/gemini-3-pro-preview"}, kindGemini, "gemini", "gemini-3-pro-preview", "https://generativelanguage.googleapis.com", false},
		{Config{ModelName: "xai/grok-4"}, kindOpenAI, "xai", "grok-4", "https://api.x.ai/v1", false},
		{Config{ModelName: "mistral/devstral-medium-2507"}, kindOpenAI, "mistral", "devstral-medium-2507", "https://api.mistral.ai/v1", false},
		{Config{ModelName: "groq/moonshotai/kimi-k2-instruct"}, kindOpenAI, "groq", "moonshotai/kimi-k2-instruct", "https://api.groq.com/openai/v1", false},
		{Config{ModelName: "fireworks_ai/accounts/fireworks/models/qwen3-coder-480b-a35b-instruct"}, kindOpenAI, "fireworks_ai", "accounts/fireworks/models/qwen3-coder-480b-a35b-instruct", "https://api.fireworks.ai/inference/v1", false},
		{Config{ModelName: "moonshot/kimi-k2-0905-preview"}, kindOpenAI, "moonshot", "kimi-k2-0905-preview", "https://api.moonshot.ai/v1", false},
		{Config{ModelName: "zai/glm-4.6"}, kindOpenAI, "zai", "glm-4.6", "https://zai.example/v4", false},
		{Config{ModelName: "dashscope/qwen3-coder-plus"}, kindOpenAI, "dashscope", "qwen3-coder-plus", "https://dashscope.aliyuncs.com/compatible-mode/v1", false},
		{Config{ModelName: "cerebras/qwen-3-coder-480b"}, kindOpenAI, "cerebras", "qwen-3-coder-480b", "https://api.cerebras.ai/v1", false},
		{Config{ModelName: "deepinfra/Qwen/Qwen3-Coder-480B-A35B-Instruct"}, kindOpenAI, "deepinfra", "Qwen/Qwen3-Coder-480B-A35B-Instruct", "https://api.deepinfra.com/v1/openai", false},
		{Config{ModelName: "nebius/Qwen/Qwen3-Coder-480B-A35B-Instruct"}, kindOpenAI, "nebius", "Qwen/Qwen3-Coder-480B-A35B-Instruct", "https://api.studio.nebius.ai/v1", false},
		{Config{ModelName: "openai/gpt-5-codex"}, kindResponses, "openai", "gpt-5-codex", "http://proxy:4000/v1", false},
		{Config{ModelName: "openai/gpt-5", ModelClass: "litellm_response"}, kindResponses, "openai", "gpt-5", "http://proxy:4000/v1", false},
		{Config{ModelName: "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"}, kindAnthropic, "bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "https://bedrock-runtime.eu-west-1.amazonaws.com", false},
		{Config{ModelName: "bedrock/converse/global.anthropic.claude-sonnet-4-5-20250929-v1:0"}, kindConverse, "bedrock", "global.anthropic.claude-sonnet-4-5-20250929-v1:0", "https://bedrock-runtime.eu-west-1.amazonaws.com", false},
		{Config{ModelName: "bedrock/openai.gpt-oss-120b-1:0"}, kindConverse, "bedrock", "openai.gpt-oss-120b-1:0", "https://bedrock-runtime.eu-west-1.amazonaws.com", false},
		{Config{ModelName: "vertex_ai/gemini-2.5-pro"}, kindGemini, "vertex_ai", "gemini-2.5-pro", "https://us-central1-aiplatform.googleapis.com", false},
		{Config{ModelName: "vertex_ai/claude-opus-4-1@20250805", ModelKwargs: map[string]any{"vertex_location": "global"}}, kindAnthropic, "vertex_ai", "claude-opus-4-1@20250805", "https://aiplatform.googleapis.com", false},
		{Config{ModelName: "vertex_ai/qwen/qwen3-coder-480b-a35b-instruct-maas"}, kindOpenAI, "vertex_ai", "qwen/qwen3-coder-480b-a35b-instruct-maas", "https://us-central1-aiplatform.googleapis.com", false},
		{Config{ModelName: "azure/my-gpt-5-deployment"}, kindOpenAI, "azure", "my-gpt-5-deployment", "https://my-resource.openai.azure.com", false},
		{Config{ModelName: "azure/my-codex"}, kindResponses, "azure", "my-codex", "https://my-resource.openai.azure.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.cfg.ModelName+"/"+tt.cfg.ModelClass, func(t *testing.T) {
			got, err := resolve(tt.cfg, env)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if got.kind != tt.wantKind || got.provider != tt.wantProvider || got.apiModel != tt.wantModel || got.baseURL != tt.wantBase || got.textMode != tt.wantText {
				t.Errorf("got kind %v provider %q model %q base %q text %v, want %v %q %q %q %v",
					got.kind, got.provider, got.apiModel, got.baseURL, got.textMode, tt.wantKind, tt.wantProvider, tt.wantModel, tt.wantBase, tt.wantText)
			}
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{ModelName: "xai/grok-4", ModelClass: "portkey"}, "model_class"},
		{Config{ModelName: "gemini/gemini-2.5-pro", ModelClass: "litellm_response"}, "not served through the OpenAI Responses API"},
		{Config{ModelName: "bedrock/invoke/meta.llama3-70b-instruct-v1:0", ModelKwargs: map[string]any{"aws_region_name": "us-east-1"}}, "bedrock/invoke/ is for Anthropic models"},
	} {
		_, err := resolve(tt.cfg, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.cfg.ModelName, err, tt.want)
		}
	}
}

// Model kwargs a wire cannot send are refused before any call, unless drop_params.
func TestUnsupportedKwargs(t *testing.T) {
	env := func(k string) string { return map[string]string{"GEMINI_API_KEY": testKey}[k] }
	cfg := Config{ModelName: "gemini/gemini-2.5-pro", CostTracking: "ignore_errors", ModelKwargs: map[string]any{"logit_bias": map[string]any{}, "temperature": 0.0}}
	if _, err := New(cfg, Options{Env: env}); err == nil || !strings.Contains(err.Error(), "model_kwargs logit_bias: not supported by the Gemini API") {
		t.Errorf("err = %v, want logit_bias refused", err)
	}
	cfg.ModelKwargs["drop_params"] = true
	if _, err := New(cfg, Options{Env: env}); err != nil {
		t.Errorf("with drop_params: %v", err)
	}
	cfg.ModelKwargs["aws_secret_access_key"] = "wJalrXUtnFEMI"
	if _, err := New(cfg, Options{Env: env}); err == nil || !strings.Contains(err.Error(), "model.model_kwargs.aws_secret_access_key: credentials do not belong in the config") {
		t.Errorf("err = %v, want the secret refused", err)
	}
}

// mini-swe-agent 2.x configs naming these models run unchanged: the model section decodes as
// it is, client options (drop_params, extra_headers, stream) are applied and not sent, and
// reasoning settings reach each API in its own words.
func TestMiniConfigsUnchanged(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		reply string
		check func(t *testing.T, body map[string]any, h http.Header)
	}{
		{"litellm_response with reasoning_effort", `
model_name: openai/gpt-5
model_class: litellm_response
model_kwargs:
  drop_params: true
  reasoning_effort: high
  extra_headers: {X-Team: swe}
cost_tracking: ignore_errors
`, "responses.json", func(t *testing.T, body map[string]any, h http.Header) {
			if r, _ := body["reasoning"].(map[string]any); r["effort"] != "high" {
				t.Errorf("reasoning = %v", body["reasoning"])
			}
			if h.Get("X-Team") != "swe" || body["drop_params"] != nil || body["extra_headers"] != nil {
				t.Errorf("client options sent: header %q, body %v", h.Get("X-Team"), body)
			}
		}},
		{"Claude with thinking, streamed", `
model_name: anthropic/claude-sonnet-4-5-20250929
model_class: litellm
model_kwargs:
  thinking: {type: enabled, budget_tokens: 4000}
  stream: true
  extra_headers: {anthropic-beta: context-1m-2025-08-07}
`, "anthropic.sse", func(t *testing.T, body map[string]any, h http.Header) {
			if th, _ := body["thinking"].(map[string]any); th["budget_tokens"] != float64(4000) || body["stream"] != true {
				t.Errorf("thinking/stream = %v/%v", body["thinking"], body["stream"])
			}
			if h.Get("Anthropic-Beta") != "context-1m-2025-08-07" {
				t.Errorf("anthropic-beta = %q", h.Get("Anthropic-Beta"))
			}
		}},
		{"Claude on Bedrock with beta flags", `
model_name: bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0
model_class: litellm
model_kwargs:
  extra_headers: {anthropic-beta: "context-1m-2025-08-07, interleaved-thinking-2025-05-14", X-Team: swe}
`, "anthropic.json", func(t *testing.T, body map[string]any, h http.Header) {
			// Bedrock reads beta flags from the body (AWS's InvokeModel documentation for Claude).
			betas, _ := body["anthropic_beta"].([]any)
			if len(betas) != 2 || betas[0] != "context-1m-2025-08-07" || betas[1] != "interleaved-thinking-2025-05-14" {
				t.Errorf("anthropic_beta = %v, want both flags", body["anthropic_beta"])
			}
			if h.Get("Anthropic-Beta") != "" || h.Get("X-Team") != "swe" {
				t.Errorf("headers: anthropic-beta %q (want none), x-team %q (want swe)", h.Get("Anthropic-Beta"), h.Get("X-Team"))
			}
		}},
		{"Gemini 3 with reasoning_effort", `
model_name: gemini/gemini-3-pro-preview
model_kwargs:
  reasoning_effort: low
  temperature: 1.0
  drop_params: true
  parallel_tool_calls: true
cost_tracking: ignore_errors
`, "gemini.json", func(t *testing.T, body map[string]any, h http.Header) {
			gc, _ := body["generationConfig"].(map[string]any)
			tc, _ := gc["thinkingConfig"].(map[string]any)
			if tc["thinkingLevel"] != "low" || gc["temperature"] != 1.0 || body["parallel_tool_calls"] != nil {
				t.Errorf("generationConfig = %v, body keys %v", gc, body)
			}
		}},
	}
	awsEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg Config
			dec := yaml.NewDecoder(strings.NewReader(tt.yaml))
			dec.KnownFields(true)
			if err := dec.Decode(&cfg); err != nil {
				t.Fatal(err)
			}
			data := readTestdata(t, tt.reply)
			rec, srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(data) })
			p := testProvider(t, cfg, srv.URL, Options{Env: func(k string) string {
				switch {
				case strings.HasSuffix(k, "_API_KEY"):
					return testKey
				case k == "AWS_REGION":
					return "us-east-1"
				}
				return ""
			}})
			if _, err := queryOnce(t, p, conversation()); err != nil {
				t.Fatalf("Query: %v", err)
			}
			tt.check(t, rec.body(0), rec.header(0))
		})
	}
}
