package dockerenv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/distribution/reference"
	"github.com/moby/moby/api/types/registry"
)

// dockerHubKey is the key under which the docker CLI stores Docker Hub's credentials.
const dockerHubKey = "https://index.docker.io/v1/"

// DockerConfigAuth returns the registry credentials for image from the docker CLI's config file
// ($DOCKER_CONFIG/config.json, default ~/.docker/config.json), encoded for the X-Registry-Auth
// header, or "" when there are none (anonymous pull). It follows the CLI's order: a credential
// helper for the registry (credHelpers), then the inline "auths" entry, then the default
// credential store (credsStore), each through the docker-credential-<name> program on PATH.
// The file is read at every call, so a `docker login` during a run takes effect.
func DockerConfigAuth(ctx context.Context, image string) (string, error) {
	return dockerConfigAuth(ctx, image, dockerConfigFile())
}

func dockerConfigFile() string {
	if d := os.Getenv("DOCKER_CONFIG"); d != "" {
		return filepath.Join(d, "config.json")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".docker", "config.json")
}

type dockerConfig struct {
	Auths map[string]struct {
		Auth          string `json:"auth"`
		Username      string `json:"username"`
		Password      string `json:"password"`
		IdentityToken string `json:"identitytoken"`
		RegistryToken string `json:"registrytoken"`
	} `json:"auths"`
	CredsStore  string            `json:"credsStore"`
	CredHelpers map[string]string `json:"credHelpers"`
}

func dockerConfigAuth(ctx context.Context, image, file string) (string, error) {
	if file == "" {
		return "", nil
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("docker config: %w", err)
	}
	var cfg dockerConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return "", fmt.Errorf("docker config %s: %w", file, err)
	}
	ref, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return "", fmt.Errorf("image %q: %w", image, err)
	}
	host := reference.Domain(ref)
	key := host
	if host == "docker.io" {
		key = dockerHubKey
	}

	if h := cfg.CredHelpers[host]; h != "" {
		return helperAuth(ctx, h, key)
	}
	for k, a := range cfg.Auths {
		if registryHost(k) != host && k != key {
			continue
		}
		ac := registry.AuthConfig{ServerAddress: k, Username: a.Username, Password: a.Password,
			IdentityToken: a.IdentityToken, RegistryToken: a.RegistryToken}
		if a.Auth != "" {
			dec, err := base64.StdEncoding.DecodeString(a.Auth)
			if err != nil {
				return "", fmt.Errorf("docker config %s: auths[%q].auth is not base64: %w", file, k, err)
			}
			user, pass, ok := strings.Cut(string(dec), ":")
			if !ok {
				return "", fmt.Errorf("docker config %s: auths[%q].auth is not user:password", file, k)
			}
			ac.Username, ac.Password = user, pass
		}
		if ac.Username == "" && ac.Password == "" && ac.IdentityToken == "" && ac.RegistryToken == "" {
			break // an empty entry: the credentials live in the store
		}
		return encodeAuth(ac)
	}
	if cfg.CredsStore != "" {
		return helperAuth(ctx, cfg.CredsStore, key)
	}
	return "", nil
}

// registryHost turns a config key ("https://ghcr.io", "ghcr.io/v2/", "index.docker.io/v1") into
// the registry's host, normalized like reference.Domain.
func registryHost(key string) string {
	k := strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
	k, _, _ = strings.Cut(k, "/")
	if k == "index.docker.io" || k == "registry-1.docker.io" {
		return "docker.io"
	}
	return k
}

// helperAuth asks docker-credential-<name> for the credentials of server (protocol of
// github.com/docker/docker-credential-helpers: `get`, server URL on stdin, JSON on stdout).
func helperAuth(ctx context.Context, name, server string) (string, error) {
	prog := "docker-credential-" + name
	cmd := exec.CommandContext(ctx, prog, "get")
	cmd.Stdin = strings.NewReader(server)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		out := strings.TrimSpace(stdout.String() + stderr.String())
		// The helpers' documented answer when they hold nothing for server.
		if strings.Contains(out, "credentials not found") {
			return "", nil
		}
		return "", fmt.Errorf("credential helper %s for %s: %w: %s", prog, server, err, out)
	}
	var res struct {
		Username string `json:"Username"`
		Secret   string `json:"Secret"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return "", fmt.Errorf("credential helper %s for %s: bad answer: %w", prog, server, err)
	}
	ac := registry.AuthConfig{ServerAddress: server, Username: res.Username, Password: res.Secret}
	if res.Username == "<token>" {
		ac = registry.AuthConfig{ServerAddress: server, IdentityToken: res.Secret}
	}
	return encodeAuth(ac)
}

// encodeAuth encodes credentials for the X-Registry-Auth header: base64url of their JSON.
func encodeAuth(ac registry.AuthConfig) (string, error) {
	b, err := json.Marshal(ac)
	if err != nil {
		return "", err
	}
	return base64.URLEncoding.EncodeToString(b), nil
}
