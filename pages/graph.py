"""Path graph: the evidence drawn, a depth slider, the path list, the blast radius, and a path explorer."""

import streamlit as st

from blastshield_core.interfaces.service import (
    ChokePointsSeen,
    EvidenceSeen,
    QueryFailed,
    Status,
    WhatIfSeen,
    md_code,
    md_text,
)
from pages._graphview import AWS_LEGEND, LEGEND, aws_account, draw, path_rows
from pages._services import alert_picker, get_services, init_state, query_state, record_seen, show_briefing, show_status

init_state()
query_state(depth="graph_depth")
st.title(":material/hub: Path graph")
svc = get_services()
if svc is None:
    st.stop()

alert_id = alert_picker(svc, "graph_alert")
if alert_id is not None:
    # the default through the session state, not `value=`: a `?depth=` arrival sets the state, and a
    # widget given both logs a warning with a stack trace
    st.session_state.setdefault("graph_depth", 6)
    depth = st.slider("Depth (max relationships per path)", 1, 6, key="graph_depth")
    graph = svc.tools.get_evidence_graph(alert_id, depth)
    show_status(graph.status, graph.message, depth)
    # A block on an AWS-backed route made in the graph only changed nothing on the account: it is drawn and
    # counted as such, and the paths it cuts stay open on the account (depth 6, as the queue counts them).
    try:
        graph_only = svc.graph_only_blocks()
    except QueryFailed as exc:
        graph_only = {}
        st.error(f"Could not read which blocks are in the graph only ({md_text(exc)}): every block is drawn plain.")
    routes = svc.tools.get_containment_route_statuses(alert_id, graph_only)
    mine_graph_only = sorted(r.route_id for r in routes.routes if r.graph_only and r.status == "blocked")
    if graph.status in (Status.PATHS_FOUND, Status.NO_PATH) and mine_graph_only:
        st.warning(
            f"**Blocked in the graph only:** {', '.join(md_code(r) for r in mine_graph_only)} — not applied on the"
            f" account; the credentials still work there. **{routes.open_on_account}** qualifying path(s) are open on"
            f" the account (depth 6), {routes.qualifying_paths} in the graph."
        )
    if graph.status in (Status.PATHS_FOUND, Status.NO_PATH):
        rows = path_rows(graph.paths)
        highlight: set = set()
        if rows:
            st.subheader(f"Qualifying paths ({graph.path_count}{'+, truncated' if graph.truncated else ''})")
            event = st.dataframe(
                rows,
                hide_index=True,
                width="stretch",
                on_select="rerun",
                selection_mode="single-row",
                key="graph_paths",
            )
            picked = event.selection.rows if event is not None and hasattr(event, "selection") else []
            chosen = st.selectbox(
                "Highlight path",
                [0] + [r["#"] for r in rows],
                index=(picked[0] + 1) if picked else 0,
                format_func=lambda i: "none" if i == 0 else f"path {i}",
                key="graph_highlight",
            )
            if chosen:
                path = graph.paths[chosen - 1]
                highlight = {(r.source, r.type, r.target) for r in path.relationships}
        draw(graph.nodes, graph.relationships, graph_id=f"evidence-{alert_id}-{depth}", highlight=highlight,
             start=graph.entity_id, graph_only=set(mine_graph_only))  # fmt: skip
        st.caption(LEGEND)
        if any(aws_account(n.properties) for n in graph.nodes):
            st.caption(AWS_LEGEND)
        record_seen(EvidenceSeen.from_result(graph))
        if graph.truncated:
            st.warning(f"The drawing is capped at {graph.relationship_cap} relationships; more exist.")

    # Choke points, what-if and the blast radius are computed over every qualifying path within 6 hops
    # (the depth that scores the alert): said plainly when the slider above shows another depth.
    st.subheader("Choke points: the fewest changes that sever every path (depth 6)")
    if depth != 6:
        st.caption(
            f"Computed at depth 6, the depth that scores the alert, not at the depth {depth} set above: "
            "a path longer than that still counts here."
        )
    routes_only = st.toggle("Only session routes (what a containment action can block now)", key="graph_routes_only")
    chokes = svc.analysis.choke_points(alert_id, routes_only)
    if chokes.status is Status.PATHS_FOUND:
        if chokes.severable:
            st.markdown(
                f"Removing **{len(chokes.relationships)}** relationship(s) severs all {chokes.qualifying_paths} "
                "qualifying path(s) within 6 hops"
                f"{'' if chokes.exact else ' (search bounded: may not be minimal)'}:"
            )
        else:
            st.warning(
                "Not severable with session routes alone: path(s) "
                + ", ".join(str(i + 1) for i in chokes.uncuttable_paths)
                + " pass through no active session route. Remediate the IAM relationships instead (toggle off)."
            )
        st.dataframe(
            [
                {
                    "relationship": f"{r.source} -{r.type}-> {r.target}",
                    "route": r.route_id or "—",
                    "cuts paths": ", ".join(str(i + 1) for i in r.paths_cut),
                }
                for r in chokes.relationships
            ],
            hide_index=True,
            width="stretch",
            key="graph_chokes",
        )
        record_seen(ChokePointsSeen.from_result(chokes))
    else:
        show_status(chokes.status, chokes.message, 6)

    st.subheader("What if: try blocking routes without writing anything (depth 6)")
    active = [r.route_id for r in routes.routes if r.status == "active"] if routes.status is Status.OK else []
    if not active:
        st.caption("No active session route on this alert's paths.")
    else:
        trial = st.multiselect("Routes to treat as blocked", active, key="graph_whatif")
        if trial:
            result = svc.analysis.what_if(alert_id, trial)
            if result.status in (Status.PATHS_FOUND, Status.NO_PATH):
                st.markdown(
                    f"**{result.path_count}** of {result.paths_before} qualifying path(s) would remain "
                    f"if {md_text(', '.join(trial))} were blocked (dry run, nothing written)."
                )
                if result.paths:
                    st.dataframe(path_rows(result.paths), hide_index=True, width="stretch", key="graph_whatif_paths")
                else:
                    st.success(
                        "Dry run: no qualifying path would remain. Run containment to make it so — and verify it."
                    )
                remaining = {(r.source, r.type, r.target) for p in result.paths for r in p.relationships}
                draw(graph.nodes, graph.relationships, graph_id=f"whatif-{alert_id}-{'-'.join(trial)}",
                     highlight=remaining, start=graph.entity_id, what_if=set(trial), height=360,
                     graph_only=set(mine_graph_only))  # fmt: skip
                record_seen(WhatIfSeen.from_result(result))
            else:
                show_status(result.status, result.message)

    with st.expander("Briefing for this alert", expanded=False):
        show_briefing(svc, alert_id, key="graph_briefing")

    radius = svc.tools.get_blast_radius(alert_id)
    st.subheader("Blast radius (within 6 hops)")
    if radius.status is Status.OK:
        cols = st.columns(3)
        for col, label in zip(cols, ("Workload", "IAMRole", "DataAsset"), strict=True):
            with col:
                st.metric(label, radius.by_label.get(label, 0))
                for e in (e for e in radius.entities if e.label == label):
                    mark = ":red[**on path**]" if e.on_critical_path else ":gray[reachable]"
                    st.markdown(f"`{e.id}` · {e.hops} hop(s) · {mark}")
        st.caption("*on path*: lies on a qualifying path to high/critical data · *reachable*: not on such a path")
    else:
        show_status(radius.status, radius.message)

st.divider()
st.subheader("Explore: shortest qualifying path between two entities")
c1, c2, c3 = st.columns([2, 2, 1])
# Empty until asked: a path of another scenario is not shown beside this alert's evidence.
source = c1.text_input("Source id", key="graph_source", placeholder="e.g. auditor_02").strip()
target = c2.text_input("Target id", key="graph_target", placeholder="e.g. staging-report").strip()
hops = c3.slider("Max hops", 1, 6, 5, key="graph_hops")
found = None
if source and target:
    found = svc.tools.find_shortest_access_path(source, target, int(hops))
    show_status(found.status, found.message, int(hops), exposure=False)
else:
    st.caption("Give a source and a target entity id (find ids with **Find an entity** on the Alerts page).")
if found is not None and found.status is Status.PATHS_FOUND:
    st.dataframe(path_rows(found.paths), hide_index=True, width="stretch", key="graph_explore_paths")
    nodes = {n.id: n for p in found.paths for n in p.nodes}
    rels = {(r.source, r.type, r.target): r for p in found.paths for r in p.relationships}
    draw(list(nodes.values()), list(rels.values()), graph_id=f"explore-{source}-{target}-{hops}", start=source,
         height=300)  # fmt: skip
st.caption(
    "The audit fixture teaches depth: `auditor_02 → analytics-cache` first appears at 4 hops, "
    "`auditor_02 → staging-report` only at 5 (the 4-hop grant is denied)."
)
