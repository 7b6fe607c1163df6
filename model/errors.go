package model

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinels the runner tests with errors.Is.
var (
	// ErrFatal marks errors after which no instance of the run can succeed (bad API key, no
	// credits left, run budget spent): the runner stops scheduling and ends the run.
	ErrFatal = errors.New("run cannot continue")
	// ErrBudgetExhausted is wrapped by the error a query returns once the run-wide budget is spent.
	ErrBudgetExhausted = errors.New("run budget exhausted")
	// ErrRetriesExhausted is wrapped by transient failures (rate limits, 5xx, timeouts, connection
	// errors) that persisted through every retry: an infrastructure failure, worth retrying on resume.
	ErrRetriesExhausted = errors.New("retries exhausted")
	// ErrUnknownPrice is returned by New when no cost can be computed for the model.
	ErrUnknownPrice = errors.New("unknown model price")
	// ErrReplayExhausted is wrapped when a replayed instance asks for more turns than were recorded.
	ErrReplayExhausted = errors.New("replay exhausted")
)

// Exit statuses of the errors returned by this package (agent.ExitStatuser).
const (
	StatusContextWindowExceeded = "ContextWindowExceeded"
	StatusAuthentication        = "AuthenticationError"
	StatusInsufficientCredits   = "InsufficientCreditsError"
	StatusPermissionDenied      = "PermissionDeniedError"
	StatusNotFound              = "NotFoundError"
	StatusBadRequest            = "BadRequestError"
	StatusUnsupportedParams     = "UnsupportedParamsError"
	StatusRateLimit             = "RateLimitError"
	StatusServer                = "InternalServerError"
	StatusConnection            = "APIConnectionError"
	StatusTimeout               = "Timeout"
	StatusInvalidResponse       = "InvalidResponseError"
	StatusCostTracking          = "CostTrackingError"
	StatusLimitsExceeded        = "LimitsExceeded"
	// StatusRunBudgetExhausted ends an instance cut by a run-wide (or sweep-wide) cost limit. It
	// is not a model outcome: the next run with budget left runs the instance again from the start.
	StatusRunBudgetExhausted = "RunBudgetExhausted"
	StatusReplayExhausted    = "ReplayExhausted"
	// StatusContentPolicy: the provider refused the request or withheld the reply under its
	// content or safety policy (Azure content filter, Gemini safety block, Bedrock guardrail).
	StatusContentPolicy = "ContentPolicyViolationError"
	// StatusQuotaExhausted: a quota that does not come back within the run (a daily quota, a
	// service quota): fatal, unlike a transient rate limit.
	StatusQuotaExhausted = "QuotaExhaustedError"
	// StatusModelNotReady: the model is being loaded or scaled (Bedrock ModelNotReadyException):
	// transient, retried.
	StatusModelNotReady = "ModelNotReadyError"
	// StatusServiceUnavailable: the provider is overloaded or down (503, UNAVAILABLE):
	// transient, retried.
	StatusServiceUnavailable = "ServiceUnavailableError"
)

// APIError is a failed model call, classified. Its text is redacted: it never holds an API key.
type APIError struct {
	Provider   string // "openai", "anthropic", "openrouter", …
	Status     string // the exit status the instance ends with, e.g. StatusContextWindowExceeded
	HTTPStatus int    // 0 when no HTTP response arrived
	Code       string // the provider's error type or code, e.g. "invalid_request_error"
	Message    string // the provider's message or the transport failure
	Hint       string // what the user can do about it
	Attempts   int    // calls made, retries included

	retryable  bool
	fatal      bool
	exhausted  bool
	retryAfter time.Duration
	cause      error
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.HTTPStatus)
	}
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	fmt.Fprintf(&b, " (%s", e.Status)
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	b.WriteString(")")
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// ExitStatus implements agent.ExitStatuser.
func (e *APIError) ExitStatus() string { return e.Status }

// Retryable reports whether the failure was transient (it may have been retried already).
func (e *APIError) Retryable() bool { return e.retryable }

// Unwrap exposes the cause (e.g. context.DeadlineExceeded) and the sentinels ErrFatal and
// ErrRetriesExhausted when they apply.
func (e *APIError) Unwrap() []error {
	var errs []error
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	if e.fatal {
		errs = append(errs, ErrFatal)
	}
	if e.exhausted {
		errs = append(errs, ErrRetriesExhausted)
	}
	return errs
}

// BudgetError is returned by queries once a run-wide budget admits no further call. It wraps
// ErrBudgetExhausted and ErrFatal; its exit status is RunBudgetExhausted (not a model outcome).
type BudgetError struct {
	Spent, Limit float64
	Expected     float64 // mean cost per call so far (0: unknown)
	InFlight     int     // calls in flight when this one was refused
}

func (e *BudgetError) Error() string {
	if e.Spent < e.Limit && e.Expected > 0 {
		return fmt.Sprintf("run budget exhausted: spent $%.4f of $%.4f, and the $%.4f left does not cover %d more calls at $%.4f each; raise the cost limit to continue",
			e.Spent, e.Limit, e.Limit-e.Spent, e.InFlight+1, e.Expected)
	}
	return fmt.Sprintf("run budget exhausted: spent $%.4f of $%.4f; raise the cost limit to continue", e.Spent, e.Limit)
}

// ExitStatus implements agent.ExitStatuser.
func (e *BudgetError) ExitStatus() string { return StatusRunBudgetExhausted }

// Unwrap returns ErrBudgetExhausted and ErrFatal.
func (e *BudgetError) Unwrap() []error { return []error{ErrBudgetExhausted, ErrFatal} }

// statusError is a plain error with an exit status (cost tracking, replay).
type statusError struct {
	status string
	msg    string
	wraps  []error
}

func (e *statusError) Error() string      { return e.msg }
func (e *statusError) ExitStatus() string { return e.status }
func (e *statusError) Unwrap() []error    { return e.wraps }
