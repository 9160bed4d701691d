"""The briefing checker: a proposed briefing held against fresh graph evidence.

A briefing is either structured claims (`BriefingClaims`, what the model fills)
or free text. Free text is parsed for the claims that matter to an analyst:
entity ids, risk scores, severities, relationship types, path and asset counts,
and containment or exposure statements (including paraphrases such as
"no access remains" or "fully mitigated"). Each claim that the evidence
contradicts becomes a `Flag` carrying the offending text and the evidence.

The evidence is always a fresh standard investigation (depth 6) with the blast
radius and the route statuses (`gather_evidence`). Only a fresh `no_path`
supports "contained"; unknown, invalid and failed answers raise
`EvidenceUnavailable` and are never read as safe.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from ..base.settings import ENVIRONMENT_VARIABLES
from ..graph.audit import RUN_ID_PATTERN
from ..graph.model import RelType
from ..graph.store import QueryFailed
from ..read.rules import AWS_RULE_NAMES, AWS_RULE_SET, RULE_SET, SIGNAL_POINTS
from ..read.tools import ReadTools
from ..results import RunState, Status
from .accountside import existence_state, judge_on_account, open_on_account
from .consistency import withheld
from .coverage import NUMBER, UNREAD_IF_LEFT, Vocabulary, about_alert, strangers, units_of
from .evidence import (
    FIELD_NAMES,
    ContainmentState,
    EvidenceSummary,
    EvidenceUnavailable,
    PathSummary,
    RunSummary,
    gather_evidence,
)
from .judge import JUDGED_KINDS, judge_claim
from .known_words import VOCABULARY
from .lexicon import CLOSE_FORMS
from .measures import MEASURE_KINDS, judge_measure
from .names import ACTION_RE, DATE_RE, REL_LIKE_RE, REL_PREFIX_RE, UNIT_RE, VERSION_RE, distance, reads_as_id
from .normalise import normalise
from .prose import ProseClaim, read_prose, sentences
from .reported import unreport
from .runclaims import RunVerdicts, judge_revocation, judge_run_sentences, judge_run_state, strip_run_reason

__all__ = [
    "MAX_TEXT_CHARS",
    "BriefingClaims",
    "CheckOutcome",
    "ContainmentState",
    "EvidenceSummary",
    "EvidenceUnavailable",
    "Flag",
    "FlagKind",
    "PathSummary",
    "RunSummary",
    "check_claims",
    "check_claims_outcome",
    "check_text",
    "check_text_outcome",
    "gather_evidence",
    "read_sentences",
]

MAX_TEXT_CHARS = 20_000
SEVERITIES = ("low", "medium", "high", "critical")
RULE_NAMES = (
    "E1-critical-reach",
    "E1-high-reach",
    "E2-short-path",
    "E2-medium-path",
    "E2-long-path",
    "E3-multiple-paths",
    "E4-breadth",
    *(f"S-{s}" for s in SIGNAL_POINTS),
)


_SCORE_WORDS = re.compile(r"\b(?:score[sd]?|scoring|rated|rating)\b|(?<!\bat\s)\brisk\b", re.I)


class FlagKind(StrEnum):
    UNKNOWN_ENTITY = "unknown_entity"
    WRONG_SCORE = "wrong_score"
    WRONG_SEVERITY = "wrong_severity"
    UNKNOWN_RELATIONSHIP = "unknown_relationship"
    WRONG_COUNT = "wrong_count"
    FALSE_CONTAINMENT = "false_containment"
    FALSE_EXPOSURE = "false_exposure"
    SELF_CONTRADICTION = "self_contradiction"
    WRONG_RELATIONSHIP = "wrong_relationship"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BriefingClaims(_Model):
    """What a briefing asserts, in a form the checker can hold against the graph."""

    entity_ids: list[Annotated[StrictStr, Field(max_length=200)]] = Field(
        default_factory=list, max_length=200, description="Every entity id the briefing names"
    )
    relationship_types: list[Annotated[StrictStr, Field(max_length=100)]] = Field(
        default_factory=list, max_length=50, description="Relationship types on the qualifying paths"
    )
    risk_score: StrictInt | None = Field(default=None, description="The alert's computed risk score")
    severity: Literal["low", "medium", "high", "critical"] | None = Field(
        default=None, description="The alert's computed severity"
    )
    path_count: StrictInt | None = Field(default=None, description="Qualifying paths that exist now")
    asset_count: StrictInt | None = Field(default=None, description="Distinct high/critical assets those paths reach")
    containment_state: ContainmentState | None = Field(
        default=None, description="contained only when no qualifying path remains; exposed while any remains"
    )
    prose: Annotated[StrictStr, Field(max_length=MAX_TEXT_CHARS)] = Field(
        default="", description="The briefing for the analyst, in plain Markdown"
    )


class Flag(_Model):
    """One claim the evidence contradicts."""

    kind: FlagKind
    offending_text: str
    evidence: str
    context: str = ""


# -- text parsing ------------------------------------------------------------------

_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_.:@-])[A-Za-z0-9][A-Za-z0-9_.:@-]*[A-Za-z0-9]")
_EXPOSE_WORDS = frozenset({"active", "open", "live"})
# An ARN as written in prose (its resource part may hold "/" and ":"), without trailing punctuation.
_ARN_RE = re.compile(r"(?<![\w:/-])arn:aws[\w-]*:[\w-]*:[\w-]*:\d*:[\w+=,.@:/*-]*[\w+=@/*-]")


def _has_closing(clause: str) -> bool:
    return any(w in CLOSE_FORMS for w in re.findall(r"[a-z]+", clause.lower()))


_COUNTS = frozenset(["path_count", "route_count", "path_share"])
_RUN_READS = frozenset(["state", "run_state", "unverified"]) | _COUNTS
_PATTERN_CLAIMS = frozenset(["relationship", "score", "severity", "unverified"])
_FRAME_MARK = re.compile(r"[:\"“”]")


def _frame(sentence: str, clause: str) -> str:
    """The text that introduces a clause through a colon or a quote mark ("" when there is none), or the whole
    sentence when the clause is not in it as written (the grammar rewrote it: "X — blocked" read as a verdict)."""
    at = sentence.find(clause[:40].strip()) if clause.strip() and sentence else 0
    if at < 0:
        return sentence
    head = sentence[:at]
    return head if _FRAME_MARK.search(head) else ""


class _Checker:
    def __init__(
        self,
        evidence: EvidenceSummary,
        tools: ReadTools | None,
        extra_allowed: set[str],
        vocabulary: Vocabulary | None = VOCABULARY,
    ):
        self.ev = evidence
        self.vocabulary = vocabulary  # the words a judged clause may hold (None: every clause is judged)
        self._strange: dict[str, bool] = {}  # sentence -> whether it holds a word the reading does not account for
        self.tools = tools
        self.flags: list[Flag] = []
        self.known = evidence.known_ids
        self.known_lower = {k.lower(): k for k in self.known}
        self.allowed = {
            RULE_SET,
            "rules-v1",
            *RULE_NAMES,
            AWS_RULE_SET,
            *AWS_RULE_NAMES,
            *SIGNAL_POINTS,
            *ENVIRONMENT_VARIABLES,
            *(s.value for s in Status),
            *(s.value for s in RunState),
            *(k.value for k in FlagKind),
            *BriefingClaims.model_fields,
            *EvidenceSummary.model_fields,
            *(m for path in evidence.paths for m in path.methods if m),  # escalation method names
            *extra_allowed,
        }
        self._graph_cache: dict[str, bool] = {}
        self.unverified: list[str] = []
        self._blast_ids = {e.id for e in evidence.blast_radius}
        self.prose_types = set(evidence.relationship_types) | set(evidence.modelled_relationship_types)
        self._kinds: dict[str, str] = {}
        for node_id in self.known:
            self._kinds[node_id] = "node"
        assets = {i for i, label in evidence.adjacent.items() if label == "DataAsset"}
        assets |= {*evidence.assets, *(e.id for e in evidence.blast_radius if e.label == "DataAsset")}
        for asset in assets:
            self._kinds[asset] = "asset"
        for r in evidence.routes:
            self._kinds[r.route_id] = self._kinds[f"block-route:{r.route_id}"] = "route"
        self._kinds[evidence.alert_id] = self._kinds[evidence.entity_id] = "alert"
        if evidence.run is not None:
            self._kinds[evidence.run.run_id] = "run"
        for candidate_id in evidence.revocations:
            self._kinds[candidate_id] = "action"  # an action's id, not an entity the claim is about
        self._known_parts = {
            tuple(p for p in re.split(r"[-_.:/]+", k.lower()) if p) for k in self.known if re.search(r"[-_]", k)
        }
        self.route_words = {
            i: " ".join(re.split(r"[-_]", i)) for i in self.known if i.startswith(("route-", "sess-", "sess_"))
        }

    # -- helpers -------------------------------------------------------------------
    def flag(self, kind: FlagKind, text: str, evidence: str, context: str = "") -> None:
        if any(f.kind is kind and f.offending_text == text for f in self.flags):
            return
        self.flags.append(Flag(kind=kind, offending_text=text, evidence=evidence, context=context.strip()[:300]))

    def _in_graph(self, entity_id: str) -> bool:
        if self.tools is None:
            return False
        if entity_id not in self._graph_cache:
            if len(self._graph_cache) >= 100:
                return False
            try:
                rows = self.tools.store.read("entity_by_id", {"id": entity_id})
            except QueryFailed as exc:
                raise EvidenceUnavailable(Status.QUERY_FAILED, f"entity lookup: {exc}") from None
            self._graph_cache[entity_id] = bool(rows)
        return self._graph_cache[entity_id]

    def _route_in_graph(self, route_id: str) -> bool:
        """Whether the graph holds a routed relationship with this route id (the alert's evidence names only the
        routes its paths use)."""
        if self.tools is None or len(self._graph_cache) >= 100:
            return False
        key = f"route:{route_id}"
        if key not in self._graph_cache:
            try:
                rows = self.tools.store.read("routes_by_ids", {"route_ids": [route_id]})
            except QueryFailed as exc:
                raise EvidenceUnavailable(Status.QUERY_FAILED, f"route lookup: {exc}") from None
            self._graph_cache[key] = bool(rows)
        return self._graph_cache[key]

    def _near(self, token: str) -> str | None:
        if len(token) < 5:
            return None
        best = min(self.known, key=lambda k: distance(token.lower(), k.lower()), default=None)
        if best is not None and distance(token.lower(), best.lower()) <= 2:
            return best
        return None

    def _entity_evidence(self) -> str:
        ids = sorted(self.known - {self.ev.alert_id})
        return f"the graph returned these entities for {self.ev.alert_id}: " + ", ".join(ids)

    # -- structured claims -----------------------------------------------------------
    def entity(self, entity_id: str, context: str = "") -> None:
        if entity_id in self.known or entity_id in self.allowed or entity_id in self.ev.arns:
            return
        if context and self._route_in_graph(entity_id):  # a real route off the alert's paths: not judged here
            self.unverified += [context] if context not in self.unverified else []
            return
        near = self._near(entity_id)
        hint = f" (closest in the evidence: {near})" if near else ""
        self.flag(
            FlagKind.UNKNOWN_ENTITY,
            entity_id,
            f"{entity_id} is not among the entities the graph returned for {self.ev.alert_id}{hint}; "
            + self._entity_evidence(),
            context,
        )

    def relationship(self, rel_type: str, context: str = "", text: str = "") -> None:
        """A structured claim must name a type of a qualifying path; prose may also name a route's or a cut path's."""
        allowed = self.ev.relationship_types if not text else self.prose_types
        if rel_type in allowed:
            return
        present = sorted(allowed)
        where = (
            "not a relationship type of the graph model"
            if rel_type not in {t.value for t in RelType}
            else "not on any qualifying path of this alert"
        )
        self.flag(
            FlagKind.UNKNOWN_RELATIONSHIP,
            text or rel_type,
            f"{rel_type} is {where}; the evidence uses {', '.join(present) or 'no relationship (no qualifying path)'}",
            context,
        )

    def score(self, value: int, text: str, context: str = "") -> None:
        if value != self.ev.risk_score:
            self.flag(
                FlagKind.WRONG_SCORE,
                text,
                f"computed risk score is {self.ev.risk_score} ({self.ev.rule_set}: "
                + ", ".join(f"+{f.points} {f.rule}" for f in self.ev.factors)
                + ")",
                context,
            )

    def severity(self, value: str, text: str, context: str = "") -> None:
        if value.lower() != self.ev.severity:
            self.flag(
                FlagKind.WRONG_SEVERITY,
                text,
                f"computed severity is {self.ev.severity} (score {self.ev.risk_score})",
                context,
            )

    def path_count(self, value: int, text: str, context: str = "") -> None:
        if value != self.ev.path_count:
            self.flag(
                FlagKind.WRONG_COUNT,
                text,
                f"the fresh investigation has {self.ev.path_count} qualifying path(s)"
                + (" (truncated)" if self.ev.truncated else ""),
                context,
            )

    def asset_count(self, value: int, text: str, qualifier: str = "", context: str = "") -> None:
        q = qualifier.lower()
        accepted = {self.ev.asset_count}
        if "critical" in q and "high" not in q:
            accepted = {len(self.ev.critical_assets)}
        elif "high" in q and "critical" not in q and "sensitiv" not in q:
            accepted = {len(self.ev.high_assets), self.ev.asset_count}
        elif not any(w in q for w in ("critical", "high", "sensitiv", "qualifying")):
            accepted.add(self.ev.blast_by_label.get("DataAsset", 0))
        if value not in accepted:
            self.flag(
                FlagKind.WRONG_COUNT,
                text,
                f"qualifying paths reach {self.ev.asset_count} distinct high/critical asset(s)"
                f" ({', '.join(self.ev.assets) or 'none'}); critical: {len(self.ev.critical_assets)};"
                f" the blast radius holds {self.ev.blast_by_label.get('DataAsset', 0)} data asset(s)",
                context,
            )

    def containment(self, claimed: str, text: str, context: str = "", scoped: bool = False) -> None:
        """A containment or exposure claim that is false (of the whole alert, or of what it names when scoped)."""
        paths = self.ev.path_count
        if claimed == "contained" and (scoped or self.ev.containment_state != "contained"):
            self.flag(
                FlagKind.FALSE_CONTAINMENT,
                text,
                f"a fresh investigation ({self.ev.status.value}) still finds {paths} qualifying path(s)"
                + (" through what this names" if scoped else "")
                + ": "
                + "; ".join(" -> ".join(p.nodes) for p in self.ev.paths[:5]),
                context,
            )
        elif claimed == "exposed" and (scoped or self.ev.containment_state == "contained"):
            self.flag(
                FlagKind.FALSE_EXPOSURE,
                text,
                f"a fresh investigation returned {self.ev.status.value}: no qualifying path"
                + (" through what this names" if scoped else f" from {self.ev.entity_id}")
                + " to a high/critical asset within 6 hops",
                context,
            )

    # -- free text -------------------------------------------------------------------
    def text(self, text: str) -> list[ProseClaim]:
        """Check free text; returns the claims read from it (for the self-consistency check)."""
        text = self.prepare(text)
        for m in _TOKEN_RE.finditer(text):
            self._id(m.group(0), self._sentence_at(text, m.start()))
        judged: list[ProseClaim] = []
        gate = None if self.vocabulary is None else self._unread_clause
        read = self.run_facts(text)  # the clauses about the run: read as its facts, not as the grammar reads them
        claims = read_prose(read.separate(text), self.id_kind, self.route_words, self.allowed, gate)
        claims = [
            c
            for c in claims
            if not (c.kind in _RUN_READS and read.takes(c.sentence, c.clause, c.kind in _COUNTS))
            and not (c.kind == "score" and c.text.endswith("%") and read.takes(c.sentence, c.clause, True))
        ]
        misread, dropped = withheld(claims)  # the shares inside other claims dropped; a misread clause is gated
        for n, claim in enumerate(claims):
            if n in dropped:
                continue
            if (n in misread and self.vocabulary is not None) or self._unread(claim):
                if claim.clause not in self.unverified:
                    self.unverified.append(claim.clause)
                continue
            self.prose_claim(claim)
            judged.append(claim)
        return judged

    def run_facts(self, text: str) -> RunVerdicts:
        """Judge what the sentences say about the run (`runclaims.judge_run_sentences`)."""
        found = judge_run_sentences(self.ev, sentences(text), self.id_kind, self.vocabulary)
        for kind, clause, evidence, sentence in found.flags:
            self.flag(FlagKind(kind), clause, evidence, sentence)
        self.unverified += [c for c in found.unverified if c not in self.unverified]
        return found

    def prepare(self, text: str) -> str:
        """The text as the grammar reads it: the briefing's heading dropped, ARNs and names as ids, contractions,
        markers and quotations in full (`normalise`)."""
        lines = [line for line in text.splitlines() if not self._quotes_title(line)]
        text = _ARN_RE.sub(self._arn, "\n".join(lines))
        return unreport(normalise(text, self.ev.names_lower, self.known_lower))

    def _unread_clause(self, clause: str, sentence: str) -> bool:
        """A clause that made no claim, about the alert, that the reading does not account for (or whose number it
        did not read: "The run took 2 actions", or a quantity or negation: "X is on none of the paths")."""
        if not self._unread(ProseClaim("state", None, "", clause, sentence=sentence)):
            return any(u == NUMBER or u in UNREAD_IF_LEFT for u in units_of(clause, self.id_kind))
        return about_alert(clause, self.id_kind)

    def _unread(self, claim: ProseClaim) -> bool:
        """A claim whose clause, or the frame that introduces it, holds a word the reading does not account for:
        neither flagged nor passed.

        The frame is the sentence's text before the clause when a colon or a quote mark sets the clause after it
        ("The user insisted: ...", "Status: ..."), and the whole sentence when the grammar rewrote the clause.
        Values read from a fixed pattern beside their noun (a relationship type, a score, a severity) are judged
        wherever they are; claims whose meaning is the clause's structure (state, polarity, quantity, relation,
        what was done) only when it is accounted for."""
        if self.vocabulary is None or claim.kind in _PATTERN_CLAIMS:
            return False
        text = claim.clause + " " + _frame(claim.sentence, claim.clause)
        if text not in self._strange:
            self._strange[text] = bool(strangers(text, self.vocabulary, self.id_kind))
        return self._strange[text]

    def _arn(self, m: re.Match[str]) -> str:
        """A known ARN reads as its entity's id; another is flagged whole and reads as no id at all."""
        arn = m.group(0)
        bucket = re.match(r"arn:aws[\w-]*:s3:::[^/]+(?=/)", arn)  # an object (or objects) of a bucket
        for known in (arn, bucket.group(0) if bucket else None):
            if known in self.ev.arns:
                return self.ev.arns[known]
        self.entity(arn, self._sentence_at(m.string, m.start()))
        return "that resource"

    def _quotes_title(self, line: str) -> bool:
        """The briefing's own heading, `Briefing: ALERT — TITLE`, quotes the alert's title as data."""
        m = re.fullmatch(r"\s*#+\s*Briefing:\s*(\S+)\s+[—-]\s+(.*?)\s*", line)
        return m is not None and m.group(1) == self.ev.alert_id and m.group(2) == self.ev.title

    @staticmethod
    def _sentence_at(text: str, pos: int) -> str:
        start = max(text.rfind(". ", 0, pos), text.rfind("\n", 0, pos)) + 1
        ends = [e for e in (text.find(". ", pos), text.find("\n", pos)) if e != -1]
        return text[start : min(ends) if ends else len(text)].strip()

    def id_kind(self, token: str) -> str | None:
        """What an id in the text names: the alert, a route, an asset, another node, a run; None for a word."""
        return self._kinds.get(token)

    def _id(self, token: str, clause: str) -> None:
        if token in self.known or token in self.allowed or len(token) < 4 or token.lower() in FIELD_NAMES:
            return  # a field of the evidence or the run's record ("paths_carried=1") is no entity
        if REL_LIKE_RE.match(token) and (token.isupper() or REL_PREFIX_RE.match(token)):
            return  # a relationship type: read by the prose grammar
        if token[0].isupper() and token[0].lower() + token[1:] in self.known:
            return  # a known id capitalised at the start of a sentence
        if DATE_RE.match(token) or UNIT_RE.match(token) or VERSION_RE.match(token) or ACTION_RE.match(token):
            return
        if re.fullmatch(RUN_ID_PATTERN, token):
            return
        if token.startswith("block-route:") and token.removeprefix("block-route:") in self.known:
            return
        if token.lower() in self.known_lower:
            return  # a known id in other letter case (normalised to it before the grammar reads it)
        if not re.search(r"[A-Za-z]", token):
            return
        if self._reads_as_id(token):
            self.entity(token, clause)
            return
        if not re.search(r"[_.:@-]", token):
            # a separator swapped for a letter ("paymentsxvault"): one edit from a known id
            near = self._near(token) if len(token) >= 6 else None
            if near is not None and distance(token.lower(), near.lower()) <= 1:
                self.entity(token, clause)
            return
        strong = "_" in token or (re.search(r"\d", token) is not None)
        if strong or self._near(token) is not None or self._in_graph(token):
            self.entity(token, clause)

    def _reads_as_id(self, token: str) -> bool:
        return reads_as_id(token, self._known_parts)

    def prose_claim(self, claim: ProseClaim) -> None:
        ev = self.ev
        left = existence_state(claim.kind, claim.value) if not _has_closing(claim.clause) else None  # "none is left"
        bare = not (claim.scope or claim.assets or claim.depth)
        if left and bare and self.graph_or_account(left, claim.text, claim.clause, claim.sentence or claim.clause):
            return  # a count of nothing left (or a bound of one) said of the alert: judged on the account
        if claim.kind == "relationship":
            if str(claim.value) not in self.prose_types and not any(
                f.kind is FlagKind.UNKNOWN_RELATIONSHIP and f.evidence.startswith(f"{claim.value} is")
                for f in self.flags
            ):
                self.relationship(str(claim.value), claim.clause, claim.text)
        elif claim.kind == "score" and claim.text.endswith("%") and not _SCORE_WORDS.search(claim.clause):
            if claim.clause not in self.unverified:  # "one (50%) is critical": a share, not the risk score
                self.unverified.append(claim.clause)
        elif claim.kind == "score":
            self.score(int(claim.value), claim.text, claim.clause)  # type: ignore[call-overload]
        elif claim.kind == "severity":
            self.severity(str(claim.value), claim.text, claim.clause)
        elif claim.kind == "path_count" and (n := open_on_account(ev, claim.clause, claim.sentence or claim.clause)):
            if claim.value != n and not _has_closing(claim.clause):  # the paths open on the account, not the graph's
                evidence = f"the AWS account: {ev.account.message}" if ev.account else ""
                self.flag(FlagKind.WRONG_COUNT, claim.text, evidence, claim.clause)
        elif claim.kind == "path_count":
            accepted = {ev.path_count}
            if _has_closing(claim.clause):  # "both paths were cut": the paths a block removed
                accepted |= set(range(1, ev.cut_off_path_count + 1)) | {ev.cut_off_path_count + ev.path_count}
                if ev.run is not None and ev.run.paths_at_start is not None:
                    accepted.add(ev.run.paths_at_start)
            if claim.value not in accepted:
                self.path_count(int(claim.value), claim.text, claim.clause)  # type: ignore[call-overload]
        elif claim.kind == "asset_count":
            self.asset_count(int(claim.value), claim.text, claim.qualifier, claim.clause)  # type: ignore[call-overload]
        elif claim.kind == "route_count":
            self.route_count(int(claim.value), claim.text, claim.qualifier, claim.clause)  # type: ignore[call-overload]
        elif claim.kind in ("blast", "blast_member"):
            self.blast(claim)
        elif claim.kind == "run_state":
            self.run_done(claim)
        elif claim.kind == "unverified":
            label = claim.clause != claim.sentence and self.id_kind(claim.clause.strip(" .:;,!*`#-—–")) == "alert"
            if not label and claim.clause not in self.unverified:  # "ALERT — still exposed": the id labels the line
                self.unverified.append(claim.clause)
        elif claim.kind in JUDGED_KINDS or claim.kind in MEASURE_KINDS:
            self.judged(claim)
        elif claim.kind == "state" and claim.action == "revocation" and (ev.revocations or claim.value == "exposed"):
            self.revocation(claim)
        elif (
            claim.kind == "state"
            and bare
            and self.graph_or_account(str(claim.value), claim.text, claim.clause, claim.sentence or claim.clause)
        ):
            pass  # judged against the account's side
        elif claim.kind == "state" and not self.state_holds(claim):
            scoped = bool(claim.scope or claim.assets or claim.depth)
            self.containment(str(claim.value), claim.text, claim.clause, scoped=scoped)

    def judged(self, claim: ProseClaim) -> None:
        """Claims about the run's account actions and between named entities (`judge.py`)."""
        reader = self.tools.store if self.tools is not None else None
        if claim.kind in MEASURE_KINDS:  # quantities, distances, what-ifs (`measures.py`)
            verdict = judge_measure(self.ev, claim.kind, claim.value, claim.text, claim.scope)
        else:
            verdict = judge_claim(self.ev, reader, claim)
        if verdict is None:
            return
        kind, evidence = verdict
        if kind == "unverified":
            if claim.clause not in self.unverified:
                self.unverified.append(claim.clause)
            return
        self.flag(FlagKind(kind), claim.text, evidence, claim.clause)

    def run_done(self, claim: ProseClaim) -> None:
        """ "The run completed", "Run: stopped": against the run's state (`runclaims.py`)."""
        self._verdict(judge_run_state(self.ev, claim.value), claim)

    def revocation(self, claim: ProseClaim) -> None:
        """ "The role's sessions were revoked": against the run's revocations (`runclaims.py`)."""
        self._verdict(judge_revocation(self.ev, claim.value), claim)

    def _verdict(self, verdict: tuple[str, str] | None, claim: ProseClaim) -> None:
        if verdict is not None:
            self.flag(FlagKind(verdict[0]), claim.text, verdict[1], claim.clause)

    def blast(self, claim: ProseClaim) -> None:
        """An emptiness claim about the blast radius ("is empty", "is not empty") or membership in it."""
        held = sorted(self._blast_ids)
        if claim.kind == "blast_member":
            absent = [x for x in claim.scope if x not in self._blast_ids and x != self.ev.alert_id]
            wrong = bool(absent)
        else:
            wrong = (claim.value == 0) == bool(held)
        if wrong:
            self.flag(
                FlagKind.WRONG_COUNT,
                claim.text,
                f"the fresh blast radius of {self.ev.alert_id} holds {len(held)} entit"
                + ("y" if len(held) == 1 else "ies")
                + (f": {', '.join(held)}" if held else "")
                + f"; {self.ev.path_count} qualifying path(s) remain",
                claim.clause,
            )

    def route_count(self, value: int, text: str, qualifier: str, context: str) -> None:
        routes = self.ev.routes
        active = sum(1 for r in routes if r.status == "active")
        carrying = sum(1 for r in routes if r.status == "active" and r.paths_carried)
        blocked = sum(1 for r in routes if r.status != "active")
        words = set(re.findall(r"[a-z]+", (qualifier + " " + context).lower()))
        if _has_closing(context):
            accepted = set(range(1, blocked + 1))  # "both routes were blocked": some of the blocked ones
        elif words & _EXPOSE_WORDS:
            accepted = {active, carrying}
        else:
            accepted = {len(routes), active, carrying, blocked}
        for x in {r.source for r in routes}:  # "X with one active session route", "X's routes": X's own
            if re.search(rf"(?<![\w:-]){re.escape(x)}(?:'s\b|\s+(?:with|has|have|holds|had|keeps|owns)\b)", context):
                own = [r for r in routes if r.source == x]
                live = sum(1 for r in own if r.status == "active")
                accepted = {live} if words & _EXPOSE_WORDS else {len(own), live, len(own) - live}
        if value not in accepted:
            self.flag(
                FlagKind.WRONG_COUNT,
                text,
                f"the alert has {len(routes)} session route(s): {active} active ({carrying} carrying a qualifying"
                f" path), {blocked} blocked",
                context,
            )

    def _live(self, depth: int | None) -> list[PathSummary]:
        return [p for p in self.ev.paths if depth is None or p.hops <= depth]

    def _open(self, entity: str, depth: int | None, leads: bool = False) -> bool:
        route = next((r for r in self.ev.routes if r.route_id == entity.removeprefix("block-route:")), None)
        if route is not None:  # "is active" is its status; "leads to X" needs a qualifying path through it
            return route.status == "active" and (not leads or route.paths_carried > 0)
        on_path = any(entity in p.nodes for p in self._live(depth))
        return on_path or (depth is None and entity in self._blast_ids)

    def _closed(self, entity: str, depth: int | None, existence: bool = False) -> bool:
        route = next((r for r in self.ev.routes if r.route_id == entity.removeprefix("block-route:")), None)
        if route is not None:  # a route is closed when it is blocked; "carries no path" when it carries none
            return route.status != "active" or (existence and route.paths_carried == 0)
        return not any(entity in p.nodes for p in self._live(depth))

    def graph_or_account(self, claimed: str, text: str, context: str, said: str = "") -> bool:
        """Judge a claim about the whole alert's containment against the AWS account's side when the graph has no
        qualifying path and the account has some open or cannot be read (`accountside.judge_on_account`: a bare
        claim, or one said of the account; one said of the graph is left to the graph). True when judged here.
        `said` is the sentence and `context` the clause (`said` empty: the structured claim)."""
        verdict = judge_on_account(self.ev, claimed, context if said else "", said)
        if verdict is None:
            return False
        kind, evidence = verdict
        unread = context if said else text
        if kind == "unverified" and unread not in self.unverified:
            self.unverified.append(unread)
        elif kind and kind != "unverified":
            self.flag(FlagKind(kind), text, evidence, context)
        return True

    def state_holds(self, claim: ProseClaim) -> bool:
        """Whether a containment or exposure claim is true of what it is about."""
        about = list(claim.scope) or list(claim.assets)
        some = any if claim.qualifier == "any" else all  # "either A or B is active": one of them
        if claim.value == "contained":
            if about:
                existence = claim.qualifier == "existence" or bool(claim.assets)
                return some(self._closed(x, claim.depth, existence) for x in about)
            return not self._live(claim.depth)
        if about:
            return some(self._open(x, claim.depth, bool(claim.assets)) for x in about)
        return bool(self._live(claim.depth))


class CheckOutcome(_Model):
    """A check's verdicts: the contradicted claims (flags) and the sentences it could not judge."""

    flags: list[Flag] = Field(default_factory=list)
    unverified: list[str] = Field(
        default_factory=list, description="clauses with state or action words that the grammar could not read"
    )

    @property
    def contradicted(self) -> bool:
        return bool(self.flags)


def read_sentences(text: str, evidence: EvidenceSummary) -> list[str]:
    """The sentences of a text as the grammar reads them (what the gate's vocabulary is learned from)."""
    return sentences(_Checker(evidence, None, set(), None).prepare(strip_run_reason(text[:MAX_TEXT_CHARS], evidence)))


def check_text(
    text: str, evidence: EvidenceSummary, tools: ReadTools | None = None, allowed: set[str] | None = None
) -> list[Flag]:
    """Flags for a free-text briefing against the evidence."""
    return check_text_outcome(text, evidence, tools, allowed).flags


def check_text_outcome(
    text: str,
    evidence: EvidenceSummary,
    tools: ReadTools | None = None,
    allowed: set[str] | None = None,
    vocabulary: Vocabulary | None = VOCABULARY,
) -> CheckOutcome:
    """Flags and unverified clauses for a free-text briefing against the evidence.

    `vocabulary` is the gate of `coverage.py` (None judges every clause the grammar reads: measurement only)."""
    checker = _Checker(evidence, tools, allowed or set(), vocabulary)
    checker.text(strip_run_reason(text[:MAX_TEXT_CHARS], evidence))
    return CheckOutcome(flags=checker.flags, unverified=checker.unverified)


def _disagreements(claims: BriefingClaims, prose: list[ProseClaim]) -> list[tuple[ProseClaim, str, object]]:
    """Prose claims about the whole alert that disagree with the same briefing's structured claims."""
    fields = {
        "state": claims.containment_state if claims.containment_state != "unknown" else None,
        "score": claims.risk_score,
        "severity": claims.severity,
        "path_count": claims.path_count,
    }
    out: list[tuple[ProseClaim, str, object]] = []
    for claim in prose:
        if claim.kind == "state" and (claim.scope or claim.assets or claim.depth or claim.action):
            continue  # about part of the alert, or about an action ("the sessions were revoked")
        if claim.kind in ("path_count", "asset_count") and _has_closing(claim.clause):
            continue  # "both paths were cut" counts what was removed, not what remains
        structured = fields.get(claim.kind)
        if structured is not None and claim.value != structured:
            out.append((claim, claim.kind, structured))
        if claim.kind == "asset_count" and claims.asset_count is not None:
            q = claim.qualifier
            plain = not any(w in q for w in ("critical", "high", "data")) or "qualifying" in q
            if plain and claim.value != claims.asset_count:
                out.append((claim, "asset_count", claims.asset_count))
    return out


def check_claims(
    claims: BriefingClaims, evidence: EvidenceSummary, tools: ReadTools | None = None, allowed: set[str] | None = None
) -> list[Flag]:
    """Flags for structured claims (checked exactly), their prose, and prose that disagrees with them."""
    return check_claims_outcome(claims, evidence, tools, allowed).flags


def check_claims_outcome(
    claims: BriefingClaims,
    evidence: EvidenceSummary,
    tools: ReadTools | None = None,
    allowed: set[str] | None = None,
    vocabulary: Vocabulary | None = VOCABULARY,
) -> CheckOutcome:
    """Flags and unverified clauses for structured claims and their prose."""
    checker = _Checker(evidence, tools, allowed or set(), vocabulary)
    for entity_id in claims.entity_ids:
        checker.entity(entity_id, "entity_ids")
    for rel_type in claims.relationship_types:
        checker.relationship(rel_type, "relationship_types")
    if claims.risk_score is not None:
        checker.score(claims.risk_score, f"risk_score: {claims.risk_score}", "risk_score")
    if claims.severity is not None:
        checker.severity(claims.severity, f"severity: {claims.severity}", "severity")
    if claims.path_count is not None:
        checker.path_count(claims.path_count, f"path_count: {claims.path_count}", "path_count")
    if claims.asset_count is not None and claims.asset_count != evidence.asset_count:
        checker.asset_count(claims.asset_count, f"asset_count: {claims.asset_count}", "qualifying", "asset_count")
    if claims.containment_state is None:
        pass
    elif checker.graph_or_account(
        claims.containment_state, f"containment_state: {claims.containment_state}", "containment_state"
    ):
        pass  # judged against the account's side
    elif claims.containment_state in ("contained", "exposed"):
        checker.containment(
            claims.containment_state, f"containment_state: {claims.containment_state}", "containment_state"
        )
    elif claims.containment_state == "unknown":
        # the fresh query answered: "unknown" understates exposure (or denies containment)
        opposite = "contained" if evidence.containment_state == "exposed" else "exposed"
        checker.containment(opposite, "containment_state: unknown", "containment_state")
    prose = checker.text(strip_run_reason(claims.prose, evidence))
    for claim, name, structured in _disagreements(claims, prose):
        checker.flag(
            FlagKind.SELF_CONTRADICTION,
            claim.text,
            f"the prose says {name} {claim.value} but the briefing's own claims say {structured}",
            claim.clause,
        )
    return CheckOutcome(flags=checker.flags, unverified=checker.unverified)
