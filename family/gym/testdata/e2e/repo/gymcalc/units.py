"""Temperatures in Celsius and Fahrenheit."""


def to_celsius(fahrenheit):
    return (fahrenheit - 32) * 5 / 9


def to_fahrenheit(celsius):
    return celsius * 9 / 5 + 32


def parse_temperature(text):
    """Parse "21C" or "70F" into degrees Celsius."""
    text = text.strip()
    value, unit = float(text[:-1]), text[-1]
    if unit == "C":
        return value
    if unit == "F":
        return to_celsius(value)
    raise ValueError(f"unknown unit {unit!r} in {text!r}: use C or F")
