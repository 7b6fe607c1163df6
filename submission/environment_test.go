package submission

import (
	"reflect"
	"strings"
	"testing"

	"github.com/swebench-run/swebench-run/eval"
	"github.com/swebench-run/swebench-run/validation"
)

func TestCheckEnvironmentNotesBrokenPredictions(t *testing.T) {
	patch, empty := "diff --git a/x b/x\n", ""
	preds := map[string]eval.Prediction{
		"a__a-1": {InstanceID: "a__a-1", ModelPatch: &patch}, "b__b-2": {InstanceID: "b__b-2", ModelPatch: &patch},
		"c__c-3": {InstanceID: "c__c-3", ModelPatch: &patch}, "d__d-4": {InstanceID: "d__d-4", ModelPatch: &empty},
		"e__e-5": {InstanceID: "e__e-5", ModelPatch: &patch},
	}
	recs := map[string]validation.Record{
		"a__a-1": {Outcome: validation.OK},
		"b__b-2": {Outcome: validation.GoldFails, Reason: "the test runner collected no test under the gold patch"},
		"c__c-3": {Outcome: validation.Flaky, Reason: "the gold patch's verdict differs between 3 repeats"},
		"d__d-4": {Outcome: validation.EmptyPasses}, // no patch predicted: not noted
		"e__e-5": validation.KnownEntry{InstanceID: "e__e-5", Outcome: validation.KnownBad}.Record("bad.txt"),
		"z__z-9": {Outcome: validation.GoldFails}, // not predicted
	}
	fs := checkEnvironment(preds, recs)
	if len(fs) != 2 {
		t.Fatalf("findings %v, want two notes", fs)
	}
	if f := fs[0]; f.Check != CheckEnvironment || f.Severity != Note || !reflect.DeepEqual(f.IDs, []string{"b__b-2", "e__e-5"}) ||
		!strings.Contains(f.Message, "2 predicted instances have a broken environment (the validation: 1 gold fails, 1 known bad)") ||
		!strings.Contains(f.Message, "b__b-2 (gold fails: the test runner collected no test under the gold patch)") {
		t.Errorf("broken: %+v", f)
	}
	if f := fs[1]; !reflect.DeepEqual(f.IDs, []string{"c__c-3"}) || !strings.Contains(f.Message, "flaky") {
		t.Errorf("flaky: %+v", f)
	}
	if fs := checkEnvironment(preds, nil); fs != nil {
		t.Errorf("without a validation: %v", fs)
	}
}
