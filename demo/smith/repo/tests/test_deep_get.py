import addict


def test_deep_get_nested():
    assert addict.deep_get({"a": {"b": 3}}, "a.b") == 3


def test_deep_get_missing():
    assert addict.deep_get({"a": {}}, "a.b", default=7) == 7
