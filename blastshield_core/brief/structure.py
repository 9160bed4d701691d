"""Markdown structure read as claims: table cells, headings with a short body, key-value lines, bare verdicts.

A model writes Markdown, so a verdict often comes as structure rather than a
sentence: `| state | contained |`, `## Verdict` followed by `Contained.`,
`Status: contained`, `- **Risk:** none`, `**CONTAINED**`. `restructure` rewrites
each such piece into the sentence it stands for ("The alert is contained.",
"No risk remains.", "zero remaining paths.") so that the prose grammar
(`prose.py`) reads it with its usual negation, scope and count rules. Lines that
carry no recognised structure are left as they are.

The key decides what a value is about:

- state keys (status, state, verdict, outcome, result, assessment, conclusion,
  containment, ...): the value is the alert's state ("The alert is <value>.");
  for containment keys a yes/complete/achieved is "contained", a no/pending/none
  "not contained";
- verdict keys that are states themselves (contained, exposed, safe, ...) with a
  yes or no value;
- risk keys (risk, danger, threat, exposure): none/zero is "No <key> remains.",
  a severity word is a severity, any other value is the key's state;
- count keys (paths, assets, routes): the value is their number;
- the blast radius: empty/none is an emptiness claim.

A table row with an entity in its first cell (under a header such as Session,
Route, Alert) makes the other cells claims about that entity. A column about the
account (applied in AWS, verified, on the account, AWS account) makes each row whose
first cell names a change on the account (deactivate access key, deny-all policy,
revoke sessions) a claim that the change was, or was not, applied there.

A verdict said through a verb of naming ("cannot be called contained", "can't be
considered safe") is the verdict: "is not contained".

A path written as a chain of entities ("a → b → c") under a lead-in that says the paths
are open ("Qualifying paths still open:", "## Remaining paths") is a claim that the path
is open: "The path a → b → c is open." Under any other lead-in (cut, blocked, before) or
none, a chain is evidence shown, not a claim.
"""

from __future__ import annotations

import re

from .account import cell_status, kind_of
from .numbers import before_after_row
from .runtables import run_table_row

__all__ = ["bare_verdict", "emptiness", "named_verdict", "restructure"]


def _w(text: str) -> frozenset[str]:
    return frozenset(text.split())


_COUNT_WORDS = _w("one two three four five six seven eight nine ten eleven twelve")
_STATE_KEYS = _w("status state verdict outcome result assessment conclusion overall tl;dr tldr containment disposition")
_POLAR_KEYS = _w("contained exposed safe secure secured resolved mitigated reachable open closed remediated isolated")
_RISK_KEYS = _w("risk danger threat exposure")
_NOT_RISK = _w("score severity factor factors rule rules points")
_COUNT_NOUNS = _w("path paths asset assets route routes")
_SEVERITIES = _w("low medium moderate high critical")
_NIL = _w("none no nil zero 0 nothing empty eliminated gone removed ✅ ✔ ✔️ ☑")
_YES = _w("yes y true ✅ ✔ ✔️ ☑ achieved complete completed done confirmed full effective successful")
_NO = _w("no n false ❌ ✗ ✘ pending incomplete partial none failed outstanding")
# Columns of a before/after table: the "after" column is a claim about the row's subject, "before" is history.
_BEFORE_KEYS = _w("before previously initially originally earlier start pre-run prior was")
_CHANGE_KEYS = _w("after now current status state result outcome change changes action")
_AFTER_KEYS = _w("after now current currently today post-run afterwards final end is")
_GENERIC_HEAD = _w("field key check item property metric attribute name parameter aspect category question")
_ENTITY_HEAD = _w("alert session route asset entity node role workload id identity resource")
_ADVERBS = _w("not no longer yet still fully now completely all partially partly")
_STATE_WORDS = _w(
    "contained exposed safe secure secured resolved mitigated closed open uncontained blocked neutralised "
    "neutralized remediated isolated clear ongoing active live"
)

_RUN_ONLY_STATES = frozenset(_w("stopped graph_only failed interrupted abandoned"))  # a run's ends, no exposure's
_KV_RE = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)*([A-Za-z][A-Za-z ;/()'-]{0,40}?)\s*(?::|=)\s+(.+?)\s*$")
_HEADING_RE = re.compile(r"^\s*#{1,6}\s+(.+?)\s*#*\s*$")
_TABLE_RE = re.compile(r"^\s*\|.*\|\s*$")
_SEPARATOR_RE = re.compile(r"^\s*\|?(?:\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*\|?\s*$")
_ID_HEADING_RE = re.compile(r"^[A-Za-z0-9][\w.:@/-]*(?:[-_:]|\d)[\w.:@/-]*$")
_MARKS_RE = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")


def _clean(text: str) -> str:
    """Text without emphasis marks or end punctuation, spaces collapsed."""
    return re.sub(r"\s+", " ", _MARKS_RE.sub("", text)).strip(" .!:;")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9;✅✔☑❌✗✘️]+", text.lower())


_ID_LIST_RE = re.compile(r"[\w.:@/-]+(?:\s*(?:,|\band\b|&)\s*(?:and\s+)?[\w.:@/-]+)+")


def _reading(key: str, value: str, subject: str = "The alert") -> str | None:
    """The sentence a key and its value stand for, or None when the key is not one of ours."""
    key, value = _clean(key), _clean(value)
    kw, vw = _words(key), _words(value)
    if not kw or not vw:
        return None
    low = value.lower()
    known = set(kw) & (_STATE_KEYS | _RISK_KEYS | _COUNT_NOUNS) or " ".join(kw) in _POLAR_KEYS
    if len(vw) > 3:
        if _ID_LIST_RE.fullmatch(value):
            return None  # "Assets in reach: build-artifacts and customer-db": a list of ids, read with its key
        # the value is a sentence of its own ("Outcome: the exposure is closed.")
        return value + "." if known else None
    if set(kw) & _COUNT_NOUNS and not set(kw) & _STATE_KEYS:
        if set(vw) <= _NIL:
            return f"zero {key.lower()}."
        if re.fullmatch(r"\d{1,4}", low) or (len(vw) == 1 and vw[0] in _COUNT_WORDS):
            return f"{low} {key.lower()}."  # "Paths remaining: two"
        return None
    run_only = "_".join(vw) if "_".join(vw) in _RUN_ONLY_STATES else None  # "Verdict: graph_only": the run's end
    if "run" in kw and len(kw) <= 5 and (len(vw) == 1 or run_only):  # "Outcome of the run: stopped" too
        return f"The run state is {run_only or vw[0]}."  # "Run: stopped"
    if run_only and set(kw) & _STATE_KEYS and "containment" not in kw:
        return f"The run state is {run_only}."
    lead = re.match(r"(stopped|graph[ _]only|failed|interrupted|abandoned)\s*([;,].*)$", value, re.I)
    if lead and ("run" in kw or (set(kw) & _STATE_KEYS and "containment" not in kw)):  # "Verdict: stopped; ..."
        return f"The run state is {lead.group(1).lower().replace(' ', '_')}{lead.group(2)}."
    if "blast" in kw and "radius" in kw:
        return "The blast radius is empty." if set(vw) <= _NIL else None
    if " ".join(kw) in _POLAR_KEYS or (len(kw) == 2 and kw[0] in ("still", "fully") and kw[1] in _POLAR_KEYS):
        if set(vw) <= _YES:
            return f"{subject} is {key.lower()}."
        if set(vw) <= _NO:
            return f"{subject} is not {key.lower()}."
        return None
    if set(kw) & _STATE_KEYS:
        if "containment" in kw:
            if vw[0] == "not" or set(vw) <= _NO - {"none"} or vw == ["none"] or "progress" in vw:
                return f"{subject} is not contained."
            if set(vw) <= _YES | _w("in place"):
                return f"{subject} is contained."
        if set(vw) <= _YES - _w("yes y true") and "containment" not in kw:
            return None  # "Status: done" says nothing of the exposure
        return f"{subject} is {value.lower()}."
    if set(kw) & _RISK_KEYS and not set(kw) & _NOT_RISK:
        noun = next(w for w in kw if w in _RISK_KEYS)
        if set(vw) <= _NIL | _w("negligible"):
            return f"No {noun} remains."
        if len(vw) == 1 and vw[0] in _SEVERITIES:
            return f"The severity is {vw[0]}."
        if re.fullmatch(r"\d{1,3}(?:\s*/\s*100)?", low):
            return None  # a score, read by the grammar as written
        return f"The {noun} is {value.lower()}."
    return None


def bare_verdict(sentence: str) -> str | None:
    """A verdict with no subject ("**CONTAINED**", "Fully contained.", "Not contained"): about the alert.

    A parenthesis after it ("Contained (cap reached)") is a remark on the verdict, not part of it."""
    words = _words(_clean(re.sub(r"\([^)]*\)", " ", sentence)))
    if 0 < len(words) <= 3 and set(words) <= _ADVERBS | _STATE_WORDS and set(words) & _STATE_WORDS:
        return f"The alert is {' '.join(words)}."
    return None


_ACCOUNT_COLUMN = re.compile(r"\b(?:aws|iam|account|applied|verified|effective|in\s+effect|live)\b", re.I)
_ACCOUNT_ROW = re.compile(
    r"\b(?:access\s+key|key|deny[\s-]*all|policy|sessions?|credentials?|password|login|revoke|revocation|deactivate|"
    r"disable)\b|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b",
    re.I,
)
_DONE = _w("yes y true ✅ ✔ ✔️ ☑ applied done verified effective active succeeded success complete completed live")
_NOT_DONE = _w("no n false ❌ ✗ ✘ pending skipped failed planned none - — – unapplied unverified")
_NOUNS = {
    "key": "access key",
    "policy": "deny-all policy",
    "revocation": "session revocation",
    "credential": "credential",
    "any": "account",
}


def _account_cell(key: str, subject: str, value: str) -> str | None:
    """A row's change on the account under a column about the account: "The access key action was (not) applied
    in AWS." (None when the column or the row is not about the account, or the value is no yes or no)."""
    on_account = _ACCOUNT_COLUMN.search(key) or re.search(r"\b(?:aws|iam|account)\b", subject, re.I)  # either way round
    if not on_account or re.search(r"\bgraph\b|\bbefore\b", key, re.I):
        return None
    # the thing changed, named by the row, the column ("| alice | key status in AWS |") or the cell ("key disabled")
    thing = next((t for t in (subject, key, value) if _ACCOUNT_ROW.search(t)), "")
    if not thing:
        return None
    words = [w for w in _words(_clean(value)) if thing is not value or not _ACCOUNT_ROW.search(w)]
    low = " ".join(words)
    if not words:
        return None
    if (status := cell_status(kind_of(_clean(thing)), words)) is not None:
        done = status  # "| alice's access key | active |": not deactivated
    elif set(words) <= _DONE and "not" not in words:
        done = True
    elif set(words) <= _NOT_DONE or low in ("not applied", "not verified", "graph only", "not yet"):
        done = False
    else:
        return None
    noun = _NOUNS[kind_of(_clean(thing))]
    return f"The {noun} action was {'' if done else 'not '}applied in AWS."


_ACCOUNT_THING = re.compile(
    r"\bdeny[\s-]*all\b|\binline\s+(?:deny\s+)?polic|\baccess\s+keys?\b|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", re.I
)
_CHANGE = re.compile(r"\b(attached|detached|deactivated|disabled|removed|deleted)\b", re.I)


def _account_change(row: str, value: str) -> str | None:
    """A status or after cell saying what was done to a thing only the account has (a deny-all or inline policy,
    an access key): "| alice | ... | deny-all inline policy | ✅ attached |" is "The deny-all policy was attached on
    the AWS account."; None for anything else (a session, a route: the graph's too)."""
    if not _ACCOUNT_THING.search(row):
        return None
    words = _words(_clean(value))
    m = _CHANGE.search(" ".join(words))
    if m is None:
        return None
    negated = bool(set(words) & _w("not no never"))
    return f"The {_NOUNS[kind_of(_clean(row))]} was {'not ' if negated else ''}{m.group(1).lower()} on the AWS account."


def named_verdict(line: str) -> str:
    """A verdict said through a verb of naming, as the verdict: "cannot be called contained" is "is not contained",
    "can now be considered contained" is "is contained" ("could be called" and "can be called" stay modal)."""
    line = _NAMED_NOT.sub(" is not ", line)
    return _NAMED.sub(" is ", line)


_NAMING = (
    r"(?:called|considered|described\s+as|deemed|regarded\s+as|declared|labell?ed(?:\s+as)?|counted\s+as|"
    r"said\s+to\s+be|viewed\s+as|seen\s+as|treated\s+as|classed\s+as|marked(?:\s+as)?)"
)
_NAMED_NOT = re.compile(
    rf"\s+(?:cannot|can\s+not|can't|can\s+no\s+longer)\s+(?:(?:yet|now|really|honestly|fairly|reasonably|safely|"
    rf"truly|still)\s+)?be\s+{_NAMING}\s+",
    re.I,
)
# the positive only with an adverb of the present ("can now be considered"); "can be called" alone is modal
_NAMED = re.compile(rf"\s+can\s+(?:now|safely|fairly|reasonably|truly|finally)\s+be\s+{_NAMING}\s+", re.I)


_ARROW = r"\s*(?:→|->|=>|⟶|⇒)\s*"
_CHAIN = re.compile(rf"^\s*(?:[-*+]\s+|\d+[.)]\s+)?`?(?P<chain>[\w.:@/-]+(?:{_ARROW}[\w.:@/-]+)+)`?\s*\.?\s*$")
_OPEN_LEAD = re.compile(r"\b(?:open|live|remaining|remain|still|active|current|qualifying|exposed)\b", re.I)
_SHUT_LEAD = re.compile(
    r"\b(?:cut|blocked|closed|severed|removed|before|previously|formerly|former|denied|no\s+longer|not|none|were|was|"
    r"had|would|could|if|until|once|candidate|candidates|plan|planned)\b",
    re.I,
)


def _open_chain(line: str, lead: str | None) -> str | None:
    """ "The path a → b → c is open." for a chain under a lead-in that says the paths are open, or after one on its
    own line ("Open path: a → b → c")."""
    keyed = re.match(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?([A-Za-z][\w ()'-]{0,40}):\s+(.+)$", _MARKS_RE.sub("", line))
    if keyed is not None and _CHAIN.match(keyed.group(2)):
        line, lead = keyed.group(2), keyed.group(1)
    m = _CHAIN.match(_MARKS_RE.sub("", line))
    if m is None or lead is None or not _OPEN_LEAD.search(lead) or _SHUT_LEAD.search(lead):
        return None
    return f"The path {re.sub(_ARROW, ' → ', m.group('chain'))} is open."


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table(rows: list[str]) -> list[str]:
    """The sentences a Markdown table stands for, one line per row."""
    if len(rows) >= 2 and _SEPARATOR_RE.match(rows[1]):
        header, body = [_clean(c) for c in _cells(rows[0])], rows[2:]
        out = [""] * 2
    else:
        header, body, out = [], rows, []
    for row in body:
        cells = _cells(row)
        if header and (change := before_after_row([_clean(h) for h in header], cells)) is not None:
            out.append(change)  # "| Qualifying paths | 3 | 2 |" under "Before the run | After the run": a change
            continue
        if (run := run_table_row([_clean(h) for h in header], cells)) is not None:  # a table of runs: the run reader's
            out.append(" ".join(run))
            continue
        sentences: list[str] = []
        head0 = _words(header[0]) if header else []
        if len(cells) == 2 and header and (account := _account_cell(header[1], cells[0], cells[1])) is not None:
            sentences.append(account)
        elif len(cells) == 2 and (not header or set(head0) & _GENERIC_HEAD or not set(head0) & _ENTITY_HEAD):
            reading = _reading(cells[0], cells[1])
            if reading is None and re.search(r"[-_\d]", cells[0]) and len(_words(cells[1])) <= 3:
                reading = f"{_clean(cells[0])} is {_clean(cells[1]).lower()}."  # "| route-x | blocked |"
            sentences.append(reading or "")
        elif header:
            subject = _clean(cells[0]) if set(head0) & _ENTITY_HEAD else "The alert"
            for key, value in zip(header[1:], cells[1:], strict=False):
                if set(_words(key)) & _BEFORE_KEYS:
                    continue  # the state before: history, not a claim
                account = _account_cell(key, cells[0], value)
                if account is not None:
                    sentences.append(account)
                    continue
                changed = _account_change(" | ".join(cells), value) if set(_words(key)) & _CHANGE_KEYS else None
                if changed is not None:
                    sentences.append(changed)
                    continue
                if re.search(r"\b(?:aws|iam|account)\b", key, re.I) and _ACCOUNT_ROW.search(cells[0]):
                    continue  # an account column whose value is no yes or no: not the alert's state
                reading = _reading(key, value, subject)
                if reading is None and set(_words(key)) & (_STATE_KEYS | _AFTER_KEYS):
                    reading = f"{subject} is {_clean(value).lower()}."
                sentences.append(reading or "")
        out.append(" ".join(s for s in sentences if s))
    return out


def restructure(text: str) -> str:
    """The text with Markdown structure rewritten as the sentences it stands for (same number of lines)."""
    lines = text.splitlines()
    out: list[str] = []
    heading: str | None = None
    lead: str | None = None  # the line that introduces a list ("Paths still open:", a heading)
    i = 0
    while i < len(lines):
        line = lines[i]
        if _TABLE_RE.match(line):
            j = i
            while j < len(lines) and _TABLE_RE.match(lines[j]):
                j += 1
            out += _table(lines[i:j])
            heading = None
            i = j
            continue
        i += 1
        line = named_verdict(line)
        m = _HEADING_RE.match(line)
        if m:
            heading = lead = m.group(1)
            out.append(line)
            continue
        if not line.strip():
            out.append(line)
            continue
        chain = _open_chain(line, lead)
        if chain is not None:
            out.append(chain)
            heading = None
            continue
        if _CHAIN.match(_MARKS_RE.sub("", line)) is None:
            lead = line if line.rstrip().endswith(":") else None
        reading = None
        if heading is not None:
            reading = _reading(heading, line)
            verdict = bare_verdict(line) if reading is None and _ID_HEADING_RE.match(_clean(heading)) else None
            if verdict is not None:  # "### route-x" then "Blocked.": the verdict is about the heading's entity
                reading = f"{_clean(heading)} is {verdict.removeprefix('The alert is ')}"
            heading = None
        if reading is None:
            m = _KV_RE.match(_MARKS_RE.sub("", line))
            reading = _reading(m.group(1), m.group(2)) if m else None
        if reading is None:
            first, _, rest = re.sub(r"^[\s>+-]*", "", _MARKS_RE.sub("", line)).partition(". ")
            verdict = bare_verdict(first)
            reading = f"{verdict} {rest}" if verdict else None
        out.append(reading if reading is not None else line)
    return "\n".join(out)


_EMPTY = r"(?:empty|emptied|clean|cleared|nothing|zero|none|nil|0)"
_BLAST_RE = re.compile(r"\bblast\s+radius\b(.*)", re.I)
_BLAST_EMPTY_RE = re.compile(
    rf"^(?:\W+|\s+(?:is|was|has|have|been|now|become|became|shrank|shrunk|shrunk|reduced|dropped|fallen|fell|"
    rf"gone|down|to|holds?|contains?|includes?|after|the|fresh|query|run))*\s*(?P<neg>not\s+|no\s+longer\s+)?"
    rf"{_EMPTY}\b|^\s+(?:now\s+)?(?:holds?|contains?|includes?|has)\s+no\b",
    re.I,
)
_BLAST_FULL_RE = re.compile(
    r"^\s+(?:is\s+)?(?:still\s+)(?:holds?|contains?|includes?|has)\b|^\s+is\s+not\s+empty", re.I
)
_LIST_EMPTY_RE = re.compile(
    rf"\b(?:list|set|inventory|count|number)\s+of\s+((?:[\w/-]+\s+){{0,3}}?)(assets?|paths?)\s+"
    rf"(?:(?:is|was|are|has|been|now|stands|at)\s+)+{_EMPTY}\b"
    rf"|\b((?:[\w/]+[\s-]+){{0,2}}?)(asset|path)[\s-]+(?:list|set|count|inventory)\s+(?:(?:is|was|now|:)\s*)+{_EMPTY}\b",
    re.I,
)
_NONE_OF_RE = re.compile(
    r"\b(?:no|zero|0|not\s+(?:a\s+single|one|any)|none\s+of\s+the)\s+((?:[\w/-]+\s+){0,3}?)(assets?|data)\b"
    r"(?P<rest>(?:\s+\w+){0,4})",
    re.I,
)
_EXPOSED_RE = re.compile(
    r"\b(?:exposed|reachable|accessible|at\s+risk|reached|remains?|left|exists?|in\s+reach|found)\b", re.I
)
_UNCOUNTED = re.compile(r"\b(?:low|blocked|non|other|unreachable|unexposed|cut|new|additional)\b", re.I)


def emptiness(clause: str) -> list[tuple[str, int, str, str]]:
    """Count claims of emptiness: (kind, value, text, qualifier); kind is blast, asset_count or path_count.

    "The blast radius is empty" is a blast claim of 0 (and "is not empty" / "still holds" one of -1: at least
    one); "the list of exposed assets is empty", "the path count is now zero", "no reachable assets",
    "none of the assets is reachable" are asset or path counts of zero.
    """
    out: list[tuple[str, int, str, str]] = []
    m = _BLAST_RE.search(clause)
    if m:
        rest = m.group(1)
        empty = _BLAST_EMPTY_RE.search(rest)
        if empty and not empty.group("neg"):
            out.append(("blast", 0, m.group(0)[:80], ""))
        elif (empty and empty.group("neg")) or _BLAST_FULL_RE.search(rest):
            out.append(("blast", -1, m.group(0)[:80], ""))
    for m in _LIST_EMPTY_RE.finditer(clause):
        noun = (m.group(2) or m.group(4)).lower()
        qualifier = (m.group(1) or m.group(3) or "").lower()
        if not _UNCOUNTED.search(qualifier):
            out.append(("path_count" if noun.startswith("path") else "asset_count", 0, m.group(0), qualifier))
    for m in _NONE_OF_RE.finditer(clause):
        qualifier = m.group(1).lower()
        there = re.search(r"\bthere\s+(?:are|is|were|was)\s+$", clause[: m.start()], re.I)
        if _UNCOUNTED.search(qualifier) or not (there or _EXPOSED_RE.search(qualifier + m.group("rest"))):
            continue
        out.append(("asset_count", 0, m.group(0), qualifier))
    return out
