package family

import (
	"fmt"
	"strings"
)

// Prediction is one model patch to grade, in the SWE-bench harness's shape (the shape of the
// run's preds.json, whatever the family).
type Prediction struct {
	InstanceID      string  `json:"instance_id"`
	ModelNameOrPath string  `json:"model_name_or_path"`
	ModelPatch      *string `json:"model_patch"` // nil when the file had null
}

// Patch returns the patch text ("" when it was null).
func (p Prediction) Patch() string {
	if p.ModelPatch == nil {
		return ""
	}
	return *p.ModelPatch
}

// Empty reports whether there is nothing to evaluate: harnesses count such predictions as
// empty and do not run them.
func (p Prediction) Empty() bool { return p.ModelPatch == nil || *p.ModelPatch == "" }

// FileSafeModel is a model name as a file name prefix: "/" becomes "__", as the SWE-bench harness
// names its run reports.
func FileSafeModel(model string) string { return strings.ReplaceAll(model, "/", "__") }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
