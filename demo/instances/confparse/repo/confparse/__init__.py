"""A small INI-style config parser."""

from confparse.parser import ConfigError, parse_config

__all__ = ["ConfigError", "parse_config"]
__version__ = "0.1.0"
