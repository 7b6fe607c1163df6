package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFileCommitAndDiscard(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new\n"))
	if got, _ := os.ReadFile(p); string(got) != "old\n" {
		t.Errorf("before Commit: %q, want the old file", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new\n" {
		t.Errorf("after Commit: %q, want %q", got, "new\n")
	}
	f.Discard() // no-op after Commit
	if _, err := os.Stat(p); err != nil {
		t.Errorf("Discard after Commit removed the file: %v", err)
	}

	g, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("torn"))
	g.Discard()
	if got, _ := os.ReadFile(p); string(got) != "new\n" {
		t.Errorf("after Discard: %q, want the committed file", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
