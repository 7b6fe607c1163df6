package dockerenv

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/moby/moby/api/types/registry"

	"github.com/swebench-run/swebench-run/sandbox"
)

func TestDockerConfigAuth(t *testing.T) {
	bin := t.TempDir()
	// A credential helper speaking the docker-credential-helpers protocol.
	helper := `#!/bin/sh
read server
case "$server" in
ghcr.io) echo '{"ServerURL":"ghcr.io","Username":"helper-user","Secret":"helper-secret"}' ;;
https://index.docker.io/v1/) echo '{"ServerURL":"x","Username":"<token>","Secret":"hub-token"}' ;;
*) echo "credentials not found in native keychain"; exit 1 ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-fake"), []byte(helper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	inline := base64.StdEncoding.EncodeToString([]byte("alice:s3cret"))
	tests := []struct {
		name   string
		config string
		image  string
		want   registry.AuthConfig // zero: no credentials
	}{
		{"no config file", "", "docker.io/library/busybox", registry.AuthConfig{}},
		{"inline auth", `{"auths":{"registry.example.com":{"auth":"` + inline + `"}}}`, "registry.example.com/a/b:1",
			registry.AuthConfig{ServerAddress: "registry.example.com", Username: "alice", Password: "s3cret"}},
		{"inline auth, key with scheme", `{"auths":{"https://registry.example.com/v2/":{"auth":"` + inline + `"}}}`, "registry.example.com/a/b:1",
			registry.AuthConfig{ServerAddress: "https://registry.example.com/v2/", Username: "alice", Password: "s3cret"}},
		{"other registry", `{"auths":{"registry.example.com":{"auth":"` + inline + `"}}}`, "quay.io/a/b", registry.AuthConfig{}},
		{"credHelpers", `{"credHelpers":{"ghcr.io":"fake"}}`, "ghcr.io/epoch-research/x:latest",
			registry.AuthConfig{ServerAddress: "ghcr.io", Username: "helper-user", Password: "helper-secret"}},
		{"credsStore, identity token for Docker Hub", `{"credsStore":"fake","auths":{"https://index.docker.io/v1/":{}}}`, "docker.io/swebench/sweb.eval.x86_64.a:latest",
			registry.AuthConfig{ServerAddress: "https://index.docker.io/v1/", IdentityToken: "hub-token"}},
		{"credsStore without credentials", `{"credsStore":"fake"}`, "quay.io/a/b", registry.AuthConfig{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "config.json")
			if tt.config != "" {
				if err := os.WriteFile(file, []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			enc, err := dockerConfigAuth(context.Background(), tt.image, file)
			if err != nil {
				t.Fatal(err)
			}
			var got registry.AuthConfig
			if enc != "" {
				b, err := base64.URLEncoding.DecodeString(enc)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatal(err)
				}
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseCachePolicy(t *testing.T) {
	tests := []struct {
		in      string
		want    CachePolicy
		wantErr bool
	}{
		{"", CachePolicy{Mode: CacheKeep}, false},
		{"keep", CachePolicy{Mode: CacheKeep}, false},
		{"remove", CachePolicy{Mode: CacheRemove}, false},
		{"budget=200GB", CachePolicy{Mode: CacheBudget, Budget: 200e9}, false},
		{"budget=1.5TB", CachePolicy{Mode: CacheBudget, Budget: 1.5e12}, false},
		{"budget=0", CachePolicy{}, true},
		{"budget=lots", CachePolicy{}, true},
		{"purge", CachePolicy{}, true},
	}
	for _, tt := range tests {
		got, err := ParseCachePolicy(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseCachePolicy(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseHostSpec(t *testing.T) {
	tests := []struct {
		in      string
		want    HostSpec
		wantErr bool
	}{
		{"unix:///var/run/docker.sock", HostSpec{URL: "unix:///var/run/docker.sock"}, false},
		{"tcp://10.0.0.2:2376,workers=16", HostSpec{URL: "tcp://10.0.0.2:2376", Workers: 16}, false},
		{"ssh://ci@gpu-3,workers=8", HostSpec{URL: "ssh://ci@gpu-3", Workers: 8}, false},
		{"default,workers=4", HostSpec{Workers: 4}, false},
		{"tcp://h:2376,workers=0", HostSpec{}, true},
		{"tcp://h:2376,cpus=3", HostSpec{}, true},
		{"ftp://h", HostSpec{}, true},
	}
	for _, tt := range tests {
		got, err := ParseHostSpec(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("ParseHostSpec(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParsePlatform(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"linux/amd64", "linux/amd64/", false},
		{"linux/arm64/v8", "linux/arm64/v8", false},
		{"amd64", "", true},
		{"linux/", "", true},
	}
	for _, tt := range tests {
		p, err := ParsePlatform(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParsePlatform(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil {
			if got := p.OS + "/" + p.Architecture + "/" + p.Variant; got != tt.want {
				t.Errorf("ParsePlatform(%q) = %s, want %s", tt.in, got, tt.want)
			}
		}
	}
}

func TestPullTracker(t *testing.T) {
	tr := newPullTracker("h", "img", 1)
	msgs := []struct {
		id, status     string
		current, total int64
	}{
		{"", "Pulling from t/a", 0, 0},
		{"l1", "Pulling fs layer", 0, 0},
		{"l2", "Already exists", 0, 0},
		{"l1", "Downloading", 100, 1000},
		{"l1", "Downloading", 600, 1000},
		{"l1", "Download complete", 0, 0},
		{"l1", "Extracting", 500, 1000},
		{"l1", "Pull complete", 0, 0},
	}
	for _, m := range msgs {
		tr.update(m.id, m.status, m.current, m.total)
	}
	got := tr.progress()
	want := sandbox.PullProgress{Host: "h", Image: "img", Attempt: 1, Layers: 2, LayersDone: 2, Current: 1000, Total: 1000}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if moved := tr.update("l3", "Downloading", 0, 10); !moved {
		t.Error("a new layer's first message is not progress")
	}
}

func TestParseKillAcks(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"swebench-run: killed 1\n", 1},
		{"swebench-run: killed 2\nswebench-run: killed 3\n", 3},
		{"swebench-run: killed 12\nswebench-run: killed 9\n", 12},
		{"swebench-run: killed \nswebench-run: killed x\nkilled 4\n", 0},
	}
	for _, tt := range tests {
		if got := parseKillAcks(tt.in); got != tt.want {
			t.Errorf("parseKillAcks(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestTransientPullErrors(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&pullError{err: errors.New("x"), transient: true}, true},
		{&EngineDownError{Host: "h", Err: errors.New("x")}, false},
		{sandbox.ErrImageUnavailable, false},
	}
	for _, tt := range tests {
		if got := transientPullError(tt.err); got != tt.want {
			t.Errorf("transientPullError(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestWithTestSession(t *testing.T) {
	for _, session := range []string{"", "swebench-run-test.abc"} {
		t.Setenv(EnvTestSession, session)
		got := WithTestSession(map[string]string{LabelTool: "1"})
		want := map[string]string{LabelTool: "1"}
		if session != "" {
			want[LabelTestSession] = session
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s=%q: labels %v, want %v", EnvTestSession, session, got, want)
		}
	}
}
