from ytdl import utils


def test_format_bytes():
    assert utils.format_bytes(1536) == "1.50KiB"


def test_parse_duration_empty():
    assert utils.parse_duration("") is None
