import tally


def test_count_empty():
    assert tally.count([]) == {}


def test_count_letters():
    assert tally.count("abca") == {"a": 2, "b": 1, "c": 1}
