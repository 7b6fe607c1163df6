package model

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// credentials authenticate the calls of one provider.
type credentials struct {
	// apply sets the credentials of one request: a key header, a bearer token fetched (and
	// cached, refreshed) by the vendor's library, or a SigV4 signature over body.
	apply func(ctx context.Context, req *http.Request, body []byte) error
	// source says where they come from ("$OPENAI_API_KEY", "AWS default credential chain
	// (profile prod)"), for hints and `config show`; never the secret itself.
	source  string
	hint    string   // what to do when they are refused or cannot be had
	secrets []string // values redacted from every error, log line and stored message
	// identity separates rate limits of different accounts (hashed before use).
	identity string
	// project is the Google Cloud project the credentials name (Vertex, when not configured).
	project string
}

func newCredentials(cfg Config, ep endpoint, opts Options, u *url.URL) (credentials, error) {
	switch ep.cloud {
	case cloudBedrock:
		return bedrockCredentials(cfg, ep, opts)
	case cloudVertex:
		return vertexCredentials(cfg, ep, opts)
	case cloudAzure:
		return azureCredentials(cfg, ep, opts)
	}
	key, keyEnv := apiKey(cfg, ep, opts.Env)
	envs := keyEnvs(cfg, ep)
	if key == "" && publicHost(u.Host) {
		return credentials{}, &APIError{Provider: ep.provider, Status: StatusAuthentication, fatal: true,
			Message: "no API key", Hint: "set " + strings.Join(envs, " or ")}
	}
	c := credentials{source: describeKey(cfg, keyEnv), hint: "check the API key", secrets: []string{key}, identity: key}
	if keyEnv != "" {
		c.hint += " in " + keyEnv
	}
	c.apply = func(_ context.Context, req *http.Request, _ []byte) error {
		if key == "" {
			return nil
		}
		switch ep.kind {
		case kindAnthropic:
			req.Header.Set("X-Api-Key", key)
		case kindGemini:
			req.Header.Set("X-Goog-Api-Key", key)
		default:
			req.Header.Set("Authorization", "Bearer "+key)
		}
		return nil
	}
	return c, nil
}

func keyEnvs(cfg Config, ep endpoint) []string {
	if cfg.APIKeyEnv != "" {
		return []string{cfg.APIKeyEnv}
	}
	return ep.keyEnvs
}

// apiKey returns the API key (Config.APIKey, else the first variable set) and the name of the
// variable it came from (the first candidate when none is set).
func apiKey(cfg Config, ep endpoint, env func(string) string) (string, string) {
	envs := keyEnvs(cfg, ep)
	if cfg.APIKey != "" {
		return cfg.APIKey, ""
	}
	if v, name := firstEnv(env, envs...); v != "" {
		return v, name
	}
	if len(envs) > 0 {
		return "", envs[0]
	}
	return "", ""
}

func describeKey(cfg Config, keyEnv string) string {
	switch {
	case cfg.APIKey != "":
		return "an API key given by the caller"
	case keyEnv != "":
		return "$" + keyEnv
	}
	return "none"
}
