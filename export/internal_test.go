package export

import (
	"encoding/json"
	"testing"

	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// Values of tool-call arguments as SWE-smith's transform_traj_xml writes them: f"{v}" of what
// json.loads returned. Expected: str(json.loads(s)) printed by Python 3.11.
func TestPyStr(t *testing.T) {
	tests := []struct{ json, want string }{
		{`"it's"`, "it's"},
		{`1.0`, "1.0"},
		{`1e16`, "1e+16"},
		{`0.0001`, "0.0001"},
		{`1e-05`, "1e-05"},
		{`123456789.0`, "123456789.0"},
		{`1.5e300`, "1.5e+300"},
		{`0.1`, "0.1"},
		{`100`, "100"},
		{`-3`, "-3"},
		{`2.5e-7`, "2.5e-07"},
		{`12345678901234567890`, "12345678901234567890"},
		{`[1, "a", null, true, {"k": 2.5, "b": [false]}]`, "[1, 'a', None, True, {'k': 2.5, 'b': [False]}]"},
	}
	for _, tt := range tests {
		obj, err := orderedObject(`{"v": ` + tt.json + `}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := pyStr(obj[0].value); got != tt.want {
			t.Errorf("str(json.loads(%s)) = %q, want %q", tt.json, got, tt.want)
		}
	}
	if _, err := orderedObject(`[1]`); err == nil {
		t.Error("a list taken as arguments")
	}
}

// The tools of a SWE-agent run, rebuilt from its replay config's command docs: the commands
// and arguments SWE-agent documents in them (SWE-smith's pydantic trajectory).
func TestSWEAgentTools(t *testing.T) {
	p := testenv.Fixtures(t, "more-datasets", "swe-smith", "tests", "test_logs", "trajectories", "pydantic__pydantic.acb0f10f.pr_8316", "pydantic__pydantic.acb0f10f.pr_8316.traj")
	tr, err := results.ReadSWEAgent(p)
	if err != nil {
		t.Fatal(err)
	}
	tools := sweAgentTools(tr.ConfigMap(), []Message{{ToolCalls: []ToolCall{{Name: "bash"}, {Name: "exit_forfeit"}}}})
	type fn struct {
		Name        string
		Description string
		Parameters  struct {
			Properties map[string]struct{ Type, Description string }
			Required   []string
		}
	}
	var got []struct {
		Type     string
		Function fn
	}
	data, _ := json.Marshal(tools)
	json.Unmarshal(data, &got)
	if len(got) != 4 || got[0].Function.Name != "bash" || got[1].Function.Name != "str_replace_editor" || got[2].Function.Name != "submit" || got[3].Function.Name != "exit_forfeit" {
		t.Fatalf("tools %s", data)
	}
	ed := got[1].Function
	if len(ed.Parameters.Properties) != 7 || ed.Parameters.Properties["insert_line"].Type != "integer" || ed.Parameters.Properties["view_range"].Type != "array" ||
		len(ed.Parameters.Required) != 2 || ed.Parameters.Required[0] != "command" || ed.Parameters.Required[1] != "path" {
		t.Errorf("str_replace_editor: %+v", ed.Parameters)
	}
	// A docstring of several lines is kept whole.
	if want := "Custom editing tool for viewing, creating and editing files"; len(ed.Description) < 500 || ed.Description[:len(want)] != want {
		t.Errorf("description %q", ed.Description)
	}
	if got[0].Function.Parameters.Properties["command"].Description != "The bash command to execute." || got[2].Function.Parameters.Properties != nil {
		t.Errorf("bash %+v, submit %+v", got[0].Function, got[2].Function)
	}
}

// Calls without an id get one, and the observations answering them get it too.
func TestFillCallIDs(t *testing.T) {
	msgs := []Message{
		{Role: "assistant", ToolCalls: []ToolCall{{Name: "bash"}, {ID: "x", Name: "bash"}}},
		{Role: "tool"}, {Role: "tool", ToolCallID: "x"},
		{Role: "assistant", ToolCalls: []ToolCall{{Name: "bash"}}},
		{Role: "tool"},
	}
	fillCallIDs(msgs)
	got := []string{msgs[0].ToolCalls[0].ID, msgs[1].ToolCallID, msgs[2].ToolCallID, msgs[3].ToolCalls[0].ID, msgs[4].ToolCallID}
	want := []string{"call_0_0", "call_0_0", "x", "call_3_0", "call_3_0"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ids %v, want %v", got, want)
			break
		}
	}
}
