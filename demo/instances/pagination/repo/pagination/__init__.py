"""Split a sequence into numbered pages."""

from pagination.pages import PageNotFound, Paginator

__all__ = ["PageNotFound", "Paginator"]
__version__ = "0.1.0"
