"""Paginator: numbered, 1-based pages over a sequence."""


class PageNotFound(LookupError):
    """Raised when a page number is outside 1..num_pages."""


class Paginator:
    def __init__(self, items, per_page):
        if per_page < 1:
            raise ValueError("per_page must be at least 1, got %r" % (per_page,))
        self.items = list(items)
        self.per_page = per_page

    @property
    def count(self):
        return len(self.items)

    @property
    def num_pages(self):
        """The number of pages; an empty sequence has one empty page."""
        if not self.items:
            return 1
        return self.count // self.per_page

    @property
    def page_range(self):
        return range(1, self.num_pages + 1)

    def page(self, number):
        """The items on page `number` (1-based)."""
        if not 1 <= number <= self.num_pages:
            raise PageNotFound(
                "page %d out of range (1-%d)" % (number, self.num_pages)
            )
        start = (number - 1) * self.per_page
        return self.items[start:start + self.per_page]
