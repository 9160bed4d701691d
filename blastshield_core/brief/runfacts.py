"""Reading the run as a source of facts: what a sentence says about the containment run.

A briefing speaks of the run it was written after: how it ended ("the run stopped", "ended graph_only",
"Verdict: stopped", "⚠️ Stopped (action cap reached)"), why ("because it reached its action cap", "the
action cap was not what ended the run"), how much it did ("the run took two actions", "2 blocks were
applied"), what it acted on ("X was not touched by the run", "the run also blocked X", "no action targeted
X"), whether there was one at all ("no containment run has been made yet"), its decider and its cap. Each is
a fact of the run record (`RunSummary`: its state, reason, cap and actions), read here by subject,
predicate, quantity and negation rather than by phrase, and judged in `runclaims.py`.

A clause is read only when the run (or one of its actions, or its cap) is what it speaks of; the
reader never reads a clause under a condition, a modal or a question (those are no claim), and it reports
the clauses it read so the prose grammar's reading of them (`prose.py`, which takes "Verdict: stopped" for a
containment claim) gives way to it. The text is the grammar's: normalised, markup stripped, names as ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .lexicon import number_value

__all__ = [
    "NUM",
    "PLANNED",
    "RUN_STATES",
    "IdKind",
    "RunFact",
    "RunReading",
    "read_run_facts",
    "state_value",
    "taken_by",
]

IdKind = Callable[[str], str | None]

RUN_STATES = ("running", "completed", "stopped", "graph_only", "failed", "interrupted", "abandoned")


@dataclass(frozen=True)
class RunFact:
    """One fact a clause states about the run.

    kind: `state` (word: a run state), `exists` (a run was made), `cap_hit` (the action cap ended it), `cap`
    (number: the cap), `actions` (word: action | block, number: how many), `cut` (number of the paths, whole:
    of how many), `start` (number: the paths it started with), `left` (number: the paths open when it
    ended), `step` (word: which action, "first" or "last"; number, whole: the paths before and after it),
    `target` (word: touched | blocked, target: the id), `unverified_action` (an action could not be
    verified), `all_verified` (every action was), `decider` (word: its name), `no_candidate` (it stopped
    with nothing left to choose from). `negated`: the clause denies it."""

    kind: str
    word: str = ""
    number: int | None = None
    whole: int | None = None
    target: str = ""
    negated: bool = False


@dataclass(frozen=True)
class RunReading:
    """A clause read as facts about the run, and the words the reading did not use (held to the gate)."""

    clause: str
    facts: tuple[RunFact, ...]
    rest: str


_SPLIT = re.compile(
    r";\s*|,?\s+(?:but|because(?!\s+of)|and\s+so|so(?!\s+far\b)|while|whereas)\s+|,\s+(?:and\s+)?|\s+[—–]\s+|"
    r"\s+-\s+"
)
_PAREN = re.compile(r"\s*\(([^()]*)\)")
_NUM = (
    r"(\d{1,3}|zero|no|one|two|three|four|five|six|seven|eight|nine|ten|a\s+single|single|a\s+pair\s+of|"
    r"a\s+couple\s+of|both)"
)
_NEG = re.compile(r"\b(?:not|never|no|none|neither|nor|without|nothing|nobody)\b|n't\b")
_QUIET = re.compile(
    r"\b(?:if|unless|until|whether|would|could(?!\s+not\b)|might|may|should|must|shall|will|suppose|assuming|"
    r"(?:once|when|whenever)\b(?![^,.;]*\b(?:was|were|had|did|began|started|ran|hit|stopped|halted|ended)\b)|"
    r"lest|ought|plan|plans|planning|intend|recommend|recommended|consider|next|suggest|suggested|suggests|"
    r"proposed|proposes|propose|candidate|candidates|(?:you|we|they|analysts?|one)\s+can)\b|\?"
)
# The subject: the run (any containment run, the response, the playbook's run), one of its actions or its cap.
_RUN = re.compile(
    r"(?<![\w-])(?<!\bto\s)(?<!\bcan\s)(?<!\bwill\s)(?:(?:containment|response)\s+)?runs?\b"
    r"(?!\s+(?:through|via|over|across|along|from|to|as|into|past|by|the|a|an|it|another|containment|again)\b)|"
    r"\bcontainment\s+(?:(?:was|has|had)\s+(?:not\s+|never\s+|yet\s+)*(?:been\s+)?)?attempt(?:ed|s)?\b"
)
# What follows a transitive "stopped": its object ("stopped the exposure", "halted all access", "stopped alice").
_OBJECT = re.compile(
    r"\s+(?:the|a|an|its|their|all|every|any|each|this|that|these|those|both|access|exposure|attacks?|attackers?|"
    r"paths?|lateral|further|one|two|three|four|five|\d+|[a-z0-9]+[-_:][\w:-]*)\b"
)
# The time a run starts from: "before the run", "at the start of the run", "when the run began".
_AT_START = re.compile(
    r"\b(?:before\s+the\s+(?:containment\s+|response\s+)?run|at\s+the\s+(?:run'?s\s+)?start(?:\s+of\s+the\s+run)?|"
    r"when\s+the\s+(?:containment\s+|response\s+)?run\s+(?:began|started|opened))\b"
)
# Another run than the one checked: "the earlier run", "a previous run", "another run", "the next run".
_OTHER_RUN = re.compile(
    r"\b(?:earlier|previous|prior|another|other|next|new|later|second|future|further|older|last)\s+"
    r"(?:(?:containment|response)\s+)?runs?\b"
)
# "this one" beside another run ("the earlier run completed, but this one stopped") is the run; "another one" is not.
_OTHER_ONE = re.compile(r"\b(?:earlier|previous|prior|another|other|next|new|later|older|last|first)\s+one\b")
# What someone said, taken back in the same sentence ("earlier I said the run completed; actually it stopped").
_SAID = re.compile(
    r"\b(?:i|we|you|they|someone|the\s+\w+)\s+(?:had\s+)?(?:said|wrote|reported|claimed|thought|stated|assumed)\b"
)
_RETRACTED = re.compile(
    r"\b(?:actually|in\s+fact|correction|i\s+was\s+wrong|we\s+were\s+wrong|mistaken|not\s+so|that\s+was\s+wrong)\b"
)
_DECIDER = re.compile(r"\b(?:decider|playbook)\b")
_CAP_OF = re.compile(r"\b(?:cap|capped|limit|budget|max(?:imum)?)\s+(?:(?:of|at|was|is|to)\s+)?$")
_BOUND = re.compile(r"\b(?:at\s+least|at\s+most|more\s+than|fewer\s+than|less\s+than|over|under|up\s+to)\s+$")
_ACTION_NOUN = re.compile(r"\b(?:actions?|blocks?|steps?)\b")
_CAP = re.compile(
    r"\b(?:action\s+)?(?:cap|limit|budget)\b|\bcapped\b|\bmax(?:imum)?[_\s]+actions\b|\bmaximum\s+number\s+of\s+actions\b"
)
_STATE_WORD = re.compile(
    r"\b(completed|complete|succeeded|successful|stopped|halted|failed|graph[\s_-]*only|interrupted|abandoned|"
    r"running|ongoing|in\s+progress|under\s+way)\b"
)
_STATE_OF = {
    "completed": "completed",
    "complete": "completed",
    "succeeded": "completed",
    "successful": "completed",
    "stopped": "stopped",
    "halted": "stopped",
    "failed": "failed",
    "interrupted": "interrupted",
    "abandoned": "abandoned",
    "running": "running",
    "ongoing": "running",
    "in progress": "running",
    "under way": "running",
}
# "Verdict: stopped", "Outcome of the run: stopped", "the run's final state is stopped": a key naming a state.
_STATE_KEY = re.compile(
    r"\b(?:final\s+)?(?:state|status|verdict|outcome|result|run)\b(?:\s+of\s+(?:the\s+)?(?:containment\s+)?run)?"
    r"\s*(?:is|was|:|=|reads|read)\s*(?:now\s+)?[`\"“*]*(\w[\w\s-]*?)[`\"”*]*\s*$"
)
# "ended (as|in|with) graph_only", "ended up stopped", "ended in the graph only"
_ENDED = re.compile(
    r"\b(?:ended|ends|finished|concluded|closed|terminated|came\s+to\s+an\s+end|wound\s+up|"
    r"(?<=\bnot\s)(?:end|finish|conclude))\s+(?:up\s+)?(?:as\s+|in\s+(?:the\s+)?"
    r"(?:state\s+)?|with\s+(?:the\s+)?(?:state\s+|verdict\s+|status\s+)?)?[`\"“]?(\w[\w-]*(?:\s+only)?)"
)
_PLANNED = re.compile(r"\bplanned\s+in\s+the\s+graph\b|\bin\s+the\s+graph\s+only\b|\bgraph[\s_-]+only\b")
# What the run did to something, as a verb in the past ("blocked", "touched") or after "did" ("did not block").
_TARGET_VERB = re.compile(
    r"\b(touched|untouched|targeted|blocked|acted\s+on|aimed\s+at|left\s+alone|spared)\b|"
    r"\b(?:did|does|do)\s+(?:not\s+|never\s+)?(touch|target|block|act\s+on)\b|"
    r"\b(?:in|by|after|without)\s+(blocking|touching|targeting)\b|"
    r"\b(action|block)s?,?\s+(?:on|against|of)\b"
)
_CAP_HIT = re.compile(
    r"\b(?:reach(?:ed|es|ing)?|hit(?:s|ting)?|exhaust(?:ed|s|ing)?|used\s+up|ran\s+into|r[ua]n\s+out|"
    r"at\s+(?:its|the)\s+(?:action\s+)?cap|end|ended|ends|stop|stopped|halt|halted|what\s+ended)\b"
)


def state_value(word: str) -> str | None:
    w = re.sub(r"\s+", " ", word.lower().strip())
    if re.fullmatch(r"graph[\s_-]*only", w):
        return "graph_only"
    return _STATE_OF.get(w)


def _negated(text: str) -> bool:
    return len(_NEG.findall(text)) % 2 == 1


def _cut(text: str, span: tuple[int, int]) -> str:
    return text[: span[0]] + " " + text[span[1] :]


class _Clause:
    """One clause's reading: the facts found and the text left over."""

    def __init__(self, raw: str, run_named: bool, id_kind: IdKind):
        self.raw = raw.strip(" .!")
        self.low = self.raw.lower()
        self.rest = self.raw
        self.facts: list[RunFact] = []
        self.run_named = run_named  # the run is the sentence's subject (an earlier clause named it)
        self.id_kind = id_kind

    def use(self, m: re.Match[str]) -> None:
        """The words of a match are the reading's: they are not held to the gate."""
        start = self.rest.lower().find(m.group(0))
        if start >= 0:
            self.rest = _cut(self.rest, (start, start + len(m.group(0))))

    def add(self, fact: RunFact) -> None:
        if fact not in self.facts:
            self.facts.append(fact)

    # -- readers ---------------------------------------------------------------------------------
    def read(self, status_line: bool) -> None:
        subject = _RUN.search(self.low) or _DECIDER.search(self.low)
        about_run = bool(subject) or self.run_named or status_line
        self.state(about_run, status_line)
        self.cap()
        if about_run or _ACTION_NOUN.search(self.low):
            self.actions(about_run)
            self.targets(about_run)
        if about_run:
            self.existence()
            self.decider()
            self.out_of_candidates()
        if self.facts and subject is not None:
            self.use(subject)  # "the response run", "containment was attempted": the subject is the reading's

    def state(self, about_run: bool, status_line: bool) -> None:
        low = self.low
        key = _STATE_KEY.search(low)
        if key is not None:
            value = state_value(key.group(1))
            head = low[: key.start()]
            whose = about_run or not re.search(r"\w", head)  # "Verdict: stopped": a heading about the run
            run_only = value is not None and value != "completed"
            if value is not None and whose and (about_run or run_only or status_line):
                self.add(RunFact("state", value, negated=_negated(head)))
                self.use(key)
                return
        if status_line:  # "Stopped (action cap reached)": the line opens with the run's state
            m = re.match(r"[^\w(]*(not\s+)?(stopped|halted|failed|graph[\s_-]*only|interrupted|abandoned)\b", low)
            if m:  # "❌ Stopped" (read as "not Stopped"): its negation
                self.add(RunFact("state", state_value(m.group(2)) or "", negated=bool(m.group(1))))
                self.use(m)
                return
        if not about_run:
            return
        m = re.search(
            r"\b(?:ended|finished|concluded|closed)\s+with\s+(?:the\s+)?(?:alert|exposure|incident)\s+(?:still\s+|now\s+)?"
            r"(contained|exposed|open)\b",
            low,
        )
        if m:  # "ended with the alert contained": it completed
            self.add(RunFact("state", "completed", negated=_negated(low[: m.start()]) != (m.group(1) != "contained")))
            self.use(m)
            return
        m = _ENDED.search(low)
        if m and state_value(m.group(1)):
            self.add(RunFact("state", state_value(m.group(1)) or "", negated=_negated(low[: m.start()])))
            self.use(m)
            return
        subject = _RUN.search(low)
        for verb in _STATE_WORD.finditer(low, subject.end() if subject else 0):
            if re.search(r"\bcontained|containing|paths?\b", low[: verb.start()]):
                break
            value = state_value(verb.group(1))
            after_subject = subject.end() if subject else 0
            pronouns = [it.end() for it in re.finditer(r"\bit\b", low[: verb.start()])]
            between = low[max([after_subject, *pronouns]) : verb.start()]  # "... before it halted": from "it"
            if value is None or len(between.split()) > 4:
                break
            after = low[verb.end() :]
            if _OBJECT.match(after) or re.match(r"\s+(?:to\s+\w+|in\s+\w+ing)\b", after):
                continue  # "stopped the exposure", "completed two actions", "failed to block X": not the run's end
            # its auxiliary ("did not", "has never") and what comes before the subject ("Never did the run")
            aux = " ".join(between.split()[-2:])
            negated = _negated(aux) != (_negated(low[: subject.start()]) if subject else False)
            if value == "completed" and re.search(r"\bin\s+the\s+graph\b", low):
                value = "graph_only"  # "completed in the graph": no further than the graph
            short = re.match(
                r"\s+(?:short\s+of|without|before\s+(?:containment|containing|completion|completing|finishing)\b)",
                after,
            )  # "halted before containment": it did not complete; "halted before X could ...": it stopped
            if value == "stopped" and short:  # "stopped short of containment": it did not complete
                value, negated = "completed", not negated
            self.add(RunFact("state", value, negated=negated))
            self.use(verb)
            return
        m = _PLANNED.search(low)
        if m and not _TARGET_VERB.search(low):
            self.add(RunFact("state", "graph_only"))
            self.use(m)

    def cap(self) -> None:
        low = self.low
        m = _CAP.search(low)
        out = re.search(
            r"\b(?:ran|run|runs|running)\s+out\s+of\s+actions\b|\bused\s+(?:up\s+)?all\s+(?:of\s+)?its\s+actions\b", low
        )
        if out is not None:  # "the run ran out of actions": its cap ended it
            self.add(RunFact("cap_hit", negated=_negated(low[: out.start()])))
            self.use(out)
        if m is None:
            return
        self.use(m)
        if self.run_named and re.fullmatch(r"\s*(?:the\s+|its\s+)?(?:action\s+)?(?:cap|limit|budget)\s*", low):
            self.add(RunFact("cap_hit"))  # "Run: halted (cap)": the remark names what ended it
            return
        for word in re.finditer(
            r"\b(?:stop\s+)?reason\s*:|\b(?:because\s+of|due\s+to|owing\s+to|on\s+account\s+of)\b", low
        ):
            self.use(word)  # "Reason: action cap reached", "stopped due to the cap": the cause named
        value = re.search(
            rf"\b(?:cap|limit|budget|max(?:imum)?[_\s]+actions)\s*(?:of|was|is|:|=|at)?\s*{_NUM}\s*(?:actions?)?\b|"
            rf"\b{_NUM}[-\s]action\s+(?:cap|limit|budget)\b|\bcapped\s+at\s+{_NUM}",
            low,
        )
        if value is not None:
            n = number_value(value.group(1) or value.group(2) or value.group(3))
            if n is not None:
                self.add(RunFact("cap", number=n, negated=_negated(low[: value.start()]) and not _CAP_HIT.search(low)))
                self.use(value)
        hit = _CAP_HIT.search(low) or re.search(r"\b(?:because\s+of|due\s+to|owing\s+to|on\s+account\s+of)\b", low)
        if hit is not None:
            before = low[: max(hit.start(), m.start())]
            self.add(RunFact("cap_hit", negated=_negated(before + " " + low[hit.start() : hit.end()])))
            self.use(hit)

    def actions(self, about_run: bool) -> None:
        low = self.low
        m = re.search(
            rf"\b(?:(first|second|third|fourth|fifth|last|only|single|one)\s+)?(?:action|block)\b[^.;]*?\bfrom\s+{_NUM}"
            rf"\s+(?:qualifying\s+|open\s+)?(?:paths?\s+)?(?:down\s+)?to\s+{_NUM}\b",
            low,
        )
        if m is not None and (about_run or m.group(1) or re.match(r"\s*(?:its|the|their)\s", low)):
            before, after = number_value(m.group(2)), number_value(m.group(3))
            if before is not None and after is not None:  # "its first action took the path count from two to one"
                self.add(RunFact("step", m.group(1) or "", before, after, negated=_negated(low[: m.start()])))
                self.use(m)
                return
        m = re.search(
            rf"\b(?:used|took|spent|applied)\s+{_NUM}\s+of\s+(?:its|the|their)\s+{_NUM}\s+(?:allowed\s+|permitted\s+|"
            r"available\s+|possible\s+)?actions\b",
            low,
        )
        m = m or re.search(
            rf"\b{_NUM}\s+(?:out\s+)?of\s+(?:its|the|their)\s+{_NUM}\s+(?:allowed\s+|permitted\s+|available\s+|possible\s+)?"
            r"actions?\s+(?:was|were|got|has\s+been|have\s+been)\s+(?:used|taken|spent|applied)\b",
            low,
        )
        if (
            m is not None
        ):  # "the run used one of its three allowed actions", "one of the three permitted actions was used"
            n, cap = number_value(m.group(1)), number_value(m.group(2))
            if n is not None and cap is not None:
                self.add(RunFact("actions", "action", n, negated=_negated(low[: m.start()])))
                self.add(RunFact("cap", number=cap))
                self.use(m)
                return
        for count in re.finditer(
            rf"\b{_NUM}\s+(?:more\s+|further\s+|route\s+|response\s+|containment\s+)?(?:(verified|[a-z]+ed)\s+)?(actions?|blocks?)\b",
            low,
        ):
            n = 0 if count.group(1) == "no" else number_value(count.group(1))
            least = re.search(r"\bat\s+least\s+$", low[: count.start()])
            if (
                n
                and least
                and re.match(
                    r"\s+(?:was|were|has\s+been|have\s+been)\s+(?:taken|applied|made|performed)\b", low[count.end() :]
                )
            ):
                self.add(RunFact("actions", "at_least", n, negated=_negated(low[: count.start()])))
                self.use(count)  # "at least one action was taken": a lower bound on what it did
                continue
            if n is None or _BOUND.search(low[: count.start()]) or _CAP_OF.search(low[: count.start()]):
                continue  # "at most three actions": a bound it does not read; "a cap of three actions": the cap
            if _TARGET_VERB.search(low, count.end()):
                continue  # "no action targeted X", "one block touched X": what they were aimed at, not how many
            if re.match(r"\s+(?:left|remaining|to\s+spare|in\s+hand)\b", low[count.end() :]):
                if n == 0:  # "no actions left": its cap was spent
                    self.add(RunFact("cap_hit"))
                    self.use(count)
                continue  # what it had left of its cap is not a count of what it did
            if count.group(2) not in (None, "verified"):
                continue  # "two rejected actions": a kind of action the count does not read
            noun = "verified" if count.group(2) else "block" if count.group(3).startswith("block") else "action"
            if not about_run and not re.search(r"\b(?:took|taken|applied|made|performed|were|was)\b", low):
                continue
            self.add(RunFact("actions", noun, n, negated=_negated(low[: count.start()]) if n else False))
            self.use(count)
        m = re.search(
            rf"\b(?:cut|severed|closed|removed|eliminated|blocked)\s+{_NUM}(?:\s+(?:of|out\s+of)\s+(?:the\s+|its\s+)?{_NUM})?"
            r"\s+(?:qualifying\s+|open\s+|starting\s+|original\s+|attack\s+)?paths?\b(?:\s*,?\s*(\d{1,3})\s*%(?!\w))?",
            low,
        )
        if m is not None and about_run:  # "the run cut two of the three paths it started with (67%)"
            n = 0 if m.group(1) == "no" else number_value(m.group(1))
            whole = number_value(m.group(2)) if m.group(2) else None
            if n is not None and not _BOUND.search(low[: m.start()]):
                negated = _negated(low[: m.start()])
                self.add(RunFact("cut", number=n, whole=whole, negated=negated))
                if m.group(3) is not None:  # the share of the paths it cut, as a percentage
                    self.add(RunFact("cut_share", number=int(m.group(3)), negated=negated))
                self.use(m)
        m = re.search(
            r"\b(?:changed|achieved|accomplished|fixed|closed|cut)\s+nothing\b|\bmade\s+no\s+(?:difference|change)\b",
            low,
        )
        on_account = re.search(r"\b(?:aws|account|iam|keys?|credentials?|polic(?:y|ies))\b", low)
        if m and about_run and not on_account and not any(f.kind == "cut" for f in self.facts):  # "it changed nothing"
            self.add(RunFact("cut", number=0, negated=_negated(low[: m.start()])))
            self.use(m)
        m = re.search(
            rf"\b(actions?|blocks?)(?:\s+(?:taken|applied|made|performed|in\s+total))?\s*(?::|=)\s*(?:{_NUM}|(none))"
            r"(?:\s+(?:so\s+far|yet))?\s*$",
            low,
        )
        if m is not None:  # "Actions taken: 2"
            n = 0 if m.group(2) in ("no", None) else number_value(m.group(2))
            if n is not None:  # "Actions taken: none so far": no action
                self.add(RunFact("actions", "block" if m.group(1).startswith("block") else "action", n))
                self.use(m)
        m = re.search(
            rf"\bblocked\s+{_NUM}\s+(?:session\s+)?routes?\b|"
            rf"\b{_NUM}\s+(?:session\s+)?routes?\s+(?:was|were|got|has\s+been|have\s+been)\s+blocked\b",
            low,
        )
        if m is not None and about_run:
            n = number_value(m.group(1) or m.group(2))
            if n is not None:
                self.add(RunFact("actions", "block", n, negated=_negated(low[: m.start()])))
                self.use(m)
        m = re.search(
            r"\b(?:nothing|no\s+(?:session\s+)?routes?|not\s+a\s+(?:single\s+)?(?:session\s+)?route)\s+(?:was|were|got|"
            r"has\s+been|have\s+been)\s+blocked\b|\bblocked\s+(?:nothing|no\s+(?:session\s+)?routes?)\b",
            low,
        )
        if m is not None and about_run:  # "nothing was blocked by the run": no block
            self.add(RunFact("actions", "block", 0))
            self.use(m)
        m = re.search(
            r"\b(?:every|all|each)\s+(?:one\s+)?(?:of\s+)?(?:the\s+run'?s\s+|its\s+|the\s+)?(?:actions?|blocks?)\b.*?\b(?:was|were)\s+"
            r"(not\s+)?verified\b|\b(?:action|block)s?\b.*\b(?:was|were)\s+(?:all\s+)?(not\s+)?verified\b",
            low,
        )
        if m is not None and not re.search(
            r"\bcould\s+not|\bat\s+least\b|\bsome\b|(?<!every\s)(?<!each\s)\bone\b", low
        ):
            self.add(RunFact("all_verified", negated=_negated(low[: m.end()])))
            self.use(m)
        m = re.search(
            rf"\b(?:with|leaving|left)\s+{_NUM}\s+(?:qualifying\s+)?paths?\s+(?:still\s+)?(?:open|remaining|left|live|"
            r"active|standing|in\s+place)\b",
            low,
        )
        m = m or re.search(
            rf"^\W*(?:and\s+)?{_NUM}\s+(?:qualifying\s+|open\s+)?(?:paths?\s+)?(?:is|are|remains?|stays?)\s+(?:still\s+)?"
            r"open\s+after\s+(?:it|the\s+(?:containment\s+|response\s+)?run)\b",
            low,
        )
        if m is not None and about_run:  # "the run stopped with three paths still open", "one is open after it"
            n = 0 if m.group(1) == "no" else number_value(m.group(1))
            if n is not None:
                self.add(RunFact("left", number=n))
                self.use(m)
        m = re.search(
            rf"\b(?:began|started|opened|begun)\s+(?:with|from|at)\s+{_NUM}\s+(?:qualifying\s+|open\s+)?paths?\b", low
        )
        if m is not None and about_run:  # "the run began with two qualifying paths"
            n = number_value(m.group(1))
            if n is not None:
                self.add(RunFact("start", number=n, negated=_negated(low[: m.start()])))
                self.use(m)
        if re.search(r"\b(?:action|block)s?\b.*\b(?:could|can|was|were)\s+not\s+(?:be\s+)?verified\b", low):
            self.add(RunFact("unverified_action"))
            self.rest = re.sub(r"\b(?:could|can|was|were)\s+not\s+(?:be\s+)?verified\b", " ", self.rest, flags=re.I)

    def targets(self, about_run: bool) -> None:
        ids = [t for t in re.findall(r"[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9]", self.raw) if self._target(t)]
        found = list(_TARGET_VERB.finditer(self.low))
        verb = next((v for v in found if v.group(4) is None), found[0] if found else None)  # a verb before a noun
        if not ids or verb is None:
            return
        word = verb.group(1) or verb.group(2) or verb.group(3) or verb.group(4)
        acted = "blocked" if word.startswith("block") else "touched"
        # the negation before the verb, or in it ("did not block"); "untouched" and "spared" deny it themselves
        negated = _negated(self.low[: verb.end()]) != (word in ("untouched", "left alone", "spared"))
        if not about_run and not re.search(r"\b(?:action|actions|run)\b", self.low):
            return
        for t in ids:
            self.add(RunFact("target", acted, target=t, negated=negated))
            self.rest = self.rest.replace(t, " ")
        self.use(verb)

    def _target(self, token: str) -> bool:
        kind = self.id_kind(token)
        return kind in ("route", "action", "node") or token.startswith("block-route:")  # a session: its route

    def existence(self) -> None:
        low = self.low
        m = re.search(
            r"\b(?:there\s+(?:is|was|has\s+been|have\s+been)\s+)no\s+(?:containment\s+|response\s+)?runs?\b|"
            r"\bno\s+(?:containment\s+|response\s+)?runs?\s+(?:(?:is|are|was|were|has\s+been)\s+)?(?:exists?|yet|so\s+far|"
            r"on\s+record|on\s+file|recorded|logged|found)\b|"
            r"\b(?:no|never\s+a|an?|one|the)\s+(?:containment\s+|response\s+)?run\s+(?:has|had|was|is)\s+"
            r"(?:not\s+|yet\s+|already\s+|ever\s+|never\s+)*(?:been\s+)?(?:made|run(?!\s+out\b)|started|done|attempted|performed|taken\s+place|"
            r"launched|carried\s+out|conducted|executed|triggered)\b|\b(?:was|were|has|had)\s+(?:not\s+|never\s+|yet\s+)*"
            r"(?:been\s+)?attempted\b|\balready\s+ran\b|\bhas\s+(?:already\s+)?(?:been\s+)?run\b|"
            r"\b(?:has|have|had)\s+no\s+(?:containment\s+|response\s+)?runs?\b|"
            r"\b(?:a|an|the|one)\s+(?:\w+\s+)?run\s+(?:has\s+|had\s+)?(?:already\s+)?(?:went|gone|got|been)\s+through\b|"
            r"\b(?:handed|passed|sent|submitted|given)\s+(?:over\s+)?to\s+(?:a|an|the)\s+(?:containment\s+|response\s+)?run\b|"
            r"\b(?:contained|closed|handled|resolved)\s+by\s+(?:a|an)\s+(?:automated\s+|automatic\s+|rules\s+|"
            r"gemini\s+)?(?:containment\s+|response\s+)?run\b",
            low,
        )
        if m is not None:
            self.add(RunFact("exists", negated=_negated(low[: m.end()])))
            self.use(m)

    def out_of_candidates(self) -> None:
        """ "it ran out of routes to block", "had nothing left to block": it stopped with no candidate left."""
        m = re.search(
            r"\b(?:ran|run|runs|running)\s+out\s+of\s+(?:routes?|candidates?|options|sessions?|things)(?:\s+to\s+"
            r"(?:block|cut|choose(?:\s+from)?|act\s+on))?\b|\b(?:had|has|with)\s+(?:nothing|no\s+(?:routes?|candidates?))"
            r"\s+(?:left\s+)?to\s+(?:block|cut|choose\s+from|act\s+on)\b",
            self.low,
        )
        if m is not None and not any(f.kind == "cap_hit" and not f.negated for f in self.facts):
            self.add(RunFact("no_candidate", negated=_negated(self.low[: m.start()])))
            self.use(m)

    def decider(self) -> None:
        m = re.search(r"\b(rules|gemini|analyst)\s+(?:decider|playbook)\b|\bdecider\s*(?::|is|was)\s*(\w+)", self.low)
        if m is not None:
            self.add(RunFact("decider", m.group(1) or m.group(2), negated=_negated(self.low[: m.start()])))
            self.use(m)


def asks_about_run(question: str) -> bool:
    """Whether a question asks about the run ("did the run finish?", "has anyone run containment on X?"): the
    answer after it speaks of the run ("no, it stopped")."""
    low = question.lower()
    return bool(_RUN.search(low) or re.search(r"\b(?:run|ran)\s+(?:the\s+)?containment\b", low))


def is_answer(sentence: str) -> bool:
    """Whether a sentence opens as the answer to a question before it ("yes, ...", "no, it stopped")."""
    return bool(re.match(r"\W*(?:a:\s*)?(?:yes|no|nope|yep|not|it|correct|indeed)\b", sentence, re.I))


_HOW_MANY = re.compile(
    r"(?:[^:?]*:\s*)?\W*how\s+many\s+(?:qualifying\s+|open\s+)?(paths?|actions?)\s+did\s+(?:we|it|the\s+(?:containment\s+)?run)\s+"
    r"(start\s+with|begin\s+with|take|apply)\W*$"
)
_LEFT_NOW = re.compile(
    rf"^{_NUM}\s+(?:qualifying\s+|open\s+)?(?:paths?\s+)?(?:left|remaining|remain|still\s+open|open)"
    r"(?:\s+(?:now|today|after\s+the\s+run))?(?:\s+in\s+the\s+graph)?\W*$"
)


_DID_ANYTHING = re.compile(
    r"(?:[^:?]*:\s*)?\W*(?:did|has)\s+(?:a|the|any|this)\s+(?:containment\s+|response\s+)?run\s+"
    r"(block|cut|close|sever)(?:ed)?\s+(?:anything|any\s+routes?|any\s+paths?)\b([^?]*?)\W*$"
)
_PAST = {"block": "blocked", "cut": "cut", "close": "closed", "sever": "severed"}


def answer_in_full(question: str, answer: str) -> list[str]:
    """A bare count answering "how many paths did we start with?" or "how many actions did it take?", as the
    sentences it stands for ("two; 1 left now": two paths before the run, one left after it); none otherwise."""
    did = _DID_ANYTHING.match(question.lower())
    yes = re.fullmatch(rf"\W*(?:a:\s*)?(?:yes|yep|indeed),?\s+{_NUM}\s+(routes?|paths?)\W*", answer.lower())
    if did is not None and yes is not None:  # "did a run block anything for X? yes, one route"
        return [f"The run {_PAST[did.group(1)]} {yes.group(1)} {yes.group(2)}{did.group(2)}."]
    asked = _HOW_MANY.match(question.lower())
    parts = [p.strip(" .!") for p in re.split(r"[;,]", answer.lower())]
    told = re.fullmatch(rf"\W*(?:a:\s*)?{_NUM}", parts[0]) if asked else None
    if asked is None or told is None or len(parts) > 2:
        return []
    start = asked.group(1).startswith("path") and asked.group(2) in ("start with", "begin with")
    if not start and asked.group(1).startswith("path"):
        return []
    out = [
        f"Before the run, the alert had {told.group(1)} paths." if start else f"The run took {told.group(1)} actions."
    ]
    if len(parts) == 2:
        left = _LEFT_NOW.match(parts[1])
        if left is None:
            return []
        out.append(f"The run left {left.group(1)} paths open.")
    return out


# A subordinate clause of time or purpose after the main one ("was stopped before the alert could be contained"):
# its modal is its own, not the main clause's.
_SUBORDINATE = re.compile(
    r"\s+(?:before|so\s+that|in\s+order\s+to)\s+(?!the\s+(?:containment\s+|response\s+)?run\b).*$"
)


# A status line keyed by the run's state with the alert after it ("✅ Completed: ALERT", "❌ Not completed: ALERT").
_STATE_OF_ALERT = re.compile(
    r"[^\w(]*(not\s+)?(completed|complete|stopped|halted|failed|graph[\s_-]*only|interrupted|abandoned)\s*[:—–-]\s*"
    r"(\S+?)\s*[.!]?\s*$"
)


_OPEN_COUNT = re.compile(rf"\b{_NUM}\s+(?:qualifying\s+|open\s+)?paths?\s+(?:was|were)\s+(?:open|live|active)\b")


def _open_at_start(raw: str) -> RunReading | None:
    """ "Two qualifying paths were open before the run": the paths it started with, read in a clause of its own."""
    low = raw.lower()
    start = _AT_START.search(low)
    count = _OPEN_COUNT.search(low)
    n = None if count is None else 0 if count.group(1) == "no" else number_value(count.group(1))
    if start is None or count is None or n is None or _OTHER_RUN.search(low):
        return None
    rest = raw
    for m in (start, count):
        rest = re.sub(re.escape(m.group(0)), " ", rest, count=1, flags=re.I)
    return RunReading(raw.strip(" .!"), (RunFact("start", number=n, negated=_negated(low[: count.start()])),), rest)


def _main(clause: str) -> str:
    """The clause without a subordinate clause of time or purpose that follows its verb."""
    return _SUBORDINATE.sub("", clause) if re.search(r"\w\s+\w", clause) else clause


def _paren(m: re.Match[str]) -> str:
    """A parenthesis as the reader reads it: a remark after a comma, a number the value before it ("cap (1)"), a
    percentage the share before it ("cut one of two paths (50%)")."""
    inner = m.group(1).strip()
    if inner.isdigit():
        return f" of {inner}"
    return f" {inner}" if re.fullmatch(r"\d{1,3}\s*%", inner) else f", {m.group(1)}"


def read_run_facts(sentence: str, id_kind: IdKind, run_named: bool = False) -> list[RunReading]:
    """The clauses of a sentence that state facts about the run, each with its facts (none when the sentence
    is no claim about the run: a condition, a modal, a question, or no run, action or cap named)."""
    low = sentence.lower()
    if "?" in low:  # a question is no claim; the answer after it is ("did the run finish? no, it stopped")
        question, _, answer = sentence.rpartition("?")
        if not re.search(r"\w", answer) or "?" in question:
            return []
        if full := answer_in_full(question, answer):
            return [RunReading(question.strip(), (), ""), *[r for s in full for r in read_run_facts(s, id_kind)]]
        told = read_run_facts(answer, id_kind, run_named=asks_about_run(question) and is_answer(answer))
        return [RunReading(question.strip(), (), ""), *told] if told else []
    if _OTHER_RUN.search(low) and not _SPLIT.search(low):
        return []  # about another run than this one ("the earlier run completed")
    keyed = _STATE_OF_ALERT.match(low)
    if keyed is not None and id_kind(sentence.strip(" .!")[keyed.start(3) :]) == "alert":
        value = state_value(keyed.group(2)) or ""  # "✅ Completed: ALERT": the state of the alert's run, keyed by it
        return [RunReading(sentence.strip(" .!"), (RunFact("state", value, negated=bool(keyed.group(1))),), "")]
    first = _main(_SPLIT.split(low, maxsplit=1)[0])
    if _QUIET.search(first) and not re.match(r"\W*(?:the|this|its|our)\s+(?:containment\s+|response\s+)?run\b", first):
        return []  # opened by a condition, a plan or a modal: no claim ("If the run had reached its cap, ...")
    status_line = bool(
        re.match(
            r"[^\w(]*(?:not\s+)?(?:stopped|halted|failed|graph[\s_-]*only|interrupted|abandoned)\b\s*[.!]?\s*"
            r"(?:\(|[—–,;-]|$)",
            low,
        )
    )
    if not (
        run_named
        or _RUN.search(low)
        or _DECIDER.search(low)
        or _CAP.search(low)
        or status_line
        or _STATE_KEY.search(low)
        or re.search(r"\b(?:actions?|blocks?)\b", low)
    ):
        return []
    text, previous = re.sub(r"(?<=\w)\(s\)", "s", sentence), ""  # "path(s)"
    while text != previous:  # a parenthesis is a remark, a number in one the value before it ("cap (1)")
        previous, text = (
            text,
            _PAREN.sub(_paren, text),
        )
    start = _AT_START.search(low)
    count = re.search(
        rf"\b(?:had|has|was|were|held|counted|there\s+were)\s+{_NUM}\s+(?:qualifying\s+|open\s+)?paths?\b", low
    )
    parts = [c for c in _SPLIT.split(low) if c.strip()]
    if count is None and len(parts) == 2 and _AT_START.fullmatch(parts[0].strip(" .!")):
        count = _OPEN_COUNT.search(low, max(low.find(parts[1]), 0))  # "Before the run, two qualifying paths were open."
    if start is not None and count is not None and not _OTHER_RUN.search(low):  # "before the run, X had two paths"
        n = 0 if count.group(1) == "no" else number_value(count.group(1))
        if n is not None:
            rest = sentence
            for m in (start, count):
                rest = re.sub(re.escape(m.group(0)), " ", rest, count=1, flags=re.I)
            negated = _negated(low[: count.start()] + " " + low[count.end() :])  # "no paths" is a count, not a denial
            return [RunReading(sentence.strip(" .!"), (RunFact("start", number=n, negated=negated),), rest)]
    if not status_line:  # "Stop reason — the action budget": a short key and its value, as after a colon
        text = re.sub(r"^([^\w]*\w+(?:[\s']+\w+){0,2})\s+[—–]\s+", r"\1: ", text)
    out: list[RunReading] = []
    run_named = run_named or bool(_RUN.search(low)) or status_line  # the run is the subject of its other clauses
    retracted = _RETRACTED.search(low) is not None
    clauses = [c for c in _SPLIT.split(text) if c and c.strip()]
    for n, raw in enumerate(clauses):
        if n > 0 and status_line and re.match(r"[^\w(]*not\s", low):
            if out:  # a denied status: its remark ("❌ Stopped (cap reached)") is not asserted, the line is read
                out[0] = RunReading(sentence.strip(" .!"), out[0].facts, out[0].rest)
            break
        if _QUIET.search(_main(raw.lower())):
            continue  # this clause is no claim ("...; its next action would have blocked X")
        if (
            _OTHER_RUN.search(raw.lower())
            or _OTHER_ONE.search(raw.lower())
            or (retracted and _SAID.search(raw.lower()))
        ):
            out.append(RunReading(raw.strip(" .!"), (), ""))  # another run, or what was said and taken back: no claim
            continue
        if (opened := _open_at_start(raw)) is not None:  # "whereas two paths were open before the run, ..."
            out.append(opened)
            continue
        clause = _Clause(raw, run_named, id_kind)
        clause.read(status_line and n == 0)
        if clause.facts:
            out.append(RunReading(clause.raw, tuple(clause.facts), clause.rest))
    if out and len(out) == len(clauses):  # every clause read: the sentence as the grammar splits it is read too
        out.append(RunReading(sentence.strip(" .!"), (), ""))
    return out


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9](?:[a-z0-9_:@./-]*[a-z0-9])?", text.lower()))


def taken_by(sentence: str, clause: str, readings: dict[str, list[RunReading]], count: bool = False) -> bool:
    """Whether the run reader read this clause of this sentence (the prose grammar's reading of it gives way);
    for a `count` of paths or routes, only when the reader read a number of its own there (actions, paths cut)."""
    mine = readings.get(sentence[:600], [])
    if count and not any(f.kind in ("actions", "cut", "start", "left") for r in mine for f in r.facts):
        return False
    if not mine:
        return False
    theirs = _words(clause)
    if is_answer(clause):  # the reply that opens an answer ("no, it stopped") is no word of the claim
        theirs = re.sub(r"^(?:a:?\s+)?(?:yes|no|nope|yep|correct|indeed)\s+", "", theirs)
    if not theirs:
        return False
    if any(theirs in _words(r.clause) for r in mine):
        return True
    rest = f" {theirs} "  # a clause the grammar read whole, of several the run reader read
    for r in mine:
        rest = rest.replace(f" {_words(r.clause)} ", " ")
    head, comma, _ = clause.partition(",")  # "In summary, the run ended stopped": an opener of a few words
    plain = (
        comma and len(_words(head).split()) <= 3 and not _NEG.search(head.lower()) and not _QUIET.search(head.lower())
    )
    opener = set(_words(head).split()) if plain else set()  # "Not yet, the run ...": a denial, not an opener
    return set(rest.split()) <= _JOINERS | opener


_JOINERS = frozenset(["and", "but", "yet", "so", "because", "while", "whereas", "then"])


NUM, PLANNED = _NUM, _PLANNED  # for the tables of runs (`runtables.py`)
