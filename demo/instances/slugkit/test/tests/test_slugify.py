from slugkit import slugify


def test_simple_title():
    assert slugify("Release notes") == "release-notes"


def test_numbers_are_kept():
    assert slugify("Top 10 tips for 2025") == "top-10-tips-for-2025"


def test_max_length():
    assert slugify("one two three four", max_length=9) == "one-two"


def test_custom_separator():
    assert slugify("a big title", separator="_") == "a_big_title"


def test_accents_are_transliterated():
    assert slugify("Crème brûlée") == "creme-brulee"
    assert slugify("Año Nuevo in Zürich") == "ano-nuevo-in-zurich"


def test_runs_of_separators_collapse():
    assert slugify("Crème brûlée -- a recipe") == "creme-brulee-a-recipe"
    assert slugify("rock & roll") == "rock-roll"


def test_no_leading_or_trailing_dash():
    assert slugify("  Hello, World!  ") == "hello-world"
    assert slugify("(draft) notes", separator="_") == "draft_notes"
