"""Alerts: the queue with computed scores, choosing an alert, importing data, resetting scenarios."""

import json

import streamlit as st

from blastshield_core import DocumentError, QueryFailed, Status, export_document, import_document, seed
from blastshield_core.access import Permission
from blastshield_core.ingest import parse_bytes
from blastshield_core.safetext import md_text
from pages._auth import current_access, require
from pages._services import SEVERITY_BADGE, get_services, init_state

init_state()
st.session_state.setdefault("alerts_notice", None)

st.title(":material/shield: BlastShield — alert queue")
st.markdown(
    "**What you are looking at.** Each alert names one entity in an identity-access graph held in "
    "FalkorDB (Identity → Session → Workload → IAMRole → … → DataAsset). BlastShield follows the "
    "*qualifying paths* — active, allowed relationships, no node twice, at most 6 hops — from that "
    "entity to high or critical data, scores the alert with the rule set shown, and lists the session "
    "routes a containment action could block. **Path graph** draws the evidence, **Containment** runs "
    "a confirmed, capped, verified response, and **Audit** keeps every run. Unknown, invalid and failed "
    "answers are shown as such — never as *safe*."
)

svc = get_services()
if svc is None:
    st.stop()

if st.session_state.alerts_notice:
    kind, text = st.session_state.alerts_notice
    getattr(st, kind)(text)
    st.session_state.alerts_notice = None

result = svc.tools.list_alerts()
if result.status is not Status.OK:
    st.error(f"Could not list alerts ({result.status.value}): {md_text(result.message)}")
    st.stop()

if not result.alerts:
    st.info("No alerts in the graph. Import a document below or reset the built-in scenarios.")
else:
    rows = [
        {
            "alert": a.id,
            "title": a.title,
            "severity": SEVERITY_BADGE.get(a.severity or "", a.status.value),
            "score": a.risk_score,
            "rule set": a.rule_set,
            "entity": a.entity_id,
            "qualifying paths": a.path_count if not a.truncated else f"{a.path_count}+",
        }
        for a in sorted(result.alerts, key=lambda a: -(a.risk_score or -1))
    ]
    event = st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key="alerts_table",
        column_config={"score": st.column_config.ProgressColumn("score", min_value=0, max_value=100, format="%d")},
    )
    picked = event.selection.rows if event is not None and hasattr(event, "selection") else []
    if picked:
        st.session_state.selected_alert = rows[picked[0]]["alert"]
    ids = [r["alert"] for r in rows]
    if st.session_state.selected_alert not in ids:
        st.session_state.selected_alert = ids[0]
    choice = st.selectbox(
        "Work on alert",
        ids,
        index=ids.index(st.session_state.selected_alert),
        key="alerts_select",
        help="Carried to the Path graph, Containment and Audit pages.",
    )
    st.session_state.selected_alert = choice
    chosen = next(a for a in result.alerts if a.id == choice)
    st.caption(
        f"Selected **{md_text(chosen.id)}** — entity `{chosen.entity_id}`, {chosen.path_count} qualifying path(s), "
        f"score {chosen.risk_score} ({chosen.severity}, {chosen.rule_set}). Open **Path graph** or **Containment**."
    )

    st.subheader("Several alerts together")
    together = st.multiselect("Alerts", ids, key="alerts_multi", help="Combined blast radius and shared choke points")
    if len(together) >= 2:
        view = svc.analysis.multi_alert(together)
        if view.status is not Status.OK:
            st.error(f"{view.status.value}: {md_text(view.message)}")
        else:
            c1, c2, c3 = st.columns(3)
            c1.metric("Entities reached (combined)", len(view.entities))
            c2.metric("Assets reached by more than one", len(view.shared_assets))
            c3.metric("Relationships severing all", len(view.choke_points) if view.severable else "not severable")
            if view.shared_assets:
                st.markdown(
                    "Shared assets: "
                    + ", ".join(f"`{e.id}` ({md_text(', '.join(e.alerts))})" for e in view.shared_assets)
                )
            st.dataframe(
                [
                    {"choke point": f"{r.source} -{r.type}-> {r.target}", "route": r.route_id or "—",
                     "cuts paths": len(r.paths_cut)}
                    for r in view.choke_points
                ],
                hide_index=True,
                width="stretch",
                key="alerts_multi_chokes",
            )  # fmt: skip
            if view.common_relationships:
                st.caption(
                    "Relationships on the paths of several alerts: "
                    + md_text(", ".join(f"{r.source} -{r.type}-> {r.target}" for r in view.common_relationships))
                )

st.divider()
left, right = st.columns(2)
with left:
    st.subheader("Import a graph document")
    upload = st.file_uploader("blastshield-graph/v1 JSON", type=["json"], key="alerts_upload")
    replace = st.checkbox("Replace the whole graph (otherwise add and update by id)", key="alerts_replace")
    may_import = current_access().can(Permission.IMPORT)
    if not may_import:
        st.caption("Importing needs the admin role.")
    if st.button("Validate and import", key="alerts_import", disabled=upload is None) and require(
        Permission.IMPORT, "import graph documents"
    ):
        try:
            document = parse_bytes(upload.getvalue())
        except DocumentError as exc:
            st.error(f"**Rejected, nothing written.** {md_text(exc)}")
        else:
            bar = st.progress(0.0, text="Importing…")

            def progress(done: int, total: int) -> None:
                bar.progress(done / total if total else 1.0, text=f"Importing {done}/{total} items")

            try:
                report = import_document(svc.store, document, replace=replace, progress=progress)
            except DocumentError as exc:
                st.error(f"**Rejected, nothing written.** {md_text(exc)}")
            except QueryFailed as exc:
                st.error(f"**Import failed, the graph is unchanged.** {md_text(exc)}")
            else:
                st.session_state.alerts_notice = (
                    "success",
                    f"Imported **{md_text(report.name)}**: {report.nodes} nodes, {report.edges} relationships, "
                    f"{report.alerts} alerts{' (graph replaced)' if report.replaced else ''}.",
                )
                st.rerun()
with right:
    st.subheader("Reset the built-in scenarios")
    st.caption("Restores the four scenarios and the audit fixture (routes unblocked); imported data is left alone.")
    sure = st.checkbox("I want to reset the scenarios", key="alerts_reset_confirm")
    if not current_access().can(Permission.RESET):
        st.caption("Resetting needs the admin role.")
    if st.button("Reset scenarios", key="alerts_reset", disabled=not sure) and require(
        Permission.RESET, "reset the scenarios"
    ):
        try:
            report = seed(svc.store, reset=True)
        except QueryFailed as exc:
            st.error(f"Reset failed: {md_text(exc)}")
        else:
            st.session_state.alerts_notice = ("success", f"Scenarios restored: {md_text(', '.join(report.loaded))}.")
            st.rerun()


def _export() -> str:
    """Built only when the button is clicked: a whole-graph export is not work for every rerun."""
    if not current_access().can(Permission.EXPORT):  # checked when the data is built, not only by hiding
        return json.dumps({"status": "invalid_input", "message": "exporting the graph needs the admin role"})
    try:
        return export_document(svc.store).model_dump_json(indent=2)
    except (QueryFailed, ValueError) as exc:
        return json.dumps({"status": "query_failed", "message": f"export failed: {exc}"})


st.download_button(
    "Export the current graph (blastshield-graph/v1)",
    _export,
    file_name=f"{svc.settings.graph}.json",
    mime="application/json",
    key="alerts_export",
    disabled=not current_access().can(Permission.EXPORT),
)
st.caption(f"Graph: {svc.settings.mode} FalkorDB at `{svc.store.location}` · graph `{svc.settings.graph}`")
