// Package model holds the LLM clients of the agent, one wire per API shape: OpenAI chat
// completions (OpenAI and every OpenAI-compatible provider), the OpenAI Responses API, the
// Anthropic Messages API (direct, Bedrock InvokeModel, Vertex rawPredict), Gemini
// generateContent (AI Studio, Vertex) and Bedrock Converse, each in tool-calling or text
// (regex) mode, streamed or not (stream.go); a table of providers by litellm prefix
// (providers.go); cloud credentials and request signing through the vendors' libraries
// (bedrock.go, vertex.go, azure.go); the replay model; and what makes them
// safe to run 32 workers wide: classified errors (agent.ExitStatuser), retries with backoff
// that honour Retry-After, request and stall timeouts, one limiter per run (requests/min,
// tokens/min, adaptive concurrency on 429s), exact costs (provider-reported or from the
// price tables: model.prices, a litellm table in model.prices_file, the shipped prices/*.json;
// see prices.go) and a run-wide Budget.
//
// Messages are kept in the provider's native shape and sent back as they were received,
// without their "extra" field; see each wire's type for the details of its API.
// API keys come from the environment (or Config.APIKey, never serialized) and are redacted
// from every error, log line and returned message.
//
// Images linked from the task (SWE-bench Multimodal screenshots) are sent only when
// Config.ProblemImages asks (off by default, as mini-swe-agent): as image parts to models that
// accept images, as a list of URLs to the others; see images.go.
package model
