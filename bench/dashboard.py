"""Dashboard page timings through Streamlit's AppTest on the seed graph (embedded default).

For each page: the first run in a fresh session and a rerun of that session, median of
several repetitions. Run directly (`python -m bench.dashboard`) or from the benchmark.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("pages/alerts.py", "pages/graph.py", "pages/containment.py", "pages/audit.py")

__all__ = ["PAGES", "measure_pages"]


def measure_pages(repeat: int = 5) -> dict[str, dict[str, float]]:
    """{page: {"first_ms": median, "rerun_ms": median}} measured in this process."""
    import streamlit as st
    from streamlit import config
    from streamlit.testing.v1 import AppTest

    from blastshield_core import load_settings
    from blastshield_core.base.dashboard_token import ensure_token, token_path

    previous = {k: os.environ.get(k) for k in ("BLASTSHIELD_DATA_DIR", "FALKORDB_URL")}
    with tempfile.TemporaryDirectory() as data_dir:
        os.environ["BLASTSHIELD_DATA_DIR"] = data_dir
        os.environ.pop("FALKORDB_URL", None)
        st.cache_resource.clear()
        settings = load_settings()
        token = ensure_token(token_path(settings.data_dir, settings.token_file))[0]
        config.set_option("server.baseUrlPath", token)  # served under the token, as `make run` serves it
        try:
            warm = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
            warm.run()  # opens and seeds
            assert not warm.exception, warm.exception
            timings: dict[str, dict[str, list[float]]] = {p: {"first_ms": [], "rerun_ms": []} for p in PAGES}
            for _ in range(repeat):
                for page in PAGES:
                    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
                    at.run()
                    started = time.perf_counter()
                    at.switch_page(page).run()
                    timings[page]["first_ms"].append((time.perf_counter() - started) * 1000)
                    assert not at.exception, (page, at.exception)
                    started = time.perf_counter()
                    at.run()
                    timings[page]["rerun_ms"].append((time.perf_counter() - started) * 1000)
            return {p: {k: round(statistics.median(v), 1) for k, v in t.items()} for p, t in timings.items()}
        finally:
            from pages import _services

            try:
                _services.services().close()
            finally:
                st.cache_resource.clear()
                config.set_option("server.baseUrlPath", "")
                for key, value in previous.items():
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value


if __name__ == "__main__":
    for page, figures in measure_pages().items():
        print(f"{page:<24} first {figures['first_ms']:>8.1f} ms   rerun {figures['rerun_ms']:>8.1f} ms")
