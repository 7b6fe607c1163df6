package model

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/testutil/providertest"
)

// Error bodies in the providers' documented shapes: Google's google.rpc.Status
// (https://ai.google.dev/gemini-api/docs/troubleshooting, https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429),
// Bedrock's exceptions (X-Amzn-ErrorType and {"message"}, https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors),
// Azure OpenAI's content filter (https://learn.microsoft.com/azure/ai-services/openai/concepts/content-filter).
const (
	geminiRateLimited = `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_paid_tier_input_token_count","quotaId":"GenerateContentPaidTierInputTokensPerModelPerMinute","quotaDimensions":{"location":"global","model":"gemini-2.5-pro"},"quotaValue":"2000000"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"38s"}]}}`
	geminiDailyQuota  = `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier","quotaDimensions":{"location":"global","model":"gemini-2.5-pro"},"quotaValue":"50"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"50s"}]}}`
	geminiBadKey      = `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`
	geminiTooLong     = `{"error":{"code":400,"message":"The input token count (1218432) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`
	geminiOverloaded  = `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`
	geminiBlockedBody = `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":120,"totalTokenCount":120},"modelVersion":"gemini-2.5-pro","responseId":"x1"}`
	vertexQuota       = `{"error":{"code":429,"message":"Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.","status":"RESOURCE_EXHAUSTED"}}`
	vertexDenied      = `{"error":{"code":403,"message":"Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/test-project/locations/global/publishers/google/models/gemini-2.5-pro' (or it may not exist).","status":"PERMISSION_DENIED"}}`
	bedrockThrottled  = `{"message":"Too many requests, please wait before trying again."}`
	bedrockDaily      = `{"message":"Too many tokens per day, please wait before trying again."}`
	bedrockNotReady   = `{"message":"Model is not ready for inference. Wait and try your request again."}`
	bedrockUnavail    = `{"message":"Bedrock is unable to process your request."}`
	bedrockTooLong    = `{"message":"Input is too long for requested model."}`
	bedrockDenied     = `{"message":"You don't have access to the model with the specified model ID."}`
	bedrockBadKey     = `{"message":"The security token included in the request is invalid."}`
	azureFiltered     = `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":true,"severity":"medium"}}}}}`
)

func awsError(status int, exception, body string) http.HandlerFunc {
	return respond(status, body, "X-Amzn-ErrorType", exception+":http://internal.amazon.com/coral/com.amazon.bedrock/")
}

// Each error row of the providers is classified: transient ones are retried (honouring Google's
// RetryInfo), permanent ones are not, and those no instance can get past stop the run.
func TestProviderErrorRows(t *testing.T) {
	awsEnv(t)
	okGemini := respond(200, string(readTestdata(t, "gemini.json")))
	okConverse := respond(200, string(readTestdata(t, "converse.json")))
	okAzure := respond(200, openAIToolReply)
	gem := Config{ModelName: "gemini/gemini-2.5-pro"}
	bed := Config{ModelName: "bedrock/qwen.qwen3-coder-480b-a35b-v1:0", ModelKwargs: map[string]any{"aws_region_name": "us-east-1"}}
	az := Config{ModelName: "azure/my-gpt-4o"}
	vx := Config{ModelName: "vertex_ai/gemini-2.5-pro", ModelKwargs: map[string]any{"vertex_location": "europe-west4"}}
	tokens := http.NewServeMux()
	tokenSrv := httptest.NewServer(tokens)
	t.Cleanup(tokenSrv.Close)
	google := googleEnv(t, tokenSrv.URL)
	tokens.Handle("/token", google)
	tests := []struct {
		name         string
		cfg          Config
		handlers     []http.HandlerFunc
		wantRequests int
		wantStatus   string // "" for success
		wantFatal    bool
		wantSleeps   []time.Duration
	}{
		{"Gemini RESOURCE_EXHAUSTED per minute: retried after RetryInfo", gem, []http.HandlerFunc{respond(429, geminiRateLimited), okGemini}, 2, "", false, []time.Duration{38 * time.Second}},
		{"Gemini daily quota: stops the run", gem, []http.HandlerFunc{respond(429, geminiDailyQuota)}, 1, StatusQuotaExhausted, true, nil},
		{"Gemini bad API key: stops the run", gem, []http.HandlerFunc{respond(400, geminiBadKey)}, 1, StatusAuthentication, true, nil},
		{"Gemini context overflow", gem, []http.HandlerFunc{respond(400, geminiTooLong)}, 1, StatusContextWindowExceeded, false, nil},
		{"Gemini UNAVAILABLE: retried", gem, []http.HandlerFunc{respond(503, geminiOverloaded), okGemini}, 2, "", false, nil},
		{"Gemini prompt blocked: content policy, not retried", gem, []http.HandlerFunc{respond(200, geminiBlockedBody)}, 1, StatusContentPolicy, false, nil},
		{"Bedrock ThrottlingException: retried", bed, []http.HandlerFunc{awsError(429, "ThrottlingException", bedrockThrottled), okConverse}, 2, "", false, nil},
		{"Bedrock daily token quota: stops the run", bed, []http.HandlerFunc{awsError(429, "ThrottlingException", bedrockDaily)}, 1, StatusQuotaExhausted, true, nil},
		{"Bedrock ModelNotReadyException: retried", bed, []http.HandlerFunc{awsError(429, "ModelNotReadyException", bedrockNotReady), okConverse}, 2, "", false, nil},
		{"Bedrock ModelNotReadyException persists", bed, []http.HandlerFunc{awsError(429, "ModelNotReadyException", bedrockNotReady)}, 3, StatusModelNotReady, false, nil},
		{"Bedrock ServiceUnavailableException: retried", bed, []http.HandlerFunc{awsError(503, "ServiceUnavailableException", bedrockUnavail), okConverse}, 2, "", false, nil},
		{"Bedrock ValidationException for context length", bed, []http.HandlerFunc{awsError(400, "ValidationException", bedrockTooLong)}, 1, StatusContextWindowExceeded, false, nil},
		{"Bedrock AccessDeniedException", bed, []http.HandlerFunc{awsError(403, "AccessDeniedException", bedrockDenied)}, 1, StatusPermissionDenied, false, nil},
		{"Bedrock UnrecognizedClientException: stops the run", bed, []http.HandlerFunc{awsError(403, "UnrecognizedClientException", bedrockBadKey)}, 1, StatusAuthentication, true, nil},
		{"Vertex quota 429: retried", vx, []http.HandlerFunc{respond(429, vertexQuota), okGemini}, 2, "", false, nil},
		{"Vertex PERMISSION_DENIED", vx, []http.HandlerFunc{respond(403, vertexDenied)}, 1, StatusPermissionDenied, false, nil},
		{"Azure content filter: not retried", az, []http.HandlerFunc{respond(400, azureFiltered)}, 1, StatusContentPolicy, false, nil},
		{"Azure 429 with Retry-After", az, []http.HandlerFunc{respond(429, openAIRateLimitBody, "Retry-After", "3"), okAzure}, 2, "", false, []time.Duration{3 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, srv := newRecorder(t, tt.handlers...)
			clock := newFakeClock()
			retries := 2
			cfg := tt.cfg
			cfg.MaxRetries, cfg.CostTracking, cfg.BaseURL = &retries, "ignore_errors", srv.URL
			env := map[string]string{"GEMINI_API_KEY": testKey, "AZURE_API_KEY": testKey}
			p, err := New(cfg, Options{Env: func(k string) string { return env[k] }, Clock: clock, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			_, err = queryOnce(t, p, conversation())
			if n := rec.requests(); n != tt.wantRequests {
				t.Errorf("requests = %d, want %d", n, tt.wantRequests)
			}
			if tt.wantStatus == "" {
				if err != nil {
					t.Fatalf("err = %v, want success after the retry", err)
				}
			} else {
				var es agent.ExitStatuser
				if !errors.As(err, &es) || es.ExitStatus() != tt.wantStatus {
					t.Fatalf("err = %v, want exit status %s", err, tt.wantStatus)
				}
				if got := errors.Is(err, ErrFatal); got != tt.wantFatal {
					t.Errorf("errors.Is(err, ErrFatal) = %v, want %v (%v)", got, tt.wantFatal, err)
				}
			}
			if tt.wantSleeps != nil {
				if got := clock.recorded(); len(got) != len(tt.wantSleeps) || got[0] != tt.wantSleeps[0] {
					t.Errorf("sleeps = %v, want %v", got, tt.wantSleeps)
				}
			}
		})
	}
}

// A stream cut before its final event, or silent past stream_idle_timeout, is a transient
// failure: the call is retried and only the complete reply is stored. Errors sent inside a
// stream are classified like the same errors in a response.
func TestStreamFaults(t *testing.T) {
	awsEnv(t)
	full := readTestdata(t, "anthropic.sse")
	cut := full[:len(full)/2] // ends inside the thinking block
	sse := func(b []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(b)
		}
	}
	silent := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(cut)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	overloaded := []byte("event: message_start\ndata: " + strings.SplitN(strings.SplitN(string(full), "data: ", 2)[1], "\n", 2)[0] +
		"\n\nevent: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n")
	converseThrottled := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		_, _ = w.Write(providertest.AWSEvents([]providertest.Event{{Name: "messageStart", Data: map[string]any{"role": "assistant"}}}))
		_, _ = w.Write(providertest.AWSException("throttlingException", "Too many requests, please wait before trying again."))
	}
	converseBad := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		_, _ = w.Write(providertest.AWSException("validationException", "Input is too long for requested model."))
	}
	converseOK := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		_, _ = w.Write(converseFrames(t))
	}
	claude := "anthropic/claude-sonnet-4-5"
	bed := "bedrock/qwen.qwen3-coder-480b-a35b-v1:0"
	tests := []struct {
		name         string
		model        string
		handlers     []http.HandlerFunc
		wantRequests int
		wantStatus   string
	}{
		{"cut mid-message: retried, the whole reply kept", claude, []http.HandlerFunc{sse(cut), sse(full)}, 2, ""},
		{"cut every time: no half message", claude, []http.HandlerFunc{sse(cut)}, 3, StatusConnection},
		{"silent past the idle limit: retried", claude, []http.HandlerFunc{silent, sse(full)}, 2, ""},
		{"overloaded error event: retried", claude, []http.HandlerFunc{sse(overloaded), sse(full)}, 2, ""},
		{"Bedrock throttlingException in the stream: retried", bed, []http.HandlerFunc{converseThrottled, converseOK}, 2, ""},
		{"Bedrock validationException in the stream: not retried", bed, []http.HandlerFunc{converseBad}, 1, StatusContextWindowExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, srv := newRecorder(t, tt.handlers...)
			retries := 2
			cfg := Config{ModelName: tt.model, MaxRetries: &retries, CostTracking: "ignore_errors", BaseURL: srv.URL,
				StreamIdleTimeout: 0.2, ModelKwargs: map[string]any{"stream": true, "aws_region_name": "us-east-1"}}
			p, err := New(cfg, Options{Env: func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": testKey}[k] },
				Clock: newFakeClock(), BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			got, err := queryOnce(t, p, conversation())
			if n := rec.requests(); n != tt.wantRequests {
				t.Errorf("requests = %d, want %d", n, tt.wantRequests)
			}
			if tt.wantStatus != "" {
				var es agent.ExitStatuser
				if !errors.As(err, &es) || es.ExitStatus() != tt.wantStatus {
					t.Fatalf("err = %v, want exit status %s", err, tt.wantStatus)
				}
				return
			}
			if err != nil {
				t.Fatalf("Query: %v", err)
			}
			if len(got.Actions) != 1 || got.Usage.OutputTokens == 0 {
				t.Errorf("reply %+v, want the complete reply", got)
			}
		})
	}
}

// fakeEntra is an Entra ID credential that hands out one token and counts the requests.
type fakeEntra struct{ calls int }

func (f *fakeEntra) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	f.calls++
	if len(o.Scopes) != 1 || o.Scopes[0] != "https://cognitiveservices.azure.com/.default" {
		return azcore.AccessToken{}, errors.New("wrong scope")
	}
	return azcore.AccessToken{Token: "entra-token-1", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// Azure: deployment URLs with the API version, the api-key header, or an Entra ID bearer
// token (fetched once and reused) when no key is set.
func TestAzure(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		class    string
		wantPath string
		wantAuth [2]string
	}{
		{"api key", map[string]string{"AZURE_API_KEY": testKey, "AZURE_API_VERSION": "2025-01-01-preview"}, "",
			"/openai/deployments/my-gpt-4o/chat/completions?api-version=2025-01-01-preview", [2]string{"Api-Key", testKey}},
		{"Entra ID", map[string]string{}, "", "/openai/deployments/my-gpt-4o/chat/completions?api-version=2024-10-21", [2]string{"Authorization", "Bearer entra-token-1"}},
		{"static Entra token", map[string]string{"AZURE_AD_TOKEN": "ad-token-xyz"}, "", "/openai/deployments/my-gpt-4o/chat/completions?api-version=2024-10-21", [2]string{"Authorization", "Bearer ad-token-xyz"}},
		{"Responses", map[string]string{"AZURE_API_KEY": testKey}, "litellm_response", "/openai/responses?api-version=2025-04-01-preview", [2]string{"Api-Key", testKey}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := openAIToolReply
			if tc.class != "" {
				reply = string(readTestdata(t, "responses.json"))
			}
			var paths []string
			rec, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				paths = append(paths, r.URL.RequestURI())
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, reply)
			})
			tc.env["AZURE_API_BASE"] = srv.URL
			entra := &fakeEntra{}
			p, err := New(Config{ModelName: "azure/my-gpt-4o", ModelClass: tc.class, CostTracking: "ignore_errors"},
				Options{Env: func(k string) string { return tc.env[k] }, AzureCredential: entra, Clock: newFakeClock()})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			for range 2 {
				if _, err := queryOnce(t, p, conversation()); err != nil {
					t.Fatalf("Query: %v", err)
				}
			}
			if paths[0] != tc.wantPath {
				t.Errorf("path %s, want %s", paths[0], tc.wantPath)
			}
			if got := rec.header(1).Get(tc.wantAuth[0]); got != tc.wantAuth[1] {
				t.Errorf("%s = %q, want %q", tc.wantAuth[0], got, tc.wantAuth[1])
			}
			if tc.name == "Entra ID" && entra.calls != 1 {
				t.Errorf("token fetched %d times, want once (cached)", entra.calls)
			}
			if tc.class != "" && rec.body(0)["model"] != "my-gpt-4o" {
				t.Errorf("Responses model = %v, want the deployment", rec.body(0)["model"])
			}
		})
	}
}
