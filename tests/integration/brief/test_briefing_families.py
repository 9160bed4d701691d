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
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from blastshield_core.base.settings import load_settings
from blastshield_core.brief.checker import check_text_outcome, read_sentences
from blastshield_core.brief.known_words import VOCABULARY
from blastshield_core.graph.export import export_document
from blastshield_core.graph.seeds import seed
from blastshield_core.interfaces.cli import main
from blastshield_core.interfaces.service import Services, build_services, open_services
from blastshield_core.respond.decide import RulesDecider
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, MotoAccount, user_with_key_to_critical_bucket
from tests.helpers.briefing_crossval import cross_validate, earlier_rounds, learn, module_text, verdicts
from tests.helpers.briefing_families import Context, first_contact, generate, measure, table
from tests.helpers.briefing_families_later import FAMILIES, HELD_OUT, PARTS

moto_server = aws_live.moto_server  # the fixture

ALERTS = ("BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001")
DATA = Path(__file__).resolve().parents[2] / "data" / "briefing_families"
KNOWN_WORDS = Path(__file__).resolve().parents[3] / "blastshield_core" / "brief" / "known_words.py"
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


_KEY_ID = re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")
_RUN_ID = re.compile(r"\brun-\d{8}T\d{6}-[0-9a-f]{6}\b")


def _alias(c: Context, text: str) -> str:
    """The text as kept in the repo: an analyst alert's id (random) as ALERT, an access key id moto made
    (random) as AKIA-KEY, a run's id (its time and a random part) as RUN-ID."""
    text = text.replace(c.ev.alert_id, "ALERT") if c.ev.alert_id.startswith("AN-") else text
    return _RUN_ID.sub("RUN-ID", _KEY_ID.sub("AKIA-KEY", text))


@pytest.fixture(scope="module")
def measured(contexts):
    """The corpus; each part's figures with the checker as it is, without the gate, and cross-validated."""
    by_key = {c.key: (c, services) for c, services in contexts}
    corpus = generate([c for c, _ in contexts], FAMILIES, HELD_OUT)
    parts = {p.key: [s for s in corpus if s.family in p.families] for p in PARTS}

    def check(s, vocabulary=VOCABULARY):
        c, services = by_key[s.context]
        return check_text_outcome(s.text, c.ev, services.tools, vocabulary=vocabulary)

    now = {key: measure(sentences, check) for key, sentences in parts.items()}
    plain = {id(s): check(s, None) for s in corpus}  # every clause the grammar reads judged: no gate
    read = {id(s): read_sentences(s.text, by_key[s.context][0].ev) for s in corpus}
    ungated = {key: verdicts(ss, lambda s: plain[id(s)], lambda s: read[id(s)]) for key, ss in parts.items()}
    evidence = {(a, state): by_key[f"{a}/{state}"][0].ev for a in ALERTS for state in ("exposed", "after-run")}
    others = {a: [evidence[(o, "exposed")].assets[0] for o in ALERTS if o != a] for a in ALERTS}
    tools = by_key["BH-1042/exposed"][1].tools
    earlier = earlier_rounds(evidence, others, lambda text, ev: check_text_outcome(text, ev, tools, vocabulary=None))
    crossed = cross_validate(parts, earlier, ungated, check)
    learned = learn([*earlier, *(item for items in ungated.values() for item in items)])
    return by_key, corpus, now, crossed, learned, plain


def _kept(by_key, corpus) -> str:
    key = {f: p.key for p in PARTS for f in p.families}
    return "".join(
        json.dumps(
            {
                "family": s.family,
                "part": key[s.family],
                "context": s.context,
                "text": _alias(by_key[s.context][0], s.text),
                "truthful": s.truthful,
            },
            ensure_ascii=False,
        )
        + "\n"
        for s in corpus
    )


def _wrong(part, by_key) -> str:
    return "".join(
        f"- [{s.family}] {s.context}: {'truthful' if s.truthful else 'false'}: {_alias(by_key[s.context][0], s.text)!r}"
        f" -> {[f.kind.value for f in o.flags] or ('unverified' if o.unverified else 'clean')}\n"
        for s, o in part[1]
    )


def _figures(now, crossed, by_key) -> str:
    """Each part's table with the checker as it is (fitted: every part has been seen), the leave-one-part-out
    estimate, then the sentences each part has wrong."""
    order = [p.key for p in PARTS]
    return (
        "".join(f"## {p.title}\n\n" + table(now[p.key][0]) + "\n\n" for p in PARTS)
        + "## Leave one part out (the gate's vocabulary learned from the other parts)\n\n"
        + table(crossed, "part left out", [*order, "all"])
        + "\n\n"
        + "".join(
            f"## Sentences judged wrongly ({p.title.lower()})\n\n" + _wrong(now[p.key], by_key) + "\n" for p in PARTS
        )
    )


def test_corpus_and_figures_are_the_ones_kept(measured):
    """The corpus generated now, its split, its figures and the gate's vocabulary equal the ones kept
    (tests/data/briefing_families/, blastshield_core/brief/known_words.py)."""
    by_key, corpus, now, crossed, learned, _ = measured
    corpus_text, figures, vocabulary = _kept(by_key, corpus), _figures(now, crossed, by_key), module_text(learned)
    if os.environ.get("UPDATE_BRIEFING_FIGURES") == "1":
        DATA.mkdir(parents=True, exist_ok=True)
        (DATA / "corpus.jsonl").write_text(corpus_text, encoding="utf-8")
        (DATA / "figures.md").write_text(figures, encoding="utf-8")
        KNOWN_WORDS.write_text(vocabulary, encoding="utf-8")
    assert (DATA / "corpus.jsonl").read_text(encoding="utf-8") == corpus_text
    assert (DATA / "figures.md").read_text(encoding="utf-8") == figures
    assert KNOWN_WORDS.read_text(encoding="utf-8") == vocabulary, "the gate's vocabulary is not the one learned"


def test_every_held_out_set_has_its_first_measurement(measured):
    """A held-out set is measured once, with the checker as it is when the set is added (the vocabulary kept,
    before it learns from the set): `UPDATE_BRIEFING_FIGURES=1` writes its file when there is none yet."""
    by_key, _, now, *_ = measured
    for part in PARTS:
        if not part.first:
            continue
        path = DATA / part.first
        if not path.exists() and os.environ.get("UPDATE_BRIEFING_FIGURES") == "1":
            path.write_text(first_contact(part, now[part.key][0], _wrong(now[part.key], by_key)), encoding="utf-8")
        assert path.exists(), f"{part.title} has no first measurement: run with UPDATE_BRIEFING_FIGURES=1"
        assert path.read_text(encoding="utf-8").startswith("# "), path


def test_corpus_covers_every_family_context_and_label(measured):
    """Every family yields sentences and belongs to one part; both the tuning part and the held-out sets hold
    every claim kind, truthful and false sentences."""
    by_key, corpus, *_ = measured
    assert {s.family for s in corpus} == {f.name for f in FAMILIES}
    assert {s.context for s in corpus} == set(by_key) and len(by_key) == 11
    assert sorted(f for p in PARTS for f in p.families) == sorted(f.name for f in FAMILIES)
    assert HELD_OUT == {f for p in PARTS if p.first for f in p.families}
    for part in (True, False):
        kinds = {f.kind for f in FAMILIES if (f.name in HELD_OUT) == part}
        assert kinds >= {"state", "route", "account", "count", "link", "through", "name"}
        mine = [s for s in corpus if s.held_out == part]
        assert {s.truthful for s in mine} == {True, False} and len(mine) >= 400


def test_the_gate_withholds_verdicts_and_adds_no_flag(measured):
    """The gate only withholds: with the vocabulary learned without the fifth set, a sentence of that set flagged
    with the gate is flagged without it, and one flagged without it and not with it lists the clause it did not
    judge. Within the false-flag goal fitted and cross-validated."""
    by_key, corpus, now, crossed, _, plain = measured
    last = PARTS[-1]
    read = {id(s): read_sentences(s.text, by_key[s.context][0].ev) for s in corpus}
    items = verdicts(
        [s for s in corpus if s.family not in last.families], lambda s: plain[id(s)], lambda s: read[id(s)]
    )
    vocabulary = learn(items).vocabulary
    withheld = 0
    for s in corpus:
        if s.family not in last.families:
            continue
        c, services = by_key[s.context]
        gated = check_text_outcome(s.text, c.ev, services.tools, vocabulary=vocabulary)
        assert {f.kind for f in gated.flags} <= {f.kind for f in plain[id(s)].flags}, s
        if plain[id(s)].flags and not gated.flags:
            withheld += 1
            assert gated.unverified, s
    assert withheld > 0
    assert now["tuning"][0]["all"].false_flag_rate <= GOAL_FALSE_FLAGS, table(now["tuning"][0])
    assert crossed["all"].false_flag_rate <= GOAL_FALSE_FLAGS, table(crossed, "part left out")


def test_tuning_part_meets_the_goal(measured):
    """On the part the checker was tuned on: at least 95% of false claims flagged, at most 2% truthful flagged."""
    whole = measured[2]["tuning"][0]["all"]
    assert whole.recall >= GOAL_RECALL and whole.false_flag_rate <= GOAL_FALSE_FLAGS, table(measured[2]["tuning"][0])
