"""Small timing helpers shared by the benchmark modules: medians of repeated runs, ratios in one run."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def quiet_gc() -> Iterator[None]:
    """Time without the cyclic garbage collector, as ``timeit`` does, so pauses caused by other code's
    garbage do not land in one sample."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def median_seconds(fn: Callable[[], object], *, number: int = 200, repeat: int = 7) -> float:
    """Median over ``repeat`` batches of the mean time of one call in a batch of ``number``."""
    samples = []
    with quiet_gc():
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def per_op(fn: Callable[[int], object], *, number: int = 200, repeat: int = 7) -> float:
    """Like median_seconds, for operations that need a fresh index each call (create, delete)."""
    samples = []
    counter = 0
    with quiet_gc():
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(number):
                fn(counter)
                counter += 1
            samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)
