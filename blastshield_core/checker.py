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

from .audit import RUN_ID_PATTERN
from .model import RelType
from .read import ReadTools
from .results import MAX_DEPTH, BlastEntity, RouteStatus, RunRecord, RunState, ScoreFactor, Status
from .rules import AWS_RULE_NAMES, AWS_RULE_SET, RULE_SET, SIGNAL_POINTS
from .settings import ENVIRONMENT_VARIABLES
from .store import QueryFailed

__all__ = [
    "MAX_TEXT_CHARS",
    "BriefingClaims",
    "ContainmentState",
    "EvidenceSummary",
    "EvidenceUnavailable",
    "Flag",
    "FlagKind",
    "PathSummary",
    "RunSummary",
    "check_claims",
    "check_text",
    "gather_evidence",
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
ContainmentState = Literal["contained", "exposed", "unknown"]


class FlagKind(StrEnum):
    UNKNOWN_ENTITY = "unknown_entity"
    WRONG_SCORE = "wrong_score"
    WRONG_SEVERITY = "wrong_severity"
    UNKNOWN_RELATIONSHIP = "unknown_relationship"
    WRONG_COUNT = "wrong_count"
    FALSE_CONTAINMENT = "false_containment"
    FALSE_EXPOSURE = "false_exposure"


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


class PathSummary(_Model):
    nodes: list[str]
    relationships: list[str]
    hops: int


class RunSummary(_Model):
    run_id: str
    state: RunState
    reason: str
    decider: str
    max_actions: int
    actions: list[dict[str, object]]
    paths_at_start: int | None
    remaining_paths: int | None


class EvidenceSummary(_Model):
    """The fresh evidence a briefing is checked against (and the model is given)."""

    alert_id: str
    title: str
    entity_id: str
    entity_label: str | None
    status: Status
    risk_score: int
    severity: str
    rule_set: str
    factors: list[ScoreFactor]
    paths: list[PathSummary]
    path_count: int
    truncated: bool
    assets: list[str]
    critical_assets: list[str]
    high_assets: list[str]
    blast_radius: list[BlastEntity]
    blast_by_label: dict[str, int]
    routes: list[RouteStatus]
    cut_off_entities: list[str] = Field(
        default_factory=list, description="entities on paths that exist only through blocked relationships"
    )
    containment_state: ContainmentState
    run: RunSummary | None = None

    @property
    def asset_count(self) -> int:
        return len(self.assets)

    @property
    def relationship_types(self) -> set[str]:
        return {t for p in self.paths for t in p.relationships}

    @property
    def known_ids(self) -> set[str]:
        ids = {self.alert_id, self.entity_id}
        ids |= {n for p in self.paths for n in p.nodes}
        ids |= {e.id for e in self.blast_radius}
        ids |= set(self.cut_off_entities)
        for r in self.routes:
            ids |= {r.route_id, r.source, r.target, f"block-route:{r.route_id}"}
        if self.run is not None:
            ids.add(self.run.run_id)
        return ids


class EvidenceUnavailable(Exception):
    """The graph gave no answer that a briefing could rest on (unknown alert, failed query...)."""

    def __init__(self, status: Status, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _require(result, what: str) -> None:
    if not result.status.is_answer:
        raise EvidenceUnavailable(result.status, f"{what}: {result.status.value}: {result.message}")


def gather_evidence(tools: ReadTools, alert_id: str, run: RunRecord | None = None) -> EvidenceSummary:
    """A fresh standard investigation, blast radius and route statuses, summarised."""
    inv = tools.investigate_alert(alert_id)
    _require(inv, "investigation")
    blast = tools.get_blast_radius(alert_id)
    _require(blast, "blast radius")
    routes = tools.get_containment_route_statuses(alert_id)
    _require(routes, "route statuses")
    assert inv.alert is not None
    critical = sorted({p.nodes[-1].id for p in inv.paths if p.nodes[-1].properties.get("sensitivity") == "critical"})
    high = sorted({p.nodes[-1].id for p in inv.paths if p.nodes[-1].properties.get("sensitivity") == "high"})
    # Paths that blocked routes cut are still part of this alert's story (e.g. after a run).
    try:
        every, _ = tools._paths("sensitive", MAX_DEPTH, {"source_id": inv.alert.entity_id}, include_blocked=True)
    except QueryFailed as exc:
        raise EvidenceUnavailable(Status.QUERY_FAILED, f"cut-off paths: {exc}") from None
    live = {n for p in inv.paths for n in p.node_ids}
    cut_off = sorted({n for p in every for n in p.node_ids} - live)
    summary_run = None
    if run is not None:
        start = next((s for s in run.steps if s.kind == "investigate"), None)
        summary_run = RunSummary(
            run_id=run.run_id,
            state=run.state,
            reason=run.reason,
            decider=run.decider,
            max_actions=run.max_actions,
            actions=[a.model_dump() for a in run.actions],
            paths_at_start=start.data.get("paths") if start else None,
            remaining_paths=run.remaining_paths,
        )
    return EvidenceSummary(
        alert_id=inv.alert.id,
        title=inv.alert.title,
        entity_id=inv.alert.entity_id,
        entity_label=inv.alert.entity_label,
        status=inv.status,
        risk_score=inv.alert.risk_score,
        severity=inv.alert.severity,
        rule_set=inv.alert.rule_set,
        factors=inv.alert.factors,
        paths=[
            PathSummary(nodes=list(p.node_ids), relationships=[r.type for r in p.relationships], hops=p.hops)
            for p in inv.paths
        ],
        path_count=inv.path_count,
        truncated=inv.truncated,
        assets=sorted(set(critical) | set(high)),
        critical_assets=critical,
        high_assets=high,
        blast_radius=blast.entities,
        blast_by_label=blast.by_label,
        routes=routes.routes,
        cut_off_entities=cut_off,
        containment_state="contained" if inv.status is Status.NO_PATH else "exposed",
        run=summary_run,
    )


# -- text parsing ------------------------------------------------------------------

_NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "a single": 1,
    "single": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_NUM = r"(\d{1,4}|zero|one|a\s+single|single|two|three|four|five|six|seven|eight|nine|ten)"
_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_.:@-])[A-Za-z0-9][A-Za-z0-9_.:@-]*[A-Za-z0-9]")
_REL_LIKE_RE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_ARROW_REL_RE = re.compile(r"\[:?\s*([A-Z][A-Z0-9_]*)\s*\]")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_VERSION_RE = re.compile(r"^v?\d+(?:\.\d+)+[a-z]?$")
_UNIT_RE = re.compile(r"^\d+[-.]?[A-Za-z]{1,6}$")  # 5-hop, 24h, 2nd
_SCORE_RE = re.compile(r"\bscor(?:e|ed|ing)\b[^.\d\n+]{0,25}?(?<![\w+.-])(\d{1,3})\b(?!\s*(?:points?|pts|%|hops?))")
_OUT_OF_RE = re.compile(r"(?<![\w.-])(\d{1,3})\s*/\s*100\b")
_SEVERITY_RES = (
    re.compile(
        r"\bseverity\b\W{0,3}(?:(?:is|was|of|level|rated|now)\s+){0,2}\W{0,2}(low|medium|high|critical)\b", re.I
    ),
    re.compile(r"\b(low|medium|high|critical)[\s-]+(?:severity|priority)\b", re.I),
    re.compile(r"\b(?:rated|classed|classified)\s+(?:as\s+)?(low|medium|high|critical)\b", re.I),
    re.compile(
        r"\bscore\b[^.\n]{0,25}?\d{1,3}\s*[(,]?\s*(low|medium|high|critical)\b(?![\s-]+(?:sensitivity|data|asset))",
        re.I,
    ),
)
_COUNT_RE = re.compile(
    _NUM + r"\s+((?:(?:qualifying|access|attack|distinct|remaining|active|separate|independent|modeled|modelled|open|"
    r"critical|sensitive|high|high-sensitivity|high/critical|data|or|and|current|live)[\s-]+){0,4})(paths?|assets?)\b",
    re.I,
)
_COUNT_SKIP_BEFORE = re.compile(
    r"\b(?:before|initially|originally|at\s+the\s+start|started|previously|had|of|cut|cuts|cutting|carried|carries|"
    r"carry|carrying|was|were|from|blocking|blocked|removed|severed)\W*(?:\w+\W+){0,1}$",
    re.I,
)
_COUNT_SKIP_AFTER = re.compile(r"^\s*(?:were|was|had|before|initially|originally|at\s+the\s+start|cut)\b", re.I)

_CONTAIN_RES = (
    re.compile(r"(?<![\w-])contained(?![\w-])", re.I),
    re.compile(
        r"\bno\s+(?:(?:remaining|qualifying|access|attack|active|open|further|more|current)\s+){0,3}paths?\b", re.I
    ),
    re.compile(r"\bno\s+(?:\w+\s+){0,2}access\s+(?:remains|is\s+left|left)\b", re.I),
    re.compile(r"\bno\s+(?:remaining|further|more)\s+access\b", re.I),
    re.compile(r"\bblocked\s+(?:off\s+)?all\b", re.I),
    re.compile(
        r"\ball\s+(?:\w+\s+){0,3}(?:paths?|routes?|access)\s+(?:are|were|is|was|have\s+been|has\s+been)\s+(?:now\s+)?"
        r"(?:blocked|cut|severed|closed|removed|eliminated|revoked)",
        re.I,
    ),
    re.compile(
        r"\b(?:fully|completely|successfully)\s+(?:mitigated|remediated|blocked|severed|cut\s+off|closed)\b", re.I
    ),
    re.compile(r"(?<![\w-])(?:mitigated|remediated|neutrali[sz]ed)(?![\w-])", re.I),
    re.compile(
        r"\bno\s+longer\s+(?:exposed|reachable|at\s+risk|accessible|has\s+access|have\s+access|able\s+to\s+reach|"
        r"reaches|reach|can\s+reach)\b",
        re.I,
    ),
    re.compile(r"\bzero\s+(?:\w+\s+)?paths?\b", re.I),
    re.compile(r"\bnothing\s+(?:remains|is\s+left)\b", re.I),
    re.compile(r"\b(?:is|are)\s+(?:now\s+)?safe\b", re.I),
    re.compile(r"\b(?:is|are|been)\s+(?:now\s+)?(?:fully\s+|completely\s+)?isolated\b", re.I),
    re.compile(r"\bremediation\s+(?:is\s+)?complete(?:d)?\b", re.I),
)
_EXPOSE_RES = (
    re.compile(r"(?<![\w-])uncontained(?![\w-])", re.I),
    re.compile(r"(?<![\w-])exposed(?![\w-])", re.I),
    re.compile(r"\bpaths?\s+(?:still\s+)?(?:remains?|persists?)\b", re.I),
    re.compile(r"\bremaining\s+(?:qualifying\s+|access\s+)?paths?\b", re.I),
    re.compile(
        r"\bstill\s+(?:reachable|accessible|active|open|has\s+access|have\s+access|reach(?:es)?|can\s+reach)\b", re.I
    ),
    re.compile(r"\bcan\s+still\s+(?:reach|read|access|assume)\b", re.I),
    re.compile(r"\b(?:remains?|is\s+still)\s+(?:open|reachable|at\s+risk|active)\b", re.I),
    re.compile(r"\bat\s+risk\b", re.I),
    re.compile(r"\bpartially\s+(?:contained|mitigated|blocked)\b", re.I),
)
_NEGATION_RE = re.compile(
    r"\b(?:not|never|nor|without|yet\s+to\s+be|isn't|aren't|wasn't|cannot|can't)\W+(?:\w+\W+){0,2}$", re.I
)
# "carries no qualifying path", "through sess-x no path": about one route or entity, not the alert.
_LOCAL_RE = re.compile(r"\b(?:carr(?:y|ies|ying)|uses?|using|through|via|on|for|in)\s+$", re.I)
# "no path at depth 4", "no path within 3 hops": a bounded question, not the standard (depth 6) one.
_SHALLOW_RE = re.compile(r"^[^.;]{0,40}?\b(?:at\s+depth|within|depth)\s+([1-5])\b", re.I)
_PARTIAL_RE = re.compile(r"\b(?:partially|partly)\s+$", re.I)
_NO_LONGER_RE = re.compile(r"\b(?:no\s+longer|not|never|isn't|aren't)\s+(?:\w+\s+){0,1}$", re.I)
_PAST_RE = re.compile(r"\b(?:was|were|had\s+been|previously|initially|originally|before)\s+(?:\w+\s+){0,1}$", re.I)
_HYPOTHETICAL_RE = re.compile(r"\b(?:if|would|could|once|until|unless|whether|should|might|may|will)\b", re.I)
_CLAUSE_RE = re.compile(r"(?<=[.!?;])\s+|\n+|\bbut\b|\bhowever\b", re.I)


def _clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE_RE.split(text) if c and c.strip()]


def _number(word: str) -> int:
    word = re.sub(r"\s+", " ", word.lower())
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def _distance(a: str, b: str, limit: int = 2) -> int:
    """Levenshtein distance, stopping early above `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


class _Checker:
    def __init__(self, evidence: EvidenceSummary, tools: ReadTools | None, extra_allowed: set[str]):
        self.ev = evidence
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
            *evidence.title.split(),
            *ENVIRONMENT_VARIABLES,
            *extra_allowed,
        }
        self._graph_cache: dict[str, bool] = {}

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

    def _near(self, token: str) -> str | None:
        if len(token) < 5:
            return None
        best = min(self.known, key=lambda k: _distance(token.lower(), k.lower()), default=None)
        if best is not None and _distance(token.lower(), best.lower()) <= 2:
            return best
        return None

    def _entity_evidence(self) -> str:
        ids = sorted(self.known - {self.ev.alert_id})
        return f"the graph returned these entities for {self.ev.alert_id}: " + ", ".join(ids)

    # -- structured claims -----------------------------------------------------------
    def entity(self, entity_id: str, context: str = "") -> None:
        if entity_id in self.known or entity_id in self.allowed:
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

    def relationship(self, rel_type: str, context: str = "") -> None:
        present = sorted(self.ev.relationship_types)
        if rel_type in self.ev.relationship_types:
            return
        where = (
            "not a relationship type of the graph model"
            if rel_type not in {t.value for t in RelType}
            else "not on any qualifying path of this alert"
        )
        self.flag(
            FlagKind.UNKNOWN_RELATIONSHIP,
            rel_type,
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

    def containment(self, claimed: str, text: str, context: str = "") -> None:
        paths = self.ev.path_count
        if claimed == "contained" and self.ev.containment_state != "contained":
            self.flag(
                FlagKind.FALSE_CONTAINMENT,
                text,
                f"a fresh investigation ({self.ev.status.value}) still finds {paths} qualifying path(s): "
                + "; ".join(" -> ".join(p.nodes) for p in self.ev.paths[:5]),
                context,
            )
        elif claimed == "exposed" and self.ev.containment_state == "contained":
            self.flag(
                FlagKind.FALSE_EXPOSURE,
                text,
                f"a fresh investigation returned no_path: no qualifying path from {self.ev.entity_id}"
                " to a high/critical asset within 6 hops",
                context,
            )

    # -- free text -------------------------------------------------------------------
    def text(self, text: str) -> None:
        for clause in _clauses(text):
            self._ids(clause)
            self._scores(clause)
            self._counts(clause)
            self._containment(clause)

    def _ids(self, clause: str) -> None:
        for m in _ARROW_REL_RE.finditer(clause):
            self.relationship(m.group(1), clause)
        for m in _TOKEN_RE.finditer(clause):
            token = m.group(0)
            if token in self.known or token in self.allowed or len(token) < 4:
                continue
            if _REL_LIKE_RE.match(token):
                self.relationship(token, clause)
                continue
            if (
                _DATE_RE.match(token)
                or _UNIT_RE.match(token)
                or _VERSION_RE.match(token)
                or re.fullmatch(RUN_ID_PATTERN, token)
            ):
                continue
            if token.startswith("block-route:") and token.removeprefix("block-route:") in self.known:
                continue
            if token.lower() in self.known_lower:
                self.entity(token, clause)  # wrong case is a different id
                continue
            if not re.search(r"[A-Za-z]", token) or not re.search(r"[_.:@-]", token):
                continue
            strong = "_" in token or (re.search(r"\d", token) is not None)
            if strong or self._near(token) is not None or self._in_graph(token):
                self.entity(token, clause)

    def _scores(self, clause: str) -> None:
        for m in _SCORE_RE.finditer(clause):
            self.score(int(m.group(1)), m.group(0).strip(), clause)
        for m in _OUT_OF_RE.finditer(clause):
            self.score(int(m.group(1)), m.group(0).strip(), clause)
        for rx in _SEVERITY_RES:
            for m in rx.finditer(clause):
                self.severity(m.group(1), m.group(0).strip(), clause)

    def _counts(self, clause: str) -> None:
        for m in _COUNT_RE.finditer(clause):
            before, after = clause[: m.start()], clause[m.end() :]
            if _COUNT_SKIP_BEFORE.search(before) or _COUNT_SKIP_AFTER.match(after):
                continue
            if _HYPOTHETICAL_RE.search(before):
                continue
            value = _number(m.group(1))
            noun = m.group(3).lower()
            if noun.startswith("path"):
                self.path_count(value, m.group(0).strip(), clause)
            else:
                self.asset_count(value, m.group(0).strip(), m.group(2), clause)

    def _containment(self, clause: str) -> None:
        taken: list[tuple[int, int]] = []
        for rx in _CONTAIN_RES:
            for m in rx.finditer(clause):
                if any(m.start() < e and s < m.end() for s, e in taken):
                    continue
                taken.append((m.start(), m.end()))
                before = clause[: m.start()]
                if _NEGATION_RE.search(before) or _PARTIAL_RE.search(before):
                    if not _HYPOTHETICAL_RE.search(before):
                        self.containment("exposed", m.group(0).strip(), clause)
                    continue
                if _HYPOTHETICAL_RE.search(before) or _PAST_RE.search(before) or _LOCAL_RE.search(before):
                    continue
                if _SHALLOW_RE.match(clause[m.end() :]):
                    continue
                self.containment("contained", m.group(0).strip(), clause)
        for rx in _EXPOSE_RES:
            for m in rx.finditer(clause):
                if any(m.start() < e and s < m.end() for s, e in taken):
                    continue
                taken.append((m.start(), m.end()))
                before = clause[: m.start()]
                if _HYPOTHETICAL_RE.search(before) or _PAST_RE.search(before):
                    continue
                if _NO_LONGER_RE.search(before):
                    self.containment("contained", m.group(0).strip(), clause)
                    continue
                self.containment("exposed", m.group(0).strip(), clause)


def _strip_quoted_data(text: str, evidence: EvidenceSummary) -> str:
    """The alert's own title and the run's recorded reason are data, not claims."""
    for quoted in (evidence.title, evidence.run.reason if evidence.run else ""):
        if quoted:
            text = text.replace(quoted, " ")
    return text


def check_text(
    text: str, evidence: EvidenceSummary, tools: ReadTools | None = None, allowed: set[str] | None = None
) -> list[Flag]:
    """Flags for a free-text briefing against the evidence."""
    checker = _Checker(evidence, tools, allowed or set())
    checker.text(_strip_quoted_data(text[:MAX_TEXT_CHARS], evidence))
    return checker.flags


def check_claims(
    claims: BriefingClaims, evidence: EvidenceSummary, tools: ReadTools | None = None, allowed: set[str] | None = None
) -> list[Flag]:
    """Flags for structured claims (and their prose) against the evidence."""
    checker = _Checker(evidence, tools, allowed or set())
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
    if claims.asset_count is not None:
        checker.asset_count(claims.asset_count, f"asset_count: {claims.asset_count}", "qualifying", "asset_count")
    if claims.containment_state in ("contained", "exposed"):
        checker.containment(
            claims.containment_state, f"containment_state: {claims.containment_state}", "containment_state"
        )
    checker.text(_strip_quoted_data(claims.prose, evidence))
    return checker.flags
