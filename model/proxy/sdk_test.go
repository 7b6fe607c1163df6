package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/genai"

	"github.com/swebench-run/swebench-run/model"
)

// turn is what an agent got from one call: the text, and its tool call.
type turn struct {
	text, callID, command string
}

// agentClient is an official SDK of one wire, used as an agent uses it: a conversation of
// two calls, the tool call of the first answered in the second.
type agentClient interface {
	converse(t *testing.T, ctx context.Context, stream bool) ([2]turn, error)
	countTokens(ctx context.Context) (int64, error)
}

func sdkFor(r *rig, hc *http.Client) agentClient {
	ep, tok := r.inst.Endpoints(), r.inst.Token()
	switch r.kind.in {
	case model.WireAnthropic:
		return anthropicAgent{c: anthropic.NewClient(aoption.WithBaseURL(ep.Anthropic), aoption.WithAPIKey(tok), aoption.WithHTTPClient(hc),
			aoption.WithMaxRetries(0), aoption.WithHeader("anthropic-beta", "tools-2024-04-04"))}
	case model.WireChat, model.WireResponses:
		return openAIAgent{c: openai.NewClient(ooption.WithBaseURL(ep.OpenAI), ooption.WithAPIKey(tok), ooption.WithHTTPClient(hc), ooption.WithMaxRetries(0)),
			responses: r.kind.in == model.WireResponses}
	}
	return geminiAgent{base: ep.Gemini, key: tok, hc: hc}
}

type anthropicAgent struct{ c anthropic.Client }

func (a anthropicAgent) params() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model: "claude-agent-asks-for-this", MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(testTask))},
		Tools: []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
			Properties: map[string]any{"command": map[string]any{"type": "string"}}, Required: []string{"command"}}, "bash")},
	}
}

func (a anthropicAgent) call(ctx context.Context, p anthropic.MessageNewParams, stream bool) (*anthropic.Message, error) {
	if !stream {
		return a.c.Messages.New(ctx, p)
	}
	s := a.c.Messages.NewStreaming(ctx, p)
	defer s.Close()
	msg := &anthropic.Message{}
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			return nil, err
		}
	}
	return msg, s.Err()
}

func (a anthropicAgent) converse(t *testing.T, ctx context.Context, stream bool) ([2]turn, error) {
	var out [2]turn
	p := a.params()
	for i := range out {
		msg, err := a.call(ctx, p, stream)
		if err != nil {
			return out, err
		}
		if msg.Content[0].Type != "thinking" || msg.Content[0].Signature == "" {
			t.Errorf("turn %d: first block %+v, want the thinking block with its signature", i, msg.Content[0])
		}
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				out[i].text += b.Text
			case "tool_use":
				var in struct{ Command string }
				if err := json.Unmarshal(b.Input, &in); err != nil {
					t.Fatalf("tool input %s: %v", b.Input, err)
				}
				out[i].callID, out[i].command = b.ID, in.Command
			}
		}
		p.Messages = append(p.Messages, msg.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(out[i].callID, "parser.py", false)))
	}
	return out, nil
}

func (a anthropicAgent) countTokens(ctx context.Context) (int64, error) {
	p := a.params()
	r, err := a.c.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: p.Model, Messages: p.Messages})
	if err != nil {
		return 0, err
	}
	return r.InputTokens, nil
}

type openAIAgent struct {
	c         openai.Client
	responses bool
}

var bashSchema = map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}, "required": []any{"command"}}

func (a openAIAgent) converse(t *testing.T, ctx context.Context, stream bool) ([2]turn, error) {
	if a.responses {
		return a.converseResponses(t, ctx, stream)
	}
	var out [2]turn
	p := openai.ChatCompletionNewParams{Model: "gpt-agent-asks-for-this",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(testTask)},
		Tools:    []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "bash", Parameters: bashSchema})}}
	for i := range out {
		var comp *openai.ChatCompletion
		if stream {
			s := a.c.Chat.Completions.NewStreaming(ctx, p)
			acc := openai.ChatCompletionAccumulator{}
			for s.Next() {
				ch := s.Current()
				if len(ch.Choices) == 0 {
					t.Errorf("turn %d: a chunk without choices (%s): the usage chunk reached an agent that did not ask for it", i, ch.RawJSON())
				}
				acc.AddChunk(ch)
			}
			if err := s.Err(); err != nil {
				return out, err
			}
			comp = &acc.ChatCompletion
		} else {
			var err error
			if comp, err = a.c.Chat.Completions.New(ctx, p); err != nil {
				return out, err
			}
		}
		msg := comp.Choices[0].Message
		out[i].text = msg.Content
		if len(msg.ToolCalls) > 0 {
			tc := msg.ToolCalls[0]
			var in struct{ Command string }
			_ = json.Unmarshal([]byte(tc.Function.Arguments), &in)
			out[i].callID, out[i].command = tc.ID, in.Command
		}
		p.Messages = append(p.Messages, msg.ToParam(), openai.ToolMessage("parser.py", out[i].callID))
	}
	return out, nil
}

func (a openAIAgent) converseResponses(t *testing.T, ctx context.Context, stream bool) ([2]turn, error) {
	var out [2]turn
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(testTask, responses.EasyInputMessageRoleUser)}
	for i := range out {
		p := responses.ResponseNewParams{Model: "gpt-agent-asks-for-this", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
			Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "bash", Parameters: bashSchema}}}}
		var resp *responses.Response
		if stream {
			s := a.c.Responses.NewStreaming(ctx, p)
			for s.Next() {
				switch ev := s.Current(); ev.Type {
				case "response.completed":
					r := ev.Response
					resp = &r
				case "error":
					return out, fmt.Errorf("error event: %s", ev.Message)
				}
			}
			if err := s.Err(); err != nil {
				return out, err
			}
			if resp == nil {
				return out, errors.New("no response.completed event")
			}
		} else {
			var err error
			if resp, err = a.c.Responses.New(ctx, p); err != nil {
				return out, err
			}
		}
		out[i].text = resp.OutputText()
		for _, item := range resp.Output {
			input = append(input, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(item.RawJSON())))
			if item.Type == "function_call" {
				fc := item.AsFunctionCall()
				var in struct{ Command string }
				_ = json.Unmarshal([]byte(fc.Arguments), &in)
				out[i].callID, out[i].command = fc.CallID, in.Command
			}
		}
		result := responses.ResponseInputItemParamOfFunctionCallOutput("parser.py")
		result.OfFunctionCallOutput.CallID = param.NewOpt(out[i].callID)
		input = append(input, result)
	}
	return out, nil
}

func (a openAIAgent) countTokens(context.Context) (int64, error) {
	return 0, errors.New("no token count in the OpenAI APIs")
}

type geminiAgent struct {
	base, key string
	hc        *http.Client
}

func (a geminiAgent) client(ctx context.Context) (*genai.Client, error) {
	return genai.NewClient(ctx, &genai.ClientConfig{APIKey: a.key, Backend: genai.BackendGeminiAPI, HTTPClient: a.hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: a.base}})
}

func (a geminiAgent) converse(t *testing.T, ctx context.Context, stream bool) ([2]turn, error) {
	var out [2]turn
	c, err := a.client(ctx)
	if err != nil {
		return out, err
	}
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "bash",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"command": {Type: genai.TypeString}}}}}}}}
	contents := []*genai.Content{genai.NewContentFromText(testTask, genai.RoleUser)}
	for i := range out {
		got := &genai.Content{Role: genai.RoleModel}
		if stream {
			for chunk, err := range c.Models.GenerateContentStream(ctx, "gemini-agent-asks-for-this", contents, cfg) {
				if err != nil {
					return out, err
				}
				got.Parts = append(got.Parts, chunk.Candidates[0].Content.Parts...)
			}
		} else {
			resp, err := c.Models.GenerateContent(ctx, "gemini-agent-asks-for-this", contents, cfg)
			if err != nil {
				return out, err
			}
			got = resp.Candidates[0].Content
		}
		for _, p := range got.Parts {
			switch {
			case p.FunctionCall != nil:
				if out[i].command == "" && len(p.ThoughtSignature) == 0 {
					t.Errorf("turn %d: function call without its thought signature", i)
				}
				out[i].command, _ = p.FunctionCall.Args["command"].(string)
				out[i].callID = p.FunctionCall.Name
			case !p.Thought:
				out[i].text += p.Text
			}
		}
		contents = append(contents, got, genai.NewContentFromParts([]*genai.Part{genai.NewPartFromFunctionResponse("bash", map[string]any{"output": "parser.py"})}, genai.RoleUser))
	}
	return out, nil
}

func (a geminiAgent) countTokens(ctx context.Context) (int64, error) {
	c, err := a.client(ctx)
	if err != nil {
		return 0, err
	}
	r, err := c.Models.CountTokens(ctx, "gemini-agent-asks-for-this", []*genai.Content{genai.NewContentFromText(testTask, genai.RoleUser)}, nil)
	if err != nil {
		return 0, err
	}
	return int64(r.TotalTokens), nil
}

// The proxy's server side, exercised by the official SDKs as an agent uses them: for every
// provider kind behind model (Bedrock and Vertex Claude behind the Anthropic wire, Azure
// behind OpenAI's, Vertex Gemini behind Gemini's), a two-call conversation with tool use,
// unstreamed and streamed, answered as the fake provider answered (thinking blocks and
// thought signatures kept), the configured model in place of the agent's, priced and recorded,
// and not one byte of the provider's credentials in what came back.
func TestSDKsEveryWire(t *testing.T) {
	for _, k := range kinds {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", k.name, stream), func(t *testing.T) {
				r := newRig(t, k, rigOptions{})
				cap := &capture{}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				got, err := sdkFor(r, cap.client()).converse(t, ctx, stream)
				if err != nil {
					t.Fatalf("converse: %v", err)
				}
				want := [2]turn{{text: "Let me look at the files.", command: "ls -la"}, {text: "Done: the parser keeps empty sections.", command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}}
				for i := range got {
					if got[i].text != want[i].text || got[i].command != want[i].command || got[i].callID == "" {
						t.Errorf("turn %d: got %+v, want text %q and command %q", i, got[i], want[i].text, want[i].command)
					}
				}
				if n := r.fake.Streamed.Load(); stream && n != 2 || !stream && n != 0 {
					t.Errorf("provider streamed %d calls, want %d", n, map[bool]int{true: 2}[stream])
				}
				calls := r.calls(t)
				if len(calls) != 2 {
					t.Fatalf("record has %d calls, want 2", len(calls))
				}
				for i, c := range calls {
					if c.Error != nil || c.HTTPStatus != 200 || c.Stream != stream || c.Wire != string(k.in) || c.Model != k.model {
						t.Errorf("call %d recorded as %+v", i, c)
					}
					if c.RequestedModel != "claude-agent-asks-for-this" && c.RequestedModel != "gpt-agent-asks-for-this" && c.RequestedModel != "gemini-agent-asks-for-this" {
						t.Errorf("call %d: requested model %q, want the agent's", i, c.RequestedModel)
					}
					if c.Cost <= 0 || c.Usage.InputTokens != 1000 || c.Attempts != 1 || c.Seq != i+1 {
						t.Errorf("call %d: cost %v usage %+v attempts %d seq %d", i, c.Cost, c.Usage, c.Attempts, c.Seq)
					}
					if len(c.Request) == 0 || len(c.Response) == 0 || !strings.Contains(string(c.Request), "task 4711") {
						t.Errorf("call %d: request/response not recorded", i)
					}
					if stream && (c.Events == 0 || c.FirstEventMS <= 0) {
						t.Errorf("call %d: %d events, first after %v ms", i, c.Events, c.FirstEventMS)
					}
				}
				if s := r.inst.Summary(); s.Calls != 2 || s.Cost != calls[0].Cost+calls[1].Cost {
					t.Errorf("summary %+v, want 2 calls costing %v", s, calls[0].Cost+calls[1].Cost)
				}
				r.noSecrets(t, cap.bytes())
			})
		}
	}
}

// Token counts (Anthropic's count_tokens, Gemini's countTokens) go to each provider's own
// endpoint for them, free: not billed, not counted against the call limit.
func TestCountTokens(t *testing.T) {
	for _, k := range kinds {
		if k.countPath == "" {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			r := newRig(t, k, rigOptions{limits: Limits{Calls: 1}})
			cap := &capture{}
			n, err := sdkFor(r, cap.client()).countTokens(context.Background())
			if err != nil || n != 1234 {
				t.Fatalf("countTokens = %d, %v; want 1234", n, err)
			}
			body, ok := r.counts.Load(k.countPath)
			if !ok {
				t.Fatalf("the provider's %s was not called", k.countPath)
			}
			switch k.name {
			case "Bedrock Claude":
				if !strings.Contains(body.(string), `"invokeModel"`) {
					t.Errorf("Bedrock CountTokens body %s: want input.invokeModel.body", body)
				}
			case "Vertex Claude", "Anthropic":
				if !strings.Contains(body.(string), `"model":"claude-sonnet-4-5`) {
					t.Errorf("count_tokens body %s: want the configured model", body)
				}
			}
			calls := r.calls(t)
			if len(calls) != 1 || calls[0].Kind != "count_tokens" || calls[0].Cost != 0 || r.inst.Summary().Calls != 0 {
				t.Errorf("record %+v, summary %+v: want one free count_tokens call", calls, r.inst.Summary())
			}
			r.noSecrets(t, cap.bytes())
		})
	}
}
