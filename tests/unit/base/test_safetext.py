"""Untrusted text stays text (blastshield_core.base.safetext): escaping data, disarming Markdown."""

from __future__ import annotations

import re

import pytest

from blastshield_core.base.safetext import UNSAFE_CHARACTERS, WORD_JOINER, md_code, md_text, safe_markdown, show_unsafe

HOSTILE = [
    "[Re-authenticate here](https://evil.example/login)",
    "![x](https://evil.example/pixel.png?u=1)",
    "<img src=https://evil.example/i.png onerror=alert(1)>",
    "<script>window.__pwned=1</script>",
    "[click](javascript:alert(1))",
    "<https://evil.example/auto>",
    "https://evil.example/bare and www.evil.example and mail@evil.example",
    "https&#58;//evil.example/entity",
    "[ref]\n\n[ref]: https://evil.example/ref",
    ":red[colour] $\\href{https://evil.example}{x}$",
]


def unescaped(text: str, chars: str) -> list[str]:
    """Characters of `chars` in `text` not preceded by a backslash escape."""
    return [m.group(0) for m in re.finditer(r"\\.|.", text, re.S) if m.group(0) in chars]


@pytest.mark.parametrize("value", HOSTILE)
def test_md_text_escapes_every_syntax_character(value):
    """No Markdown syntax character survives unescaped, and the text is one line."""
    out = md_text(value)
    assert unescaped(out, "[]()<>!*_`#|~$&:") == []
    assert "\n" not in out


@pytest.mark.parametrize("value", HOSTILE)
def test_safe_markdown_leaves_no_link_syntax(value):
    """No bracket, angle bracket, dollar or ampersand is left unescaped."""
    assert unescaped(safe_markdown(value), "[]<$&") == []


@pytest.mark.parametrize(
    ("value", "broken"),
    [("see https://evil.example/x", f"https:{WORD_JOINER}//"), ("www.evil.example", f"www{WORD_JOINER}."),
     ("mail@evil.example", f"@{WORD_JOINER}e"), ("https:\\/\\/evil.example", f":{WORD_JOINER}\\/")],
)  # fmt: skip
def test_bare_urls_and_emails_cannot_autolink(value, broken):
    """A scheme's colon, `www` and `@` get a word joiner so no autolink literal can match."""
    assert broken in safe_markdown(value)
    assert broken.replace("\\", "") in md_text(value).replace("\\", "")


def test_safe_markdown_keeps_formatting():
    """Headings, emphasis, lists and code spans are left as they were."""
    prose = "## Alert\n\n- **score** 35, *medium*\n- path `a` -> `b`\n\n1. one"
    assert safe_markdown(prose) == prose


def test_safe_markdown_is_stable_when_applied_twice():
    """Disarming disarmed text changes nothing more."""
    once = safe_markdown(" ".join(HOSTILE))
    assert safe_markdown(once) == once


def test_safe_markdown_keeps_escaped_text_escaped():
    """An escaped backslash before a bracket cannot re-open the bracket."""
    assert safe_markdown("\\\\[x](https://e.example)").startswith("\\\\\\[x\\]")


def test_md_text_limit_and_control_characters():
    """Long values are cut with an ellipsis; control characters are shown as visible escapes."""
    assert md_text("a" * 50, limit=10) == "a" * 9 + "…"
    assert md_text("a\x00b\x1bc") == "a\\\\x00b\\\\x1bc"  # Markdown `a\\x00b…`: renders `a\x00b\x1bc`


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("\x1b[2Jcleared", "\\x1b[2Jcleared"),  # a terminal's clear-screen
        ("\x1b]8;;https://e.example\x07link\x1b]8;;\x07", "\\x1b]8;;https://e.example\\x07link\\x1b]8;;\\x07"),
        ("invoice\u202efdp.exe", "invoice\\u202efdp.exe"),  # right-to-left override: "invoiceexe.pdf" on screen
        ("a\u2066b\u2069c\u200fd", "a\\u2066b\\u2069c\\u200fd"),  # isolates and a mark
        ("\x9b2J\x90", "\\x9b2J\\x90"),  # C1 controls (CSI, DCS)
    ],
)
def test_control_and_bidirectional_characters_are_shown_not_obeyed(value, shown):
    """A name from an export cannot reorder, hide or restyle what a page shows: each control or
    bidirectional formatting character reads as its escape, in data text, code and a whole document."""
    assert show_unsafe(value) == shown
    assert md_code(value).strip("` ") == shown
    assert safe_markdown(value) == safe_markdown(shown)
    for rendered in (md_text(value), md_code(value), safe_markdown(value)):
        assert UNSAFE_CHARACTERS.search(rendered) is None


def test_md_code_holds_backticks():
    """A value with backticks gets a longer fence, so it cannot close the span early."""
    assert md_code("a`b") == "``a`b``"
    assert md_code("`x`") == "`` `x` ``"
