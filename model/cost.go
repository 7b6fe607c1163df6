package model

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/swebench-run/swebench-run/agent"
)

// Price is what a model costs, in USD per million tokens. A zero CacheRead or CacheWrite bills
// those tokens at the Input price; a zero Reasoning bills reasoning tokens at the Output price.
type Price struct {
	Input      float64 `yaml:"input" json:"input"`
	Output     float64 `yaml:"output" json:"output"`
	CacheRead  float64 `yaml:"cache_read" json:"cache_read,omitempty"`
	CacheWrite float64 `yaml:"cache_write" json:"cache_write,omitempty"`
	// Reasoning is the price of reasoning (thinking) tokens where the provider bills them apart
	// from the rest of the output.
	Reasoning float64 `yaml:"reasoning" json:"reasoning,omitempty"`
	// Tiers are the prices of a call whose prompt is longer than a threshold (long-context
	// pricing): the whole call, output included, is billed at the tier of the largest threshold
	// below its input tokens. Ascending by AboveInputTokens.
	Tiers []PriceTier `yaml:"tiers" json:"tiers,omitempty"`
}

// PriceTier is the price of a call whose input (cache reads and writes included) is more than
// AboveInputTokens tokens. A zero field keeps the base price's value.
type PriceTier struct {
	AboveInputTokens int     `yaml:"above_input_tokens" json:"above_input_tokens"`
	Input            float64 `yaml:"input" json:"input,omitempty"`
	Output           float64 `yaml:"output" json:"output,omitempty"`
	CacheRead        float64 `yaml:"cache_read" json:"cache_read,omitempty"`
	CacheWrite       float64 `yaml:"cache_write" json:"cache_write,omitempty"`
	Reasoning        float64 `yaml:"reasoning" json:"reasoning,omitempty"`
}

// at returns the flat price of a call with inputTokens tokens of input: the base price, or the
// tier it falls in with the base price's values where the tier has none.
func (p Price) at(inputTokens int) Price {
	flat := p
	flat.Tiers = nil
	for _, t := range p.Tiers {
		if inputTokens <= t.AboveInputTokens {
			break
		}
		flat = p
		flat.Tiers = nil
		for _, f := range []struct{ dst, src *float64 }{
			{&flat.Input, &t.Input}, {&flat.Output, &t.Output}, {&flat.CacheRead, &t.CacheRead},
			{&flat.CacheWrite, &t.CacheWrite}, {&flat.Reasoning, &t.Reasoning},
		} {
			if *f.src != 0 {
				*f.dst = *f.src
			}
		}
	}
	return flat
}

// Cost returns the dollars a call with usage u costs. u.InputTokens includes the cache tokens,
// u.OutputTokens the reasoning tokens.
func (p Price) Cost(u agent.Usage) float64 {
	r := p.at(u.InputTokens)
	cr, cw, rs := r.CacheRead, r.CacheWrite, r.Reasoning
	if cr == 0 {
		cr = r.Input
	}
	if cw == 0 {
		cw = r.Input
	}
	if rs == 0 {
		rs = r.Output
	}
	uncached := max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	reasoning := min(max(0, u.ReasoningTokens), u.OutputTokens)
	return (float64(uncached)*r.Input + float64(u.OutputTokens-reasoning)*r.Output + float64(reasoning)*rs +
		float64(u.CacheReadTokens)*cr + float64(u.CacheWriteTokens)*cw) / 1e6
}

// validate rejects a price no provider charges: a negative number, a tier at or below zero
// tokens, two tiers at one threshold. It sorts the tiers.
func (p *Price) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"input", p.Input}, {"output", p.Output}, {"cache_read", p.CacheRead}, {"cache_write", p.CacheWrite}, {"reasoning", p.Reasoning}} {
		if f.v < 0 {
			return fmt.Errorf("%s is %v: a price is not negative", f.name, f.v)
		}
	}
	slices.SortFunc(p.Tiers, func(a, b PriceTier) int { return a.AboveInputTokens - b.AboveInputTokens })
	for i, t := range p.Tiers {
		if t.AboveInputTokens <= 0 {
			return fmt.Errorf("tiers[%d].above_input_tokens is %d: give the prompt size above which the tier applies", i, t.AboveInputTokens)
		}
		if i > 0 && p.Tiers[i-1].AboveInputTokens == t.AboveInputTokens {
			return fmt.Errorf("two tiers above %d input tokens", t.AboveInputTokens)
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"input", t.Input}, {"output", t.Output}, {"cache_read", t.CacheRead}, {"cache_write", t.CacheWrite}, {"reasoning", t.Reasoning}} {
			if f.v < 0 {
				return fmt.Errorf("tiers[%d].%s is %v: a price is not negative", i, f.name, f.v)
			}
		}
	}
	return nil
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
	if d, ok := us["completion_tokens_details"].(map[string]any); ok {
		u.ReasoningTokens = intOf(d["reasoning_tokens"]) // a part of completion_tokens
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
