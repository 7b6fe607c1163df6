package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/swebench-run/swebench-run/model"
)

// class is what went wrong with a call, before it is said in a wire's own error shape.
type class int

const (
	classInvalid      class = iota // a request the API refuses (400)
	classUnauthorized              // no token, or a token that is not (or no longer) an instance's
	classPermission                // 403
	classNotFound                  // 404: a path the proxy does not serve, a model the provider does not know
	classTooLarge                  // 413: a body over the proxy's bound
	classRateLimit                 // 429: a transient rate limit that persisted through the retries
	classQuota                     // a quota that does not come back: the instance's limits, the run's budget, credits
	classServer                    // 500: the provider failed
	classUnavailable               // overloaded, 503/529
	classTimeout                   // 504
)

// callError is a failure answered to the agent: its class, its message, and the delay a
// retry should wait (rate limits).
type callError struct {
	class      class
	message    string
	retryAfter time.Duration
	// contextWindow marks a context overflow (OpenAI's code context_length_exceeded).
	contextWindow bool
}

// classify says how a failure of model's forwarding is answered.
func classify(err error) callError {
	var re *model.RequestError
	var be *model.BudgetError
	var ae *model.APIError
	var le *LimitError
	switch {
	case errors.As(err, &le):
		return callError{class: classQuota, message: le.Error()}
	case errors.As(err, &re):
		return callError{class: classInvalid, message: re.Message}
	case errors.As(err, &be):
		return callError{class: classQuota, message: be.Error()}
	case errors.As(err, &ae):
		ce := callError{message: ae.Message, retryAfter: ae.RetryAfter()}
		if ce.message == "" {
			ce.message = ae.Error()
		}
		switch ae.Status {
		case model.StatusContextWindowExceeded:
			ce.class, ce.contextWindow = classInvalid, true
		case model.StatusBadRequest, model.StatusUnsupportedParams, model.StatusContentPolicy:
			ce.class = classInvalid
		case model.StatusPermissionDenied:
			ce.class = classPermission
		case model.StatusNotFound:
			ce.class = classNotFound
		case model.StatusRateLimit:
			ce.class = classRateLimit
		case model.StatusInsufficientCredits, model.StatusQuotaExhausted:
			ce.class = classQuota
		case model.StatusServiceUnavailable, model.StatusModelNotReady:
			ce.class = classUnavailable
		case model.StatusServer:
			ce.class = classServer
			if ae.HTTPStatus == 529 || ae.Code == "overloaded_error" { // Anthropic's overloaded
				ce.class = classUnavailable
			}
		case model.StatusTimeout:
			ce.class = classTimeout
		case model.StatusAuthentication:
			// The provider refused the run's credentials, not the agent's token: a failure
			// of the service the agent calls.
			ce.class = classServer
			ce.message = "the model provider refused this run's credentials: " + ce.message
		default:
			ce.class = classServer
		}
		return ce
	case errors.Is(err, context.DeadlineExceeded):
		return callError{class: classTimeout, message: err.Error()}
	}
	return callError{class: classServer, message: err.Error()}
}

// httpStatus is the status each wire answers a class with.
func (e callError) httpStatus(wire model.Wire) int {
	switch e.class {
	case classInvalid:
		return http.StatusBadRequest
	case classUnauthorized:
		if wire == model.WireGemini {
			return http.StatusBadRequest // API_KEY_INVALID is an INVALID_ARGUMENT
		}
		return http.StatusUnauthorized
	case classPermission:
		return http.StatusForbidden
	case classNotFound:
		return http.StatusNotFound
	case classTooLarge:
		if wire == model.WireGemini {
			return http.StatusBadRequest
		}
		return http.StatusRequestEntityTooLarge
	case classRateLimit:
		return http.StatusTooManyRequests
	case classQuota:
		if wire == model.WireAnthropic {
			return http.StatusPaymentRequired // billing_error
		}
		return http.StatusTooManyRequests // insufficient_quota, RESOURCE_EXHAUSTED
	case classUnavailable:
		if wire == model.WireAnthropic {
			return 529 // overloaded_error
		}
		return http.StatusServiceUnavailable
	case classTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// The error types of each API, by class. Anthropic's come from its errors page and its Go
// SDK's ErrorObjectUnion (invalid_request_error, authentication_error, billing_error,
// permission_error, not_found_error, request_too_large, rate_limit_error, api_error,
// overloaded_error, timeout_error); OpenAI's from its error codes page (invalid_api_key,
// model_not_found, rate_limit_exceeded, insufficient_quota, server_error); Google's are the
// canonical statuses of google.rpc.Code.
var (
	anthropicTypes = map[class]string{
		classInvalid: "invalid_request_error", classUnauthorized: "authentication_error", classPermission: "permission_error",
		classNotFound: "not_found_error", classTooLarge: "request_too_large", classRateLimit: "rate_limit_error",
		classQuota: "billing_error", classServer: "api_error", classUnavailable: "overloaded_error", classTimeout: "timeout_error",
	}
	googleStatuses = map[class]string{
		classInvalid: "INVALID_ARGUMENT", classUnauthorized: "INVALID_ARGUMENT", classPermission: "PERMISSION_DENIED",
		classNotFound: "NOT_FOUND", classTooLarge: "INVALID_ARGUMENT", classRateLimit: "RESOURCE_EXHAUSTED",
		classQuota: "RESOURCE_EXHAUSTED", classServer: "INTERNAL", classUnavailable: "UNAVAILABLE", classTimeout: "DEADLINE_EXCEEDED",
	}
)

// openAIError is OpenAI's {"message", "type", "param", "code"} for a class.
func (e callError) openAIError() map[string]any {
	typ, code := "invalid_request_error", any(nil)
	switch e.class {
	case classUnauthorized:
		code = "invalid_api_key"
	case classNotFound:
		code = "model_not_found"
	case classRateLimit:
		typ, code = "requests", "rate_limit_exceeded"
	case classQuota:
		typ, code = "insufficient_quota", "insufficient_quota"
	case classServer, classUnavailable, classTimeout:
		typ = "server_error"
	case classInvalid:
		if e.contextWindow {
			code = "context_length_exceeded"
		}
	}
	return map[string]any{"message": e.message, "type": typ, "param": nil, "code": code}
}

// googleError is a google.rpc.Status in Google's JSON error envelope.
func (e callError) googleError(wire model.Wire) map[string]any {
	obj := map[string]any{"code": e.httpStatus(wire), "message": e.message, "status": googleStatuses[e.class]}
	var details []any
	switch e.class {
	case classUnauthorized:
		details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
			"domain": "googleapis.com", "metadata": map[string]any{"service": "generativelanguage.googleapis.com"}})
	case classQuota:
		details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure",
			"violations": []any{map[string]any{"quotaMetric": "swebench-run/proxy", "quotaId": "SwebenchRunInstanceLimit", "description": e.message}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "QUOTA_EXHAUSTED", "domain": "swebench-run"})
	case classRateLimit:
		if e.retryAfter > 0 {
			details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo",
				"retryDelay": strconv.FormatFloat(e.retryAfter.Seconds(), 'f', -1, 64) + "s"})
		}
	}
	if len(details) > 0 {
		obj["details"] = details
	}
	return obj
}

// body is the error response body of a wire.
func (e callError) body(wire model.Wire) map[string]any {
	switch wire {
	case model.WireAnthropic:
		return map[string]any{"type": "error", "error": map[string]any{"type": anthropicTypes[e.class], "message": e.message}}
	case model.WireGemini:
		return map[string]any{"error": e.googleError(wire)}
	}
	return map[string]any{"error": e.openAIError()}
}

// write answers the call with the error, before anything else was written; it returns the
// body written.
func (e callError) write(w http.ResponseWriter, wire model.Wire) []byte {
	data, _ := json.Marshal(e.body(wire))
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int((e.retryAfter+time.Second-1)/time.Second)))
	}
	if e.class == classQuota || e.class == classUnauthorized {
		// The Anthropic and OpenAI SDKs retry 429s unless told not to.
		h.Set("X-Should-Retry", "false")
	}
	w.WriteHeader(e.httpStatus(wire))
	_, _ = w.Write(data)
	return data
}

// streamEvent is the error as an event of a stream already under way: Anthropic's "error"
// event, the Responses API's "error" event, an error object for chat completions and Gemini.
func (e callError) streamEvent(wire model.Wire, seq int) (string, []byte) {
	var v any
	name := ""
	switch wire {
	case model.WireAnthropic:
		name, v = "error", e.body(wire)
	case model.WireResponses:
		oe := e.openAIError()
		name, v = "error", map[string]any{"type": "error", "code": oe["code"], "message": e.message, "param": nil, "sequence_number": seq}
	default:
		v = e.body(wire)
	}
	data, _ := json.Marshal(v)
	return name, data
}

// LimitError ends an instance that reached one of its limits; its exit status is
// LimitsExceeded, as the loop's limits.
type LimitError struct {
	Limit string  // "calls" or "cost"
	Calls int     // calls made
	Cost  float64 // dollars spent
	Max   float64 // the limit
}

func (e *LimitError) Error() string {
	if e.Limit == "calls" {
		return fmt.Sprintf("this instance's call limit is reached: %d of %d calls made (swebench-run's per-instance limit)", e.Calls, int(e.Max))
	}
	return fmt.Sprintf("this instance's cost limit is reached: $%.4f spent of $%.4f (swebench-run's per-instance limit)", e.Cost, e.Max)
}

// ExitStatus implements agent.ExitStatuser.
func (e *LimitError) ExitStatus() string { return model.StatusLimitsExceeded }
