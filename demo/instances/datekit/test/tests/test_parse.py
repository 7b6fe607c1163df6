import datetime

import pytest

from datekit import InvalidDate, parse_date


def test_parse_plain_date():
    assert parse_date("2025-03-14") == datetime.date(2025, 3, 14)


def test_end_of_month():
    assert parse_date("2025-01-31") == datetime.date(2025, 1, 31)
    assert parse_date("2025-04-30") == datetime.date(2025, 4, 30)


def test_rejects_bad_format():
    for text in ["2025-3-14", "14/03/2025", "2025-03-14T00:00", ""]:
        with pytest.raises(InvalidDate):
            parse_date(text)


def test_rejects_day_out_of_range():
    with pytest.raises(InvalidDate, match="day 31"):
        parse_date("2025-04-31")


def test_rejects_month_out_of_range():
    with pytest.raises(InvalidDate, match="month 13"):
        parse_date("2025-13-01")


@pytest.mark.parametrize("text", ["2024-02-29", "2000-02-29"])
def test_leap_day(text):
    assert parse_date(text).day == 29


@pytest.mark.parametrize("text", ["2023-02-29", "1900-02-29"])
def test_rejects_leap_day_in_common_year(text):
    with pytest.raises(InvalidDate, match="day 29"):
        parse_date(text)
