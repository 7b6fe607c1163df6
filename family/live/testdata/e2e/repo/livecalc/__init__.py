"""livecalc: small statistics helpers (a test repository of swebench-run)."""

from .stats import mean, median, total

__all__ = ["mean", "median", "total"]
