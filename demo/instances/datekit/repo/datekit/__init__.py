"""Strict ISO 8601 date parsing."""

from datekit.parse import InvalidDate, parse_date

__all__ = ["InvalidDate", "parse_date"]
__version__ = "0.1.0"
