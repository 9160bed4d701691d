"""Untrusted text stays text: escaping data for Markdown and disarming Markdown from data or the model.

Names, titles, property values, signals, reasons and exception texts come from imported documents
or from the model. Rendered as Markdown, `[Re-authenticate](https://…)` becomes a phishing link and
`![x](https://…/pixel.png)` a beacon. Two functions, both pure:

- `md_text(s)`: one data string to put inside Markdown: every character that could start Markdown
  syntax is backslash-escaped and line breaks become spaces, so it reads exactly as written.
- `safe_markdown(md)`: a whole Markdown document (a briefing, a report, the model's prose) keeps
  its formatting (headings, lists, emphasis, code) but can form no link, image, autolink, raw HTML
  or formula: `[`, `]`, `<` and `$` outside code are escaped.

Neither lets a control character or a bidirectional override through: an ESC, a bell or a
right-to-left override (U+202E, which reorders what follows it on screen) in a name is shown as a
visible escape (`\\x1b`, `\\u202e`), as the command line shows it (`show_unsafe`).

Both break the bare-URL and e-mail autolinks of GitHub-flavoured Markdown (which are found in the
decoded text, so escaping alone does not stop them) with an invisible word joiner (U+2060) after
`scheme:`, `www` and `@`.
"""

from __future__ import annotations

import re

__all__ = ["UNSAFE_CHARACTERS", "WORD_JOINER", "md_code", "md_text", "safe_markdown", "show_unsafe", "visible_escape"]

WORD_JOINER = "\u2060"

# Every ASCII punctuation character may be backslash-escaped in CommonMark; these can start syntax.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:&^=\"'])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]+")
# GFM autolink literals: a scheme's `:` before `//`, `www.` and an e-mail's `@` (each possibly escaped).
_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9])(\\?:)(?=(?:\\?/){2})|\b(www)(?=\\?\.)|(\\?@)(?!\u2060)")
# Outside of what a data string can hold, these are the only ways into a link, an image, raw HTML,
# a character reference (`&#58;` decodes before autolinking) or a formula.
_NEUTRALISE = re.compile(r"\\.|[\[\]<$&]")
# C0 and C1 controls (but tab and newline) and DEL, and the Unicode bidirectional formatting characters.
UNSAFE_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible_escape(found: re.Match[str]) -> str:
    """A matched character as `\\xNN` or `\\uNNNN`."""
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def show_unsafe(text: str) -> str:
    """`text` with every control and bidirectional character but newline and tab shown as an escape."""
    return UNSAFE_CHARACTERS.sub(visible_escape, text)


def _break_autolinks(text: str) -> str:
    return _AUTOLINK.sub(lambda m: next(g for g in m.groups() if g) + WORD_JOINER, text)


def _one_line(value: object, limit: int | None) -> str:
    text = show_unsafe(_LINE_BREAKS.sub(" ", str(value)))
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + "…"
    return text


def md_text(value: object, *, limit: int | None = None) -> str:
    """`value` as Markdown that renders as exactly that text: no syntax, no link, one line."""
    return _MD_SPECIAL.sub(r"\\\1", _break_autolinks(_one_line(value, limit)))


def md_code(value: object, *, limit: int | None = None) -> str:
    """`value` as an inline code span (monospace, never a link), one line."""
    text = _one_line(value, limit)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def safe_markdown(markdown: str) -> str:
    """`markdown` with its formatting kept and every link, image, autolink, raw HTML and formula disarmed.

    Code is not exempt: a backtick run that looks like a code span may not be one (an escaped
    backtick, a fence that a list ends), so escaping everywhere is the only reading that cannot
    be fooled; inside real code the escape shows as a backslash.
    """
    text = show_unsafe(markdown.replace("\r\n", "\n"))
    escaped = _NEUTRALISE.sub(lambda m: m.group(0) if m.group(0).startswith("\\") else "\\" + m.group(0), text)
    return _break_autolinks(escaped)
