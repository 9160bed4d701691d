"""A small, pure IAM policy evaluator: one function per rule.

Written from AWS's "Policy evaluation logic" documentation. It answers the
questions the AWS import needs (may this principal assume that role, may it
read that resource) offline, from the policy documents alone:

* action matching is a case-insensitive glob (`*`, `?`) on `service:Action`;
* resource matching is a case-sensitive glob on the ARN;
* `NotAction` / `NotResource` apply a statement to everything the list does not match;
* an explicit Deny beats any Allow; without an Allow the answer is an implicit deny;
* a permissions boundary limits: the action must be allowed by the identity
  policies AND by the boundary;
* conditions are never guessed and never ignored: a statement's `Condition` is
  read by the one condition evaluator (`conditions.condition_holds`) in its mode
  where the context knows nothing, which leaves it undecided on every key it tests:
  the statement is *conditional* on those keys. A conditional Allow gives a
  conditional allow (with the condition keys); a conditional Deny cannot be proven
  to apply, so it does not deny but makes the answer conditional (its keys are
  reported too). The decision itself is `decision.py`'s, the one `evaluate.py` makes,
  in its mode where every Condition is undecided (`Mode.UNDECIDED`). The graph build
  decides them again with the facts the snapshot knows (`build/identity_conditions.py`),
  with the same evaluator;
* principal matching for trust policies: `*`, an account id, an account root
  ARN, an exact user/role ARN, an `assumed-role` session ARN (matches the role),
  a service or a federated provider.

Nothing here reads files or touches a store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from ....base.wildcard import compile_pattern
from .conditions import NOTHING_KNOWN, PolicyFormatError, Tri, check_condition, condition_holds
from .decision import Decision, Effect, combine, decide_matched

__all__ = [
    "ASSUME_ACTION",
    "Decision",
    "Effect",
    "PolicyFormatError",
    "Principal",
    "Statement",
    "action_matches",
    "arns_named",
    "as_list",
    "combine",
    "decide",
    "decide_matched",
    "evaluate",
    "may_assume",
    "names_exactly",
    "parse_policy",
    "principal_matches",
    "resource_list_filter",
    "resource_list_matcher",
    "resource_matches",
    "role_key",
    "statement_matches_action",
    "statement_matches_principal",
    "statement_matches_resource",
]


@dataclass(frozen=True)
class Statement:
    """One policy statement, with every list normalised to a tuple."""

    effect: str  # "Allow" | "Deny"
    actions: tuple[str, ...] = ()
    not_actions: tuple[str, ...] | None = None
    resources: tuple[str, ...] = ()
    not_resources: tuple[str, ...] | None = None
    principals: Mapping[str, tuple[str, ...]] | None = None  # {"AWS": (...), "Service": (...), ...} or {"*": ("*",)}
    not_principals: Mapping[str, tuple[str, ...]] | None = None
    condition_keys: tuple[str, ...] = ()
    sid: str = ""
    # the Condition block whole, and whether policy variables resolve (Version 2012-10-17), for the
    # step that decides conditions from the snapshot's own facts (identity_conditions.py)
    condition: Mapping[str, Any] | None = field(default=None, compare=False)
    variables: bool = field(default=True, compare=False)

    @property
    def conditional(self) -> bool:
        return bool(self.condition_keys)

    @property
    def result(self) -> Tri:
        """As `decision.Matched` in `Mode.UNDECIDED`: a statement with a Condition is undecided."""
        return None if self.condition_keys else True

    @property
    def keys(self) -> tuple[str, ...]:
        return self.condition_keys


@dataclass(frozen=True)
class Principal:
    """Who asks: its ARN and account, and its kind (user, role, root, service, federated)."""

    arn: str
    account: str
    kind: str = "role"


# ---------------------------------------------------------------- reading


def as_list(value: Any) -> list[Any]:
    """A scalar-or-list value as a list (AWS accepts both)."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _strings(value: Any, what: str) -> tuple[str, ...]:
    items = as_list(value)
    for item in items:
        if not isinstance(item, str):
            raise PolicyFormatError(f"{what} must be a string or a list of strings, got {type(item).__name__}")
    return tuple(items)


def _principal_block(value: Any, what: str = "Principal") -> dict[str, tuple[str, ...]]:
    if value == "*":
        return {"*": ("*",)}
    if not isinstance(value, dict) or not value:
        raise PolicyFormatError(f"{what} must be '*' or an object of principal lists")
    return {str(kind): _strings(names, f"{what}.{kind}") for kind, names in value.items()}


def _condition_keys(value: Any) -> tuple[str, ...]:
    """The keys a Condition leaves undecided when nothing is known: every key it tests."""
    if value in (None, {}):
        return ()
    _, keys = condition_holds(value, NOTHING_KNOWN)
    return tuple(sorted(keys))


def _document(document: Any) -> dict[str, Any]:
    """The policy document as an object: JSON text (URL-encoded too, as in exports) decoded."""
    if isinstance(document, str):
        text = document.strip()
        if text[:3].lower() == "%7b" or "%22" in text[:40]:
            text = unquote(text)
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PolicyFormatError(f"policy document is not JSON: {exc.msg}") from None
        except RecursionError:
            raise PolicyFormatError("policy document is nested too deeply") from None
    if not isinstance(document, dict):
        raise PolicyFormatError("policy document must be an object or JSON text")
    return document


def _statement(item: Any, index: int, variables: bool) -> Statement:
    """One statement, checked as AWS checks it: an Effect of Allow or Deny, exactly one of Action
    and NotAction, not both Resource and NotResource nor Principal and NotPrincipal, and a
    Condition of known operators mapping keys to plain values."""
    if not isinstance(item, dict):
        raise PolicyFormatError(f"Statement[{index}] must be an object")
    effect = item.get("Effect")
    if effect not in ("Allow", "Deny"):
        raise PolicyFormatError(f"Statement[{index}] has Effect {effect!r}, not Allow or Deny")
    if ("Action" in item) == ("NotAction" in item):
        raise PolicyFormatError(f"Statement[{index}] needs exactly one of Action and NotAction")
    if "Resource" in item and "NotResource" in item:
        raise PolicyFormatError(f"Statement[{index}] has both Resource and NotResource")
    if "Principal" in item and "NotPrincipal" in item:
        raise PolicyFormatError(f"Statement[{index}] has both Principal and NotPrincipal")
    condition = item.get("Condition")
    if condition is not None:
        check_condition(condition)
    return Statement(
        effect=effect,
        actions=_strings(item.get("Action"), "Action"),
        not_actions=_strings(item["NotAction"], "NotAction") if "NotAction" in item else None,
        resources=_strings(item.get("Resource"), "Resource"),
        not_resources=_strings(item["NotResource"], "NotResource") if "NotResource" in item else None,
        principals=_principal_block(item["Principal"]) if "Principal" in item else None,
        not_principals=_principal_block(item["NotPrincipal"], "NotPrincipal") if "NotPrincipal" in item else None,
        condition_keys=_condition_keys(condition),
        sid=str(item.get("Sid", "")),
        condition=condition or None,
        variables=variables,
    )


def parse_policy(document: Any) -> list[Statement]:
    """A policy document (object, JSON text, or URL-encoded JSON text) as statements: the one reader
    of policies, for identity policies, boundaries, trust, resource and session policies and
    guardrails alike (`evaluate_input.read_policy` reads its rules from these statements).

    Raises PolicyFormatError for anything that is not a policy document AWS would accept in shape.
    """
    document = _document(document)
    raw = document.get("Statement")
    if raw is None:
        raise PolicyFormatError("policy document has no Statement")
    variables = document.get("Version") == "2012-10-17"
    return [_statement(item, index, variables) for index, item in enumerate(as_list(raw))]


# ---------------------------------------------------------------- matching rules


def _glob(pattern: str, case_sensitive: bool) -> re.Pattern[str]:
    """The linear-time wildcard matcher of `base/wildcard.py`: no pattern can make it backtrack."""
    return compile_pattern(pattern, case_sensitive)


def action_matches(pattern: str, action: str) -> bool:
    """`pattern` (with `*` / `?`) matches `action`; case-insensitive, as AWS compares actions."""
    if pattern == "*":
        return True
    return _glob(pattern, False).fullmatch(action) is not None


def resource_matches(pattern: str, arn: str) -> bool:
    """`pattern` (with `*` / `?`) matches `arn`; case-sensitive, as AWS compares ARNs."""
    if pattern == "*":
        return True
    return _glob(pattern, True).fullmatch(arn) is not None


@lru_cache(maxsize=65536)
def resource_list_matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """`any(resource_matches(p, arn) for p in patterns)` as one compiled test (built once per list)."""
    if "*" in patterns:
        return lambda _arn: True
    exact = frozenset(p for p in patterns if "*" not in p and "?" not in p)
    globs = tuple(_glob(p, True).fullmatch for p in patterns if "*" in p or "?" in p)
    if not globs:
        return exact.__contains__
    if len(globs) == 1 and not exact:
        only = globs[0]
        return lambda arn: only(arn) is not None
    if len(globs) == 2 and not exact:  # the common short lists without a generator per call
        first, second = globs
        return lambda arn: first(arn) is not None or second(arn) is not None
    if len(globs) == 3 and not exact:
        first, second, third = globs
        return lambda arn: first(arn) is not None or second(arn) is not None or third(arn) is not None
    return lambda arn: arn in exact or any(g(arn) is not None for g in globs)


@lru_cache(maxsize=65536)
def resource_list_filter(patterns: tuple[str, ...]) -> Callable[[Sequence[str]], set[str]]:
    """The ARNs among a list that `resource_list_matcher(patterns)` accepts, found without Python code per ARN."""
    if "*" in patterns:
        return set
    exact = frozenset(p for p in patterns if "*" not in p and "?" not in p)
    globs = tuple(_glob(p, True).fullmatch for p in patterns if "*" in p or "?" in p)

    def keep(arns: Sequence[str]) -> set[str]:
        found = set(filter(exact.__contains__, arns)) if exact else set()
        for test in globs:
            found.update(filter(test, arns))
        return found

    return keep


@lru_cache(maxsize=65536)
def _action_set(patterns: tuple[str, ...]) -> tuple[frozenset[str], tuple[re.Pattern[str], ...]]:
    """A list of action patterns as exact names (lower case) and compiled globs, built once per list."""
    exact = frozenset(p.lower() for p in patterns if "*" not in p and "?" not in p)
    globs = tuple(_glob(p, False) for p in patterns if "*" in p or "?" in p)
    return exact, globs


def _any_action(patterns: tuple[str, ...], action: str) -> bool:
    exact, globs = _action_set(patterns)
    return action.lower() in exact or any(g.fullmatch(action) for g in globs)


def statement_matches_action(stmt: Statement, action: str) -> bool:
    """The statement covers `action` (through Action, or through NotAction not naming it)."""
    if stmt.not_actions is not None:
        return not _any_action(stmt.not_actions, action)
    return _any_action(stmt.actions, action)


def statement_matches_resource(stmt: Statement, arn: str) -> bool:
    """The statement covers resource `arn` (a statement without Resource, as in a trust policy, covers it)."""
    if stmt.not_resources is not None:
        return not any(resource_matches(p, arn) for p in stmt.not_resources)
    if not stmt.resources:
        return stmt.principals is not None  # a resource policy names no Resource; an identity statement must
    return any(resource_matches(p, arn) for p in stmt.resources)


_ASSUMED_ROLE = re.compile(r"^arn:(aws[\w-]*):sts::(\d{12}):assumed-role/([^/]+)/.+$")
_ACCOUNT_ID = re.compile(r"^\d{12}$")


_ROLE_ARN = re.compile(r"^arn:(aws[\w-]*):iam::(\d{12}):role/(?:[^*?]*/)?([^/*?]+)$")


def _role_of_session(arn: str) -> str | None:
    """The role a role session's ARN names, as `role_key` writes it (the session ARN has no path)."""
    found = _ASSUMED_ROLE.match(arn)
    return f"arn:{found[1]}:iam::{found[2]}:role/{found[3]}" if found else None


def role_key(arn: str) -> str:
    """A role's ARN without its path (`role/aws-reserved/sso.amazonaws.com/NAME` -> `role/NAME`), as a
    session of it names it: `arn:aws:sts::ACCOUNT:assumed-role/NAME/SESSION` carries the role's name
    only, and role names are unique in an account whatever their path. Any other ARN as it is."""
    found = _ROLE_ARN.match(arn)
    return f"arn:{found[1]}:iam::{found[2]}:role/{found[3]}" if found else arn


def principal_matches(entry: str, kind: str, who: Principal) -> bool:
    """One Principal entry (`kind` AWS/Service/Federated/CanonicalUser/*) names `who`.

    AWS: `*`; a 12-digit account id or `arn:...:root` names every principal of
    that account (which then also needs an identity-policy allow); an exact ARN
    (case-sensitive); an `assumed-role` ARN names its role; a pattern with `*`
    is matched as a glob. Service and Federated entries name only principals of
    that kind with that exact name (services are case-insensitive).
    """
    if kind == "*" or (entry == "*" and kind == "AWS"):
        return who.kind not in ("service", "federated")
    if kind == "Service":
        return who.kind == "service" and entry.lower() == who.arn.lower()
    if kind == "Federated":
        return who.kind == "federated" and entry == who.arn
    if kind != "AWS":
        return False
    if _ACCOUNT_ID.match(entry):
        return who.account == entry and who.kind not in ("service", "federated")
    if entry.endswith(":root") and entry.count(":") == 5:
        return entry.split(":")[4] == who.account and who.kind not in ("service", "federated")
    role = _role_of_session(entry)
    if role is not None:
        return role == role_key(who.arn)
    if "*" in entry or "?" in entry:
        return resource_matches(entry, who.arn)
    return entry == who.arn


def arns_named(statements: Iterable[Statement]) -> tuple[frozenset[str], bool]:
    """What principal matching in `statements` looks at beyond a principal's account and kind.

    The ARNs their `AWS` entries (in Principal or NotPrincipal) name exactly, or by a session
    (as `role_key`, without the role's path), and whether any entry is a pattern. For a user or
    role whose ARN (or `role_key`) is not among those ARNs, when no entry is a pattern,
    `principal_matches` (and so `decide` with `who`, `names_exactly` and `may_assume`) answers
    as for any other user or role of its account.
    """
    names: set[str] = set()
    patterned = False
    for stmt in statements:
        for block in (stmt.principals, stmt.not_principals):
            for entry in (block or {}).get("AWS", ()):
                if entry == "*" or _ACCOUNT_ID.match(entry) or (entry.endswith(":root") and entry.count(":") == 5):
                    continue
                role = _role_of_session(entry)
                if role is not None:
                    names.add(role)
                elif "*" in entry or "?" in entry:
                    patterned = True
                else:
                    names.add(entry)
    return frozenset(names), patterned


def _not_principal_spares(block: Mapping[str, tuple[str, ...]], who: Principal) -> bool:
    """A Deny's NotPrincipal spares `who` only when every level AWS may check is listed ("AWS JSON
    policy elements: NotPrincipal"): a user's account and the user; the root user by its account; a
    role (acting through its sessions) by its account, the role and a session of it. A service or
    an identity provider by its own entry; `*` spares everyone."""
    entries = [(kind, entry) for kind, names in block.items() for entry in names]
    if any(kind == "*" or (kind == "AWS" and entry == "*") for kind, entry in entries):
        return True
    if who.kind in ("service", "federated"):
        return any(principal_matches(entry, kind, who) for kind, entry in entries)
    aws = [entry for kind, entry in entries if kind == "AWS"]
    if not any(e == who.account or (e.endswith(":root") and e.split(":")[4:5] == [who.account]) for e in aws):
        return False
    if who.kind == "root" or who.arn.endswith(":root"):
        return True
    if who.kind != "role":
        return who.arn in aws
    key = role_key(who.arn)
    named = any(e == who.arn or role_key(e) == key for e in aws)
    return named and any(_role_of_session(e) == key for e in aws)


def statement_matches_principal(stmt: Statement, who: Principal) -> bool:
    """The statement's Principal (or NotPrincipal) covers `who`. A NotPrincipal in a Deny spares only
    a principal listed at every level AWS checks; in an Allow (which AWS does not support) it covers
    every principal no entry names."""
    if stmt.not_principals is not None:
        if stmt.effect == "Deny":
            return not _not_principal_spares(stmt.not_principals, who)
        return not any(principal_matches(e, k, who) for k, entries in stmt.not_principals.items() for e in entries)
    if stmt.principals is None:
        return False
    return any(principal_matches(e, k, who) for k, entries in stmt.principals.items() for e in entries)


# ---------------------------------------------------------------- decisions


def decide(statements: Iterable[Statement], action: str, resource: str, who: Principal | None = None) -> Decision:
    """Deny over Allow for one policy set: the explicit Deny, else the Allow, else none.

    With `who` (a resource policy such as a trust policy) a statement must also name the principal.
    An unconditional Deny decides; a conditional Deny only makes an allow conditional.
    """
    return decide_matched(
        [
            stmt
            for stmt in statements
            if (who is None or statement_matches_principal(stmt, who))
            and statement_matches_action(stmt, action)
            and statement_matches_resource(stmt, resource)
        ]
    )


def evaluate(
    identity: Sequence[Statement],
    action: str,
    resource: str,
    *,
    boundary: Sequence[Statement] | None = None,
) -> Decision:
    """Identity policies, limited by a permissions boundary when there is one.

    An explicit Deny in either denies; otherwise both must allow.
    """
    decision = decide(identity, action, resource)
    if boundary is None:
        return decision
    return combine(decision, decide(boundary, action, resource))


ASSUME_ACTION = "sts:AssumeRole"


def names_exactly(stmt: Statement, who: Principal) -> bool:
    """The statement's Principal names `who` by its exact ARN (or a session of it), not by account or `*`."""
    if stmt.principals is None:
        return False
    key = role_key(who.arn)
    return any(entry == who.arn or _role_of_session(entry) == key for entry in stmt.principals.get("AWS", ()))


def may_assume(
    trust: Sequence[Statement],
    who: Principal,
    role_arn: str,
    role_account: str,
    identity: Sequence[Statement],
    *,
    boundary: Sequence[Statement] | None = None,
    own: Decision | None = None,
) -> Decision:
    """May `who` call sts:AssumeRole on the role? The cross-account rule.

    The trust policy must allow `who`. Across accounts, and within one account
    when the trust names the account (id, `:root`) or `*`, `who`'s identity
    policies (limited by its boundary) must allow the call too. Within one
    account a trust statement naming `who`'s exact ARN suffices on its own. An
    explicit Deny in the trust policy, the identity policies or the boundary
    always denies. `own`, when given, is `evaluate(identity, ASSUME_ACTION, role_arn, boundary=boundary)`
    computed by the caller (who may share it between principals with the same policies).
    """
    trusted = decide(trust, ASSUME_ACTION, role_arn, who)
    if trusted.effect is not Effect.ALLOW:
        return trusted
    if own is None:
        own = evaluate(identity, ASSUME_ACTION, role_arn, boundary=boundary)
    if own.effect is Effect.DENY:
        return own
    if who.account == role_account and own.effect is Effect.NONE:
        exact = [s for s in trust if s.effect == "Allow" and names_exactly(s, who)]
        exact_decision = decide(exact, ASSUME_ACTION, role_arn, who)
        if exact_decision.effect is Effect.ALLOW:
            # the trust alone grants; conditional Denies of the whole trust policy still count
            return combine(exact_decision, trusted) if trusted.conditional else exact_decision
    return combine(trusted, own)
