package dataset

import (
	"fmt"
	"strings"
)

// Family is what Load needs of a dataset family (a profile of package family, passed in
// LoadOptions.Families): its name, how to recognise its rows, and how a row becomes one of its
// instances.
type Family interface {
	// Name names the family (NamedDataset.Family, Instance.Family).
	Name() string
	// Match reports whether a decoded row is one of the family's, by the columns it has. Load
	// asks the families in order and takes the first that matches; a row none matches is used as
	// it is (Instance.Family "").
	Match(inst *Instance) bool
	// Prepare makes a decoded row one of the family's instances: it reads the family's columns
	// and sets Family-independent fields from them (Task, WorkDir, Image, PreAgentCommands,
	// FailToPass …). A row that lacks a column the family needs, or holds a bad value, is a
	// *FieldError naming the column (several joined with errors.Join), which Load reports with
	// the file, row and instance.
	Prepare(inst *Instance) error
}

// EvalValidator is implemented by families whose rows may lack what ValidateForEval asks of every
// row (a task published before its validation has no FAIL_TO_PASS or PASS_TO_PASS) and whose
// grader says itself, naming its harness's rule, what grading such a row needs: with
// LoadOptions.RequireEval, Load checks the family's rows with the family's ValidateForEval
// instead of Instance.ValidateForEval.
type EvalValidator interface {
	ValidateForEval(inst *Instance) error
}

// validateForEval checks inst for an evaluation: by its family's rule when that family (of fams,
// by the name prepare recorded) is an EvalValidator, else by Instance.ValidateForEval.
func validateForEval(inst *Instance, fams []Family) error {
	if inst.Family != "" {
		for _, f := range fams {
			if v, ok := f.(EvalValidator); ok && f.Name() == inst.Family {
				return v.ValidateForEval(inst)
			}
		}
	}
	return inst.ValidateForEval()
}

// IDNamer is implemented by families whose rows may name their instance by other columns than
// instance_id, as their harness's files have them (e.g. org, repo and number). Load
// asks it for the id of a row without an instance_id.
type IDNamer interface {
	// IDColumns are the columns InstanceIDOf reads.
	IDColumns() []string
	// InstanceIDOf returns the instance id the row's IDColumns name (cols holds those the row
	// has, decoded as in Instance.Extra), or "" when they name none.
	InstanceIDOf(cols map[string]any) string
}

// idNamers returns the families that may name a row without an instance_id: forced alone when
// it is set, else every family of fams that is an IDNamer.
func idNamers(forced Family, fams []Family) []IDNamer {
	if forced != nil {
		fams = []Family{forced}
	}
	var out []IDNamer
	for _, f := range fams {
		if n, ok := f.(IDNamer); ok {
			out = append(out, n)
		}
	}
	return out
}

// familyOf returns the family of a row: forced (the named dataset's family) when not nil, else the
// first of fams that matches; nil when none does.
func familyOf(inst *Instance, forced Family, fams []Family) Family {
	if forced != nil {
		return forced
	}
	for _, f := range fams {
		if f.Match(inst) {
			return f
		}
	}
	return nil
}

// prepare applies the row's family to it.
func prepare(inst *Instance, forced Family, fams []Family) error {
	f := familyOf(inst, forced, fams)
	if f == nil {
		return nil
	}
	inst.Family = f.Name()
	return f.Prepare(inst)
}

// forcedFamily returns the family a named dataset declares, from fams. A named dataset whose
// family is not among fams is an error (the program was built without it); none is forced when
// fams is empty (a caller that loads rows without families) or the dataset declares none.
func forcedFamily(src Source, named []NamedDataset, fams []Family) (Family, error) {
	if src.Kind != "named" || len(fams) == 0 {
		return nil, nil
	}
	d, ok := LookupNamed(named, src.Name)
	if !ok || d.Family == "" {
		return nil, nil
	}
	var names []string
	for _, f := range fams {
		if f.Name() == d.Family {
			return f, nil
		}
		names = append(names, f.Name())
	}
	return nil, fmt.Errorf("dataset %s is of the %s family, which is not one of the families given (%s)", d.Name, d.Family, strings.Join(names, ", "))
}
