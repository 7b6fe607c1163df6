import pytest

from confparse import ConfigError, parse_config


def test_sections_and_keys():
    config = parse_config("[db]\nhost = localhost\nport=5432\n\n[web]\nport = 8080\n")
    assert config["db"] == {"host": "localhost", "port": "5432"}
    assert config["web"] == {"port": "8080"}


def test_hash_comment_line():
    config = parse_config("# settings\n[db]\n  # the host\nhost = localhost\n")
    assert config["db"] == {"host": "localhost"}


def test_blank_lines_are_ignored():
    assert parse_config("\n\n[a]\n\nx = 1\n\n") == {"DEFAULT": {}, "a": {"x": "1"}}


def test_keys_before_any_section_go_to_default():
    assert parse_config("debug = true\n[a]\n")["DEFAULT"] == {"debug": "true"}


def test_missing_equals_is_an_error():
    with pytest.raises(ConfigError, match="line 2"):
        parse_config("[a]\njust some words\n")


def test_hash_inside_value_is_kept():
    assert parse_config("[ui]\ncolor = #ff0000\n")["ui"] == {"color": "#ff0000"}
