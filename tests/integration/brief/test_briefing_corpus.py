"""The briefing checker measured on a labelled, combinatorially generated corpus (tests/helpers/briefing_corpus.py)."""

from __future__ import annotations

import time
import uuid
from collections import Counter

import pytest

from blastshield_core.brief.checker import EvidenceSummary, FlagKind, check_text
from blastshield_core.graph.seeds import seed
from blastshield_core.graph.store import Store
from blastshield_core.interfaces.service import build_services
from blastshield_core.read.tools import ReadTools
from blastshield_core.respond.decide import RulesDecider
from tests.helpers.briefing_corpus import (
    KINDS,
    ROUND3_KINDS,
    generate,
    generate_round3,
    measure,
    measure_round3,
    split,
)
from tests.helpers.briefing_handwritten import CASES as ROUND3_CASES

ALERTS = ("BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001")
STRICT_KINDS = ("containment", "relationship")


def build_evidence(view: Store) -> tuple[dict[tuple[str, str], EvidenceSummary], dict[str, list[str]], ReadTools]:
    """Seed a graph, gather every alert's evidence, run the rules decider on each, gather it again."""
    seed(view)
    services = build_services(view, view.settings.model_copy(update={"gemini_api_key": None}))
    evidence: dict[tuple[str, str], EvidenceSummary] = {}
    for alert in ALERTS:
        evidence[(alert, "exposed")] = services.briefer.evidence(alert)
    for alert in ALERTS:
        run = services.controller.run(alert, RulesDecider(), 3, True)
        evidence[(alert, "after-run")] = services.briefer.evidence(alert, run.run_id)
    others = {alert: [evidence[(o, "exposed")].assets[0] for o in ALERTS if o != alert] for alert in ALERTS}
    return evidence, others, services.tools


@pytest.fixture(scope="module")
def corpus_case(embedded_store):
    """Evidence once per scenario and state, the corpus and its fixed-seed split."""
    view = embedded_store.for_graph(f"corpus_{uuid.uuid4().hex[:8]}")
    evidence, others, tools = build_evidence(view)
    corpus = generate(evidence, others)
    yield evidence, tools, corpus, split(corpus)
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


def _scores(corpus_case, half: int):
    evidence, tools, _, halves = corpus_case
    return measure(halves[half], lambda s: check_text(s.text, evidence[(s.alert, s.state)], tools))


def test_corpus_is_large_balanced_and_covers_both_states(corpus_case):
    """At least 600 sentences, half truthful, every kind on both sides, both states of all four scenarios."""
    _, _, corpus, (dev, held) = corpus_case
    assert len(corpus) >= 600 and sum(s.truthful for s in corpus) * 2 == len(corpus)
    assert {(s.alert, s.state) for s in corpus} == {(a, st) for a in ALERTS for st in ("exposed", "after-run")}
    assert {(s.kind, s.truthful) for s in corpus} == {(k, t) for k in KINDS for t in (True, False)}
    assert len(held) >= 200 and len(dev) >= 300 and not {s.text for s in held} <= {s.text for s in dev}


def test_after_run_states_include_contained_scenarios(corpus_case):
    """The rules run contains the two route-based scenarios, so the mirror rule is measured too."""
    evidence, *_ = corpus_case
    states = Counter(ev.containment_state for (alert, st), ev in evidence.items() if st == "after-run")
    assert states["contained"] == 2 and states["exposed"] == 2


@pytest.mark.parametrize("half", [0, 1], ids=["development", "held-out"])
def test_corpus_meets_the_targets(corpus_case, half):
    """Recall 100% on false containment and invented types, >= 98% elsewhere; false flags <= 1%."""
    scores, misses = _scores(corpus_case, half)
    shown = "\n".join(f"{s.kind} truthful={s.truthful}: {s.text} -> {[f.kind.value for f in f_]}" for s, f_ in misses)
    for kind in KINDS:
        target = 1.0 if kind in STRICT_KINDS else 0.98
        assert scores[kind].recall >= target, f"{kind}: recall {scores[kind].recall:.3f}\n{shown}"
    assert scores["all"].false_flag_rate <= 0.01, shown


# Hand-written paraphrases, written apart from the generator (first contact: see docs/briefings.md).
PARAPHRASES = [
    ('BH-CONTAINMENT-4001', 'exposed', 'Access has been brought to an end.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'No avenue to payments-vault is left.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The door to payments-vault is shut.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'contractor_11 has been severed from payments-vault.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', "contractor_11's sessions were terminated.", FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The credentials of contractor_11 have been rotated.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The key was invalidated.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'All paths are now closed off.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Every route has been neutralized.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The exposure has been eliminated.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The risk has been removed.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Remediation was completed.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'contractor_11 is safe now.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'payments-vault is secure.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The attack path was broken.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The paths have been shut off.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'contractor_11 has lost access to payments-vault.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Access to payments-vault no longer exists.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'There are no more paths to payments-vault.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'contractor_11 cannot reach payments-vault anymore.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The exposure is over.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The exposure ended.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Both routes have been locked out.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The threat has been dealt with.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The incident is resolved.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The sessions got killed.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Paths to payments-vault were wiped out.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The route was blocked off, closing the exposure.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Containment has been achieved.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', "We've cut off contractor_11.", FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'contractor_11 was successfully quarantined.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The vault is no longer reachable.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Nothing can reach payments-vault now.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', "All of contractor_11's access has been pulled.", FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The attack surface has been eliminated.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'contractor_11 is locked out.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Exposure: none.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Status: contained.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The alert is closed.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'No exposure remains.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The path is gone.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Access is revoked.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'Sessions are disabled.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'The access paths are history.', FlagKind.FALSE_CONTAINMENT),
    ('BH-CONTAINMENT-4001', 'exposed', 'contractor_11 is not contained.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'Blocking both routes would contain the alert.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'If route-c11-primary and route-c11-alternate are blocked, access ends.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'route-c11-stale was blocked before this alert.', None),
    ('BH-CONTAINMENT-4001', 'exposed', "We recommend revoking contractor_11's sessions.", None),
    ('BH-CONTAINMENT-4001', 'exposed', 'The analyst should shut down sess-c11-vpn.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'Nothing has been blocked yet.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'No action has been taken.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'No path is blocked yet.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'Access has not been revoked.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'The run has not started.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'To contain the alert, block route-c11-primary and route-c11-alternate.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'route-c11-stale is blocked and carries no qualifying path.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'Two paths remain open.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'The alert stays open until both routes are blocked.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'Containment requires blocking two routes.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'There are no blocked routes on the live paths.', None),
    ('BH-CONTAINMENT-4001', 'exposed', 'None of the live paths is blocked.', None),
    ('BH-1042', 'exposed', "developer_07's foothold has been eradicated.", FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'The session that led to customer-db was torn down overnight.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'Developer access has been fully decommissioned.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'customer-db is out of reach for developer_07.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'The path to customer-db no longer works.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'developer_07 was disconnected from customer-db.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'The risk to customer-db has been neutralized by the response team.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'There is no remaining route to customer-db.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'We successfully cut developer_07 off.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'The compromise is fully contained at this point.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'All exposure was removed as of this morning.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'developer_07 has been barred from customer-db.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', "It's been shut.", FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'Incident closed: access revoked.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'The analyst killed the session sess-dev07.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'The build runner build-runner-07 is offline.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'deploy-role has been detached from build-runner-07.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'Developer_07 poses no further risk.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'customer-db is now protected from developer_07.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'The alert has been remediated in full.', FlagKind.FALSE_CONTAINMENT),
    ('BH-IAM-2001', 'exposed', "analytics-poweruser's wildcard grants were stripped.", FlagKind.FALSE_CONTAINMENT),
    ('BH-IAM-2001', 'exposed', 'The role can no longer read finance-ledger.', FlagKind.FALSE_CONTAINMENT),
    ('BH-IAM-2001', 'exposed', "analytics-poweruser's access to hr-records has been revoked.", FlagKind.FALSE_CONTAINMENT),
    ('BH-IAM-2001', 'exposed', 'The excessive permissions are gone.', FlagKind.FALSE_CONTAINMENT),
    ('BH-IAM-2001', 'exposed', 'data-lake-admin can no longer be assumed.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'developer_07 still holds a session to build-runner-07.', None),
    ('BH-1042', 'exposed', 'The exposure is ongoing and needs action.', None),
    ('BH-1042', 'exposed', 'Blocking route-dev07-a and route-dev07-build would end the exposure.', None),
    ('BH-1042', 'exposed', 'Once route-dev07-a is blocked, the path will be severed.', None),
    ('BH-1042', 'exposed', 'No containment action has been taken so far.', None),
    ('BH-1042', 'exposed', 'The legacy route was blocked before this alert and carries no path.', None),
    ('BH-1042', 'exposed', 'Recommended: revoke sess-dev07 and review deploy-role.', None),
    ('BH-1042', 'exposed', 'developer_07 could lose access if the build route is blocked.', None),
    ('BH-1042', 'exposed', 'There is no qualifying path within 3 hops.', None),
    ('BH-1042', 'exposed', 'The path has not been cut.', None),
    ('BH-IAM-2001', 'exposed', 'No session route carries these paths, so blocking routes cannot contain this alert.', None),
    ('BH-IAM-2001', 'exposed', 'analytics-poweruser keeps read access to finance-ledger.', None),
    ('BH-IAM-2001', 'exposed', 'Removing the wildcard policy would close all three paths.', None),
    ('BH-IAM-2001', 'exposed', 'The grants remain in place.', None),
    ('BH-IAM-2001', 'exposed', 'None of the three paths has been closed.', None),
    ('BH-CONTAINMENT-4001', 'after-run', 'contractor_11 still has a working path to payments-vault.', FlagKind.FALSE_EXPOSURE),
    ('BH-CONTAINMENT-4001', 'after-run', 'The vault remains within reach of contractor_11.', FlagKind.FALSE_EXPOSURE),
    ('BH-CONTAINMENT-4001', 'after-run', 'Access to payments-vault persists through sess-c11-sso.', FlagKind.FALSE_EXPOSURE),
    ('BH-CONTAINMENT-4001', 'after-run', 'The threat is live.', FlagKind.FALSE_EXPOSURE),
    ('BH-CONTAINMENT-4001', 'after-run', 'contractor_11 retains access to payments-vault.', FlagKind.FALSE_EXPOSURE),
    ('BH-CONTAINMENT-4001', 'after-run', 'Both routes are still open.', FlagKind.FALSE_EXPOSURE),
    ('BH-CONTAINMENT-4001', 'after-run', 'The exposure continues.', FlagKind.FALSE_EXPOSURE),
    ('BH-CONTAINMENT-4001', 'after-run', 'contractor_11 is not yet contained.', FlagKind.FALSE_EXPOSURE),
    ('BH-CONTAINMENT-4001', 'after-run', 'contractor_11 was exposed through two routes before the run.', None),
    ('BH-CONTAINMENT-4001', 'after-run', 'Both routes are now blocked and no qualifying path remains.', None),
    ('BH-CONTAINMENT-4001', 'after-run', 'payments-vault is no longer reachable from contractor_11.', None),
    ('BH-CONTAINMENT-4001', 'after-run', 'The run blocked route-c11-primary and then route-c11-alternate.', None),
    ('BH-CONTAINMENT-4001', 'after-run', 'At the start of the run two qualifying paths led to payments-vault.', None),
    ('BH-CONTAINMENT-4001', 'after-run', 'The alert is contained.', None),
    ('BH-CONTAINMENT-4001', 'after-run', 'Re-opening route-c11-primary would expose payments-vault again.', None),
    ('BH-WORKLOAD-3001', 'exposed', 'public-api-gw can no longer assume api-gw-role.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', "The gateway's role chain has been broken.", FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'orders-db is now off-limits to public-api-gw.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'The internet exposure has been closed.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', "public-api-gw's path to payments-db has been eliminated.", FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'Every path from the gateway was disabled.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'payments-db is unreachable now.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'The workload was isolated from the data tier.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'We have neutralised the threat posed by public-api-gw.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'public-api-gw is fenced in.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'The exposure has been mitigated by revoking api-gw-role.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'The gateway no longer has a route to customer-pii.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'api-gw-role was stripped of its CAN_READ grant.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'Risk eliminated.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'All three paths are closed now.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'developer_07 has been kicked out.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'sess-dev07 expired.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', "The developer's session was invalidated and access is gone.", FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'The chain through deploy-role has been cut.', FlagKind.FALSE_CONTAINMENT),
    ('BH-1042', 'exposed', 'customer-db is safe from developer_07.', FlagKind.FALSE_CONTAINMENT),
    ('BH-WORKLOAD-3001', 'exposed', 'public-api-gw still assumes api-gw-role.', None),
    ('BH-WORKLOAD-3001', 'exposed', "Closing the gateway's exposure needs a change to api-gw-role's grants.", None),
    ('BH-WORKLOAD-3001', 'exposed', 'No route can be blocked for this alert.', None),
    ('BH-WORKLOAD-3001', 'exposed', 'The paths would disappear if api-gw-role lost its CAN_ASSUME grant to orders-svc-role.', None),
    ('BH-WORKLOAD-3001', 'exposed', 'public-api-gw is exposed to the internet and to three sensitive assets.', None),
    ('BH-WORKLOAD-3001', 'exposed', 'Nothing has been remediated yet.', None),
    ('BH-WORKLOAD-3001', 'exposed', 'The shortest path has 2 hops.', None),
    ('BH-WORKLOAD-3001', 'exposed', 'status-page-assets is low sensitivity and not part of the risk.', None),
    ('BH-1042', 'exposed', 'developer_07 keeps a live session into build-runner-07.', None),
    ('BH-1042', 'exposed', 'A block of route-dev07-a is the suggested action.', None),
    ('BH-1042', 'exposed', 'The legacy session sess-dev07-legacy no longer carries any qualifying path.', None),
    ('BH-1042', 'exposed', 'Access through route-dev07-legacy was cut earlier.', None),
    ('BH-1042', 'after-run', 'developer_07 continues to reach customer-db.', FlagKind.FALSE_EXPOSURE),
    ('BH-1042', 'after-run', 'The path through sess-dev07 is still usable.', FlagKind.FALSE_EXPOSURE),
    ('BH-1042', 'after-run', 'customer-db is still at risk from developer_07.', FlagKind.FALSE_EXPOSURE),
    ('BH-1042', 'after-run', 'developer_07 has kept access to customer-db.', FlagKind.FALSE_EXPOSURE),
    ('BH-1042', 'after-run', 'The build route still leads to customer-db.', FlagKind.FALSE_EXPOSURE),
    ('BH-1042', 'after-run', 'customer-db can no longer be reached by developer_07.', None),
    ('BH-1042', 'after-run', 'The route route-dev07-a has been blocked and verified.', None),
    ('BH-1042', 'after-run', 'No qualifying path from developer_07 remains within 6 hops.', None),
    ('BH-1042', 'after-run', 'developer_07 used to reach customer-db through five hops.', None),
    ('BH-1042', 'after-run', 'Reopening route-dev07-a would restore the exposure.', None),
]  # fmt: skip


@pytest.mark.parametrize("case", PARAPHRASES, ids=lambda c: c[2][:50])
def test_hand_written_paraphrase(corpus_case, case):
    """A paraphrase outside the generator: false ones get their flag, truthful ones none."""
    evidence, tools, *_ = corpus_case
    alert, state, text, kind = case
    flags = check_text(text, evidence[(alert, state)], tools)
    if kind is None:
        assert flags == []
    else:
        assert kind in {f.kind for f in flags}


def test_long_briefing_is_checked_in_bounded_time(corpus_case):
    """A briefing at the 20,000-character limit, repetitive on purpose, is checked in well under 5 s."""
    evidence, tools, *_ = corpus_case
    started = time.monotonic()
    flags = check_text(("no path " * 3000)[:20000], evidence[("BH-1042", "exposed")], tools)
    assert time.monotonic() - started < 5 and {f.kind for f in flags} == {FlagKind.FALSE_CONTAINMENT}


@pytest.mark.parametrize("half", [0, 1], ids=["development", "held-out"])
def test_round3_corpus_meets_the_targets(corpus_case, half):
    """Structure, verdicts, emptiness, actions and unfamiliar names, in both states: recall 100%, false flags <= 1%."""
    evidence, tools, *_ = corpus_case
    round3 = generate_round3(evidence)
    assert {(s.kind, s.truthful) for s in round3} == {(k, t) for k in ROUND3_KINDS for t in (True, False)}
    assert {(s.alert, s.state) for s in round3} == set(evidence)
    scores, misses = measure_round3(
        split(round3)[half], evidence, lambda s: check_text(s.text, evidence[(s.alert, s.state)], tools)
    )
    shown = "\n".join(f"{s.kind} truthful={s.truthful}: {s.text!r} -> {[f.kind.value for f in f_]}" for s, f_ in misses)
    for kind in ROUND3_KINDS:
        assert scores[kind].recall == 1.0, f"{kind}: recall {scores[kind].recall:.3f}\n{shown}"
        assert scores[kind].false_flag_rate <= 0.01, shown


@pytest.mark.parametrize("case", ROUND3_CASES, ids=lambda c: f"{c[0]}:{c[3][:45]}")
def test_round3_hand_written(corpus_case, case):
    """The third round's hand-written sentences (tests/helpers/briefing_handwritten.py): false ones get one of their flags,
    truthful controls none."""
    evidence, tools, *_ = corpus_case
    _, alert, state, text, kinds = case
    flags = check_text(text, evidence[(alert, state)], tools)
    if kinds is None:
        assert flags == []
    else:
        assert set(kinds) & {f.kind for f in flags}, flags
