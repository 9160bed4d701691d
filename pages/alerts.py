"""Alerts: the queue with computed scores, several alerts together, finding an entity and opening an
alert on it, importing a graph document, resetting the scenarios, exporting the graph. AWS accounts
are imported and collected on their own page (pages/aws.py)."""

import json

import streamlit as st

from blastshield_core.interfaces.service import (
    MAX_DOCUMENT_BYTES,
    QUEUE_SORTS,
    AlertInputError,
    DocumentError,
    Permission,
    QueryFailed,
    QueueQuery,
    Status,
    build_request,
    export_document,
    import_document,
    md_text,
    parse_bytes,
    resolve_entity,
    search_entities,
    seed,
)
from pages._auth import current_access, require
from pages._services import SEVERITY_BADGE, get_services, init_state, open_alert_on, page_actor

init_state()
st.session_state.setdefault("alerts_notice", None)
st.session_state.setdefault("alerts_pending_select", None)
st.session_state.setdefault("alerts_import_notice", None)  # shown beside the import it is about
st.session_state.setdefault("alerts_open_matches", None)
just_opened = st.session_state.alerts_pending_select
if just_opened:
    # An alert opened on the last run: select it before the widgets below are drawn. The table's row
    # selection and the queue's filters go too, or they would pick another alert or hide this one.
    st.session_state.selected_alert = just_opened
    # The browser keeps a table's row selection and sends it back with the next run: the table gets a
    # new key, so the row picked before is dropped instead of picking that alert again.
    st.session_state.alerts_table_gen = st.session_state.get("alerts_table_gen", 0) + 1
    for widget in (
        "alerts_select",
        "graph_alert",
        "contain_alert",
        "alerts_table",
        "alerts_queue_search",
        "alerts_queue_severity",
        "alerts_queue_page",
    ):
        st.session_state.pop(widget, None)
    st.session_state.alerts_pending_select = None

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

# The queue is sorted, filtered and paged in the core, from summaries cached by graph
# version: a rerun does not investigate every alert again, and any write shows at once.
QUEUE_PAGE_SIZE = 50
q1, q2, q3, q4 = st.columns([2, 3, 2, 1])
queue_severity = q1.selectbox("Severity", ["all", "critical", "high", "medium", "low"], key="alerts_queue_severity")
queue_text = q2.text_input("Search id, title or entity", max_chars=200, key="alerts_queue_search")
queue_sort = q3.selectbox("Sort by", QUEUE_SORTS, key="alerts_queue_sort")
queue_page = q4.number_input("Page", min_value=1, step=1, key="alerts_queue_page")
result = svc.queue.page(
    QueueQuery(
        sort=queue_sort,
        descending=queue_sort in ("risk", "paths"),
        severity=None if queue_severity == "all" else queue_severity,
        text=queue_text,
        offset=(int(queue_page) - 1) * QUEUE_PAGE_SIZE,
        limit=QUEUE_PAGE_SIZE,
    )
)
if result.status is not Status.OK:
    st.error(f"Could not list alerts ({result.status.value}): {md_text(result.message)}")
    st.stop()
if result.matched > QUEUE_PAGE_SIZE or result.offset:
    last = (result.matched - 1) // QUEUE_PAGE_SIZE + 1 if result.matched else 1
    st.caption(f"{result.matched} of {result.total} alerts match; page {int(queue_page)} of {last}.")

if just_opened and just_opened not in {a.id for a in result.alerts}:
    # beyond this page (a long queue sorted by risk): shown first, so that it is the one selected
    found = svc.queue.page(QueueQuery(text=just_opened, limit=QUEUE_PAGE_SIZE))
    result.alerts[:0] = [a for a in found.alerts if a.id == just_opened]

if not result.alerts:
    if result.total:
        st.info("No alert on this page matches the filters.")
    else:
        st.info("No alerts in the graph. Import a document below or reset the built-in scenarios.")
else:
    # what matters first (it stays within 1,400 px): the alert, its severity and score, its paths, its entity
    # paths a block in the graph only (or one undone on the account) cuts are still open on the account: the
    # core ranks the alert by them and their score, and the row shows them, never the graph's "0 paths"
    try:  # containment undone on the account behind BlastShield's back reopens the alert, with a badge
        undone = {u["alert_id"] for u in svc.undone_on_account()}
    except QueryFailed:
        undone = set()
    rows = [
        {
            "alert": a.id,
            "severity": SEVERITY_BADGE.get(
                (a.account_severity if a.open_on_account is not None else a.severity) or "", a.status.value
            )
            + (" · ⚠ undone on the account" if a.id in undone else ""),
            "score": a.queue_score(),
            "qualifying paths": (
                f"{a.open_on_account} open on the account"
                + (" (undone on the account)" if a.id in undone else " (blocked in the graph only)")
                if a.open_on_account is not None
                else a.path_count
                if not a.truncated
                else f"{a.path_count}+"
            ),
            "entity": a.entity_id,
            "title": a.title,
            "rule set": a.rule_set,
        }
        for a in result.alerts
    ]
    event = st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=f"alerts_table_{st.session_state.get('alerts_table_gen', 0)}",
        column_config={
            "alert": st.column_config.TextColumn(width="medium"),
            "severity": st.column_config.TextColumn(width="small"),
            "score": st.column_config.ProgressColumn("score", min_value=0, max_value=100, format="%d", width="small"),
            "qualifying paths": st.column_config.TextColumn("paths", width="small"),
            "entity": st.column_config.TextColumn(width="medium"),
            "title": st.column_config.TextColumn(width="large"),
        },
    )
    picked = event.selection.rows if event is not None and hasattr(event, "selection") else []
    pick = (st.session_state.get("alerts_table_gen", 0), tuple(picked))
    if picked and st.session_state.get("alerts_last_pick") != pick:  # a row picked now (the browser resends it)
        st.session_state.alerts_last_pick = pick
        st.session_state.selected_alert = rows[picked[0]]["alert"]
    ids = [r["alert"] for r in rows]
    if st.session_state.selected_alert not in ids:
        st.session_state.selected_alert = ids[0]
    # The box shows the selected alert through its state, which the browser is sent: with `index=` alone
    # the browser kept showing the alert picked before while this page had selected another.
    if st.session_state.get("alerts_select") != st.session_state.selected_alert:
        st.session_state.alerts_select = st.session_state.selected_alert

    def _follow_box() -> None:
        st.session_state.selected_alert = st.session_state.alerts_select

    choice = st.selectbox(
        "Work on alert",
        ids,
        key="alerts_select",
        on_change=_follow_box,
        help="Carried to the Path graph, Containment and Audit pages.",
    )
    st.session_state.selected_alert = choice
    chosen = next(a for a in result.alerts if a.id == choice)
    st.caption(
        f"Selected **{md_text(chosen.id)}** — entity `{chosen.entity_id}`, {chosen.path_count} qualifying path(s)"
        + (f" in the graph, **{chosen.open_on_account} open on the account**" if chosen.open_on_account else "")
        + f", score {chosen.risk_score} ({chosen.severity}, {chosen.rule_set}). Open **Path graph** or **Containment**."
    )

    st.subheader("Several alerts together")
    cap = current_access().alerts_combined_cap
    together = st.multiselect(
        "Alerts",
        ids,
        key="alerts_multi",
        max_selections=cap,
        help="Combined blast radius and shared choke points"
        + (f" (a viewer combines at most {cap} alerts)" if cap else ""),
    )
    if len(together) >= 2:
        view = svc.analysis.multi_alert(together, max_alerts=cap)
        if view.status is not Status.OK:
            st.error(f"{view.status.value}: {md_text(view.message)}")
        else:
            if view.truncated_reason:
                st.warning(f"Truncated: {md_text(view.truncated_reason)}")
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

st.subheader("Find an entity")
f1, f2, f3 = st.columns([3, 1, 1])
entity_query = f1.text_input(
    "Id, name or ARN (any part, any case)", max_chars=256, key="alerts_entity_query", placeholder="e.g. alice"
)
entity_label = f2.selectbox(
    "Label", ["any", "Identity", "Session", "Workload", "IAMRole", "DataAsset"], key="alerts_entity_label"
)
entity_account = f3.text_input("Account", max_chars=64, key="alerts_entity_account", placeholder="any")
if entity_query.strip():
    found = search_entities(
        svc.store,
        entity_query,
        label=None if entity_label == "any" else entity_label,
        account=entity_account.strip() or None,
    )
    if found.status is Status.INVALID_INPUT:
        st.error(f"**Invalid search.** {md_text(found.message)}")
    elif found.status is not Status.OK:
        st.error(f"**Could not search ({found.status.value}).** {md_text(found.message)}")
    elif not found.matches:
        st.info(md_text(found.message))
    else:
        st.caption(md_text(found.message) + " (best matches first).")
        st.dataframe(
            [
                {"id": m.id, "label": m.label, "name": m.name, "ARN": m.arn or "", "account": m.account or ""}
                for m in found.matches
            ],
            hide_index=True,
            width="stretch",
            key="alerts_entity_matches",
            column_config={"id": st.column_config.TextColumn(width="medium")},
        )

        def _investigate(entity: str) -> None:
            st.session_state.alerts_open_entity = entity
            st.session_state.alerts_open_matches = None

        pick = st.selectbox("Match", [m.id for m in found.matches], key="alerts_entity_pick")
        st.button(
            "Investigate this entity",
            key="alerts_entity_use",
            on_click=_investigate,
            args=(pick,),
            help="Puts it in the form below: give a title and open an alert on it.",
        )

st.subheader("Investigate an entity")
st.caption(
    "Open an analyst alert on any entity in the graph (an identity, a session, a workload, a role or an asset): "
    "it is scored, investigated and contained like any other alert. Only data is added; no access changes. "
    "Give its id, its ARN or its name."
)


with st.form("alerts_open_form", clear_on_submit=False, border=True):
    c1, c2 = st.columns([1, 2])
    entity_text = c1.text_input(
        "Entity: id, ARN or name", max_chars=256, key="alerts_open_entity", placeholder="e.g. developer_07"
    )
    alert_title = c2.text_input("Title", key="alerts_open_title", placeholder="why you are looking at it")
    submitted = st.form_submit_button("Open alert and select it", key="alerts_open_submit")
if submitted and require(Permission.CONTAIN, "open alerts"):
    st.session_state.alerts_open_matches = None
    try:
        build_request("entity", alert_title)  # the title first: a bad one is refused before any lookup
    except AlertInputError as exc:
        st.error(f"**Invalid input, nothing written.** {md_text(exc)}")
    else:
        resolved = resolve_entity(svc.store, entity_text)
        if resolved.status is Status.OK:
            open_alert_on(svc, resolved.entity.id, alert_title)
        elif resolved.status is Status.INVALID_INPUT:
            st.error(f"**Invalid input, nothing written.** {md_text(resolved.message)}")
        elif resolved.status is Status.QUERY_FAILED:
            st.error(f"**Could not look the entity up, nothing written.** {md_text(resolved.message)}")
        else:
            kind = "Several entities match" if resolved.ambiguous else "Unknown entity"
            st.warning(f"**{kind}:** {md_text(resolved.message)}. Nothing was written.")
            st.session_state.alerts_open_matches = [
                (m.id, f"{m.id} — {m.label}, {m.name}" + (f", {m.arn}" if m.arn and m.arn != m.id else ""))
                for m in resolved.matches
            ]
matches = st.session_state.alerts_open_matches
if matches:
    labels = dict(matches)
    chosen_match = st.radio(
        "Open the alert on one of these", list(labels), format_func=labels.get, key="alerts_open_choice"
    )
    if st.button("Open alert on the chosen entity", key="alerts_open_chosen") and require(
        Permission.CONTAIN, "open alerts"
    ):
        open_alert_on(svc, chosen_match, alert_title)

st.divider()
# The upload limit, said once in the same figure everywhere (the importer's, in MB as the server counts
# them): the upload box's own size line rounds 512 MB up to "1GB" in most browsers, so it is hidden.
UPLOAD_MB = MAX_DOCUMENT_BYTES >> 20
st.html("<style>[data-testid='stFileUploaderDropzoneInstructions'] span { display: none; }</style>")
left, right = st.columns(2)
with left:
    st.subheader("Import a graph document")
    upload = st.file_uploader(f"blastshield-graph/v1 JSON, at most {UPLOAD_MB} MB", type=["json"], key="alerts_upload")
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
                report = import_document(svc.store, document, replace=replace, progress=progress, actor=page_actor())
            except DocumentError as exc:
                st.error(f"**Rejected, nothing written.** {md_text(exc)}")
            except QueryFailed as exc:
                st.error(f"**Import failed, the graph is unchanged.** {md_text(exc)}")
            else:
                kept = (
                    f" Kept blocked (blocked by BlastShield): {md_text(', '.join(report.preserved_blocks))}."
                    if report.preserved_blocks
                    else ""
                )
                gone = (
                    f" Blocked routes no longer in the graph: {md_text(', '.join(report.blocks_gone))}."
                    if report.blocks_gone
                    else ""
                )
                st.session_state.alerts_import_notice = (
                    "document",
                    f"Imported **{md_text(report.name)}**: {report.nodes} nodes, {report.edges} relationships, "
                    f"{report.alerts} alerts{' (graph replaced)' if report.replaced else ''}.{kept}{gone}",
                )
                st.rerun()
    notice = st.session_state.alerts_import_notice
    if notice and notice[0] == "document":
        st.success(notice[1])
        st.session_state.alerts_import_notice = None
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
            report = seed(svc.store, reset=True, actor=page_actor())
        except QueryFailed as exc:
            st.error(f"Reset failed: {md_text(exc)}")
        else:
            st.session_state.alerts_notice = (
                "success",
                f"Scenarios restored: {md_text(', '.join(report.loaded))}. Routes reopened:"
                f" {md_text(', '.join(report.reopened) or 'none')} (recorded in the audit as {md_text(report.actor)}).",
            )
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
