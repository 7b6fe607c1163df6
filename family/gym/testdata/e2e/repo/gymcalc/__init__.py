"""gymcalc: temperature conversions (a test repository of swebench-run)."""

from .units import parse_temperature, to_celsius, to_fahrenheit

__all__ = ["parse_temperature", "to_celsius", "to_fahrenheit"]
