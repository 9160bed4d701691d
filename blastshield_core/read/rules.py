"""Risk scoring: the versioned rule set `demo-rules-v1`.

A score is the sum of the points of every rule that fires, capped at 100.
Evidence rules read the standard investigation (qualifying paths at depth 6,
computed fresh); signal rules read the alert's signals. Nothing is keyed by
alert id: the same evidence always gives the same score.

| rule | fires when | points |
|------|------------|--------|
| E1-critical-reach | a qualifying path reaches a `critical` asset | 20 |
| E1-high-reach | otherwise, a qualifying path reaches a `high` asset | 10 |
| E2-short-path | the shortest qualifying path has 1-2 relationships | 15 |
| E2-medium-path | ... 3-4 relationships | 10 |
| E2-long-path | ... 5-6 relationships | 5 |
| E3-multiple-paths | two or more qualifying paths | 10 |
| E4-breadth | three or more distinct high/critical assets reached | 5 |
| S-internet_exposed | signal `internet_exposed` is true | 25 |
| S-wildcard_policy | signal `wildcard_policy` is true | 20 |
| S-impossible_travel | signal `impossible_travel` is true | 20 |
| S-off_hours_login | signal `off_hours_login` is true | 10 |
| S-mfa_disabled | signal `mfa_disabled` is true | 10 |

Severity bands: 0-29 low, 30-59 medium, 60-79 high, 80-100 critical.

Rule set `aws-rules-v1` scores alerts from AWS (signal `source` is `guardduty`
or `aws`): every rule above, plus

| rule | fires when | points |
|------|------------|--------|
| G-severity-high | signal `severity` (GuardDuty, 0-10) is 7 or more | 25 |
| G-severity-medium | ... 4 to below 7 | 15 |
| G-severity-low | ... below 4 | 5 |
| G-credential-threat | `finding_type` is UnauthorizedAccess, CredentialAccess, Exfiltration, PrivilegeEscalation | 10 |

Every other alert keeps `demo-rules-v1` exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ..results import AccessPath, ScoreFactor

__all__ = [
    "AWS_RULE_NAMES",
    "AWS_RULE_SET",
    "AWS_SOURCES",
    "RULE_SET",
    "SIGNAL_POINTS",
    "Assessment",
    "PathEnd",
    "assess",
    "assess_ends",
    "combine",
    "evidence_factors",
    "evidence_points",
    "path_end",
    "score_for",
    "severity_for",
    "signal_factors",
]

RULE_SET = "demo-rules-v1"
AWS_RULE_SET = "aws-rules-v1"
AWS_SOURCES = frozenset({"guardduty", "aws"})
AWS_RULE_NAMES = ("G-severity-high", "G-severity-medium", "G-severity-low", "G-credential-threat")
_THREAT_PREFIXES = ("UnauthorizedAccess", "CredentialAccess", "Exfiltration", "PrivilegeEscalation")

SIGNAL_POINTS: dict[str, int] = {
    "internet_exposed": 25,
    "wildcard_policy": 20,
    "impossible_travel": 20,
    "off_hours_login": 10,
    "mfa_disabled": 10,
}

_BANDS = ((80, "critical"), (60, "high"), (30, "medium"), (0, "low"))


class Assessment(NamedTuple):
    score: int
    severity: str
    rule_set: str
    factors: list[ScoreFactor]


def severity_for(score: int) -> str:
    for floor, name in _BANDS:
        if score >= floor:
            return name
    return "low"


class PathEnd(NamedTuple):
    """What the evidence rules read of one qualifying path: its length and the asset it ends at."""

    hops: int
    asset_id: str
    sensitivity: str


def path_end(path: AccessPath) -> PathEnd:
    last = path.nodes[-1]
    return PathEnd(path.hops, last.id, str(last.properties.get("sensitivity", "")))


def assess(signals: Mapping[str, object], paths: Sequence[AccessPath]) -> Assessment:
    """Score an alert from its signals and its qualifying paths (depth 6)."""
    return assess_ends(signals, [path_end(p) for p in paths])


def assess_ends(signals: Mapping[str, object], ends: Sequence[PathEnd]) -> Assessment:
    """Score an alert from its signals and the ends of its qualifying paths (depth 6): the
    same rules as `assess`, for callers that read only each path's length and asset."""
    rule_set, from_signals = signal_factors(signals)
    return combine(evidence_factors(ends), rule_set, from_signals)


def combine(from_evidence: Sequence[ScoreFactor], rule_set: str, from_signals: Sequence[ScoreFactor]) -> Assessment:
    """The assessment of an alert from its evidence factors and its rule set and signal factors
    (`evidence_factors`, `signal_factors`; a caller scoring many alerts may reuse either part)."""
    factors = [*from_evidence, *from_signals]
    score, severity = score_for(sum(f.points for f in factors))
    return Assessment(score=score, severity=severity, rule_set=rule_set, factors=factors)


def score_for(points: int) -> tuple[int, str]:
    """The score (the points of the rules that fire, capped at 100) and its severity band."""
    score = min(100, points)
    return score, severity_for(score)


def evidence_factors(ends: Sequence[PathEnd]) -> list[ScoreFactor]:
    """The evidence rules (E1-E4) that fire for the ends of an alert's qualifying paths."""
    return [
        ScoreFactor(rule=rule, description=description, points=points, evidence=evidence)
        for rule, description, points, evidence in _evidence_rules(ends)
    ]


def evidence_points(ends: Sequence[PathEnd]) -> int:
    """The points of the evidence rules that fire (what `evidence_factors` sums to), without
    building the factors: for a caller that shows only the score of many alerts (the queue)."""
    return sum(points for _, _, points, _ in _evidence_rules(ends))


def _evidence_rules(ends: Sequence[PathEnd]) -> list[tuple[str, str, int, str]]:
    """(rule, description, points, evidence) of each evidence rule that fires."""
    fired: list[tuple[str, str, int, str]] = []
    fire = fired.append
    if ends:
        critical = sorted({e.asset_id for e in ends if e.sensitivity == "critical"})
        high = sorted({e.asset_id for e in ends if e.sensitivity == "high"})
        if critical:
            fire(("E1-critical-reach", "a qualifying path reaches a critical asset", 20, ", ".join(critical)))
        elif high:
            fire(("E1-high-reach", "a qualifying path reaches a high-sensitivity asset", 10, ", ".join(high)))
        shortest = min(e.hops for e in ends)
        if shortest <= 2:
            fire(("E2-short-path", "shortest qualifying path has 1-2 relationships", 15, f"{shortest} hops"))
        elif shortest <= 4:
            fire(("E2-medium-path", "shortest qualifying path has 3-4 relationships", 10, f"{shortest} hops"))
        else:
            fire(("E2-long-path", "shortest qualifying path has 5-6 relationships", 5, f"{shortest} hops"))
        if len(ends) >= 2:
            fire(("E3-multiple-paths", "two or more qualifying paths", 10, f"{len(ends)} paths"))
        assets = sorted(set(critical) | set(high))
        if len(assets) >= 3:
            fire(("E4-breadth", "three or more distinct high/critical assets reached", 5, ", ".join(assets)))
    return fired


def signal_factors(signals: Mapping[str, object]) -> tuple[str, list[ScoreFactor]]:
    """The rule set an alert's signals select, and the signal rules (S-, G-) that fire."""
    factors: list[ScoreFactor] = []

    def fire(rule: str, description: str, points: int, evidence: str) -> None:
        factors.append(ScoreFactor(rule=rule, description=description, points=points, evidence=evidence))

    for signal, points in SIGNAL_POINTS.items():
        if signals.get(signal) is True:
            fire(f"S-{signal}", f"signal {signal} is true", points, f"{signal}=true")
    rule_set = RULE_SET
    if signals.get("source") in AWS_SOURCES:
        rule_set = AWS_RULE_SET
        severity = signals.get("severity")
        if isinstance(severity, int | float) and not isinstance(severity, bool):
            if severity >= 7:
                fire("G-severity-high", "GuardDuty severity is high (7 or more)", 25, f"severity={severity}")
            elif severity >= 4:
                fire("G-severity-medium", "GuardDuty severity is medium (4 to below 7)", 15, f"severity={severity}")
            else:
                fire("G-severity-low", "GuardDuty severity is low (below 4)", 5, f"severity={severity}")
        finding = signals.get("finding_type")
        if isinstance(finding, str) and finding.startswith(_THREAT_PREFIXES):
            fire("G-credential-threat", "the finding is a credential, exfiltration or escalation threat", 10, finding)
    return rule_set, factors
