import addict


def test_merge_update_wins():
    assert addict.merge({"a": 1}, {"a": 2}) == {"a": 2}


def test_merge_keeps_base():
    assert addict.merge({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
