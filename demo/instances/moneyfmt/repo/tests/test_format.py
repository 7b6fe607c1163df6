from decimal import Decimal

from moneyfmt import format_money


def test_whole_amount():
    assert format_money(12) == "$12.00"


def test_thousands_separator():
    assert format_money(1234567.5) == "$1,234,567.50"


def test_negative_amount():
    assert format_money(-3) == "-$3.00"


def test_other_currency_symbol():
    assert format_money(9.99, symbol="€") == "€9.99"


def test_decimal_input():
    assert format_money(Decimal("19.90")) == "$19.90"
