package model

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/agent"
)

// Every entry of the shipped table parses, has input and output prices and ascending tiers,
// and each provider swebench-run reaches (the labs' APIs, the clouds, the hosts) has prices.
func TestBuiltinPricesParse(t *testing.T) {
	builtin, err := builtinPrices()
	if err != nil {
		t.Fatal(err)
	}
	perProvider := map[string]int{}
	for name, m := range builtin.entries {
		perProvider[m.Provider]++
		if m.Input <= 0 || m.Output <= 0 {
			t.Errorf("%s: input %v, output %v: both are required", name, m.Input, m.Output)
		}
		for i, tier := range m.Tiers {
			if tier.Input <= 0 && tier.Output <= 0 && tier.CacheRead <= 0 {
				t.Errorf("%s: tier %d prices nothing", name, i)
			}
			if i > 0 && m.Tiers[i-1].AboveInputTokens >= tier.AboveInputTokens {
				t.Errorf("%s: tiers not ascending: %+v", name, m.Tiers)
			}
		}
		if m.Source != SourceBuiltin {
			t.Errorf("%s: source %q", name, m.Source)
		}
	}
	for _, p := range []string{"openai", "anthropic", "gemini", "vertex_ai", "bedrock", "azure", "xai", "mistral", "groq",
		"fireworks_ai", "moonshot", "zai", "dashscope", "cerebras", "deepinfra", "nebius", "together_ai", "openrouter", "deepseek", "minimax"} {
		if perProvider[p] == 0 {
			t.Errorf("no prices for provider %s", p)
		}
	}
	t.Logf("%d priced models: %v", len(builtin.entries), perProvider)
}

// The models of the SWE-bench bash-only leaderboard (mini-swe-agent runs, as litellm names
// them), and the same models under the clouds' ids, find their prices in the shipped table.
func TestLeaderboardModelsPriced(t *testing.T) {
	tests := []struct {
		model     string
		wantEntry string
		wantIn    float64
		wantOut   float64
	}{
		{"anthropic/claude-opus-4-5-20251101", "claude-opus-4-5-20251101", 5, 25},
		{"anthropic/claude-opus-4-6", "claude-opus-4-6", 5, 25},
		{"anthropic/claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", 3, 15},
		{"anthropic/claude-sonnet-4-20250514", "claude-sonnet-4-20250514", 3, 15},
		{"anthropic/claude-opus-4-20250514", "claude-opus-4-20250514", 15, 75},
		{"anthropic/claude-3-7-sonnet-20250219", "claude-3-7-sonnet-20250219", 3, 15},
		{"claude-sonnet-4-5", "claude-sonnet-4-5", 3, 15},
		{"gemini/gemini-3-pro-preview", "gemini/gemini-3-pro-preview", 2, 12},
		{"gemini/gemini-3-flash-preview", "gemini/gemini-3-flash-preview", 0.5, 3},
		{"gemini/gemini-2.5-pro", "gemini/gemini-2.5-pro", 1.25, 10},
		{"gemini/gemini-2.5-flash", "gemini/gemini-2.5-flash", 0.3, 2.5},
		{"gemini/gemini-2.0-flash", "gemini/gemini-2.0-flash", 0.1, 0.4},
		{"openai/gpt-5.1-codex", "gpt-5.1-codex", 1.25, 10},
		{"openai/gpt-5.1-2025-11-13", "gpt-5.1-2025-11-13", 1.25, 10},
		{"openai/gpt-5.2-2025-12-11", "gpt-5.2-2025-12-11", 1.75, 14},
		{"openai/gpt-5-2025-08-07", "gpt-5-2025-08-07", 1.25, 10},
		{"openai/gpt-5-mini-2025-08-07", "gpt-5-mini-2025-08-07", 0.25, 2},
		{"openai/gpt-5-nano-2025-08-07", "gpt-5-nano-2025-08-07", 0.05, 0.4},
		{"openai/o3-2025-04-16", "o3-2025-04-16", 2, 8},
		{"openai/o4-mini-2025-04-16", "o4-mini-2025-04-16", 1.1, 4.4},
		{"openai/gpt-4.1-2025-04-14", "gpt-4.1-2025-04-14", 2, 8},
		{"openai/gpt-4.1-mini-2025-04-14", "gpt-4.1-mini-2025-04-14", 0.4, 1.6},
		{"openai/gpt-4o-2024-11-20", "gpt-4o-2024-11-20", 2.5, 10},
		{"gpt-5", "gpt-5", 1.25, 10},
		{"o3", "o3", 2, 8},
		{"xai/grok-4", "xai/grok-4", 3, 15},
		{"moonshot/kimi-k2-0711-preview", "moonshot/kimi-k2-0711-preview", 0.6, 2.5},
		{"moonshot/kimi-k2-0905-preview", "moonshot/kimi-k2-0905-preview", 0.6, 2.5},
		{"moonshot/kimi-k2-thinking", "moonshot/kimi-k2-thinking", 0.6, 2.5},
		{"moonshot/kimi-k2.5", "moonshot/kimi-k2.5", 0.6, 3},
		{"zai/glm-4.6", "zai/glm-4.6", 0.6, 2.2},
		{"zai/glm-4.5", "zai/glm-4.5", 0.6, 2.2},
		{"zai/glm-5", "zai/glm-5", 1, 3.2},
		{"dashscope/qwen3-coder-plus", "dashscope/qwen3-coder-plus", 1, 5},
		{"mistral/devstral-2512", "mistral/devstral-2512", 0.4, 2},
		{"mistral/devstral-small-2512", "mistral/devstral-small-2512", 0.1, 0.3},
		{"mistral/labs-devstral-small-2512", "mistral/labs-devstral-small-2512", 0.1, 0.3},
		{"minimax/MiniMax-M2", "minimax/MiniMax-M2", 0.3, 1.2},
		{"minimax/MiniMax-M2.5", "minimax/MiniMax-M2.5", 0.3, 1.2},
		{"deepseek/deepseek-reasoner", "deepseek/deepseek-reasoner", 0.28, 0.42},
		{"deepseek/deepseek-chat", "deepseek/deepseek-chat", 0.28, 0.42},
		{"together_ai/Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "together_ai/Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", 2, 2},
		{"together_ai/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "together_ai/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", 0.27, 0.85},
		{"together_ai/meta-llama/Llama-4-Scout-17B-16E-Instruct", "together_ai/meta-llama/Llama-4-Scout-17B-16E-Instruct", 0.18, 0.59},
		{"together_ai/openai/gpt-oss-120b", "together_ai/openai/gpt-oss-120b", 0.15, 0.6},
		{"fireworks_ai/accounts/fireworks/models/qwen2p5-coder-32b-instruct", "fireworks_ai/accounts/fireworks/models/qwen2p5-coder-32b-instruct", 0.9, 0.9},
		{"groq/openai/gpt-oss-120b", "groq/openai/gpt-oss-120b", 0.15, 0.6},
		// the same models through the clouds
		{"bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3.3, 16.5},
		{"bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 15},
		{"bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 15},
		{"bedrock/converse/us.anthropic.claude-opus-4-5-20251101-v1:0", "bedrock/us.anthropic.claude-opus-4-5-20251101-v1:0", 5.5, 27.5},
		{"vertex_ai/claude-sonnet-4-5@20250929", "vertex_ai/claude-sonnet-4-5@20250929", 3, 15},
		{"vertex_ai/claude-opus-4-5@20251101", "vertex_ai/claude-opus-4-5@20251101", 5, 25},
		{"vertex_ai/gemini-3-pro-preview", "vertex_ai/gemini-3-pro-preview", 2, 12},
		{"azure/gpt-5", "azure/gpt-5", 1.25, 10},
		{"openrouter/anthropic/claude-sonnet-4.5", "openrouter/anthropic/claude-sonnet-4.5", 3, 15},
	}
	table, err := NewPriceTable(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, ok := table.Lookup(tt.model)
			if !ok {
				t.Fatalf("no price")
			}
			if got.Name != tt.wantEntry || got.Input != tt.wantIn || got.Output != tt.wantOut {
				t.Errorf("got %s %v/%v, want %s %v/%v", got.Name, got.Input, got.Output, tt.wantEntry, tt.wantIn, tt.wantOut)
			}
		})
	}
}

// The lookup rules for ids the table does not hold verbatim.
func TestPriceLookupRules(t *testing.T) {
	tests := []struct {
		name      string
		model     string
		wantEntry string // "" for no price
	}{
		{"provider prefix dropped", "openai/gpt-4.1", "gpt-4.1"},
		{"bedrock cross-region profile not in the table: the in-region id", "bedrock/apac.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0"},
		{"bedrock Claude id unknown to Bedrock's table: the Anthropic model", "bedrock/anthropic.claude-haiku-4-5-20251001-v2:0", "claude-haiku-4-5-20251001"},
		{"bedrock invoke route", "bedrock/invoke/global.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0"},
		{"vertex Claude at a version the table lacks: the Vertex model", "vertex_ai/claude-sonnet-4-6@20260217", "vertex_ai/claude-sonnet-4-6"},
		{"vertex Claude at another version: the Vertex model", "vertex_ai/claude-opus-4-1@20250805", "vertex_ai/claude-opus-4-1@20250805"},
		{"vertex Claude @default", "vertex_ai/claude-opus-4-6@default", "vertex_ai/claude-opus-4-6@default"},
		{"vertex Claude unknown to Vertex's table: the Anthropic model by date", "vertex_ai/claude-3-7-sonnet@20250219", "claude-3-7-sonnet-20250219"},
		{"vertex Gemini unknown to Vertex's table: AI Studio's", "vertex_ai/gemini-2.0-flash", "gemini/gemini-2.0-flash"},
		{"azure deployment named after its model", "azure/gpt-5-mini", "azure/gpt-5-mini"},
		{"azure deployment named after a model Azure's table lacks", "azure/o3-mini", "o3-mini"},
		{"azure data zone", "azure/eu/gpt-5-2025-08-07", "azure/eu/gpt-5-2025-08-07"},
		{"azure data zone not in the table", "azure/eu/gpt-4.1", "azure/gpt-4.1"},
		{"azure deployment with another name", "azure/my-prod-deployment", ""},
		{"openrouter id the table lacks: the lab's price", "openrouter/google/gemini-3.1-flash-lite-preview", "openrouter/google/gemini-3.1-flash-lite-preview"},
		{"openrouter Claude with dotted version", "openrouter/anthropic/claude-opus-4.8", "claude-opus-4-8"},
		{"openrouter x-ai", "openrouter/x-ai/grok-4.3", "xai/grok-4.3"},
		{"fireworks short id", "fireworks_ai/kimi-k2p5", "fireworks_ai/accounts/fireworks/models/kimi-k2p5"},
		{"bare Gemini name", "gemini-2.5-pro", "gemini/gemini-2.5-pro"},
		{"bare Grok name", "grok-4", "xai/grok-4"},
		{"case ignored", "minimax/minimax-m2.5", "minimax/MiniMax-M2.5"},
		{"a host never takes the lab's price", "together_ai/gemini-2.5-pro", ""},
		{"groq model the table lacks", "groq/openai/gpt-oss-safeguard-20b", ""},
		{"unknown local model", "hosted_vllm/my-model", ""},
		{"self-served model under its served name", "hosted_vllm/gpt-5-mini", "gpt-5-mini"},
	}
	table, err := NewPriceTable(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := table.Lookup(tt.model)
			if tt.wantEntry == "" {
				if ok {
					t.Errorf("%s priced as %s", tt.model, got.Name)
				}
				return
			}
			if !ok || got.Name != tt.wantEntry {
				t.Errorf("%s priced as %q (found %v), want %q", tt.model, got.Name, ok, tt.wantEntry)
			}
		})
	}
}

func TestPriceAs(t *testing.T) {
	got, ok, err := LookupPrice(Config{ModelName: "azure/my-prod-deployment", PriceAs: "gpt-5.1"}, "azure/my-prod-deployment")
	if err != nil || !ok || got.Name != "gpt-5.1" {
		t.Fatalf("got %+v, %v, %v; want gpt-5.1", got, ok, err)
	}
	_, _, err = LookupPrice(Config{ModelName: "azure/x", PriceAs: "gtp-5"}, "azure/x")
	if !errors.Is(err, ErrUnknownPrice) || !strings.Contains(err.Error(), "model.price_as") {
		t.Errorf("err = %v, want ErrUnknownPrice naming model.price_as", err)
	}
}

func TestCostTiersAndReasoning(t *testing.T) {
	sonnet := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75,
		Tiers: []PriceTier{{AboveInputTokens: 200_000, Input: 6, Output: 22.5, CacheRead: 0.6, CacheWrite: 7.5}}}
	qwen := Price{Input: 1, Output: 5, CacheRead: 0.1, Tiers: []PriceTier{
		{AboveInputTokens: 32_000, Input: 1.8, Output: 9, CacheRead: 0.18},
		{AboveInputTokens: 128_000, Input: 3, Output: 15, CacheRead: 0.3},
		{AboveInputTokens: 256_000, Input: 6, Output: 60, CacheRead: 0.6}}}
	grok := Price{Input: 3, Output: 15, CacheRead: 0.75, Tiers: []PriceTier{{AboveInputTokens: 128_000, Input: 6, Output: 30}}}
	thinking := Price{Input: 0.4, Output: 1.2, Reasoning: 4}
	tests := []struct {
		name  string
		price Price
		usage agent.Usage
		want  float64 // USD
	}{
		{"at the threshold: base price", sonnet, agent.Usage{InputTokens: 200_000, OutputTokens: 1000},
			(200_000*3 + 1000*15) / 1e6},
		{"above it: every token at the tier", sonnet, agent.Usage{InputTokens: 200_001, OutputTokens: 1000},
			(200_001*6 + 1000*22.5) / 1e6},
		{"cache tokens count toward the threshold", sonnet, agent.Usage{InputTokens: 250_000, CacheReadTokens: 240_000, CacheWriteTokens: 5000, OutputTokens: 100},
			(5000*6 + 240_000*0.6 + 5000*7.5 + 100*22.5) / 1e6},
		{"first of three tiers", qwen, agent.Usage{InputTokens: 50_000, OutputTokens: 2000},
			(50_000*1.8 + 2000*9) / 1e6},
		{"last of three tiers", qwen, agent.Usage{InputTokens: 300_000, CacheReadTokens: 100_000, OutputTokens: 2000},
			(200_000*6 + 100_000*0.6 + 2000*60) / 1e6},
		{"a tier without a cache price keeps the base one", grok, agent.Usage{InputTokens: 150_000, CacheReadTokens: 100_000, OutputTokens: 10},
			(50_000*6 + 100_000*0.75 + 10*30) / 1e6},
		{"reasoning billed at its own price", thinking, agent.Usage{InputTokens: 1000, OutputTokens: 500, ReasoningTokens: 400},
			(1000*0.4 + 100*1.2 + 400*4) / 1e6},
		{"reasoning at the output price when it has none", sonnet, agent.Usage{InputTokens: 1000, OutputTokens: 500, ReasoningTokens: 400},
			(1000*3 + 500*15) / 1e6},
		{"reasoning above the output is capped", thinking, agent.Usage{InputTokens: 0, OutputTokens: 10, ReasoningTokens: 50},
			(10 * 4) / 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.price.Cost(tt.usage); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("cost = %v, want %v", got, tt.want)
			}
		})
	}
}

// OpenAI's usage object counts reasoning tokens inside completion_tokens
// (completion_tokens_details.reasoning_tokens); the body follows the documented shape of a
// chat completion of a reasoning model.
func TestOpenAIUsageReasoningTokens(t *testing.T) {
	var resp map[string]any
	body := `{"object": "chat.completion", "model": "o4-mini-2025-04-16", "usage": {"prompt_tokens": 75, "completion_tokens": 1186, "total_tokens": 1261,
	  "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
	  "completion_tokens_details": {"reasoning_tokens": 1024, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}}`
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	u, _, _ := openAIUsage(resp)
	if want := (agent.Usage{InputTokens: 75, OutputTokens: 1186, ReasoningTokens: 1024}); u != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}
}

// A real excerpt of litellm's model_prices_and_context_window.json reads as per-million
// prices, with its long-context fields and tiered_pricing as tiers; entries that price no
// text generation are left out.
//
// testdata/litellm-prices-excerpt.json: 13 entries, unchanged, of
// https://raw.githubusercontent.com/BerriAI/litellm/00035b69f416be24e2e323c13198d9b7d2d1bdf9/model_prices_and_context_window.json
// (MIT).
func TestPricesFileLiteLLMExcerpt(t *testing.T) {
	entries, err := readLiteLLMPrices(filepath.Join("testdata", "litellm-prices-excerpt.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]PricedModel{
		"claude-sonnet-4-5-20250929": {Provider: "anthropic", Price: Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75,
			Tiers: []PriceTier{{AboveInputTokens: 200_000, Input: 6, Output: 22.5, CacheRead: 0.6, CacheWrite: 7.5}}}},
		"claude-opus-4-5":                {Provider: "anthropic", Price: Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}},
		"dashscope/qwen-plus-2025-07-14": {Provider: "dashscope", Price: Price{Input: 0.4, Output: 1.2, Reasoning: 4}},
		"dashscope/qwen3-coder-plus": {Provider: "dashscope", Price: Price{Input: 1, Output: 5, CacheRead: 0.1, Tiers: []PriceTier{
			{AboveInputTokens: 32_000, Input: 1.8, Output: 9, CacheRead: 0.18},
			{AboveInputTokens: 128_000, Input: 3, Output: 15, CacheRead: 0.3},
			{AboveInputTokens: 256_000, Input: 6, Output: 60, CacheRead: 0.6}}}},
		"databricks/databricks-claude-3-7-sonnet": {Provider: "databricks", Price: Price{Input: 2.99999, Output: 15.00002}},
		"gemini/gemini-3-pro-preview": {Provider: "gemini", Price: Price{Input: 2, Output: 12, CacheRead: 0.2,
			Tiers: []PriceTier{{AboveInputTokens: 200_000, Input: 4, Output: 18, CacheRead: 0.4}}}},
		"gemini/gemini-3-flash-preview": {Provider: "gemini", Price: Price{Input: 0.5, Output: 3, CacheRead: 0.05}},
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0": {Provider: "bedrock", Price: Price{Input: 3.3, Output: 16.5, CacheRead: 0.33, CacheWrite: 4.125,
			Tiers: []PriceTier{{AboveInputTokens: 200_000, Input: 6.6, Output: 24.75, CacheRead: 0.66, CacheWrite: 8.25}}}},
		"global.anthropic.claude-opus-4-5-20251101-v1:0": {Provider: "bedrock", Price: Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}},
	}
	for name, w := range want {
		w.Name, w.Source = name, SourceFile
		if got, ok := entries[name]; !ok || !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
	}
	for _, left := range []string{"sample_spec", "1024-x-1024/dall-e-2", "databricks/databricks-bge-large-en", "dashscope/qwen3-30b-a3b"} {
		if _, ok := entries[left]; ok {
			t.Errorf("%s was read as a priced model", left)
		}
	}
	if len(entries) != len(want) {
		t.Errorf("%d entries, want %d", len(entries), len(want))
	}
}

// model.prices > model.prices_file > the shipped table, whatever spelling matched.
func TestPricesPrecedence(t *testing.T) {
	file := filepath.Join("testdata", "litellm-prices-excerpt.json")
	cfg := Config{PricesFile: file, Prices: map[string]Price{"claude-opus-4-5": {Input: 1, Output: 2}}}
	tests := []struct {
		model      string
		wantSource string
		wantEntry  string
		wantIn     float64
	}{
		{"anthropic/claude-opus-4-5", SourceConfig, "claude-opus-4-5", 1},
		// the file holds the Bedrock id without bedrock/, the shipped table with it: the file wins
		{"bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", SourceFile, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3.3},
		{"gemini/gemini-3-pro-preview", SourceFile, "gemini/gemini-3-pro-preview", 2},
		{"openai/gpt-5", SourceBuiltin, "gpt-5", 1.25},
	}
	table, err := NewPriceTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		got, ok := table.Lookup(tt.model)
		if !ok || got.Source != tt.wantSource || got.Name != tt.wantEntry || got.Input != tt.wantIn {
			t.Errorf("%s: got %s %s %v (found %v), want %s %s %v", tt.model, got.Source, got.Name, got.Input, ok, tt.wantSource, tt.wantEntry, tt.wantIn)
		}
	}
	models := table.Models()
	n := 0
	for _, m := range models {
		if m.Name == "claude-opus-4-5" {
			n++
			if m.Source != SourceConfig {
				t.Errorf("Models lists claude-opus-4-5 from %s, want %s", m.Source, SourceConfig)
			}
		}
	}
	if n != 1 {
		t.Errorf("Models lists claude-opus-4-5 %d times", n)
	}
}

func TestPricesFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		file string
		want []string // substrings of the error
	}{
		{"missing", filepath.Join(dir, "nope.json"), []string{"model.prices_file", "nope.json", "no such file"}},
		{"not JSON", write("bad.json", "{\n  \"gpt-5\": {\"input_cost_per_token\": 1e-6,\n}\n"), []string{"bad.json", "line 3, column 1"}},
		{"a list", write("list.json", `[1, 2]`), []string{"list.json", "JSON object of model names"}},
		{"price not a number", write("str.json", `{"my-model": {"input_cost_per_token": "0.000001", "output_cost_per_token": 2e-6, "mode": "chat"}}`),
			[]string{"str.json", `entry "my-model"`, "input_cost_per_token", "want a number"}},
		{"negative price", write("neg.json", `{"my-model": {"input_cost_per_token": 1e-6, "output_cost_per_token": -2e-6}}`),
			[]string{"neg.json", `entry "my-model"`, "output_cost_per_token", "not negative"}},
		{"bad tier", write("tier.json", `{"my-model": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "input_cost_per_token_above_200k_tokens": true}}`),
			[]string{"tier.json", `entry "my-model"`, "input_cost_per_token_above_200k_tokens"}},
		{"tiered_pricing without a range", write("range.json", `{"q": {"mode": "chat", "tiered_pricing": [{"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}]}}`),
			[]string{"range.json", `entry "q"`, "tiered_pricing[0].range"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewPriceTable(Config{PricesFile: tt.file})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// model.prices is written in YAML, tiers included, and checked.
func TestConfigPricesYAML(t *testing.T) {
	src := `
model_name: my-model
prices:
  my-model:
    input: 1.25
    output: 10
    cache_read: 0.125
    tiers:
      - {above_input_tokens: 200000, input: 2.5, output: 15}
`
	var cfg Config
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	got, ok, err := LookupPrice(cfg, cfg.ModelName)
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	want := Price{Input: 1.25, Output: 10, CacheRead: 0.125, Tiers: []PriceTier{{AboveInputTokens: 200_000, Input: 2.5, Output: 15}}}
	if !reflect.DeepEqual(got.Price, want) {
		t.Errorf("price %+v, want %+v", got.Price, want)
	}
	cfg.Prices["my-model"] = Price{Input: 1, Output: 1, Tiers: []PriceTier{{AboveInputTokens: 0, Input: 2}}}
	if _, _, err := LookupPrice(cfg, cfg.ModelName); err == nil || !strings.Contains(err.Error(), `model.prices["my-model"]`) {
		t.Errorf("err = %v, want one naming model.prices[\"my-model\"]", err)
	}
}
