"""Format amounts of money."""

from moneyfmt.format import format_money

__all__ = ["format_money"]
__version__ = "0.1.0"
