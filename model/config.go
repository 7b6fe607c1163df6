package model

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"log/slog"
	"net/http"
	"os"
	"time"
)

// Config is the `model:` section of a run config, with mini-swe-agent's keys plus ours.
type Config struct {
	// ModelName picks the provider by prefix (see New) unless ModelClass is set.
	ModelName  string `yaml:"model_name" json:"model_name"`
	ModelClass string `yaml:"model_class" json:"model_class,omitempty"`
	// ModelKwargs are sent as top-level request fields (temperature, max_tokens,
	// reasoning_effort, thinking, …). litellm-only keys (drop_params) are dropped.
	ModelKwargs map[string]any `yaml:"model_kwargs" json:"model_kwargs,omitempty"`
	// CostTracking is "default" (a model without a known price is an error before the first
	// call) or "ignore_errors" (its calls cost 0). Empty: $MSWEA_COST_TRACKING, else "default".
	CostTracking string `yaml:"cost_tracking" json:"cost_tracking,omitempty"`
	// SetCacheControl is "default_end" (mark the last message for prompt caching, the default
	// for Anthropic/Claude models) or "none". Empty: the default for the model.
	SetCacheControl string `yaml:"set_cache_control" json:"set_cache_control,omitempty"`
	// ActionRegex switches to text mode (one fenced command per reply) with this regex; its first
	// group is the command. Text mode with the default regex: a model_class ending in _textbased.
	ActionRegex string `yaml:"action_regex" json:"action_regex,omitempty"`
	// Templates read by the agent (mini-swe-agent keeps them in the model section).
	FormatErrorTemplate string `yaml:"format_error_template" json:"format_error_template,omitempty"`
	ObservationTemplate string `yaml:"observation_template" json:"observation_template,omitempty"`

	// BaseURL overrides the provider's endpoint (an OpenAI-compatible base ends in /v1).
	BaseURL string `yaml:"base_url" json:"base_url,omitempty"`
	// APIKeyEnv names the environment variable holding the API key, instead of the
	// conventional one (OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY, …).
	APIKeyEnv string `yaml:"api_key_env" json:"api_key_env,omitempty"`
	// APIKey is set by code only; it is never read from or written to a file.
	APIKey string `yaml:"-" json:"-"`
	// Mini1 is mini-swe-agent 1.x's model contract, set for configs in 1.x layout: messages go
	// out as role and content only, no tools are offered, and a reply comes back as its text,
	// unparsed ({"role": "assistant", "content": text}; the 1.x loop finds the command).
	Mini1 bool `yaml:"-" json:"-"`

	// RequestTimeout bounds one HTTP call, in seconds (default 600; 3600 for a streamed reply).
	RequestTimeout float64 `yaml:"request_timeout" json:"request_timeout,omitempty"`
	// StallTimeout bounds a silence of the connection, in seconds (default 300): nothing sent
	// back since the request was written or since the last byte of the response.
	StallTimeout float64 `yaml:"stall_timeout" json:"stall_timeout,omitempty"`
	// StreamIdleTimeout bounds a silence inside a streamed reply (model_kwargs.stream: true),
	// in seconds (default: stall_timeout): a stream that sends nothing for that long is cut and
	// the call retried.
	StreamIdleTimeout float64 `yaml:"stream_idle_timeout" json:"stream_idle_timeout,omitempty"`
	// MaxRetries is the number of retries of a transient failure (default 10; 0: none).
	MaxRetries *int `yaml:"max_retries" json:"max_retries,omitempty"`
	// RequestsPerMinute and TokensPerMinute limit all workers together (0: no limit).
	RequestsPerMinute float64 `yaml:"requests_per_minute" json:"requests_per_minute,omitempty"`
	TokensPerMinute   float64 `yaml:"tokens_per_minute" json:"tokens_per_minute,omitempty"`
	// MaxConcurrency caps the calls in flight for all workers together (0: no cap until the
	// provider answers 429, then adaptive).
	MaxConcurrency int `yaml:"max_concurrency" json:"max_concurrency,omitempty"`
	// Prices extends or overrides the shipped price table, keyed by model name.
	Prices map[string]Price `yaml:"prices" json:"prices,omitempty"`
	// PricesFile names a price table in the format of litellm's
	// model_prices_and_context_window.json; it overrides the shipped table, Prices overrides it.
	PricesFile string `yaml:"prices_file" json:"prices_file,omitempty"`
	// PriceAs bills the model at the price of another name (an Azure deployment, a proxy
	// alias of a priced model).
	PriceAs string `yaml:"price_as" json:"price_as,omitempty"`

	// ProblemImages sends the images the task links (SWE-bench Multimodal screenshots):
	// "off" (default, as mini-swe-agent: the text only), "auto" (image parts for models that
	// accept images, the image URLs as text for the others), "images" or "urls".
	ProblemImages string `yaml:"problem_images" json:"problem_images,omitempty"`
	// SupportsImages overrides the guess "auto" makes from the model name.
	SupportsImages *bool `yaml:"supports_images" json:"supports_images,omitempty"`
	// ImageMaxBytes is the largest image sent (default 5 MiB); a larger one goes as its URL.
	ImageMaxBytes int `yaml:"image_max_bytes" json:"image_max_bytes,omitempty"`
}

// Options are the run's dependencies of the model layer.
type Options struct {
	HTTPClient *http.Client // default: a client with pooled connections and no global timeout
	Logger     *slog.Logger // default: discard
	Budget     *Budget      // run-wide cost limit; nil: none
	// Limiters, when set, shares rate limiters between the providers made with it (the cells
	// of a sweep): one per endpoint, API model and API key. nil: the provider's own.
	Limiters *Limiters
	Env      func(string) string
	Clock    Clock // default: real time
	// BackoffBase and BackoffMax shape the exponential backoff of retries without a
	// Retry-After (defaults 4s and 60s, as mini-swe-agent); the delay of attempt n is drawn
	// from [d/2, d] with d = min(BackoffMax, BackoffBase·2ⁿ).
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter caps a server's Retry-After (default 10 minutes).
	MaxRetryAfter time.Duration
	// ImageClient downloads the task's images (Config.ProblemImages; default: a client with a
	// 60 s timeout), and ImageCacheDir keeps them between runs (default:
	// <user cache dir>/swebench-run/images).
	ImageClient   *http.Client
	ImageCacheDir string
	// AzureCredential gets Entra ID tokens for azure/ models without an API key (default:
	// azidentity's DefaultAzureCredential).
	AzureCredential azcore.TokenCredential
}

func (o *Options) defaults() {
	if o.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		o.HTTPClient = &http.Client{Transport: tr}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = 4 * time.Second
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = 60 * time.Second
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 10 * time.Minute
	}
}
