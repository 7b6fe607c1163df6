package all

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/family/live"
	"github.com/swebench-run/swebench-run/family/pro"
)

// Settings are the options a user sets for the dataset families that have any: the families
// section of a run config, families.<family>.<key> (families.pro.scripts_dir). Each field is a
// profile's Options, whose yaml keys are the family's options (docs/datasets.md lists them per
// family, with their defaults); DecodeSettings reads them.
type Settings struct {
	Pro  pro.Options  `yaml:"pro"`
	Live live.Options `yaml:"live"`
}

// DecodeSettings reads the families section of a run config (configs.Config.Families, nil when
// there is none) strictly, as the rest of the config is read: a name that is no family, a family
// without options, a key its options do not have and a value of the wrong type are errors naming
// the key path and what it may be.
func DecodeSettings(section map[string]any) (Settings, error) {
	var s Settings
	v := reflect.ValueOf(&s).Elem()
	fields := map[string]int{} // family name → field index
	var withOptions []string
	for i := range v.NumField() {
		name := yamlName(v.Type().Field(i))
		fields[name] = i
		withOptions = append(withOptions, name)
	}
	sort.Strings(withOptions)
	for _, name := range sortedKeys(section) {
		i, ok := fields[name]
		if !ok {
			if p, known := defaults().Lookup(name); known && name != "" {
				return s, fmt.Errorf("config: families.%s: %s has no options (the families with options: %s)", name, p.Title(), strings.Join(withOptions, ", "))
			}
			return s, fmt.Errorf("config: unknown family families.%s (the families with options: %s; the families: %s)", name, strings.Join(withOptions, ", "), strings.Join(familyNames(), ", "))
		}
		if section[name] == nil {
			continue
		}
		sub, ok := section[name].(map[string]any)
		if !ok {
			return s, fmt.Errorf("config: families.%s must be a mapping of its options, got %v", name, section[name])
		}
		f := v.Field(i)
		known := map[string]bool{}
		for j := range f.NumField() {
			if k := yamlName(f.Type().Field(j)); k != "-" {
				known[k] = true
			}
		}
		for _, k := range sortedKeys(sub) {
			if !known[k] {
				return s, fmt.Errorf("config: unknown key families.%s.%s (known keys of families.%s: %s)", name, k, name, strings.Join(sortedKeys(known), ", "))
			}
		}
		data, err := yaml.Marshal(sub)
		if err != nil {
			return s, err
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(f.Addr().Interface()); err != nil && !errors.Is(err, io.EOF) {
			return s, fmt.Errorf("config families.%s: %s", name, yamlErrorText(err))
		}
	}
	return s, nil
}

// yamlName is the yaml key of a struct field ("-" when it has none).
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "" {
		return "-"
	}
	return name
}

// familyNames are the names of every family, in the registry's order.
func familyNames() []string {
	var out []string
	for _, p := range defaults().profiles {
		out = append(out, p.Name())
	}
	return out
}

// yamlErrorText drops the line numbers of a decoding error: they refer to the merged config,
// not to any file the user wrote.
func yamlErrorText(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			if _, rest, ok := strings.Cut(m, ": "); ok && strings.HasPrefix(m, "line ") {
				m = rest
			}
			msgs[i] = m
		}
		return strings.Join(msgs, "; ")
	}
	return err.Error()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
