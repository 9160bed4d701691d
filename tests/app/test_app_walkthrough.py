"""The walkthrough page through AppTest: every step followed by its own button, its outcome and check mark."""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.app.test_app import ROOT, _close_cached_services, drawn, edges_by_state, plain, table
from tests.helpers.dashboard_token import RUN_BOUND_S, with_token

WALK = "pages/walkthrough.py"
STEP_TITLES = [
    "Step 1. “No path” is never “safe”",
    "Step 2. Exact choke points and a dry run before acting",
    "Step 3. A capped run stops with a path still open",
    "Step 4. The checker refuses a model's false claim",
    "Step 5. Only a fresh “no path” completes a run",
    "Step 6. Reset the demo",
]


@pytest.fixture
def walk(tmp_path, monkeypatch):
    """The dashboard on a fresh embedded database, opened on the walkthrough."""
    for var in ("FALKORDB_URL", "BLASTSHIELD_GRAPH", "BLASTSHIELD_AUDIT_GRAPH", "GEMINI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("BLASTSHIELD_DATA_DIR", str(tmp_path / "data"))
    st.cache_resource.clear()
    at = with_token(AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S))
    at.run()
    at.switch_page(WALK).run()
    assert not at.exception, at.exception
    yield at
    _close_cached_services()


def marks(at) -> list[bool]:
    """Which steps carry a check mark, in order (asserting the step titles while at it)."""
    headers = [h.value for h in at.subheader]
    assert [h.split("] ", 1)[1] for h in headers] == STEP_TITLES
    return [h.startswith(":green[:material/check_circle:]") for h in headers]


def seen(at) -> list[str]:
    return [s.value for s in at.success if s.value.startswith("Seen: ")]


def follow(at, key: str, page: str, title: str, params: dict[str, str]):
    """Click a walkthrough button: it opens `page` with the query params; stay there for what follows."""
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    assert title in at.title[0].value
    assert at.query_params == params
    at.switch_page(page)  # AppTest re-requests its last switch_page target otherwise
    return at


def back(at):
    at.switch_page(WALK).run()
    assert not at.exception, at.exception
    return at


def test_walkthrough_is_listed_first_and_starts_unticked(walk):
    """The walkthrough is the first entry of the navigation and starts with no step ticked."""
    source = (ROOT / "app.py").read_text()
    assert source.index('"pages/walkthrough.py"') < source.index('"pages/alerts.py"')
    assert marks(walk) == [False] * 6
    assert walk.progress[0].value == 0


def test_walkthrough_every_step_through_its_own_buttons(walk):
    """Each step's button sets its page up; doing the step there ticks it with the real figures."""
    at = walk

    # 1. depth: arriving at depth 4 alone is not the outcome
    follow(at, "walk_go_depth", "pages/graph.py", "Path graph", {"alert": "BH-1042", "depth": "4"})
    at.run()
    assert at.selectbox(key="graph_alert").value == "BH-1042"
    assert at.slider(key="graph_depth").value == 4
    assert any("No qualifying path within 4 hops" in i.value for i in at.info)
    assert edges_by_state(drawn(at)[0], "path") == set()
    back(at)
    assert marks(at) == [False] * 6
    follow(at, "walk_go_depth", "pages/graph.py", "Path graph", {"alert": "BH-1042", "depth": "4"})
    at.run()
    at.slider(key="graph_depth").set_value(5).run()
    at.run()  # the query parameter no longer overrides the slider
    assert at.slider(key="graph_depth").value == 5
    assert len(edges_by_state(drawn(at)[0], "path")) == 5
    back(at)
    assert marks(at) == [True, False, False, False, False, False]
    assert seen(at) == ["Seen: depth 4: no qualifying path · depth 5: 1 qualifying path (5 hops) to customer-db"]

    # 2. choke points and a what-if on BH-CONTAINMENT-4001
    follow(at, "walk_go_choke", "pages/graph.py", "Path graph", {"alert": "BH-CONTAINMENT-4001", "depth": "6"})
    at.run()
    assert at.selectbox(key="graph_alert").value == "BH-CONTAINMENT-4001"
    assert at.slider(key="graph_depth").value == 6
    assert set(table(at, "relationship", "route", "cuts paths")["route"]) == {
        "route-c11-primary",
        "route-c11-alternate",
    }
    back(at)
    assert marks(at)[1] is False
    follow(at, "walk_go_choke", "pages/graph.py", "Path graph", {"alert": "BH-CONTAINMENT-4001", "depth": "6"})
    at.run()
    at.multiselect(key="graph_whatif").set_value(["route-c11-primary"]).run()
    assert any("**1** of 2 qualifying path(s) would remain" in m.value for m in at.markdown)
    back(at)
    assert marks(at)[:2] == [True, True]
    assert seen(at)[1] == (
        "Seen: minimum set of 2 relationship(s) severs all 2 qualifying paths "
        "(route-c11-alternate, route-c11-primary) · what-if blocking route-c11-primary: 1 of 2 would remain "
        "(nothing written)"
    )

    # 3. cap 1: the run stops with the alternate path open
    params = {"alert": "BH-CONTAINMENT-4001", "decider": "rules", "cap": "1"}
    follow(at, "walk_go_cap", "pages/containment.py", "Containment", params)
    at.run()
    assert at.radio(key="contain_decider").value == "rules"
    assert at.number_input(key="contain_cap").value == 1
    assert marks(back(at))[2] is False  # arriving is not seeing the outcome
    follow(at, "walk_go_cap", "pages/containment.py", "Containment", params)
    at.run()
    at.checkbox(key="contain_confirm").check().run()
    at.button(key="contain_start").click().run()
    assert any("NOT CONTAINED — stopped" in w.value for w in at.warning)
    back(at)
    assert marks(at)[:3] == [True, True, True]
    stopped = seen(at)[2]
    assert stopped.startswith("Seen: run run-") and stopped.endswith(
        "stopped after blocking route-c11-primary: 1 qualifying path still open"
    )

    # 4. the checker flags both sample briefings against the fresh evidence (the alternate path is open)
    at.button(key="walk_check").click().run()
    refusals = [plain(e.value) for e in at.error if e.value.startswith("**Refused")]
    assert len(refusals) == 2
    assert "`false_containment` — *contractor_11 is now fully contained*" in refusals[0]
    assert "`unknown_entity` — *sess-c11-backup*" in refusals[1]
    assert all("(paths_found, 1 qualifying path(s))" in r for r in refusals)
    assert any("no GEMINI_API_KEY" in c.value for c in at.caption)
    assert marks(at)[:4] == [True, True, True, True]
    assert seen(at)[3] == (
        "Seen: claims containment: flagged false_containment · invents an entity: flagged unknown_entity"
    )

    # 5. a later run completes: only a fresh no_path does it
    params = {"alert": "BH-CONTAINMENT-4001", "decider": "rules", "cap": "3"}
    follow(at, "walk_go_complete", "pages/containment.py", "Containment", params)
    at.run()
    assert at.number_input(key="contain_cap").value == 3
    at.checkbox(key="contain_confirm").check().run()
    at.button(key="contain_start").click().run()
    assert any("CONTAINED — completed" in s.value for s in at.success)
    actions = table(at, "route_id", "verified").to_dict("records")
    assert [(a["route_id"], a["verified"]) for a in actions] == [("route-c11-alternate", True)]
    back(at)
    assert marks(at) == [True, True, True, True, True, False]
    assert seen(at)[4].endswith("completed after blocking route-c11-alternate: a fresh query found no qualifying path")

    # 6. reset the demo: the scenarios read back as seeded
    at.button(key="walk_reset").click().run()
    assert not at.exception, at.exception
    assert marks(at) == [True] * 6
    assert at.progress[0].value == 100
    assert seen(at)[5] == (
        "Seen: scenarios restored; qualifying paths now: BH-1042 1, BH-CONTAINMENT-4001 2, BH-IAM-2001 3, "
        "BH-WORKLOAD-3001 3"
    )


def test_sample_briefing_check_is_live_not_canned(walk):
    """Once the alert is contained, the containment sample matches the graph: no tick, and the page says why."""
    at = walk
    params = {"alert": "BH-CONTAINMENT-4001", "decider": "rules", "cap": "3"}
    follow(at, "walk_go_complete", "pages/containment.py", "Containment", params)
    at.run()
    at.checkbox(key="contain_confirm").check().run()
    at.button(key="contain_start").click().run()
    back(at)
    assert marks(at)[4] is False  # completed, but not after a stopped cap-1 run
    at.button(key="walk_check").click().run()
    assert any(s.value.startswith("No flag: this text matches a fresh investigation (no_path") for s in at.success)
    assert marks(at)[3] is False
    assert any("reset the demo to see it refused" in c.value for c in at.caption)
