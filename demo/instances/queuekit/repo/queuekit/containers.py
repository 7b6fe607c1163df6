"""Queue (FIFO) and Stack (LIFO)."""


class Queue:
    """FIFO queue. Dequeued slots are reclaimed in batches, so both ends are O(1)."""

    _COMPACT_AT = 64

    def __init__(self):
        self._items = []
        self._head = 0

    def __len__(self):
        return len(self._items) - self._head

    def is_empty(self):
        return not self._items

    def enqueue(self, item):
        self._items.append(item)

    def peek(self):
        if self.is_empty():
            raise IndexError("peek at an empty queue")
        return self._items[self._head]

    def dequeue(self):
        if self.is_empty():
            raise IndexError("dequeue from an empty queue")
        item = self._items[self._head]
        self._items[self._head] = None
        self._head += 1
        if self._head >= self._COMPACT_AT and self._head * 2 >= len(self._items):
            del self._items[: self._head]
            self._head = 0
        return item


class Stack:
    """LIFO stack."""

    def __init__(self):
        self._items = []

    def __len__(self):
        return len(self._items)

    def is_empty(self):
        return not self._items

    def push(self, item):
        self._items.append(item)

    def pop(self):
        if self.is_empty():
            raise IndexError("pop from an empty stack")
        return self._items.pop()
