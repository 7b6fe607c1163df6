package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// providerError is the error object of a provider's error body, whichever of the shapes in use:
// OpenAI {"error":{"message","type","param","code"}}, Anthropic {"type":"error","error":{"type",
// "message"}}, OpenRouter {"error":{"code":402,"message","metadata"}}, vLLM/SGLang top level
// {"object":"error","message","type","code"}.
type providerError struct {
	Message string
	Type    string
	Code    string
	Num     int // numeric code (OpenRouter, vLLM): an HTTP status
}

func parseProviderError(body []byte) (providerError, bool) {
	var top map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return providerError{}, false
	}
	return errorFromMap(top)
}

func errorFromMap(top map[string]any) (providerError, bool) {
	obj := top
	switch e := top["error"].(type) {
	case map[string]any:
		obj = e
	case string:
		return providerError{Message: e}, true
	default:
		if top["object"] != "error" && top["type"] != "error" && top["message"] == nil {
			return providerError{}, false
		}
	}
	pe := providerError{Message: str(obj["message"]), Type: str(obj["type"])}
	switch c := obj["code"].(type) {
	case string:
		pe.Code = c
	case json.Number:
		n, _ := c.Int64()
		pe.Num = int(n)
	case float64:
		pe.Num = int(c)
	}
	return pe, true
}

func str(v any) string { s, _ := v.(string); return s }

var contextWindowMarkers = []string{
	"context_length_exceeded",
	"maximum context length",
	"context window",
	"context length",
	"prompt is too long",
	"exceed context limit",
	"input is too long",
	"too many input tokens",
	"reduce the length of the messages",
}

var unsupportedMarkers = []string{
	"unsupported_parameter",
	"unsupported_value",
	"unsupported parameter",
	"unrecognized request argument",
	"extra inputs are not permitted",
	"is not supported with this model",
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// classifyHTTP turns an error response into an APIError. HTTP APIs report the cause of a 400
// only in the body, so context overflow and unsupported parameters are recognised by the
// provider's error code and, failing that, by the phrases the providers use.
func classifyHTTP(provider string, code int, body []byte, h http.Header, keyEnv string) *APIError {
	pe, ok := parseProviderError(body)
	if !ok {
		pe.Message = strings.TrimSpace(string(truncate(body, 500)))
	}
	e := &APIError{Provider: provider, HTTPStatus: code, Message: pe.Message}
	e.Code = pe.Code
	if e.Code == "" {
		e.Code = pe.Type
	}
	text := strings.ToLower(pe.Code + " " + pe.Type + " " + pe.Message)
	switch {
	case code == http.StatusUnauthorized:
		e.Status, e.fatal = StatusAuthentication, true
		e.Hint = "check the API key"
		if keyEnv != "" {
			e.Hint += " in " + keyEnv
		}
	case code == http.StatusPaymentRequired,
		code == http.StatusTooManyRequests && strings.Contains(text, "insufficient_quota"):
		e.Status, e.fatal = StatusInsufficientCredits, true
		e.Hint = "add credits to the provider account"
	case code == http.StatusTooManyRequests:
		e.Status, e.retryable = StatusRateLimit, true
		e.retryAfter = retryAfter(h)
	case code == http.StatusRequestTimeout:
		e.Status, e.retryable = StatusTimeout, true
	case code == http.StatusConflict:
		e.Status, e.retryable = StatusServer, true
	case code >= 500:
		e.Status, e.retryable = StatusServer, true
		e.retryAfter = retryAfter(h)
	case code == http.StatusForbidden:
		e.Status = StatusPermissionDenied
	case code == http.StatusNotFound:
		e.Status = StatusNotFound
		e.Hint = "check model_name and base_url"
	case containsAny(text, contextWindowMarkers):
		e.Status = StatusContextWindowExceeded
	case containsAny(text, unsupportedMarkers):
		e.Status = StatusUnsupportedParams
		e.Hint = "remove the parameter from model.model_kwargs"
	default:
		e.Status = StatusBadRequest
	}
	return e
}

// retryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or an HTTP date).
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func invalidResponse(provider string, format string, args ...any) *APIError {
	return &APIError{Provider: provider, Status: StatusInvalidResponse, Message: fmt.Sprintf(format, args...), retryable: true}
}
