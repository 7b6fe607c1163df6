package dataset

import (
	"encoding/json"
	"fmt"
)

// ColImageAssets lists a SWE-bench Multimodal row's images: problem_statement (URLs) and the
// binary files of patch and test_patch ({path, url}) that a text diff cannot carry.
const ColImageAssets = "image_assets"

// ObjectColumn returns the row's column col holding an object (a parquet struct, a JSON object,
// or a string holding one, as the hub stores nested columns) and whether the row has it: an
// absent column, a null and an empty string are none. A value of another shape is an error naming
// the column.
func (i *Instance) ObjectColumn(col string) (map[string]any, bool, error) {
	raw, ok := i.Extra[col]
	if !ok || raw == nil {
		return nil, false, nil
	}
	switch x := raw.(type) {
	case map[string]any:
		return x, true, nil
	case string:
		if x == "" {
			return nil, false, nil
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(x), &m); err != nil {
			return nil, true, fmt.Errorf("%s: not a JSON object: %w", col, err)
		}
		return m, true, nil
	}
	return nil, true, fmt.Errorf("%s: want an object, got %s", col, typeName(raw))
}

// Asset is one binary file of a patch that a text diff cannot carry (SWE-bench Multimodal).
type Asset struct {
	Path string `json:"path"` // in the repository
	URL  string `json:"url"`
}

// ImageAssets is a row's image_assets column.
type ImageAssets struct {
	ProblemStatement []string `json:"problem_statement"` // image URLs of the issue
	Patch            []Asset  `json:"patch"`
	TestPatch        []Asset  `json:"test_patch"`
}

// ImageAssets returns the row's image_assets (a JSON string on the hub, an object in local
// files); a row without the column has none.
func (i *Instance) ImageAssets() (ImageAssets, error) {
	var a ImageAssets
	raw, ok := i.Extra[ColImageAssets]
	if !ok || raw == nil {
		return a, nil
	}
	var data []byte
	switch x := raw.(type) {
	case string:
		if x == "" {
			return a, nil
		}
		data = []byte(x)
	default:
		var err error
		if data, err = json.Marshal(x); err != nil {
			return a, fmt.Errorf("%s: %w", ColImageAssets, err)
		}
	}
	// Entries are decoded leniently: problem_statement may hold objects, patch lists strings.
	var loose struct {
		ProblemStatement []any `json:"problem_statement"`
		Patch            []any `json:"patch"`
		TestPatch        []any `json:"test_patch"`
	}
	if err := json.Unmarshal(data, &loose); err != nil {
		return a, fmt.Errorf("%s: not a JSON object with problem_statement, patch and test_patch lists: %w", ColImageAssets, err)
	}
	for _, e := range loose.ProblemStatement {
		switch x := e.(type) {
		case string:
			a.ProblemStatement = append(a.ProblemStatement, x)
		case map[string]any:
			if u, _ := x["url"].(string); u != "" {
				a.ProblemStatement = append(a.ProblemStatement, u)
			}
		}
	}
	files := func(list []any) []Asset {
		var out []Asset
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				p, _ := m["path"].(string)
				u, _ := m["url"].(string)
				if p != "" {
					out = append(out, Asset{Path: p, URL: u})
				}
			}
		}
		return out
	}
	a.Patch, a.TestPatch = files(loose.Patch), files(loose.TestPatch)
	return a, nil
}
