"""Quantities, distances and what-ifs judged against the live paths (and read, where `numbers.py` does not).

Readers (a clause in, claims out) and their judges (the fresh evidence in, a verdict out):

- distance: "Y is only N hops away from X", "N hops separate X and Y", "Y sits N hops from X", "X is within N
  hops of Y", "Y is (not) N hops from X": held against the shortest live qualifying path that holds both (the
  hops between them on it). When no live path holds both: false if one of them is the alert's entity and the
  other an asset it is said to reach (a fresh investigation finds no such path), else `unverified` (the
  graph may join them by a path that does not qualify);
- what-if: "blocking R alone would cut every remaining path" and the like, read and judged in `whatif.py`;
- the one path: "the open path goes through Z" (a singular, definite path): true only when every live path
  holds Z (`judge.judge_through` with "all");
- an asset's class ("customer-db is classified critical"): against the class of the assets the live paths reach;
- negated values: "does not currently rate as high severity", "is no longer critical", "isn't rated medium",
  "the score is not 65": false when the computed value is the one negated;
- the paths a run started with ("before the run, X had N paths", "the paths went from two to one"): against the
  run's record; a list of the assets in reach ("High or critical assets in reach: A and B"): against the assets
  the live paths reach;
- the quantities `numbers.py` reads, judged here: bounds and shares of the paths (a percent range of them: "between
  80 and 100 percent of the starting paths were severed", never a score), hop lengths, score ranges and bounds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import cast

from .evidence import EvidenceSummary, PathSummary
from .lexicon import number_value
from .onpath import sensitivity_spans
from .whatif import judge_what_if, what_if_claims

__all__ = ["MEASURE_KINDS", "MEASURE_WORDS", "MeasureClaim", "judge_measure", "measure_claims", "read_spans"]


def _w(text: str) -> list[str]:
    return text.split()


IdKind = Callable[[str], str | None]
MeasureClaim = tuple[str, object, str, tuple[str, ...]]  # kind, value, text, scope
Verdict = tuple[str, str] | None  # (flag kind or "unverified", evidence), None when the claim holds

# The claims judged here: quantities of the paths, hop lengths, score ranges and negated values, distances, what-ifs.
MEASURE_KINDS = frozenset(
    _w(
        "path_bound path_share path_percent path_percent_range hops score_range severity_not score_not distance "
        "what_if start_count start_compared asset_list score_bound open_count rule_points sensitivity"
    )
)
# The words these readers read (the gate accounts for them).
MEASURE_WORDS = frozenset(
    _w(
        "hop hops away apart separate separates separated distance sits sit lies lie alone enough suffice suffices "
        "percent per cent share starting started start original originally remaining rate rates rated currently "
        "nearest closest farthest furthest leave leaves fewer less least most relationships steps edges distinct "
        "unique different additional total further independent initially began begun had held faced counted showed"
    )
)

_N = r"(\d{1,2}|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+single|single)"
_ID = r"([A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9])"
_NEG = re.compile(r"\b(?:not|never|no\s+longer|cannot)\b", re.I)
_ENTITY = ("alert", "node", "asset", "route")

# -- distance ----------------------------------------------------------------------------------
_HOPS = (
    r"(?P<bound>within|at\s+most|no\s+more\s+than|at\s+least|more\s+than|fewer\s+than|less\s+than|exactly|only|"
    rf"just|under|over)?\s*{_N}\s*-?\s*(?:hops?|steps?|relationships?|edges?)"
)
_SELECT = r"nearest|closest|farthest|furthest|every|each|all|any"


def _end(tag: str) -> str:
    """One end of a distance: a class of the alert's assets ("the nearest critical asset"), or an id."""
    return (
        rf"(?:(?:the\s+)?(?P<{tag}_sel>{_SELECT})\s+(?P<{tag}_cls>(?:[\w/-]+\s+){{0,2}}?)(?:data\s+)?"
        rf"(?:assets?|targets?|stores?|datastores?|buckets?)\b|(?P<{tag}_id>[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9]))"
    )


_BE = r"(?:is|are|sits|sit|lies|lie|stands|stand|remains|remain|stays|stay)"  # now, not "was": history
_ADV = r"(?:(?:still|now|only|just|currently|already)\s+)*"
_DIST_FROM = re.compile(
    rf"{_end('a')}\s+{_BE}\s+(?P<neg>not\s+|no\s+longer\s+|never\s+)?{_ADV}(?P<hops>{_HOPS})\s+"
    rf"(?:(?P<away>away|apart|out|off)\b\s*)?(?:(?:from|of)\s+{_end('b')})?",
    re.I,
)
_DIST_SEPARATE = re.compile(
    rf"(?P<hops>{_HOPS})\s+{_ADV}(?P<neg>do\s+not\s+|does\s+not\s+)?"
    rf"(?:separate|separates|lie\s+between|sit\s+between|stand\s+between)\s+{_end('a')}\s+(?:and|from)\s+{_end('b')}",
    re.I,
)
_DIST_APART = re.compile(
    rf"{_end('a')}\s+and\s+{_end('b')}\s+(?:are|were|sit|lie|stand|remain)\s+(?P<neg>not\s+)?{_ADV}"
    rf"(?P<hops>{_HOPS})\s+apart",
    re.I,
)
_DIST_TAKES = re.compile(
    rf"\b(?:takes|take|took|needs|need|requires|require)\s+(?P<neg>)?(?P<hops>{_HOPS})\s+(?:to\s+(?:get|go|travel|move|reach|"
    rf"walk|hop)\s+)?(?:from|for)\s+{_end('a')}\s+to\s+(?:reach\s+)?{_end('b')}",
    re.I,
)
_DIST_REACH = re.compile(
    rf"{_end('a')}\s+(?:(?:still|now|can|could)\s+)*(?:reaches|reach|gets\s+to|get\s+to|hits)\s+{_end('b')}\s+in\s+"
    rf"(?P<neg>)?(?P<hops>{_HOPS})",
    re.I,
)
_DIST_PATH = re.compile(
    rf"\b(?:the\s+)?(?:(?P<which>shortest|longest)\s+)?(?:(?:qualifying|open|live|remaining|access|attack)\s+)*"
    rf"(?:path|chain|route)\s+from\s+{_end('a')}\s+to\s+{_end('b')}\s+(?:is|spans|covers|takes|has|runs|was)\s+"
    rf"(?P<neg>not\s+)?{_ADV}(?P<hops>{_HOPS})",
    re.I,
)
# "a 5-hop path to X", "a path of 5 hops or fewer from A to B", "no path of 3 hops or fewer to X": one of the paths
_DIST_A_PATH = re.compile(
    rf"\b(?P<det>an?|one|no)\s+(?:(?:qualifying|open|live|attack|access)\s+)*(?:(?P<n1>{_N[1:-1]})\s*-\s*hop\s+"
    rf"(?:(?:qualifying|open|live|attack|access)\s+)*(?:path|chain|route)|(?:path|chain|route)\s+of\s+"
    rf"(?:(?P<b2>at\s+most|at\s+least|exactly|only)\s+)?(?P<n2>{_N[1:-1]})\s+hops?(?:\s+or\s+(?P<more>fewer|less|more))?)"
    rf"(?:\s+(?:still\s+|now\s+)?(?:leads|runs|goes|stretches|extends|exists|remains|is\s+open|is\s+live))?"
    rf"(?:\s+from\s+{_end('a')})?\s+to\s+{_end('b')}",
    re.I,
)
End = tuple[str, str, str]  # ("id", id, "") or ("class", selector, class words)


def _bound(words: str | None) -> str:
    low = " ".join((words or "").lower().split())
    if low in ("within", "at most", "no more than"):
        return "<="
    if low == "at least":
        return ">="
    if low in ("more than", "over"):
        return ">"
    if low in ("fewer than", "less than", "under"):
        return "<"
    return "=="


def _side(m: re.Match[str], tag: str, id_kind: IdKind) -> End | None:
    entity = m.groupdict().get(f"{tag}_id")
    if entity is not None:
        return ("id", entity, "") if id_kind(entity) in _ENTITY else None
    selector = m.groupdict().get(f"{tag}_sel")
    if selector is None:
        return None
    return ("class", selector.lower(), " ".join((m.group(f"{tag}_cls") or "").lower().split()))


def _distances(clause: str, id_kind: IdKind) -> list[MeasureClaim]:
    out: list[MeasureClaim] = []
    for rx in (_DIST_FROM, _DIST_SEPARATE, _DIST_APART, _DIST_TAKES, _DIST_REACH, _DIST_PATH):
        for m in rx.finditer(clause):
            a = _side(m, "a", id_kind)
            b = _side(m, "b", id_kind)
            if rx is _DIST_FROM and m.group("b_id") is None and m.group("b_sel") is None:
                b = ("id", "", "") if m.group("away") and m.group("away").lower() == "away" else None
            if a is None or b is None or a == b or (a[0] == "class" and b[0] == "class"):
                continue
            n = number_value(re.search(_N, m.group("hops"), re.I).group(1))  # type: ignore[union-attr]
            if n is None:
                continue
            along = re.match(r"\s*,?\s*(?:along|via|through|on|over|using|by)\b", clause[m.end() :], re.I)
            named = rx in (_DIST_PATH, _DIST_REACH) or along  # "along the VPN path": one of the paths
            which = (m.groupdict().get("which") or ("any" if named else "shortest")).lower()
            claim = (_bound(m.group("bound")), n, bool(m.group("neg")), a, b, which)
            out.append(("distance", claim, m.group(0).strip(), tuple(x[1] for x in (a, b) if x[0] == "id")))
    for m in _DIST_A_PATH.finditer(clause):
        a = _side(m, "a", id_kind) if m.group("a_id") or m.group("a_sel") else ("id", "", "")
        b = _side(m, "b", id_kind)
        n = number_value(m.group("n1") or m.group("n2"))
        if a is None or b is None or a == b or n is None:
            continue
        more = (m.group("more") or "").lower()
        op = "<=" if more in ("fewer", "less") else ">=" if more == "more" else _bound(m.group("b2"))
        claim = (op, n, m.group("det").lower() == "no", a, b, "any")
        out.append(("distance", claim, m.group(0).strip(), tuple(x[1] for x in (a, b) if x[0] == "id" and x[1])))
    return out


def _gap(path: PathSummary, a: str, b: str) -> int | None:
    nodes = path.nodes
    if a in nodes and b in nodes:
        return abs(nodes.index(a) - nodes.index(b))
    return None


def _between(ev: EvidenceSummary, a: str, b: str) -> int | None:
    gaps = [g for g in (_gap(p, a, b) for p in ev.paths) if g is not None]
    return min(gaps) if gaps else None


def _class_assets(ev: EvidenceSummary, words: str) -> list[str]:
    if "critical" in words and "high" not in words:
        return list(ev.critical_assets)
    if "high" in words and "critical" not in words:
        return list(ev.high_assets)
    return list(dict.fromkeys([*ev.assets, *ev.cut_off_entities])) if not words else list(ev.assets)


def _judge_distance(ev: EvidenceSummary, claim: MeasureClaim) -> Verdict:
    op, n, negated, a, b, which = cast(tuple[str, int, bool, End, End, str], claim[1])
    a, b = (("id", ev.entity_id, "") if x == ("id", "", "") else x for x in (a, b))  # "is N hops away": from it
    if ev.truncated:
        return ("unverified", "the investigation's paths were truncated")
    test = {"==": n.__eq__, "<=": n.__ge__, ">=": n.__le__, ">": n.__lt__, "<": n.__gt__}[op]
    far = op in (">", ">=")  # a missing path is farther than any number of hops
    if a[0] == "class" or b[0] == "class":
        (_, selector, words), (_, other, _) = (a, b) if a[0] == "class" else (b, a)
        found = {x: _between(ev, x, other) for x in _class_assets(ev, words)}
        near = [d for d in found.values() if d is not None]
        if selector in ("every", "each", "all"):
            holds = bool(found) and all(test(d) if d is not None else far for d in found.values())
        elif selector == "any":
            holds = any(test(d) for d in near)
        elif not near:
            return _no_path(ev, other, words, negated)
        else:
            holds = test(min(near) if selector in ("nearest", "closest") else max(near))
        what = ", ".join(f"{x}: {d if d is not None else 'no live path'}" for x, d in found.items()) or "none"
        evidence = f"hops from {other} on the live qualifying paths to the {words or 'qualifying'} assets: {what}"
    else:
        gaps = sorted(g for g in (_gap(p, a[1], b[1]) for p in ev.paths) if g is not None)
        if not gaps:
            return _no_path(ev, a[1], b[1], negated, {a[1], b[1]})
        # "the path from A to B is N hops": one of them; otherwise the shortest (or the longest, when said)
        holds = any(test(g) for g in gaps) if which == "any" else test(gaps[-1] if which == "longest" else gaps[0])
        evidence = f"the live qualifying paths between {a[1]} and {b[1]} are {', '.join(map(str, gaps))} hop(s) long"
    return None if holds != negated else ("wrong_count", evidence)


def _no_path(ev: EvidenceSummary, a: str, b: str, negated: bool, ends: set[str] | None = None) -> Verdict:
    """No live qualifying path holds both ends: false of the alert's entity and its assets, else not known."""
    reached = ends is None or (ev.entity_id in ends and ends - {ev.entity_id} <= {*ev.assets, *ev.cut_off_entities})
    if reached and not negated:
        return (
            "false_exposure",
            f"a fresh investigation finds no live qualifying path from {ev.entity_id} to"
            f" {b if ends else 'such an asset'} ({len(ev.paths)} live path(s) in all)",
        )
    if reached:
        return None
    return ("unverified", f"no live qualifying path of {ev.alert_id} holds both {a} and {b}")


# -- the one path ------------------------------------------------------------------------------
_THE_PATH = re.compile(
    rf"\bthe\s+(?:(?:one|only|single|open|remaining|live|qualifying|last|surviving|exposed)\s+){{1,3}}path\s+"
    rf"(?P<neg>(?:still\s+)?(?:does\s+not|no\s+longer|never)\s+)?(?:still\s+|now\s+)?"
    rf"(?:goes|go|runs|run|passes|pass|leads|lead|travels|travel|routes)\s+(?:through|via|across|over)\s+{_ID}",
    re.I,
)


def _the_path(clause: str, id_kind: IdKind) -> list[MeasureClaim]:
    out: list[MeasureClaim] = []
    for m in _THE_PATH.finditer(clause):
        z = m.group(len(m.groups()))
        if id_kind(z) in _ENTITY:
            out.append(("through", ("all", bool(m.group("neg"))), m.group(0), (z,)))
    return out


# -- negated values ----------------------------------------------------------------------------
_SEV = r"(low|medium|moderate|high|critical)"
_SEVERITY_NOT = re.compile(
    rf"\b(?:is|are|does|do|was)\s+(?:not|no\s+longer|never)\s+(?:\w+\s+){{0,2}}?"
    rf"(?:(?:rate|rated|rank|ranked|classed|classified|count|counted|graded)\s+)?(?:as\s+)?(?:an?\s+)?"
    rf"{_SEV}(?:[\s-]+(?:severity|priority|risk))?\b(?![\s-]+(?:sensitivity|data|assets?|value))",
    re.I,
)
_SCORE_NOT = re.compile(
    r"\bscore\s+(?:is|was)\s+(?:not|no\s+longer|never)\s+(?:\w+\s+)?(\d{1,3})\b(?!\s*(?:%|percent|hops?|paths?))",
    re.I,
)


_ALERT_WORDS = frozenset(_w("alert it this incident finding case severity rating priority"))


def _negated_values(clause: str, id_kind: IdKind) -> list[MeasureClaim]:
    out: list[MeasureClaim] = []
    for m in _SEVERITY_NOT.finditer(clause):
        between = clause[m.start() : m.start(1)]
        if re.search(r"\b(?:only|just|merely)\b", between, re.I):
            continue  # "not only high but critical"
        subject = re.search(r"([\w-]+)\W*$", clause[: m.start()])
        noun = re.search(r"(?:severity|priority|risk)\b", m.group(0), re.I)
        if not noun and (
            subject is None or (subject.group(1).lower() not in _ALERT_WORDS and id_kind(subject.group(1)) != "alert")
        ):
            continue  # "hr-records is not critical": the asset's sensitivity, not the alert's severity
        sev = m.group(1).lower()
        out.append(("severity_not", "medium" if sev == "moderate" else sev, m.group(0), ()))
    for m in _SCORE_NOT.finditer(clause):
        out.append(("score_not", int(m.group(1)), m.group(0), ()))
    return out


def read_spans(clause: str, id_kind: IdKind) -> list[tuple[int, int]]:
    """Where a negated severity or score, or the paths at the run's start, are read (no plain value there)."""
    found = [*_negated_values(clause, id_kind), *_start_counts(clause)]
    spans = [(at, at + len(text)) for _, _, text, _ in found if (at := clause.find(text)) >= 0]
    return spans + sensitivity_spans(clause, id_kind)  # an asset's sensitivity (links.py) is no severity


def _paths_evidence(ev: EvidenceSummary) -> str:
    return f"the fresh investigation has {ev.path_count} qualifying path(s)" + (" (truncated)" if ev.truncated else "")


def _judge_number(ev: EvidenceSummary, kind: str, value: object, text: str = "") -> Verdict:
    """Bounds and shares of the paths, hop lengths and score ranges."""
    live, cut = ev.path_count, ev.cut_off_path_count
    if kind == "path_bound":
        op, n = cast(tuple[str, int], value)
        holds = {">=": live >= n, ">": live > n, "<=": live <= n, "<": live < n, "==": live == n}[op]
        return None if holds else ("wrong_count", _paths_evidence(ev))
    if kind in ("score_range", "score_bound"):
        if kind == "score_bound":
            op, n, negated = cast(tuple[str, int, bool], value)
            s = ev.risk_score
            if {">": s > n, "<": s < n, ">=": s >= n, "<=": s <= n}[op] != negated:
                return None
        elif cast(tuple[int, int], value)[0] <= ev.risk_score <= cast(tuple[int, int], value)[1]:
            return None
        factors = ", ".join(f"+{f.points} {f.rule}" for f in ev.factors)
        return ("wrong_score", f"computed risk score is {ev.risk_score} ({ev.rule_set}: {factors})")
    if kind == "hops":
        which, n = cast(tuple[str, int], value)
        hops = [p.hops for p in ev.paths]
        if which.endswith("_between"):  # "the shortest path is between 2 and 3 hops"
            lo, hi = cast(tuple[int, int], n)
            if ev.truncated or not hops or lo <= (min(hops) if which.startswith("shortest") else max(hops)) <= hi:
                return None
            return (
                "wrong_count",
                f"the live qualifying paths of {ev.alert_id} have {', '.join(map(str, sorted(hops)))} hop(s)",
            )
        if which.startswith("all_"):  # "every open path is 4 hops or shorter": none when no path is live
            test = {"le": n.__ge__, "ge": n.__le__, "lt": n.__gt__, "gt": n.__lt__, "eq": n.__eq__, "ne": n.__ne__}
            if ev.truncated or all(test[which[4:]](h) for h in hops):
                return None
            lengths = ", ".join(map(str, sorted(hops)))
            return ("wrong_count", f"the live qualifying paths of {ev.alert_id} have {lengths} hop(s)")
        if which in ("lt", "gt", "le"):
            wrong = not any(h < n if which == "lt" else h > n if which == "gt" else h <= n for h in hops)
        else:
            wrong = (
                n not in hops if which == "any" else not hops or n != (min(hops) if which == "shortest" else max(hops))
            )
        present = which in ("any", "lt", "gt", "le") or re.search(r"\b(?:still|now|open|live|remaining)\b", text, re.I)
        if not hops and not ev.truncated and present:
            return ("wrong_count", _paths_evidence(ev))  # "a 5-hop path is left" when none is
        if hops and not ev.truncated and wrong:
            lengths = ", ".join(map(str, sorted(hops)))
            return ("wrong_count", f"the live qualifying paths of {ev.alert_id} have {lengths} hop(s)")
        return None
    # the whole is the qualifying paths at the run's start (the live ones without a run); the part, those still
    # open or those cut since
    start = ev.run.paths_at_start if ev.run is not None else None
    whole = start if start is not None else live
    wholes = [(whole, whole - live)] if whole >= live else []
    if kind == "path_share":
        k, total, closing = cast(tuple[int, int, bool], value)
        right = any(total == w and k == (c if closing else live) for w, c in wholes)
    else:
        pct, closing, op = cast(tuple[int, bool, str], (*cast(tuple[object, ...], value), "==")[:3])
        shares = [100 * (c if closing else live) / w for w, c in wholes if w]
        if op == "==":
            right = any(pct == round(x) for x in shares)
        else:  # "at most half of the paths are open"
            right = any({">=": x >= pct, ">": x > pct, "<=": x <= pct, "<": x < pct}[op] for x in shares)
    if right:
        return None
    return (
        "wrong_count",
        f"{live} qualifying path(s) remain and {cut} were cut by blocked relationships ({live + cut} in all)",
    )


def _judge_percent_range(ev: EvidenceSummary, claim: MeasureClaim) -> Verdict:
    lo, hi, closing = cast(tuple[int, int, bool], claim[1])
    live = ev.path_count
    start = ev.run.paths_at_start if ev.run is not None and ev.run.paths_at_start is not None else live
    if not start or start < live:
        return ("unverified", f"the share is of {start} path(s), which this cannot read")
    part = start - live if closing else live
    pct = 100 * part / start
    if lo <= pct <= hi:
        return None
    return (
        "wrong_count",
        f"{live} of the {start} qualifying path(s) the run started with remain and {start - live} were cut"
        f" ({round(pct)}% {'cut' if closing else 'left'})",
    )


# -- the paths at the run's start ----------------------------------------------------------------
_ADJ_PATHS = r"(?:(?:qualifying|open|live|access|attack|distinct|separate|active|exposed)\s+)*paths?\b"
_START = re.compile(
    rf"\b(?:before\s+the\s+(?:containment\s+)?run|at\s+the\s+(?:start|outset|beginning)(?:\s+of\s+the\s+run)?|"
    rf"initially|originally|when\s+the\s+run\s+(?:started|began))\b,?\s+(?:[\w'-]+\s+){{0,4}}?"
    rf"(?:had|held|faced|counted|showed|there\s+(?:were|was))\s+(?:(?:exactly|only|just)\s+)?(?P<n>{_N[1:-1]})\s+{_ADJ_PATHS}"
    rf"|\b(?:the\s+)?(?:containment\s+)?run\s+(?:started|began|opened)\s+(?:with|on|against)\s+"
    rf"(?:(?:exactly|only|just)\s+)?(?P<m>{_N[1:-1]})\s+{_ADJ_PATHS}",
    re.I,
)


_CHANGE_VERB = (
    r"(?:has\s+|have\s+)?(?:dropped|fell|fallen|went|gone|moved|changed|decreased|shrank|shrunk|was\s+reduced|"
    r"were\s+reduced|been\s+reduced|rose|risen|grew|grown|increased|climbed)"
)
# "the qualifying paths went from two to one", "the path count has dropped from 2 to 1": the start and now
_COUNT_CHANGE = re.compile(
    rf"\b(?:(?:number|count)\s+of\s+(?:\w+\s+){{0,2}}?paths|path\s+count|(?:\w+\s+){{0,2}}?paths)\s+{_CHANGE_VERB}\s+"
    rf"from\s+(?P<n>{_N[1:-1]})(?:\s+paths?)?\s+(?:down\s+|up\s+)?to\s+(?P<m>{_N[1:-1]}|none|zero)\b",
    re.I,
)


# "fewer qualifying paths are open after the run than before it", "as many paths remain now as at the start": the
# live paths against those the run started with
_COMPARED = re.compile(
    rf"\b(?P<cmp>fewer|less|more|as\s+many|the\s+same\s+number\s+of)\s+{_ADJ_PATHS}\s+(?:are|remain|stay|is)\s+"
    r"(?:still\s+)?(?:open\s+|live\s+|left\s+)?(?:after\s+(?:the\s+|this\s+)?(?:containment\s+)?run|now|today)\s+"
    r"(?:than|as)\s+(?:before|at\s+the\s+(?:start|outset)|initially)\b",
    re.I,
)


def _start_counts(clause: str) -> list[MeasureClaim]:
    out: list[MeasureClaim] = []
    for m in _COMPARED.finditer(clause):
        word = " ".join(m.group("cmp").lower().split())
        op = "<" if word in ("fewer", "less") else ">" if word == "more" else "=="
        out.append(("start_compared", op, m.group(0), ()))
    for m in _COUNT_CHANGE.finditer(clause):
        start, now = number_value(m.group("n")), number_value(m.group("m").replace("none", "zero"))
        if start is not None and now is not None:
            out += [("start_count", start, m.group(0), ()), ("path_bound", ("==", now), m.group(0), ())]
    for m in _START.finditer(clause):
        n = number_value(m.group("n") or m.group("m"))
        if n is not None and not _NEG.search(m.group(0)):
            out.append(("start_count", n, m.group(0), ()))
    return out


def _judge_compared(ev: EvidenceSummary, op: str) -> Verdict:
    start = ev.run.paths_at_start if ev.run is not None else None
    if start is None:
        return ("unverified", f"no run of {ev.alert_id} recorded the paths it started with")
    live = ev.path_count
    if {"<": live < start, ">": live > start, "==": live == start}[op] or ev.truncated:
        return None
    return ("wrong_count", f"run {ev.run.run_id} started with {start} qualifying path(s); {live} are live now")  # type: ignore[union-attr]


def _judge_start(ev: EvidenceSummary, n: int) -> Verdict:
    start = ev.run.paths_at_start if ev.run is not None else None
    if start is None:
        return ("unverified", f"no run of {ev.alert_id} recorded the paths it started with")
    if n == start:
        return None
    return ("wrong_count", f"run {ev.run.run_id} started with {start} qualifying path(s)")  # type: ignore[union-attr]


# -- the assets in reach, listed ------------------------------------------------------------------
_ASSET_LIST = re.compile(
    r"(?P<cls>(?:(?:high|critical|sensitive|high-value|high/critical|qualifying)\s+(?:or\s+|and\s+|/\s*)?){0,3})"
    r"(?:data\s+)?assets?\s+(?:(?:still\s+)?(?:in|within)\s+reach|(?:still\s+)?reached|(?:still\s+)?reachable|at\s+risk|"
    r"exposed)\s*(?P<verb>:|\s(?:are|is|were|include|includes|remain)\s)\s*(?P<items>[^.;]+)",
    re.I,
)


def _asset_lists(clause: str, id_kind: IdKind) -> list[MeasureClaim]:
    out: list[MeasureClaim] = []
    for m in _ASSET_LIST.finditer(clause):
        items = [x.strip(" `*") for x in re.split(r",|\band\b|&", m.group("items")) if x.strip(" `*")]
        if not items or any(id_kind(x) not in ("asset", "node") for x in items):
            continue  # a list the reader cannot read whole is no claim
        partial = m.group("verb").strip().lower() in ("include", "includes")
        value = (" ".join(m.group("cls").lower().split()), tuple(items), partial)
        out.append(("asset_list", value, m.group(0).strip(), tuple(items)))
    return out


def _judge_asset_list(ev: EvidenceSummary, value: object) -> Verdict:
    words, items, partial = cast(tuple[str, tuple[str, ...], bool], value)
    reached = set(_class_assets(ev, words) if words else ev.assets)
    listed = set(items)
    if listed <= reached and (partial or listed == reached):
        return None
    return (
        "wrong_count",
        f"the live qualifying paths of {ev.alert_id} reach {len(reached)} {words or 'high/critical'} asset(s): "
        + (", ".join(sorted(reached)) or "none"),
    )


# -- how many of the paths are open, without their total --------------------------------------------------------
# "Only one of the paths is open", "exactly two of the qualifying paths remain live": a count of the live paths
_OF_THE_OPEN = re.compile(
    rf"\b(?:(?:exactly|only|just|precisely)\s+)?(?P<n>{_N[1:-1]}|none)\s+of\s+(?:the|its|their)\s+"
    r"(?:(?:qualifying|access|attack|original|starting)\s+)*paths\s+(?P<neg>(?:is|are)\s+(?:not|no\s+longer)\s+|"
    r"(?:is|are|remains?|stays?)\s+(?:still\s+)?)(?:open|live|active|left|exposed|reachable|standing)\b",
    re.I,
)


def _open_counts(clause: str) -> list[MeasureClaim]:
    out: list[MeasureClaim] = []
    for m in _OF_THE_OPEN.finditer(clause):
        n = 0 if m.group("n").lower() == "none" else number_value(m.group("n"))
        if n is not None and not re.search(r"\b(?:not|no\s+longer)\b", m.group("neg"), re.I):
            out.append(("open_count", n, m.group(0), ()))
    return out


# "Reaching a critical asset adds no points now", "reaching a high-sensitivity asset still adds 10 points": what the
# reach rule of that sensitivity contributes to the score (E1-critical-reach, E1-high-reach)
_RULE_POINTS = re.compile(
    r"^\W*(?:[a-z]+\s*:\s*)?reaching\s+(?:a|an|any)?\s*(?P<level>critical|high)(?:[\s-]+sensitivity)?\s+(?:data\s+)?(?:asset|data)s?\s+"
    r"(?P<neg>no\s+longer\s+|doesn't\s+|does\s+not\s+|still\s+|now\s+|currently\s+)?(?:adds?|earns?|contributes?|gives?)\s+"
    r"(?P<n>no|nothing|zero|\d{1,3}|some)?\s*(?:more\s+|extra\s+)?(?:points?|pts)?",
    re.I,
)


# "The E2-short-path rule also fired, adding 15 points", "E1-high-reach did not fire": a named rule of the score
_RULE_FIRED = re.compile(
    r"\b(?P<rule>[ES]\d?-[a-z_-]*[a-z])\s+(?:rule\s+)?(?:also\s+|still\s+|now\s+)?(?P<neg>did\s+not\s+|does\s+not\s+|never\s+|no\s+longer\s+)?"
    r"(?:fired|fires|fire|applied|applies|apply|triggered|triggers|trigger)\b(?:\s*,?\s*(?:adding|for|worth|giving)\s+"
    r"(?P<n>\d{1,3})\s+points?)?",
)


def _rule_points(clause: str) -> list[MeasureClaim]:
    out: list[MeasureClaim] = []
    for f in _RULE_FIRED.finditer(clause):
        fired = int(f.group("n")) if f.group("n") else None
        out.append(("rule_points", (f.group("rule"), not f.group("neg"), fired, True), f.group(0), ()))
    if out:
        return out
    m = _RULE_POINTS.search(clause)
    if m is None or not re.search(r"\b(?:points?|pts|score)\b", clause, re.I):
        return []
    neg = (m.group("neg") or "").lower()
    n = (m.group("n") or "").lower()
    adds = not (neg.startswith(("no", "doesn", "does")) or n in ("no", "nothing", "zero"))
    points = int(n) if n.isdigit() and adds else None
    now = neg.strip() in ("still", "now", "currently") or bool(
        re.search(r"\b(?:now|currently|any\s+more|anymore)\b", clause, re.I)
    )
    return [("rule_points", (f"E1-{m.group('level').lower()}-reach", adds, points, now), m.group(0).strip(), ())]


def _judge_rule_points(ev: EvidenceSummary, value: object) -> Verdict:
    rule, adds, points, now = cast(tuple[str, bool, int | None, bool], value)
    fired = next((f for f in ev.factors if f.rule == rule), None)
    if adds and fired is None and not now:  # "reaching a critical asset adds 20 points": the rule, or this alert?
        return ("unverified", f"{rule} did not fire for {ev.alert_id}; the sentence may describe the rule")
    if (fired is not None) == adds and (points is None or fired is None or fired.points == points):
        return None
    factors = ", ".join(f"+{f.points} {f.rule}" for f in ev.factors) or "no factor"
    return ("wrong_score", f"computed risk score is {ev.risk_score} ({ev.rule_set}: {factors})")


# -- the reader and the judge ------------------------------------------------------------------


def measure_claims(clause: str, id_kind: IdKind) -> list[MeasureClaim]:
    """Every distance, what-if, one-path and negated value claim of one clause."""
    return [
        *what_if_claims(clause, id_kind),
        *_distances(clause, id_kind),
        *_the_path(clause, id_kind),
        *_negated_values(clause, id_kind),
        *_start_counts(clause),
        *_asset_lists(clause, id_kind),
        *_open_counts(clause),
        *_rule_points(clause),
    ]


def judge_measure(ev: EvidenceSummary, kind: str, value: object, text: str, scope: tuple[str, ...]) -> Verdict:
    """The verdict on one claim of `MEASURE_KINDS` (None: it holds)."""
    claim: MeasureClaim = (kind, value, text, scope)
    if kind == "distance":
        return _judge_distance(ev, claim)
    if kind == "what_if":
        return judge_what_if(ev, claim)
    if kind == "path_percent_range":
        return _judge_percent_range(ev, claim)
    if kind == "open_count":
        if value == ev.path_count or ev.truncated:
            return None
        return ("wrong_count", f"the fresh investigation has {ev.path_count} live qualifying path(s)")
    if kind == "rule_points":
        return _judge_rule_points(ev, value)
    if kind == "asset_list":
        return _judge_asset_list(ev, value)
    if kind == "start_count":
        return _judge_start(ev, cast(int, value))
    if kind == "start_compared":
        return _judge_compared(ev, cast(str, value))
    if kind in ("path_share", "path_percent", "hops", "score_range", "score_bound", "path_bound"):
        return _judge_number(ev, kind, value, text)
    if kind == "sensitivity":  # "customer-db is classified critical": the class the live paths reach it as
        asset, level = cast(tuple[str, str], value)
        known = {a: "critical" for a in ev.critical_assets} | {a: "high" for a in ev.high_assets}
        if asset not in known:
            return ("unverified", f"{asset} is not a high or critical asset on the live qualifying paths")
        return None if known[asset] == level else ("wrong_severity", f"{asset} is a {known[asset]} asset")
    if kind == "severity_not":
        if str(value) == ev.severity:
            return ("wrong_severity", f"computed severity is {ev.severity} (score {ev.risk_score})")
        return None
    if kind == "score_not":
        if value == ev.risk_score:
            return ("wrong_score", f"computed risk score is {ev.risk_score} ({ev.rule_set})")
        return None
    return None
