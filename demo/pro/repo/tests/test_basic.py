import calc


def test_version():
    assert calc.VERSION == "1.0"
