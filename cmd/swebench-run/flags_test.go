package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad command lines are usage errors (exit 2) that name the flag, command or argument, before
// any dataset, model or Docker, and print a one-line hint instead of the whole help.
func TestBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--split", "x.jsonl", "--workers", "0"}, "--workers"},
		{[]string{"run", "--split", "x.jsonl", "--max-attempts", "0"}, "--max-attempts"},
		{[]string{"run", "--split", "x.jsonl", "--backend-wait", "-1m"}, "--backend-wait -1m0s must not be negative"},
		{[]string{"run", "--split", "x.jsonl", "--backend-wait", "soon"}, "--backend-wait"},
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

		// The default command checks its flags like run.
		{[]string{"--split", "x.jsonl", "--pull", "sometimes"}, "--pull"},
		{[]string{"--model", "scripted"}, "--split"},
		// Flags pflag rejects: unknown, misspelt, one dash, no value, bad value.
		{[]string{"run", "--split", "x.jsonl", "--worker", "4"}, "--workers"},
		{[]string{"--frobnicate"}, "unknown flag: --frobnicate"},
		{[]string{"-workers", "4"}, "two dashes: --workers"},
		{[]string{"--split", "x.jsonl", "-model", "scripted"}, "two dashes: --model"},
		{[]string{"run", "--split"}, "--split"},
		{[]string{"run", "--split", "x.jsonl", "--workers", "many"}, "--workers"},
		{[]string{"run", "--split", "x.jsonl", "--max-duration", "8"}, "--max-duration"},
		{[]string{"run", "--split", "x.jsonl", "--shuffle=maybe"}, "--shuffle"},
		{[]string{"eval", "--predictions", "gold", "--split", "x.jsonl", "--workers", "0"}, "--workers"},
		{[]string{"eval", "--predictions", "gold", "--split", "x.jsonl", "--pull", "sometimes"}, "--pull"},
		{[]string{"inspect", "--lines", "1", "t.traj.json"}, "--lines"},
		{[]string{"cleanup", "--al"}, "--all"},
		// Positional arguments.
		{[]string{"run", "--split", "x.jsonl", "extra"}, `unexpected argument "extra"`},
		{[]string{"stats", "a", "b"}, "one output directory"},
		{[]string{"inspect"}, "one trajectory file or run directory"},
		{[]string{"merge", "a", "b"}, "-o OUT"},
		{[]string{"datasets", "x"}, "datasets takes no arguments"},
		{[]string{"cleanup", "x"}, `unexpected argument "x"`},
		{[]string{"version", "x"}, `unexpected argument "x"`},
		// Commands and subcommands.
		{[]string{"stat"}, "stats"},
		{[]string{"config"}, "show or list"},
		{[]string{"config", "edit"}, `unknown command "edit"`},
		{[]string{"config", "show", "x.yaml"}, "-c"},
		{[]string{"config", "list", "x"}, "config list takes no arguments"},
		{[]string{"completion"}, "bash, zsh, fish or powershell"},
		{[]string{"completion", "tcsh"}, "bash, zsh, fish or powershell"},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, stderr.String(), exitUsage, tt.want)
			}
			if !strings.Contains(stderr.String(), "--help' for usage.\n") || strings.Contains(stderr.String(), "Usage:") || stdout.Len() > 0 {
				t.Errorf("stdout %q, stderr %q; want only the error and the hint", stdout.String(), stderr.String())
			}
		})
	}
}
