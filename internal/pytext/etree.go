package pytext

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Element is an element of an XML document as Python's xml.etree.ElementTree sees it: a tag
// ("{namespace}local" for a namespaced one), attributes, the character data before its first
// child (Text) and after its end tag (Tail; "" for ElementTree's None), and child elements.
type Element struct {
	Tag      string
	Attrs    map[string]string
	Text     string
	Tail     string
	Children []*Element
}

// ErrXML is wrapped by every error of ParseXML: what ElementTree raises as ParseError.
var ErrXML = errors.New("XML parse error")

// XMLError is a document ParseXML refuses: expat's words for what is wrong, where (line from
// 1, column from 0 in characters, as ElementTree reports them) and, when it helps, what was
// found there. It wraps ErrXML.
type XMLError struct {
	Msg          string
	Line, Column int
	Detail       string
}

func (e *XMLError) Error() string {
	s := fmt.Sprintf("%v: %s: line %d, column %d", ErrXML, e.Msg, e.Line, e.Column)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

func (e *XMLError) Unwrap() error { return ErrXML }

// ParseXML is ElementTree.fromstring of a str: it parses one XML document as expat does (as
// Python's xml.etree.ElementTree with its default XMLParser) and returns its root element, or an
// error wrapping ErrXML where ElementTree raises ParseError. It follows expat on what a
// well-formed document is: one leading byte-order mark; an XML declaration only at the very start
// and well-formed (its encoding is not used: a str has been decoded already); comments,
// processing instructions and a document type declaration whose internal subset declares
// entities (expanded, markup included) and attribute defaults (applied, non-CDATA values
// normalised), no declaration after an unexpanded parameter-entity reference taking effect;
// names as expat's tables have them; namespaces resolved ("{uri}local", xmlns attributes
// dropped, an unbound prefix refused); unique attributes separated by whitespace, their
// values normalised (a literal tab or line break is a space, a character reference stays what
// it is); line breaks of text read as "\n"; no text or element outside the root. Text and
// tails skip comments and processing instructions, as ElementTree's TreeBuilder does.
//
// Where s is not valid UTF-8, each bad byte reads as U+FFFD, as in text decoded with
// errors="replace" (ElementTree is given decoded text).
func ParseXML(s string) (*Element, error) {
	s = strings.TrimPrefix(s, "\uFEFF")
	if strings.Contains(s, "\r") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	p := &xmlParser{doc: s, src: s, at: -1, entities: map[string]*xmlEntity{}, attlists: map[string][]attDef{},
		keepDeclaring: true, budget: 8<<20 + 100*len(s)}
	return p.document()
}

// xmlParser reads a document, or the replacement text of an entity (src) within it.
type xmlParser struct {
	doc string // the whole document, for positions
	src string // what is being read: doc, or an entity's replacement text
	pos int    // in src
	at  int    // in doc: where src starts (the reference of the entity being read), or -1 for doc

	entities      map[string]*xmlEntity
	attlists      map[string][]attDef // by the element's name as written
	standalone    bool
	paramRefs     bool // an external subset or a parameter-entity reference: entities may be declared elsewhere
	keepDeclaring bool // false after an unexpanded parameter-entity reference (not standalone)
	open          map[string]bool
	budget        int // characters entity expansion may still produce

	ns    []map[string]string // the prefixes bound by each open element ("" the default namespace)
	stack []*openElement      // the open elements
	root  *Element
	text  *strings.Builder // where character data goes: the text of the open element, or a tail
	owner *Element         // whose text or tail text holds
	tail  bool
}

type openElement struct {
	el   *Element
	name string // as written
	at   int    // where its start tag is in the document, for a mismatched end tag
}

type xmlEntity struct {
	value    string
	external bool // SYSTEM or PUBLIC: expat reads no external entity for ElementTree
	unparsed bool // NDATA
}

type attDef struct {
	name, def string
	cdata     bool
	hasDef    bool
}

const xmlNamespace = "http://www.w3.org/XML/1998/namespace"

func (p *xmlParser) fail(msg, detail string) error {
	off := p.pos
	if p.at >= 0 {
		off = p.at
	}
	off = min(off, len(p.doc))
	line := 1 + strings.Count(p.doc[:off], "\n")
	col := utf8.RuneCountInString(p.doc[strings.LastIndexByte(p.doc[:off], '\n')+1 : off])
	return &XMLError{Msg: msg, Line: line, Column: col, Detail: detail}
}

func (p *xmlParser) invalid(detail string) error {
	return p.fail("not well-formed (invalid token)", detail)
}

func (p *xmlParser) eof() bool { return p.pos >= len(p.src) }

func (p *xmlParser) has(prefix string) bool { return strings.HasPrefix(p.src[p.pos:], prefix) }

// peek is the character at pos (-1 at the end); a byte of bad UTF-8 reads as U+FFFD.
func (p *xmlParser) peek() (rune, int) {
	if p.pos >= len(p.src) {
		return -1, 0
	}
	if c := p.src[p.pos]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(p.src[p.pos:])
}

func isXMLChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || (r >= 0x10000 && r <= 0x10ffff)
}

func isXMLSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func isNameStart(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return r <= 0xffff && unicode.Is(expatNameStart, r)
}

func isNameChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || r == '-' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return r <= 0xffff && unicode.Is(expatNameChar, r)
}

// space skips whitespace and reports whether there was some.
func (p *xmlParser) space() bool {
	start := p.pos
	for p.pos < len(p.src) && isXMLSpace(rune(p.src[p.pos])) {
		p.pos++
	}
	return p.pos > start
}

// The names expat reads with namespaces on.
type nameKind int

const (
	ncName   nameKind = iota // entities, notations, processing-instruction targets: no colon
	qName                    // element and attribute names in the document: a colon between a prefix and a name
	dtdQName                 // element and attribute names in declarations: a colon, then any name character
)

// name reads a name of that kind.
func (p *xmlParser) name(kind nameKind) (string, error) {
	start := p.pos
	r, w := p.peek()
	if !isNameStart(r) {
		if r < 0 {
			return "", p.fail("unclosed token", "")
		}
		return "", p.invalid(fmt.Sprintf("%q cannot start a name", r))
	}
	p.pos += w
	colon := false
	for {
		r, w = p.peek()
		switch {
		case isNameChar(r):
			p.pos += w
			continue
		case r == ':' && kind == ncName:
			return p.src[start:p.pos], nil // a colon ends the name
		case r == ':' && !colon:
			colon = true
			p.pos += w
			r2, _ := p.peek()
			if !isNameStart(r2) && (kind == qName || !isNameChar(r2)) {
				return "", p.invalid("a name's local part after ':'")
			}
			continue
		case r == ':':
			return "", p.invalid("a second ':' in a name")
		}
		return p.src[start:p.pos], nil
	}
}

// chars checks that s holds XML characters only, failing at the first other one.
func (p *xmlParser) chars(s string, from int) error {
	for i, r := range s {
		if !isXMLChar(r) {
			p.pos = from + i
			return p.invalid(fmt.Sprintf("character %U is not allowed in XML", r))
		}
	}
	return nil
}

func (p *xmlParser) document() (*Element, error) {
	if p.has("<?") {
		if err := p.xmlDecl(); err != nil {
			return nil, err
		}
	}
	doctype := false
	for {
		p.space()
		switch {
		case p.eof():
			return nil, p.fail("no element found", "")
		case p.has("<!--"):
			if err := p.comment(); err != nil {
				return nil, err
			}
		case p.has("<?"):
			if err := p.pi(); err != nil {
				return nil, err
			}
		case p.has("<!DOCTYPE"):
			if doctype {
				return nil, p.fail("syntax error", "a second document type declaration")
			}
			doctype = true
			if err := p.doctype(); err != nil {
				return nil, err
			}
		case p.has("<!"):
			return nil, p.fail("syntax error", "")
		case p.has("<"):
			p.pos++
			if r, _ := p.peek(); !isNameStart(r) {
				return nil, p.invalid("")
			}
			p.pos--
			if err := p.content(); err != nil {
				return nil, err
			}
			return p.root, p.epilog()
		default:
			r, _ := p.peek()
			return nil, p.invalid(fmt.Sprintf("%q before the document element", r))
		}
	}
}

// epilog reads what follows the root: whitespace, comments and processing instructions.
func (p *xmlParser) epilog() error {
	for {
		p.space()
		switch {
		case p.eof():
			return nil
		case p.has("<!--"):
			if err := p.comment(); err != nil {
				return err
			}
		case p.has("<?"):
			if err := p.pi(); err != nil {
				return err
			}
		case p.has("</"), p.has("&"):
			return p.invalid("after the document element")
		default:
			r, _ := p.peek()
			if r != '<' && !isXMLChar(r) {
				return p.invalid(fmt.Sprintf("character %U is not allowed in XML", r))
			}
			return p.fail("junk after document element", "")
		}
	}
}

// xmlDecl reads <?xml version="…" encoding="…" standalone="…"?> at the start of the document,
// or another processing instruction there.
func (p *xmlParser) xmlDecl() error {
	target, decl, err := p.piToken()
	if err != nil || target != "xml" {
		if err == nil && strings.EqualFold(target, "xml") {
			p.pos = 2 + len(target)
			return p.invalid("a processing instruction named " + target)
		}
		return err
	}
	end := p.pos - 2
	bad := func(i int, detail string) error {
		p.pos = 5 + i
		return p.fail("XML declaration not well-formed", detail)
	}
	i := 0
	skip := func() bool {
		start := i
		for i < len(decl) && isXMLSpace(rune(decl[i])) {
			i++
		}
		return i > start
	}
	pseudo := []string{"version", "encoding", "standalone"} // in this order, version required
	next := 0
	for {
		sep := skip()
		if i == len(decl) {
			break
		}
		if !sep {
			return bad(i, "no space before a pseudo-attribute")
		}
		j := i
		for j < len(decl) && decl[j] >= 'a' && decl[j] <= 'z' {
			j++
		}
		k := next
		for k < len(pseudo) && pseudo[k] != decl[i:j] {
			k++
		}
		if k == len(pseudo) || (next == 0 && k != 0) {
			return bad(i, "")
		}
		next = k + 1
		i = j
		skip()
		if i == len(decl) || decl[i] != '=' {
			return bad(i, "")
		}
		i++
		skip()
		if i == len(decl) || (decl[i] != '"' && decl[i] != '\'') {
			return bad(i, "")
		}
		q := decl[i]
		i++
		vstart := i
		for i < len(decl) && decl[i] != q {
			c := decl[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
				return bad(i, "")
			}
			i++
		}
		if i == len(decl) {
			return bad(i, "")
		}
		v := decl[vstart:i]
		i++
		switch pseudo[k] {
		case "encoding":
			if v == "" || !(v[0] >= 'a' && v[0] <= 'z' || v[0] >= 'A' && v[0] <= 'Z') {
				return bad(vstart, "")
			}
		case "standalone":
			if v != "yes" && v != "no" {
				return bad(vstart, "")
			}
			p.standalone = v == "yes"
		}
	}
	if next == 0 {
		return bad(i, "no version")
	}
	p.pos = end + 2
	return nil
}

// scanTo finds term from pos, as expat's tokenizer does: a character XML does not allow before
// it is an error; -1 when the text ends first.
func (p *xmlParser) scanTo(term string) (int, error) {
	rest := p.src[p.pos:]
	end := strings.Index(rest, term)
	if end >= 0 {
		rest = rest[:end]
	}
	if err := p.chars(rest, p.pos); err != nil {
		return 0, err
	}
	return end, nil
}

// comment reads <!-- … -->: no "--" inside.
func (p *xmlParser) comment() error {
	start := p.pos
	p.pos += 4
	end, err := p.scanTo("--")
	if err != nil {
		return err
	}
	if end < 0 || p.pos+end+2 >= len(p.src) {
		p.pos = start
		return p.fail("unclosed token", "a comment without -->")
	}
	p.pos += end
	if !p.has("-->") {
		return p.invalid("\"--\" inside a comment")
	}
	p.pos += 3
	return nil
}

// piToken reads a processing instruction <?target …?> as expat's tokenizer does: its target
// and what follows the target up to "?>".
func (p *xmlParser) piToken() (target, body string, err error) {
	start := p.pos
	p.pos += 2
	if target, err = p.name(ncName); err != nil {
		if p.eof() {
			p.pos = start
			return "", "", p.fail("unclosed token", "")
		}
		return "", "", err
	}
	switch r, _ := p.peek(); {
	case p.has("?>"):
		p.pos += 2
		return target, "", nil
	case r < 0 || r == '?' && p.pos+1 == len(p.src):
		p.pos = start
		return "", "", p.fail("unclosed token", "")
	case !isXMLSpace(r):
		return "", "", p.invalid("")
	}
	bodyStart := p.pos
	end, err := p.scanTo("?>")
	if err != nil {
		return "", "", err
	}
	if end < 0 {
		p.pos = start
		return "", "", p.fail("unclosed token", "a processing instruction without ?>")
	}
	p.pos += end + 2
	return target, p.src[bodyStart : bodyStart+end], nil
}

// pi reads a processing instruction other than the XML declaration (its target not xml in any
// case).
func (p *xmlParser) pi() error {
	start := p.pos
	target, _, err := p.piToken()
	if err != nil {
		return err
	}
	if strings.EqualFold(target, "xml") {
		if target == "xml" {
			p.pos = start
			return p.fail("XML or text declaration not at start of entity", "")
		}
		p.pos = start + 2 + len(target)
		return p.invalid("a processing instruction named " + target)
	}
	return nil
}

// quoted reads a quoted literal without interpreting it.
func (p *xmlParser) quoted() (string, error) {
	q, _ := p.peek()
	if q != '"' && q != '\'' {
		if q < 0 {
			return "", p.fail("unclosed token", "")
		}
		return "", p.fail("syntax error", "a quoted literal expected")
	}
	end := strings.IndexByte(p.src[p.pos+1:], byte(q))
	if end < 0 {
		return "", p.fail("unclosed token", "")
	}
	v := p.src[p.pos+1 : p.pos+1+end]
	if err := p.chars(v, p.pos+1); err != nil {
		return "", err
	}
	p.pos += end + 2
	return v, nil
}

func (p *xmlParser) keyword(words ...string) string {
	for _, w := range words {
		if p.has(w) {
			p.pos += len(w)
			return w
		}
	}
	return ""
}

// externalID reads SYSTEM "…" or PUBLIC "…" "…" (the system literal optional when public only).
func (p *xmlParser) externalID(publicOnly bool) (bool, error) {
	switch p.keyword("SYSTEM", "PUBLIC") {
	case "SYSTEM":
		if !p.space() {
			return false, p.fail("syntax error", "")
		}
		_, err := p.quoted()
		return true, err
	case "PUBLIC":
		if !p.space() {
			return false, p.fail("syntax error", "")
		}
		at := p.pos
		pub, err := p.quoted()
		if err != nil {
			return false, err
		}
		for i, c := range pub {
			if !(c == ' ' || c == '\n' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-'()+,./:=?;!*#@$_%", c)) {
				p.pos = at + 1 + i
				return false, p.fail("illegal character(s) in public id", "")
			}
		}
		sep := p.space()
		if r, _ := p.peek(); publicOnly && (r == '>' || !sep) {
			return true, nil
		}
		if !sep {
			return false, p.fail("syntax error", "")
		}
		_, err = p.quoted()
		return true, err
	}
	return false, nil
}

// doctype reads <!DOCTYPE name externalID? [internal subset]? >.
func (p *xmlParser) doctype() error {
	p.pos += len("<!DOCTYPE")
	if !p.space() {
		return p.fail("syntax error", "")
	}
	if _, err := p.name(dtdQName); err != nil {
		return err
	}
	sep := p.space()
	if r, _ := p.peek(); sep && (r == 'S' || r == 'P') {
		ext, err := p.externalID(false)
		if err != nil {
			return err
		}
		if !ext {
			return p.fail("syntax error", "")
		}
		p.paramRefs = true
		p.space()
	}
	if p.has("[") {
		p.pos++
		if err := p.internalSubset(); err != nil {
			return err
		}
		p.space()
	}
	if !p.has(">") {
		if p.eof() {
			return p.fail("unclosed token", "")
		}
		return p.fail("syntax error", "")
	}
	p.pos++
	return nil
}

func (p *xmlParser) internalSubset() error {
	for {
		p.space()
		switch {
		case p.eof():
			return p.fail("unclosed token", "the internal subset has no ]")
		case p.has("]"):
			p.pos++
			return nil
		case p.has("<!--"):
			if err := p.comment(); err != nil {
				return err
			}
		case p.has("<?"):
			if err := p.pi(); err != nil {
				return err
			}
		case p.has("<!ENTITY"):
			if err := p.entityDecl(); err != nil {
				return err
			}
		case p.has("<!ATTLIST"):
			if err := p.attlistDecl(); err != nil {
				return err
			}
		case p.has("<!ELEMENT"):
			if err := p.elementDecl(); err != nil {
				return err
			}
		case p.has("<!NOTATION"):
			if err := p.notationDecl(); err != nil {
				return err
			}
		case p.has("%"):
			p.pos++
			if _, err := p.name(ncName); err != nil {
				return p.fail("syntax error", "")
			}
			if !p.has(";") {
				return p.invalid("")
			}
			p.pos++
			// expat reads no parameter entity for ElementTree: what it might declare is
			// unknown, so later declarations are not taken (unless standalone="yes").
			p.paramRefs = true
			if !p.standalone {
				p.keepDeclaring = false
			}
		default:
			return p.fail("syntax error", "")
		}
	}
}

// declEnd reads the optional space and '>' that end a declaration.
func (p *xmlParser) declEnd() error {
	p.space()
	if !p.has(">") {
		if p.eof() {
			return p.fail("unclosed token", "")
		}
		return p.fail("syntax error", "")
	}
	p.pos++
	return nil
}

func (p *xmlParser) entityDecl() error {
	p.pos += len("<!ENTITY")
	if !p.space() {
		return p.fail("syntax error", "")
	}
	param := false
	if p.has("%") {
		p.pos++
		if !p.space() {
			return p.invalid("")
		}
		param = true
	}
	name, err := p.name(ncName)
	if err != nil {
		return err
	}
	if !p.space() {
		return p.invalid("")
	}
	e := &xmlEntity{}
	if r, _ := p.peek(); r == '"' || r == '\'' {
		at := p.pos
		raw, err := p.quoted()
		if err != nil {
			return err
		}
		if e.value, err = p.entityValue(raw, at+1); err != nil {
			return err
		}
	} else {
		ext, err := p.externalID(false)
		if err != nil {
			return err
		}
		if !ext {
			return p.fail("syntax error", "")
		}
		e.external = true
		sep := p.space()
		if p.has("NDATA") {
			if !sep || param {
				return p.fail("syntax error", "")
			}
			p.pos += len("NDATA")
			if !p.space() {
				return p.fail("syntax error", "")
			}
			if _, err := p.name(ncName); err != nil {
				return err
			}
			e.unparsed = true
		}
	}
	if err := p.declEnd(); err != nil {
		return err
	}
	if _, seen := p.entities[name]; !param && !seen && p.keepDeclaring {
		p.entities[name] = e
	}
	return nil
}

// entityValue is an entity's replacement text: character references replaced, references to
// general entities kept as they are (they are expanded where the entity is used).
func (p *xmlParser) entityValue(raw string, at int) (string, error) {
	defer func(pos int) { p.pos = pos }(p.pos)
	var b strings.Builder
	for i := 0; i < len(raw); {
		switch raw[i] {
		case '%':
			p.pos = at + i
			return "", p.fail("illegal parameter entity reference", "")
		case '&':
			p.pos = at + i
			if strings.HasPrefix(raw[i:], "&#") {
				r, n, err := p.charRef(raw[i:])
				if err != nil {
					return "", err
				}
				b.WriteRune(r)
				i += n
				continue
			}
			end := strings.IndexByte(raw[i:], ';')
			if end < 0 || !validName(raw[i+1:i+end]) {
				return "", p.invalid("")
			}
			b.WriteString(raw[i : i+end+1])
			i += end + 1
		default:
			b.WriteByte(raw[i])
			i++
		}
	}
	return b.String(), nil
}

func validName(s string) bool {
	for i, r := range s {
		if i == 0 && !isNameStart(r) || i > 0 && !isNameChar(r) {
			return false
		}
	}
	return s != ""
}

// charRef reads &#N; or &#xH; at the start of s: the character and the reference's length.
func (p *xmlParser) charRef(s string) (rune, int, error) {
	end := strings.IndexByte(s, ';')
	if end < 0 {
		return 0, 0, p.invalid("")
	}
	digits, base := s[2:end], 10
	if strings.HasPrefix(digits, "x") {
		digits, base = digits[1:], 16
	}
	if digits == "" || strings.IndexFunc(digits, func(r rune) bool {
		return !(r >= '0' && r <= '9' || base == 16 && (r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'))
	}) >= 0 {
		return 0, 0, p.invalid("")
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil || !isXMLChar(rune(n)) {
		return 0, 0, p.fail("reference to invalid character number", "&#"+s[2:end]+";")
	}
	return rune(n), end + 1, nil
}

func (p *xmlParser) attlistDecl() error {
	p.pos += len("<!ATTLIST")
	if !p.space() {
		return p.fail("syntax error", "")
	}
	elem, err := p.name(dtdQName)
	if err != nil {
		return err
	}
	for {
		sep := p.space()
		if p.has(">") {
			p.pos++
			return nil
		}
		if !sep {
			return p.fail("syntax error", "")
		}
		attr, err := p.name(dtdQName)
		if err != nil {
			return err
		}
		if !p.space() {
			return p.fail("syntax error", "")
		}
		cdata := false
		switch kw := p.keyword("CDATA", "IDREFS", "IDREF", "ID", "ENTITIES", "ENTITY", "NMTOKENS", "NMTOKEN", "NOTATION"); kw {
		case "":
			if !p.has("(") {
				return p.fail("syntax error", "")
			}
			if err := p.enumeration(); err != nil {
				return err
			}
		case "NOTATION":
			if !p.space() || !p.has("(") {
				return p.fail("syntax error", "")
			}
			if err := p.enumeration(); err != nil {
				return err
			}
		default:
			cdata = kw == "CDATA"
		}
		if !p.space() {
			return p.fail("syntax error", "")
		}
		d := attDef{name: attr, cdata: cdata}
		switch p.keyword("#REQUIRED", "#IMPLIED", "#FIXED") {
		case "#REQUIRED", "#IMPLIED":
		case "#FIXED":
			if !p.space() {
				return p.fail("syntax error", "")
			}
			fallthrough
		default:
			v, err := p.attValue()
			if err != nil {
				return err
			}
			if !cdata {
				v = collapseSpaces(v)
			}
			d.def, d.hasDef = v, true
		}
		if p.keepDeclaring {
			p.attlists[elem] = append(p.attlists[elem], d)
		}
	}
}

// enumeration reads ( name | name … ).
func (p *xmlParser) enumeration() error {
	p.pos++
	for {
		p.space()
		start := p.pos
		for r, w := p.peek(); isNameChar(r) || r == ':'; r, w = p.peek() {
			p.pos += w
		}
		if p.pos == start {
			return p.fail("syntax error", "")
		}
		p.space()
		switch {
		case p.has("|"):
			p.pos++
		case p.has(")"):
			p.pos++
			return nil
		default:
			return p.fail("syntax error", "")
		}
	}
}

func (p *xmlParser) elementDecl() error {
	p.pos += len("<!ELEMENT")
	if !p.space() {
		return p.fail("syntax error", "")
	}
	if _, err := p.name(dtdQName); err != nil {
		return err
	}
	if !p.space() {
		return p.fail("syntax error", "")
	}
	switch {
	case p.keyword("EMPTY", "ANY") != "":
	case p.has("("):
		p.pos++
		p.space()
		if p.has("#PCDATA") {
			if err := p.mixed(); err != nil {
				return err
			}
		} else if err := p.particles(); err != nil {
			return err
		}
	default:
		return p.fail("syntax error", "")
	}
	return p.declEnd()
}

// mixed reads the rest of (#PCDATA | name …)* or (#PCDATA).
func (p *xmlParser) mixed() error {
	p.pos += len("#PCDATA")
	names := 0
	for {
		p.space()
		switch {
		case p.has(")*"):
			p.pos += 2
			return nil
		case p.has(")") && names == 0:
			p.pos++
			return nil
		case p.has("|"):
			p.pos++
			p.space()
			if _, err := p.name(dtdQName); err != nil {
				return p.fail("syntax error", "")
			}
			names++
		default:
			return p.fail("syntax error", "")
		}
	}
}

// particles reads the rest of a choice or sequence of content particles, after its '('.
func (p *xmlParser) particles() error {
	sep := byte(0)
	for {
		p.space()
		if p.has("(") {
			p.pos++
			p.space()
			if err := p.particles(); err != nil {
				return err
			}
		} else if _, err := p.name(dtdQName); err != nil {
			return p.fail("syntax error", "")
		}
		p.keyword("?", "*", "+")
		p.space()
		switch {
		case p.has(")"):
			p.pos++
			p.keyword("?", "*", "+")
			return nil
		case p.has("|") || p.has(","):
			if c := p.src[p.pos]; sep == 0 || sep == c {
				sep = c
				p.pos++
				continue
			}
		}
		return p.fail("syntax error", "")
	}
}

func (p *xmlParser) notationDecl() error {
	p.pos += len("<!NOTATION")
	if !p.space() {
		return p.fail("syntax error", "")
	}
	if _, err := p.name(ncName); err != nil {
		return err
	}
	if !p.space() {
		return p.fail("syntax error", "")
	}
	if ext, err := p.externalID(true); err != nil {
		return err
	} else if !ext {
		return p.fail("syntax error", "")
	}
	return p.declEnd()
}

// expand reads an entity's replacement text with a parser on it, for what read does.
func (p *xmlParser) expand(name string, e *xmlEntity, read func(*xmlParser) error) error {
	if p.open[name] {
		return p.fail("recursive entity reference", "&"+name+";")
	}
	if p.budget -= len(e.value); p.budget < 0 {
		return p.fail("limit on input amplification factor (from DTD and entities) breached", "&"+name+";")
	}
	if p.open == nil {
		p.open = map[string]bool{}
	}
	p.open[name] = true
	sub := *p
	sub.src, sub.pos = e.value, 0
	if p.at < 0 {
		sub.at = p.pos
	}
	err := read(&sub)
	p.open[name] = false
	p.budget, p.stack, p.root, p.text, p.owner, p.tail, p.ns = sub.budget, sub.stack, sub.root, sub.text, sub.owner, sub.tail, sub.ns
	return err
}

// attValue reads a quoted attribute value: references replaced, literal whitespace a space.
func (p *xmlParser) attValue() (string, error) {
	q, _ := p.peek()
	if q != '"' && q != '\'' {
		if q < 0 {
			return "", p.fail("unclosed token", "")
		}
		return "", p.invalid("an attribute value is quoted")
	}
	p.pos++
	end := strings.IndexByte(p.src[p.pos:], byte(q))
	if end < 0 {
		return "", p.fail("unclosed token", "an attribute value without its closing quote")
	}
	var b strings.Builder
	if err := p.attText(p.src[:p.pos+end], &b); err != nil {
		return "", err
	}
	p.pos++
	return b.String(), nil
}

// attText normalises src from pos to its end (the text of an attribute value) into b.
func (p *xmlParser) attText(src string, b *strings.Builder) error {
	for p.pos < len(src) {
		r, w := utf8.DecodeRuneInString(src[p.pos:])
		switch {
		case r == '<':
			return p.invalid("'<' in an attribute value")
		case r == '&':
			if strings.HasPrefix(src[p.pos:], "&#") {
				c, n, err := p.charRef(src[p.pos:])
				if err != nil {
					return err
				}
				b.WriteRune(c)
				p.pos += n
				continue
			}
			ref := p.pos
			name, e, err := p.entityRef(src)
			if err != nil {
				return err
			}
			if v, ok := predefined[name]; ok {
				b.WriteString(v)
				continue
			}
			switch {
			case e == nil && p.paramRefs && !p.standalone:
				continue // possibly declared where expat does not read: left out
			case e == nil:
				p.pos = ref
				return p.undefined(name)
			case e.unparsed:
				p.pos = ref
				return p.fail("reference to binary entity", "&"+name+";")
			case e.external:
				p.pos = ref
				return p.fail("reference to external entity in attribute", "&"+name+";")
			}
			end := p.pos
			p.pos = ref
			if err := p.expand(name, e, func(sub *xmlParser) error { return sub.attText(sub.src, b) }); err != nil {
				return err
			}
			p.pos = end
		case isXMLSpace(r):
			b.WriteByte(' ')
			p.pos += w
		case !isXMLChar(r):
			return p.invalid(fmt.Sprintf("character %U is not allowed in XML", r))
		case r == utf8.RuneError && w == 1:
			b.WriteRune(r)
			p.pos++
		default:
			b.WriteString(src[p.pos : p.pos+w])
			p.pos += w
		}
	}
	return nil
}

var predefined = map[string]string{"amp": "&", "lt": "<", "gt": ">", "apos": "'", "quot": "\""}

// entityRef reads &name; at pos of src: the name, and its declaration (nil when undeclared).
func (p *xmlParser) entityRef(src string) (string, *xmlEntity, error) {
	p.pos++
	saved := p.src
	p.src = src
	name, err := p.name(ncName)
	p.src = saved
	if err != nil {
		return "", nil, err
	}
	if p.pos >= len(src) || src[p.pos] != ';' {
		return "", nil, p.invalid("an entity reference without ';'")
	}
	p.pos++
	return name, p.entities[name], nil
}

func (p *xmlParser) undefined(name string) error {
	if p.paramRefs && !p.standalone {
		return p.fail("undefined entity &"+name+";", "") // ElementTree's words
	}
	return p.fail("undefined entity", "&"+name+";")
}

// setText makes character data go to the text (tail false) or tail of e.
func (p *xmlParser) setText(e *Element, tail bool) {
	p.flush()
	p.owner, p.tail, p.text = e, tail, &strings.Builder{}
}

func (p *xmlParser) flush() {
	if p.owner == nil || p.text.Len() == 0 {
		return
	}
	if p.tail {
		p.owner.Tail += p.text.String()
	} else {
		p.owner.Text += p.text.String()
	}
	p.text.Reset()
}

// content reads the root element (from the document) or an entity's replacement text in an
// element (entity true): elements, text, references, CDATA sections, comments, processing
// instructions. An entity must close the elements it opens and no other.
func (p *xmlParser) content() error {
	base := len(p.stack)
	entity := p.at >= 0
	for {
		if !entity && len(p.stack) == 0 && p.root != nil {
			p.flush()
			return nil
		}
		if p.eof() {
			if entity {
				if len(p.stack) != base {
					return p.fail("asynchronous entity", "an element the entity opens is not closed in it")
				}
				return nil
			}
			return p.fail("no element found", fmt.Sprintf("<%s> is not closed", p.stack[len(p.stack)-1].name))
		}
		var err error
		switch c := p.src[p.pos]; {
		case c == '<':
			switch {
			case p.has("</"):
				if len(p.stack) == base {
					if entity {
						return p.fail("asynchronous entity", "an end tag in an entity closes an element opened outside it")
					}
					return p.invalid("")
				}
				err = p.endTag()
			case p.has("<!--"):
				err = p.comment()
			case p.has("<![CDATA["):
				err = p.cdata()
			case p.has("<?"):
				err = p.pi()
			default:
				err = p.startTag()
			}
		case c == '&':
			err = p.contentRef()
		default:
			err = p.charData()
		}
		if err != nil {
			return err
		}
	}
}

func (p *xmlParser) charData() error {
	start := p.pos
	end := strings.IndexAny(p.src[p.pos:], "<&")
	if end < 0 {
		end = len(p.src) - p.pos
	}
	s := p.src[p.pos : p.pos+end]
	if i := strings.Index(s, "]]>"); i >= 0 {
		p.pos += i
		return p.invalid("\"]]>\" in text")
	}
	if err := p.chars(s, start); err != nil {
		return err
	}
	p.pos += end
	if p.owner != nil {
		p.writeText(s)
	}
	return nil
}

// writeText adds character data, bad UTF-8 as U+FFFD.
func (p *xmlParser) writeText(s string) {
	if utf8.ValidString(s) {
		p.text.WriteString(s)
		return
	}
	p.text.WriteString(strings.ToValidUTF8(s, "\uFFFD"))
}

func (p *xmlParser) cdata() error {
	start := p.pos
	p.pos += len("<![CDATA[")
	end, err := p.scanTo("]]>")
	if err != nil {
		return err
	}
	if end < 0 {
		p.pos = len(p.src)
		if p.at >= 0 {
			p.pos = start
		}
		return p.fail("unclosed CDATA section", "")
	}
	p.writeText(p.src[p.pos : p.pos+end])
	p.pos += end + 3
	return nil
}

func (p *xmlParser) contentRef() error {
	if p.has("&#") {
		r, n, err := p.charRef(p.src[p.pos:])
		if err != nil {
			return err
		}
		p.text.WriteRune(r)
		p.pos += n
		return nil
	}
	ref := p.pos
	name, e, err := p.entityRef(p.src)
	if err != nil {
		return err
	}
	if v, ok := predefined[name]; ok {
		p.text.WriteString(v)
		return nil
	}
	end := p.pos
	p.pos = ref // errors are placed at the reference, and so is what the entity holds
	switch {
	case e == nil:
		return p.undefined(name)
	case e.unparsed:
		return p.fail("reference to binary entity", "&"+name+";")
	case e.external:
		return p.fail("undefined entity &"+name+";", "an external entity, which ElementTree does not read")
	}
	if err := p.expand(name, e, (*xmlParser).content); err != nil {
		return err
	}
	p.pos = end
	return nil
}

// docOffset is where pos is in the document (the entity reference, in an entity).
func (p *xmlParser) docOffset() int {
	if p.at >= 0 {
		return p.at
	}
	return p.pos
}

// startTag reads <name attributes> or <name attributes/> and opens or adds the element, in
// expat's order: the whole tag is read first; then each attribute in turn is checked for a
// duplicate, its value normalised and, for a namespace declaration, the binding made; then the
// declared defaults are added and the names resolved.
func (p *xmlParser) startTag() error {
	if len(p.stack) == 0 && p.root != nil {
		return p.fail("junk after document element", "")
	}
	start := p.pos
	at := p.docOffset()
	p.pos++
	if r, _ := p.peek(); !isNameStart(r) {
		if r < 0 {
			p.pos = start
			return p.fail("unclosed token", "")
		}
		return p.invalid("")
	}
	name, err := p.name(qName)
	if err != nil {
		return err
	}
	unclosed := func(detail string) error {
		p.pos = start
		return p.fail("unclosed token", detail)
	}
	type rawAttr struct {
		name       string
		at, vstart int // where the attribute and its value (after the quote) are
		value      string
	}
	var attrs []rawAttr
	for {
		sep := p.space()
		if p.has("/>") || p.has(">") {
			break
		}
		r, _ := p.peek()
		if r < 0 || r == '/' && p.pos+1 == len(p.src) {
			return unclosed(fmt.Sprintf("the start tag of <%s> has no >", name))
		}
		if !sep {
			return p.invalid("no whitespace before an attribute")
		}
		at := p.pos
		an, err := p.name(qName)
		if err != nil {
			if p.eof() {
				return unclosed("")
			}
			return err
		}
		p.space()
		if !p.has("=") {
			if p.eof() {
				return unclosed("")
			}
			return p.invalid(fmt.Sprintf("attribute %s has no value", an))
		}
		p.pos++
		p.space()
		q, _ := p.peek()
		if q != '"' && q != '\'' {
			if q < 0 {
				return unclosed("")
			}
			return p.invalid(fmt.Sprintf("the value of attribute %s is not quoted", an))
		}
		end := strings.IndexByte(p.src[p.pos+1:], byte(q))
		if end < 0 {
			if err := p.attToken(p.src, p.pos+1, true); err != nil {
				return err
			}
			return unclosed(fmt.Sprintf("the value of attribute %s has no closing quote", an))
		}
		if err := p.attToken(p.src[:p.pos+1+end], p.pos+1, false); err != nil {
			return err
		}
		attrs = append(attrs, rawAttr{name: an, at: at, vstart: p.pos + 1, value: p.src[p.pos+1 : p.pos+1+end]})
		p.pos += end + 2
	}
	after := p.pos
	empty := p.has("/>")

	cdata := map[string]bool{} // the declared types: false for the values expat collapses
	for _, d := range p.attlists[name] {
		if _, ok := cdata[d.name]; !ok {
			cdata[d.name] = d.cdata
		}
	}
	scope := map[string]string{}
	bind := func(an, v string) error {
		prefix, local, ok := strings.Cut(an, ":")
		switch {
		case an == "xmlns":
			scope[""] = v
		case ok && prefix == "xmlns":
			p.pos = start
			switch {
			case local == "xmlns":
				return p.fail("reserved prefix (xmlns) must not be declared or undeclared", "")
			case local == "xml" && v != xmlNamespace:
				return p.fail("reserved prefix (xml) must not be undeclared or bound to another namespace name", "")
			case local != "xml" && v == xmlNamespace:
				return p.fail("prefix must not be bound to one of the reserved namespace names", "")
			case v == "":
				return p.fail("must not undeclare prefix", an)
			}
			scope[local] = v
		}
		return nil
	}
	seen := map[string]bool{}
	for i := range attrs {
		a := &attrs[i]
		if seen[a.name] {
			p.pos = a.at
			return p.fail("duplicate attribute", a.name)
		}
		seen[a.name] = true
		var b strings.Builder
		p.pos = a.vstart
		if err := p.attText(p.src[:a.vstart+len(a.value)], &b); err != nil {
			return err
		}
		a.value = b.String()
		if c, ok := cdata[a.name]; ok && !c {
			a.value = collapseSpaces(a.value)
		}
		if err := bind(a.name, a.value); err != nil {
			return err
		}
	}
	for _, d := range p.attlists[name] {
		if d.hasDef && !seen[d.name] {
			seen[d.name] = true
			attrs = append(attrs, rawAttr{name: d.name, value: d.def})
			if err := bind(d.name, d.def); err != nil {
				return err
			}
		}
	}
	p.ns = append(p.ns, scope)
	expanded := func(qname string, element bool) (string, error) {
		prefix, local, ok := strings.Cut(qname, ":")
		if !ok {
			if !element {
				return qname, nil
			}
			prefix, local = "", qname
		}
		if prefix == "xml" {
			return "{" + xmlNamespace + "}" + local, nil
		}
		for i := len(p.ns) - 1; i >= 0; i-- {
			if uri, bound := p.ns[i][prefix]; bound {
				if uri == "" {
					return local, nil
				}
				return "{" + uri + "}" + local, nil
			}
		}
		if !ok {
			return local, nil
		}
		p.pos = start
		return "", p.fail("unbound prefix", qname)
	}
	e := &Element{Attrs: map[string]string{}}
	for _, a := range attrs {
		if a.name == "xmlns" || strings.HasPrefix(a.name, "xmlns:") {
			continue
		}
		an, err := expanded(a.name, false)
		if err != nil {
			return err
		}
		if _, dup := e.Attrs[an]; dup {
			p.pos = start
			return p.fail("duplicate attribute", an)
		}
		e.Attrs[an] = a.value
	}
	if e.Tag, err = expanded(name, true); err != nil {
		return err
	}
	p.pos = after + 1
	if empty {
		p.pos++
	}
	if n := len(p.stack); n > 0 {
		p.stack[n-1].el.Children = append(p.stack[n-1].el.Children, e)
	} else {
		p.root = e
	}
	if empty {
		p.ns = p.ns[:len(p.ns)-1]
		p.setText(e, true)
		return nil
	}
	p.stack = append(p.stack, &openElement{el: e, name: name, at: at})
	p.setText(e, false)
	return nil
}

// attToken checks the text of an attribute value in src from pos as expat's tokenizer does: no
// '<', references well-formed, characters XML allows. atEOF: src is the rest of the text, which
// ends before the closing quote.
func (p *xmlParser) attToken(src string, pos int, atEOF bool) error {
	for i := pos; i < len(src); {
		r, w := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == '<':
			p.pos = i
			return p.invalid("'<' in an attribute value")
		case r == '&':
			n := refLength(src[i:])
			if n == 0 {
				if atEOF && !strings.Contains(src[i:], ";") {
					return nil // the text ends in the reference: unclosed
				}
				p.pos = i
				return p.invalid("a malformed reference in an attribute value")
			}
			i += n
			continue
		case !isXMLChar(r):
			p.pos = i
			return p.invalid(fmt.Sprintf("character %U is not allowed in XML", r))
		}
		i += w
	}
	return nil
}

// refLength is the length of the reference (&name;, &#N; or &#xH;) s starts with, or 0.
func refLength(s string) int {
	end := strings.IndexByte(s, ';')
	if end < 2 {
		return 0
	}
	body := s[1:end]
	if strings.HasPrefix(body, "#x") {
		body = body[2:]
		if body == "" || strings.IndexFunc(body, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') }) >= 0 {
			return 0
		}
	} else if strings.HasPrefix(body, "#") {
		body = body[1:]
		if body == "" || strings.IndexFunc(body, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return 0
		}
	} else if !validName(body) {
		return 0
	}
	return end + 1
}

func collapseSpaces(v string) string {
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == ' ' }), " ")
}

func (p *xmlParser) endTag() error {
	start := p.pos
	p.pos += 2
	if r, _ := p.peek(); !isNameStart(r) {
		if r < 0 {
			p.pos = start
			return p.fail("unclosed token", "")
		}
		return p.invalid("")
	}
	name, err := p.name(qName)
	if err != nil {
		return err
	}
	p.space()
	if !p.has(">") {
		if p.eof() {
			p.pos = start
			return p.fail("unclosed token", "")
		}
		return p.invalid("")
	}
	top := p.stack[len(p.stack)-1]
	if name != top.name {
		p.pos = start + 2
		line := 1 + strings.Count(p.doc[:min(top.at, len(p.doc))], "\n")
		return p.fail("mismatched tag", fmt.Sprintf("</%s> closes <%s> of line %d", name, top.name, line))
	}
	p.pos++
	p.stack = p.stack[:len(p.stack)-1]
	p.ns = p.ns[:len(p.ns)-1]
	if len(p.stack) == 0 {
		p.flush()
		p.owner = nil // what follows the root is no one's tail
		return nil
	}
	p.setText(top.el, true)
	return nil
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
