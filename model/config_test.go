package model

import "testing"

func TestResolveProvider(t *testing.T) {
	env := func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return "http://proxy:4000/v1"
		}
		return ""
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
