"""Reported speech: what someone else says, wrote or thinks is their claim, not the briefing's.

"Priya says ALERT is contained. She's wrong, it's still exposed." claims only the second sentence; "You wrote
that the run left ALERT exposed." claims nothing of its own; "Correction to my earlier message: ALERT is not
contained" claims what follows the colon, now (the earlier time is the message's). The speaker is another
person: a capitalised name, a pronoun other than the writer's ("you", "he", "she", "they", "someone") or a role
("the analyst", "a colleague"); the reported clause reads as a quotation, `(quoted)`, as the normaliser writes a
quoted passage (`normalise.py`). A source of evidence ("the fresh query says ...", "the audit shows ...") is not a
speaker, and neither is the writer ("I think X" claims X).
"""

from __future__ import annotations

import re

__all__ = ["unreport"]

_NOT_A_PERSON = r"(?!(?:We|My|It|This|That|There|These|Those|The|A|An|Its|Our|Their|Evidence|Gemini|Rules|Run|Query)\b)"
_REPORTED = re.compile(
    r"(?P<lead>(?:^|(?<=[.!?:]\s))[^\w\n]*(?:" + _NOT_A_PERSON + r"[A-Z][a-z]+|(?i:you|he|she|they|someone|somebody|"
    r"a\s+colleague|the\s+(?:analyst|reporter|requester|on-call|other\s+analyst)))\s+"
    r"(?:says|said|wrote|writes|claims|claimed|thinks|thought|believes|believed|reported|reports|insists|insisted|"
    r"told\s+(?:me|us))\s+(?:that\s+)?)(?!\(quoted\))(?P<claim>[^.!?;\n]+)",
    re.M,
)


# A frame naming an earlier message the line corrects or follows up ("Correction to my earlier message:", "Update on
# our previous note:"): its time is the message's, not the claim's, which is what follows the colon.
_EARLIER_MESSAGE = re.compile(
    r"(?im)^(?P<lead>[^\w\n]*(?:\d{1,3}[.)]\s+)?)(?:correction|update|follow[\s-]?up|amendment|addendum|clarification|re)\b"
    r"\s+(?:to|on|of|about|for)\s+(?:my|our|the|your|his|her|their)\s+(?:earlier|previous|prior|last|first|original)\s+"
    r"(?:message|note|update|post|comment|reply|answer|email|e-mail|report|summary)\s*:\s*"
)


def unreport(text: str) -> str:
    """The text with each clause someone else is reported to have said, written or thought as `(quoted)` (up to the
    end of its sentence or a semicolon; a passage the normaliser already quoted is left as it is)."""
    text = _EARLIER_MESSAGE.sub(lambda m: m.group("lead"), text)  # the frame dropped: the claim stands alone
    return _REPORTED.sub(lambda m: f"{m.group('lead')}(quoted)", text)
