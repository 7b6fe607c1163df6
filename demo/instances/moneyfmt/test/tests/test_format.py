from decimal import Decimal

import pytest

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


@pytest.mark.parametrize(
    "amount,expected",
    [(0.125, "$0.13"), (1.005, "$1.01"), (2.675, "$2.68"), (1234.565, "$1,234.57")],
)
def test_half_cent_rounds_up(amount, expected):
    assert format_money(amount) == expected


def test_negative_half_cent_rounds_away_from_zero():
    assert format_money(-2.675) == "-$2.68"
