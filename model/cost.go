package model

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swebench-run/swebench-run/agent"
)

// Price is what a model costs, in USD per million tokens. A zero CacheRead or CacheWrite price
// bills those tokens at the Input price.
type Price struct {
	Input      float64 `yaml:"input" json:"input"`
	Output     float64 `yaml:"output" json:"output"`
	CacheRead  float64 `yaml:"cache_read" json:"cache_read,omitempty"`
	CacheWrite float64 `yaml:"cache_write" json:"cache_write,omitempty"`
}

//go:embed prices.json
var pricesJSON []byte

// builtinPrices returns the shipped price table.
func builtinPrices() (map[string]Price, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(pricesJSON, &raw); err != nil {
		return nil, fmt.Errorf("embedded prices.json: %w", err)
	}
	out := make(map[string]Price, len(raw))
	for name, v := range raw {
		if strings.HasPrefix(name, "_") {
			continue
		}
		var p Price
		if err := json.Unmarshal(v, &p); err != nil {
			return nil, fmt.Errorf("embedded prices.json: %s: %w", name, err)
		}
		out[name] = p
	}
	return out, nil
}

// lookupPrice finds the price of a model: the config's table first, then the shipped one; the
// full configured name first, then the name sent to the API (without a provider prefix).
func lookupPrice(configured map[string]Price, names ...string) (Price, bool, error) {
	for _, n := range names {
		if p, ok := configured[n]; ok {
			return p, true, nil
		}
	}
	builtin, err := builtinPrices()
	if err != nil {
		return Price{}, false, err
	}
	for _, n := range names {
		if p, ok := builtin[n]; ok {
			return p, true, nil
		}
	}
	return Price{}, false, nil
}

// Cost returns the dollars a call with usage u costs. u.InputTokens includes the cache tokens.
func (p Price) Cost(u agent.Usage) float64 {
	cr, cw := p.CacheRead, p.CacheWrite
	if cr == 0 {
		cr = p.Input
	}
	if cw == 0 {
		cw = p.Input
	}
	uncached := max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	return (float64(uncached)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*cr + float64(u.CacheWriteTokens)*cw) / 1e6
}

// openAIUsage reads the usage object of a chat completion (OpenAI, DeepSeek, OpenRouter, vLLM).
// It returns the provider-reported cost (OpenRouter's usage.cost) when there is one.
func openAIUsage(resp map[string]any) (u agent.Usage, reported float64, hasReported bool) {
	us, _ := resp["usage"].(map[string]any)
	if us == nil {
		return u, 0, false
	}
	u.InputTokens = intOf(us["prompt_tokens"])
	u.OutputTokens = intOf(us["completion_tokens"])
	if d, ok := us["prompt_tokens_details"].(map[string]any); ok {
		u.CacheReadTokens = intOf(d["cached_tokens"])
		u.CacheWriteTokens = intOf(d["cache_write_tokens"])
	}
	if u.CacheReadTokens == 0 {
		u.CacheReadTokens = intOf(us["prompt_cache_hit_tokens"]) // DeepSeek
	}
	if u.CacheWriteTokens == 0 {
		u.CacheWriteTokens = intOf(us["cache_creation_input_tokens"])
	}
	if c, ok := us["cost"]; ok && c != nil {
		return u, floatOf(c), true
	}
	return u, 0, false
}

// anthropicUsage reads the usage of a Messages API response. Anthropic's input_tokens excludes
// cache reads and writes; agent.Usage.InputTokens includes them.
func anthropicUsage(resp map[string]any) agent.Usage {
	us, _ := resp["usage"].(map[string]any)
	if us == nil {
		return agent.Usage{}
	}
	u := agent.Usage{
		OutputTokens:     intOf(us["output_tokens"]),
		CacheReadTokens:  intOf(us["cache_read_input_tokens"]),
		CacheWriteTokens: intOf(us["cache_creation_input_tokens"]),
	}
	u.InputTokens = intOf(us["input_tokens"]) + u.CacheReadTokens + u.CacheWriteTokens
	return u
}

func floatOf(v any) float64 {
	switch n := v.(type) {
	case json.Number:
		f, _ := n.Float64()
		return f
	case float64:
		return n
	case int:
		return float64(n)
	}
	return 0
}

func intOf(v any) int { return int(floatOf(v)) }
