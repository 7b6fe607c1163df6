"""URL slugs from titles."""

from slugkit.slug import slugify

__all__ = ["slugify"]
__version__ = "0.1.0"
