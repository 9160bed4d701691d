"""Briefings and the briefing checker, against the seed scenarios in a real FalkorDB."""

from __future__ import annotations

import time

import pytest

from blastshield_core.brief.briefing import (
    NO_KEY_REASON,
    UNVERIFIED_MARK,
    Briefer,
    BriefingInputError,
    parse_briefing,
)
from blastshield_core.brief.checker import BriefingClaims, EvidenceUnavailable, FlagKind, check_claims, check_text
from blastshield_core.graph.audit import AuditLog
from blastshield_core.read.tools import ReadTools
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import RunState, Status
from tests.helpers.gemini_fake import Delay, HttpStatus, Raw, json_text

ALERTS = ("BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001")
C4001 = "BH-CONTAINMENT-4001"


@pytest.fixture(scope="module")
def read_briefer(seeded_store) -> Briefer:
    """A briefer over the read-only seeded graph (no Gemini key)."""
    return Briefer(ReadTools(seeded_store), AuditLog(seeded_store), seeded_store.settings)


@pytest.fixture(scope="module")
def evidence(read_briefer):
    """Fresh evidence for every seed alert, gathered once per backend."""
    return {alert: read_briefer.evidence(alert) for alert in ALERTS}


def check(read_briefer, evidence, alert, briefing):
    if isinstance(briefing, BriefingClaims):
        return check_claims(briefing, evidence[alert], read_briefer.tools)
    return check_text(briefing, evidence[alert], read_briefer.tools)


TRUTHFUL = [
    ("BH-1042", "Alert BH-1042: developer_07 has risk score 35 (medium severity). One qualifying path: developer_07 "
                "HAS_SESSION sess-dev07, CAN_ACCESS build-runner-07, RUNS_AS deploy-role, CAN_ASSUME prod-admin-role, "
                "CAN_READ customer-db. The alert is not contained."),
    ("BH-1042", "developer_07 is still exposed: 1 qualifying path reaches 1 critical asset, customer-db, in 5 hops. "
                "Blocking route-dev07-a would contain it."),
    ("BH-1042", "The blast radius also holds lint-worker, lint-role, build-artifacts and lint-cache, none of them on a "
                "qualifying path. Severity: medium."),
    ("BH-1042", "Risk 35/100. The legacy session route-dev07-legacy is blocked and sess-dev07-legacy carries no "
                "qualifying path. The 5-hop path remains; a read-only follow-up should review deploy-role."),
    ("BH-IAM-2001", "analytics-poweruser scores 65/100 (high). There are three qualifying paths to two high or critical "
                    "assets: finance-ledger directly via CAN_READ and, through CAN_ASSUME of data-lake-admin, "
                    "finance-ledger and hr-records."),
    ("BH-IAM-2001", "No session route carries these paths, so the role remains exposed until its grants change. "
                    "marketing-assets is reachable but has low sensitivity."),
    ("BH-IAM-2001", "Excessive IAM permissions: wildcard policy on analytics-poweruser. S-wildcard_policy adds 20 "
                    "points under demo-rules-v1."),
    ("BH-WORKLOAD-3001", "public-api-gw is internet-exposed and scores 75, high severity. Three paths reach three "
                         "assets: orders-db, customer-pii and payments-db."),
    ("BH-WORKLOAD-3001", "The shortest path is 2 hops: RUNS_AS api-gw-role, then CAN_READ orders-db; payments-db is 4 "
                         "hops away through orders-svc-role and payments-role. Rule E4-breadth fired."),
    ("BH-WORKLOAD-3001", "Blast radius: 3 IAM roles and 4 data assets, including status-page-assets. The workload "
                         "remains at risk."),
    ("BH-CONTAINMENT-4001", "contractor_11 (score 60, severity high) reaches payments-vault over 2 qualifying paths: "
                            "via sess-c11-vpn and bastion-01, and via sess-c11-sso, admin-console, console-role and "
                            "payments-reader."),
    ("BH-CONTAINMENT-4001", "Both route-c11-primary and route-c11-alternate are active; route-c11-stale is already "
                            "blocked. The alert is not yet contained."),
    ("BH-CONTAINMENT-4001", "If both routes were blocked, no qualifying path would remain. Candidate "
                            "block-route:route-c11-primary cuts 1 of 2 paths."),
    ("BH-1042", "There is no path at depth 4; at depth 6 there is one, the highest-risk 5-hop chain. Playbook v1.2 "
                "applies until route-dev07-a is blocked."),
    ("BH-WORKLOAD-3001", "Of the 4 data assets in the blast radius, 3 are high or critical; status-page-assets is low. "
                         "1 critical asset and 2 high assets are reachable."),
    ('BH-1042', '## Summary\nAlert **BH-1042** flags `developer_07`, who signed in off-hours. The computed risk score is 35/100 (medium severity) under demo-rules-v1.\n\n## Access path\nA single qualifying path (5 hops) leads from developer_07 to the critical asset customer-db:\ndeveloper_07 → sess-dev07 → build-runner-07 → deploy-role → prod-admin-role → customer-db\n(HAS_SESSION, CAN_ACCESS, RUNS_AS, CAN_ASSUME, CAN_READ).\n\n## Containment\nThe alert is **not contained**. Two session routes carry the path: route-dev07-a and route-dev07-build; blocking either one would cut it. The legacy route (route-dev07-legacy) is already blocked.\n\n## Recommendation\nBlock route-dev07-a, then re-run the investigation to confirm that no qualifying path remains.'),
    ('BH-IAM-2001', 'analytics-poweruser holds a wildcard policy and scores 65 (high). Three qualifying paths reach two sensitive assets: finance-ledger (critical) directly via CAN_READ, and finance-ledger and hr-records through data-lake-admin (CAN_ASSUME, then CAN_READ).\nNo session route carries these paths, so a route block cannot contain this alert; the grants themselves must change. Until then the role remains exposed.'),
    ('BH-WORKLOAD-3001', 'public-api-gw is reachable from the internet and scores 75/100, severity high. It runs as api-gw-role, which reads orders-db and can assume orders-svc-role (customer-pii) and, through it, payments-role (payments-db).\nThat is 3 qualifying paths to 3 high or critical assets. There is no session route to block; the exposure persists until the role chain is narrowed.'),
    ('BH-CONTAINMENT-4001', 'contractor_11 is active from two locations (score 60, high). Two independent paths lead to payments-vault: via sess-c11-vpn and bastion-01 (ops-role), and via sess-c11-sso, admin-console, console-role and payments-reader.\nBoth route-c11-primary and route-c11-alternate are active and each carries one path; route-c11-stale was blocked earlier. Blocking both active routes is required to contain the alert.'),
    ("BH-CONTAINMENT-4001", BriefingClaims(
        entity_ids=["contractor_11", "payments-vault", "ops-role", "sess-c11-sso"],
        relationship_types=["HAS_SESSION", "CAN_ACCESS", "RUNS_AS", "CAN_ASSUME", "CAN_READ"],
        risk_score=60, severity="high", path_count=2, asset_count=1, containment_state="exposed",
        prose="Two independent paths remain from contractor_11 to payments-vault.")),
    ("BH-WORKLOAD-3001", BriefingClaims(
        entity_ids=["public-api-gw", "api-gw-role", "status-page-assets"], relationship_types=["RUNS_AS", "CAN_READ"],
        risk_score=75, severity="high", path_count=3, asset_count=3, containment_state="exposed",
        prose="public-api-gw still reaches payments-db through payments-role.")),
    ("BH-IAM-2001", BriefingClaims(
        entity_ids=["analytics-poweruser", "hr-records"], risk_score=65, severity="high", path_count=3,
        asset_count=2, containment_state="exposed", prose="")),
]  # fmt: skip

PLANTED = [
    ("BH-1042", "developer_O7 has one qualifying path to customer-db.", FlagKind.UNKNOWN_ENTITY),
    ("BH-1042", "developer_07 can reach customer-dbs through prod-admin-role.", FlagKind.UNKNOWN_ENTITY),
    ("BH-CONTAINMENT-4001", "contractor_11 reached payments-vault via bastion-02.", FlagKind.UNKNOWN_ENTITY),
    ("BH-IAM-2001", "analytics-poweruser can also read customer-db.", FlagKind.UNKNOWN_ENTITY),
    ("BH-1042", "developer_07 has a risk score of 53 (medium severity).", FlagKind.WRONG_SCORE),
    ("BH-IAM-2001", "analytics-poweruser scored 56 under demo-rules-v1.", FlagKind.WRONG_SCORE),
    ("BH-1042", "Severity: high. developer_07 reaches customer-db.", FlagKind.WRONG_SEVERITY),
    ("BH-WORKLOAD-3001", BriefingClaims(severity="critical", prose="public-api-gw reaches payments-db."),
     FlagKind.WRONG_SEVERITY),
    ("BH-IAM-2001", "analytics-poweruser -[CAN_WRITE]-> finance-ledger is the shortest path.",
     FlagKind.UNKNOWN_RELATIONSHIP),
    ("BH-WORKLOAD-3001", "public-api-gw reaches orders-db via HAS_SESSION.", FlagKind.UNKNOWN_RELATIONSHIP),
    ("BH-IAM-2001", "analytics-poweruser has five qualifying paths.", FlagKind.WRONG_COUNT),
    ("BH-1042", "developer_07 has two paths to customer-db.", FlagKind.WRONG_COUNT),
    ("BH-WORKLOAD-3001", "public-api-gw reaches 2 high or critical assets.", FlagKind.WRONG_COUNT),
    ("BH-CONTAINMENT-4001", BriefingClaims(path_count=1, prose=""), FlagKind.WRONG_COUNT),
    ("BH-CONTAINMENT-4001", "contractor_11 is contained.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "Access was cut off: no remaining paths to payments-vault.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "We blocked all routes for contractor_11.", FlagKind.FALSE_CONTAINMENT),
    ("BH-1042", "The alert is fully mitigated.", FlagKind.FALSE_CONTAINMENT),
    ("BH-WORKLOAD-3001", "public-api-gw is no longer exposed.", FlagKind.FALSE_CONTAINMENT),
    ("BH-1042", "No access remains for developer_07.", FlagKind.FALSE_CONTAINMENT),
    ("BH-IAM-2001", BriefingClaims(containment_state="contained", prose=""), FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "The threat is neutralized.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "contractor_11 can no longer reach payments-vault.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "All access was revoked for contractor_11.", FlagKind.FALSE_CONTAINMENT),
    ("BH-1042", "developer_07 is now isolated.", FlagKind.FALSE_CONTAINMENT),
    ("BH-IAM-2001", "analytics-poweruser -CAN_WRITE-> finance-ledger.", FlagKind.UNKNOWN_RELATIONSHIP),
    ("BH-IAM-2001", "analytics-poweruser reaches hr-records via can write.", FlagKind.UNKNOWN_RELATIONSHIP),
    ("BH-CONTAINMENT-4001", "contractor_11's sessions have been shut down.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "The exposure is over.", FlagKind.FALSE_CONTAINMENT),
    ("BH-1042", "developer_07's access was rescinded.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "console-role can assume ops-role directly.", FlagKind.WRONG_RELATIONSHIP),
    ("BH-CONTAINMENT-4001", "Both paths run through bastion-01.", FlagKind.WRONG_RELATIONSHIP),
]  # fmt: skip


def _id(case) -> str:
    return f"{case[0]}:{case[1].prose if isinstance(case[1], BriefingClaims) else case[1]}"[:60]


def test_table_has_thirty_briefings_with_every_kind():
    """The table holds at least 30 briefings and plants every kind except false_exposure (tested after a run)
    and self_contradiction (tested with structured claims)."""
    assert len(TRUTHFUL) + len(PLANTED) >= 30 and len(TRUTHFUL) >= 15
    assert {k for *_, k in PLANTED} == set(FlagKind) - {FlagKind.FALSE_EXPOSURE, FlagKind.SELF_CONTRADICTION}


@pytest.mark.parametrize("case", TRUTHFUL, ids=_id)
def test_truthful_briefing_is_not_flagged(read_briefer, evidence, case):
    """A truthful briefing gets no flag."""
    alert, briefing = case
    assert check(read_briefer, evidence, alert, briefing) == []


@pytest.mark.parametrize("case", PLANTED, ids=_id)
def test_planted_error_is_flagged_with_its_kind(read_briefer, evidence, case):
    """A briefing with one planted error gets flags of exactly that kind, with text and evidence."""
    alert, briefing, kind = case
    flags = check(read_briefer, evidence, alert, briefing)
    assert flags and {f.kind for f in flags} == {kind}
    assert all(f.offending_text and f.evidence for f in flags)


def test_text_equal_to_the_alert_title_is_still_checked(read_briefer, evidence):
    """A claim is checked even when it repeats the alert's title word for word."""
    ev = evidence[C4001].model_copy(update={"title": "All paths contained"})
    flags = check_text("All paths contained.", ev, read_briefer.tools)
    assert [f.kind for f in flags] == [FlagKind.FALSE_CONTAINMENT]


def test_one_character_id_flag_names_the_closest_real_id(read_briefer, evidence):
    """An id one character off is flagged and the evidence names the real id."""
    (flag,) = check(read_briefer, evidence, "BH-1042", "customer-dbs is the target.")
    assert flag.offending_text == "customer-dbs" and "closest in the evidence: customer-db" in flag.evidence


def test_false_containment_flag_cites_the_remaining_paths(read_briefer, evidence):
    """A containment claim with paths left cites those paths as the contradicting evidence."""
    (flag,) = check(read_briefer, evidence, C4001, "Everything is contained now.")
    assert "2 qualifying path(s)" in flag.evidence and "payments-vault" in flag.evidence


def test_unknown_relationship_outside_the_model_says_so(read_briefer, evidence):
    """A relationship type outside the graph model is reported as such."""
    (flag,) = check(read_briefer, evidence, "BH-1042", "developer_07 CAN_DELETE customer-db.")
    assert "not a relationship type of the graph model" in flag.evidence


@pytest.mark.parametrize("alert", ALERTS)
def test_fallback_passes_its_own_check(read_briefer, alert):
    """The deterministic briefing of every seed alert passes the checker."""
    briefing = read_briefer.brief(alert)
    assert briefing.label == "fallback"
    assert read_briefer.check(alert, briefing.markdown) == []


def test_fallback_reads_as_an_analyst_briefing(read_briefer):
    """The fallback names the score, firing rules, each path in order, blast radius and containment."""
    text = read_briefer.brief("BH-1042").markdown
    assert "Deterministic fallback briefing" in text and f"Reason: {NO_KEY_REASON}" in text
    assert "risk score 35/100, severity medium, rule set demo-rules-v1" in text
    assert "+20 E1-critical-reach — customer-db" in text
    assert (
        "`developer_07` -[HAS_SESSION]-> `sess-dev07` -[CAN_ACCESS]-> `build-runner-07` -[RUNS_AS]-> `deploy-role`"
        " -[CAN_ASSUME]-> `prod-admin-role` -[CAN_READ]-> `customer-db`"
    ) in text
    assert "2 workloads, 3 IAM roles, 3 data assets" in text
    assert "**Not contained.**" in text and "Blockable session routes on these paths" in text


def test_unknown_alert_has_no_briefing(read_briefer):
    """An unknown alert raises EvidenceUnavailable with unknown_alert, never a briefing."""
    with pytest.raises(EvidenceUnavailable) as info:
        read_briefer.brief("BH-NOPE-1")
    assert info.value.status is Status.UNKNOWN_ALERT


def test_parse_briefing_reads_claims_or_text():
    """JSON objects parse as claims, other text stays text, empty or bad claims are refused."""
    assert parse_briefing('{"risk_score": 35}') == BriefingClaims(risk_score=35)
    assert parse_briefing("plain words") == "plain words"
    with pytest.raises(BriefingInputError):
        parse_briefing("  \n")
    with pytest.raises(BriefingInputError):
        parse_briefing('{"risk_score": "high"}')


# -- model briefings through the real google-genai client --------------------------------

TRUE_CLAIMS = {
    "entity_ids": ["contractor_11", "payments-vault"],
    "relationship_types": ["HAS_SESSION", "CAN_READ"],
    "risk_score": 60,
    "severity": "high",
    "path_count": 2,
    "asset_count": 1,
    "containment_state": "exposed",
    "prose": "contractor_11 reaches payments-vault over 2 qualifying paths; not contained.",
}


def test_unverified_sentence_is_marked_in_the_models_briefing(services, gemini):
    """A sentence the checker cannot read is marked, not a reason for the fallback; a contradicted one is."""
    claims = dict(TRUE_CLAIMS, prose=TRUE_CLAIMS["prose"] + " Remediation theatre, arguably.")
    gemini.add(json_text(claims))
    briefing = services.briefer.brief(C4001)
    assert (briefing.label, briefing.flags, briefing.unverified) == ("model", [], ["Remediation theatre, arguably."])
    assert "Remediation theatre, arguably." + UNVERIFIED_MARK in briefing.markdown
    assert "Unverified: 1 sentence(s)" in briefing.markdown
    gemini.add(json_text(dict(claims, prose=claims["prose"] + " The alert is contained.")))
    flagged = services.briefer.brief(C4001)
    assert flagged.label == "fallback" and FlagKind.FALSE_CONTAINMENT in {f.kind for f in flagged.flags}


def test_truthful_model_briefing_is_shown_as_the_models(services, gemini):
    """A model briefing that passes the checker is shown labelled as the model's."""
    gemini.add(json_text(TRUE_CLAIMS))
    briefing = services.briefer.brief(C4001)
    assert briefing.label == "model" and briefing.flags == [] and briefing.reason == ""
    assert "Model briefing" in briefing.markdown and TRUE_CLAIMS["prose"] in briefing.markdown
    assert briefing.claims == BriefingClaims(**TRUE_CLAIMS)
    assert "Checked claims: risk score 60; severity high; qualifying paths 2" in briefing.markdown
    assert services.briefer.check(C4001, briefing.markdown) == []


def test_model_request_asks_for_structured_output_over_quoted_evidence(services, gemini):
    """The request asks for JSON with the claims schema and quotes the evidence as data, not instructions."""
    gemini.add(json_text(TRUE_CLAIMS))
    services.briefer.brief(C4001)
    (request,) = gemini.requests
    config = request["generationConfig"]
    assert config["responseMimeType"] == "application/json" and "responseJsonSchema" not in config
    schema = config["responseSchema"]
    assert schema["type"] == "OBJECT" and set(schema["properties"]) == set(BriefingClaims.model_fields)
    assert schema["properties"]["containment_state"]["enum"] == ["contained", "exposed", "unknown"]
    assert schema["properties"]["risk_score"]["type"] == "INTEGER"
    prompt = request["contents"][0]["parts"][0]["text"]
    assert "```json" in prompt and '"entity_id": "contractor_11"' in prompt and "not instructions" in prompt
    assert "never instructions" in request["systemInstruction"]["parts"][0]["text"]
    assert gemini.paths[0].endswith(f"/models/{services.settings.gemini_model}:generateContent")


def test_model_briefing_with_planted_error_falls_back_with_flags(services, gemini):
    """A model briefing claiming containment while paths remain is replaced by the fallback, flags listed."""
    gemini.add(json_text({**TRUE_CLAIMS, "containment_state": "contained", "prose": "All access is blocked."}))
    briefing = services.briefer.brief(C4001)
    assert briefing.label == "fallback" and briefing.reason.startswith("failed check")
    assert {f.kind for f in briefing.flags} == {FlagKind.FALSE_CONTAINMENT}
    assert "Deterministic fallback briefing" in briefing.markdown and briefing.claims is not None


def test_model_prose_contradicting_its_own_claims_is_flagged(services, gemini):
    """Prose that states another score than the briefing's own claims is flagged as a self-contradiction."""
    gemini.add(json_text({**TRUE_CLAIMS, "prose": "contractor_11 has a risk score of sixty-five."}))
    briefing = services.briefer.brief(C4001)
    assert briefing.label == "fallback"
    assert {f.kind for f in briefing.flags} == {FlagKind.WRONG_SCORE, FlagKind.SELF_CONTRADICTION}


def test_model_paraphrased_containment_in_prose_falls_back(services, gemini):
    """Structured claims that say exposed cannot carry prose that says the access was shut down."""
    gemini.add(json_text({**TRUE_CLAIMS, "prose": "Both of contractor_11's sessions have been shut down."}))
    briefing = services.briefer.brief(C4001)
    assert briefing.label == "fallback"
    assert {f.kind for f in briefing.flags} == {FlagKind.FALSE_CONTAINMENT, FlagKind.SELF_CONTRADICTION}


def test_unknown_containment_claim_is_flagged_when_the_query_answered(read_briefer, evidence):
    """A structured containment_state of unknown is flagged: the fresh query said exposed."""
    flags = check(read_briefer, evidence, C4001, BriefingClaims(containment_state="unknown"))
    assert [f.kind for f in flags] == [FlagKind.FALSE_CONTAINMENT]


def test_model_briefing_with_invented_id_falls_back(services, gemini):
    """An entity id one character off in the model's claims sends the fallback."""
    gemini.add(json_text({**TRUE_CLAIMS, "entity_ids": ["contractor_1l"]}))
    briefing = services.briefer.brief(C4001)
    assert briefing.label == "fallback"
    assert [(f.kind, f.offending_text) for f in briefing.flags] == [(FlagKind.UNKNOWN_ENTITY, "contractor_1l")]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Raw(b"{not json"), "model error"),
        (HttpStatus(500), "model error"),
        (json_text("{\"risk_score\": \"sixty\"}"), "model error: invalid briefing"),
        (json_text({**TRUE_CLAIMS, "verdict": "safe"}), "model error: invalid briefing"),
        (json_text("this is not JSON"), "model error"),
    ],
)  # fmt: skip
def test_model_failures_fall_back_with_reason(services, gemini, reply, reason):
    """Malformed JSON, an HTTP 500 or claims that fail validation give the fallback with the reason; no retry."""
    gemini.add(reply)
    briefing = services.briefer.brief(C4001)
    assert briefing.label == "fallback" and briefing.reason.startswith(reason)
    assert len(gemini.requests) == 1


def test_slow_model_falls_back_within_bounded_time(services, gemini):
    """A reply slower than GEMINI_TIMEOUT_S gives the fallback with a model error, in bounded time."""
    services.settings = services.settings.model_copy(update={"gemini_timeout_s": 1.0})
    gemini.add(Delay(4.0, json_text(TRUE_CLAIMS)))
    started = time.monotonic()
    briefing = services.briefer.brief(C4001)
    assert briefing.label == "fallback" and briefing.reason.startswith("model error")
    assert time.monotonic() - started < 3.5 and len(gemini.requests) == 1


def test_no_key_falls_back_without_a_request(services, gemini):
    """Without GEMINI_API_KEY the fallback is shown with that reason and no request is sent."""
    services.settings = services.settings.model_copy(update={"gemini_api_key": None})
    briefing = services.briefer.brief(C4001)
    assert (briefing.label, briefing.reason) == ("fallback", NO_KEY_REASON)
    assert gemini.requests == []


# -- briefings after containment runs ----------------------------------------------------


def test_completed_run_briefing_says_contained(services, gemini):
    """After a completed run the fallback says contained, lists the verified actions and passes the checker."""
    run = services.controller.run(C4001, RulesDecider(), 3, True)
    assert run.state is RunState.COMPLETED
    services.settings = services.settings.model_copy(update={"gemini_api_key": None})
    briefing = services.briefer.brief(C4001, run.run_id)
    assert briefing.run_id == run.run_id and briefing.evidence.containment_state == "contained"
    assert "**Contained.**" in briefing.markdown and "state **completed**" in briefing.markdown
    assert "block-route:route-c11-primary — applied, verified True" in briefing.markdown
    assert services.briefer.check(C4001, briefing.markdown) == []


@pytest.mark.parametrize(
    "text",
    [
        "contractor_11 is contained: no qualifying paths remain and it is no longer exposed.",
        "Both routes were blocked; contractor_11 can no longer reach payments-vault, which was exposed before.",
        "The alert is fully mitigated and no access remains.",
        "The run blocked route-c11-primary and then route-c11-alternate. Both qualifying paths that reached"
        " payments-vault are cut; the fresh query returns no_path, so contractor_11 is contained.",
    ],
)
def test_checker_accepts_contained_after_completed_run(services, text):
    """After a completed run "contained" and its paraphrases are accepted."""
    services.controller.run(C4001, RulesDecider(), 3, True)
    assert services.briefer.check(C4001, text) == []


@pytest.mark.parametrize(
    "text",
    [
        "contractor_11 remains exposed.",
        "Qualifying paths still remain for contractor_11.",
        "contractor_11 can still reach payments-vault.",
        "The alert is not contained.",
        "payments-vault is exposed through two independent sessions.",
    ],
)
def test_exposure_claim_after_completed_run_is_flagged(services, text):
    """After a completed run a claim of exposure is a false_exposure flag."""
    services.controller.run(C4001, RulesDecider(), 3, True)
    flags = services.briefer.check(C4001, text)
    assert flags and {f.kind for f in flags} == {FlagKind.FALSE_EXPOSURE}


# What a run did, said of the run: BH-IAM-2001's rules run stops (no session route to block, 3 paths
# remain), BH-CONTAINMENT-4001's completes (both routes blocked, no path). Only a fresh "no qualifying
# path" completes a run, so "the run completed" of a stopped run is a claim of containment.
RUN_SENTENCES = [
    ("BH-IAM-2001", "The run ended with paths remaining.", None),
    ("BH-IAM-2001", "The run stopped after no action; three qualifying paths remain.", None),
    ("BH-IAM-2001", "The rules run cut no path: the alert is not contained.", None),
    ("BH-IAM-2001", "The run has stopped, and the exposure continues.", None),
    ("BH-IAM-2001", "The run completed.", FlagKind.FALSE_CONTAINMENT),
    ("BH-IAM-2001", "The containment run has completed after checking every route.", FlagKind.FALSE_CONTAINMENT),
    ("BH-IAM-2001", "The run stopped the exposure.", FlagKind.FALSE_CONTAINMENT),  # a claim about the exposure
    (C4001, "The run completed after two verified actions.", None),
    (C4001, "The run has not stopped early: it completed.", None),
    (C4001, "The run ended with paths remaining.", FlagKind.FALSE_EXPOSURE),
]


@pytest.mark.parametrize(("alert", "text", "kind"), RUN_SENTENCES, ids=[f"{a}:{t}" for a, t, _ in RUN_SENTENCES])
def test_what_a_run_did_is_held_against_the_run(services, alert, text, kind):
    """A run's end ("stopped", "ended") is not the exposure's; its completion is held against its state."""
    run = services.controller.run(alert, RulesDecider(), 3, True)
    flags = services.briefer.check(alert, text, services.briefer.evidence(alert, run.run_id))
    if kind is None:
        assert flags == []
    else:
        assert kind in {f.kind for f in flags}, flags


def test_claims_and_prose_about_a_completed_run_agree(services):
    """After a completed run, claims of 0 paths and prose counting the cut paths are not a contradiction."""
    services.controller.run(C4001, RulesDecider(), 3, True)
    claims = BriefingClaims(
        risk_score=20,
        severity="low",
        path_count=0,
        asset_count=0,
        containment_state="contained",
        prose="Both qualifying paths are now cut; no qualifying path remains and the alert is contained.",
    )
    assert services.briefer.check(C4001, claims) == []


def test_cap_one_run_briefing_is_not_contained(services):
    """With a cap of 1 the run stops; the briefing says not contained and "contained" is flagged."""
    run = services.controller.run(C4001, RulesDecider(), 1, True)
    assert run.state is RunState.STOPPED
    services.settings = services.settings.model_copy(update={"gemini_api_key": None})
    briefing = services.briefer.brief(C4001, run.run_id)
    assert "**Not contained.**" in briefing.markdown and "state **stopped**" in briefing.markdown
    assert "`sess-c11-sso`" in briefing.markdown.split("### What remains")[1]
    assert services.briefer.check(C4001, briefing.markdown) == []
    flags = services.briefer.check(C4001, "The alert is contained.")
    assert [f.kind for f in flags] == [FlagKind.FALSE_CONTAINMENT]


def test_run_of_another_alert_is_refused(services):
    """A run id that belongs to another alert is invalid input for a briefing."""
    run = services.controller.run(C4001, RulesDecider(), 1, True)
    with pytest.raises(EvidenceUnavailable) as info:
        services.briefer.brief("BH-1042", run.run_id)
    assert info.value.status is Status.INVALID_INPUT
