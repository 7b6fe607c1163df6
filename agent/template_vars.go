package agent

import (
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// TemplateName is one variable a template refers to, with the line it appears on (1-based).
type TemplateName struct {
	Name string
	Line int
}

// TemplateNames lists the variables a Jinja2 template refers to, in order of appearance, each
// time it appears: every name inside {{ … }} and {% … %} that is not an attribute (the patch of
// {{ x.patch }} is not a variable), whatever branch it sits in — a name in a branch that a
// rendering skips is listed too. Keywords, tests and filters are names to the lexer as well
// and are listed with the rest; callers look for the names they care about. An invalid template
// is an error, as when rendering it.
func TemplateNames(src string) ([]TemplateName, error) {
	if err := NewRenderer().Parse("template", src); err != nil {
		return nil, err
	}
	stream := tokens.LexAll(src, config.New())
	var out []TemplateName
	inCode := false
	var prev *tokens.Token
	for tok := stream.Current(); tok != nil && !stream.End(); tok = stream.Current() {
		switch tok.Type {
		case tokens.VariableBegin, tokens.BlockBegin, tokens.LinecontrolStructureBegin:
			inCode = true
		case tokens.VariableEnd, tokens.BlockEnd, tokens.LinecontrolStructureEnd:
			inCode = false
		case tokens.Name:
			if inCode && (prev == nil || prev.Type != tokens.Dot) {
				out = append(out, TemplateName{Name: tok.Val, Line: tok.Line})
			}
		}
		prev = tok
		stream.Next()
	}
	return out, nil
}
