"""The multi-alert view on a dense generated graph: time to the answer under the analysis time
budget, whether it was cut short and why, the reply's size, and a rerun at the same graph version
(answered from the cache).

    python -m bench.analysis_budget [--edges 20000] [--alerts 10 15 20] [--budget 10]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

from blastshield_core import Store, import_document, load_settings, parse_document
from blastshield_core.graph.generate import GenerateOptions, generate
from blastshield_core.read.analysis import ANALYSIS_TIME_BUDGET_S, AnalysisTools
from blastshield_core.read.tools import ReadTools


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edges", type=int, default=20_000)
    parser.add_argument("--alerts", type=int, nargs="+", default=[10, 15, 20])
    parser.add_argument("--budget", type=float, default=ANALYSIS_TIME_BUDGET_S)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        store = Store(load_settings(environ={}, data_dir=data_dir))
        try:
            graph = generate(GenerateOptions(edges=args.edges, seed=7, dense=True))
            import_document(store, parse_document(graph.to_document()))
            hubs = set(graph.hubs)
            ordered = [a[0] for a in graph.alerts if a[2] in hubs] + [a[0] for a in graph.alerts if a[2] not in hubs]
            for count in args.alerts:
                analysis = AnalysisTools(ReadTools(store), time_budget_s=args.budget)
                started = time.monotonic()
                result = analysis.multi_alert(ordered[:count])
                first = time.monotonic() - started
                started = time.monotonic()
                again = analysis.multi_alert(ordered[:count])
                rerun = time.monotonic() - started
                row = {
                    "edges": args.edges,
                    "alerts": count,
                    "budget_s": args.budget,
                    "seconds": round(first, 2),
                    "rerun_seconds": round(rerun, 4),
                    "rerun_cached": again is result,
                    "status": result.status.value,
                    "exact": result.exact,
                    "truncated_reason": result.truncated_reason,
                    "reply_bytes": len(result.model_dump_json()),
                }
                print(json.dumps(row), flush=True)
        finally:
            store.close()


if __name__ == "__main__":
    main()
