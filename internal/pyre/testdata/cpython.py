"""Writes cpython.json: what CPython's re returns for patterns with \\b and \\B, and with \\S and
\\W inside a class.

Ours (stdlib only). Run with the Python whose re the expectations come from (they were
generated with CPython 3.11):

    python3 internal/pyre/testdata/cpython.py > internal/pyre/testdata/cpython.json

Each pattern (Python syntax, flags written inline as the Go ports write them) has cases: a text
and what re returns on it. "search" is re.search's span of every group ([-1, -1] for a group
that took no part, null for no match) and "finditer" the spans of re.finditer's matches, in code
points. "finditer" is null where Python 3.7+'s rule for empty matches (one may start where the
previous match ended) gives other matches than Go's FindAll rule (it may not): pyre keeps Go's.
"""

import json
import re
import sys

# Texts with word characters inside and outside ASCII at the start, middle and end: letters with
# and without diacritics, CJK, digits of other scripts, numbers (No, Nl), '_', and the characters
# Python does NOT count as word characters: combining marks, connector punctuation other than
# '_', symbols and spaces.
TEXTS = [
    "", " ", "x", "ö", "testGröße", "Größe x", "öx", "xö", "x ö", "ö x", "ö.x", "naïve",
    "e\u0301", "e\u0301x", "x\u0301 y", "\u0301", "a_b", "_", "_ö", "a\u203fb", "\u203f",
    "x\u2040y", "漢字", "漢 字", "テストtest", "x٣", "٣", "٣ ٣", "x٣y", "Ⅻ", "²", "a²", "½x",
    "😀x", "x😀", "\u00a0x", "x\n", "\nö\n", "Größe\tx", "a-b", "ß", "ẞ", "İx", "x\x08y",
    "\u0915\u093f", "ǅa", "ʰx", "x\u00b7y", "\u3000ö",
]

GENERIC = [
    r"\b", r"\B", r"\b\w", r"\w\b", r"\B\w", r"\w\B", r"\b\w+\b", r"\w+\b", r"\b\w+",
    r"\B\w+\B", r"x\b", r"\bx", r"\Bx", r"x\B", r".\b.", r".\B.", r"(\w*)\b(\W*)",
    r"(?:\b|_)x", r"\b(?P<w>[^\W\d]+)\b", r"[\b]", r"^\b", r"\b\Z", r"(?m)\b$", r"(?i)\bSS?\b",
    r"(?i)\bgrösse\b|\bGRÖSSE\b|\bgröße\b", r"\b\d+\b", r"(?s)\b.\b", r"(a|\b)+?x",
    r"(?:\B|\b)y",
]

# \S and \W inside a class: Python's Unicode sets, negated within the class.
CLASSES = [
    r"[^\S\r\n]+", r"[\S]+", r"[\W]+", r"[^\W\d]+", r"[^\W_]+", r"[\w\W]", r"(?i)[^\W\d]+",
    r"[\S\s]+", r"[^\s\S]", r"x[\W\d]+",
]
CLASS_TEXTS = [
    "a \t\v\f\r\n\x1c\x1f\x85\u00a0\u2028\u3000b", "Größe ٣_x", "a\u0301\u203f-b", "漢字 1²",
    "\u00a0\u00a0x", "x\u2007\u200b y", "",
]

# The patterns of the ports that hold \b, as the Go source writes them (flags inline), with the
# harness line each is a port of.
REAL = {
    # SWE-rebench-V2 lib/agent/log_parsers.py (c71902a8) line 691, eval/logparse/native.go
    r"^\s*(?:test: )?(.+):\s+(\.|E\b|F\b|O\b)": [
        "test: foo: E", "test: foo: Eö", "foo: Fé", "foo: Oß", "foo: E٣", "foo: E_",
        "foo: E\u0301", "foo: E\u203f", "größe: F", "a: Eb: F",
    ],
    # line 1905 (tastyLine)
    r"^\s*(?P<name>.+?)\s*:\s*(?P<status>OK|PASS|FAIL|ERROR|SKIP|PENDING)(?:\b|\s|$)": [
        "  test: OK", "test: OKé", "test: OK (0.01s)", "Größe: OK", "test: FAILé: OK",
        "tëst: PASSß", "x: OK\u0301", "x: SKIP_: FAIL.",
    ],
    # line 1924 (hsPendingInline)
    r"^\s*(?P<name>.+?)\s*:\s*(?:SKIP|PENDING)\b.*$": [
        "a: SKIPé", "a: PENDING ö", "a: SKIPPED", "größe: SKIP", "a: SKIP\u0301x",
    ],
    # line 2098 (hspecV2Pending)
    r"(?i)^(.*?)\s+(?:PENDING|SKIPPED)\b.*$": [
        "foo PENDINGé", "foo pending ö", "ö skipped", "x SKIPPEDü y pending", "Größe Pending",
    ],
    # scripts/eval.py line 20 (timingSuffixes)
    r"(?i)\s+in\s+\d+(?:\.\d+)?\s+(?:msec|sec)\b": [
        "test in 29 msec", "test in 29 msecé", "test in ٢٩ sec", "in 1 secs",
        "x in 1.5 secö y in 2 sec", "größe in 3 SEC",
    ],
    # line 1367 (botanFailed)
    r"(?i)\bfailed\b": [
        "Failed", "ünfailed", "failedé", "x failed", "Failed٣", "FAILED_", "\u0301failed",
        "größe failed.", "漢failed",
    ],
    # line 1373 (cppV3Failed)
    r"(?i)\bFAILED\b|\bFAIL\b|\bFailure\b": [
        "FAILé", "éFAIL FAILURE", "test Größe failure", "a FAILED", "failures", "ß fail ß",
    ],
    # line 1374 (cppV3Skipped)
    r"(?i)\bSKIPPED\b": ["skippedö", "[ SKIPPED ]", "öSKIPPED", "x\u203fskipped"],
    # line 1375 (cppV3Passed)
    r"(?i)\bOK\b|\bPASSED\b": ["OKé", "ÖK", "ok", "Ok ö", "PASSEDß", "größe ok", "ok٣"],
    # line 1429 (ctestSummary)
    r"(?i)^\s*\d+/\d+\s+Test\s+#\d+:\s+(.+?)\s+\.+\s+(Passed|Failed|Skipped|Timeout)\b": [
        "1/2 Test #1: größe ....   Passed    0.01 sec", "1/2 Test #1: foo .... Passedé",
        "١/٢ Test #١: foo ... Failed", "3/3 Test #3: bar ..... Timeoutß   1 sec",
    ],
    # line 1604 (junitOpenTag)
    r"(?s)<testcase\b([^>]*)>": [
        '<testcase name="x">', '<testcaseé name="x">', '<testcase\nname="größe">',
        "<testcases>", "<testcase_x>", '<testcase\u0301 name="y">',
    ],
    # line 1528 (mvnFailure)
    r"^\[ERROR\]\s+(?P<class>[A-Za-z0-9_$.]+)\.(?P<method>[A-Za-z0-9_$.]+?)(?::(?P<line>\d+))?\b": [
        "[ERROR]   FooTest.testGröße:12 expected", "[ERROR] FooTest.testBar:12 expected",
        "[ERROR] Foo.testX:٣ x", "[ERROR] Foo.bar.baz » Größe", "[ERROR] GrößeTest.testA:3",
        "[ERROR] Foo.testÉ", "[ERROR] Foo.test_\u0301",
    ],
    # line 480 (rubyV1Status)
    r"^\s*(test[^A-Z\n]+?)\s+(PASS|PASS(?:ED)?|FAIL|FAILURE|ERROR|SKIP|SKIPPED)\b(?:\s*\([0-9.]+s\))?$": [
        "test_größe PASS", "test_x PASSé", "test_x FAIL (0.1s)", "test_x PASSED",
        "test_größe ERROR", "test_x SKIPé (0.1s)",
    ],
    # line 1749 (phpFail, cross_mark U+2A2F)
    "(?i)^\\s*(?:\u2a2f|x)\\s+(?P<name>.+?)\\s{2,}\\d+\\.?\\d*s\\b.*$": [
        "  \u2a2f it größe  0.01s", "x it works  1sé", "\u2a2f it works  0.5s ö",
        "X größe  2s", "x a  1.5sß  3s",
    ],
    # line 1759 (phpSkip)
    r"^\s*-\s+(?P<name>.+?)\s{2,}\d+\.?\d*s\b.*$": [
        "  - it größe  0.01s", "- it works  1sé", "- it  2s ö  3s",
    ],
    # line 1745 (phpPass)
    r"^\s*(?:✓|✔)\s+(?P<name>.+?)\s{2,}\d+\.?\d*s\b.*$": [
        "  ✓ it größe  0.01s", "✔ it works  1sé", "✓ it  2sö  3s",
    ],
    # line 1762 (phpInlineSkipped)
    r"(?i)\(skipped\)|\bSKIPPED\b": ["skippedö", "it (skipped)", "öskipped", "x skipped ö"],
    # SWE-bench harness/log_parsers/javascript.py parse_log_chart_js, eval/logparse/javascript.go
    r"(?m)Chrome\s[\d\.]+[^\S\r\n]\(.+?\)[^\S\r\n](.*)FAILED$": [
        "Chrome 120.0 (Linux) a test FAILED", "Chrome 120.0\u00a0(Linux)\u00a0a test FAILED",
        "Chrome 1.2\v(x)\vy FAILED", "Chrome 1.2\r(x) y FAILED\nChrome 1.3 (x) z FAILED",
        "Chrome 1.2 (x)\u2003größe FAILED",
    ],
}


def spans(m):
    return [list(m.span(g)) for g in range(m.re.groups + 1)]


def finditer(rx, text):
    """re.finditer's spans, or None where Go's empty-match rule would give others."""
    out = []
    for m in rx.finditer(text):
        if out and m.start() == m.end() == out[-1][1]:
            return None  # an empty match right after a match: Go leaves it out
        out.append(list(m.span()))
    return out


def case(rx, text):
    m = rx.search(text)
    return {"text": text, "search": spans(m) if m else None, "finditer": finditer(rx, text)}


def group(pattern, texts):
    rx = re.compile(pattern)
    return {"pattern": pattern, "cases": [case(rx, t) for t in texts]}


def main():
    groups = [group(p, TEXTS) for p in GENERIC]
    groups += [group(p, CLASS_TEXTS + TEXTS[:20]) for p in CLASSES]
    groups += [group(p, texts + TEXTS[:12]) for p, texts in REAL.items()]
    origin = "CPython %s re (internal/pyre/testdata/cpython.py)" % sys.version.split()[0]
    sys.stdout.write('{"origin": %s, "patterns": [\n' % json.dumps(origin))
    sys.stdout.write(",\n".join(json.dumps(g, ensure_ascii=False) for g in groups))
    sys.stdout.write("\n]}\n")


main()
