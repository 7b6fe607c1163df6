package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Every byte the model layer returns or logs is free of the API key, even when the provider
// echoes it back in error bodies and replies.
func TestAPIKeyNeverLeaks(t *testing.T) {
	echo := func(status int, tmpl string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if key == "" {
				key = r.Header.Get("X-Api-Key")
			}
			respond(status, fmt.Sprintf(tmpl, key))(w, r)
		}
	}
	const (
		echo500  = `{"error":{"message":"upstream rejected key %s","type":"server_error","param":null,"code":null}}`
		echo401  = `{"error":{"message":"Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
		echoBad  = `not json, key %s`
		echoText = `{"id":"x","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"your key is %s"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`
		echoTool = `{"id":"x","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"%s","tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"echo hi\"}"}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`
		echoAnth = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key %s"}}`
	)
	tests := []struct {
		name     string
		model    string
		handlers []http.HandlerFunc
	}{
		{"5xx then success echoing the key", "gpt-4o", []http.HandlerFunc{echo(500, echo500), echo(200, echoBad), echo(200, echoTool)}},
		{"401", "gpt-4o", []http.HandlerFunc{echo(401, echo401)}},
		{"format error", "gpt-4o", []http.HandlerFunc{echo(200, echoText)}},
		{"retries exhausted", "gpt-4o", []http.HandlerFunc{echo(500, echo500)}},
		{"anthropic 401", "claude-sonnet-4-5", []http.HandlerFunc{echo(401, echoAnth)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, srv := newRecorder(t, tt.handlers...)
			var logs bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			retries := 3
			cfg := Config{ModelName: tt.model, MaxRetries: &retries}
			p := testProvider(t, cfg, srv.URL, Options{Logger: logger, BackoffBase: time.Millisecond})
			got, err := queryOnce(t, p, conversation())
			if rec.requests() == 0 {
				t.Fatal("no request made")
			}
			if h := rec.header(0); h.Get("Authorization") != "Bearer "+testKey && h.Get("X-Api-Key") != testKey {
				t.Fatalf("the key was not sent; the test would prove nothing")
			}
			var out bytes.Buffer
			out.Write(logs.Bytes())
			if err != nil {
				out.WriteString(err.Error())
				fmt.Fprintf(&out, "%+v %#v", err, err)
			}
			b, jerr := json.Marshal(got)
			if jerr != nil {
				t.Fatal(jerr)
			}
			out.Write(b)
			fmt.Fprintf(&out, "%#v", got)
			cfg.APIKey = testKey
			cb, _ := json.Marshal(cfg)
			out.Write(cb)
			if strings.Contains(out.String(), testKey) {
				t.Errorf("the API key leaked:\n%s", out.String())
			}
			if logs.Len() == 0 && tt.name == "5xx then success echoing the key" {
				t.Errorf("nothing was logged; the retry warnings were not checked")
			}
		})
	}
}
