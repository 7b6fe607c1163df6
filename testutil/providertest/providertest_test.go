package providertest

import (
	"encoding/json"
	"testing"
)

// The fakes refuse what the real APIs refuse, so the end-to-end tests fail when a reply does
// not go back verbatim.
func TestHistoryRefusals(t *testing.T) {
	decode := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		wire    string
		req     string
		turns   int
		wantErr bool
	}{
		{Gemini, `{"contents":[{"role":"user","parts":[{"text":"t"}]},{"role":"model","parts":[{"text":"x"},{"functionCall":{"name":"bash","args":{}},"thoughtSignature":"c2lnLWEtdDA="}]}]}`, 1, false},
		{Gemini, `{"contents":[{"role":"user","parts":[{"text":"t"}]},{"role":"model","parts":[{"functionCall":{"name":"bash","args":{}}}]}]}`, 1, true},
		{Anthropic, `{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"sig-a"},{"type":"text","text":"y"}]}]}`, 1, false},
		{Anthropic, `{"messages":[{"role":"assistant","content":[{"type":"text","text":"y"}]}]}`, 1, true},
		{Responses, `{"input":[{"role":"user","content":"t"},{"type":"reasoning","id":"rs_t0","encrypted_content":"enc-a"}]}`, 1, false},
		{Responses, `{"input":[{"role":"user","content":"t"},{"type":"function_call_output","call_id":"call_t0_0","output":"o"}]}`, 1, true},
	}
	for i, tt := range tests {
		if err := history(tt.wire, decode(tt.req), tt.turns); (err != nil) != tt.wantErr {
			t.Errorf("case %d (%s): err = %v, want error %v", i, tt.wire, err, tt.wantErr)
		}
	}
}
