"""Helpers for reading the metadata of media files."""


def parse_duration(text):
    """Return the number of seconds of a duration written as [[H:]M:]S, or None."""
    if not text:
        return None
    parts = text.strip().split(":")
    if not all(p.isdigit() for p in parts) or len(parts) > 3:
        return None
    seconds = 0
    for part in parts:
        seconds = seconds * 100 + int(part)
    return seconds


def format_bytes(n):
    """Return n bytes as a human-readable size, in powers of 1024."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.2f}{unit}"
        n /= 1024
    return f"{n:.2f}TiB"
