// Package model holds the LLM clients of the agent: OpenAI-compatible chat completions
// (OpenAI, OpenRouter, DeepSeek, Together, vLLM, SGLang, LiteLLM proxy) and the Anthropic
// Messages API, in tool-calling or text (regex) mode; the replay model; and what makes them
// safe to run 32 workers wide: classified errors (agent.ExitStatuser), retries with backoff
// that honour Retry-After, request and stall timeouts, one limiter per run (requests/min,
// tokens/min, adaptive concurrency on 429s), exact costs (provider-reported or from the
// price tables: model.prices, a litellm table in model.prices_file, the shipped prices/*.json;
// see prices.go) and a run-wide Budget.
//
// Messages are kept in the provider's native shape and sent back as they were received,
// without their "extra" field; see openAIWire and anthropicWire for the details of each API.
// API keys come from the environment (or Config.APIKey, never serialized) and are redacted
// from every error, log line and returned message.
//
// Images linked from the task (SWE-bench Multimodal screenshots) are sent only when
// Config.ProblemImages asks (off by default, as mini-swe-agent): as image parts to models that
// accept images, as a list of URLs to the others; see images.go.
package model
