import pytest

from gymcalc import parse_temperature, to_celsius, to_fahrenheit


def test_to_celsius():
    assert to_celsius(212) == 100


def test_to_fahrenheit():
    assert to_fahrenheit(100) == 212


def test_parse_celsius():
    assert parse_temperature("21C") == 21


def test_parse_unknown_unit():
    with pytest.raises(ValueError):
        parse_temperature("21K")
