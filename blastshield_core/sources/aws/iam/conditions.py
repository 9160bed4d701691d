"""IAM condition operators and policy variables, evaluated against a request context with gaps.

Written from the IAM User Guide: "IAM JSON policy elements: Condition operators",
"Creating a condition with multiple keys or values" (the `ForAnyValue:` / `ForAllValues:`
set operators) and "Policy variables". Three answers instead of two: a condition is true,
false, or undecided (`None`) when it needs a key the context does not say anything about.

The context knows three things about a key (names are case-insensitive):
* its values (one value or a list);
* that it is absent (the key given with the value `null`, or a fact of the request, such
  as `aws:username` for a role session);
* nothing: every test of it is undecided and names the key. A key is unknown when the
  context says so: in the graph's mode every key not given is unknown; a request to
  `policy-eval` names the keys its context lacks (`partial_context`), and any other key it
  does not give is absent, as AWS finds it absent from the request. A fact the request
  cannot tell (the path of a session's role) is unknown in either mode. An unknown key is
  never guessed, not even by `...IfExists`, `Null` or the set operators, whose documented
  behaviour for an absent key applies only when the key is known to be absent.

Nothing here reads files or touches a store.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from ....base.wildcard import compile_pattern

__all__ = [
    "ABSENT",
    "LITERAL",
    "UNKNOWN",
    "Context",
    "PolicyFormatError",
    "Tri",
    "check_condition",
    "condition_holds",
    "glob_match",
    "substitute",
    "tri_and",
]

Tri = bool | None  # True, False, or None for "undecided"


class PolicyFormatError(ValueError):
    """A policy document that cannot be read (not JSON, no statements of the right shape).

    Defined here, the evaluator's lowest module, so that the one policy reader (`policy.py`) can
    check a statement's Condition with `check_condition` as it reads it."""


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # a key known not to be in the request


def tri_and(values: Iterable[Tri]) -> Tri:
    """Kleene AND: false if any is false, else undecided if any is undecided, else true."""
    undecided = False
    for value in values:
        if value is False:
            return False
        if value is None:
            undecided = True
    return None if undecided else True


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()  # a key whose value the request cannot tell (a fact it does not carry)


@dataclass
class Context:
    """What the request is known to carry: key (lower case) -> list of text values, or ABSENT.

    `unknown` says which keys not given are unknown: None (the graph's mode) for every one of
    them, else the set of names (lower case; a name ending in `/` stands for every key under it);
    any other key not given is absent, as in a request whose context is given whole. A key given
    as UNKNOWN is unknown in either mode."""

    values: dict[str, Any] = field(default_factory=dict)
    unknown: frozenset[str] | None = None

    @classmethod
    def build(
        cls, given: Mapping[str, Any], derived: Mapping[str, Any], unknown: frozenset[str] | None = None
    ) -> Context:
        """The request's facts (`derived`) overlaid by the caller's `given` context."""
        values: dict[str, Any] = {}
        for source in (derived, given):
            for key, value in source.items():
                values[key.lower()] = UNKNOWN if value is UNKNOWN else cls._normal(value)
        if unknown is not None:
            unknown = frozenset(k.lower() for k in unknown)
        return cls(values, unknown)

    @staticmethod
    def _normal(value: Any) -> Any:
        if value is None or value is ABSENT:
            return ABSENT
        if isinstance(value, list | tuple):
            return [_text(v) for v in value if v is not None]
        return [_text(value)]

    def lookup(self, key: str) -> Any:
        """A key's values (a list), ABSENT, or None when nothing is known about it."""
        name = key.lower()
        found = self.values.get(name)
        if found is UNKNOWN:
            return None
        if found is not None or self.unknown is None:
            return found
        if name in self.unknown or any(p.endswith("/") and name.startswith(p) for p in self.unknown):
            return None
        return ABSENT


NOTHING_KNOWN = Context()  # the graph's first reading: every key unknown, every Condition undecided on its keys


# ---------------------------------------------------------------- policy variables

_SPECIAL = {"*": "*", "?": "?", "$": "$"}
LITERAL = "\x00"  # marks the next character of a pattern as itself (what `${*}`, `${?}` and `${$}` produce)


def _default(inner: str) -> tuple[str, str | None]:
    """`key, 'default'` taken apart (a plain scan: the key, then a quoted default after the first comma)."""
    key, comma, rest = inner.partition(",")
    if not comma:
        return inner, None
    rest = rest.strip()
    if len(rest) >= 2 and rest[0] == "'" and rest[-1] == "'" and "'" not in rest[1:-1] and key.strip():
        return key, rest[1:-1]
    return inner, None


def substitute(text: str, context: Context, unknown: set[str], literal: set[str] | None = None) -> str | None:
    """`text` with its `${...}` policy variables replaced from the context.

    Returns None when a variable cannot be resolved: its key is absent with no default
    value (the value then matches nothing), or unknown (the key is added to `unknown`, and
    the caller reports the test as undecided). `${*}`, `${?}` and `${$}` stand for the
    literal characters; when `literal` is given, the characters they produce are marked by
    `LITERAL` so that the matcher reads them as themselves, not as wildcards.

    One pass from left to right (each `${` to the next `}`), so its time is linear in the text."""
    if "${" not in text:
        return text
    out: list[str] = []
    failed = False
    at = 0
    while True:
        start = text.find("${", at)
        end = text.find("}", start + 2) if start >= 0 else -1
        if start < 0 or end < 0:
            out.append(text[at:])
            break
        out.append(text[at:start])
        at = end + 1
        inner = text[start + 2 : end]
        if inner in _SPECIAL:
            out.append(LITERAL + inner if literal is not None else inner)
            continue
        key, default = _default(inner)
        key = key.strip()
        values = context.lookup(key)
        if values is None:
            unknown.add(key)
            failed = True
        elif values is ABSENT or not values:
            if default is None:
                failed = True
            else:
                out.append(default)
        else:
            out.append(values[0])
    return None if failed else "".join(out)


# ---------------------------------------------------------------- single comparisons


def glob_match(pattern: str, value: str) -> bool:
    """A case-sensitive `*`/`?` glob, where a character after `LITERAL` (from `${*}`, `${?}`, `${$}`) is
    itself: always the linear matcher of `base/wildcard.py`, never a backtracking expression."""
    if pattern == "*":
        return True
    if LITERAL not in pattern:
        return compile_pattern(pattern, True).fullmatch(value) is not None
    return compile_pattern(pattern, True, LITERAL).fullmatch(value) is not None


def _like(pattern: str, value: str) -> bool:
    return glob_match(pattern, value)


def _arn_like(pattern: str, value: str) -> bool:
    """ArnLike: each of the six colon-separated parts matched separately (a glob in each)."""
    want = pattern.split(":", 5)
    have = value.split(":", 5)
    if len(want) < 6:
        return glob_match(pattern, value) if pattern.strip("*") == "" else False
    if len(have) < 6:
        return False
    return all(glob_match(w, h) for w, h in zip(want, have, strict=True))


def _number(text: str) -> Decimal | None:
    try:
        number = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        return None
    return number if number.is_finite() else None


def _date(text: str) -> datetime | None:
    text = text.strip()
    number = _number(text)
    if number is not None:
        try:
            return datetime.fromtimestamp(float(number), UTC)
        except (OverflowError, OSError, ValueError):
            return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _binary(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return text.encode()


def _ip_in(network_text: str, address_text: str) -> bool:
    try:
        network = ipaddress.ip_network(network_text.strip(), strict=False)
        address = ipaddress.ip_network(address_text.strip(), strict=False)
    except ValueError:
        return False
    return address.version == network.version and address.subnet_of(network)  # type: ignore[arg-type]


def _compare(kind: str, relation: str) -> Any:
    def numeric(policy: str, value: str) -> bool:
        a, b = _number(value), _number(policy)
        return a is not None and b is not None and _RELATIONS[relation](a, b)

    def date(policy: str, value: str) -> bool:
        a, b = _date(value), _date(policy)
        return a is not None and b is not None and _RELATIONS[relation](a, b)

    return numeric if kind == "Numeric" else date


_RELATIONS = {
    "Equals": lambda a, b: a == b,
    "LessThan": lambda a, b: a < b,
    "LessThanEquals": lambda a, b: a <= b,
    "GreaterThan": lambda a, b: a > b,
    "GreaterThanEquals": lambda a, b: a >= b,
}

# base operator (lower case) -> (positive test(policy value, request value), negated, variables allowed)
_OPERATORS: dict[str, tuple[Any, bool, bool]] = {
    "stringequals": (lambda p, v: p == v, False, True),
    "stringnotequals": (lambda p, v: p == v, True, True),
    "stringequalsignorecase": (lambda p, v: p.casefold() == v.casefold(), False, True),
    "stringnotequalsignorecase": (lambda p, v: p.casefold() == v.casefold(), True, True),
    "stringlike": (_like, False, True),
    "stringnotlike": (_like, True, True),
    "arnequals": (_arn_like, False, True),
    "arnlike": (_arn_like, False, True),
    "arnnotequals": (_arn_like, True, True),
    "arnnotlike": (_arn_like, True, True),
    "bool": (lambda p, v: p.lower() == v.lower() and v.lower() in ("true", "false"), False, True),
    "binaryequals": (lambda p, v: _binary(p) == _binary(v), False, False),
    "ipaddress": (_ip_in, False, False),
    "notipaddress": (_ip_in, True, False),
    "numericequals": (_compare("Numeric", "Equals"), False, False),
    "numericnotequals": (_compare("Numeric", "Equals"), True, False),
    "numericlessthan": (_compare("Numeric", "LessThan"), False, False),
    "numericlessthanequals": (_compare("Numeric", "LessThanEquals"), False, False),
    "numericgreaterthan": (_compare("Numeric", "GreaterThan"), False, False),
    "numericgreaterthanequals": (_compare("Numeric", "GreaterThanEquals"), False, False),
    "dateequals": (_compare("Date", "Equals"), False, False),
    "datenotequals": (_compare("Date", "Equals"), True, False),
    "datelessthan": (_compare("Date", "LessThan"), False, False),
    "datelessthanequals": (_compare("Date", "LessThanEquals"), False, False),
    "dategreaterthan": (_compare("Date", "GreaterThan"), False, False),
    "dategreaterthanequals": (_compare("Date", "GreaterThanEquals"), False, False),
}


@dataclass(frozen=True)
class Operator:
    """A condition operator name taken apart: set prefix, base operator, IfExists."""

    name: str
    base: str  # lower case, "null" for Null
    set_op: str | None  # "any" | "all" | None
    if_exists: bool

    @classmethod
    def parse(cls, name: str) -> Operator:
        """The operator a name spells (kept once read: policies repeat a few operators many times)."""
        return _operator(name)

    @classmethod
    def _read(cls, name: str) -> Operator:
        rest = name
        set_op = None
        prefix, sep, tail = name.partition(":")
        if sep:
            if prefix.lower() == "foranyvalue":
                set_op = "any"
            elif prefix.lower() == "forallvalues":
                set_op = "all"
            else:
                raise PolicyFormatError(f"unknown condition operator {name!r}")
            rest = tail
        base = rest.lower()
        if_exists = base.endswith("ifexists")
        if if_exists:
            base = base[: -len("ifexists")]
        if base == "null":
            if if_exists or set_op:
                raise PolicyFormatError(f"{name!r}: Null takes neither IfExists nor a set operator")
        elif base not in _OPERATORS:
            raise PolicyFormatError(f"unknown condition operator {name!r}")
        return cls(name, base, set_op, if_exists)


@lru_cache(maxsize=4096)
def _operator(name: str) -> Operator:
    return Operator._read(name)


def check_condition(block: Any) -> None:
    """Raise PolicyFormatError for a Condition element that is not {operator: {key: value(s)}}."""
    if not isinstance(block, dict):
        raise PolicyFormatError("Condition must be an object")
    for name, keys in block.items():
        Operator.parse(str(name))
        if not isinstance(keys, dict):
            raise PolicyFormatError(f"Condition {name!r} must map keys to values")
        for key, values in keys.items():
            for value in values if isinstance(values, list) else [values]:
                if not isinstance(value, str | int | float | bool) or value is None:
                    raise PolicyFormatError(f"Condition {name!r} {key!r}: values must be strings, numbers or booleans")


def _one_key(
    op: Operator, key: str, policy_values: list[Any], context: Context, variables: bool
) -> tuple[Tri, set[str]]:
    unknown: set[str] = set()
    found = context.lookup(key)
    if op.base == "null":
        want = [_text(v).lower() for v in policy_values]
        if found is None:
            return None, {key}
        absent = found is ABSENT or not found
        return any((w == "true") == absent for w in want), unknown
    if found is None:
        return None, {key}
    test, negated, allows_variables = _OPERATORS[op.base]
    if found is ABSENT or (not found and op.set_op is None):
        if op.if_exists or op.set_op == "all":
            return True, unknown
        if op.set_op == "any":
            return False, unknown
        return negated, unknown
    patterns: list[str] = []
    for value in policy_values:
        text = _text(value)
        if variables and allows_variables:
            marks = op.base in ("stringlike", "stringnotlike", "arnlike", "arnnotlike", "arnequals", "arnnotequals")
            resolved = substitute(text, context, unknown, set() if marks else None)
            if resolved is None:
                continue  # absent without a default: matches nothing; unknown: noted in `unknown`
            text = resolved
        patterns.append(text)

    def single(request_value: str) -> bool:
        matched = any(test(p, request_value) for p in patterns)
        return not matched if negated else matched

    if op.set_op == "all":
        result = all(single(v) for v in found)
    elif op.set_op == "any":
        result = any(single(v) for v in found)
    elif negated:
        result = all(single(v) for v in found)
    else:
        result = any(single(v) for v in found)
    if unknown and result == negated:
        # more policy values can only make a positive test truer and a negated one falser:
        # a result that further values could still change is undecided
        return None, unknown
    return result, set()


def condition_holds(
    block: Mapping[str, Any] | None, context: Context, *, variables: bool = True
) -> tuple[Tri, set[str]]:
    """A statement's Condition: every operator and every key in it must hold (AND); the
    values listed for one key are alternatives (OR; NOR for the negated operators).

    Returns the answer and, when it is undecided, the keys the context did not supply."""
    if not block:
        return True, set()
    results: list[Tri] = []
    unknown: set[str] = set()
    for name, keys in block.items():
        op = Operator.parse(str(name))
        for key, values in keys.items():
            result, missing = _one_key(
                op, str(key), values if isinstance(values, list) else [values], context, variables
            )
            if result is False:
                return False, set()
            results.append(result)
            unknown |= missing
    answer = tri_and(results)
    return answer, (unknown if answer is None else set())
