"""A labelled corpus of briefing sentences, generated combinatorially from the evidence, and its measurement.

Every sentence is built from one scenario's fresh evidence (exposed, or after a
rules run) and labelled truthful or false by construction: the values it states
are taken from the evidence or deliberately changed. Claim kinds, tenses, voices,
verb and noun forms, phrasal verbs, negation, hedging, recommendations,
conditions and clause order are combined. A fixed-seed split keeps part of the
corpus out of the development loop.

`python -m tests.helpers.briefing_corpus` prints the table quoted in docs/briefings.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from blastshield_core.brief.checker import EvidenceSummary, Flag, FlagKind
from blastshield_core.graph.model import RelType

SEED = 1405
HELD_OUT_SHARE = 0.4
PER_CASE = 110  # sentences per scenario and state: half truthful, half false
# Share of each kind in a case (containment and exposure claims are the dangerous ones).
WEIGHTS = {"containment": 5, "exposure": 3, "relationship": 2}

KIND_FLAG = {
    "containment": FlagKind.FALSE_CONTAINMENT,
    "exposure": FlagKind.FALSE_EXPOSURE,
    "relationship": FlagKind.UNKNOWN_RELATIONSHIP,
    "entity": FlagKind.UNKNOWN_ENTITY,
    "score": FlagKind.WRONG_SCORE,
    "severity": FlagKind.WRONG_SEVERITY,
    "path_count": FlagKind.WRONG_COUNT,
    "asset_count": FlagKind.WRONG_COUNT,
}
KINDS = tuple(KIND_FLAG)
INVENTED_TYPES = ("CAN_WRITE", "HAS_ADMIN", "OWNS", "MEMBER_OF", "CAN_DELETE", "ASSUMES_ROLE", "TRUSTS", "CAN_EXECUTE")
_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}


@dataclass(frozen=True)
class Sentence:
    alert: str
    state: str  # "exposed" (fresh seed) or "after-run"
    kind: str
    truthful: bool
    text: str


def words(n: int) -> str:
    if n < len(_WORDS):
        return _WORDS[n]
    tens, unit = divmod(n, 10)
    return _TENS[tens] + (f"-{_WORDS[unit]}" if unit else "") if tens in _TENS else str(n)


def _be(plural: bool) -> tuple[str, str]:
    return ("are", "have") if plural else ("is", "has")


# Closing predicates: (template with {S} subject, {be}, {have}; form label).
_CLOSING = [
    "{S} {be} contained",
    "{S} {have} been shut down",
    "{S} {was} cut off",
    "{S} {be} being torn down",
    "{S} will be revoked",
    "{S} {be} over",
    "{S} {have} been walled off",
    "{S} got locked down",
    "{S} {be} fully neutralised",
    "{S} {have} been remediated",
    "{S} {be} now closed",
    "{S} {have} ended",
    "{S} {be} gone",
    "{S} {was} sealed off",
    "{S} {be} isolated",
    "{S} {have} been taken offline",
    "{S} {was} stamped out",
    "{S} appears to be contained",
    "{S} {be} under control",
    "{S} {have} been brought to an end",
    "{S} {have} been pulled",
    "{S} {was} rescinded",
    "{S} {be} history",
    "{S} {have} been dealt with",
]
_ACTIVE = [
    "we have blocked {O}",
    "the analyst shut down {O}",
    "the run sealed off {O}",
    "BlastShield eliminated {O}",
    "the responders are revoking {O}",
    "the team will disable {O}",
]
_NOUNS = [
    "containment of {O} is complete",
    "the removal of {O} was confirmed",
    "full isolation of {O} has been achieved",
    "revocation of {O} is done",
    "the lockdown of {O} succeeded",
    "remediation of {O} was completed",
    "containment of {O} has been achieved",
]
_EXPOSING = [
    "{S} {be} still exposed",
    "{S} {be} not contained",
    "{S} {have} not been shut down",
    "{S} {be} not neutralised yet",
    "{S} {be} still open",
    "{S} {have} yet to be revoked",
    "{S} {be} not blocked",
    "containment of {O} is not complete",
    "{S} remains uncontained",
    "nobody has walled off {O}",
]


def _subjects(ev: EvidenceSummary, asset: str) -> list[tuple[str, str, bool]]:
    """(subject, object form, plural)."""
    e = ev.entity_id
    return [
        ("the alert", "the alert", False),
        (e, e, False),
        (f"access to {asset}", f"access to {asset}", False),
        ("the exposure", "the exposure", False),
        ("every qualifying path", "every qualifying path", False),
        ("all access paths", "all access paths", True),
        ("the threat", "the threat", False),
        (f"{e}'s access", f"{e}'s access", False),
    ]


def _cap(text: str) -> str:
    """Sentence case, except that an id at the start keeps its spelling."""
    first = text.split(" ", 1)[0]
    return text if any(c in first for c in "_-:'") or any(c.isdigit() for c in first) else text[0].upper() + text[1:]


def _fill(template: str, subject: str, obj: str, plural: bool) -> str:
    be, have = _be(plural)
    text = template.format(S=subject, O=obj, be=be, have=have, was="were" if plural else "was")
    return _cap(text) + "."


def _wrap(text: str, rng: random.Random, ev: EvidenceSummary) -> str:
    """Clause order: the claim alone, after an introductory phrase, or after a true subordinate clause."""
    body = text.rstrip(".")
    first = body.split(" ", 1)[0]
    is_id = any(c in first for c in "_-:'") or any(c.isdigit() for c in first)
    lower = body if is_id else body[0].lower() + body[1:]
    choice = rng.randrange(4)
    if body.endswith("?"):
        return body
    if choice == 1:
        return f"According to the fresh query, {lower}."
    if choice == 2:
        return f"{body}, according to the fresh investigation."
    if choice == 3:
        return f"Although the risk score is {ev.risk_score}, {lower}."
    return body + "."


def _containment(ev: EvidenceSummary, exposed0: EvidenceSummary, rng: random.Random) -> Iterable[Sentence]:
    contained = ev.containment_state == "contained"
    asset = exposed0.assets[0]
    e = ev.entity_id
    subjects = _subjects(ev, asset)
    claims = [_fill(t, s, o, p) for t in _CLOSING for s, o, p in subjects]
    claims += [_fill(t, s, o, p) for t in _ACTIVE + _NOUNS for s, o, p in subjects]
    claims += [
        "No qualifying path remains.",
        "Zero access paths are left.",
        f"Nothing reaches {asset} any more.",
        f"{e} can no longer reach {asset}.",
        f"{e} is no longer exposed.",
        f"{asset} is not reachable from {e}.",
        f"There is no path from {e} to {asset}.",
        "The exposure is a thing of the past.",
        f"There are no more paths to {asset}.",
        "Exposure: none.",
        "Status: contained.",
        f"{e} has lost access to {asset}.",
    ]
    for text in claims:
        yield Sentence(ev.alert_id, "", "containment", contained, _wrap(text, rng, ev))
    exposing = [_fill(t, s, o, p) for t in _EXPOSING for s, o, p in subjects]
    exposing += [
        f"{e} can still reach {asset}.",
        f"A qualifying path still leads to {asset}.",
        f"Paths from {e} to {asset} persist.",
        f"Access to {asset} was never revoked.",
        f"{asset} remains reachable from {e}.",
        "The exposure is still ongoing.",
    ]
    for text in exposing:
        yield Sentence(ev.alert_id, "", "exposure", not contained, _wrap(text, rng, ev))
    # Not claims: conditions, modals, recommendations, imperatives, earlier times, questions.
    route = next((r.route_id for r in exposed0.routes if r.paths_carried), None)
    action = f"{route} is blocked" if route else "its grants change"
    for s, o, p in subjects:
        be, _ = _be(p)
        for text in (
            f"{s} would be contained if {action.replace(' is ', ' were ')}.",
            f"If {action}, {s} will be contained.",
            f"{s} will be contained once {action}.",
            f"We recommend that {o} be revoked.",
            f"{o} should be shut down.",
            f"Consider locking down {o}.",
            f"The next step is to wall off {o}.",
            f"{s} could be neutralised after review.",
            f"Is {s} contained?" if not p else f"Are {s} contained?",
            f"{s} {be} not contained yet." if not contained else f"{s} was exposed before the run.",
            f"To contain {o}, {action.replace(' is ', ' must be ')}."
            if route
            else f"To contain {o}, revoke its grants.",
        ):
            yield Sentence(ev.alert_id, "", "containment", True, _wrap(_cap(text), rng, ev))
    if not contained:
        for text in ("No path is blocked yet.", "None of the live paths is blocked.", "Nothing has been revoked yet."):
            yield Sentence(ev.alert_id, "", "containment", True, text)
    # A smaller depth than the standard question: true or false by the hop counts.
    hops = min((p.hops for p in exposed0.paths), default=7)
    for d in range(1, 6):
        truthful = contained or d < hops
        yield Sentence(ev.alert_id, "", "containment", truthful, f"There is no qualifying path within {d} hops.")
    # One route or session: true of that route, or not.
    for r in ev.routes:
        blocked = r.status != "active"
        if r.paths_carried == 0 and not blocked:
            continue
        word = r.route_id.split("-")[-1]
        for text in (f"{r.route_id} is blocked.", f"The {word} route has been shut down.", f"{r.route_id} was cut."):
            yield Sentence(ev.alert_id, "", "containment", blocked, text)
        for text in (f"{r.route_id} is still active.", f"The {word} route remains open."):
            yield Sentence(ev.alert_id, "", "exposure", not blocked, text)


def _relationships(ev: EvidenceSummary, rng: random.Random) -> Iterable[Sentence]:
    present = sorted(set(ev.relationship_types) | set(ev.modelled_relationship_types))
    absent = [t.value for t in RelType if t.value not in present]
    ids = sorted(i for i in ev.known_ids - {ev.alert_id, ev.entity_id} if ":" not in i and not i.startswith("run-"))
    for truthful, types in ((True, present), (False, list(INVENTED_TYPES) + absent)):
        for t in types:
            a, b = ev.entity_id, rng.choice(ids)
            camel = "".join(p.capitalize() for p in t.split("_"))
            spaced = t.lower().replace("_", " ")
            forms = [
                f"{a} -{t}-> {b}",
                f"{a} -[{t}]-> {b}",
                f"{a} -[:{t}]-> {b}",
                f"The evidence shows {a} [:{t}] {b}.",
                f"The edge from {a} to {b} is ({t}).",
                f"{a} links to {b} via {t}.",
                f"{a} links to {b} via {t.lower()}.",
                f"{a} connects to {b} through {spaced}." if " " in spaced else f"{a} links to {b} via {spaced}.",
                f"The {camel} relationship joins {a} and {b}.",
                f"{a} {t} {b}.",
            ]
            for text in forms:
                yield Sentence(ev.alert_id, "", "relationship", truthful, text)


def _typo(entity: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(entity) - 1)
    swap = {"0": "O", "1": "l", "l": "1", "o": "0", "e": "a", "a": "e"}.get(entity[i], "x")
    return entity[:i] + swap + entity[i + 1 :] if swap != entity[i] else entity + "s"


def _entities(ev: EvidenceSummary, others: list[str], rng: random.Random) -> Iterable[Sentence]:
    ids = sorted(i for i in ev.known_ids if ":" not in i and not i.startswith("run-"))
    for entity in ids:
        for template in ("The evidence names {x}.", "{x} is part of this alert's graph."):
            yield Sentence(ev.alert_id, "", "entity", True, template.format(x=entity))
            yield Sentence(ev.alert_id, "", "entity", False, template.format(x=_typo(entity, rng)))
    for other in others:
        if other not in ev.known_ids:
            yield Sentence(ev.alert_id, "", "entity", False, f"The evidence names {other}.")


def _scores(ev: EvidenceSummary) -> Iterable[Sentence]:
    s, sev = ev.risk_score, ev.severity

    def forms(v: int) -> list[str]:
        return [
            f"The risk score is {v}.",
            f"{ev.entity_id} has a risk score of {words(v)}.",
            f"It scores {v}/100.",
            f"The alert is scored {v} out of 100.",
            f"That is a risk of {v}%.",
            f"Its normalised risk score is {v / 100:.2f}.",
            f"Risk {v} under {ev.rule_set}.",
        ]

    for text in forms(s):
        yield Sentence(ev.alert_id, "", "score", True, text)
    for delta in (5, -5, 10, 20):
        v = s + delta
        if 0 <= v <= 100:
            for text in forms(v)[:6]:
                yield Sentence(ev.alert_id, "", "score", False, text)

    def sev_forms(x: str) -> list[str]:
        return [
            f"This is {x} severity.",
            f"Severity: {x}.",
            f"It is a {x}-severity alert.",
            f"The alert is rated {x}.",
            f"The alert is classed as {x}.",
            f"Treat it as a {x} incident.",
            f"{x.capitalize()} priority.",
            f"Its criticality is {x}.",
        ]

    for text in sev_forms(sev):
        yield Sentence(ev.alert_id, "", "severity", True, text)
    for other in ("low", "medium", "high", "critical"):
        if other != sev:
            for text in sev_forms(other):
                yield Sentence(ev.alert_id, "", "severity", False, text)


def _count_phrase(n: int, noun: str, style: int) -> str:
    plural = noun if n == 1 else noun.replace("path", "paths").replace("asset", "assets")
    if n == 2 and style == 3:
        return f"a pair of {plural}"
    if n == 2 and style == 4:
        return f"both {plural}"
    if n == 1 and style == 3:
        return f"a single {noun}"
    return f"{words(n) if style % 2 else n} {plural}"


def _counts(ev: EvidenceSummary) -> Iterable[Sentence]:
    for kind, true_n, noun in (
        ("path_count", ev.path_count, "qualifying path"),
        ("asset_count", ev.asset_count, "high/critical asset"),
    ):
        for n in sorted({true_n, true_n + 1, true_n + 2, max(true_n - 1, 0)}):
            for style in range(5):
                phrase = _count_phrase(n, noun, style)
                for text in (
                    f"The fresh investigation counts {phrase}.",
                    f"There are {phrase} in the evidence." if n != 1 else f"There is {phrase} in the evidence.",
                ):
                    yield Sentence(ev.alert_id, "", kind, n == true_n, text)
        yield Sentence(ev.alert_id, "", kind, True, f"The {noun.split()[-1]} count is {true_n}.")
        yield Sentence(ev.alert_id, "", kind, False, f"The {noun.split()[-1]} count is {true_n + 3}.")


def generate(evidence: dict[tuple[str, str], EvidenceSummary], other_ids: dict[str, list[str]]) -> list[Sentence]:
    """The balanced corpus: PER_CASE sentences per scenario and state, half truthful, every kind."""
    rng = random.Random(SEED)
    corpus: list[Sentence] = []
    for (alert, state), ev in sorted(evidence.items()):
        exposed0 = evidence[(alert, "exposed")]
        pool = [
            *_containment(ev, exposed0, rng),
            *_relationships(ev, rng),
            *_entities(ev, other_ids[alert], rng),
            *_scores(ev),
            *_counts(ev),
        ]
        pool = [Sentence(alert, state, s.kind, s.truthful, s.text) for s in pool]
        picked: list[Sentence] = []
        for truthful in (True, False):
            side = [s for s in pool if s.truthful is truthful]
            by_kind = {k: [s for s in side if s.kind == k] for k in KINDS}
            want = PER_CASE // 2
            # every kind first (round robin), then the rest at random
            order: list[Sentence] = []
            for bucket in by_kind.values():
                rng.shuffle(bucket)
            while len(order) < want and any(by_kind.values()):
                for k in KINDS:
                    for _ in range(WEIGHTS.get(k, 1)):
                        if by_kind[k] and len(order) < want:
                            order.append(by_kind[k].pop())
            picked += order
        corpus += picked
    return corpus


# -- third round: structure, verdicts, emptiness, actions on other entities, unfamiliar names ----------------

ROUND3_KINDS = ("structure", "verdict", "emptiness", "action", "name")


def _state_forms(ev: EvidenceSummary, v: str) -> list[str]:
    """Markdown structure that states the alert is `v` (contained or exposed)."""
    yes_no = {"contained": ("yes", "no"), "exposed": ("no", "yes")}[v]
    forms = [
        f"| state | {v} |",
        f"| Status | {v.capitalize()} |",
        f"Status: {v}",
        f"- **Containment state:** {v}",
        f"## Verdict\n{v.capitalize()}.",
        f"### Containment status\n**{v.capitalize()}**",
        f"**{v.upper()}**",
        f"| Alert | State |\n|---|---|\n| {ev.alert_id} | {v} |",
        f"Verdict: **{v}**",
        f"Contained: {yes_no[0]}",
        f"Exposed: {yes_no[1]}",
        f"## Outcome\n{'Fully contained' if v == 'contained' else 'Still exposed'}.",
    ]
    if v == "contained":
        forms += ["- **Risk:** none", "| Remaining paths | 0 |"]
    return forms


def _verdict_forms(e: str, asset: str, v: str) -> list[str]:
    if v == "contained":
        return [
            f"{e} no longer poses any risk.",
            "All clear.",
            f"{asset} is safe now.",
            f"There is no further danger to {asset}.",
            f"{asset} is secured.",
            "The risk has passed.",
            f"{asset} is out of danger.",
            f"{e} presents no danger anymore.",
        ]
    return [
        f"{e} still poses a risk to {asset}.",
        f"{asset} is not safe yet.",
        f"{asset} remains in danger.",
        f"{asset} is still at risk.",
        "The danger persists.",
        f"{asset} is not yet secured.",
        f"{asset} is unsafe.",
        f"{e} remains a threat to {asset}.",
    ]


def _emptiness_forms(exposed0: EvidenceSummary, asset: str, v: str) -> list[str]:
    if v == "contained":
        return [
            "The blast radius is now empty.",
            "Blast radius: empty.",
            "The blast radius holds no assets.",
            "The list of exposed assets is empty.",
            "There are no reachable assets.",
            "None of the assets is reachable.",
            "The path count is now zero.",
            "The qualifying path list is empty.",
        ]
    return [
        f"The blast radius still holds {exposed0.blast_by_label.get('DataAsset', 0)} assets.",
        "The blast radius is not empty.",
        f"{asset} is still in the blast radius.",
        "The blast radius still contains data assets.",
    ]


def _action_forms(x: str, v: str) -> list[str]:
    if v == "contained":
        return [
            f"We took {x} offline, ending the exposure.",
            f"{x} was revoked, which ended the exposure.",
            f"Disabling {x} stopped the exposure.",
            f"We detached {x}, and the exposure is over.",
            f"Blocking {x} closed every path.",
            f"The analyst shut down {x}, closing the exposure.",
        ]
    return [
        f"Disabling {x} did not end the exposure.",
        f"Revoking {x} has not ended the exposure.",
        f"{x} is still active, so the exposure persists.",
    ]


_NAME_VARIANTS = ("{x}-replica", "{x}-backup", "prod-{x}", "{x}.internal", "arn:aws:iam::role/{x}")
_NAME_TRUTHFUL = (
    "{x} was reviewed off-hours in a follow-up.",
    "{x} holds a read-only, cross-account grant.",
    "{x} is a well-known, internet-facing, multi-tenant resource.",
    "A step-by-step, end-to-end review of {x} is a best-practice follow-up.",
)


def generate_round3(evidence: dict[tuple[str, str], EvidenceSummary]) -> list[Sentence]:
    """Every third-round sentence for every scenario and state, both sides of each claim, with controls."""
    out: list[Sentence] = []
    for (alert, state), ev in sorted(evidence.items()):
        exposed0 = evidence[(alert, "exposed")]
        asset, e = exposed0.assets[0], ev.entity_id
        true_v = ev.containment_state
        on_paths = [n for p in exposed0.paths for n in p.nodes[1:-1]]
        aside = [b.id for b in exposed0.blast_radius if b.id not in exposed0.assets and b.id not in on_paths]
        actors = [x for x in sorted(set(on_paths))[:2] + aside[:1] if x in ev.known_ids]
        for v in ("contained", "exposed"):
            truthful = v == true_v
            texts = {
                "structure": _state_forms(ev, v),
                "verdict": _verdict_forms(e, asset, v),
                "emptiness": _emptiness_forms(exposed0, asset, v),
                "action": [t for x in actors for t in _action_forms(x, v)],
            }
            for kind, forms in texts.items():
                for text in forms:
                    out.append(Sentence(alert, state, kind, truthful, text))
        for x in actors:
            out.append(Sentence(alert, state, "action", True, f"Revoking {x} would end the exposure."))
        ids = sorted(i for i in ev.known_ids if "-" in i and ":" not in i and not i.startswith("run-"))
        for x in ids:
            for variant in _NAME_VARIANTS:
                name = variant.format(x=x)
                out.append(Sentence(alert, state, "name", False, f"{name} is part of this alert's graph."))
            for template in _NAME_TRUTHFUL:
                out.append(Sentence(alert, state, "name", True, _cap(template.format(x=x))))
    return out


def round3_flag(s: Sentence, evidence: dict[tuple[str, str], EvidenceSummary]) -> FlagKind:
    """The flag a false third-round sentence must raise."""
    if s.kind == "name":
        return FlagKind.UNKNOWN_ENTITY
    if s.kind == "emptiness":
        return FlagKind.WRONG_COUNT
    contained = evidence[(s.alert, s.state)].containment_state == "contained"
    return FlagKind.FALSE_EXPOSURE if contained else FlagKind.FALSE_CONTAINMENT


def measure_round3(
    sentences: list[Sentence],
    evidence: dict[tuple[str, str], EvidenceSummary],
    check: Callable[[Sentence], list[Flag]],
) -> tuple[dict[str, Score], list[tuple[Sentence, list[Flag]]]]:
    """Scores by third-round category (and "all"), and the sentences the checker got wrong."""
    scores = {k: Score() for k in (*ROUND3_KINDS, "all")}
    misses: list[tuple[Sentence, list[Flag]]] = []
    for s in sentences:
        flags = check(s)
        caught = round3_flag(s, evidence) in {f.kind for f in flags}
        for key in (s.kind, "all"):
            sc = scores[key]
            if s.truthful:
                sc.true_total += 1
                sc.false_flags += bool(flags)
            else:
                sc.false_total += 1
                sc.caught += caught
        if (s.truthful and flags) or (not s.truthful and not caught):
            misses.append((s, flags))
    return scores, misses


def split(corpus: list[Sentence]) -> tuple[list[Sentence], list[Sentence]]:
    """(development, held out): a fixed-seed split."""
    rng = random.Random(SEED + 1)
    marks = [rng.random() < HELD_OUT_SHARE for _ in corpus]
    return [s for s, m in zip(corpus, marks, strict=True) if not m], [
        s for s, m in zip(corpus, marks, strict=True) if m
    ]


@dataclass
class Score:
    false_total: int = 0
    caught: int = 0
    true_total: int = 0
    false_flags: int = 0

    @property
    def recall(self) -> float:
        return self.caught / self.false_total if self.false_total else 1.0

    @property
    def false_flag_rate(self) -> float:
        return self.false_flags / self.true_total if self.true_total else 0.0


def measure(
    sentences: list[Sentence], check: Callable[[Sentence], list[Flag]]
) -> tuple[dict[str, Score], list[tuple[Sentence, list[Flag]]]]:
    """Scores by claim kind (and "all"), and the sentences the checker got wrong."""
    scores = {k: Score() for k in (*KINDS, "all")}
    misses: list[tuple[Sentence, list[Flag]]] = []
    for s in sentences:
        flags = check(s)
        for key in (s.kind, "all"):
            sc = scores[key]
            if s.truthful:
                sc.true_total += 1
                sc.false_flags += bool(flags)
            else:
                sc.false_total += 1
                sc.caught += KIND_FLAG[s.kind] in {f.kind for f in flags}
        if (s.truthful and flags) or (not s.truthful and KIND_FLAG[s.kind] not in {f.kind for f in flags}):
            misses.append((s, flags))
    return scores, misses


def table(halves: dict[str, dict[str, Score]], kinds: tuple[str, ...] = KINDS) -> str:
    """A Markdown table: recall on false sentences and false-flag rate on truthful ones, by kind and half."""
    names = list(halves)
    head = (
        ("| claim kind | " if kinds == KINDS else "| category | ")
        + " | ".join(f"{n}: recall (false) | {n}: false flags (truthful)" for n in names)
        + " |"
    )
    rule = "|---|" + "---|---|" * len(names)
    rows = [head, rule]
    for kind in (*kinds, "all"):
        cells = []
        for n in names:
            sc = halves[n][kind]
            cells.append(f"{sc.recall:.1%} ({sc.caught}/{sc.false_total})")
            cells.append(f"{sc.false_flag_rate:.1%} ({sc.false_flags}/{sc.true_total})")
        rows.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:  # pragma: no cover - prints the table for docs/briefings.md
    import tempfile
    import uuid

    from blastshield_core.base.settings import load_settings
    from blastshield_core.brief.checker import check_text
    from blastshield_core.graph.store import Store
    from tests.integration.brief.test_briefing_corpus import build_evidence

    store = Store(load_settings(environ={}, data_dir=tempfile.mkdtemp()))
    try:
        view = store.for_graph(f"corpus_{uuid.uuid4().hex[:8]}")
        evidence, others, tools = build_evidence(view)
        corpus = generate(evidence, others)
        dev, held = split(corpus)

        def check(s: Sentence) -> list[Flag]:
            return check_text(s.text, evidence[(s.alert, s.state)], tools)

        halves = {}
        for name, part in (("development", dev), ("held out", held)):
            halves[name], misses = measure(part, check)
            for s, flags in misses:
                print(f"MISS [{name}] {s.alert}/{s.state} {s.kind} truthful={s.truthful}: {s.text}")
                for f in flags:
                    print(f"      {f.kind.value}: {f.offending_text!r}")
        print(
            f"{len(corpus)} sentences ({sum(s.truthful for s in corpus)} truthful); {len(dev)} development,"
            f" {len(held)} held out\n"
        )
        print(table(halves))
        round3 = generate_round3(evidence)
        halves3 = {}
        for name, part in zip(("development", "held out"), split(round3), strict=True):
            halves3[name], misses = measure_round3(part, evidence, check)
            for s, flags in misses:
                print(f"MISS [{name}] {s.alert}/{s.state} {s.kind} truthful={s.truthful}: {s.text!r}")
                for f in flags:
                    print(f"      {f.kind.value}: {f.offending_text!r}")
        print(f"\nThird round: {len(round3)} sentences ({sum(s.truthful for s in round3)} truthful)\n")
        print(table(halves3, ROUND3_KINDS))
    finally:
        store.close()


if __name__ == "__main__":  # pragma: no cover
    main()
