"""slugify: titles to lower-case ASCII slugs."""

import re

_NOT_SLUG = re.compile(r"[^a-z0-9]")


def slugify(title, separator="-", max_length=None):
    """Lower-case ASCII letters and digits, joined by `separator`.

    `max_length` cuts the slug, never in the middle of a word when it can be avoided.
    """
    slug = _NOT_SLUG.sub(separator, title.lower())
    if max_length is not None and len(slug) > max_length:
        cut = slug.rfind(separator, 0, max_length + 1)
        slug = slug[:cut] if cut > 0 else slug[:max_length]
    return slug
