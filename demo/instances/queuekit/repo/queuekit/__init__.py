"""Small FIFO queue and LIFO stack."""

from queuekit.containers import Queue, Stack

__all__ = ["Queue", "Stack"]
__version__ = "0.1.0"
