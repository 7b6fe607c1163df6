package model

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Where a price comes from, in order of precedence.
const (
	SourceConfig  = "model.prices"
	SourceFile    = "model.prices_file"
	SourceBuiltin = "built-in"
)

// PricedModel is one entry of a price table: a model name as it is looked up, the provider
// that serves it at that price, and where the price came from (SourceConfig, SourceFile,
// SourceBuiltin).
type PricedModel struct {
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Source   string `json:"source"`
	Price
}

// PriceTable is the price lookup of a run: model.prices over model.prices_file over the
// shipped table.
type PriceTable struct {
	layers []priceLayer // highest precedence first
}

type priceLayer struct {
	entries map[string]PricedModel
	folded  map[string]string // lower-case name → name, for a lookup that ignores case
}

func newLayer(entries map[string]PricedModel) priceLayer {
	l := priceLayer{entries: entries, folded: make(map[string]string, len(entries))}
	for name := range entries {
		f := strings.ToLower(name)
		if prev, ok := l.folded[f]; !ok || name < prev {
			l.folded[f] = name
		}
	}
	return l
}

// NewPriceTable returns the price table of cfg: cfg.Prices, the litellm table cfg.PricesFile
// names (when set) and the shipped table.
func NewPriceTable(cfg Config) (*PriceTable, error) {
	t := &PriceTable{}
	if len(cfg.Prices) > 0 {
		entries := make(map[string]PricedModel, len(cfg.Prices))
		for name, p := range cfg.Prices {
			if err := p.validate(); err != nil {
				return nil, fmt.Errorf("model.prices[%q]: %w", name, err)
			}
			entries[name] = PricedModel{Name: name, Provider: providerOfName(name), Source: SourceConfig, Price: p}
		}
		t.layers = append(t.layers, newLayer(entries))
	}
	if cfg.PricesFile != "" {
		entries, err := readLiteLLMPrices(cfg.PricesFile)
		if err != nil {
			return nil, err
		}
		t.layers = append(t.layers, newLayer(entries))
	}
	builtin, err := builtinPrices()
	if err != nil {
		return nil, err
	}
	t.layers = append(t.layers, builtin)
	return t, nil
}

// Lookup returns the price of the first of names that a table knows, trying each name's
// alternative spellings (priceCandidates) and then the same spellings with case ignored. A
// higher table wins over a lower one whatever the spelling that matched.
func (t *PriceTable) Lookup(names ...string) (PricedModel, bool) {
	var cands []string
	for _, n := range names {
		for _, c := range priceCandidates(n) {
			if !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
	}
	for _, l := range t.layers {
		for _, c := range cands {
			if m, ok := l.entries[c]; ok {
				return m, true
			}
		}
		for _, c := range cands {
			if name, ok := l.folded[strings.ToLower(c)]; ok {
				return l.entries[name], true
			}
		}
	}
	return PricedModel{}, false
}

// Models returns every priced model, the entry of the highest table for a name known to
// several, sorted by provider and name.
func (t *PriceTable) Models() []PricedModel {
	seen := map[string]bool{}
	var out []PricedModel
	for _, l := range t.layers {
		for name, m := range l.entries {
			if !seen[name] {
				seen[name] = true
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, func(a, b PricedModel) int {
		if c := strings.Compare(a.Provider, b.Provider); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// LookupPrice finds the price of cfg's model in cfg's price tables (NewPriceTable): by
// cfg.PriceAs when it is set, else by names (the configured model name first, then the name
// sent to the API). ok is false when no table knows the model.
func LookupPrice(cfg Config, names ...string) (m PricedModel, ok bool, err error) {
	t, err := NewPriceTable(cfg)
	if err != nil {
		return PricedModel{}, false, err
	}
	if cfg.PriceAs != "" {
		m, ok = t.Lookup(cfg.PriceAs)
		if !ok {
			return PricedModel{}, false, fmt.Errorf("model.price_as %q: %w: no price table knows it; give a priced name (swebench-run models lists them) or add it under model.prices", cfg.PriceAs, ErrUnknownPrice)
		}
		return m, true, nil
	}
	m, ok = t.Lookup(names...)
	return m, ok, nil
}

// Provider prefixes of model names (litellm's), and the clouds among them, whose model ids
// also find the price of the lab's own API.
var (
	cloudPrefixes = []string{"bedrock/", "vertex_ai/", "azure/"}
	// labPrefixes are the labs whose API serves a bare model name (gemini-2.5-pro) at the
	// price the table has under the prefixed name, tried in this order.
	labPrefixes = []string{"gemini/", "xai/", "mistral/", "deepseek/", "moonshot/", "zai/", "dashscope/", "minimax/"}
	// openRouterOrgs maps an OpenRouter organisation to the prefix of the lab's own API.
	openRouterOrgs = map[string]string{
		"anthropic/": "", "openai/": "", "google/": "gemini/", "x-ai/": "xai/", "mistralai/": "mistral/",
		"deepseek/": "deepseek/", "moonshotai/": "moonshot/", "z-ai/": "zai/", "qwen/": "dashscope/", "minimax/": "minimax/",
	}
	// Bedrock: cross-region inference profile prefixes, and the version suffix of a model id.
	bedrockGeo     = regexp.MustCompile(`^(us|eu|apac|jp|au|us-gov|global)\.`)
	bedrockVersion = regexp.MustCompile(`-v\d+(:\d+)?$`)
	// dotted versions as OpenRouter spells Claude models (claude-sonnet-4.5).
	dottedVersion = regexp.MustCompile(`(\d)\.(\d)`)
	// vertexDate is the version of a Vertex AI Claude id that is the Anthropic model's date.
	vertexDate = regexp.MustCompile(`^\d{8}$`)
)

// priceCandidates returns the names under which a table may hold the price of name, most
// specific first:
//
//   - the name as given;
//   - without its provider prefix (openai/gpt-5 → gpt-5, deepseek/deepseek-chat → deepseek-chat);
//   - Bedrock ids (bedrock/[converse/|invoke/]ID): the id with and without bedrock/, without
//     its cross-region prefix (us., eu., apac., jp., au., global.), and for a Claude model the
//     Anthropic name (anthropic.claude-sonnet-4-5-20250929-v1:0 → claude-sonnet-4-5-20250929);
//   - Vertex AI ids (vertex_ai/MODEL[@VERSION]): MODEL@VERSION, vertex_ai/MODEL, and for a
//     Claude model the Anthropic names (claude-sonnet-4-5@20250929 → claude-sonnet-4-5-20250929,
//     claude-sonnet-4-5); a Gemini model also finds gemini/MODEL;
//   - Azure deployments (azure/[eu/|us/|global/]NAME): azure/NAME and NAME, so a deployment
//     named after its model finds the model's price (another deployment needs model.price_as);
//   - OpenRouter ids (openrouter/ORG/MODEL): ORG/MODEL, and the lab's own name of the model
//     (openrouter/google/gemini-2.5-pro → gemini/gemini-2.5-pro; claude-sonnet-4.5 → claude-sonnet-4-5);
//   - Fireworks short ids (fireworks_ai/MODEL → fireworks_ai/accounts/fireworks/models/MODEL);
//   - self-served models (hosted_vllm/NAME, litellm_proxy/NAME): NAME;
//   - a bare name, or one left bare by the rules above, also as a lab's prefixed name
//     (gemini-2.5-pro → gemini/gemini-2.5-pro, grok-4 → xai/grok-4).
//
// Third-party hosts (together_ai/, groq/, fireworks_ai/, deepinfra/, nebius/, cerebras/) never
// fall back to the lab's price: they set their own.
func priceCandidates(name string) []string {
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	add(name)
	prefix, rest, hasPrefix := strings.Cut(name, "/")
	bare := "" // a lab's model name, looked up under the labs' prefixes at the end
	switch {
	case !hasPrefix:
		bare = name
	case prefix == "bedrock":
		id := rest
		for _, route := range []string{"converse/", "invoke/"} {
			id = strings.TrimPrefix(id, route)
		}
		add("bedrock/"+id, id)
		base := bedrockGeo.ReplaceAllString(id, "")
		add("bedrock/"+base, base)
		if m, ok := strings.CutPrefix(base, "anthropic."); ok {
			add(bedrockVersion.ReplaceAllString(m, ""))
		}
	case prefix == "vertex_ai":
		model, version, _ := strings.Cut(rest, "@")
		add(rest, "vertex_ai/"+model)
		if vertexDate.MatchString(version) {
			add(model + "-" + version)
		}
		add(model)
		if strings.HasPrefix(model, "gemini-") {
			bare = model
		}
	case prefix == "azure":
		add(rest)
		for _, region := range []string{"eu/", "us/", "global/", "global-standard/"} {
			if m, ok := strings.CutPrefix(rest, region); ok {
				add("azure/"+m, m)
			}
		}
	case prefix == "openrouter":
		add(rest)
		for org, lab := range openRouterOrgs {
			if m, ok := strings.CutPrefix(rest, org); ok {
				add(lab + m)
				if strings.HasPrefix(m, "claude-") {
					add(dottedVersion.ReplaceAllString(m, "$1-$2"))
				}
			}
		}
	case prefix == "hosted_vllm" || prefix == "litellm_proxy":
		add(rest) // a self-served model, priced under the name it is served as
	case prefix == "fireworks_ai":
		if !strings.HasPrefix(rest, "accounts/") {
			add("fireworks_ai/accounts/fireworks/models/" + rest)
		}
	case prefix == "openai" || prefix == "anthropic" || slices.Contains(labPrefixes, prefix+"/"):
		add(rest)
		if prefix == "openai" {
			bare = rest // a LiteLLM proxy or vLLM model named after a lab's model
		}
	}
	if bare != "" && !strings.Contains(bare, "/") {
		for _, lab := range labPrefixes {
			add(lab + bare)
		}
	}
	return out
}

// providerOfName guesses the provider of a name in model.prices from its prefix.
func providerOfName(name string) string {
	prefix, _, ok := strings.Cut(name, "/")
	switch {
	case !ok && strings.HasPrefix(name, "claude-"):
		return "anthropic"
	case !ok:
		return "openai"
	}
	return prefix
}

//go:embed prices/*.json
var builtinFS embed.FS

// builtinFile is one file of the shipped table: the prices of one provider.
type builtinFile struct {
	Source   string            `json:"_source"`
	AsOf     string            `json:"_as_of"`
	Provider string            `json:"provider"`
	Models   map[string]Price  `json:"models"`
	Notes    map[string]string `json:"_notes"` // why an entry differs from the sources
}

var builtinPrices = sync.OnceValues(func() (priceLayer, error) {
	files, err := builtinFS.ReadDir("prices")
	if err != nil {
		return priceLayer{}, err
	}
	entries := map[string]PricedModel{}
	for _, f := range files {
		name := path.Join("prices", f.Name())
		data, err := builtinFS.ReadFile(name)
		if err != nil {
			return priceLayer{}, err
		}
		var bf builtinFile
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&bf); err != nil {
			return priceLayer{}, fmt.Errorf("embedded %s: %w", name, err)
		}
		if bf.Provider == "" || bf.Source == "" || bf.AsOf == "" {
			return priceLayer{}, fmt.Errorf("embedded %s: provider, _source and _as_of are required", name)
		}
		for model, p := range bf.Models {
			if err := p.validate(); err != nil {
				return priceLayer{}, fmt.Errorf("embedded %s: %s: %w", name, model, err)
			}
			if prev, dup := entries[model]; dup {
				return priceLayer{}, fmt.Errorf("embedded %s: %s is also priced by the %s table", name, model, prev.Provider)
			}
			entries[model] = PricedModel{Name: model, Provider: bf.Provider, Source: SourceBuiltin, Price: p}
		}
	}
	return newLayer(entries), nil
})

// litellm's model_prices_and_context_window.json: per-token prices, long-context prices as
// <field>_above_<N>k_tokens, and tiered_pricing ranges (DashScope).
var (
	litellmFields = map[string]func(*Price) *float64{
		"input_cost_per_token":            func(p *Price) *float64 { return &p.Input },
		"output_cost_per_token":           func(p *Price) *float64 { return &p.Output },
		"cache_read_input_token_cost":     func(p *Price) *float64 { return &p.CacheRead },
		"cache_creation_input_token_cost": func(p *Price) *float64 { return &p.CacheWrite },
		"output_cost_per_reasoning_token": func(p *Price) *float64 { return &p.Reasoning },
	}
	litellmTierField = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost|output_cost_per_reasoning_token)_above_(\d+)k_tokens$`)
	// litellmModes are the modes of entries that price text generation.
	litellmModes = []string{"", "chat", "completion", "responses"}
)

// readLiteLLMPrices reads a price table in the format of litellm's
// model_prices_and_context_window.json. Entries of other modes (embedding, image generation,
// …) and entries without input and output token prices are left out; sample_spec too.
func readLiteLLMPrices(file string) (map[string]PricedModel, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("model.prices_file: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return nil, fmt.Errorf("model.prices_file %s: line %d, column %d: %w: give litellm's model_prices_and_context_window.json or a file in its format", file, line, col, err)
		}
		return nil, fmt.Errorf("model.prices_file %s: %w: want a JSON object of model names, as litellm's model_prices_and_context_window.json", file, err)
	}
	out := make(map[string]PricedModel, len(raw))
	for name, v := range raw {
		if name == "sample_spec" {
			continue
		}
		var entry map[string]json.RawMessage
		if json.Unmarshal(v, &entry) != nil {
			continue // not a model (a date, a comment)
		}
		m, ok, err := litellmEntry(name, entry)
		if err != nil {
			return nil, fmt.Errorf("model.prices_file %s: entry %q: %w", file, name, err)
		}
		if ok {
			out[name] = m
		}
	}
	return out, nil
}

// litellmEntry converts one entry of a litellm table; ok is false for an entry that prices no
// text generation.
func litellmEntry(name string, e map[string]json.RawMessage) (m PricedModel, ok bool, err error) {
	var mode, provider string
	if err := stringField(e, "mode", &mode); err != nil {
		return m, false, err
	}
	if err := stringField(e, "litellm_provider", &provider); err != nil {
		return m, false, err
	}
	if !slices.Contains(litellmModes, mode) {
		return m, false, nil
	}
	m = PricedModel{Name: name, Provider: litellmProvider(provider, name), Source: SourceFile}
	var hasIn, hasOut bool
	tiers := map[int]*PriceTier{}
	for key, raw := range e {
		if set, ok := litellmFields[key]; ok {
			if err := perMillion(key, raw, set(&m.Price)); err != nil {
				return m, false, err
			}
			hasIn = hasIn || key == "input_cost_per_token"
			hasOut = hasOut || key == "output_cost_per_token"
			continue
		}
		sub := litellmTierField.FindStringSubmatch(key)
		if sub == nil {
			continue
		}
		k, _ := strconv.Atoi(sub[2])
		t := tiers[k*1000]
		if t == nil {
			t = &PriceTier{AboveInputTokens: k * 1000}
			tiers[k*1000] = t
		}
		var tp Price
		if err := perMillion(key, raw, litellmFields[sub[1]](&tp)); err != nil {
			return m, false, err
		}
		mergeTier(t, tp)
	}
	if rawTiers, ok := e["tiered_pricing"]; ok && !hasIn && !hasOut {
		var ranges []map[string]json.RawMessage
		if err := json.Unmarshal(rawTiers, &ranges); err != nil {
			return m, false, fmt.Errorf("tiered_pricing: %w: want a list of objects with range and prices", err)
		}
		for i, r := range ranges {
			var bounds []float64
			if err := json.Unmarshal(r["range"], &bounds); err != nil || len(bounds) != 2 || bounds[0] < 0 {
				return m, false, fmt.Errorf("tiered_pricing[%d].range: want [from, to] in input tokens", i)
			}
			var tp Price
			var tIn, tOut bool
			for key, raw := range r {
				if set, ok := litellmFields[key]; ok {
					if err := perMillion(fmt.Sprintf("tiered_pricing[%d].%s", i, key), raw, set(&tp)); err != nil {
						return m, false, err
					}
					tIn = tIn || key == "input_cost_per_token"
					tOut = tOut || key == "output_cost_per_token"
				}
			}
			if !tIn || !tOut {
				return m, false, fmt.Errorf("tiered_pricing[%d]: input_cost_per_token and output_cost_per_token are required", i)
			}
			if bounds[0] == 0 {
				m.Price, hasIn, hasOut = tp, true, true
				continue
			}
			t := &PriceTier{AboveInputTokens: int(bounds[0])}
			mergeTier(t, tp)
			tiers[t.AboveInputTokens] = t
		}
	}
	if !hasIn || !hasOut {
		return m, false, nil // no token prices: an image, audio or per-request model
	}
	for _, t := range tiers {
		m.Tiers = append(m.Tiers, *t)
	}
	if m.Reasoning == m.Output {
		m.Reasoning = 0
	}
	if err := m.Price.validate(); err != nil {
		return m, false, err
	}
	return m, true, nil
}

func mergeTier(t *PriceTier, p Price) {
	for _, f := range []struct{ dst, src *float64 }{
		{&t.Input, &p.Input}, {&t.Output, &p.Output}, {&t.CacheRead, &p.CacheRead},
		{&t.CacheWrite, &p.CacheWrite}, {&t.Reasoning, &p.Reasoning},
	} {
		if *f.src != 0 {
			*f.dst = *f.src
		}
	}
}

// perMillion reads a per-token price into dst as USD per million tokens, rounded to 12
// significant digits (3e-06 is 3, not 2.9999999999999996).
func perMillion(key string, raw json.RawMessage, dst *float64) error {
	if string(raw) == "null" {
		return nil
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%s is %s: want a number of USD per token", key, raw)
	}
	if v < 0 {
		return fmt.Errorf("%s is %s: a price is not negative", key, raw)
	}
	*dst, _ = strconv.ParseFloat(strconv.FormatFloat(v*1e6, 'g', 12, 64), 64)
	return nil
}

func stringField(e map[string]json.RawMessage, key string, dst *string) error {
	raw, ok := e[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s is %s: want a string", key, raw)
	}
	return nil
}

// litellmProvider names the provider of a litellm entry as the model name prefixes do.
func litellmProvider(p, name string) string {
	switch {
	case strings.HasPrefix(p, "vertex_ai"):
		return "vertex_ai"
	case strings.HasPrefix(p, "bedrock"):
		return "bedrock"
	case p == "text-completion-openai":
		return "openai"
	case p == "azure_text":
		return "azure"
	case p == "":
		return providerOfName(name)
	}
	return p
}

// lineCol returns the position of the byte a json.SyntaxError is about (its Offset counts the
// bytes read, that byte included).
func lineCol(data []byte, offset int64) (line, col int) {
	at := max(0, min(offset-1, int64(len(data))))
	before := data[:at]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(at) - bytes.LastIndexByte(before, '\n')
	return line, col
}
