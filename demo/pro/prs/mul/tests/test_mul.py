import calc


def test_mul():
    assert calc.mul(2, 3) == 6
