package agent

import (
	"fmt"
	"sync"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// Renderer renders Jinja2 templates the way mini-swe-agent does: StrictUndefined (a missing
// variable is an error) and no trailing newline kept. Parsed templates are cached; a Renderer is
// safe for concurrent use.
type Renderer struct {
	mu    sync.Mutex
	cache map[string]*exec.Template
	cfg   *config.Config
}

// NewRenderer returns an empty Renderer.
func NewRenderer() *Renderer {
	cfg := config.New()
	cfg.StrictUndefined = true
	return &Renderer{cache: map[string]*exec.Template{}, cfg: cfg}
}

func (r *Renderer) parse(src string) (*exec.Template, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.cache[src]; ok {
		return t, nil
	}
	loader, err := loaders.NewFileSystemLoader("")
	if err != nil {
		return nil, err
	}
	const name = "template"
	shifted, err := loaders.NewShiftedLoader(name, stringReader(src), loader)
	if err != nil {
		return nil, err
	}
	t, err := exec.NewTemplate(name, r.cfg, shifted, gonja.DefaultEnvironment)
	if err != nil {
		return nil, err
	}
	r.cache[src] = t
	return t, nil
}

// Parse checks that src is a valid template; what names it in the error.
func (r *Renderer) Parse(what, src string) error {
	if _, err := r.parse(src); err != nil {
		return fmt.Errorf("parse %s: %w", what, err)
	}
	return nil
}

// Render renders src with vars. what names the template in errors ("instance_template", …).
func (r *Renderer) Render(what, src string, vars map[string]any) (string, error) {
	t, err := r.parse(src)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", what, err)
	}
	out, err := t.ExecuteToString(exec.NewContext(vars))
	if err != nil {
		return "", fmt.Errorf("render %s: %w", what, err)
	}
	return out, nil
}
