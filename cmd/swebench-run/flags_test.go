package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad flags are usage errors (exit 2) that name the flag, before any dataset, model or Docker.
func TestBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--split", "x.jsonl", "--workers", "0"}, "--workers"},
		{[]string{"run", "--split", "x.jsonl", "--max-attempts", "0"}, "--max-attempts"},
		{[]string{"run", "--split", "x.jsonl", "--slice", "a:b"}, "--slice"},
		{[]string{"run", "--split", "x.jsonl", "--shard", "3/2"}, "shard"},
		{[]string{"run", "--split", "x.jsonl", "--pull", "sometimes"}, "--pull"},
		{[]string{"run", "--model", "scripted"}, "--split"},
		{[]string{"run", "--split", "x.jsonl", "--network", "host"}, "--network"},
		{[]string{"run", "--split", "x.jsonl", "--memory", "lots"}, "--memory"},
		{[]string{"eval", "--predictions", "gold", "--split", "x.jsonl", "--timeout", "0s"}, "--timeout"},
		{[]string{"eval", "--split", "x.jsonl"}, "--predictions"},
		{[]string{"stats"}, "output directory"},
		{[]string{"merge", "a"}, "-o OUT"},
		{[]string{"frobnicate"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, stderr.String(), exitUsage, tt.want)
			}
		})
	}
}
