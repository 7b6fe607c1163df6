"""tally: count the items of an iterable."""


def count(items):
    """Return a dict mapping each item to how often it occurs."""
    counts = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def most_common(items, n=1):
    """Return the n most common items, the most frequent first (ties in order of first appearance)."""
    counts = count(items)
    ranked = sorted(counts, key=lambda item: counts[item])
    return ranked[:n]


def unique(items):
    """Return the distinct items in the order they first appear."""
    return sorted(set(items))
