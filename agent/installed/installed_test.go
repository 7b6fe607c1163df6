package installed

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
)

func TestValidate(t *testing.T) {
	ok := agent.InstalledConfig{Name: "custom", Command: "{install_dir}/bin/a {task_file}", Install: agent.InstallSource{Path: "/x"}}
	cases := []struct {
		name string
		edit func(*agent.InstalledConfig)
		want string // "" valid
	}{
		{"valid", func(*agent.InstalledConfig) {}, ""},
		{"unknown profile", func(c *agent.InstalledConfig) { c.Name = "cursor" }, `agent.installed.name "cursor" is not a shipped profile`},
		{"custom without command", func(c *agent.InstalledConfig) { c.Command = " " }, "agent.installed.command is empty"},
		{"no install", func(c *agent.InstalledConfig) { c.Install.Path = "" }, "agent.installed.install.path is empty"},
		{"relative dir", func(c *agent.InstalledConfig) { c.Install.Dir = "opt" }, "agent.installed.install.dir"},
		{"negative timeout", func(c *agent.InstalledConfig) { c.Timeout = -1 }, "agent.installed.timeout"},
		{"bad env name", func(c *agent.InstalledConfig) { c.Env = map[string]string{"A-B": "1"} }, "agent.installed.env"},
		{"shipped profile", func(c *agent.InstalledConfig) { c.Name, c.Command = "claude-code", "" }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := Validate(&c)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate: got %v, want %q", err, tc.want)
			}
		})
	}
	if err := Validate(nil); err == nil {
		t.Error("Validate(nil) passed")
	}
}

// Every shipped profile names its wire and has a command with the task file in it.
func TestProfiles(t *testing.T) {
	for _, n := range Names() {
		p, _ := Lookup(n)
		switch {
		case n == "custom":
			if p.Wire != WireAny {
				t.Errorf("custom: wire %q", p.Wire)
			}
		case p.Wire != WireAnthropic && p.Wire != WireOpenAIChat && p.Wire != WireOpenAIResponses && p.Wire != WireGemini:
			t.Errorf("%s: wire %q", n, p.Wire)
		case !strings.Contains(p.Command, "{task_file}") || !strings.Contains(p.Command, "{install_dir}"):
			t.Errorf("%s: command %q lacks {task_file} or {install_dir}", n, p.Command)
		}
	}
	if len(Names()) != 7 {
		t.Errorf("profiles %v", Names())
	}
	got := Expand("{install_dir}/bin/x -t {task_file} -C {workdir} -m {model} ${HOME}", Vars{TaskFile: "/t", Workdir: "/w", InstallDir: "/i", Model: "m"})
	if got != "/i/bin/x -t /t -C /w -m m ${HOME}" {
		t.Errorf("Expand: %q", got)
	}
}

// An install is pinned: a directory and its archive forms have checksums, a changed file or a
// wrong pin is refused before anything runs, and an archive may not reach out of its folder.
func TestPrepare(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "agent"), []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := Checksum(dir)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Prepare(dir, sum)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(in.Tar))
	var names []string
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		names = append(names, h.Name)
		if h.Name == "bin/agent" && h.Mode != 0o755 {
			t.Errorf("mode %o", h.Mode)
		}
	}
	if strings.Join(names, ",") != "bin/,bin/agent" {
		t.Errorf("tar entries %v", names)
	}
	var ce *ChecksumError
	if _, err := Prepare(dir, ""); !errors.As(err, &ce) || ce.Got != sum || !strings.Contains(err.Error(), "pin it") {
		t.Errorf("no pin: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "agent"), []byte("changed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(dir, sum); !errors.As(err, &ce) || ce.Want != sum {
		t.Errorf("changed install: %v", err)
	}

	// Archives: the checksum is the file's.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	_ = tw.WriteHeader(&tar.Header{Name: "bin/agent", Mode: 0o755, Size: 2, Typeflag: tar.TypeReg})
	_, _ = tw.Write([]byte("hi"))
	_ = tw.Close()
	_ = zw.Close()
	tgz := filepath.Join(t.TempDir(), "agent.tar.gz")
	if err := os.WriteFile(tgz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err = Checksum(tgz); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(tgz, "sha256:"+strings.ToUpper(sum)); err != nil {
		t.Errorf("archive: %v", err)
	}
	buf.Reset()
	tw = tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: "../../etc/passwd", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	_, _ = tw.Write([]byte("x"))
	_ = tw.Close()
	bad := filepath.Join(t.TempDir(), "bad.tar")
	_ = os.WriteFile(bad, buf.Bytes(), 0o644)
	if _, err := Checksum(bad); err == nil || !strings.Contains(err.Error(), "leaves the install directory") {
		t.Errorf("escaping archive: %v", err)
	}
}
