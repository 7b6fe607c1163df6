package model

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// apiKind is the API shape a model is called through: one wire per kind.
type apiKind int

const (
	kindOpenAI    apiKind = iota // OpenAI chat completions (and every OpenAI-compatible server)
	kindAnthropic                // Anthropic Messages (direct, Bedrock InvokeModel, Vertex rawPredict)
	kindReplay                   // recorded trajectories
	kindResponses                // OpenAI Responses
	kindGemini                   // Gemini generateContent (AI Studio and Vertex)
	kindConverse                 // Bedrock Converse
)

var kindNames = map[apiKind]string{
	kindOpenAI: "OpenAI chat completions", kindAnthropic: "Anthropic Messages", kindReplay: "replay",
	kindResponses: "OpenAI Responses", kindGemini: "Gemini generateContent", kindConverse: "Bedrock Converse",
}

// cloudKind is how a request is authenticated and addressed beyond an API key.
type cloudKind int

const (
	cloudNone    cloudKind = iota // an API key in a header
	cloudBedrock                  // AWS SigV4 (or a Bedrock API key), bedrock-runtime URLs
	cloudVertex                   // Google OAuth tokens (ADC), aiplatform URLs
	cloudAzure                    // an api-key header or an Entra ID bearer token, deployment URLs
)

// providerSpec is one row of the provider table: a litellm prefix and how to reach it.
type providerSpec struct {
	kind     apiKind
	cloud    cloudKind
	label    string
	baseURL  string   // "" when the user must give one
	keyEnvs  []string // the API key: the first one set wins
	baseEnvs []string // overrides of baseURL, litellm's <PROVIDER>_API_BASE first
}

// providerTable holds the providers addressed by a litellm-style prefix of the model name
// ("xai/grok-4"). Names, variables and default bases follow litellm, so a mini-swe-agent config
// and its environment work unchanged.
var providerTable = map[string]providerSpec{
	"openai":       {label: "OpenAI", baseURL: "https://api.openai.com/v1", keyEnvs: []string{"OPENAI_API_KEY"}, baseEnvs: []string{"OPENAI_BASE_URL", "OPENAI_API_BASE"}},
	"anthropic":    {kind: kindAnthropic, label: "Anthropic", baseURL: "https://api.anthropic.com", keyEnvs: []string{"ANTHROPIC_API_KEY"}, baseEnvs: []string{"ANTHROPIC_BASE_URL", "ANTHROPIC_API_BASE"}},
	"openrouter":   {label: "OpenRouter", baseURL: "https://openrouter.ai/api/v1", keyEnvs: []string{"OPENROUTER_API_KEY"}, baseEnvs: []string{"OPENROUTER_API_BASE"}},
	"deepseek":     {label: "DeepSeek", baseURL: "https://api.deepseek.com", keyEnvs: []string{"DEEPSEEK_API_KEY"}, baseEnvs: []string{"DEEPSEEK_API_BASE"}},
	"together_ai":  {label: "Together AI", baseURL: "https://api.together.xyz/v1", keyEnvs: []string{"TOGETHERAI_API_KEY", "TOGETHER_API_KEY", "TOGETHER_AI_API_KEY"}, baseEnvs: []string{"TOGETHER_AI_API_BASE"}},
	"hosted_vllm":  {label: "vLLM server", keyEnvs: []string{"HOSTED_VLLM_API_KEY"}, baseEnvs: []string{"HOSTED_VLLM_API_BASE"}},
	"gemini":       {kind: kindGemini, label: "Google AI Studio (Gemini API)", baseURL: "https://generativelanguage.googleapis.com", keyEnvs: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, baseEnvs: []string{"GEMINI_API_BASE"}},
	"xai":          {label: "xAI", baseURL: "https://api.x.ai/v1", keyEnvs: []string{"XAI_API_KEY"}, baseEnvs: []string{"XAI_API_BASE"}},
	"mistral":      {label: "Mistral AI", baseURL: "https://api.mistral.ai/v1", keyEnvs: []string{"MISTRAL_API_KEY"}, baseEnvs: []string{"MISTRAL_API_BASE"}},
	"groq":         {label: "Groq", baseURL: "https://api.groq.com/openai/v1", keyEnvs: []string{"GROQ_API_KEY"}, baseEnvs: []string{"GROQ_API_BASE"}},
	"fireworks_ai": {label: "Fireworks AI", baseURL: "https://api.fireworks.ai/inference/v1", keyEnvs: []string{"FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY", "FIREWORKSAI_API_KEY", "FIREWORKS_AI_TOKEN"}, baseEnvs: []string{"FIREWORKS_AI_API_BASE", "FIREWORKS_API_BASE"}},
	"moonshot":     {label: "Moonshot AI", baseURL: "https://api.moonshot.ai/v1", keyEnvs: []string{"MOONSHOT_API_KEY"}, baseEnvs: []string{"MOONSHOT_API_BASE"}},
	"zai":          {label: "Z.ai", baseURL: "https://api.z.ai/api/paas/v4", keyEnvs: []string{"ZAI_API_KEY"}, baseEnvs: []string{"ZAI_API_BASE"}},
	"dashscope":    {label: "Alibaba DashScope (Qwen)", baseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1", keyEnvs: []string{"DASHSCOPE_API_KEY"}, baseEnvs: []string{"DASHSCOPE_API_BASE"}},
	"cerebras":     {label: "Cerebras", baseURL: "https://api.cerebras.ai/v1", keyEnvs: []string{"CEREBRAS_API_KEY"}, baseEnvs: []string{"CEREBRAS_API_BASE"}},
	"deepinfra":    {label: "DeepInfra", baseURL: "https://api.deepinfra.com/v1/openai", keyEnvs: []string{"DEEPINFRA_API_KEY"}, baseEnvs: []string{"DEEPINFRA_API_BASE"}},
	"nebius":       {label: "Nebius AI Studio", baseURL: "https://api.studio.nebius.ai/v1", keyEnvs: []string{"NEBIUS_API_KEY"}, baseEnvs: []string{"NEBIUS_API_BASE"}},
	"bedrock":      {cloud: cloudBedrock, label: "AWS Bedrock", keyEnvs: []string{"AWS_BEARER_TOKEN_BEDROCK"}, baseEnvs: []string{"AWS_BEDROCK_RUNTIME_ENDPOINT"}},
	"vertex_ai":    {cloud: cloudVertex, label: "Google Vertex AI", baseEnvs: []string{"VERTEXAI_API_BASE"}},
	"azure":        {cloud: cloudAzure, label: "Azure OpenAI", keyEnvs: []string{"AZURE_API_KEY", "AZURE_OPENAI_API_KEY"}, baseEnvs: []string{"AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"}},
}

// ProviderPrefixes lists the litellm prefixes New understands, sorted.
func ProviderPrefixes() []string {
	out := make([]string, 0, len(providerTable))
	for p := range providerTable {
		out = append(out, p+"/")
	}
	sort.Strings(out)
	return out
}

// endpoint is where and how to call a model, resolved from the config and the environment.
type endpoint struct {
	kind       apiKind
	cloud      cloudKind
	provider   string // for messages: openai, anthropic, openrouter, gemini, bedrock, …
	label      string
	apiModel   string // the name sent to the API (or put in its URL)
	baseURL    string
	baseFrom   string // where baseURL came from: "" (the default), an env variable, "model.base_url"
	keyEnvs    []string
	openRouter bool
	textMode   bool
	replayDir  string

	// Bedrock: the region (from the config, the environment or the shared AWS config).
	region string
	// Vertex: project and location.
	project, location string
	// Azure: the API version.
	apiVersion string
}

var knownClasses = []string{"litellm", "litellm_textbased", "litellm_toolcall", "litellm_response", "litellm_response_toolcall",
	"openai", "openai_textbased", "openrouter", "openrouter_textbased", "anthropic", "anthropic_textbased", "replay"}

// responsesOnly reports models OpenAI serves only through the Responses API.
func responsesOnly(model string) bool {
	m := strings.ToLower(model)
	for _, s := range []string{"codex", "o1-pro", "o3-pro", "gpt-5-pro", "gpt-5.1-pro", "gpt-5.2-pro", "deep-research", "computer-use"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

func resolve(cfg Config, env func(string) string) (endpoint, error) {
	name := cfg.ModelName
	if name == "" {
		return endpoint{}, fmt.Errorf("model.model_name is empty: set it in the config or with --model")
	}
	class := cfg.ModelClass
	var ep endpoint
	ep.textMode = strings.HasSuffix(class, "_textbased") || cfg.ActionRegex != ""
	base := strings.TrimSuffix(strings.TrimSuffix(class, "_textbased"), "_toolcall")
	responses := false
	switch {
	case class == "replay" || strings.HasPrefix(name, "replay:"):
		ep.kind, ep.provider = kindReplay, "replay"
		ep.replayDir = strings.TrimPrefix(name, "replay:")
		return ep, nil
	case base == "anthropic" || base == "" || base == "litellm":
	case base == "litellm_response":
		responses = true
	case base == "openai":
		// verbatim model name to an OpenAI-compatible server (a LiteLLM proxy, vLLM, …)
		ep = fromSpec("openai", providerTable["openai"], name, env, ep)
		return ep, nil
	case base == "openrouter":
		ep = fromSpec("openrouter", providerTable["openrouter"], strings.TrimPrefix(name, "openrouter/"), env, ep)
		return ep, nil
	default:
		return endpoint{}, fmt.Errorf("model.model_class %q is unknown: use one of %s", class, strings.Join(knownClasses, ", "))
	}
	prefix, rest, hasPrefix := strings.Cut(name, "/")
	spec, known := providerTable[prefix]
	switch {
	case base == "anthropic" && (!hasPrefix || !known || prefix == "anthropic"):
		ep = fromSpec("anthropic", providerTable["anthropic"], strings.TrimPrefix(name, "anthropic/"), env, ep)
	case hasPrefix && known:
		ep = fromSpec(prefix, spec, rest, env, ep)
	case strings.HasPrefix(name, "claude-"):
		ep = fromSpec("anthropic", providerTable["anthropic"], name, env, ep)
	default:
		ep = fromSpec("openai", providerTable["openai"], name, env, ep)
	}
	var err error
	switch ep.cloud {
	case cloudBedrock:
		err = resolveBedrock(&ep, cfg, env)
	case cloudVertex:
		err = resolveVertex(&ep, cfg, env)
	case cloudAzure:
		err = resolveAzure(&ep, cfg, env)
	}
	if err != nil {
		return endpoint{}, err
	}
	if ep.kind == kindOpenAI && (responses || (ep.provider == "openai" || ep.provider == "azure") && responsesOnly(ep.apiModel)) {
		ep.kind = kindResponses
	}
	if responses && ep.kind != kindResponses {
		return endpoint{}, fmt.Errorf("model.model_class litellm_response: %s models are not served through the OpenAI Responses API; use model_class litellm", ep.label)
	}
	return ep, nil
}

// fromSpec fills an endpoint from a provider table row.
func fromSpec(provider string, spec providerSpec, apiModel string, env func(string) string, ep endpoint) endpoint {
	ep.kind, ep.cloud, ep.provider, ep.label, ep.apiModel = spec.kind, spec.cloud, provider, spec.label, apiModel
	ep.baseURL, ep.keyEnvs = spec.baseURL, spec.keyEnvs
	for _, e := range spec.baseEnvs {
		if v := env(e); v != "" {
			ep.baseURL, ep.baseFrom = v, "$"+e
			break
		}
	}
	ep.openRouter = provider == "openrouter"
	return ep
}

// publicHost reports whether host is the default endpoint of a provider in the table: a call
// there without a key can only fail.
func publicHost(host string) bool {
	for _, spec := range providerTable {
		if spec.baseURL == "" {
			continue
		}
		if u, err := url.Parse(spec.baseURL); err == nil && u.Host == host {
			return true
		}
	}
	return false
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// firstEnv returns the value of the first variable of names that is set, and its name.
func firstEnv(env func(string) string, names ...string) (string, string) {
	for _, n := range names {
		if v := env(n); v != "" {
			return v, n
		}
	}
	return "", ""
}
