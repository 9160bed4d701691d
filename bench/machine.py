"""How fast the machine is at a moment: a fixed pure-Python loop, timed.

The load average counts this machine's own runnable tasks. Other work on the host these
benchmarks run on slows every figure without showing there (the steal time stays near zero
too), and did so by 1.5-1.9x for hours at a time. The loop's time shows it: about 500 ms when
the machine is quiet, 800-950 ms in its slow phases. The reports give it next to the load.
"""

from __future__ import annotations

import time

__all__ = ["LOOP_ITERATIONS", "loop_ms"]

LOOP_ITERATIONS = 3_000_000


def loop_ms() -> float:
    """Milliseconds for LOOP_ITERATIONS multiply-adds in pure Python."""
    started = time.perf_counter()
    total = 0
    for i in range(LOOP_ITERATIONS):
        total += i * i
    return (time.perf_counter() - started) * 1000
