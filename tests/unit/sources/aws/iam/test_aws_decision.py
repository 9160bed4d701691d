"""The graph's decisions and policy-eval's answers are one decision in two modes (`iam/decision.py`).

The same statement sets are decided by the graph (`policy.evaluate`: conditions undecided,
`Mode.UNDECIDED`) and by policy-eval (`evaluate_request`: conditions evaluated against a request
context, `Mode.CONTEXT`) with a context that knows nothing, one that makes every condition work
for the request and one that makes every condition work against it. The expected decisions come
from the IAM User Guide, "Policy evaluation logic"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html): an
explicit Deny beats any Allow, no Allow is the implicit deny, and an identity policy is limited by
the permissions boundary ("Permissions boundaries for IAM entities",
https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html: both must allow).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from blastshield_core.sources.aws.iam.decision import (
    Decision,
    Effect,
    Mode,
    Tally,
    combine,
    decide_matched,
    settle,
)
from blastshield_core.sources.aws.iam.evaluate import (
    ALLOWED,
    EXPLICITLY_DENIED,
    IMPLICITLY_DENIED,
    evaluate_request,
)
from blastshield_core.sources.aws.iam.policy import evaluate, parse_policy, statement_matches_action

A = "123456789012"
ALICE = f"arn:aws:iam::{A}:user/alice"
ACTION, OBJECT = "s3:GetObject", "arn:aws:s3:::reports/q3.csv"
IP, REGION, MFA = "aws:SourceIp", "aws:RequestedRegion", "aws:MultiFactorAuthPresent"

# the conditions: two an Allow may need, one a Deny may apply on
ON_IP = {"IpAddress": {IP: "10.0.0.0/8"}}
ON_REGION = {"StringEquals": {REGION: "eu-west-1"}}
WITHOUT_MFA = {"Bool": {MFA: "false"}}
# contexts that make every condition above work for the request, or against it
FOR = {IP: "10.1.2.3", REGION: "eu-west-1", MFA: "true"}
AGAINST = {IP: "192.0.2.1", REGION: "us-east-1", MFA: "false"}

WORD = {Effect.ALLOW: ALLOWED, Effect.DENY: EXPLICITLY_DENIED, Effect.NONE: IMPLICITLY_DENIED}


def allow(condition: dict | None = None, action: str = "s3:*") -> dict:
    return {"Effect": "Allow", "Action": action, "Resource": "*", **({"Condition": condition} if condition else {})}


def deny(condition: dict | None = None) -> dict:
    return {"Effect": "Deny", "Action": "s3:*", "Resource": "*", **({"Condition": condition} if condition else {})}


def policy(*statements: dict) -> dict:
    return {"Version": "2012-10-17", "Statement": list(statements)}


@dataclass(frozen=True)
class Row:
    name: str
    identity: tuple[dict, ...]
    boundary: tuple[dict, ...] | None
    graph: Decision  # Mode.UNDECIDED
    answer: tuple[
        str, bool, tuple[str, ...], str | None
    ]  # policy-eval knowing nothing: decision, conditional, keys, if_keys_fail


ROWS = [
    Row("an Allow", (allow(),), None, Decision(Effect.ALLOW), (ALLOWED, False, (), None)),
    Row(
        "no statement covers the action",
        (allow(action="s3:PutObject"),),
        None,
        Decision(Effect.NONE),
        (IMPLICITLY_DENIED, False, (), None),
    ),
    Row("a Deny beats an Allow", (allow(), deny()), None, Decision(Effect.DENY), (EXPLICITLY_DENIED, False, (), None)),
    Row(
        "a conditional Allow",
        (allow(ON_IP),),
        None,
        Decision(Effect.ALLOW, True, (IP,)),
        (ALLOWED, True, (IP,), IMPLICITLY_DENIED),
    ),
    Row(
        "an Allow under a conditional Deny",
        (allow(), deny(WITHOUT_MFA)),
        None,
        Decision(Effect.ALLOW, True, (MFA,)),
        (ALLOWED, True, (MFA,), EXPLICITLY_DENIED),
    ),
    Row(
        # the modes differ here on purpose: the graph draws no implicit deny, policy-eval says a Deny may apply
        "a conditional Deny alone",
        (deny(WITHOUT_MFA),),
        None,
        Decision(Effect.NONE),
        (IMPLICITLY_DENIED, True, (MFA,), EXPLICITLY_DENIED),
    ),
    Row(
        # the graph names the Allow it draws (the first); policy-eval every undecided statement's keys
        "two conditional Allows",
        (allow(ON_IP), allow(ON_REGION)),
        None,
        Decision(Effect.ALLOW, True, (IP,)),
        (ALLOWED, True, (REGION, IP), IMPLICITLY_DENIED),
    ),
    Row(
        "an Allow beside a conditional Allow",
        (allow(ON_IP), allow()),
        None,
        Decision(Effect.ALLOW),
        (ALLOWED, False, (), None),
    ),
    Row(
        "a conditional Allow under a conditional Deny",
        (allow(ON_IP), deny(WITHOUT_MFA)),
        None,
        Decision(Effect.ALLOW, True, (MFA, IP)),
        (ALLOWED, True, (MFA, IP), EXPLICITLY_DENIED),
    ),
    Row(
        "a Deny beats a conditional Allow",
        (allow(ON_IP), deny()),
        None,
        Decision(Effect.DENY),
        (EXPLICITLY_DENIED, False, (), None),
    ),
    Row(
        "a boundary allowing on a condition",
        (allow(),),
        (allow(ON_IP),),
        Decision(Effect.ALLOW, True, (IP,)),
        (ALLOWED, True, (IP,), IMPLICITLY_DENIED),
    ),
    Row(
        "a boundary that does not cover the action",
        (allow(),),
        (allow(action="s3:PutObject"),),
        Decision(Effect.NONE),
        (IMPLICITLY_DENIED, False, (), None),
    ),
    Row(
        "a Deny in the boundary",
        (allow(),),
        (allow(), deny()),
        Decision(Effect.DENY),
        (EXPLICITLY_DENIED, False, (), None),
    ),
    Row(
        "conditions on both sides add up",
        (allow(ON_REGION),),
        (allow(), deny(WITHOUT_MFA)),
        Decision(Effect.ALLOW, True, (MFA, REGION)),
        (ALLOWED, True, (MFA, REGION), EXPLICITLY_DENIED),
    ),
]


def _graph(row: Row) -> Decision:
    boundary = None if row.boundary is None else parse_policy(policy(*row.boundary))
    return evaluate(parse_policy(policy(*row.identity)), ACTION, OBJECT, boundary=boundary)


def _answer(row: Row, **context: object) -> dict:
    request = {
        "principal": ALICE,
        "action": ACTION,
        "resource": OBJECT,
        "resource_account": A,
        "identity_policies": [policy(*row.identity)],
        **context,
    }
    if row.boundary is not None:
        request["permissions_boundary"] = policy(*row.boundary)
    return evaluate_request(request)


def _sorted(keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(keys))


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_the_graph_decides_conditions_undecided(row):
    assert _graph(row) == Decision(row.graph.effect, row.graph.conditional, _sorted(row.graph.condition_keys))


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_policy_eval_decides_with_nothing_known(row):
    answer = _answer(row, partial_context=True)
    decision, conditional, keys, if_fail = row.answer
    assert (answer["decision"], answer["conditional"], answer["unknown_keys"]) == (decision, conditional, sorted(keys))
    assert answer.get("if_keys_fail") == if_fail


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_the_two_modes_agree(row):
    """The graph's decision is policy-eval's when nothing is known; only an allow is conditional in
    the graph, and the keys it names are among policy-eval's."""
    graph, unknown = _graph(row), _answer(row, partial_context=True)
    assert WORD[graph.effect] == unknown["decision"]
    assert graph.conditional == (unknown["conditional"] and unknown["decision"] == ALLOWED)
    assert set(graph.condition_keys) <= set(unknown["unknown_keys"])


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_a_context_decides_what_the_graph_leaves_open(row):
    """With every condition decided, policy-eval gives one of the answers the graph leaves open: the
    graph's own when it is unconditional, allowed or the worst case when it is a conditional allow."""
    graph = _graph(row)
    helped, hindered = _answer(row, context=FOR), _answer(row, context=AGAINST)
    assert not helped["conditional"] and not hindered["conditional"]
    if graph.effect is Effect.ALLOW and graph.conditional:
        assert helped["decision"] == ALLOWED
        assert hindered["decision"] == _answer(row, partial_context=True)["if_keys_fail"] != ALLOWED
    elif graph.effect is Effect.NONE:
        assert ALLOWED not in (helped["decision"], hindered["decision"])
    else:
        assert helped["decision"] == hindered["decision"] == WORD[graph.effect]


@pytest.mark.parametrize("row", [r for r in ROWS if r.boundary is None], ids=lambda r: r.name)
def test_a_tally_fed_in_any_order_decides_as_in_policy_order(row):
    """The build sums shared statements once and adds the rest later (`Tally`, in `policy_sets.py`):
    the positions, not the order they come in, decide which Allow the graph names."""
    statements = [s for s in parse_policy(policy(*row.identity)) if statement_matches_action(s, ACTION)]
    tally = Tally()
    for position in reversed(range(len(statements))):
        tally.add(position, statements[position])
    assert tally.decision() == decide_matched(statements) == _graph(row)


def test_settle_by_mode():
    """The same best and worst cases: policy-eval's answer is conditional whenever they differ, the
    graph's only for an allow."""
    assert settle(Effect.NONE, Effect.DENY, {MFA}, Mode.CONTEXT) == Decision(Effect.NONE, True, (MFA,))
    assert settle(Effect.NONE, Effect.DENY, {MFA}, Mode.UNDECIDED) == Decision(Effect.NONE)
    for mode in Mode:
        assert settle(Effect.ALLOW, Effect.NONE, [IP, MFA, IP], mode) == Decision(Effect.ALLOW, True, (MFA, IP))
        assert settle(Effect.ALLOW, Effect.ALLOW, [IP], mode) == Decision(Effect.ALLOW)
        assert settle(Effect.DENY, Effect.DENY, [IP], mode) == Decision(Effect.DENY)


def test_combine_needs_every_decision_to_allow():
    conditional = Decision(Effect.ALLOW, True, (IP,))
    assert combine(Decision(Effect.ALLOW), conditional, Decision(Effect.ALLOW, True, (MFA,))) == Decision(
        Effect.ALLOW, True, (MFA, IP)
    )
    assert combine(conditional, Decision(Effect.NONE)) == Decision(Effect.NONE)
    assert combine(Decision(Effect.NONE), conditional, Decision(Effect.DENY)) == Decision(Effect.DENY)
    assert combine(Decision(Effect.ALLOW), Decision(Effect.ALLOW)) == Decision(Effect.ALLOW)
