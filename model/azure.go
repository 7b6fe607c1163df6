package model

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// Azure OpenAI (azure/<deployment>): chat completions at
// $AZURE_API_BASE/openai/deployments/<deployment>/chat/completions?api-version=V, or the
// Responses API at $AZURE_API_BASE/openai/responses (model_class litellm_response, or a
// codex deployment). Authentication: an API key in the api-key header ($AZURE_API_KEY), else
// a Microsoft Entra ID bearer token: $AZURE_AD_TOKEN as given, else azidentity's
// DefaultAzureCredential (environment service principal, workload identity on AKS, managed
// identity, Azure CLI login).

const (
	azureScope              = "https://cognitiveservices.azure.com/.default"
	azureChatAPIVersion     = "2024-10-21"
	azureResponsesAPIVesion = "2025-04-01-preview"
)

func resolveAzure(ep *endpoint, cfg Config, env func(string) string) error {
	ep.kind = kindOpenAI
	ep.apiModel = strings.TrimPrefix(ep.apiModel, "responses/")
	if v, _ := cfg.ModelKwargs["api_version"].(string); v != "" {
		ep.apiVersion = v
	} else {
		ep.apiVersion, _ = firstEnv(env, "AZURE_API_VERSION", "OPENAI_API_VERSION")
	}
	return nil
}

// azureURL is a deployment's URL (chat) or the resource's (responses), with its API version.
func azureURL(base, deployment, path, version string) string {
	if version == "" {
		version = azureChatAPIVersion
		if path == "responses" {
			version = azureResponsesAPIVesion
		}
	}
	base = strings.TrimSuffix(base, "/openai")
	if deployment == "" {
		return base + "/openai/" + path + "?api-version=" + url.QueryEscape(version)
	}
	return base + "/openai/deployments/" + url.PathEscape(deployment) + "/" + path + "?api-version=" + url.QueryEscape(version)
}

// azureTokenTimeout bounds the first Entra ID token fetch in New.
const azureTokenTimeout = 30 * time.Second

func azureCredentials(cfg Config, ep endpoint, opts Options) (credentials, error) {
	if key, keyEnv := apiKey(cfg, ep, opts.Env); key != "" {
		return credentials{
			source: describeKey(cfg, keyEnv) + " (api-key header)", hint: "check the API key in " + keyEnv, secrets: []string{key}, identity: key,
			apply: func(_ context.Context, req *http.Request, _ []byte) error {
				req.Header.Set("Api-Key", key)
				return nil
			},
		}, nil
	}
	if tok := opts.Env("AZURE_AD_TOKEN"); tok != "" {
		return credentials{
			source: "Entra ID token $AZURE_AD_TOKEN", hint: "refresh $AZURE_AD_TOKEN (it expires after about an hour)", secrets: []string{tok}, identity: tok,
			apply: func(_ context.Context, req *http.Request, _ []byte) error {
				req.Header.Set("Authorization", "Bearer "+tok)
				return nil
			},
		}, nil
	}
	cred := opts.AzureCredential
	if cred == nil {
		c, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return credentials{}, &APIError{Provider: ep.provider, Status: StatusAuthentication, fatal: true, cause: err,
				Message: "no Azure credentials: " + err.Error(), Hint: azureCredentialHint}
		}
		cred = c
	}
	tokens := &azureTokens{cred: cred}
	ctx, cancel := context.WithTimeout(context.Background(), azureTokenTimeout)
	defer cancel()
	first, err := tokens.get(ctx)
	if err != nil {
		return credentials{}, &APIError{Provider: ep.provider, Status: StatusAuthentication, fatal: true, cause: err,
			Message: "no Entra ID token: " + err.Error(), Hint: azureCredentialHint}
	}
	return credentials{
		source: "Entra ID token (azidentity DefaultAzureCredential)", hint: azureCredentialHint, secrets: []string{first}, identity: ep.baseURL,
		apply: func(ctx context.Context, req *http.Request, _ []byte) error {
			tok, err := tokens.get(ctx)
			if err != nil {
				return err
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			return nil
		},
	}, nil
}

const azureCredentialHint = "set AZURE_API_KEY, or AZURE_AD_TOKEN, or sign in for Entra ID (AZURE_CLIENT_ID/AZURE_TENANT_ID/AZURE_CLIENT_SECRET, workload or managed identity, `az login`)"

// azureTokens caches an Entra ID token until shortly before it expires.
type azureTokens struct {
	cred azcore.TokenCredential
	mu   sync.Mutex
	tok  azcore.AccessToken
}

func (t *azureTokens) get(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok.Token != "" && time.Until(t.tok.ExpiresOn) > 5*time.Minute {
		return t.tok.Token, nil
	}
	tok, err := t.cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{azureScope}})
	if err != nil {
		return "", fmt.Errorf("entra ID token for %s: %w", azureScope, err)
	}
	t.tok = tok
	return tok.Token, nil
}

// describeAzureCredentials names the credential source without fetching anything.
func describeAzureCredentials(cfg Config, ep endpoint, env func(string) string) string {
	if key, keyEnv := apiKey(cfg, ep, env); key != "" {
		return describeKey(cfg, keyEnv) + " (api-key header)"
	}
	if env("AZURE_AD_TOKEN") != "" {
		return "Entra ID token $AZURE_AD_TOKEN"
	}
	return "Entra ID token from azidentity DefaultAzureCredential (no AZURE_API_KEY set)"
}
