import pytest

from queuekit import Queue, Stack


def test_new_queue_is_empty():
    q = Queue()
    assert q.is_empty()
    assert len(q) == 0


def test_fifo_order():
    q = Queue()
    for i in range(200):
        q.enqueue(i)
    assert [q.dequeue() for _ in range(200)] == list(range(200))


def test_len_counts_pending_items():
    q = Queue()
    for i in range(5):
        q.enqueue(i)
    q.dequeue()
    assert len(q) == 4
    assert not q.is_empty()


def test_peek():
    q = Queue()
    q.enqueue("a")
    q.enqueue("b")
    assert q.peek() == "a"
    assert len(q) == 2


def test_dequeue_from_empty_queue_raises():
    with pytest.raises(IndexError, match="empty queue"):
        Queue().dequeue()


def test_stack_lifo_order():
    s = Stack()
    for i in range(3):
        s.push(i)
    assert [s.pop(), s.pop(), s.pop()] == [2, 1, 0]


def test_stack_is_empty():
    s = Stack()
    assert s.is_empty()
    s.push(1)
    assert not s.is_empty()
