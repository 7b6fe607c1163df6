"""parse_config: INI-style text to {section: {key: value}}."""

import re

DEFAULT_SECTION = "DEFAULT"

_SECTION = re.compile(r"^\[(?P<name>[^\]]+)\]$")

COMMENT_PREFIXES = ("#", ";")

# An inline comment in a value starts with whitespace and a comment prefix:
# "port = 80  ; http" is "80", while "color = #ff0000" keeps its value.
_INLINE_COMMENT = re.compile(r"\s+[#;].*$")


class ConfigError(ValueError):
    """The text is not valid configuration; the message names the line."""


def parse_config(text):
    config = {}
    section = config.setdefault(DEFAULT_SECTION, {})
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(COMMENT_PREFIXES):
            continue
        match = _SECTION.match(line)
        if match:
            section = config.setdefault(match.group("name").strip(), {})
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ConfigError("line %d: expected 'key = value', got %r" % (number, line))
        section[key.strip()] = _INLINE_COMMENT.sub("", value.strip())
    return config
