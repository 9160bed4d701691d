"""The fourth round's measurement: the family corpus (tests/helpers/briefing_families.py) on real evidence.

Contexts: the four seed scenarios as seeded and after a rules run, BH-CONTAINMENT-4001 after a run
capped at one action, and an AWS account on a moto server (tests/helpers/aws_live.py) contained in
the graph only (no respond profile) and on the account (the key set Inactive with UpdateAccessKey,
IAM User Guide, "Manage access keys for IAM users",
https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html). The generated
corpus and the figures are kept in tests/data/briefing_families/ and must match what is generated and
measured now; `UPDATE_BRIEFING_FIGURES=1` rewrites them (then copy the tables into docs/briefings.md
and BENCHMARKS.md).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from blastshield_core.base.settings import load_settings
from blastshield_core.brief.checker import check_text_outcome
from blastshield_core.graph.export import export_document
from blastshield_core.graph.seeds import seed
from blastshield_core.interfaces.cli import main
from blastshield_core.interfaces.service import Services, build_services, open_services
from blastshield_core.respond.decide import RulesDecider
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, MotoAccount, user_with_key_to_critical_bucket
from tests.helpers.briefing_families import Context, generate, measure, table
from tests.helpers.briefing_families_later import FAMILIES, FIFTH, FOURTH, HELD_OUT, SECOND, THIRD

moto_server = aws_live.moto_server  # the fixture

ALERTS = ("BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001")
DATA = Path(__file__).resolve().parents[2] / "data" / "briefing_families"
GOAL_RECALL, GOAL_FALSE_FLAGS = 0.95, 0.02


def _context(key: str, services: Services, alert: str, run_id: str | None, user: str = "") -> Context:
    ev = services.briefer.evidence(alert, run_id)
    doc = export_document(services.store)
    run = services.audit.get(run_id) if run_id else None
    return Context(
        key=key,
        ev=ev,
        run=run,
        edges=[(e.source, e.type, e.target, dict(e.properties)) for e in doc.edges],
        names={n.id: n.name for n in doc.nodes},
        arns={n.id: str(n.properties["arn"]) for n in doc.nodes if str(n.properties.get("arn", "")).startswith("arn:")},
        user=user or ev.entity_id,
    )


def _seed_contexts(store) -> tuple[list[tuple[Context, Services]], list]:
    out, views = [], []
    view = store.for_graph(f"round4_{uuid.uuid4().hex[:8]}")
    views.append(view)
    seed(view)
    services = build_services(view, view.settings.model_copy(update={"gemini_api_key": None}))
    out += [(_context(f"{a}/exposed", services, a, None), services) for a in ALERTS]
    for a in ALERTS:
        run = services.controller.run(a, RulesDecider(), 3, True)
        out.append((_context(f"{a}/after-run", services, a, run.run_id), services))
    capped_view = store.for_graph(f"round4c_{uuid.uuid4().hex[:8]}")
    views.append(capped_view)
    seed(capped_view)
    capped = build_services(capped_view, capped_view.settings.model_copy(update={"gemini_api_key": None}))
    run = capped.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 1, True)
    out.append((_context("BH-CONTAINMENT-4001/capped", capped, "BH-CONTAINMENT-4001", run.run_id), capped))
    return out, views


def _cli(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*argv, "--json"])
    data = json.loads(out.getvalue() or "{}")
    assert code == 0 or data.get("state") in ("completed", "graph_only"), data
    return data


def _aws_context(account: MotoAccount, root: Path, respond: bool) -> tuple[Context, Services]:
    """alice's key to a critical bucket, collected, an alert on alice, contained by the rules; its services."""
    account.reset()
    user_with_key_to_critical_bucket(account)
    data = str(root / ("applied" if respond else "graph-only"))
    with pytest.MonkeyPatch.context() as mp:
        if respond:
            mp.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
        _cli("collect-aws", "--out", str(root / "c"), "--import", "--data-dir", data)
        opened = _cli("alert", "open", f"{ACCOUNT}:user:alice", "--title", "alice's key", "--data-dir", data)
        alert_id = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
        # the key alone (cap 1): the context is a key's containment, not the revocations that may follow it
        run = _cli("contain", alert_id, "--decider", "rules", "--max-actions", "1", "--confirm", "--data-dir", data)
    assert run["state"] == ("completed" if respond else "graph_only")
    services = open_services(load_settings(data_dir=data))
    key = "aws/applied" if respond else "aws/graph-only"
    return _context(key, services, alert_id, run["run_id"], user="alice"), services


@pytest.fixture(scope="module")
def contexts(embedded_store, moto_server, tmp_path_factory) -> Iterator[list[tuple[Context, Services]]]:
    """Every context with the services its checks read the graph through."""
    root = tmp_path_factory.mktemp("round4")
    seeded, views = _seed_contexts(embedded_store)
    with pytest.MonkeyPatch.context() as mp:
        config = root / "aws-config"
        config.write_text(
            "".join(
                f"[profile {name}]\nregion = us-east-1\nendpoint_url = {moto_server}\n"
                f"aws_access_key_id = AKIA{name.upper():0<16}\naws_secret_access_key = secret-{name}\n"
                for name in ("collect", "respond")
            ),
            encoding="utf-8",
        )
        for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            mp.delenv(var, raising=False)
        mp.delenv("AWS_ENDPOINT_URL", raising=False)
        mp.delenv("BLASTSHIELD_AWS_RESPOND_PROFILE", raising=False)
        mp.setenv("AWS_CONFIG_FILE", str(config))
        mp.setenv("AWS_SHARED_CREDENTIALS_FILE", str(root / "no-credentials"))
        mp.setenv("BLASTSHIELD_AWS_COLLECT_PROFILE", "collect")
        account = MotoAccount(moto_server, config)
        aws = [_aws_context(account, root, respond) for respond in (False, True)]
        account.reset()
    yield seeded + aws
    for _, services in aws:
        services.store.close()
    for view in views:
        for name in (view.settings.graph, view.settings.audit_graph):
            if view.graph_exists(name):
                view.command("GRAPH.DELETE", name)


def _alias(c: Context, text: str) -> str:
    """The text as kept in the repo: an analyst alert's id (random) as ALERT."""
    return text.replace(c.ev.alert_id, "ALERT") if c.ev.alert_id.startswith("AN-") else text


@pytest.fixture(scope="module")
def measured(contexts):
    """The corpus, and its figures on each part."""
    by_key = {c.key: (c, services) for c, services in contexts}
    corpus = generate([c for c, _ in contexts], FAMILIES, HELD_OUT)

    def check(s):
        c, services = by_key[s.context]
        return check_text_outcome(s.text, c.ev, services.tools)

    tuning = measure([s for s in corpus if not s.held_out], check)
    held = measure([s for s in corpus if s.held_out and s.family not in SECOND | THIRD | FOURTH | FIFTH], check)
    second = measure([s for s in corpus if s.family in SECOND], check)
    third = measure([s for s in corpus if s.family in THIRD], check)
    fourth = measure([s for s in corpus if s.family in FOURTH], check)
    fifth = measure([s for s in corpus if s.family in FIFTH], check)
    return by_key, corpus, tuning, held, second, third, fourth, fifth


def _kept(by_key, corpus) -> str:
    return "".join(
        json.dumps(
            {
                "family": s.family,
                "part": "held-out-5"
                if s.family in FIFTH
                else "held-out-4"
                if s.family in FOURTH
                else "held-out-3"
                if s.family in THIRD
                else "held-out-2"
                if s.family in SECOND
                else "held-out"
                if s.held_out
                else "tuning",
                "context": s.context,
                "text": _alias(by_key[s.context][0], s.text),
                "truthful": s.truthful,
            },
            ensure_ascii=False,
        )
        + "\n"
        for s in corpus
    )


def _wrong(part) -> str:
    return "".join(
        f"- [{s.family}] {s.context}: {'truthful' if s.truthful else 'false'}: {s.text!r}"
        f" -> {[f.kind.value for f in o.flags] or ('unverified' if o.unverified else 'clean')}\n"
        for s, o in part[1]
    )


def _figures(tuning, *sets) -> str:
    """The tuning part's table, then each held-out set's, then the sentences each set has wrong."""
    held, second, third, fourth, fifth = sets
    return (
        "## Tuning part\n\n" + table(tuning[0]) + "\n\n"
        "## Held-out part (first set; its first measurement is in held_out_first.md)\n\n" + table(held[0]) + "\n\n"
        "## Second held-out set (its first measurement is in second_first.md)\n\n" + table(second[0]) + "\n\n"
        "## Third held-out set (its first measurement is in third_first.md)\n\n" + table(third[0]) + "\n\n"
        "## Fourth held-out set (its first measurement is in fourth_first.md)\n\n" + table(fourth[0]) + "\n\n"
        "## Fifth held-out set (no change was made for it)\n\n" + table(fifth[0]) + "\n\n"
        "## Held-out sentences judged wrongly (first set)\n\n" + _wrong(held) + "\n"
        "## Held-out sentences judged wrongly (second set)\n\n" + _wrong(second) + "\n"
        "## Held-out sentences judged wrongly (third set)\n\n" + _wrong(third) + "\n"
        "## Held-out sentences judged wrongly (fourth set)\n\n" + _wrong(fourth) + "\n"
        "## Held-out sentences judged wrongly (fifth set)\n\n" + _wrong(fifth)
    )


def test_corpus_and_figures_are_the_ones_kept(measured):
    """The corpus generated now, its split and its figures equal the ones in tests/data/briefing_families/."""
    by_key, corpus, tuning, held, second, third, fourth, fifth = measured
    corpus_text, figures = _kept(by_key, corpus), _figures(tuning, held, second, third, fourth, fifth)
    if os.environ.get("UPDATE_BRIEFING_FIGURES") == "1":
        DATA.mkdir(parents=True, exist_ok=True)
        (DATA / "corpus.jsonl").write_text(corpus_text, encoding="utf-8")
        (DATA / "figures.md").write_text(figures, encoding="utf-8")
    assert (DATA / "corpus.jsonl").read_text(encoding="utf-8") == corpus_text
    assert (DATA / "figures.md").read_text(encoding="utf-8") == figures


def test_corpus_covers_every_family_context_and_label(measured):
    """Every family yields sentences; both parts hold every claim kind, truthful and false sentences."""
    by_key, corpus, *_ = measured
    assert {s.family for s in corpus} == {f.name for f in FAMILIES}
    assert {s.context for s in corpus} == set(by_key) and len(by_key) == 11
    assert HELD_OUT and HELD_OUT < {f.name for f in FAMILIES}
    for part in (True, False):
        kinds = {f.kind for f in FAMILIES if (f.name in HELD_OUT) == part}
        assert kinds >= {"state", "route", "account", "count", "link", "through", "name"}
        mine = [s for s in corpus if s.held_out == part]
        assert {s.truthful for s in mine} == {True, False} and len(mine) >= 400
    assert not {s.family for s in corpus if s.held_out} & {s.family for s in corpus if not s.held_out}


def test_tuning_part_meets_the_goal(measured):
    """On the part the checker was tuned on: at least 95% of false claims flagged, at most 2% truthful flagged."""
    tuning = measured[2]
    whole = tuning[0]["all"]
    assert whole.recall >= GOAL_RECALL and whole.false_flag_rate <= GOAL_FALSE_FLAGS, table(tuning[0])
