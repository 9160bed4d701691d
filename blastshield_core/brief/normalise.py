"""Surface forms rewritten into the plain sentences the grammar reads, before it reads them.

- Contractions in full ("can't" -> "cannot", "hasn't" -> "has not").
- Coordination: "Neither X nor Y has been blocked" -> "X has not been blocked; Y has not been
  blocked"; "is neither A nor B" -> "is not A and not B".
- Status markers as the words they stand for: a ticked checkbox is the line itself, an open one a
  to-do (no claim); ✅/✔ before a verdict is the verdict, ❌/✗/🚫 its negation; struck-through
  text (`~~active~~`) is withdrawn, so only what follows it is read.
- Quotation: a block quote introduced as someone else's words (a line ending in ":" that names a
  message, an email, an attacker or a speech verb), and inline quotes after a speech verb, are
  quotation, not the briefing's claims; other quote marks are dropped ("the verdict is
  \\"contained\\"" claims contained).
- Ability: "could still" / "could no longer" read as "can ..." outside a condition.
- Questions with their answers, hedges and the writer's verdict on reported words as the statements they make
  (`questions.py`).
- Names: an entity's plain name, or its id in other letter case, becomes its id.

The result keeps one line per input line, so structure (`structure.py`) still sees tables and
headings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .clauses import concession_dropped
from .questions import answered, joined_answers

__all__ = ["normalise"]

_CONTRACTIONS = (
    (re.compile(r"\bcan't\b|\bcan’t\b", re.I), "cannot"),
    (re.compile(r"\bwon't\b|\bwon’t\b", re.I), "will not"),
    (re.compile(r"\bain't\b", re.I), "is not"),
    (re.compile(r"\b(\w+)n['’]t\b", re.I), r"\1 not"),
    (re.compile(r"\b(it|that|there|what|he|she|who)['’]s\s+(been|got|had)\b", re.I), r"\1 has \2"),
    (re.compile(r"\b(it|that|there|what)['’]s\b", re.I), r"\1 is"),
    (re.compile(r"\b(they|we|you)['’]re\b", re.I), r"\1 are"),
    (re.compile(r"\b(they|we|you|i)['’]ve\b", re.I), r"\1 have"),
    (re.compile(r"\b(i|we|you|they|he|she|it|that|this|there)['’]ll\b", re.I), r"\1 will"),
    (re.compile(r"\b(i|we|you|they|he|she|it|that|there)['’]d\b", re.I), r"\1 would"),
    (re.compile(r"\bi['’]m\b", re.I), "I am"),
)
_AUX = r"has|have|had|is|are|was|were|can|could|will|would|does|do|did|remains?|stays?"
_NEITHER = re.compile(rf"\bneither\s+(?P<a>.+?)\s+nor\s+(?P<b>.+?)\s+(?P<aux>{_AUX})\s+(?P<rest>[^.;!?\n]+)", re.I)
_NEITHER_VERB = re.compile(r"\bneither\s+(?P<a>.+?)\s+nor\s+(?P<b>.+?)\s+(?P<verb>\w+s)\b(?P<rest>[^.;!?\n]*)", re.I)
_NEITHER_ADJ = re.compile(r"\b(?P<cop>is|are|was|were)\s+neither\s+(?P<a>[\w-]+)\s+nor\s+(?P<b>[\w-]+)", re.I)
_EITHER_NOT = re.compile(r"\bnot\s+(?P<verb>\w+)\s+either\b", re.I)
_CHECKED = re.compile(r"^(\s*(?:[-*+]\s+)?)\[[xX✓✔]\]\s*")
_UNCHECKED = re.compile(r"^(\s*(?:[-*+]\s+)?)\[\s\]\s*")
_STRIKE = re.compile(r"~~[^~\n]+~~\s*(?:(?:→|->|=>|⇒|—|-)\s*)?")
_YES_MARK = re.compile(r"[✅✔☑🟢✓]\ufe0f?\s*")
_NO_MARK = re.compile(r"(?P<mark>[❌✗✘🚫⛔✖]\ufe0f?)\s*(?P<rest>[^|\n]*)")
_WARN_MARK = re.compile(r"[⚠🟡🟠🔴]\ufe0f?\s*")
_COPULA = re.compile(r"\b(is|are|was|were|has\s+been|have\s+been|remains?)\b\s+", re.I)
_ATTRIBUTION = re.compile(
    r"\b(?:said|says|say|wrote|writes|write|reads?|read|claimed|claims?|stated|states|told|asked|sent|"
    r"message|email|e-mail|text|lure|phish\w*|attacker|adversary|note|ticket|user\s+reported|quote[sd]?)\b[^\n]*:\s*$",
    re.I,
)
_SPEECH_QUOTE = re.compile(
    r"\b(?P<lead>according\s+to|said|says|say|wrote|writes|claimed|claims|stated|states|told\s+\w+|asked|reading|reads|titled|"
    r"insist(?:ed|s)?|repl(?:ied|ies)|answered|responded|reported|posted|messaged|explained|admitted|argued|maintained|swore|"
    r"subject(?:\s+line)?|message|email|lure|text)\b(?P<gap>[^\"“”\n]{0,40}?)[\"“](?P<q>[^\"“”\n]{1,400})[\"”]",
    re.I,
)
_QUOTES = re.compile(r"[\"“”]")
# A record's field quoted ("The ticket was updated to \"contained\""): the record's words, not the briefing's claim.
_RECORD_QUOTE = re.compile(
    r"\b(?P<lead>(?:ticket|case|issue|jira|status\s+page|change\s+request)\s+(?:\w+\s+){0,3}?"
    r"(?:updated|changed|moved|set|marked|labell?ed|flipped|switched)\s+(?:to|as)\s+)[\"“][^\"“”\n]{1,80}[\"”]",
    re.I,
)
# A passage of several words in quote marks set after a colon ("The user insisted: \"my sessions were revoked\""):
# someone's words, whoever is named; a quoted verdict of one or two words ("Status: \"contained\"") is not.
_COLON_QUOTE = re.compile(r"(?P<lead>:\s*)[\"“](?P<q>[^\"“”\n]*\S\s+\S+\s+\S[^\"“”\n]*)[\"”]")


def _base(verb: str) -> str:
    """A verb's base form from its third person: "carries" -> "carry", "reaches" -> "reach", "runs" -> "run"."""
    low = verb.lower()
    if low == "has":
        return "have"
    if re.search(r"[^aeiou]ies$", low):
        return verb[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z|o)es$", low):
        return verb[:-2]
    return verb[:-1]


def _negate(text: str) -> str:
    """A status line with a ✗ before it: its verdict negated (a verdict already negated keeps its one negation:
    the mark agrees with it, "❌ X: not contained")."""
    words = re.findall(r"[\w-]+", text)
    if re.search(r"\b(?:not|no|never|none|nothing|cannot)\b|n't\b", text, re.I):
        return text
    if 0 < len(words) <= 3:
        return "not " + text
    m = _COPULA.search(text)
    if m:
        return text[: m.end()] + "not " + text[m.end() :]
    return "not " + text


# A checklist item that names a closing action and its object: "[x] block R" says R was blocked, "[ ] block R" (and
# "[ ] R blocked") that it has not been yet. Any other unchecked item is still to do, and claims nothing.
_ITEM_ACTION = re.compile(
    r"^(?P<verb>block|revoke|disable|deactivate|attach|cut|sever|close|remove|detach|lock|suspend)\s+"
    r"(?P<obj>(?:the\s+)?[\w`*.:@/-]+(?:\s+[\w`*.:@/-]+){0,4}?)\s*[.!]?\s*$",
    re.I,
)


_ITEM_DONE = re.compile(
    r"^(?P<subj>[\w`*.:@/-]+)\s+(?P<part>blocked|contained|revoked|disabled|deactivated|attached|cut|severed|closed|"
    r"removed|detached|locked|suspended)\b(?P<tail>.*)$",
    re.I,
)


def _item(mark: re.Match[str], rest: str, done: bool) -> str:
    m = None if re.search(r"[:;,]\s", rest) else _ITEM_ACTION.match(rest)  # "block R: nothing left": a plan and its aim
    if m is None:
        state = None if done else _ITEM_DONE.match(rest)  # "[ ] route-x blocked": not blocked yet
        if state is not None:
            return f"{mark.group(1)}{state.group('subj')} has not been {state.group('part')} yet{state.group('tail')}"
        return mark.group(1) + (rest if done else "(todo) " + rest)
    verb = m.group("verb").lower()
    participle = verb if verb == "cut" else verb + ("d" if verb.endswith("e") else "ed")
    said = "has been" if done else "has not been"
    return f"{mark.group(1)}{m.group('obj')} {said} {participle}" + ("" if done else " yet")


def _markers(line: str) -> str:
    """Checkboxes, status emoji and strikethrough as the words they stand for."""
    for rx, done in ((_CHECKED, True), (_UNCHECKED, False)):
        mark = rx.match(line)
        if mark is not None:
            line = _item(mark, line[mark.end() :], done)
            break
    line = _STRIKE.sub("", line)
    line = _NO_MARK.sub(lambda m: _negate(m.group("rest")), line)
    line = _YES_MARK.sub("", line)
    return _WARN_MARK.sub("", line)


_RUN_DASH = re.compile(r"(\brun\s+(?:state|status|verdict|outcome|result))\s+[—–-]+\s+", re.I)
# A line that is an id, a dash and a short value ("- route-x — blocked"): the id and its value, as "route-x: blocked".
_ID_DASH = re.compile(
    r"^(\s*(?:[-*+]\s+|\d+[.)]\s+)?[*_`]*)([A-Za-z0-9]+(?:[-_.:@/][A-Za-z0-9]+)+)([*_`]*)\s+[—–]\s+"
    r"(?=(?:[^\s—–]+\s*){1,3}$)"
)


# "X could still reach Y", "alice could no longer use the key": a present ability in a briefing, unless the line
# states a condition ("if the block were lifted, X could still reach Y" stays a hypothetical)
_COULD = re.compile(r"\bcould\s+(still|no\s+longer)\b", re.I)
_CONDITION = re.compile(
    r"\b(?:if|unless|without|were|had|would|once|when|whenever|until|assuming|suppose|supposing|provided|otherwise)\b",
    re.I,
)


# Words that frame a statement without changing what it claims: a connective ("Regardless, X"), a heads-up, a
# status check's key ("Status check on X: contained" is "X: contained").
_DISCOURSE = re.compile(
    r"(?:(?<=^)|(?<=[.;:!]\s)|(?<=^[-*+]\s)|(?<=^\d[.)]\s)|(?<=\*\*))\s*(?:regardless|anyway|either\s+way|in\s+any\s+case|that\s+said|"
    r"for\s+the\s+record|to\s+be\s+clear|for\s+what\s+it\s+is\s+worth|fwiw|fyi|heads[\s-]up)\s*[,:—–-]\s*",
    re.I,
)
_CHECK_ON = re.compile(r"\b(?:status|quick|state)\s+(?:check|update|report)\s+(?:on|for)\s+(?=\S+:)", re.I)


# "score 30 -> 0", "paths: 3 → 1", "Paths: 1 at the start -> 2 now": a change, from then to now
_NUM = r"\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten"
_CHANGE_ARROW = re.compile(
    rf"\b(?P<noun>(?:risk\s+)?score|(?:open\s+|qualifying\s+)?paths?(?:\s+in\s+the\s+graph)?)\s*[:=]?\s*"
    rf"(?P<a>{_NUM})(?:\s+at\s+the\s+(?:start|outset))?\s*(?:->|→|=>|⇒)\s*(?P<b>{_NUM})(?:\s+now)?\b",
    re.I,
)


# a chat hedge written short: "prob five paths open" is "probably five paths open" (a hedged claim claims it)
_SHORT_HEDGE = re.compile(r"\b(?:prob|probs|prolly|prbly)\b(?!\w)", re.I)


# A word of a line, as opposed to an id: letters (and an apostrophe) only, once the marks around it are set aside.
# An access key id (AKIA and 16 letters or digits, IAM User Guide, "Understanding unique ID prefixes") is an id even
# when its random part holds no digit.
_PLAIN_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
_KEY_ID = re.compile(r"(?:AKIA|ASIA)[A-Z0-9]{16}")
_MARKS_AROUND = "\"'“”‘’`*_()[]{}<>,.;:!?"


def _plain_words(line: str) -> list[tuple[int, int]]:
    """The spans of a line's plain words (see above)."""
    spans = []
    for m in re.finditer(r"\S+", line):
        core = m.group(0).strip(_MARKS_AROUND)
        if len(core) >= 2 and _PLAIN_WORD.fullmatch(core) and not _KEY_ID.fullmatch(core):
            start = m.start() + m.group(0).index(core)
            spans.append((start, start + len(core)))
    return spans


def _shouted(line: str) -> str:
    """A line written in capitals ("ALICE'S KEY STILL WORKS IN AWS") with its words in small letters: they are read
    as words, not as relationship types. Only its plain words count and change: ids (with digits, separators, an
    access key id) keep their letters whatever their share of the line; known ids get their case back in `_names`."""
    spans = _plain_words(line)
    letters = "".join(line[a:b] for a, b in spans)
    if len(spans) < 3 or sum(c.isupper() for c in letters) < 0.9 * sum(c.isalpha() for c in letters):
        return line
    out = list(line)
    for a, b in spans:
        out[a:b] = line[a:b].lower()
    return "".join(out)


def _line(line: str) -> str:
    line = _shouted(line)
    line = _SHORT_HEDGE.sub("probably", line)
    line = _CHANGE_ARROW.sub(lambda m: f"{m.group('noun')} went from {m.group('a')} to {m.group('b')}", line)
    line = _DISCOURSE.sub(" ", line).replace("  ", " ") if _DISCOURSE.search(line) else line
    line = _CHECK_ON.sub("", line)
    line = _RUN_DASH.sub(r"\1: ", line)  # "Final run status — stopped" is a key and its value
    line = _ID_DASH.sub(r"\1\2\3: ", line)
    if not line.lstrip().startswith("|"):  # a table's cells keep their marks (`structure.py` reads them)
        line = _markers(line)
    for rx, repl in _CONTRACTIONS:
        line = rx.sub(repl, line)
    line = answered(line)  # a question and its answer, a hedge, a verdict on reported words: what they claim
    line = _NEITHER_ADJ.sub(lambda m: f"{m.group('cop')} not {m.group('a')} and not {m.group('b')}", line)
    m = _NEITHER.search(line)
    if m:
        aux, rest = m.group("aux"), m.group("rest")
        line = line[: m.start()] + f"{m.group('a')} {aux} not {rest}; {m.group('b')} {aux} not {rest}" + line[m.end() :]
    else:
        m = _NEITHER_VERB.search(line)
        if m:
            verb, rest = m.group("verb"), m.group("rest")
            base = _base(verb)
            line = (
                line[: m.start()]
                + f"{m.group('a')} does not {base}{rest}; {m.group('b')} does not {base}{rest}"
                + line[m.end() :]
            )
    if not _CONDITION.search(concession_dropped(line)):  # "..., even if nobody acts": the main clause holds
        line = _COULD.sub(lambda m: f"can {m.group(1)}", line)
    line = _SPEECH_QUOTE.sub(lambda m: f"{m.group('lead')}{m.group('gap')}(quoted)", line)
    line = _COLON_QUOTE.sub(lambda m: f"{m.group('lead')}(quoted)", line)
    line = _RECORD_QUOTE.sub(lambda m: f"{m.group('lead')}(quoted)", line)
    return _QUOTES.sub("", line)


def _names(text: str, names: Mapping[str, str], ids: Mapping[str, str]) -> str:
    """Plain names and differently cased ids as the ids they stand for."""
    if names:
        ordered = sorted((n for n in names if len(n) >= 4), key=len, reverse=True)
        if ordered:
            rx = re.compile(
                r"(?<![\w.:/-])(?:the\s+)?(" + "|".join(re.escape(n) for n in ordered) + r")(?![\w-])", re.I
            )

            def swap(m: re.Match[str]) -> str:
                found = names.get(m.group(1).lower())
                return found if found is not None else m.group(0)

            text = rx.sub(swap, text)
    if ids:

        def recase(m: re.Match[str]) -> str:
            token = m.group(0)
            return ids.get(token.lower(), token) if token not in ids.values() else token

        text = re.sub(r"(?<![\w.:/@-])[A-Za-z0-9][\w.:@/-]*[A-Za-z0-9]", recase, text)
    return text


# A line after a block quote that says whose words it held: "(Text of the phishing message forwarded by the
# reporter)", "— the attacker's email".
_ATTRIBUTED_AFTER = re.compile(
    r"^\s*[(\[*_]*\s*(?:[—–-]+\s*)?(?:the\s+)?(?:text|message|email|e-mail|excerpt|copy|wording|body|lure|"
    r"quote|original)\b.*\b(?:of|from|forwarded|reproduced|quoted|sent|received|posted|written|verbatim)\b"
    r"|^\s*[—–]+\s*(?:the\s+)?\w+(?:'s)?\s+(?:message|email|e-mail|text|words|note|post|ticket)\b",
    re.I,
)


def _attributed_after(lines: list[str]) -> list[str]:
    """Block quotes whose next line says they were someone else's words, as quoted; the rest as they are."""
    out = list(lines)
    i = 0
    while i < len(out):
        if not re.match(r"^\s*>", out[i]):
            i += 1
            continue
        j = i
        while j < len(out) and re.match(r"^\s*>", out[j]):
            j += 1
        k = j
        while k < len(out) and not out[k].strip():
            k += 1
        if k < len(out) and _ATTRIBUTED_AFTER.search(out[k]):
            out[i:j] = ["> (quoted)"] * (j - i)
            out[k] = "(quoted)"
        i = j
    return out


def normalise(text: str, names: Mapping[str, str] | None = None, ids: Mapping[str, str] | None = None) -> str:
    """The text with contractions, coordination, status markers, quotation and names normalised.

    `names`: lower-case plain name -> id; `ids`: lower-case id -> id."""
    out: list[str] = []
    quoting = False
    for line in _attributed_after(joined_answers(text.splitlines())):
        if not line.strip():
            out.append(line)
            continue
        quoted = re.match(r"^\s*>\s?", line)
        if quoted and (quoting or re.match(r"^\s*>\s*[\"“]", line)):
            quoting = True
            out.append("> (quoted)")
            continue
        quoting = False
        if not quoted and _ATTRIBUTION.search(line):
            quoting = True  # the block quote that follows is someone else's words
        out.append(_line(line))
    text = _plurals(_names("\n".join(out), names or {}, ids or {}))
    return _fragments(text, set((ids or {}).values()) | set((names or {}).values()))


# "path(s)", "hop(s)": the plural, or the singular after one ("1 path(s)")
_MAYBE_PLURAL = re.compile(r"\b((?:1|one|a|single)\s+)?([A-Za-z]+)\(s\)", re.I)


def _plurals(text: str) -> str:
    return _MAYBE_PLURAL.sub(lambda m: (m.group(1) or "") + m.group(2) + ("" if m.group(1) else "s"), text)


# A verbless fragment about an entity ("build-runner-07: still on an open path", "deploy-role no longer on X's
# path", "payments-role: carries 67% of the paths"): the entity, then what is said of it, read with its verb.
_FRAGMENT = re.compile(
    r"^(?P<lead>\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?(?:note:\s*)?`?)(?P<id>[A-Za-z0-9][\w.:@/-]*[A-Za-z0-9])`?"
    r"(?P<sep>\s*[:—–]\s*|\s+-\s+|\s+)(?P<rest>(?:still|no\s+longer|not|now|off|on|only|already|never|no\s+more)\b.*|"
    r"(?:carries|reaches|holds|sits|lies|runs|leads|passes|remains|stays)\b.*)$",
    re.I,
)
_FINITE = re.compile(
    r"\b(?:is|are|was|were|has|have|had|can|could|does|do|did|will|would|remains?|stays?|carries|reaches|holds|"
    r"sits|lies|runs|leads|passes)\b",
    re.I,
)


def _fragments(text: str, ids: set[str]) -> str:
    def line(raw: str) -> str:
        m = _FRAGMENT.match(raw)
        if m is None or m.group("id") not in ids:
            return raw
        rest = m.group("rest")
        if re.match(r"(?:carries|reaches|holds|sits|lies|runs|leads|passes|remains|stays)\b", rest, re.I):
            return f"{m.group('lead')}{m.group('id')} {rest}"
        if _FINITE.search(rest):
            return raw
        return f"{m.group('lead')}{m.group('id')} is {rest}"

    return "\n".join(line(x) for x in text.split("\n"))
