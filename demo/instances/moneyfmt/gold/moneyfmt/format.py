"""format_money: amounts with two decimals, grouped thousands and a symbol."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def format_money(amount, symbol="$"):
    """Format `amount` (int, float, Decimal or str) like "-$1,234.50".

    Half a cent is rounded away from zero.
    """
    # str() first: Decimal(2.675) would be the binary value 2.67499999...
    value = Decimal(str(amount)).quantize(CENT, rounding=ROUND_HALF_UP)
    whole, cents = str(abs(value)).split(".")
    sign = "-" if value < 0 else ""
    return "%s%s%s.%s" % (sign, symbol, _group(whole), cents)


def _group(digits):
    """Insert a comma between groups of three digits: "1234567" -> "1,234,567"."""
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return ",".join(groups)
