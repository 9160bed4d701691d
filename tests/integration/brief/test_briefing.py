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
from tests.helpers.briefing_regression import EXPOSED_AFTER_RUN, PLANTED, RUN_SENTENCES, TRUTHFUL
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


@pytest.mark.parametrize("text", EXPOSED_AFTER_RUN)
def test_exposure_claim_after_completed_run_is_flagged(services, text):
    """After a completed run a claim of exposure is a false_exposure flag."""
    services.controller.run(C4001, RulesDecider(), 3, True)
    flags = services.briefer.check(C4001, text)
    assert flags and {f.kind for f in flags} == {FlagKind.FALSE_EXPOSURE}


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
