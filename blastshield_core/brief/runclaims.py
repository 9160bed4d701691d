"""Judging the claims a briefing makes about the run: its end state and its session revocations.

Each function answers None when the claim holds, or (false_containment | false_exposure, the evidence)
when the run record contradicts it, as `judge.py` does for the account and the relationships. The run
is the one the evidence was gathered for (`EvidenceSummary.run`); without one, claims about its state
are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..results import RunState
from .coverage import Vocabulary, strangers
from .evidence import EvidenceSummary, RunSummary
from .runfacts import (
    IdKind,
    RunFact,
    RunReading,
    answer_in_full,
    asks_about_run,
    is_answer,
    read_run_facts,
    taken_by,
)
from .runview import operation, route_of

__all__ = [
    "RunVerdicts",
    "Verdict",
    "judge_revocation",
    "judge_run_fact",
    "judge_run_sentences",
    "judge_run_state",
    "strip_run_reason",
]

Verdict = tuple[str, str] | None
# A comma followed by another clause, not by a conjunction the prose grammar splits at itself.
_COMMA_SPLICE = re.compile(r",\s+(?!(?:and|but|or|nor|so|yet|while|whereas|then)\b)(?=\w)")


def _semicolon_after(text: str, words: list[str]) -> str:
    """The text with the comma after these words (markup between them allowed) as a semicolon."""
    found = re.search(r"[\W_]+".join(map(re.escape, words)) + r"[`*_\"”]*(?=,)", text, re.I)
    if found is None or not _COMMA_SPLICE.match(text, found.end()):
        return text
    return text[: found.end()] + ";" + text[found.end() + 1 :]


def judge_run_state(ev: EvidenceSummary, value: object) -> Verdict:
    """ "The run completed" / "did not complete" / "Run: stopped": only a fresh "no qualifying path" completes
    a run."""
    run = ev.run
    if run is None:
        return None
    if value not in ("completed", "not_completed"):
        if run.state.value != value:  # "Run state: stopped" on a run that ended otherwise
            kind = "false_exposure" if run.state is RunState.COMPLETED else "false_containment"
            return kind, f"run {run.run_id} is {run.state.value} ({run.reason})"
        return None
    if value == "not_completed" and run.state is RunState.COMPLETED:
        return "false_exposure", f"run {run.run_id} is completed ({run.reason})"
    if value == "completed" and run.state is not RunState.COMPLETED:
        return (
            "false_containment",
            f"run {run.run_id} is {run.state.value} ({run.reason}); a fresh investigation"
            f" ({ev.status.value}) finds {ev.path_count} qualifying path(s)",
        )
    return None


def judge_revocation(ev: EvidenceSummary, value: object) -> Verdict:
    """ "The role's sessions were revoked": true when the run applied a revocation on the account.

    A revocation stops the role's sessions issued before it and cuts no path; a claim of it is a claim
    about the action, checked against the run's actions (and "not revoked" against none applied)."""
    applied = any(ev.revocations.values())
    if (value == "contained") == applied:
        return None
    assert ev.run is not None  # revocations come from the run
    done = ", ".join(f"{c}: {'applied' if a else 'not applied'}" for c, a in ev.revocations.items())
    return (
        "false_containment" if value == "contained" else "false_exposure",
        f"run {ev.run.run_id} revoked role sessions: {done}; a revocation cuts no path and a fresh"
        f" investigation finds {ev.path_count} qualifying path(s)",
    )


def strip_run_reason(text: str, evidence: EvidenceSummary) -> str:
    """The run's recorded reason, on its own `Recorded reason:` line, is quoted data, not a claim."""
    if evidence.run is None or not evidence.run.reason:
        return text
    return text.replace(f"Recorded reason: {evidence.run.reason}", "Recorded reason: (quoted)")


def _cap_reached(run: RunSummary) -> bool:
    return run.state is RunState.STOPPED and run.reason.startswith("action cap")


def _acted(run: RunSummary, verb: str) -> set[str]:
    """What the run's actions were aimed at (touched), or applied to (blocked), by route, candidate or key id."""
    out: set[str] = set()
    for a in run.actions:
        if verb == "blocked" and (a.get("status") != "applied" or operation(a) != "block_route"):
            continue
        route = route_of(a)
        out |= {route, f"block-route:{route}", str(a.get("candidate_id") or "")}
    return out - {""}


def _describe(run: RunSummary) -> str:
    acts = ", ".join(f"{route_of(a)} ({operation(a)}, {a.get('status')})" for a in run.actions) or "none"
    return (
        f"run {run.run_id} is {run.state.value} ({run.reason}); decider {run.decider}, cap {run.max_actions};"
        f" {len(run.actions)} action(s): {acts}"
    )


# How a run that stopped with nothing left to act on records why (respond/loop.py, respond/decide.py).
_NO_CANDIDATE = ("no candidate", "none passes through an active session route")
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1}


def _holds(ev: EvidenceSummary, run: RunSummary, fact: RunFact) -> bool | None:
    """Whether the fact (before its negation) is true of the run; None when the run does not say."""
    actions = run.actions
    if fact.kind == "state":
        return run.state.value == fact.word
    if fact.kind == "exists":
        return True
    if fact.kind == "cap_hit":
        return _cap_reached(run)
    if fact.kind == "no_candidate":  # "it ran out of routes to block": the decider had no candidate left
        reason = run.reason.lower()
        return run.state is RunState.STOPPED and any(r in reason for r in _NO_CANDIDATE)
    if fact.kind == "cap":
        return run.max_actions == fact.number
    if fact.kind == "decider":
        return run.decider.lower() == fact.word.lower()
    if fact.kind == "all_verified":
        applied = [a for a in actions if a.get("status") == "applied"]
        return all(a.get("verified") is True for a in applied) if applied else None  # none: nothing to say
    if fact.kind == "start":
        return None if run.paths_at_start is None else run.paths_at_start == fact.number
    if fact.kind == "step":
        index = _ORDINALS.get(fact.word, 0 if len(actions) == 1 else None)
        if index is None or not -len(actions) <= index < len(actions):
            return None
        action = actions[index]
        return (action.get("paths_before"), action.get("paths_after")) == (fact.number, fact.whole)
    if fact.kind == "left":
        return fact.number == (run.remaining_paths if run.remaining_paths is not None else ev.path_count)
    if fact.kind == "unverified_action":
        if not any(a.get("status") == "applied" for a in actions):
            return None  # no action: nothing to say
        return any(a.get("status") == "applied" and a.get("verified") is not True for a in actions)
    if fact.kind == "actions":
        applied = [a for a in actions if a.get("status") == "applied"]
        blocks = [a for a in applied if operation(a) == "block_route"]
        if fact.word == "at_least":  # "at least one action was taken"
            return len(applied) >= (fact.number or 0)
        if fact.word == "verified":  # "two verified actions": applied and verified
            return fact.number == len([a for a in applied if a.get("verified") is True])
        return fact.number in ({len(blocks)} if fact.word == "block" else {len(actions), len(applied)})
    if fact.kind == "target":
        return fact.target in _acted(run, fact.word)
    if fact.kind == "cut":
        start = run.paths_at_start
        left = run.remaining_paths if run.remaining_paths is not None else ev.path_count
        if start is None:
            return None
        return fact.number == start - left and fact.whole in (None, start)
    if fact.kind == "cut_share":  # the share of the paths at the start that the run cut, rounded
        start = run.paths_at_start
        left = run.remaining_paths if run.remaining_paths is not None else ev.path_count
        return None if not start else fact.number == round(100 * (start - left) / start)
    return None


def _routes_of(ev: EvidenceSummary, target: str) -> set[str]:
    """The routes a target names: a route by its id or candidate id, or the session a route leads to."""
    route = target.removeprefix("block-route:")
    return {r.route_id for r in ev.routes if route in (r.route_id, r.target)}


def _blocked_now(ev: EvidenceSummary, target: str) -> bool:
    """A route blocked now, by this run or before it: "the run blocked X" is not denied (an earlier block is
    not told apart from this run's in every wording)."""
    routes = _routes_of(ev, target)
    return any(r.route_id in routes and r.status != "active" for r in ev.routes)


def judge_run_fact(ev: EvidenceSummary, fact: RunFact) -> Verdict:
    """A fact a sentence states about the run (`runfacts.py`), against the run record: None when it holds.

    When the alert has no run at all every positive fact is false (nothing ran, stopped or acted) and every
    denial true; checked without its run (`no_run` unset), a positive fact is `unverified`. A false
    claim that the run did what it did not, or ended as it did not, is `false_containment`; one that denies
    what a completed run did (or that says it ended otherwise) is `false_exposure`."""
    run = ev.run
    if fact.kind == "target":
        if not _routes_of(ev, fact.target) and fact.target not in ev.revocations:
            return "unverified", ""  # no route or action of this alert: what "the run touched X" means is not read
        if not fact.negated and _blocked_now(ev, fact.target):
            return None
        fact = RunFact(
            "target",
            fact.word,
            target=next(iter(sorted(_routes_of(ev, fact.target))), fact.target),
            negated=fact.negated,
        )
    if run is None:
        if fact.negated or (fact.kind == "actions" and fact.number == 0):
            return None
        if not ev.no_run:  # checked without its run: what the run did is not known here
            return "unverified", ""
        return "false_containment", f"no containment run of {ev.alert_id} was made: nothing ran, stopped or acted"
    holds = _holds(ev, run, fact)
    if holds is None:
        return "unverified", ""  # the record does not say (no such action, no paths counted at the start)
    if holds != fact.negated:
        return None
    completed = run.state is RunState.COMPLETED
    ends = fact.kind in ("state", "no_candidate")  # how it ended: on a completed run, a false end denies containment
    kind = "false_exposure" if completed and (fact.negated or ends) else "false_containment"
    if fact.kind in ("actions", "cap", "decider", "cut", "cut_share", "start", "left", "step"):
        kind = "wrong_count" if fact.kind != "decider" else kind
    return kind, _describe(run)


@dataclass
class RunVerdicts:
    """What the sentences say about the run, judged: the flags (kind, clause, evidence, sentence), the clauses
    left unverified, and the readings by sentence (the prose grammar's reading of a clause read here gives way)."""

    flags: list[tuple[str, str, str, str]] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    readings: dict[str, list[RunReading]] = field(default_factory=dict)

    def takes(self, sentence: str, clause: str, count: bool = False) -> bool:
        return taken_by(sentence, clause, self.readings, count)

    def separate(self, text: str) -> str:
        """The text with a comma that ends a clause read here ("the run ended stopped, three paths remain open") as a
        semicolon: the prose grammar reads what follows as a clause of its own, not as part of the run's clause."""
        for sentence, readings in list(self.readings.items()):
            new = sentence
            for reading in readings:
                words = re.findall(r"\w+", reading.clause)
                if reading.facts and words:
                    new, text = _semicolon_after(new, words), _semicolon_after(text, words)
            if new != sentence:
                self.readings[new[:600]] = readings
        return text


def judge_run_sentences(
    ev: EvidenceSummary, sentences: Iterable[str], id_kind: IdKind, vocabulary: Vocabulary | None
) -> RunVerdicts:
    """Read each sentence's facts about the run (`runfacts.py`) and judge them; a reading whose other words the
    gate's vocabulary does not account for, or that the record does not decide, is unverified."""
    out = RunVerdicts()
    question = ""  # the sentence before, when it asked something: this one, its answer, speaks of what it asked
    for sentence in sentences:
        full = answer_in_full(question, sentence) if question else []
        asked = bool(question) and asks_about_run(question) and is_answer(sentence)
        readings = [r for s in full for r in read_run_facts(s, id_kind)] or read_run_facts(sentence, id_kind, asked)
        question = sentence if sentence.rstrip().endswith("?") else ""
        if readings:
            out.readings[sentence[:600]] = readings
        for reading in readings:
            if vocabulary is not None and strangers(reading.rest, vocabulary, id_kind):
                out.unverified.append(reading.clause)
                continue
            for fact in reading.facts:
                verdict = judge_run_fact(ev, fact)
                if verdict is not None and verdict[0] == "unverified":
                    out.unverified.append(reading.clause)
                elif verdict is not None:
                    out.flags.append((verdict[0], reading.clause, verdict[1], sentence))
    return out
