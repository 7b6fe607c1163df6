from slugkit import slugify


def test_simple_title():
    assert slugify("Release notes") == "release-notes"


def test_numbers_are_kept():
    assert slugify("Top 10 tips for 2025") == "top-10-tips-for-2025"


def test_max_length():
    assert slugify("one two three four", max_length=9) == "one-two"


def test_custom_separator():
    assert slugify("a big title", separator="_") == "a_big_title"
