package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/swebench-run/swebench-run/configs"
	"github.com/swebench-run/swebench-run/model"
	"github.com/swebench-run/swebench-run/runner"
)

// modelConfig decodes the config's model section into a model.Config.
func modelConfig(cfg *configs.Config) (model.Config, error) {
	settings := map[string]any{}
	for k, v := range cfg.Model.Settings {
		settings[k] = v
	}
	settings["model_name"] = cfg.Model.ModelName
	var mc model.Config
	data, err := yaml.Marshal(settings)
	if err != nil {
		return mc, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&mc); err != nil {
		return mc, fmt.Errorf("config model section: %w", err)
	}
	mc.Mini1 = cfg.Layout == configs.LayoutV1
	return mc, nil
}

// newProvider makes the model provider of cfg's model section, and returns it with the model's
// name for the records: the scripted model (scripted[:FILE]; by default the scripted.yaml beside
// a dataset file), or a real client (model.New) that charges budget (nil: none) and shares the
// rate limiters of limiters (nil: its own). Problems that would make every call fail (no API
// key, no known price) are reported here, before any call.
func newProvider(cfg *configs.Config, split string, budget *model.Budget, limiters *model.Limiters) (runner.Models, string, error) {
	name := cfg.Model.ModelName
	if name == "scripted" || strings.HasPrefix(name, "scripted:") {
		path := strings.TrimPrefix(strings.TrimPrefix(name, "scripted"), ":")
		if path == "" {
			// By convention the script of a dataset file lives beside it.
			path = filepath.Join(filepath.Dir(split), "scripted.yaml")
		}
		s, err := model.LoadScripted(path)
		if err != nil {
			return nil, "", err
		}
		if cfg.Layout == configs.LayoutV1 {
			s.Fence = "bash" // 1.x text mode: one ```bash block per reply
		}
		return s, "scripted", nil
	}
	mc, err := modelConfig(cfg)
	if err != nil {
		return nil, "", err
	}
	p, err := model.New(mc, model.Options{Budget: budget, Limiters: limiters, Env: os.Getenv})
	if err != nil {
		return nil, "", err
	}
	return p, name, nil
}
