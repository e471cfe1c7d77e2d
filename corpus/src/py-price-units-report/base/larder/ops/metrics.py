"""Counters for the ops dashboard, exposed in the Prometheus text format."""

import threading
from collections import Counter

_lock = threading.Lock()
_counts: Counter[str] = Counter()


def incr(name: str, by: int = 1) -> None:
    with _lock:
        _counts[name] += by


def exposition() -> str:
    with _lock:
        items = sorted(_counts.items())
    return "".join(f"larder_{name}_total {value}\n" for name, value in items)
