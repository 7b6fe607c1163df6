package report

import "github.com/swebench-run/swebench-run/validation"

// summariseValidation adds each instance's validation to the summary: its outcome (Env, aligned
// with the ids) and, for the instances that are not ok, the validation in one line (EnvWhy).
// The pages badge the instances whose environment is not ok, filter the list by outcome and
// show the validation on the instance page.
func (r *Report) summariseValidation(s *summary) {
	if len(r.validation) == 0 {
		return
	}
	s.Env = make([]string, len(r.ids))
	s.EnvWhy = map[string]string{}
	for i, id := range r.ids {
		rec, ok := r.validation[id]
		if !ok {
			continue
		}
		s.Env[i] = string(rec.Outcome)
		if rec.Outcome != validation.OK {
			s.EnvWhy[id] = rec.Summary()
		}
	}
}
