"""Questions with their answers, hedges and the writer's verdict on reported words, as the statements they make.

A briefing written as questions and answers asserts what the answer says of what was asked. These rewrites run on
one line, after contractions are spelled out (`normalise.py`), so the existing readers judge the statement:

- a yes/no question and its answer, by subject-auxiliary inversion: "Is X blocked? Yes." -> "X is blocked.";
  "No." -> its negation ("X is not blocked.", "still" read as "no longer", "any" as "no"); "No, <clause>" -> the
  negation and the clause; "Yes, <clause>" -> both; an answer that is a bare predicate ("No, still active.")
  completes the question's subject ("X is still active.");
- a wh-question with a short answer, as the statement it completes: "How many P does X have? Three." -> "X has
  three P."; "How far is A from B? Four hops." -> "the shortest path from B to A is four hops."; "What is X? V." ->
  "X is V."; "Which N did S block? A, B." -> "S blocked A, B.";
- a hedged claim claims what it hedges: "I think X", "I am fairly sure X", "probably X", "X, I think" -> "X";
  "I do not think X" -> X negated;
- reported words followed by the writer's verdict claim the verdict: "Priya says X. She is wrong, it is Y." -> "Y"
  (its "it" read as X's subject), "She is wrong." alone -> X negated; "Dana wrote \\"X\\"; that was accurate." -> "X";
  "Sam: \\"X\\". Me: not quite, Y." -> "Y"; a correction's lead-in ("Correction to my earlier message: X") is dropped.

An answer that is hedged ("probably", "not sure") or that the rewrite cannot place (no auxiliary to invert, no
subject found, a question without an answer) leaves the line as written: a question is no claim, and the readers
judge the answer alone, as before. Nothing here decides truth.
"""

from __future__ import annotations

import re

from .runfacts import answer_in_full, asks_about_run, is_answer, read_run_facts

__all__ = ["answered", "joined_answers", "negated"]


def _w(text: str) -> frozenset[str]:
    return frozenset(text.split())


_AUX = ("is", "are", "was", "were", "has", "have", "had", "can", "could", "will", "would", "does", "do", "did")
_BE_HAVE = frozenset(("is", "are", "was", "were", "has", "have", "had"))
_AUX_RE = "|".join(_AUX)
# where a be/have question's predicate starts: an adverb, a preposition, a participle or a state word
_PRED_START = _w(
    "still now already currently yet ever really actually fully also directly truly anymore again even on "
    "in at through via behind within under out off part rated set marked listed shown reachable contained "
    "exposed active inactive open blocked closed live safe cut gone done left run been locked critical "
    "high medium low enabled disabled revoked applied completed stopped finished reached a an the any no "
    "one two three some"
)
# where a do/modal question's subject ends: its verb (base form)
_VERBS = _w(
    "reach reaches read assume use run get go pass fire move cut block contain have carry touch access "
    "hit lead write call finish complete stop end remain stay work expire revoke disable apply send take "
    "start affect expose include change drop rise fall leave touch avoid open close sever keep hold find "
    "return succeed fail make let grant allow deny attach detach rotate delete lock mark count score rate "
    "sit land"
)
_ADVERBS = _w("still now already currently ever really actually directly also even yet")
_PAST = {
    "run": "ran",
    "get": "got",
    "go": "went",
    "cut": "cut",
    "have": "had",
    "take": "took",
    "send": "sent",
    "hold": "held",
    "keep": "kept",
    "find": "found",
    "make": "made",
    "let": "let",
    "leave": "left",
    "hit": "hit",
    "lead": "led",
    "write": "wrote",
    "read": "read",
    "rise": "rose",
    "fall": "fell",
    "set": "set",
    "sit": "sat",
}
_SUBJECT_ANY = {"anyone": "nobody", "anybody": "nobody", "anything": "nothing", "any": "no"}
_PRONOUNS = _w("it they there anyone anybody anything someone something we you he she i this that")
_DETERMINERS = _w("the a an any every each all some this that its their our your no")
_NUMBER = r"(?:\d+|zero|none|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"

_YES = re.compile(
    r"(?:yes|yep|yeah|yup|correct|right|indeed|affirmative|confirmed|absolutely|definitely|certainly|"
    r"it\s+(?:is|does|can|has|did))\b(?!\s+not\b)",
    re.I,
)
_NO = re.compile(
    r"(?:(?:absolutely|definitely|certainly)\s+not|it\s+(?:is|does|can|has|did)\s+not|no|nope|nah|negative|none|nothing|"
    r"nobody|never|not(?!\s+sure\b))\b",
    re.I,
)
_HEDGED_ANSWER = re.compile(
    r"(?:probably|maybe|perhaps|possibly|likely|unclear|unsure|unknown|not\s+sure|hard\s+to\s+say|depends|"
    r"(?:i|we)\s+(?:do\s+not|cannot)\s+(?:know|tell)|no\s+idea|tbd|i\s+(?:think|believe|guess)\s+so|"
    r"yes\s+and\s+no|partly|partially|in\s+part|sort\s+of|kind\s+of|not\s+entirely|not\s+fully|it\s+depends)\b",
    re.I,
)
# the lead-in before an answer: "A:", "Answer:", "Short answer:"
_ANSWER_LEAD = re.compile(r"^\s*(?:[*_]+\s*)?(?:(?:short\s+|quick\s+)?answer|a|reply)\s*:\s*", re.I)
# a restatement of the answer that adds nothing: "not any more", "it is not", "they are"
_RESTATED = re.compile(
    r"^(?:(?:not\s+)?(?:any\s*more|anymore|any\s+longer|at\s+all|really|now|yet)|(?:it|they|that|she|he)\s+"
    rf"(?:{_AUX_RE})(?:\s+not)?|still|none|nothing|not)\W*$",
    re.I,
)
_FINITE = re.compile(
    rf"\b(?:{_AUX_RE}|cannot|remains?|stays?|avoids?|reads?|locks?|works?|keeps?|runs?|goes|went|reaches|"
    r"leads?|passes|holds?|shows?|finds?|carries|touches|blocks|blocked|cut|sent|accepted|rejected|confirms?|"
    r"\w+ed)\b",
    re.I,
)


def _split_frame(line: str) -> tuple[str, str]:
    """A line's markup and list lead ("- ", "1. ", "**", "Note: ") and its text."""
    m = re.match(r"^(\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:[*_]+)?(?:[A-Z][\w ]{0,20}:\s+(?=[A-Z*]))?(?:[*_]+)?)", line)
    lead = m.group(1) if m else ""
    return lead, line[len(lead) :]


def _tail(text: str) -> tuple[str, str]:
    """Text and its closing markup ("**")."""
    m = re.search(r"[*_]+\s*$", text)
    return (text[: m.start()], text[m.start() :]) if m else (text, "")


def _third(verb: str) -> str:
    if verb == "have":
        return "has"
    if verb == "go":
        return "goes"
    if re.search(r"(?:s|sh|ch|x|z)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def _past(verb: str) -> str:
    if verb in _PAST:
        return _PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ied"
    if re.search(r"^[^aeiou]*[aeiou][bdgmnpt]$", verb):
        return verb + verb[-1] + "ed"
    return verb + "ed"


def _inflect(aux: str, verb: str) -> str:
    """The verb a do-question's auxiliary carries: "does reach" -> "reaches", "did fire" -> "fired"."""
    low = verb.lower()
    if aux == "does":
        return _third(low)
    if aux == "did":
        return _past(low)
    return low


def _words(text: str) -> list[str]:
    """The words of a question, a name's parenthesis ("alice (API calls)") and a chain ("A → B → C") kept whole."""
    out: list[str] = []
    for w in re.findall(r"\S+", text):
        open_paren = out and out[-1].count("(") > out[-1].count(")")
        if out and (open_paren or w.startswith("(") or w in ("→", "->") or out[-1].endswith(("→", "->"))):
            out[-1] += " " + w
        else:
            out.append(w)
    return out


def _subject(aux: str, rest: str) -> tuple[str, str] | None:
    """A question's subject and what follows it, after its auxiliary; None when it cannot be placed."""
    words = _words(rest)
    if not words:
        return None
    be = aux in _BE_HAVE
    n = 0
    if words[0].lower() in _PRONOUNS - {"this", "that"}:
        n = 1
    else:
        for i, w in enumerate(words[1:], start=1):
            bare = w.lower().strip(",.;:")
            after_det = words[i - 1].lower() in _DETERMINERS
            if be and bare in _PRED_START and not after_det:
                n = i
                break
            if not be and bare in _ADVERBS and not after_det:
                n = i
                break
            if not be and bare in _VERBS and not after_det:
                later = i + 1 < len(words) and words[i + 1].lower() in _VERBS
                n = i + 1 if later and bare in ("run", "block", "route", "score") else i
                break
        if n == 0:
            return None
    return " ".join(words[:n]), " ".join(words[n:])


def _negate_predicate(aux: str, pred: str) -> str:
    """The predicate after its auxiliary, negated: "still active" -> "no longer active"."""
    if re.match(r"still\b", pred, re.I):
        return "no longer" + pred[5:]
    if re.match(r"not\b", pred, re.I):
        return pred[3:].lstrip()
    return "not " + pred


def _negative_subject(subject: str) -> str | None:
    """ "any access keys" -> "no access keys", "anyone" -> "nobody"; None when the subject has no "any"."""
    first, _, more = subject.partition(" ")
    swap = _SUBJECT_ANY.get(first.lower())
    if swap is None:
        return None
    return f"{swap} {more}".strip()


def _join(aux: str, verb: str) -> str:
    if aux == "can" and verb.startswith("not "):
        return "cannot " + verb[4:]
    return f"{aux} {verb}"


def _declarative(aux: str, subject: str, pred: str, yes: bool) -> str:
    """The statement a yes/no question's answer makes."""
    if yes:
        subject = re.sub(r"^any(?=\s)", "some", subject, flags=re.I)
        subject = re.sub(r"^any(one|body|thing)$", r"some\1", subject, flags=re.I)
    pred = re.sub(r"\s+(?:yet|at\s+all|right\s+now)\s*$", "", pred.strip())
    if aux == "will":
        aux = "would"  # "will blocking R contain X? yes": what would follow, a what-if, not a state now
    if aux in ("do", "does", "did"):
        verb, _, more = pred.partition(" ")
        adverbs = ""
        while verb.lower() in ("still", "ever", "really", "actually", "already", "now") and more:
            adverbs += verb + " "
            verb, _, more = more.partition(" ")
        if yes:
            return f"{subject} {adverbs}{_inflect(aux, verb)} {more}".strip()
        neg = _negative_subject(subject)
        if neg is not None:
            return f"{neg} {adverbs}{_inflect(aux, verb)} {more}".strip()
        if adverbs.strip().lower() == "still":
            return f"{subject} no longer {_inflect(aux, verb)} {more}".strip()
        return f"{subject} {aux} not {adverbs}{verb} {more}".strip()
    if yes:
        return f"{subject} {aux} {pred}"
    if aux not in _BE_HAVE:
        pred = re.sub(r"^(?:now|really|actually|ever)\s+", "", pred, flags=re.I)
    neg = _negative_subject(subject)
    if neg is not None:
        return f"{neg} {aux} {pred}"
    return f"{subject} {_join(aux, _negate_predicate(aux, pred))}"


_YES_NO_Q = re.compile(rf"^(?P<aux>{_AUX_RE})\s+(?P<rest>.+)$", re.I)
_HOW_MANY_DO = re.compile(r"^how\s+many\s+(?P<noun>[\w\s-]+?)\s+(?P<aux>does|do|did)\s+(?P<tail>.+)$", re.I)
_HOW_MANY_BE = re.compile(
    r"^how\s+many\s+(?P<noun>[\w\s-]+?)\s+(?P<verb>is|are|was|were|remain|remains|exist|exists|are\s+there|is\s+there)"
    r"(?P<rest>(?:\s.*)?)$",
    re.I,
)
_HOW_FAR = re.compile(r"^how\s+far\s+(?:is|are)\s+(?P<a>\S+)\s+from\s+(?P<b>\S+)\s*$", re.I)
_HOW_ADJ = re.compile(
    r"^how\s+(?P<adj>long|short|deep|high|big|many\s+hops)\s+(?P<aux>is|are|was|were)\s+(?P<x>.+)$", re.I
)
# a question whose wh-word is the subject: "what is still exposed?", "who can still reach db-3?", "what remains open?"
_WH_SUBJECT = re.compile(
    r"^(?:what|who|which\s+(?:one|entity|route|path|asset|key|session|role)s?)\s+(?P<rest>(?:still\s+)?"
    r"(?:(?:is|are|was|were)\s+(?=still\b|now\b|open\b|active\b|exposed\b|blocked\b|contained\b|reachable\b|left\b|on\b|in\b)|"
    r"remains?|stays?|can|could|has|have|reaches|leads)\b.*)$",
    re.I,
)
_NONE = re.compile(r"(?:none|nothing|nobody|no\s+one)\b", re.I)
_WHAT_IS = re.compile(r"^what\s+(?P<aux>is|are|was|were)\s+(?P<x>.+)$", re.I)
_WHICH_DID = re.compile(r"^(?:which|what)\s+(?P<noun>[\w\s-]+?)\s+did\s+(?P<tail>.+)$", re.I)
_WHICH_BE = re.compile(r"^(?:which|what)\s+(?P<noun>[\w\s-]+?)\s+(?P<aux>is|are|was|were)\s+(?P<pred>.+)$", re.I)


_BARE_PREDICATE = re.compile(
    r"(?:still|now|already|only|just|fully|[a-z]+ed|active|open|inactive|live|safe|low|medium|high|critical)\b", re.I
)


def _clause_answer(aux: str, subject: str, rest: str, be: bool) -> str:
    """What an answer adds after "yes," or "no,": a clause as written (its "it" the question's subject when the
    question asked about the subject's state), a bare predicate completing the subject, or nothing."""
    rest = rest.strip()
    if not rest or _RESTATED.match(rest):
        return ""
    if not _FINITE.search(re.sub(r"^(?:still\s+|now\s+|already\s+|only\s+|just\s+|fully\s+)*\w+ed\b", "", rest)):
        if be and _BARE_PREDICATE.match(rest):
            return f"{subject} {aux} {rest}"
        return rest
    if be:
        rest = re.sub(r"^(?:it|they|that\s+one|this\s+one)\b", subject, rest, count=1, flags=re.I)
    elif re.match(r"(?:that|this)(?:\s+one)?\s+(?:is|was|has)\b", rest, re.I):
        return ""  # "no, that one is denied or not there": the answer in other words, about what was asked
    elif re.match(r"the\s+[\w\s'-]+$|\S*[-_\d]\S*$", subject, re.I):  # "did the score move? no, it stayed at 35"
        rest = re.sub(r"^(?:it|they)\b", subject, rest, count=1, flags=re.I)
    return re.sub(r"\b(is|are)\s+been\b", lambda b: "has been" if b.group(1).lower() == "is" else "have been", rest)


def _alternative(aux: str, subject: str, pred: str, answer: str) -> str | None:
    """ "Is X contained or exposed? Exposed." -> "X is exposed": the answer names one of the question's
    alternatives; None otherwise."""
    options = [o.strip(" ,").lower() for o in re.split(r",\s*|\s+or\s+", pred) if o.strip(" ,")]
    said = answer.strip(" .!").lower()
    if " or " not in pred.lower() or said.split(" ", 1)[0] not in {o.split(" ")[-1] for o in options}:
        return None
    return f"{subject} {aux} {answer.strip(' .!')}" if aux in _BE_HAVE else None


def _yes_no(question: str, answer: str) -> str | None:
    q = _YES_NO_Q.match(question)
    if q is None:
        return None
    aux = q.group("aux").lower()
    placed = _subject(aux, q.group("rest"))
    if placed is None or not placed[1]:
        return None
    subject, pred = placed
    if re.search(r"→|->", subject):
        return None  # a chain of entities as the subject: the readers take its first entity for the whole
    head = _YES.match(answer) or _NO.match(answer)
    if head is None:
        return _alternative(aux, subject, pred, answer)
    yes = _YES.match(answer) is not None
    after = answer[head.end() :].lstrip(" ,;:.!—–-")
    if _HEDGED_ANSWER.match(after):
        return None  # "yes, I think so", "no, probably not": a hedged answer is no claim
    said = _declarative(aux, subject, pred, yes)
    more = _clause_answer(aux, subject, after, aux in _BE_HAVE and not re.search(r"→|->", subject))
    return f"{said}; {more}" if more else said


def _number_answer(answer: str) -> re.Match[str] | None:
    return re.match(rf"(?:still\s+|only\s+|just\s+|exactly\s+)?(?P<n>{_NUMBER})\b(?P<more>.*)$", answer, re.I)


def _wh(question: str, answer: str) -> str | None:
    m = _HOW_MANY_DO.match(question)
    told = _number_answer(answer)
    placed = _subject("did", m.group("tail")) if m else None
    if m and told and placed and placed[1]:
        verb, _, rest = placed[1].partition(" ")
        verb = _inflect(m.group("aux").lower(), verb)
        n = {"none": "no", "zero": "no"}.get(told.group("n").lower(), told.group("n").lower())
        said = f"{placed[0]} {verb} {n} {m.group('noun')}{(' ' + rest) if rest else ''}"
        more = told.group("more").strip(" ,;.")
        return f"{said}; {more}" if more else said
    m = _HOW_MANY_BE.match(question)
    if m and told:
        verb = re.sub(r"\s+there$", "", m.group("verb"), flags=re.I)
        more = told.group("more").strip(" ,;.")
        n = {"none": "no", "zero": "no"}.get(told.group("n").lower(), told.group("n"))
        said = f"{n} {m.group('noun')} {verb}{m.group('rest')}".strip()
        return f"{said}; {more}" if more else said
    m = _HOW_FAR.match(question)
    if m and told:
        return f"the shortest path from {m.group('b')} to {m.group('a')} is {answer}"
    m = _HOW_ADJ.match(question)
    if m and (told or re.match(r"(?:still|only|just|exactly|about|around|roughly)\b", answer, re.I)):
        return f"{m.group('x')} {m.group('aux')} {answer}"
    m = _WH_SUBJECT.match(question)
    if m and not _YES.match(answer) and (not _NO.match(answer) or _NONE.match(answer)):
        return f"{answer} {m.group('rest')}"  # "what is still open? nothing." -> "nothing is still open"
    m = _WHAT_IS.match(question)
    if m and not _YES.match(answer) and not _NO.match(answer):
        return f"{m.group('x')} {m.group('aux')} {answer}"
    m = _WHICH_DID.match(question)
    placed = _subject("did", m.group("tail") + " ") if m else None
    if m is not None and placed is None:
        words = m.group("tail").split()  # "which routes did the run block?": the verb last
        placed = (" ".join(words[:-1]), words[-1]) if len(words) > 1 and words[-1].lower() in _VERBS else None
    if m and placed and placed[1]:
        verb, _, rest = placed[1].partition(" ")
        verb = _past(verb.lower())
        none = re.match(r"(?:none|nothing)\b\W*(?P<more>.*)$", answer, re.I)
        if none:
            said = f"{placed[0]} {verb} no {m.group('noun')}{(' ' + rest) if rest else ''}"
            return f"{said}; {none.group('more')}" if none.group("more") else said
        return f"{placed[0]} {verb} {answer}{(' ' + rest) if rest else ''}"
    m = _WHICH_BE.match(question)
    if m and not _YES.match(answer) and not _NO.match(answer):
        return f"{answer.rstrip(' .')} {m.group('aux')} {m.group('pred')}"
    return None


def _no_id(_: str) -> None:
    return None


def _run_reads(question: str, answer: str) -> bool:
    """Whether the run reader (`runfacts.py`) reads this answer as facts about the run it was asked about ("did
    the run finish? no, it stopped"; "how many paths did we start with? two; one left now"): it keeps it."""
    if answer_in_full(question, answer):
        return True
    if not (asks_about_run(question) and is_answer(answer)):
        return False
    return any(r.facts for r in read_run_facts(answer, _no_id, run_named=True))


def _answer(line: str) -> str | None:
    """A question and its answer on one line, as the statement the answer makes; None when there is none."""
    if line.count("?") != 1:
        return None
    lead, text = _split_frame(line)
    text, close = _tail(text)
    before, _, answer = text.partition("?")
    if re.search(r"(?:^|\s)(?:if|unless|whether)\b", before, re.I):
        return None
    starts = [m.end() for m in re.finditer(r"(?:[.!]\s+|:\s+)", before)]
    pre, question = (before[: starts[-1]], before[starts[-1] :]) if starts else ("", before)
    question = question.strip(" *_")
    pre = re.sub(r"(?:^|\s)q(?:uestion)?:\s*$", " ", pre, flags=re.I).lstrip() if pre else pre
    lead = re.sub(r"\bq(?:uestion)?:\s*$", "", lead, flags=re.I)
    answer = _ANSWER_LEAD.sub("", answer.strip(" *_")).strip()
    answer = re.sub(r"^[*_]+\s*", "", answer)
    if not answer or not re.search(r"\w", answer) or _HEDGED_ANSWER.match(answer):
        return None
    if _run_reads(question, answer):
        return None
    sentence_end = re.search(r"[.!]\s+(?=\S)", answer)
    first, later = (answer[: sentence_end.start()], answer[sentence_end.end() :]) if sentence_end else (answer, "")
    first = first.rstrip(" .!")
    said = _yes_no(question, first) if _YES_NO_Q.match(question) else _wh(question, first)
    if said is None:
        return None
    said = said[0].upper() + said[1:] if said[0].islower() and not re.match(r"\S*[-_\d]", said) else said
    return f"{lead}{pre}{said}.{(' ' + later) if later else ''}{close}"


# -- hedges, corrections and verdicts on reported words -----------------------------------------------------

_HEDGE_LEAD = re.compile(
    r"(?P<neg>(?:i|we)\s+(?:(?:do\s+not|don't)\s+(?:think|believe)|doubt))\s+(?:that\s+|whether\s+|if\s+)?|"
    r"(?P<open>(?:i|we)\s+(?:am\s+not\s+sure|are\s+not\s+sure|do\s+not\s+know|cannot\s+tell|hope|wonder))"
    r"\s+(?:that\s+|whether\s+|if\s+)?|"
    r"(?:(?:(?:i|we)\s+(?:am\s+|are\s+)?)?(?:fairly|pretty|quite|reasonably|very)\s+(?:sure|confident|certain)|"
    r"(?:i|we)\s+(?:am\s+|are\s+)(?:sure|confident|certain)|"
    r"(?:i|we)\s+(?:think|believe|reckon|suspect|gather|guess)|probably|presumably|most\s+likely|apparently|seemingly|"
    r"it\s+(?:looks|seems|appears)(?:\s+like|\s+as\s+if|\s+that)?|my\s+(?:understanding|reading|read|sense)\s+is|"
    r"as\s+far\s+as\s+(?:i|we)\s+(?:know|can\s+tell|can\s+see)|from\s+what\s+(?:i|we)\s+(?:can\s+)?(?:see|tell)|"
    r"if\s+i\s+am\s+not\s+mistaken|i\s+would\s+say)\s*,?\s+(?:that\s+)?",
    re.I,
)
_HEDGE_TAIL = re.compile(
    r",\s*(?:i\s+think|i\s+believe|i\s+guess|i\s+reckon|(?:i\s+am\s+)?(?:fairly\s+|pretty\s+)?sure|probably|presumably|"
    r"apparently|if\s+i\s+am\s+not\s+mistaken|as\s+far\s+as\s+(?:i|we)\s+(?:know|can\s+tell))\s*(?=[.!]?\s*[*_]*\s*$)",
    re.I,
)
# a hedging adverb between the verb and what it says ("X is probably contained"), not "likely to"
_HEDGE_MID = re.compile(
    r"\b(?P<aux>is|are|was|were|has|have|had|can|will|does|do|did)\s+(?:probably|presumably|most\s+likely|likely|"
    r"apparently)\s+(?!to\b)",
    re.I,
)
_PUT_AT = re.compile(r"\bi\s+would\s+put\s+(?P<x>.+?)\s+at\s+(?P<v>.+)$", re.I)
# a correction's lead-in, at the start or after what it corrects ("Earlier I wrote X; correction: Y" -> "Earlier I
# wrote X; Y": the earlier words stay the earlier words, no claim)
_CORRECTION_LEAD = re.compile(
    r"(?:^|(?<=;\s))(?:correction|update|edit|amendment|erratum|clarification)s?\b[^:;]{0,60}:\s*(?=\S)", re.I
)
_REPORT = re.compile(
    r"^(?P<who>[A-Z][\w-]*|the\s+\w+|you|someone|they)\s+(?:says?|said|claims?|claimed|thinks?|thought|wrote|"
    r"writes|reported|reports|believes?|told\s+(?:us|me))\s+(?:that\s+)?(?P<x>[^.;,]+?)"
    r"(?:[.;]\s+|,\s+(?:and\s+|but\s+)?(?=(?:which|that|this|she|he|they)\b))"
    r"(?P<verdict>(?:she|he|they|you|that|this|it|which)(?:\s+(?:is|are|was|were)\s+|['’]s\s+)(?:not\s+)?"
    r"(?:wrong|mistaken|incorrect|right|correct|accurate|true|false|not\s+right)|that\s+is\s+not\s+(?:right|true|so))"
    r"\s*(?:[,:;—–-]\s*(?P<more>.*?))?\s*[.!]?$",
    re.I,
)
_WROTE_QUOTE = re.compile(
    r"^(?P<who>[A-Z][\w-]*|the\s+\w+|you|someone)\s+(?:wrote|said|posted|claimed|reported|messaged)\s+[\"“](?P<x>[^\"“”]+)[\"”]"
    r"[^;.]*[;.,]\s*(?P<verdict>(?:that|this|it|which)\s+(?:is|was)\s+(?:not\s+)?(?:accurate|right|correct|true|wrong|"
    r"inaccurate|incorrect|false|mistaken))\s*[.!]?$",
    re.I,
)
_SAID_REPLY = re.compile(
    r"^(?P<who>[A-Z][\w-]*):\s*[\"“](?P<x>[^\"“”]+?)[.!]?[\"”]\.?\s+(?:me|us|reply|answer|we):\s*"
    r"(?P<verdict>correct|right|yes|yep|true|accurate|agreed|confirmed|not\s+quite|no|nope|wrong|incorrect|false|"
    r"not\s+true|not\s+right)\b\s*(?:[,:;—–-]\s*(?P<more>.*?))?\s*[.!]?$",
    re.I,
)
_FALSE_VERDICT = re.compile(r"\b(?:not|wrong|mistaken|incorrect|inaccurate|false|no|nope)\b", re.I)
_VERDICT_AFTER = re.compile(
    r"^(?:that|this|the)\s+(?:quote|claim|message|statement|note|report|line)\b[^:]{0,60}?\b(?:is|was)\s+"
    r"(?:wrong|incorrect|false|inaccurate|mistaken|not\s+(?:right|true|accurate))\s*[:;,—–-]\s*(?P<more>\S.*)$",
    re.I,
)


def negated(clause: str) -> str | None:
    """A plain clause negated at its first auxiliary ("X is still exposed" -> "X is no longer exposed", "X is
    not contained" -> "X is contained"); None when it has no auxiliary to negate."""
    m = re.search(rf"\b(?P<aux>{_AUX_RE}|remains|remain)\b(?P<pred>.*)$", clause, re.I)
    if m is None or m.start() == 0:
        return None
    pred = m.group("pred").strip()
    aux = m.group("aux")
    if aux.lower() in ("remains", "remain"):
        return None
    return f"{clause[: m.start()]}{_join(aux, _negate_predicate(aux, pred))}"


def _subject_of(clause: str) -> str:
    m = re.search(rf"\b(?:{_AUX_RE}|remains|remain)\b", clause, re.I)
    return clause[: m.start()].strip() if m else ""


_PERSONS = _w("i we you they he she someone somebody")
# "we disabled alice's key in AWS": the person, the verb in the past, and what it acted on (before a place or means)
_ACTED_ON = re.compile(
    r"^(?:i|we|you|they|he|she|someone|somebody|[A-Z][\w-]*)\s+(?:\w+ed|cut|set|shut|put|sent|made|took|ran)\s+"
    r"(?P<obj>.+?)(?:\s+(?:in|on|at|for|from|to|with|via|through|inside|outside)\b.*)?$",
    re.I,
)


def _said(x: str, true: bool, more: str) -> str | None:
    """What the writer's verdict on someone's words claims."""
    more = (more or "").strip().rstrip(".")
    if not true and more:
        subject = _subject_of(x)
        if not subject or subject.lower() in _PERSONS:  # "we disabled the key": "it" is what was acted on
            acted = _ACTED_ON.match(x)
            subject = acted.group("obj") if acted else ""
        return re.sub(r"^(?:it|they)\b", subject, more, count=1, flags=re.I) if subject else more
    if not true:
        return negated(x)
    return f"{x}; {more}" if more else x


def _verdicts(text: str) -> str | None:
    m = _WROTE_QUOTE.match(text)
    if m:
        verdict = m.group("verdict").lower()
        true = not re.search(r"\b(?:not|wrong|inaccurate|incorrect|false|mistaken)\b", verdict)
        return _said(m.group("x").strip().rstrip("."), true, "")
    m = _SAID_REPLY.match(text)
    if m:
        true = not _FALSE_VERDICT.search(m.group("verdict"))
        return _said(m.group("x").strip(), true, m.group("more") or "")
    m = _REPORT.match(text)
    if m:
        verdict = m.group("verdict").lower()
        true = not _FALSE_VERDICT.search(verdict.split(None, 1)[1] if " " in verdict else verdict)
        if re.search(r"\bnot\s+(?:wrong|mistaken|incorrect)\b", verdict):
            true = True
        return _said(m.group("x").strip(), true, m.group("more") or "")
    m = _VERDICT_AFTER.match(text)
    if m:
        return m.group("more")
    return None


def _hedges(text: str) -> str | None:
    m = _PUT_AT.search(text)
    if m and m.start() == 0:
        return f"{m.group('x')} is {m.group('v')}"
    m = _HEDGE_LEAD.match(text)
    if m:
        rest = text[m.end() :]
        if m.group("neg"):
            return negated(rest)
        if m.group("open"):
            return "whether " + rest  # the writer does not know: an open question, no claim
        return rest
    tail = _HEDGE_TAIL.search(text)
    if tail:
        return text[: tail.start()] + text[tail.end() :]
    if _HEDGE_MID.search(text) and not re.match(r"\W*(?:if|unless|when|once)\b", text, re.I):
        return _HEDGE_MID.sub(lambda m: m.group("aux") + " ", text)
    return None


def answered(line: str) -> str:
    """The line with a question and its answer, a hedge, a correction's lead-in or a verdict on reported words
    rewritten as the statement it makes (the line as written when there is none, or when it cannot be placed)."""
    if not line.strip() or line.lstrip().startswith("|"):
        return line
    said = _answer(line)
    if said is not None:
        return said
    lead, text = _split_frame(line)
    text, close = _tail(text)
    changed = False
    stripped = _CORRECTION_LEAD.sub("", text)
    if stripped != text:
        text, changed = stripped, True
    for rewrite in (_verdicts, _hedges):
        out = rewrite(text)
        if out is not None:
            text, changed = out, True
    if not changed:
        return line
    text = text.strip()
    if text and text[0].islower() and not re.match(r"\S*[-_\d]", text):
        text = text[0].upper() + text[1:]
    if text and not re.search(r"[.!]$", text):
        text += "."
    return f"{lead}{text}{close}"


_ANSWER_LINE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:[*_]+)?(?:(?:short\s+|quick\s+)?answer|a|reply)\s*:\s*(?:[*_]+\s*)?\S", re.I
)


def joined_answers(lines: list[str]) -> list[str]:
    """Lines with a question on one line and its answer ("A: ...") on the next read as one: the statement on the
    answer's line, the question's line left empty (one line per input line, as `normalise` keeps them)."""
    out = list(lines)
    for i in range(len(out) - 1):
        question, answer = out[i], out[i + 1]
        if question.rstrip(" *_").endswith("?") and question.count("?") == 1 and _ANSWER_LINE.match(answer):
            said = _answer(question.rstrip() + " " + answer.strip())
            if said is not None:
                out[i], out[i + 1] = "", said
    return out
