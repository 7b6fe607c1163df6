package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/testutil/providertest"
)

// The cost of streaming against the same reply unstreamed (BENCHMARKS.md, "Streaming"). The
// reply is a typical agent turn: about 2,000 characters of reasoning text and one tool call
// writing a 1,500-character file; streamed, its texts arrive in deltas of 4 bytes (about one
// token each), as the providers send them.

var benchWires = []struct {
	name, wire, model string
}{
	{"chat", providertest.Chat, "openai/gpt-4.1"},
	{"responses", providertest.Responses, "openai/gpt-5-codex"},
	{"anthropic", providertest.Anthropic, "anthropic/claude-sonnet-4-5"},
	{"gemini", providertest.Gemini, "gemini/gemini-2.5-pro"},
	{"converse", providertest.Converse, "bedrock/qwen.qwen3-coder-480b-a35b-v1:0"},
}

func benchReply(wire string) map[string]any {
	text := strings.Repeat("The parser skips only lines that start with '#', so a '; comment' line fails. ", 26)
	cmd := "cat > confparse/parser.py <<'EOF'\n" + strings.Repeat("def parse(line):\n    return line.split('=', 1)\n", 32) + "EOF"
	return providertest.Reply(wire, providertest.Turn{Content: text, Commands: []string{cmd}}, 1, "bench")
}

// benchBodies renders a reply unstreamed and streamed, as the wire sends it.
func benchBodies(wire string) (plain, streamed []byte, format streamFormat) {
	reply := benchReply(wire)
	plain, _ = json.Marshal(reply)
	if wire == providertest.Converse {
		return plain, providertest.AWSEvents(providertest.ConverseEventsSized(reply, 4)), streamAWSEvent
	}
	return plain, providertest.SSE(providertest.SSEEventsSized(wire, reply, 4)), streamSSE
}

func benchAssembler(wire string) assembler {
	switch wire {
	case providertest.Chat:
		return &chatAssembler{}
	case providertest.Responses:
		return &responsesAssembler{}
	case providertest.Anthropic:
		return newAnthropicAssembler()
	case providertest.Gemini:
		return &geminiAssembler{}
	}
	return &converseAssembler{}
}

// BenchmarkReplyDecode measures the client's own work on one reply: decoding the JSON body,
// against reading the event stream and assembling the same object.
func BenchmarkReplyDecode(b *testing.B) {
	for _, w := range benchWires {
		plain, streamed, format := benchBodies(w.wire)
		b.Run(w.name+"/unstreamed", func(b *testing.B) {
			b.ReportAllocs()
			defer cpuPerOp(b)()
			for b.Loop() {
				dec := json.NewDecoder(bytes.NewReader(plain))
				dec.UseNumber()
				var out map[string]any
				if err := dec.Decode(&out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(plain)), "wire-bytes/op")
		})
		b.Run(w.name+"/streamed", func(b *testing.B) {
			b.ReportAllocs()
			defer func() { b.ReportMetric(float64(len(streamed)), "wire-bytes/op") }()
			defer cpuPerOp(b)()
			for b.Loop() {
				asm := benchAssembler(w.wire)
				var err error
				if format == streamAWSEvent {
					err = readAWSEvents(bytes.NewReader(streamed), asm, func(int, []byte, http.Header) *APIError { return nil })
				} else {
					err = readSSE(bytes.NewReader(streamed), asm)
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := asm.result(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReplyCall measures a whole model call through the provider against a local server
// that sends the prepared bytes: request encoding, HTTP, decoding or assembly, actions, cost.
func BenchmarkReplyCall(b *testing.B) {
	awsEnvB(b)
	for _, w := range benchWires {
		plain, streamed, format := benchBodies(w.wire)
		for _, stream := range []bool{false, true} {
			name := w.name + "/unstreamed"
			body, ctype := plain, "application/json"
			if stream {
				name, body = w.name+"/streamed", streamed
				ctype = map[streamFormat]string{streamSSE: "text/event-stream", streamAWSEvent: "application/vnd.amazon.eventstream"}[format]
			}
			b.Run(name, func(b *testing.B) {
				srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
					rw.Header().Set("Content-Type", ctype)
					_, _ = rw.Write(body)
				}))
				defer srv.Close()
				cfg := Config{ModelName: w.model, BaseURL: srv.URL, CostTracking: "ignore_errors",
					ModelKwargs: map[string]any{"stream": stream, "aws_region_name": "us-east-1"}}
				env := func(string) string { return testKey }
				p, err := New(cfg, Options{Env: env})
				if err != nil {
					b.Fatal(err)
				}
				m, _ := p.ForInstance("bench")
				msgs := conversation()
				b.ReportAllocs()
				stop := cpuPerOp(b)
				for b.Loop() {
					r, err := m.Query(b.Context(), msgs)
					if err != nil || len(r.Actions) != 1 {
						b.Fatalf("query: %v %v", err, r.Actions)
					}
				}
				stop()
				b.ReportMetric(float64(len(body)), "wire-bytes/op")
			})
		}
	}
}

// cpuPerOp starts measuring the process's CPU time (user + system, all goroutines: the
// local server's too in BenchmarkReplyCall); the function it returns reports it per operation.
// Unlike ns/op it does not count time the machine gave to other processes.
func cpuPerOp(b *testing.B) func() {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func awsEnvB(b *testing.B) {
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": testAWS.AccessKeyID, "AWS_SECRET_ACCESS_KEY": testAWS.SecretAccessKey,
		"AWS_SESSION_TOKEN": testAWS.SessionToken, "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_BEARER_TOKEN_BEDROCK": ""} {
		b.Setenv(k, v)
	}
}

// The benchmark's reply is what the fake provider's streams rebuild to.
func TestBenchRepliesAssemble(t *testing.T) {
	for _, w := range benchWires {
		plain, streamed, format := benchBodies(w.wire)
		asm := benchAssembler(w.wire)
		var err error
		if format == streamAWSEvent {
			err = readAWSEvents(bytes.NewReader(streamed), asm, func(int, []byte, http.Header) *APIError { return nil })
		} else {
			err = readSSE(bytes.NewReader(streamed), asm)
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := asm.result()
		if err != nil {
			t.Fatal(err)
		}
		if a, b := fmt.Sprint(jsonRound(t, got)), fmt.Sprint(jsonRound(t, decodeFile(t, plain))); a != b {
			t.Errorf("%s: the stream assembles to\n%s\nwant\n%s", w.name, a, b)
		}
	}
}
