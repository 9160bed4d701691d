"""The fourth round's later held-out sets (2 to 5), each written after the previous measurement, and the whole
family list (tests/helpers/briefing_families.py).
"""

from __future__ import annotations

import itertools

from tests.helpers.briefing_families import Context, Family, Part, both, on_paths, pairs, reaches, words
from tests.helpers.briefing_families_eighth import EIGHTH as EIGHTH_HELD_OUT
from tests.helpers.briefing_families_eleventh import ELEVENTH as ELEVENTH_HELD_OUT
from tests.helpers.briefing_families_fifteenth import FIFTEENTH as FIFTEENTH_HELD_OUT
from tests.helpers.briefing_families_first import FIRST_FAMILIES, FIRST_HELD_OUT, READER_TUNING
from tests.helpers.briefing_families_fourteenth import FOURTEENTH as FOURTEENTH_HELD_OUT
from tests.helpers.briefing_families_ninth import NINTH as NINTH_HELD_OUT
from tests.helpers.briefing_families_runfacts import RUN_FACT_FAMILIES
from tests.helpers.briefing_families_seventh import SEVENTH as SEVENTH_HELD_OUT
from tests.helpers.briefing_families_sixth import SIXTH as SIXTH_HELD_OUT
from tests.helpers.briefing_families_tenth import TENTH as TENTH_HELD_OUT
from tests.helpers.briefing_families_thirteenth import THIRTEENTH as THIRTEENTH_HELD_OUT
from tests.helpers.briefing_families_twelfth import TWELFTH as TWELFTH_HELD_OUT

__all__ = [
    "EIGHTH",
    "ELEVENTH",
    "FAMILIES",
    "FIFTEENTH",
    "FIFTH",
    "FOURTEENTH",
    "FOURTH",
    "HELD_OUT",
    "NINTH",
    "PARTS",
    "SECOND",
    "SEVENTH",
    "SIXTH",
    "TENTH",
    "THIRD",
    "THIRTEENTH",
    "TWELFTH",
]


# -- the second held-out set (written after the first held-out measurement and the changes it led to) ------


def _h2_state_passive(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    e = c.ev.entity_id
    yield from both(
        f"Access from {e} was fully cut off by the run.", f"Access from {e} has not been cut off.", contained
    )
    yield from both(f"{e}'s exposure has ended.", f"{e}'s exposure is ongoing.", contained)


def _h2_state_list_verdict(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    yield from both("- Verdict: **contained**", "- Verdict: **not contained**", contained)
    yield from both("**Outcome:** exposure closed", "**Outcome:** exposure remains", contained)


def _h2_route_either(c: Context):
    for a, b in itertools.combinations([r.route_id for r in c.ev.routes], 2):
        yield f"Either {a} or {b} is still active.", "active" in (c.route_status(a), c.route_status(b))
        yield f"{a} and {b} are both blocked now.", c.route_status(a) == c.route_status(b) == "blocked"


def _h2_route_emoji_list(c: Context):
    for r in c.ev.routes:
        yield from both(f"- {r.route_id}: ✅ blocked", f"- {r.route_id}: ❌ blocked", r.status == "blocked")


def _h2_account_plain(c: Context):
    done = c.account_done("key")
    yield from both(
        f"BlastShield deactivated {c.user}'s access key on the AWS account.",
        f"BlastShield did not deactivate {c.user}'s access key on the AWS account.",
        done,
    )
    yield from both(
        "The user's AWS credentials no longer work.", "The user's AWS credentials still work.", c.account_done("any")
    )


def _h2_run_prose(c: Context):
    if c.run is None:
        return
    done = c.run.state.value == "completed"
    yield "The containment run ended as completed.", done
    yield "The containment run ended as stopped.", c.run.state.value == "stopped"


def _h2_count_phrases(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0)}):
        yield f"There are {words(k)} qualifying paths left.", c.remaining(k)
        yield f"Exactly {words(k)} qualifying paths are still open.", c.remaining(k)


def _h2_link_allowed(c: Context):
    for a, b in pairs(c, "CAN_ASSUME"):
        works = c.edge_works(a, "CAN_ASSUME", b)
        yield from both(f"{a} is allowed to assume {b}.", f"{a} is not allowed to assume {b}.", works)


def _h2_through_every(c: Context):
    n = len(c.live)
    for z in on_paths(c):
        holding = sum(z in p for p in c.live)
        yield f"Every remaining path passes {z}.", n > 0 and holding == n
        yield f"Each qualifying path goes via {z}.", n > 0 and holding == n


def _h2_name_lower(c: Context):
    for i in [a for a in c.ev.assets] + sorted(set(c.ev.cut_off_entities) & set(c.names))[:2]:
        name = c.names.get(i, "")
        if name and name != i:
            yield f"{name.lower()} is still reachable.", c.reachable(i)


def _h2_quote_reported(c: Context):
    yield 'According to the user, "nothing was compromised and the account is safe".', True
    yield f'The ticket for {c.ev.entity_id} says the account "is secure now".', True


def _h2_score_fraction(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 10, max(s - 5, 0)}):
        yield f"The score works out to {v} out of 100.", v == s


# -- the third held-out set (written after the second set's measurement and the changes it led to) ---------


def _h3_state_colloquial(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    e = c.ev.entity_id
    yield from both(f"{e} is locked down now.", f"{e} is still wide open.", contained)
    yield from both("The incident is closed.", "The incident is still open.", contained)


def _h3_table_kv(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1}):
        yield f"| Metric | Value |\n|---|---|\n| Remaining paths | {k} |", c.remaining(k)
    contained = c.contained  # said of neither the graph nor the account
    yield from both(
        "| Check | Result |\n|---|---|\n| Contained | yes |",
        "| Check | Result |\n|---|---|\n| Contained | no |",
        contained,
    )


def _h3_route_past(c: Context):
    for r in c.ev.routes:
        yield from both(f"The run blocked {r.route_id}.", f"{r.route_id} was left open.", r.status == "blocked")


def _h3_route_heading(c: Context):
    for r in c.ev.routes:
        yield from both(f"### {r.route_id}\nBlocked.", f"### {r.route_id}\nActive.", r.status == "blocked")


def _h3_account_iam(c: Context):
    done = c.account_done("key")
    yield from both(
        f"IAM now reports {c.user}'s access key as Inactive.",
        f"IAM still reports {c.user}'s access key as Active.",
        done,
    )


def _h3_account_revocation(c: Context):
    revoked = c.run is not None and any(
        a.operation in ("revoke_role_sessions", "revoke_user_sessions")
        and a.applied is True
        and a.aws is not None
        and a.aws.applied_in_aws
        for a in c.run.actions
    )
    yield from both(
        f"The sessions of {c.user} were revoked in AWS.", f"The sessions of {c.user} were not revoked in AWS.", revoked
    )


def _h3_run_dash(c: Context):
    if c.run is None:
        return
    done = c.run.state.value == "completed"
    yield "Final run status — completed", done
    yield "Final run status — stopped", c.run.state.value == "stopped"


def _h3_count_remaining(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0)}):
        yield f"{words(k).capitalize()} paths still reach high or critical data.", c.remaining(k)


def _h3_link_reads(c: Context):
    for a, b in pairs(c, "CAN_READ"):
        works = c.edge_works(a, "CAN_READ", b) or reaches(c, a, b)
        yield from both(f"{a} has read access to {b}.", f"{a} has no read access to {b}.", works)


def _h3_through_sits(c: Context):
    n = len(c.live)
    for z in on_paths(c):
        yield f"{z} sits on every qualifying path.", n > 0 and all(z in p for p in c.live)


def _h3_name_title(c: Context):
    for i in [a for a in c.ev.assets] + sorted(set(c.ev.cut_off_entities) & set(c.names))[:2]:
        name = c.names.get(i, "")
        if name and name != i:
            yield f"{name.title()} remains exposed.", c.reachable(i)


def _h3_quote_speaker(c: Context):
    yield '> "Everything is contained," the contractor insisted.', True
    yield f'> "{c.ev.entity_id} can no longer reach anything," the user claimed.', True


def _h3_score_percent(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 15}):
        yield f"Risk: {v}%.", v == s


def _h3_hops_phrase(c: Context):
    if not c.ev.paths:
        return
    shortest = min(p.hops for p in c.ev.paths)
    for n in sorted({shortest, shortest + 1}):
        yield f"The shortest route to a critical asset takes {n} hops.", n == shortest


# -- the fourth held-out set (written after the third set's measurement and changes; no change after it) --


def _h4_state_summary(c: Context):
    e = c.ev.entity_id
    yield from both(
        f"Summary: {e} no longer has a route to sensitive data.",
        f"Summary: {e} still has a route to sensitive data.",
        c.contained,  # said of neither the graph nor the account
    )
    yield from both(
        f"As of the fresh query, nothing reaches high or critical data from {e}.",
        f"As of the fresh query, {e} still reaches high or critical data.",
        c.ev.containment_state == "contained",  # what the fresh query of the graph finds
    )


def _h4_route_status_words(c: Context):
    for r in c.ev.routes:
        yield from both(f"{r.route_id} is disabled.", f"{r.route_id} is enabled.", r.status == "blocked")


def _h4_route_table_lock(c: Context):
    head = "| Route | Status |\n|---|---|\n"
    for r in c.ev.routes:
        yield from both(
            head + f"| {r.route_id} | 🔒 blocked |", head + f"| {r.route_id} | 🔓 open |", r.status == "blocked"
        )


def _h4_account_keyword(c: Context):
    done = c.account_done("key")
    yield from both(f"AWS access key for {c.user}: disabled", f"AWS access key for {c.user}: still enabled", done)


def _h4_account_sign_in(c: Context):
    done = c.account_done("credential")
    yield from both(f"{c.user} can no longer sign in to AWS.", f"{c.user} can still sign in to AWS.", done)


def _h4_run_sentence(c: Context):
    if c.run is None:
        return
    state = c.run.state.value
    yield "This run ended with the alert contained.", state == "completed"
    # a graph_only run stopped short of containing the account too
    yield "This run stopped short of containment.", state in ("stopped", "graph_only")


def _h4_count_total(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0)}):
        yield f"In total, {k} qualifying paths are still open.", c.remaining(k)


def _h4_link_able(c: Context):
    for a, b in pairs(c, "CAN_ASSUME"):
        works = c.edge_works(a, "CAN_ASSUME", b)
        yield from both(f"{a} is able to assume {b} directly.", f"{a} is unable to assume {b}.", works)


def _h4_through_routes(c: Context):
    n = len(c.live)
    for r in c.ev.routes:
        holding = sum(
            r.status == "active" and any(p[i] == r.source and p[i + 1] == r.target for i in range(len(p) - 1))
            for p in c.live
        )
        yield f"Every qualifying path uses {r.route_id}.", n > 0 and holding == n
        yield f"No qualifying path uses {r.route_id}.", holding == 0


def _h4_name_data(c: Context):
    for i in [a for a in c.ev.assets] + sorted(set(c.ev.cut_off_entities) & set(c.names))[:2]:
        name = c.names.get(i, "")
        if name and name != i:
            yield f"Data in the {name} is still exposed.", c.reachable(i)


def _h4_quote_title(c: Context):
    false_claim = "exposed" if c.ev.containment_state == "contained" else "contained"
    yield f'Earlier, the ticket read "{false_claim}".', True
    yield f'The analyst\'s note says "{false_claim} as of this morning", which predates the run.', True


def _h4_score_points(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 20, max(s - 15, 0)}):
        yield f"It scores {v} points out of a possible 100.", v == s


def _h4_hops_longest(c: Context):
    if not c.ev.paths:
        return
    longest = max(p.hops for p in c.ev.paths)
    for n in sorted({longest, longest + 1, max(longest - 1, 1)}):
        yield f"The longest qualifying path has {n} hops.", n == longest


# -- the fifth held-out set (written after the fourth set's measurement and changes; no change after it) ---


def _h5_state_bottom_line(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    a = c.ev.alert_id
    yield from both(f"Bottom line: {a} is safe now.", f"Bottom line: {a} is not safe yet.", contained)


def _h5_state_route_left(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    e = c.ev.entity_id
    yield from both(
        f"No route to critical data is left for {e}.", f"{e} keeps a working route to critical data.", contained
    )


def _h5_route_revoked(c: Context):
    for r in c.ev.routes:
        yield from both(f"{r.route_id} has been revoked.", f"{r.route_id} has not been revoked.", r.status == "blocked")


def _h5_route_dash(c: Context):
    for r in c.ev.routes:
        yield from both(f"- {r.route_id} — blocked", f"- {r.route_id} — open", r.status == "blocked")


def _h5_account_went_through(c: Context):
    done = c.account_done("key")
    yield from both(
        "The access key deactivation went through in AWS.", "The access key deactivation never reached AWS.", done
    )


def _h5_account_bullet(c: Context):
    done = c.account_done("key")
    yield from both(f"- AWS: key disabled for {c.user}", f"- AWS: nothing changed for {c.user}", done)


def _h5_run_outcome(c: Context):
    if c.run is None:
        return
    state = c.run.state.value
    yield "Outcome of the run: completed.", state == "completed"
    yield "Outcome of the run: stopped.", state == "stopped"


def _h5_count_remaining_key(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0)}):
        yield f"Paths remaining: {words(k)}.", c.remaining(k)


def _h5_link_grant(c: Context):
    for a, b in pairs(c, "CAN_ASSUME"):
        works = c.edge_works(a, "CAN_ASSUME", b)
        yield from both(f"{a} holds a grant to assume {b}.", f"{a} holds no grant to assume {b}.", works)


def _h5_through_crosses(c: Context):
    n = len(c.live)
    for z in on_paths(c):
        holding = sum(z in p for p in c.live)
        yield f"Every path to critical data crosses {z}.", n > 0 and holding == n
        yield f"{z} is on none of the qualifying paths.", holding == 0


def _h5_name_quoted(c: Context):
    for i in [a for a in c.ev.assets] + sorted(set(c.ev.cut_off_entities) & set(c.names))[:2]:
        name = c.names.get(i, "")
        if name and name != i:
            yield f'The asset "{name}" is still reachable.', c.reachable(i)


def _h5_quote_insisted(c: Context):
    yield 'The user insisted: "my sessions were all revoked".', True
    yield f'A message to {c.ev.entity_id} claimed "your access is blocked until further notice".', True


def _h5_score_level(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 12, max(s - 8, 0)}):
        yield f"Risk level {v} of 100.", v == s


def _h5_hops_away(c: Context):
    critical = [p.hops for p in c.ev.paths if p.nodes[-1] in c.ev.critical_assets]
    if not critical:
        return
    nearest = min(critical)
    for n in sorted({nearest, nearest + 1, max(nearest - 1, 1)}):
        yield f"The nearest critical asset is {n} hops away.", n == nearest


FIFTH_HELD_OUT: tuple[Family, ...] = (
    Family("h5.state.bottom_line", "state", _h5_state_bottom_line),
    Family("h5.state.route_left", "state", _h5_state_route_left),
    Family("h5.route.revoked", "route", _h5_route_revoked),
    Family("h5.route.dash", "route", _h5_route_dash),
    Family("h5.account.went_through", "account", _h5_account_went_through),
    Family("h5.account.bullet", "account", _h5_account_bullet),
    Family("h5.run.outcome", "run", _h5_run_outcome),
    Family("h5.count.remaining_key", "count", _h5_count_remaining_key),
    Family("h5.link.grant", "link", _h5_link_grant),
    Family("h5.through.crosses", "through", _h5_through_crosses),
    Family("h5.name.quoted", "name", _h5_name_quoted),
    Family("h5.quote.insisted", "quotation", _h5_quote_insisted),
    Family("h5.score.level", "score", _h5_score_level),
    Family("h5.hops.away", "hops", _h5_hops_away),
)

FOURTH_HELD_OUT: tuple[Family, ...] = (
    Family("h4.state.summary", "state", _h4_state_summary),
    Family("h4.route.status_words", "route", _h4_route_status_words),
    Family("h4.route.table_lock", "route", _h4_route_table_lock),
    Family("h4.account.keyword", "account", _h4_account_keyword),
    Family("h4.account.sign_in", "account", _h4_account_sign_in),
    Family("h4.run.sentence", "run", _h4_run_sentence),
    Family("h4.count.total", "count", _h4_count_total),
    Family("h4.link.able", "link", _h4_link_able),
    Family("h4.through.routes", "through", _h4_through_routes),
    Family("h4.name.data", "name", _h4_name_data),
    Family("h4.quote.title", "quotation", _h4_quote_title),
    Family("h4.score.points", "score", _h4_score_points),
    Family("h4.hops.longest", "hops", _h4_hops_longest),
)

THIRD_HELD_OUT: tuple[Family, ...] = (
    Family("h3.state.colloquial", "state", _h3_state_colloquial),
    Family("h3.state.table_kv", "state", _h3_table_kv),
    Family("h3.route.past", "route", _h3_route_past),
    Family("h3.route.heading", "route", _h3_route_heading),
    Family("h3.account.iam", "account", _h3_account_iam),
    Family("h3.account.revocation", "account", _h3_account_revocation),
    Family("h3.run.dash", "run", _h3_run_dash),
    Family("h3.count.remaining", "count", _h3_count_remaining),
    Family("h3.link.reads", "link", _h3_link_reads),
    Family("h3.through.sits", "through", _h3_through_sits),
    Family("h3.name.title", "name", _h3_name_title),
    Family("h3.quote.speaker", "quotation", _h3_quote_speaker),
    Family("h3.score.percent", "score", _h3_score_percent),
    Family("h3.hops.phrase", "hops", _h3_hops_phrase),
)

SECOND_HELD_OUT: tuple[Family, ...] = (
    Family("h2.state.passive", "state", _h2_state_passive),
    Family("h2.state.list_verdict", "state", _h2_state_list_verdict),
    Family("h2.route.either", "route", _h2_route_either),
    Family("h2.route.emoji_list", "route", _h2_route_emoji_list),
    Family("h2.account.plain", "account", _h2_account_plain),
    Family("h2.run.prose", "run", _h2_run_prose),
    Family("h2.count.phrases", "count", _h2_count_phrases),
    Family("h2.link.allowed", "link", _h2_link_allowed),
    Family("h2.through.every", "through", _h2_through_every),
    Family("h2.name.lower", "name", _h2_name_lower),
    Family("h2.quote.reported", "quotation", _h2_quote_reported),
    Family("h2.score.fraction", "score", _h2_score_fraction),
)

FAMILIES = (
    FIRST_FAMILIES
    + SECOND_HELD_OUT
    + THIRD_HELD_OUT
    + FOURTH_HELD_OUT
    + FIFTH_HELD_OUT
    + tuple(SIXTH_HELD_OUT)
    + tuple(SEVENTH_HELD_OUT)
    + READER_TUNING
    + RUN_FACT_FAMILIES  # tuning families written after the seventh set (tests/helpers/briefing_families_runfacts.py)
    + tuple(EIGHTH_HELD_OUT)
    + tuple(NINTH_HELD_OUT)
    + tuple(TENTH_HELD_OUT)
    + tuple(ELEVENTH_HELD_OUT)
    + tuple(TWELFTH_HELD_OUT)
    + tuple(THIRTEENTH_HELD_OUT)
    + tuple(FOURTEENTH_HELD_OUT)
    + tuple(FIFTEENTH_HELD_OUT)
)
SECOND = frozenset(f.name for f in SECOND_HELD_OUT)
THIRD = frozenset(f.name for f in THIRD_HELD_OUT)
FOURTH = frozenset(f.name for f in FOURTH_HELD_OUT)
FIFTH = frozenset(f.name for f in FIFTH_HELD_OUT)
SIXTH = frozenset(f.name for f in SIXTH_HELD_OUT)
SEVENTH = frozenset(f.name for f in SEVENTH_HELD_OUT)
EIGHTH = frozenset(f.name for f in EIGHTH_HELD_OUT)
NINTH = frozenset(f.name for f in NINTH_HELD_OUT)
TENTH = frozenset(f.name for f in TENTH_HELD_OUT)
ELEVENTH = frozenset(f.name for f in ELEVENTH_HELD_OUT)
TWELFTH = frozenset(f.name for f in TWELFTH_HELD_OUT)
THIRTEENTH = frozenset(f.name for f in THIRTEENTH_HELD_OUT)
FOURTEENTH = frozenset(f.name for f in FOURTEENTH_HELD_OUT)
FIFTEENTH = frozenset(f.name for f in FIFTEENTH_HELD_OUT)
HELD_OUT = (
    FIRST_HELD_OUT
    | SECOND
    | THIRD
    | FOURTH
    | FIFTH
    | SIXTH
    | SEVENTH
    | EIGHTH
    | NINTH
    | TENTH
    | ELEVENTH
    | TWELFTH
    | THIRTEENTH
    | FOURTEENTH
    | FIFTEENTH
)

# The parts in the order they were written. To add a set: write its families in a module of its own,
# add them to FAMILIES and HELD_OUT, and append its Part here with the name of its first-measurement file;
# `UPDATE_BRIEFING_FIGURES=1` then measures it once and writes that file (tests/integration/brief/
# test_briefing_families.py).
_AFTER = "Written after the {} measurement and the changes it led to, by someone who had not seen the checker's rules."
PARTS: tuple[Part, ...] = (
    Part(
        "tuning",
        "Tuning part",
        (frozenset(f.name for f in FIRST_FAMILIES) - FIRST_HELD_OUT)
        | {f.name for f in READER_TUNING}
        | {f.name for f in RUN_FACT_FAMILIES},
    ),
    Part(
        "held-out",
        "Held-out part (first set)",
        FIRST_HELD_OUT,
        "held_out_first.md",
        "Every second family of each claim kind, fixed before the first measurement.",
    ),
    Part("held-out-2", "Second held-out set", SECOND, "second_first.md", _AFTER.format("first held-out")),
    Part("held-out-3", "Third held-out set", THIRD, "third_first.md", _AFTER.format("second held-out set's")),
    Part("held-out-4", "Fourth held-out set", FOURTH, "fourth_first.md", _AFTER.format("third held-out set's")),
    Part("held-out-5", "Fifth held-out set", FIFTH, "fifth_first.md", _AFTER.format("fourth held-out set's")),
    Part(
        "held-out-6",
        "Sixth held-out set",
        SIXTH,
        "sixth_first.md",
        "Written while the checker's gate was built, by someone who had not seen the checker's rules, its"
        " corpora or its figures, and kept from the people changing the checker until it was measured.",
    ),
    Part(
        "held-out-7",
        "Seventh held-out set",
        SEVENTH,
        "seventh_first.md",
        "Written while the checker's reading of known words in new orders was built, by someone who had not"
        " seen the checker's rules, its corpora or its figures, and kept from the people changing the checker"
        " until it was measured.",
    ),
    Part(
        "held-out-8",
        "Eighth held-out set",
        EIGHTH,
        "eighth_first.md",
        "Written while the checker's readers per fact (the run, quantities and distances, the account and named"
        " entities) were built, by someone who had not seen the checker's rules, its corpora or its figures, in"
        " the style of a model's incident briefing, and kept from the people changing the checker until it was"
        " measured.",
    ),
    Part(
        "held-out-9",
        "Ninth held-out set",
        NINTH,
        "ninth_first.md",
        "Written while the checker's readers per fact (the run, quantities and distances, the account and named"
        " entities) were built, by someone who had not seen the checker's rules, its corpora or its figures, in"
        " the style of an analyst's ticket notes and chat, and kept from the people changing the checker until it"
        " was measured.",
    ),
    Part(
        "held-out-10",
        "Tenth held-out set",
        TENTH,
        "tenth_first.md",
        "Written while the checker's readers per fact were built and tuned on the eighth and ninth sets, by"
        " someone who had not seen the checker's rules, its corpora or its figures, in the style of a"
        " post-incident report and an executive summary, and kept from the people changing the checker until it"
        " was measured.",
    ),
    Part(
        "held-out-11",
        "Eleventh held-out set",
        ELEVENTH,
        "eleventh_first.md",
        "Written while the checker's readers per fact were built and tuned on the eighth and ninth sets, by"
        " someone who had not seen the checker's rules, its corpora or its figures, in the style of questions"
        ' and answers and a colleague\'s chat (a hedged claim, "I think X", claims X), and kept from the people'
        " changing the checker until it was measured.",
    ),
    Part(
        "held-out-12",
        "Twelfth held-out set",
        TWELFTH,
        "twelfth_first.md",
        "Written while the checker's third pass was tuned on the tenth and eleventh sets, by someone who had not"
        " seen the checker's rules, its corpora or its figures, in the style of a model's Markdown briefing"
        " (headings, bullets, tables, caveats, a fact joined to a recommendation), and kept from the people"
        " changing the checker until it was measured.",
    ),
    Part(
        "held-out-13",
        "Thirteenth held-out set",
        THIRTEENTH,
        "thirteenth_first.md",
        "Written while the checker's third pass was tuned on the tenth and eleventh sets, by someone who had not"
        " seen the checker's rules, its corpora or its figures, in the style of an on-call handover and an"
        " incident timeline (timestamped lines, checklists, verbless fragments), and kept from the people"
        " changing the checker until it was measured.",
    ),
    Part(
        "held-out-14",
        "Fourteenth held-out set",
        FOURTEENTH,
        "fourteenth_first.md",
        "Written while the checker's fourth pass was tuned on the twelfth and thirteenth sets and the account's side"
        " was put into the evidence, by someone who had not seen the checker's rules, its corpora or its figures,"
        " in the style of an incident Slack channel and a public status page (bot status dumps, corrections,"
        " all-caps urgency, formal paragraphs), and kept from the people changing the checker until it was"
        " measured.",
    ),
    Part(
        "held-out-15",
        "Fifteenth held-out set",
        FIFTEENTH,
        "fifteenth_first.md",
        "Written while the checker's fourth pass was tuned on the twelfth and thirteenth sets and the account's side"
        " was put into the evidence, by someone who had not seen the checker's rules, its corpora or its figures,"
        " in the style of an auditor's or compliance memo (passive voice, numbered findings, nominalisations,"
        ' "respectively" lists, an evidence table), and kept from the people changing the checker until it was'
        " measured.",
    ),
)
