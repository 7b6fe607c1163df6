import pytest

from pagination import PageNotFound, Paginator


def test_first_page():
    p = Paginator(range(30), per_page=10)
    assert p.page(1) == list(range(10))


def test_exact_multiple():
    p = Paginator(range(30), per_page=10)
    assert p.num_pages == 3
    assert p.page(3) == list(range(20, 30))


def test_page_out_of_range():
    p = Paginator(range(30), per_page=10)
    with pytest.raises(PageNotFound):
        p.page(0)
    with pytest.raises(PageNotFound):
        p.page(4)


def test_empty_sequence():
    p = Paginator([], per_page=10)
    assert p.num_pages == 1
    assert p.page(1) == []


def test_per_page_must_be_positive():
    with pytest.raises(ValueError):
        Paginator(range(3), per_page=0)
