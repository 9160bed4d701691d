"""Wall time of the containment loop on BH-CONTAINMENT-4001 with the rules decider (no model).

Each repetition resets the scenarios, then runs to a verdict; the run must complete with
two verified actions, or the figure is not reported.
"""

from __future__ import annotations

import statistics
import tempfile
import time

__all__ = ["measure_containment"]


def measure_containment(repeat: int = 15) -> dict[str, float]:
    from blastshield_core import load_settings, open_services, seed
    from blastshield_core.respond.decide import RulesDecider
    from blastshield_core.results import RunState

    with tempfile.TemporaryDirectory() as data_dir:
        services = open_services(load_settings(environ={}, data_dir=data_dir))
        try:
            walls = []
            for i in range(repeat + 2):
                seed(services.store, reset=True)
                started = time.perf_counter()
                run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 3, True)
                wall = (time.perf_counter() - started) * 1000
                verified = [a for a in run.actions if a.verified]
                if run.state is not RunState.COMPLETED or len(verified) != 2:
                    raise AssertionError(f"run did not complete with two verified actions: {run.reason}")
                if i >= 2:  # the first two are warm-up
                    walls.append(wall)
            return {
                "p50_ms": round(statistics.median(walls), 1),
                "max_ms": round(max(walls), 1),
                "runs": len(walls),
                "verified_actions": 2,
            }
        finally:
            services.close()


if __name__ == "__main__":
    print(measure_containment())
