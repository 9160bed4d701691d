"""The checker's gate (blastshield_core/brief/coverage.py): which words of a sentence it accounts for."""

from __future__ import annotations

from blastshield_core.brief.coverage import CLOSED_CLASS, LEXICON, PAIRS, about_alert, strangers, units_of
from blastshield_core.brief.known_words import VOCABULARY

IDS = {"route-c11-primary": "route", "payments-vault": "asset", "alice": "node"}


def id_kind(token: str) -> str | None:
    return IDS.get(token)


def test_ids_numbers_and_marks_are_classes_not_words():
    """Ids (known, or with digits, underscores, colons or inner hyphens), numbers and number words are classes;
    colons, dashes and quote marks are units of their own; contractions and hyphenated words split."""
    assert units_of("route-c11-primary — open: two paths", id_kind) == ["<id>", "—", "open", ":", "<n>", "paths"]
    assert units_of("alice holds 40% of developer_07's keys", id_kind) == ["<id>", "holds", "<n>", "of", "<id>", "keys"]
    assert units_of("alice", None) == ["alice"] and units_of("alice", id_kind) == ["<id>"]
    assert units_of("It isn't over", None) == ["it", "isn", "over"]


def test_pairs_are_the_neighbours_of_negations_quantifiers_numbers_and_marks():
    assert units_of("alice holds no grant", id_kind, pairs=True) == [
        "<id>", "holds", "no", "grant", "holds no", "no grant",
    ]  # fmt: skip
    assert units_of("alice holds the grant", id_kind, pairs=True) == units_of("alice holds the grant", id_kind)


def test_a_sentence_is_judged_only_in_words_the_checker_accounts_for():
    """A word outside the vocabulary is a stranger; pairs are checked only when the vocabulary says so."""
    known = CLOSED_CLASS | LEXICON
    assert strangers("The alert is not contained.", known, id_kind) == []
    assert strangers("route-c11-primary zigzags past payments-vault", known, id_kind) == ["zigzags", "past"]
    assert strangers("alice holds no grant", known | {"holds", "grant"}, id_kind) == []
    assert strangers("alice holds no grant", known | {"holds", "grant", PAIRS}, id_kind) == ["holds no", "no grant"]


def test_only_sentences_about_the_alert_are_unverified_for_want_of_a_reading():
    assert about_alert("route-c11-primary crosses it", id_kind)
    assert about_alert("Two of them cross", id_kind)
    assert about_alert("the paths cross", id_kind)
    assert not about_alert("Remediation theatre, arguably", id_kind)


def test_the_kept_vocabulary_holds_the_closed_class_and_the_grammars_lexicon():
    """The learned vocabulary adds words; the closed-class words and the lexicon stay accounted for."""
    assert CLOSED_CLASS <= VOCABULARY and LEXICON <= VOCABULARY and len(VOCABULARY) > len(CLOSED_CLASS | LEXICON)


def test_an_access_key_id_is_an_id_whether_or_not_its_random_part_holds_a_digit():
    # IAM User Guide, "Understanding unique ID prefixes": AKIA (access key), ASIA (temporary key).
    from blastshield_core.brief.coverage import ID, units_of

    for key in ("AKIARZPUZDIKEYYPQUCX", "AKIARZPUZDIKEYYP24UC", "ASIAABCDEFGHIJKLMNOP"):
        assert units_of(f"alice's access key {key} is still Active")[3] == ID, key
    assert units_of("AKIAWORD is a word")[0] != ID


def test_a_clock_or_a_calendar_is_no_stranger():
    """When a line was written ("09:07 UTC", "Mon 5 Dec", "10:25 pm") does not hold back its verdict; a relative time
    that moves the claim into the past ("yesterday") still does."""
    known = CLOSED_CLASS | LEXICON
    assert strangers("09:07 UTC route-c11-primary blocked", known, id_kind) == []
    assert strangers("Mon 5 Dec, 10:25 pm, route-c11-primary blocked", known, id_kind) == []
    assert strangers("yesterday route-c11-primary blocked", known, id_kind) == ["yesterday"]
