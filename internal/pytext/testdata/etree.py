"""Writes what Python's xml.etree.ElementTree.fromstring (expat) makes of XML inputs, one JSON
object a line: {"xml": input, "tree": [tag, attrib, text, tail, child, ...] or null,
"error": ParseError's message or null}.

Ours (stdlib only), for etree_test.go's differential test of ParseXML. The inputs are the
hand-written CASES and documents generated from JUnit XML reports as test runners write them
(Surefire, Gradle, pytest, testthat, go-junit-report), mutated the way logs mangle them
(truncated, cut, joined, with garbage, control characters, stray markup and entities), random
documents with document type declarations, random strings of XML's tokens, and random
well-formed documents (for their trees: text, tails, attribute values, namespaces). testdata/etree.jsonl was written with
CPython 3.11 (expat 2.5.0):

    python3 internal/pytext/testdata/etree.py --generated 2500 > internal/pytext/testdata/etree.jsonl

and a larger sample for a check run by hand:

    python3 internal/pytext/testdata/etree.py --generated 200000 --seed 7 > /tmp/etree-big.jsonl
    go test ./internal/pytext -run TestParseXMLAgainstExpat -args -expat-cases /tmp/etree-big.jsonl
"""

import argparse
import json
import random
import sys
import xml.etree.ElementTree as ET

CASES = [
    # declarations, BOM, prolog
    "", "   ", "<!--c-->", '<?xml version="1.0"?>', "<a/>", "\ufeff<a/>", "\ufeff\ufeff<a/>",
    " \ufeff<a/>", '<?xml version="1.0" encoding="ISO-8859-1"?><a>é</a>',
    '<?xml version="1.0" encoding="UTF-16"?><a/>', '<?xml version="1.0" encoding="bogus"?><a/>',
    '<?xml version="1.0" encodin="x"?><a/>', "<?xml version=1.0?><a/>", "<?xml?><a/>",
    "<?xml ?><a/>", '<?xml version="2.0"?><a/>', '<?xml version=""?><a/>',
    '<?xml version="1 0"?><a/>', '<?xml version="1.0" standalone="yes"?><a/>',
    '<?xml version="1.0" standalone="maybe"?><a/>',
    '<?xml version="1.0" standalone="yes" encoding="x"?><a/>',
    '<?xml version="1.0"  encoding="UTF-8"  ?><a/>', '<?xml version = "1.0"?><a/>',
    '<?xml version="1.0"encoding="x"?><a/>', '<?xml encoding="x"?><a/>',
    '<?xml version="1.0" encoding="1x"?><a/>', '<?xml version="1.0" encoding=""?><a/>',
    "<?xml version='1.0'?><a/>", '<?xml\tversion="1.0"?><a/>', '<?xml version="1.0"? ><a/>',
    '<?xml version="1.0"? ><a/>?>', '\n<?xml version="1.0"?><a/>', "<?xml-stylesheet x?><a/>",
    "<?xmlfoo?><a/>", '<?XML version="1.0"?><a/>', '<?xml version="1.0" foo="x"?><a/>',
    '<?xml version="1:0"?><a/>', '<?xml version="1.0" encoding="utf-8" standalone="no" ?><a/>',
    '<?xml version="1.0"?><?xml version="1.0"?><a/>', '<a/><?xml version="1.0"?>',
    # structure
    "<a/><b/>", "<a/>x", "x<a/>", "<a/>  <!--c--> <?p?> ", "<a/> <!-- c --> x", "<a",
    "<a>", '<a x="1', "<a><b></a>", "</a>", "<a/></a>", "<a><b></b></a></a>", "<a>x</a>]]>",
    "<a/>&amp;", " \n<a/> \n", "<a>x</a>\n", "<a><b>t</b>u<c/>v</a>", "<a>x<!--c-->y<b/>z<?pi?>w</a>",
    "<a><!-- a -- b --></a>", "<a><!-- a ---></a>", "<a><!----></a>", "<a><!---></a>",
    "<a><?xml x?></a>", "<a><?XmL x?></a>", "<a><?x\n?></a>", "<a><?x?y?></a>", "<a><?x y", "<a><!--",
    '<a x = "1" />', '<a x="1" / >', "< a/>", "<a></ a>", "<a></a >", "<a></a\n>",
    # attributes
    '<a x="1" x="2"/>', '<a x="1"y="2"/>', '<a b="<"/>', '<a b=">"/>', '<a b="&"/>', "<a b='\"'/>",
    '<a x="a\tb\nc\r\nd\re"/>', '<a x="a&#9;b&#10;c&#13;d"/>', '<a x="&e;"/>', "<a x=1/>", "<a x/>",
    '<a x="1" x:y="2"/>', '<a\n x="1"\n\ty="2"/>', '<a x="&amp;&lt;&gt;&apos;&quot;"/>',
    '<a x="&#x20;&#32;"/>', '<a x="\u00e9\u4e2d\U0001f600"/>', '<a x="\x01"/>', '<a x="a\x7fb"/>',
    # text, references, CDATA
    "<a>&nbsp;</a>", "<a>&amp;&lt;&gt;&apos;&quot;</a>", "<a>&#x;</a>", "<a>&#xD800;</a>",
    "<a>&#xFFFE;</a>", "<a>&#65;&#x42;&#X43;</a>", "<a>&#1;</a>", "<a>&#0;</a>", "<a>&#x10FFFF;</a>",
    "<a>&#x110000;</a>", "<a>&#99999999999;</a>", "<a>&#32</a>", "<a>& x</a>", "<a>&#x20;&#x0020;&#00065;</a>",
    "<a>\ufffe</a>", "<a>\x7f\x85\u2028</a>", "<a>\U0001F600</a>", "<a>\x00</a>", "<a>\x1b[31m</a>",
    "<a>\t</a>", "<r>a\r\nb\rc</r>", "<a><![CDATA[<x>]]></a>", "<a>]]></a>", "<a><![CDATA[x]]y]]></a>",
    "<a><![cdata[x]]></a>", "<a><![CDATA[x</a>", "<a>x]]y</a>", "<a>x]y]]</a>", "<a><![CDATA[]]></a>",
    "<a><![CDATA[a\r\nb]]></a>", "<a>x<![CDATA[y]]>z</a>",
    # names
    "<\U0001F600/>", "<a\U0001F600/>", "<é/>", "<a-b.c_d/>", "<_a/>", "<1a/>", "<-a/>", "<a·b/>",
    "<a:b:c xmlns:a=\"u\"/>", "<:a/>", "<a:/>", '<a :b="1"/>', '<a b:="1"/>',
    # namespaces
    "<a:b/>", '<a xmlns:a="u"><a:b a:c="1" d="2"/></a>', '<a xmlns="u"><b c="1"/></a>',
    '<a xml:lang="en"/>', '<a:b xmlns:a="u"/>', '<a xmlns:p="u" xmlns:q="u" p:x="1" q:x="2"/>',
    '<a xmlns:p="" />', '<p:a xmlns:p="u" xmlns="v"><b/></p:a>',
    '<a xmlns:xml="http://www.w3.org/XML/1998/namespace"/>', '<a xmlns:xml="u"/>',
    '<a xmlns:p="http://www.w3.org/XML/1998/namespace"/>', '<a xmlns:xmlns="u"/>', "<xmlns:a/>",
    '<a xmlns="u"><b xmlns=""><c/></b></a>', '<a xmlns:p="u"><p:b/></a><!-- -->',
    '<p:a xmlns:p="u"></p:a>', '<p:a xmlns:p="u"></a>', '<a xmlns:p="u" p:x="1" x="2"/>',
    # document type declarations
    "<!DOCTYPE r [<!ENTITY e \"v\">]><r>&e;</r>", '<!DOCTYPE r [<!ENTITY e "<b>x</b>">]><r>&e;</r>',
    '<!DOCTYPE r [<!ATTLIST r x CDATA "1">]><r/>', '<!DOCTYPE r SYSTEM "foo.dtd"><r>&e;</r>',
    '<!DOCTYPE r SYSTEM "foo.dtd"><r/>', '<!DOCTYPE r [<!ENTITY e SYSTEM "x.txt">]><r>&e;</r>',
    '<!DOCTYPE r [<!ENTITY % p "x">]><r/>', '<!DOCTYPE a [<!ENTITY e "v">]><a x="&e;"/>',
    '<!DOCTYPE a [<!ENTITY e "<v">]><a x="&e;"/>', '<!DOCTYPE a [<!ENTITY e "a\tb">]><a x="&e;">&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "&e;">]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY e "<b>">]><a>&e;</b></a>',
    "<!DOCTYPE a [<!ENTITY % p \"<!ENTITY e 'v'>\"> %p;]><a>&e;</a>",
    '<!DOCTYPE a [<!ENTITY % p "x"> %p; <!ENTITY e "v">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY % p "x"> %p;]><a>&e;</a>', "<!DOCTYPE a [%p;]><a>&e;</a>",
    '<!DOCTYPE a SYSTEM "x" [<!ENTITY e "v">]><a>&e;</a>',
    '<!DOCTYPE a [<!ATTLIST a x NMTOKENS "  a   b  ">]><a/>',
    '<!DOCTYPE a [<!ATTLIST a x NMTOKENS #IMPLIED>]><a x="  a   b  "/>',
    '<!DOCTYPE a [<!ATTLIST a x CDATA #IMPLIED>]><a x="  a   b  "/>',
    '<!DOCTYPE a [<!ATTLIST a x CDATA #FIXED "1">]><a x="2"/>',
    '<!DOCTYPE a [<!ATTLIST a xmlns CDATA "u">]><a/>', "<!DOCTYPE a [<!ELEMENT a (b)*>]><a/>",
    "<!DOCTYPE a [<!ELEMENT a bogus>]><a/>", '<!DOCTYPE a [<!NOTATION n SYSTEM "x">]><a/>',
    "<!DOCTYPE a><!DOCTYPE a><a/>", "<a/><!DOCTYPE a>", '<!DOCTYPE a [<!ENTITY e "v"> %p;]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY % p "x"> %p;]><a x="&e;"/>', '<!DOCTYPE a SYSTEM "u"><a x="&e;"/>',
    '<!DOCTYPE a [<!ENTITY e SYSTEM "x">]><a x="&e;"/>', '<!DOCTYPE a [<!ENTITY e "<b>">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "x</a>">]><a>&e;', '<!DOCTYPE a [<!ENTITY e "&#38;amp;">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "&#38;#60;">]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY e "&#60;b/>">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "&lt;b/>">]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY e "a\r\nb">]><a x="&e;">&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "v"><!ENTITY e "w">]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY amp "x">]><a>&amp;</a>',
    '<!DOCTYPE a [<!ENTITY e "v">]><a/>&e;', '<!DOCTYPE a [<!ENTITY e "%p;">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "&f;"><!ENTITY f "v">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "&undefined;">]><a/>', '<!DOCTYPE a [<!ENTITY e "&undefined;">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "<">]><a/>', '<!DOCTYPE a [<!ENTITY e "<">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e PUBLIC "p" "s">]><a/>', '<!DOCTYPE a [<!ENTITY e SYSTEM "s" NDATA n>]><a/>',
    '<!DOCTYPE a [<!ENTITY e SYSTEM "s" NDATA n>]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e SYSTEM "s" NDATA n>]><a x="&e;"/>',
    '<!DOCTYPE a [<!ATTLIST a x (p|q) "p" y ID #REQUIRED z CDATA #IMPLIED>]><a/>',
    '<!DOCTYPE a [<!ATTLIST a x CDATA "1"><!ATTLIST a x CDATA "2">]><a/>',
    '<!DOCTYPE a [<!ATTLIST a x CDATA "&#10;&e;">]><a/>', '<!DOCTYPE a [<!ATTLIST a x CDATA "<">]><a/>',
    "<!DOCTYPE a [<!ELEMENT a (#PCDATA|b)*><!ELEMENT b EMPTY><!ELEMENT c ANY><!ELEMENT d (e,(f|g)+,h?)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT d (e,f|g)>]><a/>", "<!DOCTYPE a [<!ELEMENT d (#PCDATA|b)>]><a/>",
    "<!DOCTYPE a [<!ELEMENT d (#PCDATA)>]><a/>", "<!DOCTYPE a [<!ELEMENT d (#PCDATA)*>]><a/>",
    "<!DOCTYPE a [<!-- c --><?pi x?>]><a/>", '<!DOCTYPE a PUBLIC "-//x//y" "z.dtd"><a/>',
    '<!DOCTYPE a PUBLIC "{" "z.dtd"><a/>', "<!DOCTYPE a SYSTEM><a/>", "<!DOCTYPE a [ ] ><a/>",
    "<!DOCTYPE a []x><a/>", "<!DOCTYPE a:b><a/>", "<!doctype a><a/>", "<!DOCTYPE a", "<!DOCTYPE a [",
    '<!DOCTYPE a [<!ENTITY e SYSTEM "x">]><a>t&e;u</a>', '<!DOCTYPE a [<!ENTITY e "v">]><a>&e</a>',
    '<!DOCTYPE a [<!ATTLIST a x ID "  a  ">]><a x=" b  c "/>', '<!DOCTYPE a [<!ATTLIST a x CDATA #REQUIRED>]><a/>',
    '<!DOCTYPE a [<!ATTLIST b x CDATA "1">]><a><b/><b x="2"/></a>',
    '<!DOCTYPE a [<!ATTLIST p:b x CDATA "1">]><a xmlns:p="u"><p:b/><q:b xmlns:q="u"/></a>',
    '<!DOCTYPE a [<!ATTLIST a p:x CDATA "1">]><a xmlns:p="u"/>', '<!DOCTYPE a [<!ATTLIST a p:x CDATA "1">]><a/>',
    '<!DOCTYPE a [<!ENTITY % p "x"> %p; <!ATTLIST a x CDATA "1">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "v"><!ATTLIST a x CDATA "&e;">]><a/>',
    '<!DOCTYPE a [<!ATTLIST a x CDATA "&e;"><!ENTITY e "v">]><a/>',
    '<?xml version="1.0" standalone="yes"?><!DOCTYPE a [<!ENTITY % p "x"> %p; <!ENTITY e "v">]><a>&e;</a>',
    '<?xml version="1.0" standalone="no"?><!DOCTYPE a SYSTEM "x"><a>&e;</a>',
    '<?xml version="1.0" standalone="yes"?><!DOCTYPE a SYSTEM "x"><a x="&e;"/>',
    '<!DOCTYPE a [<!ENTITY e "v" >]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY e"v">]><a/>',
    "<!DOCTYPE a [<!ENTITY e 'v\"'>]><a>&e;</a>", '<!DOCTYPE a [<!ENTITY  %  p "x">]><a/>',
    '<!DOCTYPE a [<!ENTITY %p "x">]><a/>', "<!DOCTYPE a [ %p; ]><a/>", "<!DOCTYPE a [ % p; ]><a/>",
    '<!DOCTYPE a [<!ENTITY e "&#x26;#x3C;b/>">]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY e "&#1;">]><a/>',
    '<!DOCTYPE a [<!ENTITY e "&unknown">]><a/>', '<!DOCTYPE a [<!ENTITY e "&#38;">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "<b>x</b>y">]><a>t&e;u<c/></a>', '<!DOCTYPE a [<!ENTITY e "]]>">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "<![CDATA[x]]>">]><a>&e;</a>', '<!DOCTYPE a [<!ENTITY e "<?xml x?>">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY e "<b xmlns=\'u\'/>">]><a>&e;</a>',
    '<!DOCTYPE a [<!ENTITY a "&b;&b;"><!ENTITY b "&c;&c;"><!ENTITY c "xy">]><a x="&a;">&a;</a>',
    # JUnit-like documents
    '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="com.acme.CalcTest" tests="2" failures="1">\n'
    '  <testcase name="adds" classname="com.acme.CalcTest" time="0.01"/>\n'
    '  <testcase name="divides" classname="com.acme.CalcTest" time="0.02">\n'
    '    <failure message="expected: &lt;1&gt; but was: &lt;0&gt;" type="org.opentest4j.AssertionFailedError">'
    "<![CDATA[org.opentest4j.AssertionFailedError: expected: <1> but was: <0>\n\tat Calc.divides(Calc.java:21)]]></failure>\n"
    "  </testcase>\n  <system-out><![CDATA[hello\r\n]]></system-out>\n</testsuite>\n",
]

SEEDS = [
    # Surefire
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report.xsd" version="3.0" name="com.acme.CalcTest" time="0.05" tests="3" errors="0" skipped="1" failures="1">\n'
    '  <properties>\n    <property name="java.version" value="17.0.2"/>\n    <property name="line.separator" value="&#10;"/>\n  </properties>\n'
    '  <testcase name="adds" classname="com.acme.CalcTest" time="0.001"/>\n'
    '  <testcase name="divides" classname="com.acme.CalcTest" time="0.002">\n'
    '    <failure message="expected: &lt;1&gt; but was: &lt;0&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <1> but was: <0>\n'
    "\tat com.acme.CalcTest.divides(CalcTest.java:21)\n]]></failure>\n"
    "    <system-out><![CDATA[Größe 42\n]]></system-out>\n  </testcase>\n"
    '  <testcase name="skips" classname="com.acme.CalcTest" time="0"><skipped message="disabled"/></testcase>\n'
    "</testsuite>\n",
    # Gradle
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<testsuite name="org.acme.ParserTest" tests="2" skipped="0" failures="0" errors="1" timestamp="2024-01-01T00:00:00" hostname="ci" time="0.3">\n'
    "  <properties/>\n"
    '  <testcase name="parses numbers()" classname="org.acme.ParserTest" time="0.1"/>\n'
    '  <testcase name="parses [strings] &quot;quoted&quot;" classname="org.acme.ParserTest" time="0.2">\n'
    '    <error message="java.lang.NullPointerException" type="java.lang.NullPointerException">java.lang.NullPointerException\n'
    "\tat org.acme.Parser.parse(Parser.java:10)\n</error>\n  </testcase>\n"
    "  <system-out><![CDATA[]]></system-out>\n  <system-err><![CDATA[\x1b[33mWARN\x1b[0m]]></system-err>\n</testsuite>\n",
    # pytest --junitxml
    '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" skipped="1" tests="3" time="0.1" timestamp="2024-01-01T00:00:00.000000" hostname="h">'
    '<testcase classname="tests.test_a" name="test_ok" time="0.001" />'
    '<testcase classname="tests.test_a" name="test_bad[x-1]" time="0.002"><failure message="assert 1 == 2">def test_bad():\n&gt;       assert 1 == 2\nE       assert 1 == 2</failure></testcase>'
    '<testcase classname="tests.test_a" name="test_skip" time="0.000"><skipped type="pytest.skip" message="no net">/t.py:3: no net</skipped></testcase>'
    "</testsuite></testsuites>",
    # testthat
    '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="testthat" tests="2" skipped="0" failures="1" errors="0" time="0.1">\n'
    '  <testsuite name="math" timestamp="2024-01-01T00:00:00Z" hostname="h" tests="2" skipped="0" failures="1" errors="0" time="0.1">\n'
    '    <testcase time="0.01" classname="math" name="adds"/>\n'
    '    <testcase time="0.02" classname="math" name="divides"><failure type="failure" message="1 not equal to 2">Failure (test-math.R:5:3)</failure></testcase>\n'
    "  </testsuite>\n</testsuites>\n",
    # go-junit-report
    '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="2" failures="1">\n\t<testsuite name="example.com/pkg" tests="2" failures="1" errors="0" id="0" hostname="h" time="0.003" timestamp="2024-01-01T00:00:00Z">\n'
    '\t\t<properties>\n\t\t\t<property name="go.version" value="go1.22"></property>\n\t\t</properties>\n'
    '\t\t<testcase name="TestA" classname="example.com/pkg" time="0.001"></testcase>\n'
    '\t\t<testcase name="TestB/sub_case" classname="example.com/pkg" time="0.002">\n\t\t\t<failure message="Failed"><![CDATA[    b_test.go:9: got 1, want 2]]></failure>\n\t\t</testcase>\n'
    "\t</testsuite>\n</testsuites>\n",
]

SNIPPETS = [
    "<", ">", "&", '"', "'", "=", "/", "\t", "\n", "\r", "\r\n", " ", "\x00", "\x01", "\x08", "\x0b",
    "\x0c", "\x1b", "\x7f", "\x85", "é", "中", "\U0001f600", "\ufeff", "\ufffe", "\u2028", "&amp;",
    "&#10;", "&#x9;", "&#0;", "&nbsp;", "&e;", "<!--", "-->", "--", "]]>", "<![CDATA[", "?>", "<?",
    '<?xml version="1.0"?>', " x=\"1\"", 'x="2"', ' name="dup"', "<b>", "</b>", "<b/>", "</testcase>",
    "<testcase>", "</testsuite>", "<!DOCTYPE x>", "xmlns:p=\"u\"", " p:x=\"1\"", " xmlns=\"u\"", ":",
    "[INFO] Building jar\n", "Tests run: 3, Failures: 1\n", "\x1b[31mFAILED\x1b[0m",
]


def mutate(rng, doc):
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        op = rng.randrange(9)
        i = rng.randrange(len(doc) + 1)
        if op == 0:  # truncated
            doc = doc[:i]
        elif op == 1:  # cut out
            doc = doc[:i] + doc[i + rng.randrange(1, 40):]
        elif op in (2, 3, 4):  # something inserted
            doc = doc[:i] + rng.choice(SNIPPETS) + doc[i:]
        elif op == 5:  # a span repeated
            j = min(len(doc), i + rng.randrange(1, 60))
            doc = doc[:j] + doc[i:j] + doc[j:]
        elif op == 6:  # log text around it
            doc = rng.choice(["", "garbage ", "[INFO] x\n", "\n\n"]) + doc + rng.choice(["", "\n", "trailer\n", doc[:30]])
        elif op == 7:  # a duplicated attribute
            k = doc.find(' name="', i)
            if k >= 0:
                j = doc.find('"', k + 7)
                doc = doc[:j + 1] + doc[k:j + 1] + doc[j + 1:]
        else:  # one character replaced
            if i < len(doc):
                doc = doc[:i] + rng.choice(SNIPPETS)[:1] + doc[i + 1:]
    return doc


def random_text(rng):
    return "".join(rng.choice(["a", " ", "\n", "é", "&amp;", "&#60;", "&e;", "&f;", "<![CDATA[<&>]]>", "<!--c-->", "\t", "x"]) for _ in range(rng.randrange(4)))


def random_element(rng, depth, prefixes):
    name = rng.choice(["a", "b", "testcase", "p:c", "q:d", "é"])
    attrs = []
    for _ in range(rng.randrange(3)):
        an = rng.choice(["x", "y", "name", "p:x", "xmlns:p", "xmlns", "xml:lang"])
        av = rng.choice(["1", "", "a b", "&amp;", "&e;", "&f;", "\t\n", "&#10;", "u", "  v  w "])
        attrs.append(' %s="%s"' % (an, av))
    out = "<" + name + "".join(attrs)
    if depth == 0 or rng.random() < 0.3:
        return out + "/>" + random_text(rng)
    out += ">" + random_text(rng)
    for _ in range(rng.randrange(3)):
        out += random_element(rng, depth - 1, prefixes)
    return out + "</" + name + ">" + random_text(rng)


def random_document(rng):
    decls = [
        '<!ENTITY e "v">', '<!ENTITY f "<b>&e;</b>">', '<!ENTITY e "w">', '<!ENTITY f "x&#10;y">',
        '<!ENTITY % p "x">', "%p;", '<!ATTLIST a x CDATA "d">', '<!ATTLIST a y NMTOKEN " t ">',
        '<!ATTLIST testcase name CDATA #IMPLIED>', '<!ATTLIST a xmlns:p CDATA "u">', "<!ELEMENT a ANY>",
        '<!ENTITY g SYSTEM "g.xml">', "<!-- c -->",
    ]
    head = rng.choice(["", '<?xml version="1.0"?>', '<?xml version="1.0" standalone="yes"?>'])
    if rng.random() < 0.6:
        subset = "".join(rng.choice(decls) for _ in range(rng.randrange(4)))
        ext = rng.choice(["", ' SYSTEM "x.dtd"'])
        head += "<!DOCTYPE a%s [%s]>" % (ext, subset)
    body = random_element(rng, 3, [])
    if rng.random() < 0.5:
        body = '<a xmlns:p="u" xmlns:q="v">' + body + "</a>"
    doc = head + body
    return mutate(rng, doc) if rng.random() < 0.3 else doc


TOKENS = [
    "<", "</", ">", "/>", "a", "b", "p:", ":", "=", '"', "'", " ", "\n", "\t", "\r", "&", ";", "#",
    "#x", "x", "1", "41", "amp", "lt", "e", "<!--", "-->", "-", "<?", "?>", "<![CDATA[", "]]>", "]",
    "<!DOCTYPE a", "[", "<!ENTITY", "<!ATTLIST", "<!ELEMENT", "%", "SYSTEM", "PUBLIC", "CDATA", "NMTOKEN",
    "#IMPLIED", "#FIXED", "(", ")", "|", "*", "ANY", "xmlns", "xml", "é", "中", "\ufeff", "\x00", "\x0c",
    "version", "encoding", "standalone", "yes", "1.0", "UTF-8",
]


def random_tokens(rng):
    doc = "".join(rng.choice(TOKENS) for _ in range(rng.randrange(3, 30)))
    return rng.choice(["", "<a>", '<?xml version="1.0"?><a>', "<!DOCTYPE a [", "<?xml "]) + doc + rng.choice(["", "</a>", "]><a/>", "?><a/>"])


def wellformed_text(rng):
    parts = ["a", " ", "\n", "\r\n", "\r", "\t", "é", "中", "\U0001f600", "&amp;", "&lt;", "&gt;", "&quot;",
             "&apos;", "&#10;", "&#13;", "&#x9;", "&#xE9;", "<![CDATA[ <x> & ]]>", "<![CDATA[]]>", "<!-- c -->",
             "<?pi data?>", "]", "]]", ">", "'", '"', "x y", "\x7f", "\x85", "\u2028"]
    return "".join(rng.choice(parts) for _ in range(rng.randrange(5)))


def wellformed_value(rng):
    parts = ["v", " ", "\t", "\n", "\r\n", "&amp;", "&lt;", "&#10;", "&#9;", "&#13;", "&quot;", "'", ">", "é", "  "]
    return "".join(rng.choice(parts) for _ in range(rng.randrange(4)))


def wellformed_element(rng, depth):
    name = rng.choice(["a", "b", "testcase", "p:c", "é", "x-y.z", "_u"])
    attrs = rng.sample(["x", "name", "classname", "p:x", "xml:lang", "time", "é"], rng.randrange(4))
    out = "<" + name
    for an in attrs:
        q = rng.choice(['"', "'"])
        v = wellformed_value(rng).replace(q, "&quot;" if q == '"' else "&apos;")
        out += rng.choice([" ", "\n  ", "\t"]) + an + rng.choice(["=", " = "]) + q + v + q
    if depth == 0 or rng.random() < 0.3:
        return out + rng.choice(["/>", " />"]) + wellformed_text(rng)
    out += ">" + wellformed_text(rng)
    for _ in range(rng.randrange(4)):
        out += wellformed_element(rng, depth - 1)
    return out + "</" + name + rng.choice([">", " >"]) + wellformed_text(rng)


def wellformed_document(rng):
    head = rng.choice(["", '<?xml version="1.0" encoding="UTF-8"?>\n', "\ufeff", "<!-- report -->\n"])
    if rng.random() < 0.2:
        head += '<!DOCTYPE r [<!ENTITY e "v&#10;w"><!ATTLIST testcase time CDATA "0" x NMTOKEN " t  u ">]>'
    body = '<r xmlns:p="urn:p">' + wellformed_element(rng, 3) + "</r>"
    if "ENTITY e" in head:
        body = body.replace("&gt;", "&e;", 1)
    return head + body + rng.choice(["", "\n", " <!-- end -->\n"])


def tree(e):
    return [e.tag, e.attrib, e.text, e.tail] + [tree(c) for c in e]


def record(doc):
    try:
        return {"xml": doc, "tree": tree(ET.fromstring(doc)), "error": None}
    except ET.ParseError as err:
        return {"xml": doc, "tree": None, "error": str(err)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--generated", type=int, default=2500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    docs = list(CASES) + list(SEEDS)
    for n in range(args.generated):
        kind = n % 4
        if kind == 0:
            docs.append(mutate(rng, rng.choice(SEEDS)))
        elif kind == 1:
            docs.append(random_document(rng))
        elif kind == 2:
            docs.append(random_tokens(rng))
        else:
            docs.append(wellformed_document(rng))
    for doc in docs:
        sys.stdout.write(json.dumps(record(doc), ensure_ascii=False) + "\n")


main()
