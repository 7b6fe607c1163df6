"""parse_date: YYYY-MM-DD strings to datetime.date, with precise errors."""

import calendar
import datetime
import re

_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")

DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class InvalidDate(ValueError):
    """The text is not a valid YYYY-MM-DD date."""


def parse_date(text):
    match = _ISO_DATE.match(text)
    if match is None:
        raise InvalidDate("expected YYYY-MM-DD, got %r" % (text,))
    year, month, day = (int(part) for part in match.groups())
    if not 1 <= month <= 12:
        raise InvalidDate("month %d out of range in %r" % (month, text))
    if not 1 <= day <= days_in_month(year, month):
        raise InvalidDate(
            "day %d out of range for month %d in %r" % (day, month, text)
        )
    return datetime.date(year, month, day)


def days_in_month(year, month):
    if month == 2 and calendar.isleap(year):
        return 29
    return DAYS_IN_MONTH[month - 1]
