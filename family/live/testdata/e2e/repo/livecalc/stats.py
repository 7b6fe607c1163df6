"""Statistics over lists of numbers."""


def total(values):
    """The sum of values."""
    result = 0
    for v in values:
        result += v
    return result


def mean(values):
    """The arithmetic mean of values."""
    return total(values) / len(values)


def median(values):
    """The middle value of the sorted values."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
