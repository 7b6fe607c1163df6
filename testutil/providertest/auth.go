package providertest

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Bearer checks an Authorization: Bearer header.
func Bearer(token string) func(*http.Request, []byte) error {
	return Header("Authorization", "Bearer "+token)
}

// Header checks one header's value.
func Header(name, value string) func(*http.Request, []byte) error {
	return func(r *http.Request, _ []byte) error {
		if got := r.Header.Get(name); got != value {
			return fmt.Errorf("header %s: got %q", name, got)
		}
		return nil
	}
}

// SigV4 checks a request's AWS Signature Version 4 the way AWS does: it signs the same
// method, URL, signed headers and body again with the known credentials, using the AWS SDK's
// signer, and compares the signatures.
func SigV4(creds aws.Credentials, region, service string) func(*http.Request, []byte) error {
	return func(r *http.Request, body []byte) error {
		auth := r.Header.Get("Authorization")
		algo, rest, _ := strings.Cut(auth, " ")
		if algo != "AWS4-HMAC-SHA256" {
			return fmt.Errorf("authorization %q is not SigV4", auth)
		}
		fields := map[string]string{}
		for _, f := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			fields[k] = v
		}
		scope := strings.Split(fields["Credential"], "/")
		if len(scope) != 5 || scope[0] != creds.AccessKeyID || scope[2] != region || scope[3] != service {
			return fmt.Errorf("credential scope %q: want key %s, region %s, service %s", fields["Credential"], creds.AccessKeyID, region, service)
		}
		when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
		if err != nil {
			return fmt.Errorf("x-amz-date: %w", err)
		}
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		again, _ := http.NewRequestWithContext(context.Background(), r.Method, u.String(), nil)
		again.URL.RawPath = r.URL.RawPath
		again.Host = r.Host
		for _, h := range strings.Split(fields["SignedHeaders"], ";") {
			if h == "host" {
				continue
			}
			if h == "content-length" {
				again.ContentLength = r.ContentLength
				continue
			}
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
		sum := sha256.Sum256(body)
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), service, region, when); err != nil {
			return err
		}
		if got, want := auth, again.Header.Get("Authorization"); got != want {
			return fmt.Errorf("SigV4 signature does not match:\n got %s\nwant %s", got, want)
		}
		if creds.SessionToken != "" && r.Header.Get("X-Amz-Security-Token") != creds.SessionToken {
			return fmt.Errorf("x-amz-security-token missing or wrong")
		}
		return nil
	}
}

// Google is a fake Google OAuth token endpoint for one service account, whose key it makes.
type Google struct {
	key    *rsa.PrivateKey
	email  string
	mu     sync.Mutex
	tokens map[string]bool
	// Issued counts the tokens issued.
	Issued int
}

// NewGoogle makes a service account with a fresh RSA key.
func NewGoogle() (*Google, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	return &Google{key: key, email: "runner@test-project.iam.gserviceaccount.com", tokens: map[string]bool{}}, nil
}

// WriteCredentials writes the service-account file (the format `gcloud iam service-accounts
// keys create` writes) whose token_uri is tokenURL, and returns its path.
func (g *Google) WriteCredentials(dir, tokenURL string) (string, error) {
	der := x509.MarshalPKCS1PrivateKey(g.key)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der})
	f := map[string]string{
		"type": "service_account", "project_id": "test-project", "private_key_id": "0123456789abcdef",
		"private_key": string(pemKey), "client_email": g.email, "client_id": "1234567890",
		"auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURL,
	}
	data, _ := json.MarshalIndent(f, "", "  ")
	path := filepath.Join(dir, "service-account.json")
	return path, os.WriteFile(path, data, 0o600)
}

// ServeHTTP is the token endpoint: it verifies the JWT bearer assertion (RS256, signed with the
// service account's key, issued by its email, for the cloud-platform scope) and issues a token.
func (g *Google) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	if err := g.verify(r.Form.Get("assertion")); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant", "error_description": err.Error()})
		return
	}
	g.mu.Lock()
	g.Issued++
	tok := fmt.Sprintf("ya29.test-token-%d", g.Issued)
	g.tokens[tok] = true
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": 3600, "token_type": "Bearer"})
}

func (g *Google) verify(assertion string) error {
	parts := strings.Split(assertion, ".")
	if len(parts) != 3 {
		return fmt.Errorf("assertion is not a JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&g.key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("assertion signature: %w", err)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return err
	}
	var claims struct {
		Iss   string `json:"iss"`
		Scope string `json:"scope"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return err
	}
	if claims.Iss != g.email || !strings.Contains(claims.Scope, "https://www.googleapis.com/auth/cloud-platform") {
		return fmt.Errorf("assertion claims iss %q scope %q", claims.Iss, claims.Scope)
	}
	return nil
}

// Check accepts requests bearing a token this endpoint issued.
func (g *Google) Check(r *http.Request, _ []byte) error {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	g.mu.Lock()
	defer g.mu.Unlock()
	if !ok || !g.tokens[tok] {
		return fmt.Errorf("no token issued by the fake token endpoint")
	}
	return nil
}

// PathUnescape is url.PathUnescape, for Path functions.
func PathUnescape(s string) string {
	u, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return u
}
