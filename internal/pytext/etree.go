package pytext

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Element is an element of an XML document as Python's xml.etree.ElementTree sees it: a tag
// ("{namespace}local" for a namespaced one), attributes and child elements.
type Element struct {
	Tag      string
	Attrs    map[string]string
	Children []*Element
}

// ErrXML is wrapped by every error of ParseXML: what ElementTree raises as ParseError.
var ErrXML = errors.New("XML parse error")

// ParseXML is ElementTree.fromstring: it parses one XML document and returns its root element. Like
// expat it refuses what is not one well-formed document: an XML declaration that is not at the
// very start, text or a second element outside the root, unclosed or mismatched tags, undefined
// entities. Errors wrap ErrXML.
func ParseXML(s string) (*Element, error) {
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = true
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var stack []*Element
	var root *Element
	closed := false
	for {
		offset := d.InputOffset()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrXML, err)
		}
		switch t := tok.(type) {
		case xml.ProcInst:
			if t.Target == "xml" && offset != 0 {
				return nil, fmt.Errorf("%w: XML declaration not at start of document", ErrXML)
			}
		case xml.StartElement:
			if closed || (root != nil && len(stack) == 0) {
				return nil, fmt.Errorf("%w: junk after document element", ErrXML)
			}
			e := &Element{Tag: tagName(t.Name), Attrs: map[string]string{}}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				e.Attrs[tagName(a.Name)] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, e)
			} else {
				root = e
			}
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				closed = true
			}
		case xml.CharData:
			if len(stack) == 0 && len(bytes.TrimFunc(t, IsSpace)) > 0 {
				return nil, fmt.Errorf("%w: text outside the document element", ErrXML)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: no element found", ErrXML)
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("%w: unclosed element <%s>", ErrXML, stack[len(stack)-1].Tag)
	}
	return root, nil
}

func tagName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// Iter returns the elements named tag below e, in document order: ElementTree's
// e.findall(".//tag") (e itself is not included).
func (e *Element) Iter(tag string) []*Element {
	var out []*Element
	var walk func(*Element)
	walk = func(p *Element) {
		for _, c := range p.Children {
			if c.Tag == tag {
				out = append(out, c)
			}
			walk(c)
		}
	}
	walk(e)
	return out
}

// FindAll returns the children of e named tag: ElementTree's e.findall("tag").
func (e *Element) FindAll(tag string) []*Element {
	var out []*Element
	for _, c := range e.Children {
		if c.Tag == tag {
			out = append(out, c)
		}
	}
	return out
}

// Has reports whether e has a child named tag: ElementTree's e.find("tag") is not None.
func (e *Element) Has(tag string) bool {
	for _, c := range e.Children {
		if c.Tag == tag {
			return true
		}
	}
	return false
}

// Get returns the attribute name and whether e has it: ElementTree's e.get(name).
func (e *Element) Get(name string) (string, bool) {
	v, ok := e.Attrs[name]
	return v, ok
}

// GetOr is ElementTree's e.get(name, def).
func (e *Element) GetOr(name, def string) string {
	if v, ok := e.Attrs[name]; ok {
		return v
	}
	return def
}

// GetStr is f"{e.get(name)}" in Python: the attribute, or "None" when e has none.
func (e *Element) GetStr(name string) string { return e.GetOr(name, "None") }
