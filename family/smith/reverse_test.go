package smith

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReverseDiff(t *testing.T) {
	patch := "diff --git a/a.py b/a.py\nindex 1111111..2222222 100644\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@ def f():\n x = 1\n-y = 2\n+y = 3\n z\n\\ No newline at end of file\n" +
		"diff --git a/new.py b/new.py\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+--- not a header\n" +
		"diff --git a/old.py b/old.py\ndeleted file mode 100644\nindex 4444444..0000000\n--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-+++ nor this\n"
	want := "diff --git a/a.py b/a.py\nindex 2222222..1111111 100644\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@ def f():\n x = 1\n-y = 3\n+y = 2\n z\n\\ No newline at end of file\n" +
		"diff --git a/new.py b/new.py\ndeleted file mode 100644\nindex 3333333..0000000\n--- a/new.py\n+++ /dev/null\n@@ -1 +0,0 @@\n---- not a header\n" +
		"diff --git a/old.py b/old.py\nnew file mode 100644\nindex 0000000..4444444\n--- /dev/null\n+++ b/old.py\n@@ -0,0 +1 @@\n++++ nor this\n"
	got, err := ReverseDiff(patch)
	if err != nil || got != want {
		t.Fatalf("got %v\n%s\nwant\n%s", err, got, want)
	}
	back, err := ReverseDiff(got)
	if err != nil || back != patch {
		t.Errorf("reversing twice: got %v\n%s", err, back)
	}
	// "\ No newline" markers stay with their lines when a change block is reordered.
	nl := "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n\\ No newline at end of file\n"
	if got, err := ReverseDiff(nl); err != nil || got != "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-new\n\\ No newline at end of file\n+old\n\\ No newline at end of file\n" {
		t.Errorf("no-newline markers: %v\n%s", err, got)
	}
	for _, bad := range []string{"@@ -1 +1 @@\n-x\n", "Binary files a/x and b/x differ\n", "@@ nonsense @@\n"} {
		if _, err := ReverseDiff(bad); err == nil {
			t.Errorf("ReverseDiff(%q): got no error", bad)
		}
	}
}

// The demo instances' bug diffs reverse into fixes (their row's patch is the bug).
func TestReverseDemoBugs(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "demo", "smith", "branches", "*", "bug.diff"))
	if len(paths) != 2 {
		t.Fatalf("got %d bug diffs, want 2", len(paths))
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fix, err := ReverseDiff(string(data))
		if err != nil {
			t.Fatal(err)
		}
		if back, _ := ReverseDiff(fix); back != string(data) {
			t.Errorf("%s: reversing twice changes it", p)
		}
	}
}
