"""AWS accounts: import AWS CLI exports, collect from AWS read-only, and the reports of both, with the
principals to look at first (each with a button that opens an alert on it and shows it in the queue)."""

import time

import streamlit as st

from blastshield_core.interfaces.service import (
    MAX_DOCUMENT_BYTES,
    MAX_FILE_BYTES,
    AwsInputError,
    CollectionJob,
    DocumentError,
    Permission,
    QueryFailed,
    Status,
    account_calls,
    aws_regions,
    collect_profiles,
    collection_step,
    import_aws,
    md_code,
    md_text,
    top_principals,
)
from pages._auth import current_access, require
from pages._services import get_services, init_state, open_alert_on, page_actor

init_state()
st.session_state.setdefault("aws_report", None)
st.session_state.setdefault("aws_collect_report", None)
st.session_state.setdefault("aws_next", None)
st.session_state.setdefault("aws_notice", None)  # shown beside the import or collection it is about

st.title(":material/cloud_upload: BlastShield — AWS accounts")
st.markdown(
    "Bring an AWS account into the graph: upload the AWS CLI exports of an account, or collect them here "
    "with a read-only profile of your AWS config. Each import shows what it added, and the principals with the "
    "most qualifying paths to high or critical data, each with a button that opens an alert on it."
)

svc = get_services()
if svc is None:
    st.stop()
if not current_access().can(Permission.IMPORT):
    st.info("Importing and collecting AWS accounts needs the admin role.")
    st.stop()

# The upload limit, said once in the same figure everywhere (the importer's, in MB as the server counts
# them): the upload box's own size line rounds 512 MB up to "1GB" in most browsers, so it is hidden.
UPLOAD_MB = MAX_DOCUMENT_BYTES >> 20
st.html("<style>[data-testid='stFileUploaderDropzoneInstructions'] span { display: none; }</style>")

st.subheader("Import an AWS account (AWS CLI exports)")
st.caption(
    "Several export files (`aws iam get-account-authorization-details` is required; `ec2 describe-instances`, "
    "`lambda list-functions`, `iam get-credential-report`, `s3api list-buckets`, `guardduty get-findings` add to "
    "it), or a zip of a collection folder. Each file is recognised by its content. Re-importing an account "
    "re-syncs it; routes BlastShield blocked stay blocked."
)
aws_files = st.file_uploader(
    f"AWS CLI JSON exports or a zip, at most {UPLOAD_MB} MB per file (each export at most {MAX_FILE_BYTES >> 20} MB)",
    type=["json", "zip"],
    accept_multiple_files=True,
    key="aws_upload",
)
aws_replace = st.checkbox("Replace the whole graph with the account(s)", key="aws_replace")
if st.button("Import the AWS account", key="aws_import", disabled=not aws_files) and require(
    Permission.IMPORT, "import AWS accounts"
):
    aws_bar = st.progress(0.0, text="Reading and evaluating the exports…")

    def aws_progress(done: int, total: int) -> None:
        aws_bar.progress(done / total if total else 1.0, text=f"Importing {done}/{total} items")

    try:
        aws_report = import_aws(
            svc.store,
            [(f.name, f.getvalue()) for f in aws_files],
            replace=aws_replace,
            progress=aws_progress,
            actor=page_actor(),
        )
    except (AwsInputError, DocumentError) as exc:
        st.session_state.aws_report = None
        st.error(f"**Rejected, nothing written.** {md_text(exc)}")
    except QueryFailed as exc:
        st.session_state.aws_report = None
        st.error(f"**Import failed, the graph is unchanged.** {md_text(exc)}")
    else:
        st.session_state.aws_report = aws_report.to_dict()
        st.session_state.aws_next = top_principals(svc.tools, aws_report.accounts)
        st.session_state.aws_notice = (
            f"Imported AWS account(s) {md_text(', '.join(aws_report.accounts))}: "
            f"{sum(aws_report.counts['nodes'].values())} nodes, "
            f"{sum(aws_report.counts['relationships'].values())} relationships, {aws_report.counts['alerts']} alerts"
            f"{' (graph replaced)' if aws_report.replaced else ''}.",
        )
        st.rerun()
if st.session_state.aws_notice:
    st.success(st.session_state.aws_notice)
    st.session_state.aws_notice = None
st.subheader("Collect from AWS (read-only)")
st.caption(
    "Makes only read calls with a profile of your AWS config (the collector's policy is in docs/aws-live.md), "
    "writes the collection into the data folder, then imports it as above. Containment re-collects into it."
)
profiles, preselect, writing = collect_profiles()
if not profiles:
    st.info("No profile in your AWS config (`~/.aws/config` or `AWS_CONFIG_FILE`): nothing to collect with.")
else:
    c1, c2 = st.columns([1, 2])
    collect_profile = c1.selectbox(
        "Profile (from your AWS config)",
        profiles,
        index=preselect,
        format_func=lambda p: f"{p} (can write: the respond profile)" if p in writing else p,
        placeholder="Choose a read-only profile",
        key="aws_collect_profile",
    )
    collect_regions = c2.multiselect("Regions", aws_regions(), default=["us-east-1"], key="aws_collect_regions")
    if collect_profile in writing:
        st.warning("This profile can write to the account: collection needs only a read-only one.")
    if st.button(
        "Collect from AWS", key="aws_collect", disabled=not collect_regions or not collect_profile
    ) and require(Permission.IMPORT, "collect from AWS"):
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        out = svc.settings.data_dir / "aws-collect" / f"{stamp}-{collect_profile}"
        job = CollectionJob(collect_profile, list(collect_regions), out, page_actor(), svc.store, svc.settings)
        whole = len(account_calls())
        bars: dict[str, tuple] = {}
        with st.status(f"Collecting with profile {md_text(collect_profile)}…", expanded=True) as collecting:
            for event in job.start().progress(heartbeat_s=1.0):
                if event["state"] == "waiting":  # nothing new for a second: the time moves on the label
                    collecting.update(label=f"Collecting with profile {md_text(collect_profile)}… "
                                      f"{event['elapsed']:.0f} s")  # fmt: skip
                    continue
                account = "import" if event["call"] == "import" else event["account"] or "the caller's account"
                if account not in bars:
                    bars[account] = (st.progress(0.0, text=f"{md_text(account)}"), set())
                bar, done = bars[account]
                if event["state"] != "calling" and "total" not in event:
                    done.add(event["call"])
                share = 1.0 if account == "import" else min(len(done) / whole, 1.0)
                if "total" in event:  # per-principal calls: a count of principals, at least every 0.5 s
                    share = min((len(done) + event["done"] / max(event["total"], 1)) / whole, 1.0)
                step = collection_step(event)
                bar.progress(share, text=f"{md_text(account)} · {len(done)}/{whole} calls · {md_text(step)}")
            for bar, _ in bars.values():
                bar.progress(1.0)
            ok = job.result is not None
            collecting.update(label="Collected and imported" if ok else "Collection failed", state="complete" if ok
                              else "error")  # fmt: skip
        if job.result is None:
            st.session_state.aws_collect_report = None
            st.error(f"**Nothing imported.** {md_text(job.error)}")
        else:
            imported = job.result["imported"]
            st.session_state.aws_collect_report = {k: v for k, v in job.result.items() if k != "imported"}
            st.session_state.aws_report = imported
            st.session_state.aws_next = top_principals(svc.tools, imported["accounts"])
            partial = job.result.get("status") == "partial"
            st.session_state.aws_notice = (
                f"Collected from AWS with profile {md_text(collect_profile)} and imported account(s) "
                f"{md_text(', '.join(imported['accounts']))}: {sum(job.result['calls'].values())} calls, "
                f"{len(job.result['warnings'])} collection warning(s)"
                + (" — PARTIAL: the manifest names what is missing." if partial else ".")
            )
            st.rerun()
collected = st.session_state.aws_collect_report
if collected:
    with st.container(border=True):
        st.markdown(
            f"**Last collection** — accounts {', '.join(md_code(a) for a in collected['accounts'])} · "
            f"{collected['files']} files · {sum(collected['calls'].values())} calls in {collected['seconds']:.1f} s"
        )
        st.dataframe(
            [{"call": k, "count": v} for k, v in sorted(collected["calls"].items())],
            hide_index=True,
            width="stretch",
            key="aws_collect_calls",
        )
        if collected["warnings"]:
            st.markdown(f"**Collection warnings ({len(collected['warnings'])})** — the collection went on.")
            st.dataframe(collected["warnings"], hide_index=True, width="stretch", key="aws_collect_warnings")

shown = st.session_state.aws_report
if shown:
    with st.container(border=True):
        st.markdown(f"**Last AWS import** — accounts {', '.join(md_code(a) for a in shown['accounts'])}")
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Nodes", sum(shown["counts"]["nodes"].values()))
        m2.metric("Relationships", sum(shown["counts"]["relationships"].values()))
        m3.metric("Alerts", shown["counts"]["alerts"])
        m4.metric("Warnings", len(shown["warnings"]))
        st.dataframe(
            [{"kind": "node", "name": k, "count": v} for k, v in sorted(shown["counts"]["nodes"].items())]
            + [
                {"kind": "relationship", "name": k, "count": v}
                for k, v in sorted(shown["counts"]["relationships"].items())
            ],
            hide_index=True,
            width="stretch",
            key="aws_counts",
        )
        removed = shown.get("removed") or {}
        st.caption(
            f"Removed (gone from the snapshot): {removed.get('nodes', 0)} nodes, {removed.get('relationships', 0)} "
            f"relationships · routes kept blocked: {len(shown.get('preserved_blocks') or [])} · "
            + " · ".join(f"{k.removesuffix('_s')} {v:.2f} s" for k, v in (shown.get("timings") or {}).items())
        )
        if shown["warnings"]:
            st.markdown(f"**Warnings ({len(shown['warnings'])})** — imported anyway; each names its file and item.")
            st.dataframe(
                [{"message": w["message"], "item": w["item"], "file": w["file"]} for w in shown["warnings"]],
                hide_index=True,
                width="stretch",
                key="aws_warnings",
                column_config={
                    "message": st.column_config.TextColumn(width="large"),
                    "item": st.column_config.TextColumn(width="medium"),
                    "file": st.column_config.TextColumn(width="small"),
                },
            )
        if shown["skipped"]:
            st.markdown(f"**Skipped files ({len(shown['skipped'])})**")
            st.dataframe(shown["skipped"], hide_index=True, width="stretch", key="aws_skipped")
    nxt = st.session_state.aws_next
    if nxt is not None:
        with st.container(border=True):
            st.markdown("**What to do next: the principals with the most qualifying paths to high or critical data**")
            if nxt.status is not Status.OK:
                st.error(f"**Could not rank the principals ({nxt.status.value}).** {md_text(nxt.message)}")
            elif not nxt.principals:
                st.info(f"{md_text(nxt.message)}. This is not a statement that the account is safe.")
            else:
                st.caption(md_text(nxt.message) + ". Open an alert on one to investigate and contain it.")
                for i, p in enumerate(nxt.principals):
                    c1, c2 = st.columns([4, 1])
                    c1.markdown(
                        f"{i + 1}. {md_code(p.id)} ({p.label}) — **{p.paths}{'+' if p.more else ''}** qualifying "
                        f"path(s), {p.critical} to critical data, {p.assets} asset(s)"
                    )
                    if c2.button("Open an alert", key=f"aws_next_open_{i}", help=p.arn or p.id) and require(
                        Permission.CONTAIN, "open alerts"
                    ):
                        count = f"{p.paths}{'+' if p.more else ''}"
                        title = f"After the AWS import: {count} qualifying path(s) to high or critical data"
                        open_alert_on(svc, p.id, title, switch=True)
