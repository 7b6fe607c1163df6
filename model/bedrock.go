package model

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/pyre"
)

// AWS Bedrock (bedrock/…): Anthropic models through InvokeModel with the Messages body (the
// anthropicWire, anthropic_version bedrock-2023-05-31), every other model through Converse.
// "bedrock/converse/ID" and "bedrock/invoke/ID" force the API, as in litellm. Requests are
// signed with SigV4 by the AWS SDK's signer, with credentials from the SDK's default chain
// (environment, shared config profile and SSO, web identity / EKS pod identity, container and
// instance roles); a Bedrock API key ($AWS_BEARER_TOKEN_BEDROCK) is sent as a bearer token
// instead. Cross-region inference profile ids (us., eu., apac., global.) are model ids like any.

func resolveBedrock(ep *endpoint, cfg Config, env func(string) string) error {
	id := ep.apiModel
	forced := ""
	if rest, ok := strings.CutPrefix(id, "converse/"); ok {
		id, forced = rest, "converse"
	} else if rest, ok := strings.CutPrefix(id, "invoke/"); ok {
		id, forced = rest, "invoke"
	}
	ep.apiModel = id
	switch {
	case forced == "invoke" || forced == "" && strings.Contains(id, "anthropic."):
		if !strings.Contains(id, "anthropic") && !strings.HasPrefix(id, "arn:") {
			return fmt.Errorf("model %q: bedrock/invoke/ is for Anthropic models (their Messages body); use bedrock/converse/ or bedrock/%s", cfg.ModelName, id)
		}
		ep.kind = kindAnthropic
	default:
		ep.kind = kindConverse
	}
	region, _ := cfg.ModelKwargs["aws_region_name"].(string)
	if region == "" {
		region, _ = firstEnv(env, "AWS_REGION_NAME", "AWS_REGION", "AWS_DEFAULT_REGION")
	}
	if region == "" {
		// The region of the shared config profile (no network: credentials load lazily).
		if c, err := awsconfig.LoadDefaultConfig(context.Background(), awsProfile(cfg)...); err == nil {
			region = c.Region
		}
	}
	if region == "" {
		return fmt.Errorf("model %q: no AWS region: set AWS_REGION (or AWS_REGION_NAME, model_kwargs.aws_region_name, or region in the AWS profile)", cfg.ModelName)
	}
	ep.region = region
	if ep.baseURL == "" {
		ep.baseURL = "https://bedrock-runtime." + region + ".amazonaws.com"
	}
	return nil
}

// awsProfile is the shared-config profile option of model_kwargs.aws_profile_name (the SDK
// reads $AWS_PROFILE itself).
func awsProfile(cfg Config) []func(*awsconfig.LoadOptions) error {
	if p, _ := cfg.ModelKwargs["aws_profile_name"].(string); p != "" {
		return []func(*awsconfig.LoadOptions) error{awsconfig.WithSharedConfigProfile(p)}
	}
	return nil
}

// bedrockURL is the runtime URL of a model id (ids hold ':' and ARNs '/', escaped in the path).
func bedrockURL(base, modelID, api string, stream bool) string {
	op := map[bool]map[string]string{
		false: {"invoke": "invoke", "converse": "converse"},
		true:  {"invoke": "invoke-with-response-stream", "converse": "converse-stream"},
	}[stream][api]
	id := strings.NewReplacer(":", "%3A", "/", "%2F").Replace(url.PathEscape(modelID))
	return base + "/model/" + id + "/" + op
}

// bedrockCredentialTimeout bounds the first retrieval of AWS credentials in New.
const bedrockCredentialTimeout = 30 * time.Second

func bedrockCredentials(cfg Config, ep endpoint, opts Options) (credentials, error) {
	if key, keyEnv := apiKey(cfg, ep, opts.Env); key != "" {
		return credentials{
			source: "Bedrock API key " + describeKey(cfg, keyEnv), hint: "check the Bedrock API key", secrets: []string{key}, identity: key,
			apply: func(_ context.Context, req *http.Request, _ []byte) error {
				req.Header.Set("Authorization", "Bearer "+key)
				return nil
			},
		}, nil
	}
	loadOpts := append(awsProfile(cfg), awsconfig.WithRegion(ep.region))
	ctx, cancel := context.WithTimeout(context.Background(), bedrockCredentialTimeout)
	defer cancel()
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return credentials{}, fmt.Errorf("model %q: AWS config: %w", cfg.ModelName, err)
	}
	first, err := awsCfg.Credentials.Retrieve(ctx)
	if err != nil {
		return credentials{}, &APIError{Provider: ep.provider, Status: StatusAuthentication, fatal: true, cause: err,
			Message: "no AWS credentials: " + err.Error(), Hint: bedrockCredentialHint}
	}
	signer := v4.NewSigner()
	region := ep.region
	return credentials{
		source:   "AWS credentials (" + first.Source + ")",
		hint:     bedrockCredentialHint,
		secrets:  []string{first.SecretAccessKey, first.SessionToken},
		identity: first.AccessKeyID,
		apply: func(ctx context.Context, req *http.Request, body []byte) error {
			creds, err := awsCfg.Credentials.Retrieve(ctx) // cached by the SDK, refreshed before expiry
			if err != nil {
				return err
			}
			sum := sha256.Sum256(body)
			return signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "bedrock", region, time.Now())
		},
	}, nil
}

const bedrockCredentialHint = "give AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE (shared config, SSO after `aws sso login`), a web identity (AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE, EKS pod identity), an instance or task role, or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK"

// describeBedrockCredentials names the credential source without retrieving anything.
func describeBedrockCredentials(cfg Config, env func(string) string) string {
	if v, name := firstEnv(env, "AWS_BEARER_TOKEN_BEDROCK"); v != "" {
		return "Bedrock API key $" + name
	}
	switch {
	case env("AWS_ACCESS_KEY_ID") != "":
		return "AWS default credential chain: $AWS_ACCESS_KEY_ID (environment)"
	case cfg.ModelKwargs["aws_profile_name"] != nil:
		return fmt.Sprintf("AWS default credential chain: profile %v (model_kwargs.aws_profile_name)", cfg.ModelKwargs["aws_profile_name"])
	case env("AWS_PROFILE") != "":
		return "AWS default credential chain: profile $AWS_PROFILE=" + env("AWS_PROFILE")
	case env("AWS_WEB_IDENTITY_TOKEN_FILE") != "":
		return "AWS default credential chain: web identity $AWS_WEB_IDENTITY_TOKEN_FILE"
	case env("AWS_CONTAINER_CREDENTIALS_FULL_URI") != "" || env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") != "":
		return "AWS default credential chain: container credentials (ECS task role, EKS pod identity)"
	}
	return "AWS default credential chain: shared config default profile, SSO, or instance role"
}

// converseWire speaks Bedrock Converse (POST /model/ID/converse) for every model that is not
// Anthropic's. Stored assistant messages are Converse's output.message, verbatim:
// {"role": "assistant", "content": [{"text"}, {"reasoningContent"}, {"toolUse"}]}; tool
// messages become toolResult blocks of the next user turn.
type converseWire struct {
	inference  map[string]any // inferenceConfig
	additional map[string]any // additionalModelRequestFields
	top        map[string]any // other native top-level fields
	textRe     *pyre.Regexp
	mini1      bool
}

var converseTopLevel = map[string]bool{"guardrailConfig": true, "performanceConfig": true, "promptVariables": true,
	"requestMetadata": true, "additionalModelResponseFieldPaths": true}

func newConverseWire(kw modelKwargs, o wireOptions) (*converseWire, error) {
	w := &converseWire{inference: map[string]any{}, additional: map[string]any{}, top: map[string]any{}, textRe: o.textRe, mini1: o.mini1}
	for k, v := range kw.body {
		switch {
		case k == "max_tokens" || k == "max_completion_tokens" || k == "maxTokens":
			w.inference["maxTokens"] = v
		case k == "temperature":
			w.inference["temperature"] = v
		case k == "top_p" || k == "topP":
			w.inference["topP"] = v
		case k == "stop" || k == "stopSequences":
			if s, ok := v.(string); ok {
				v = []any{s}
			}
			w.inference["stopSequences"] = v
		case k == "inferenceConfig":
			m, _ := v.(map[string]any)
			for ik, iv := range m {
				w.inference[ik] = iv
			}
		case k == "additionalModelRequestFields":
			m, _ := v.(map[string]any)
			for ak, av := range m {
				w.additional[ak] = av
			}
		case converseTopLevel[k]:
			w.top[k] = v
		default:
			// model-specific fields (reasoning_effort, top_k, thinking, …) go where Converse
			// takes them, as litellm does
			w.additional[k] = v
		}
	}
	return w, nil
}

func (w *converseWire) request(msgs []agent.Message) ([]byte, error) {
	var system []any
	var turns []map[string]any
	add := func(role string, blocks []any) {
		if n := len(turns); n > 0 && turns[n-1]["role"] == role && role == "user" {
			turns[n-1]["content"] = append(turns[n-1]["content"].([]any), blocks...)
			return
		}
		turns = append(turns, map[string]any{"role": role, "content": blocks})
	}
	for i, m := range msgs {
		switch m.Role() {
		case "system":
			system = append(system, map[string]any{"text": textOf(m["content"])})
		case "user":
			add("user", []any{map[string]any{"text": textOf(m["content"])}})
		case "tool":
			add("user", []any{map[string]any{"toolResult": map[string]any{
				"toolUseId": m["tool_call_id"], "content": []any{map[string]any{"text": textOf(m["content"])}},
			}}})
		case "assistant":
			if w.mini1 {
				add("assistant", []any{map[string]any{"text": textOf(m["content"])}})
				continue
			}
			blocks, err := converseAssistantBlocks(m)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			add("assistant", blocks)
		default:
			return nil, fmt.Errorf("message %d: role %q cannot be sent to Bedrock Converse", i, m.Role())
		}
	}
	body := map[string]any{"messages": turns}
	if len(system) > 0 {
		body["system"] = system
	}
	if w.textRe == nil && !w.mini1 {
		body["toolConfig"] = map[string]any{"tools": []any{map[string]any{"toolSpec": map[string]any{
			"name": "bash", "description": bashToolDescription, "inputSchema": map[string]any{"json": bashToolSchema()},
		}}}}
	}
	if len(w.inference) > 0 {
		body["inferenceConfig"] = w.inference
	}
	if len(w.additional) > 0 {
		body["additionalModelRequestFields"] = w.additional
	}
	for k, v := range w.top {
		body[k] = v
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}

// converseAssistantBlocks returns an assistant message's Converse blocks: its own when it is a
// Converse reply, else converted from the OpenAI shape (scripted or replayed turns).
func converseAssistantBlocks(m agent.Message) ([]any, error) {
	if blocks, ok := m["content"].([]any); ok && m["tool_calls"] == nil {
		out := make([]any, 0, len(blocks))
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if str(bm["type"]) == "text" { // a chat-style text part
				out = append(out, map[string]any{"text": bm["text"]})
				continue
			}
			out = append(out, deepCopy(b))
		}
		return out, nil
	}
	var blocks []any
	if s := m.Content(); s != "" {
		blocks = append(blocks, map[string]any{"text": s})
	}
	for _, tc := range openAIToolCalls(m) {
		input := map[string]any{}
		if tc.args != "" {
			if err := json.Unmarshal([]byte(tc.args), &input); err != nil {
				return nil, fmt.Errorf("tool call %s: arguments are not a JSON object: %w", tc.id, err)
			}
		}
		blocks = append(blocks, map[string]any{"toolUse": map[string]any{"toolUseId": tc.id, "name": tc.name, "input": input}})
	}
	return blocks, nil
}

func (w *converseWire) validate(resp map[string]any) *APIError {
	out, _ := resp["output"].(map[string]any)
	msg, _ := out["message"].(map[string]any)
	if _, ok := msg["content"].([]any); !ok {
		switch str(resp["stopReason"]) {
		case "guardrail_intervened", "content_filtered":
			e := contentFiltered("the reply was withheld: stopReason " + str(resp["stopReason"]))
			e.Code = str(resp["stopReason"])
			return e
		}
		return invalidResponse("", "response has no output.message.content")
	}
	return nil
}

func (w *converseWire) usage(resp map[string]any) (agent.Usage, float64, bool) {
	us, _ := resp["usage"].(map[string]any)
	if us == nil {
		return agent.Usage{}, 0, false
	}
	u := agent.Usage{
		OutputTokens:     intOf(us["outputTokens"]),
		CacheReadTokens:  intOf(us["cacheReadInputTokens"]),
		CacheWriteTokens: intOf(us["cacheWriteInputTokens"]),
	}
	u.InputTokens = intOf(us["inputTokens"]) + u.CacheReadTokens + u.CacheWriteTokens
	return u, 0, false
}

var converseFinish = map[string]string{"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length"}

func (w *converseWire) reply(resp map[string]any) (agent.Message, []agent.Action, *agent.FormatError, error) {
	msg := agent.Message(deepCopy(resp["output"].(map[string]any)["message"]).(map[string]any))
	content, _ := msg["content"].([]any)
	var text []string
	var calls []toolCall
	for _, b := range content {
		bm, _ := b.(map[string]any)
		if s, ok := bm["text"].(string); ok {
			text = append(text, s)
		}
		if tu, ok := bm["toolUse"].(map[string]any); ok {
			in, ok := tu["input"].(map[string]any)
			calls = append(calls, toolCall{id: str(tu["toolUseId"]), name: str(tu["name"]), input: in, inputOK: ok || tu["input"] == nil})
		}
	}
	joined := strings.Join(text, "\n")
	if w.mini1 {
		return agent.Message{"role": "assistant", "content": joined}, nil, nil, nil
	}
	stop := str(resp["stopReason"])
	if (stop == "guardrail_intervened" || stop == "content_filtered") && len(calls) == 0 {
		return nil, nil, nil, contentFiltered("the reply was withheld: stopReason " + stop)
	}
	finish := firstNonEmpty(converseFinish[stop], stop)
	var actions []agent.Action
	var ferr *agent.FormatError
	if w.textRe != nil {
		actions, ferr = parseRegexActions(w.textRe, joined, finish)
	} else {
		actions, ferr = parseToolCalls(calls, finish)
	}
	return msg, actions, ferr, nil
}

// converseAssembler rebuilds a Converse response from a ConverseStream: messageStart (the
// role), contentBlockStart/Delta/Stop (text, reasoning text and signature, tool input as
// partial JSON), messageStop (the stop reason), metadata (usage and metrics). The stream is
// complete once both messageStop and metadata arrived.
type converseAssembler struct {
	role     any
	blocks   []map[string]any
	partial  map[int]*strings.Builder
	stop     map[string]any
	metadata map[string]any
}

func (a *converseAssembler) block(i int) map[string]any {
	for len(a.blocks) <= i {
		a.blocks = append(a.blocks, map[string]any{})
	}
	return a.blocks[i]
}

func (a *converseAssembler) event(name string, data []byte) error {
	ev, err := decodeObject(data)
	if err != nil {
		return err
	}
	switch name {
	case "messageStart":
		a.role = ev["role"]
	case "contentBlockStart":
		b := a.block(intOf(ev["contentBlockIndex"]))
		start, _ := ev["start"].(map[string]any)
		if tu, ok := start["toolUse"].(map[string]any); ok {
			b["toolUse"] = deepCopy(tu)
		}
	case "contentBlockDelta":
		i := intOf(ev["contentBlockIndex"])
		b := a.block(i)
		d, _ := ev["delta"].(map[string]any)
		if t, ok := d["text"]; ok {
			appendString(b, "text", t)
		}
		if tu, ok := d["toolUse"].(map[string]any); ok {
			if a.partial == nil {
				a.partial = map[int]*strings.Builder{}
			}
			if a.partial[i] == nil {
				a.partial[i] = &strings.Builder{}
			}
			a.partial[i].WriteString(str(tu["input"]))
		}
		if rc, ok := d["reasoningContent"].(map[string]any); ok {
			r, _ := b["reasoningContent"].(map[string]any)
			if r == nil {
				r = map[string]any{}
				b["reasoningContent"] = r
			}
			if rc["redactedContent"] != nil {
				r["redactedContent"] = rc["redactedContent"]
			}
			if rc["text"] != nil || rc["signature"] != nil {
				rt, _ := r["reasoningText"].(map[string]any)
				if rt == nil {
					rt = map[string]any{}
					r["reasoningText"] = rt
				}
				if t, ok := rc["text"]; ok {
					appendString(rt, "text", t)
				}
				if s, ok := rc["signature"]; ok {
					appendString(rt, "signature", s)
				}
			}
		}
	case "contentBlockStop":
		i := intOf(ev["contentBlockIndex"])
		if sb := a.partial[i]; sb != nil {
			in, err := decodePartialJSON(sb.String())
			if err != nil {
				return err
			}
			tu, _ := a.block(i)["toolUse"].(map[string]any)
			if tu == nil {
				tu = map[string]any{}
				a.block(i)["toolUse"] = tu
			}
			tu["input"] = in
		}
	case "messageStop":
		a.stop = ev
	case "metadata":
		a.metadata = ev
	}
	return nil
}

func (a *converseAssembler) result() (map[string]any, error) {
	if a.stop == nil || a.metadata == nil {
		return nil, errIncomplete
	}
	content := make([]any, len(a.blocks))
	for i, b := range a.blocks {
		content[i] = b
	}
	resp := map[string]any{"output": map[string]any{"message": map[string]any{"role": firstNonNil(a.role, "assistant"), "content": content}}}
	for k, v := range a.stop {
		resp[k] = v
	}
	for k, v := range a.metadata {
		resp[k] = v
	}
	return finishStrings(resp).(map[string]any), nil
}

func firstNonNil(v ...any) any {
	for _, x := range v {
		if x != nil {
			return x
		}
	}
	return nil
}

// bedrockChunks unwraps InvokeModelWithResponseStream: each "chunk" event carries one event of
// the model's own stream (for Anthropic, a Messages stream event), base64 in "bytes".
type bedrockChunks struct{ inner assembler }

func (a *bedrockChunks) event(name string, data []byte) error {
	if name != "chunk" {
		return nil
	}
	var c struct {
		Bytes string `json:"bytes"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("bedrock chunk is not JSON: %w", err)
	}
	raw, err := base64.StdEncoding.DecodeString(c.Bytes)
	if err != nil {
		return fmt.Errorf("bedrock chunk bytes: %w", err)
	}
	return a.inner.event("", raw)
}

func (a *bedrockChunks) result() (map[string]any, error) { return a.inner.result() }
