"""The fourth round's corpus: template families x wording x structure x format x entities, labelled from facts.

Each template family writes one kind of claim in one way (a copula, a contraction, a status
marker, a before/after table, a quotation, a range...). A family is instantiated over every
context: the four seed scenarios as seeded and after a rules run, BH-CONTAINMENT-4001 after a run
capped at one action (stopped, one path left), and an AWS account (a user whose access key reads a
critical bucket, on a moto server) contained once in the graph only and once on the account.

Every sentence states a claim whose truth is computed from facts, never from the checker: the
fresh investigation's paths and state, the routes' statuses, the run record's state and its
actions' account fields, and the graph's relationships as exported (`export_document`). A sentence
is truthful when it states a true claim, or the negation of a false one, or no claim at all (a
condition, a plan, a quotation of someone else's words).

This module holds the contexts, the helpers the families share, `generate`, `measure` and `table`.
The families are in `briefing_families_first.py` (the tuning part and the first held-out set, split
by name before any measurement) and `briefing_families_later.py` (held-out sets 2 to 5, each written
after the previous measurement, and the whole list). The measurement runs in
tests/integration/brief/test_briefing_families.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from blastshield_core.brief.checker import CheckOutcome, EvidenceSummary
from blastshield_core.results import RunRecord

__all__ = [
    "Context",
    "Family",
    "Part",
    "Score",
    "Sentence",
    "both",
    "first_contact",
    "generate",
    "measure",
    "on_paths",
    "pairs",
    "paths_at_start",
    "reaches",
    "score",
    "table",
    "words",
]

_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
PER_FAMILY_CONTEXT = 6  # at most this many instances of a family per context


def words(n: int) -> str:
    if 0 <= n < len(_WORDS):
        return _WORDS[n]
    tens, unit = divmod(n, 10)
    return _TENS[tens] + (f"-{_WORDS[unit]}" if unit else "") if tens in _TENS else str(n)


@dataclass
class Context:
    """One alert in one state, with the facts the labels are computed from."""

    key: str
    ev: EvidenceSummary
    run: RunRecord | None
    edges: list[tuple[str, str, str, dict[str, Any]]]  # (source, type, target, properties), the whole graph
    names: dict[str, str]  # entity id -> plain name
    arns: dict[str, str] = field(default_factory=dict)  # entity id -> ARN (AWS entities)
    user: str = ""  # the principal whose credentials the account claims are about

    # -- facts -----------------------------------------------------------------------
    @property
    def live(self) -> list[list[str]]:
        return [p.nodes for p in self.ev.paths]

    def route_status(self, route: str) -> str:
        return next(r.status for r in self.ev.routes if r.route_id == route)

    def edge(self, a: str, rel: str, b: str) -> list[dict[str, Any]]:
        return [props for s, t, d, props in self.edges if (s, t, d) == (a, rel, b)]

    def edge_works(self, a: str, rel: str, b: str) -> bool:
        return any(
            p.get("permission", "allow") != "deny" and p.get("status", "active") != "blocked"
            for p in self.edge(a, rel, b)
        )

    @property
    def account_exposed(self) -> bool:
        """Whether a qualifying path is open on the AWS account: one the graph has, or one that only a block the
        run made in the graph only cuts (the route blocked in the graph by an action whose record says no call was
        made on the account, `applied_in_aws` false: the key is still Active). From the run record and the routes'
        statuses, never from the checker."""
        if self.live:
            return True
        if self.run is None:
            return False
        blocked = {r.route_id for r in self.ev.routes if r.status == "blocked"}
        return any(
            a.operation == "block_route"
            and a.status == "applied"
            and a.aws is not None
            and not a.aws.applied_in_aws
            and a.route_id in blocked
            for a in self.run.actions
        )

    @property
    def contained(self) -> bool:
        """The truth of a bare claim of containment ("the alert is contained", "nothing is left open"), said of
        neither the graph nor the account: no qualifying path in the graph, and none open on the AWS account."""
        return self.ev.containment_state == "contained" and not self.account_exposed

    def remaining(self, k: int) -> bool:
        """Whether "k qualifying paths remain", said of no place, holds: the graph's count, and for none a claim of
        containment (false while paths are open on the AWS account); while the graph has none and the account has
        some open (a block made in the graph only), the count open on the account (the evidence's account side)."""
        if self.ev.containment_state == "contained" and self.account_exposed and self.ev.account is not None:
            return k == self.ev.account.open_paths
        return k == self.ev.path_count and (k > 0 or self.contained)

    def reachable(self, entity: str) -> bool:
        """Whether an entity is said truly to be still reachable or exposed: on a live path, or, for the alert's
        own entity (a claim about the alert), while paths are open on the AWS account."""
        return any(entity in p for p in self.live) or (entity == self.ev.entity_id and self.account_exposed)

    def account_done(self, kind: str) -> bool:
        """A change of this kind (credential, key, policy) applied and verified on the account by the run."""
        if self.run is None:
            return False
        plans = {"key": {"deactivate_access_key"}, "policy": {"deny_all_inline_policy"}}
        wanted = plans.get(kind, {"deactivate_access_key", "deny_all_inline_policy"})
        return any(
            a.aws is not None
            and a.aws.applied_in_aws is True
            and a.applied is True
            and a.api_verified is True
            and a.aws.plan.kind in wanted
            for a in self.run.actions
        )

    def neighbourhood(self) -> list[str]:
        ids = {n for p in self.live for n in p} | set(self.ev.cut_off_entities) | {e.id for e in self.ev.blast_radius}
        return sorted(ids)


@dataclass(frozen=True)
class Sentence:
    family: str
    held_out: bool
    context: str
    text: str
    truthful: bool


# A template yields (text, truthful) pairs for one context.
Template = Callable[[Context], Iterable[tuple[str, bool]]]


@dataclass(frozen=True)
class Family:
    name: str
    kind: str
    make: Template


@dataclass(frozen=True)
class Part:
    """A part of the corpus: the tuning part or one held-out set, with the file of its first measurement.

    A held-out set is measured once with the checker as it is when the set is added (its `first` file,
    written by the measurement test under `UPDATE_BRIEFING_FIGURES=1` when it does not exist yet, and never
    rewritten); after that it is tuning data like the rest."""

    key: str  # as kept in corpus.jsonl ("tuning", "held-out", "held-out-2", ...)
    title: str  # "Fifth held-out set"
    families: frozenset[str]
    first: str = ""  # the file of its first measurement, "" for the tuning part
    written: str = ""  # how the set was written, said at the top of its first measurement


def first_contact(part: Part, scores: dict[str, Score], wrong: str) -> str:
    """The text of a held-out set's first measurement (like fifth_first.md)."""
    return (
        f"# {part.title}: its first measurement\n\n{part.written}\n\n"
        "Measured once, with the checker as it was when the set was added, before any change for it.\n\n"
        f"{table(scores)}\n\n## Sentences judged wrongly\n\n{wrong}"
    )


def both(text_true_claim: str, text_negated: str, truth: bool) -> list[tuple[str, bool]]:
    """A claim and its negation: the first is truthful when the claim holds, the second when it does not."""
    return [(text_true_claim, truth), (text_negated, not truth)]


def paths_at_start(c: Context) -> int:
    """The alert's qualifying paths before the run (those now live when there is no run)."""
    if c.run is None:
        return c.ev.path_count
    start = next((s for s in c.run.steps if s.kind == "investigate"), None)
    return int(start.data["paths"]) if start is not None else c.ev.path_count


def pairs(c: Context, rel: str) -> list[tuple[str, str]]:
    """Pairs of the neighbourhood with a relationship of `rel` (any status), and reversed pairs without one."""
    near = set(c.neighbourhood())
    found = [(s, d) for s, t, d, _ in c.edges if t == rel and s in near and d in near]
    reversed_ = [(d, s) for s, d in found if not c.edge(d, rel, s)]
    return sorted(set(found))[:4] + sorted(set(reversed_))[:2]


def reaches(c: Context, a: str, b: str) -> bool:
    return any(a in p and b in p and p.index(a) < p.index(b) for p in c.live)


def on_paths(c: Context) -> list[str]:
    ids = sorted({n for p in c.live for n in p[1:-1]}) + sorted(set(c.ev.cut_off_entities))[:2]
    return ids[:5]


# Formats a one-line sentence is written in (its claim is the same): prose, list items, emphasis, a callout.
FORMATS = ("{s}", "- {s}", "1. {s}", "**{s}**", "* {s}", "Note: {s}")


def _formatted(text: str, n: int) -> str:
    if "\n" in text or text.lstrip().startswith(
        ("|", "#", "-", "*", ">", "✅", "❌", "🔴", "Status", "Overall", "Run:")
    ):
        return text
    return FORMATS[n % len(FORMATS)].format(s=text)


def generate(contexts: list[Context], families: Iterable[Family], held_out: frozenset[str]) -> list[Sentence]:
    """Every family over every context, at most PER_FAMILY_CONTEXT claims (each with its negation) per context,
    each sentence in one of the formats in turn."""
    out: list[Sentence] = []
    for family in families:
        n = 0
        for c in contexts:
            for text, ok in list(family.make(c))[: PER_FAMILY_CONTEXT * 2]:
                out.append(Sentence(family.name, family.name in held_out, c.key, _formatted(text, n), ok))
                n += 1
    return out


@dataclass
class Score:
    false_total: int = 0
    caught: int = 0
    false_unverified: int = 0
    true_total: int = 0
    false_flags: int = 0
    true_unverified: int = 0

    @property
    def recall(self) -> float:
        return self.caught / self.false_total if self.false_total else 1.0

    @property
    def false_unmarked(self) -> int:
        """False claims shown as checked: neither flagged nor marked unverified."""
        return self.false_total - self.caught - self.false_unverified

    def __add__(self, other: Score) -> Score:
        return Score(*(getattr(self, f) + getattr(other, f) for f in self.__dataclass_fields__))

    @property
    def false_flag_rate(self) -> float:
        return self.false_flags / self.true_total if self.true_total else 0.0


def measure(
    sentences: list[Sentence], check: Callable[[Sentence], CheckOutcome]
) -> tuple[dict[str, Score], list[tuple[Sentence, CheckOutcome]]]:
    """Scores by family (and "all"), and the sentences judged wrongly (a missed false one, a flagged truthful one)."""
    scores: dict[str, Score] = {}
    wrong: list[tuple[Sentence, CheckOutcome]] = []
    for s in sentences:
        outcome = check(s)
        flagged, unverified = bool(outcome.flags), bool(outcome.unverified) and not outcome.flags
        for key in (s.family, "all"):
            sc = scores.setdefault(key, Score())
            if s.truthful:
                sc.true_total += 1
                sc.false_flags += flagged
                sc.true_unverified += unverified
            else:
                sc.false_total += 1
                sc.caught += flagged
                sc.false_unverified += unverified
        if flagged == s.truthful:
            wrong.append((s, outcome))
    return scores, wrong


def score(sentences: list[Sentence], check: Callable[[Sentence], CheckOutcome]) -> Score:
    """The whole score of some sentences."""
    return measure(sentences, check)[0].get("all", Score())


def table(scores: dict[str, Score], first: str = "family", order: list[str] | None = None) -> str:
    """The per-family (or per-part) table quoted in docs/briefings.md and BENCHMARKS.md.

    Strict recall counts only flagged false claims; a false claim marked unverified is neither caught
    nor shown as checked, and "false shown unmarked" are those passed as checked."""
    rows = [
        f"| {first} | false flagged (strict recall) | false unverified | false shown unmarked |"
        " truthful flagged (false flags) | truthful unverified |",
        "|---|---|---|---|---|---|",
    ]
    for name in order or [*sorted(k for k in scores if k != "all"), "all"]:
        sc = scores[name]
        rows.append(
            f"| {name} | {sc.recall:.1%} ({sc.caught}/{sc.false_total}) | {sc.false_unverified} |"
            f" {sc.false_unmarked} | {sc.false_flag_rate:.1%} ({sc.false_flags}/{sc.true_total}) |"
            f" {sc.true_unverified} |"
        )
    return "\n".join(rows)
