package names

import "testing"

func TestSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"verified", "verified"},
		{"gpt-4.1", "gpt-4.1"},
		{"claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"anthropic/claude", "anthropic_claude"},
		{"a b:c", "a_b_c"},
		{"v1.2.yaml", "v1.2.yaml"},
		{"émoji", "_moji"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"workers", "workers", 0},
		{"Workers", "workerS", 0}, // case is ignored
		{"workres", "workers", 2}, // a swap is two edits
		{"slise", "slice", 1},
		{"kitten", "sitting", 3},
		{"héllo", "hello", 1}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"dataset.jsonl": "dataset", "tasks.jsonl.gz": "tasks", "test.parquet": "test", "rows.json": "rows",
		"verified": "verified", "gpt-4.1": "gpt-4.1", "SWE-bench_Lite": "SWE-bench_Lite", "a.gz": "a.gz",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}
