"""addict: dictionaries whose items read like attributes."""


def merge(base, update):
    """Return a new dict with base's items, updated by update's (update wins)."""
    out = dict(base)
    out.update(update)
    return out


def deep_get(data, path, default=None):
    """Follow a dotted path ("a.b.c") through nested dicts; default when a key is missing."""
    node = data
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node
