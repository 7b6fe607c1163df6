"""format_money: amounts with two decimals, grouped thousands and a symbol."""


def format_money(amount, symbol="$"):
    """Format `amount` (int, float, Decimal or str) like "-$1,234.50".

    Half a cent is rounded away from zero.
    """
    text = "%.2f" % abs(float(amount))
    whole, cents = text.split(".")
    sign = "-" if float(amount) < 0 and text != "0.00" else ""
    return "%s%s%s.%s" % (sign, symbol, _group(whole), cents)


def _group(digits):
    """Insert a comma between groups of three digits: "1234567" -> "1,234,567"."""
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return ",".join(groups)
