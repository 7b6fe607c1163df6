package model

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	gcreds "cloud.google.com/go/auth/credentials"
)

// Google Vertex AI (vertex_ai/…): Gemini models through generateContent (the geminiWire),
// Claude through rawPredict / streamRawPredict (the anthropicWire, anthropic_version
// vertex-2023-10-16), partner models named publisher/model (meta/…, qwen/…, deepseek-ai/…)
// through Vertex's OpenAI-compatible endpoint. Tokens come from Application Default
// Credentials through cloud.google.com/go/auth: $GOOGLE_APPLICATION_CREDENTIALS (a service
// account or external-account file), gcloud's user credentials (`gcloud auth
// application-default login`), or the metadata server (GCE, GKE workload identity, Cloud Run).

const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

func resolveVertex(ep *endpoint, cfg Config, env func(string) string) error {
	m := ep.apiModel
	switch {
	case strings.HasPrefix(m, "claude"):
		ep.kind = kindAnthropic
	case strings.Contains(m, "/"):
		ep.kind = kindOpenAI // publisher/model on the OpenAI-compatible endpoint
	default:
		ep.kind = kindGemini
	}
	ep.project, _ = cfg.ModelKwargs["vertex_project"].(string)
	if ep.project == "" {
		ep.project, _ = firstEnv(env, "VERTEXAI_PROJECT", "VERTEX_PROJECT", "GOOGLE_CLOUD_PROJECT")
	}
	ep.location, _ = cfg.ModelKwargs["vertex_location"].(string)
	if ep.location == "" {
		ep.location, _ = firstEnv(env, "VERTEXAI_LOCATION", "VERTEX_LOCATION", "GOOGLE_CLOUD_LOCATION")
	}
	if ep.location == "" {
		ep.location = "us-central1"
	}
	if ep.baseURL == "" {
		if ep.location == "global" {
			ep.baseURL = "https://aiplatform.googleapis.com"
		} else {
			ep.baseURL = "https://" + ep.location + "-aiplatform.googleapis.com"
		}
	}
	return nil
}

// vertexURL is the URL of a Vertex model: publisher "google" or "anthropic" with a method
// (generateContent, rawPredict, …), or "" for the OpenAI-compatible endpoint with a path.
func vertexURL(base string, ep endpoint, publisher, method string) string {
	loc := base + "/v1/projects/" + url.PathEscape(ep.project) + "/locations/" + url.PathEscape(ep.location)
	if publisher == "" {
		return loc + "/endpoints/openapi/" + method
	}
	return loc + "/publishers/" + publisher + "/models/" + url.PathEscape(ep.apiModel) + ":" + method
}

// vertexTokenTimeout bounds the first token fetch in New.
const vertexTokenTimeout = 30 * time.Second

func vertexCredentials(cfg Config, ep endpoint, opts Options) (credentials, error) {
	do := &gcreds.DetectOptions{Scopes: []string{cloudPlatformScope}, Client: opts.HTTPClient}
	source := describeVertexCredentials(cfg, opts.Env)
	if v, _ := cfg.ModelKwargs["vertex_credentials"].(string); v != "" {
		if strings.HasPrefix(strings.TrimSpace(v), "{") {
			do.CredentialsJSON = []byte(v) //nolint:staticcheck // litellm's vertex_credentials may hold the JSON itself
		} else {
			do.CredentialsFile = v
		}
	}
	creds, err := gcreds.DetectDefault(do)
	if err != nil {
		return credentials{}, &APIError{Provider: ep.provider, Status: StatusAuthentication, fatal: true, cause: err,
			Message: "no Google credentials: " + err.Error(), Hint: vertexCredentialHint}
	}
	ctx, cancel := context.WithTimeout(context.Background(), vertexTokenTimeout)
	defer cancel()
	first, err := creds.Token(ctx)
	if err != nil {
		return credentials{}, &APIError{Provider: ep.provider, Status: StatusAuthentication, fatal: true, cause: err,
			Message: "no Google access token: " + err.Error(), Hint: vertexCredentialHint}
	}
	project := ep.project
	if project == "" {
		project, _ = creds.ProjectID(ctx)
	}
	if project == "" {
		return credentials{}, fmt.Errorf("model %q: no Google Cloud project: set VERTEXAI_PROJECT (or model_kwargs.vertex_project)", cfg.ModelName)
	}
	return credentials{
		source: source, hint: vertexCredentialHint, secrets: []string{first.Value}, identity: project + "\x00" + source,
		project: project,
		apply: func(ctx context.Context, req *http.Request, _ []byte) error {
			tok, err := creds.Token(ctx) // cached and refreshed by the library
			if err != nil {
				return err
			}
			req.Header.Set("Authorization", "Bearer "+tok.Value)
			return nil
		},
	}, nil
}

const vertexCredentialHint = "give Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS=service-account.json, `gcloud auth application-default login`, or run where the metadata server answers (GCE, GKE workload identity, Cloud Run)"

// describeVertexCredentials names the ADC source that will be used, without fetching anything.
func describeVertexCredentials(cfg Config, env func(string) string) string {
	if v, _ := cfg.ModelKwargs["vertex_credentials"].(string); v != "" {
		if strings.HasPrefix(strings.TrimSpace(v), "{") {
			return "credentials JSON in model_kwargs.vertex_credentials"
		}
		return "credentials file " + v + " (model_kwargs.vertex_credentials)"
	}
	if f := env("GOOGLE_APPLICATION_CREDENTIALS"); f != "" {
		return "Application Default Credentials: $GOOGLE_APPLICATION_CREDENTIALS=" + f
	}
	if wk := wellKnownADCFile(env); wk != "" {
		if _, err := os.Stat(wk); err == nil {
			return "Application Default Credentials: gcloud user credentials " + wk
		}
	}
	return "Application Default Credentials: metadata server (GCE, GKE workload identity, Cloud Run)"
}

func wellKnownADCFile(env func(string) string) string {
	if d := env("CLOUDSDK_CONFIG"); d != "" {
		return filepath.Join(d, "application_default_credentials.json")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "gcloud", "application_default_credentials.json")
}
