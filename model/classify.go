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
	Num     int // numeric code (OpenRouter, vLLM, Google): an HTTP status
	// Google APIs: the canonical status (RESOURCE_EXHAUSTED) and what its details say.
	Status     string
	Reasons    []string // ErrorInfo reasons (API_KEY_INVALID)
	QuotaIDs   []string // QuotaFailure violations (GenerateRequestsPerDayPerProjectPerModel)
	RetryDelay time.Duration
	// Azure: the inner error code (ResponsibleAIPolicyViolation).
	Inner string
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
	pe := providerError{Message: firstNonEmpty(str(obj["message"]), str(obj["Message"])), Type: str(obj["type"]), Status: str(obj["status"])}
	if in, ok := obj["innererror"].(map[string]any); ok {
		pe.Inner = str(in["code"])
	}
	details, _ := obj["details"].([]any)
	for _, d := range details {
		dm, _ := d.(map[string]any)
		if r := str(dm["reason"]); r != "" {
			pe.Reasons = append(pe.Reasons, r)
		}
		if v, ok := dm["violations"].([]any); ok {
			for _, x := range v {
				xm, _ := x.(map[string]any)
				if q := str(xm["quotaId"]); q != "" {
					pe.QuotaIDs = append(pe.QuotaIDs, q)
				}
			}
		}
		if s := str(dm["retryDelay"]); s != "" {
			pe.RetryDelay, _ = time.ParseDuration(s)
		}
	}
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
	"exceeds the maximum number of tokens",
	"input token count",
	"model_context_window_exceeded",
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
	e.Code = firstNonEmpty(pe.Code, pe.Type, pe.Status)
	text := strings.ToLower(strings.Join(append([]string{pe.Code, pe.Type, pe.Status, pe.Inner, pe.Message}, append(pe.Reasons, pe.QuotaIDs...)...), " "))
	authHint := "check the API key"
	if keyEnv != "" {
		authHint += " in " + keyEnv
	}
	if aws := awsErrorType(h); aws != "" {
		e.Code = aws
		if classifyAWS(e, aws, text, h, authHint) {
			return e
		}
	}
	if pe.Status != "" && classifyGoogle(e, pe, text, authHint) {
		return e
	}
	switch {
	case code == http.StatusUnauthorized:
		e.Status, e.fatal = StatusAuthentication, true
		e.Hint = authHint
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
	case code == http.StatusServiceUnavailable:
		e.Status, e.retryable = StatusServiceUnavailable, true
		e.retryAfter = retryAfter(h)
	case code >= 500:
		e.Status, e.retryable = StatusServer, true
		e.retryAfter = retryAfter(h)
	case strings.Contains(text, "content_filter") || strings.Contains(text, "responsibleaipolicyviolation"):
		e.Status = StatusContentPolicy
		e.Hint = "the provider's content filter refused the request"
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

// awsErrorType is the exception name of an AWS error response (X-Amzn-ErrorType, without
// its ":namespace" suffix).
func awsErrorType(h http.Header) string {
	t, _, _ := strings.Cut(h.Get("X-Amzn-Errortype"), ":")
	return t
}

// awsExceptionStatus is the HTTP status Bedrock answers an exception with, for exceptions
// that arrive inside an event stream.
func awsExceptionStatus(exception string) int {
	switch strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(exception, "Exception"), "exception")) {
	case "throttling", "modelnotready":
		return http.StatusTooManyRequests
	case "validation":
		return http.StatusBadRequest
	case "serviceunavailable":
		return http.StatusServiceUnavailable
	case "modeltimeout":
		return http.StatusRequestTimeout
	case "modelstreamerror", "modelerror":
		return http.StatusFailedDependency
	}
	return http.StatusInternalServerError
}

// classifyAWS classifies a Bedrock exception by its name; false leaves it to the HTTP status.
func classifyAWS(e *APIError, exception, text string, h http.Header, authHint string) bool {
	switch strings.ToLower(exception) {
	case "throttlingexception":
		if perDay(text) {
			e.Status, e.fatal = StatusQuotaExhausted, true
			e.Hint = "a daily token quota of the AWS account is spent; raise it in Service Quotas or run tomorrow"
			return true
		}
		e.Status, e.retryable = StatusRateLimit, true
		e.retryAfter = retryAfter(h)
	case "servicequotaexceededexception":
		e.Status, e.fatal = StatusQuotaExhausted, true
		e.Hint = "raise the Bedrock quota in Service Quotas"
	case "modelnotreadyexception":
		e.Status, e.retryable = StatusModelNotReady, true
	case "serviceunavailableexception":
		e.Status, e.retryable = StatusServiceUnavailable, true
		e.retryAfter = retryAfter(h)
	case "internalserverexception", "modelstreamerrorexception", "modelerrorexception":
		e.Status, e.retryable = StatusServer, true
	case "modeltimeoutexception":
		e.Status, e.retryable = StatusTimeout, true
	case "validationexception":
		if containsAny(text, contextWindowMarkers) {
			e.Status = StatusContextWindowExceeded
		} else {
			e.Status = StatusBadRequest
		}
	case "accessdeniedexception":
		e.Status = StatusPermissionDenied
		e.Hint = "request access to the model in the Bedrock console, and check the IAM policy (bedrock:InvokeModel)"
	case "unrecognizedclientexception", "invalidsignatureexception", "expiredtokenexception",
		"incompletesignatureexception", "missingauthenticationtokenexception":
		e.Status, e.fatal = StatusAuthentication, true
		e.Hint = "check the AWS credentials (" + strings.TrimPrefix(authHint, "check the API key in ") + ")"
	case "resourcenotfoundexception":
		e.Status = StatusNotFound
		e.Hint = "check the Bedrock model id and the region"
	default:
		return false
	}
	return true
}

// classifyGoogle classifies a Google API error by its canonical status (Gemini API, Vertex).
func classifyGoogle(e *APIError, pe providerError, text, authHint string) bool {
	switch pe.Status {
	case "RESOURCE_EXHAUSTED":
		if perDay(text) {
			e.Status, e.fatal = StatusQuotaExhausted, true
			e.Hint = "a daily quota of the project is spent; raise it or run tomorrow"
			return true
		}
		e.Status, e.retryable = StatusRateLimit, true
		e.retryAfter = pe.RetryDelay
	case "UNAVAILABLE":
		e.Status, e.retryable = StatusServiceUnavailable, true
	case "INTERNAL", "UNKNOWN", "ABORTED":
		e.Status, e.retryable = StatusServer, true
	case "DEADLINE_EXCEEDED":
		e.Status, e.retryable = StatusTimeout, true
	case "UNAUTHENTICATED":
		e.Status, e.fatal = StatusAuthentication, true
		e.Hint = authHint
	case "PERMISSION_DENIED":
		e.Status = StatusPermissionDenied
		e.Hint = "check that the API is enabled and the credentials may use it"
	case "NOT_FOUND":
		e.Status = StatusNotFound
		e.Hint = "check the model name, the project and the location"
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		switch {
		case strings.Contains(text, "api_key_invalid"):
			e.Status, e.fatal = StatusAuthentication, true
			e.Hint = authHint
		case containsAny(text, contextWindowMarkers):
			e.Status = StatusContextWindowExceeded
		default:
			e.Status = StatusBadRequest
		}
	default:
		return false
	}
	return true
}

func perDay(text string) bool {
	return strings.Contains(text, "per day") || strings.Contains(text, "perday")
}

// errorEvent classifies an error reported inside a stream (an OpenAI error chunk, an
// Anthropic "error" event, a Gemini error object), which carries no HTTP status of its own.
func errorEvent(obj map[string]any) *APIError {
	pe, _ := errorFromMap(obj)
	code := pe.Num
	if code < 400 {
		t := strings.ToLower(pe.Type + " " + pe.Code + " " + pe.Status)
		switch {
		case strings.Contains(t, "overloaded"):
			code = 529
		case strings.Contains(t, "rate_limit") || strings.Contains(t, "resource_exhausted"):
			code = http.StatusTooManyRequests
		case strings.Contains(t, "authentication") || strings.Contains(t, "unauthenticated"):
			code = http.StatusUnauthorized
		case strings.Contains(t, "permission"):
			code = http.StatusForbidden
		case strings.Contains(t, "invalid_request") || strings.Contains(t, "invalid_argument"):
			code = http.StatusBadRequest
		default:
			code = http.StatusInternalServerError
		}
	}
	raw, _ := json.Marshal(obj)
	return classifyHTTP("", code, raw, http.Header{}, "")
}

// contentFiltered is the error of a reply withheld under the provider's content policy.
func contentFiltered(msg string) *APIError {
	return &APIError{Status: StatusContentPolicy, Message: msg}
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
