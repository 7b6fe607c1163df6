package kubeenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Config is the kubernetes section of a swebench-run config file:
//
//	kubernetes:
//	  context: prod            # --kube-context wins
//	  namespace: swebench      # --namespace wins
//	  pull_timeout: 300        # seconds a pod may fail to pull its image before ImageUnavailable
//	  stale_after: 300         # seconds without a heartbeat after which a run's pods are orphans
//	  node_selector: {pool: swebench}
//	  tolerations: [{key: dedicated, operator: Equal, value: swebench, effect: NoSchedule}]
//	  service_account: swebench-runner
//	  image_pull_secrets: [registry-creds]
//	  runtime_class: gvisor
//	  priority_class: batch-low
//	  labels: {team: evals}
//	  annotations: {cost-center: "42"}
//	  cpu_request: "1"         # default: --cpus
//	  memory_request: 2Gi      # default: --memory
//
// Decode it with DecodeConfig.
type Config struct {
	Context     string  `yaml:"context"`
	Namespace   string  `yaml:"namespace"`
	PullTimeout float64 `yaml:"pull_timeout"`
	StaleAfter  float64 `yaml:"stale_after"`
	PodOptions  `yaml:",inline"`
}

// PodOptions are the pod settings of the config's kubernetes section.
type PodOptions struct {
	NodeSelector     map[string]string `yaml:"node_selector"`
	Tolerations      []Toleration      `yaml:"tolerations"`
	ServiceAccount   string            `yaml:"service_account"`
	ImagePullSecrets []string          `yaml:"image_pull_secrets"`
	// RuntimeClass is the pods' runtimeClassName (e.g. gvisor or kata for stronger isolation).
	RuntimeClass  string            `yaml:"runtime_class"`
	PriorityClass string            `yaml:"priority_class"`
	Labels        map[string]string `yaml:"labels"`
	Annotations   map[string]string `yaml:"annotations"`
	// CPURequest and MemoryRequest are the pods' requests (Kubernetes quantities); default the
	// limits (--cpus, --memory), which makes the pods Guaranteed when both are set.
	CPURequest    string `yaml:"cpu_request"`
	MemoryRequest string `yaml:"memory_request"`
	// AutomountServiceAccountToken mounts the service account's API token into the pods; off
	// by default: the agent's commands have no business with the API server.
	AutomountServiceAccountToken bool `yaml:"automount_service_account_token"`
}

// Toleration is one of the pods' tolerations.
type Toleration struct {
	Key               string `yaml:"key"`
	Operator          string `yaml:"operator"` // Equal (default) or Exists
	Value             string `yaml:"value"`
	Effect            string `yaml:"effect"` // NoSchedule, PreferNoSchedule, NoExecute or "" (all)
	TolerationSeconds *int64 `yaml:"toleration_seconds"`
}

// DecodeConfig decodes a kubernetes section (any YAML value: a map from a config file, nil
// when absent) strictly and validates it; errors name the key.
func DecodeConfig(section any) (Config, error) {
	var cfg Config
	if section == nil {
		return cfg, nil
	}
	data, err := yaml.Marshal(section)
	if err != nil {
		return cfg, fmt.Errorf("config kubernetes: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return cfg, fmt.Errorf("config kubernetes: %s", yamlErrorText(err))
	}
	if cfg.PullTimeout < 0 || cfg.StaleAfter < 0 {
		return cfg, fmt.Errorf("config kubernetes: pull_timeout and stale_after are seconds and must not be negative")
	}
	if cfg.Namespace != "" {
		if errs := validation.IsDNS1123Label(cfg.Namespace); len(errs) > 0 {
			return cfg, fmt.Errorf("config kubernetes.namespace %q: %s", cfg.Namespace, strings.Join(errs, "; "))
		}
	}
	return cfg, cfg.PodOptions.validate()
}

// PullTimeoutDuration and StaleAfterDuration are the section's seconds as durations (0 when unset).
func (c Config) PullTimeoutDuration() time.Duration { return seconds(c.PullTimeout) }
func (c Config) StaleAfterDuration() time.Duration  { return seconds(c.StaleAfter) }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

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

// validate checks the settings the API server would refuse, naming the config key.
func (o PodOptions) validate() error {
	for _, k := range sortedKeys(o.NodeSelector) {
		if err := labelPair("node_selector", k, o.NodeSelector[k]); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(o.Labels) {
		if err := labelPair("labels", k, o.Labels[k]); err != nil {
			return err
		}
		if strings.HasPrefix(k, labelPrefix) || k == LabelManagedBy {
			return fmt.Errorf("config kubernetes.labels: %q is one of swebench-run's own labels", k)
		}
	}
	for _, k := range sortedKeys(o.Annotations) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("config kubernetes.annotations: key %q: %s", k, strings.Join(errs, "; "))
		}
		if strings.HasPrefix(k, labelPrefix) {
			return fmt.Errorf("config kubernetes.annotations: %q is one of swebench-run's own annotations", k)
		}
	}
	for i, t := range o.Tolerations {
		switch corev1.TolerationOperator(t.Operator) {
		case "", corev1.TolerationOpEqual:
		case corev1.TolerationOpExists:
			if t.Value != "" {
				return fmt.Errorf("config kubernetes.tolerations[%d]: operator Exists takes no value", i)
			}
		default:
			return fmt.Errorf("config kubernetes.tolerations[%d].operator %q: want Equal or Exists", i, t.Operator)
		}
		switch corev1.TaintEffect(t.Effect) {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return fmt.Errorf("config kubernetes.tolerations[%d].effect %q: want NoSchedule, PreferNoSchedule or NoExecute", i, t.Effect)
		}
		if t.TolerationSeconds != nil && corev1.TaintEffect(t.Effect) != corev1.TaintEffectNoExecute {
			return fmt.Errorf("config kubernetes.tolerations[%d]: toleration_seconds needs effect NoExecute", i)
		}
	}
	for key, name := range map[string]string{"service_account": o.ServiceAccount, "runtime_class": o.RuntimeClass, "priority_class": o.PriorityClass} {
		if name == "" {
			continue
		}
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return fmt.Errorf("config kubernetes.%s %q: %s", key, name, strings.Join(errs, "; "))
		}
	}
	for i, s := range o.ImagePullSecrets {
		if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
			return fmt.Errorf("config kubernetes.image_pull_secrets[%d] %q: %s", i, s, strings.Join(errs, "; "))
		}
	}
	for key, q := range map[string]string{"cpu_request": o.CPURequest, "memory_request": o.MemoryRequest} {
		if q == "" {
			continue
		}
		if _, err := resource.ParseQuantity(q); err != nil {
			return fmt.Errorf("config kubernetes.%s %q: want a Kubernetes quantity such as 500m, 2 or 4Gi", key, q)
		}
	}
	return nil
}

func labelPair(section, k, v string) error {
	if errs := validation.IsQualifiedName(k); len(errs) > 0 {
		return fmt.Errorf("config kubernetes.%s: key %q: %s", section, k, strings.Join(errs, "; "))
	}
	if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
		return fmt.Errorf("config kubernetes.%s.%s: value %q: %s", section, k, v, strings.Join(errs, "; "))
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
