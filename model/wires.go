package model

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/swebench-run/swebench-run/internal/pyre"
)

// modelKwargs is model.model_kwargs split into what goes into the request body and what
// configures the client (litellm's client options, which are not API fields).
type modelKwargs struct {
	body       map[string]any    // API fields, as given
	headers    map[string]string // extra_headers: added to every request
	baseURL    string            // api_base / base_url
	stream     bool              // stream: true
	dropParams bool              // drop_params: true: fields a wire cannot send are dropped, not refused
	// streamOptions replaces the chat completions' default stream_options
	// ({"include_usage": true}) when the config gives its own (null: none sent).
	streamOptions    any
	hasStreamOptions bool
}

// clientKwargs are litellm options read by resolve or the credentials, never sent.
var clientKwargs = map[string]bool{
	"drop_params": true, "num_retries": true, "api_base": true, "base_url": true, "stream": true,
	"extra_headers": true, "stream_options": true,
	"aws_region_name": true, "aws_profile_name": true, "aws_bedrock_runtime_endpoint": true,
	"vertex_project": true, "vertex_location": true, "vertex_credentials": true,
	"api_version": true,
}

// secretKwargs are litellm parameters that put credentials in the config: refused, so that no
// secret is sent in a request body or saved with the run's config.
var secretKwargs = map[string]bool{"api_key": true, "aws_access_key_id": true, "aws_secret_access_key": true,
	"aws_session_token": true, "aws_web_identity_token": true, "azure_ad_token": true}

func splitKwargs(in map[string]any) (modelKwargs, error) {
	kw := modelKwargs{body: map[string]any{}, headers: map[string]string{}}
	for k, v := range in {
		if secretKwargs[k] {
			return kw, fmt.Errorf("model.model_kwargs.%s: credentials do not belong in the config (it is saved with the run): give them through the environment (see docs/models.md), an AWS profile, or model.api_key_env", k)
		}
		switch k {
		case "api_base", "base_url", "aws_bedrock_runtime_endpoint":
			if s, ok := v.(string); ok && kw.baseURL == "" {
				kw.baseURL = s
			}
		case "stream":
			b, ok := v.(bool)
			if !ok {
				return kw, fmt.Errorf("model.model_kwargs.stream: %v is not true or false", v)
			}
			kw.stream = b
		case "stream_options":
			kw.streamOptions, kw.hasStreamOptions = v, true
		case "drop_params":
			kw.dropParams = v == true
		case "extra_headers":
			m, ok := v.(map[string]any)
			if !ok {
				return kw, fmt.Errorf("model.model_kwargs.extra_headers: want a map of header names to values, got %T", v)
			}
			for h, hv := range m {
				kw.headers[h] = fmt.Sprint(hv)
			}
		case "extra_body":
			m, ok := v.(map[string]any)
			if !ok {
				return kw, fmt.Errorf("model.model_kwargs.extra_body: want a map of request fields, got %T", v)
			}
			for bk, bv := range m {
				kw.body[bk] = bv
			}
		default:
			if !clientKwargs[k] {
				kw.body[k] = v
			}
		}
	}
	return kw, nil
}

// unsupported refuses the fields of a request a wire cannot translate, unless drop_params.
func (kw modelKwargs) unsupported(api string, keys []string) error {
	if len(keys) == 0 || kw.dropParams {
		return nil
	}
	sort.Strings(keys)
	return fmt.Errorf("model.model_kwargs %s: not supported by the %s; remove them or set model_kwargs.drop_params: true to drop them", strings.Join(keys, ", "), api)
}

type wireOptions struct {
	cache  bool
	textRe *pyre.Regexp // nil: tool calling
	mini1  bool
}

// wireCall is how the calls of one provider are made: the wire, the URL, extra headers and,
// for a streamed reply, its framing and assembler.
type wireCall struct {
	wire    wire
	url     string
	headers map[string]string
	// skipHeaders are extra_headers the wire carries in the body instead (canonical names).
	skipHeaders map[string]bool
	stream      streamFormat
	assembler   func() assembler
}

// headerValues returns the comma-separated values of header name (canonical form) in headers,
// whatever the case its key was given in.
func headerValues(headers map[string]string, name string) []any {
	var out []any
	for k, v := range headers {
		if http.CanonicalHeaderKey(k) != name {
			continue
		}
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// newWire picks the wire of ep and its URL, streamed or not.
func newWire(ep endpoint, kw modelKwargs, o wireOptions) (wireCall, error) {
	base := strings.TrimSuffix(ep.baseURL, "/")
	var call wireCall
	switch ep.kind {
	case kindAnthropic:
		w := &anthropicWire{model: ep.apiModel, kwargs: kw.body, cache: o.cache, textRe: o.textRe, mini1: o.mini1, stream: kw.stream}
		call.wire = w
		call.assembler = func() assembler { return newAnthropicAssembler() }
		if kw.stream {
			call.stream = streamSSE
		}
		switch ep.cloud {
		case cloudBedrock:
			w.omitModel, w.version = true, "bedrock-2023-05-31"
			w.stream = false // the URL says it
			// Bedrock takes Anthropic's beta flags as the body's anthropic_beta list, not as the
			// anthropic-beta header the Messages API reads (as litellm moves them).
			if betas := headerValues(kw.headers, "Anthropic-Beta"); len(betas) > 0 {
				body := make(map[string]any, len(w.kwargs)+1)
				for k, v := range w.kwargs {
					body[k] = v
				}
				if _, set := body["anthropic_beta"]; !set {
					body["anthropic_beta"] = betas
				}
				w.kwargs = body
				call.skipHeaders = map[string]bool{"Anthropic-Beta": true}
			}
			call.url = bedrockURL(base, ep.apiModel, "invoke", kw.stream)
			if kw.stream {
				call.stream = streamAWSEvent
				call.assembler = func() assembler { return &bedrockChunks{inner: newAnthropicAssembler()} }
			}
		case cloudVertex:
			w.omitModel, w.version = true, "vertex-2023-10-16"
			verb := "rawPredict"
			if kw.stream {
				verb = "streamRawPredict"
			}
			call.url = vertexURL(base, ep, "anthropic", verb)
		default:
			call.url = base + "/v1/messages"
			call.headers = map[string]string{"Anthropic-Version": "2023-06-01"}
		}
	case kindResponses:
		w, err := newResponsesWire(ep.apiModel, kw, o)
		if err != nil {
			return call, err
		}
		call.wire = w
		call.assembler = func() assembler { return &responsesAssembler{} }
		if kw.stream {
			call.stream = streamSSE
		}
		call.url = base + "/responses"
		if ep.cloud == cloudAzure {
			call.url = azureURL(base, "", "responses", ep.apiVersion)
		}
	case kindGemini:
		w, err := newGeminiWire(ep.apiModel, kw, o)
		if err != nil {
			return call, err
		}
		call.wire = w
		call.assembler = func() assembler { return &geminiAssembler{} }
		verb := "generateContent"
		if kw.stream {
			verb, call.stream = "streamGenerateContent", streamSSE
		}
		if ep.cloud == cloudVertex {
			call.url = vertexURL(base, ep, "google", verb)
		} else {
			call.url = base + "/v1beta/models/" + url.PathEscape(ep.apiModel) + ":" + verb
		}
		if kw.stream {
			call.url += "?alt=sse"
		}
	case kindConverse:
		w, err := newConverseWire(kw, o)
		if err != nil {
			return call, err
		}
		call.wire = w
		call.assembler = func() assembler { return &converseAssembler{} }
		call.url = bedrockURL(base, ep.apiModel, "converse", kw.stream)
		if kw.stream {
			call.stream = streamAWSEvent
		}
	default:
		w := &openAIWire{model: ep.apiModel, kwargs: kw.body, cache: o.cache, textRe: o.textRe, openRouter: ep.openRouter, mini1: o.mini1, stream: kw.stream,
			streamOptions: map[string]any{"include_usage": true}}
		if kw.hasStreamOptions {
			w.streamOptions = kw.streamOptions
		}
		call.wire = w
		call.assembler = func() assembler { return &chatAssembler{} }
		if kw.stream {
			call.stream = streamSSE
		}
		switch ep.cloud {
		case cloudAzure:
			call.url = azureURL(base, ep.apiModel, "chat/completions", ep.apiVersion)
		case cloudVertex:
			call.url = vertexURL(base, ep, "", "chat/completions")
		default:
			call.url = base + "/chat/completions"
		}
	}
	return call, nil
}
