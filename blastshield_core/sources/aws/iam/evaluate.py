"""One request, every policy type that applies to it: AWS's documented evaluation logic.

Written from the IAM User Guide: "Policy evaluation logic" (deny first; organisation
guardrails; resource-based policies and the principal they name; identity-based policies;
permissions boundaries; session policies), "Cross-account policy evaluation logic" (both
sides must allow), "Permissions boundaries" and "Session policies"; the AWS KMS Developer
Guide, "Key policies" (the key policy must allow; IAM policies count only where it allows
the account) and "Controlling access to aliases" (an alias operation needs the alias and the
key); the AWS Organizations User Guide on SCPs and RCPs (every SCP level from the root down
to the account must allow; RCPFullAWSAccess sits at every RCP level, so RCPs only deny; SCPs
spare the management account and service-linked roles; RCPs spare the management account's
resources, service principals and service-linked roles, and apply to their listed services
only); "AWS Signature Version 4 for API requests" (what an anonymous caller can call at all)
and the AWS STS API Reference, "GetCallerIdentity" (allowed whatever the policies say).

Conditions are three-valued (`conditions.py`): a statement whose condition needs an unknown
key (one the request says its context lacks, or a fact it cannot tell) may or may not apply.
The decision given is the one where every such statement helps the request (undecided Allows
apply, undecided Denies do not); the answer is `conditional` when the decision with every
such statement against the request differs, and then names the keys. An unknown key is never
guessed; a key the context does not give, and does not say it lacks, is absent. How a matched
statement counts and how the two decisions become the answer is `decision.py`'s, in its
`Mode.CONTEXT`: the graph's decisions (`policy.py`) are the same rules in `Mode.UNDECIDED`.

`evaluate_request` is the pure entry point: a request (a mapping) in, an answer (a dict) out.
Nothing here reads files or touches a store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from .caller import Caller, Naming
from .conditions import Context
from .decision import Decision, Effect, Mode, counts, every, settle
from .evaluate_input import Hit, Request, RequestError, Rule, parse_request, request_context, scan

__all__ = [
    "ALLOWED",
    "EXPLICITLY_DENIED",
    "IMPLICITLY_DENIED",
    "RCP_SERVICES",
    "RequestError",
    "anonymous_callable",
    "decide",
    "evaluate_request",
    "evaluate_requests",
]

ALLOWED, EXPLICITLY_DENIED, IMPLICITLY_DENIED = "allowed", "explicitly_denied", "implicitly_denied"

# The services whose actions RCPs apply to (AWS Organizations User Guide, "Resource control policies").
RCP_SERVICES = frozenset(
    {"s3", "sts", "sqs", "secretsmanager", "kms", "ecr", "aoss", "cognito-identity", "logs", "dynamodb"}
)
# IAM User Guide, "AWS Signature Version 4 for API requests": every request is signed except anonymous
# requests to Amazon S3 and some AWS STS operations (AssumeRoleWithWebIdentity, AssumeRoleWithSAML, which
# carry the identity provider's token instead). Two more are callable without AWS credentials where a
# resource policy allows anyone: a Lambda function URL whose AuthType is NONE (Lambda Developer Guide,
# "Control access to Lambda function URLs") and an API Gateway API (API Gateway Developer Guide,
# "Control access to a REST API with API Gateway resource policies").
_UNSIGNED_SERVICES = frozenset({"s3"})
_UNSIGNED_ACTIONS = frozenset(
    {"sts:assumerolewithwebidentity", "sts:assumerolewithsaml", "lambda:invokefunctionurl", "execute-api:invoke"}
)
# AWS STS API Reference, "GetCallerIdentity": no permission is needed, and an explicit Deny does not stop it
_CALLER_IDENTITY = "sts:getcalleridentity"
_ASSUME_ACTIONS = frozenset(
    {
        "sts:assumerole",
        "sts:assumerolewithsaml",
        "sts:assumerolewithwebidentity",
        "sts:tagsession",
        "sts:setsourceidentity",
    }
)


def anonymous_callable(action: str) -> bool:
    """An anonymous (unsigned) request can call `action` at all; for every other action AWS requires a
    signed request, so no policy can allow it to an anonymous caller."""
    action = action.lower()
    return action.split(":", 1)[0] in _UNSIGNED_SERVICES or action in _UNSIGNED_ACTIONS


class _Scanned:
    """Every policy's hits for one request, and which guardrails apply."""

    def __init__(self, request: Request) -> None:
        context = request_context(request)
        who = request.who
        self.request = request
        acts_with_identity = who.iam and who.kind != "root"
        self.identity: list[Hit] = []
        if acts_with_identity:
            for i, rules in enumerate(request.identity):
                self.identity += scan(rules, f"identity_policies[{i}]", request, context)
        self.has_boundary = acts_with_identity and request.boundary is not None
        self.boundary = (
            scan(request.boundary or [], "permissions_boundary", request, context) if self.has_boundary else []
        )
        self.session_applies = who.kind in ("session", "role", "federated_user")
        self.has_session = self.session_applies and request.session is not None
        self.session = scan(request.session or [], "session_policy", request, context) if self.has_session else []
        self.resource: list[Hit] = []
        for i, rules in enumerate(request.resource_policy or []):
            label = "resource_policy" if len(request.resource_policy or []) == 1 else f"resource_policy[{i}]"
            self.resource += scan(rules, label, request, context, who=who)
        self.scp_applies = bool(request.scps) and who.iam and not who.service_linked
        self.scp_applies = self.scp_applies and who.account != request.management_account
        self.rcp_applies = (
            bool(request.rcps)
            and who.kind != "service"
            and not who.service_linked
            and request.resource_account != request.management_account
            and request.service in RCP_SERVICES
        )
        self.scps = [self._level(level, "scps", n, None, context) for n, level in enumerate(request.scps)]
        self.rcps = [self._level(level, "rcps", n, who, context) for n, level in enumerate(request.rcps)]

    def _level(
        self, level: list[list[Rule]], name: str, number: int, who: Caller | None, context: Context
    ) -> list[Hit]:
        hits: list[Hit] = []
        for i, rules in enumerate(level):
            hits += scan(rules, f"{name}[{number}][{i}]", self.request, context, who=who)
        return hits

    def applicable(self) -> list[Hit]:
        hits = self.identity + self.boundary + self.session + self.resource
        if self.scp_applies:
            hits += [h for level in self.scps for h in level]
        if self.rcp_applies:
            hits += [h for level in self.rcps for h in level]
        return hits


def _allows(hits: Iterable[Hit], hopeful: bool) -> list[Hit]:
    return [h for h in hits if h.effect == "Allow" and counts(h.effect, h.result, hopeful)]


def _denies(hits: Iterable[Hit], hopeful: bool) -> list[Hit]:
    return [h for h in hits if h.effect == "Deny" and counts(h.effect, h.result, hopeful)]


# the answer's words for the decision's effects
_WORDS = {Effect.ALLOW: ALLOWED, Effect.DENY: EXPLICITLY_DENIED, Effect.NONE: IMPLICITLY_DENIED}
_EFFECTS = {word: effect for effect, word in _WORDS.items()}


def _decide(s: _Scanned, hopeful: bool) -> tuple[Effect, str, list[Any]]:
    """The decision with undecided statements all for the request (`hopeful`) or all against it.

    Returns the decision, the reason, and what decided it (hits and notes)."""
    request, who = s.request, s.request.who
    denied = _denies(s.applicable(), hopeful)
    if denied:
        return Effect.DENY, "an explicit Deny applies", denied
    # RCPs deny only: AWS attaches RCPFullAWSAccess (allow everything) to every root, OU and account and
    # it cannot be detached, so a level with only Deny statements, or none, denies nothing by itself
    # (AWS Organizations User Guide, "Resource control policies"). SCPs: every level must allow.
    if s.scp_applies:
        for number, level in enumerate(s.scps):
            if not _allows(level, hopeful):
                where = [{"policy": f"scps[{number}]", "allows": False}]
                return Effect.NONE, f"no SCP at level {number} allows", where
    grants = _allows(s.resource, hopeful)
    naming = max((h.naming for h in grants), default=Naming.NONE)
    if who.kind in ("anonymous", "service", "federated"):
        if grants:
            return Effect.ALLOW, "the resource policy allows the principal", grants
        return Effect.NONE, "only a resource policy can allow this principal, and none does", []

    boundary_ok = not s.has_boundary or bool(_allows(s.boundary, hopeful))
    if who.kind == "federated_user":
        session_ok = s.has_session and bool(_allows(s.session, hopeful))
    else:
        session_ok = not s.has_session or bool(_allows(s.session, hopeful))
    identity = _allows(s.identity, hopeful)
    identity_ok = who.kind == "root" or (bool(identity) and boundary_ok and session_ok)
    identity_why: list[Any] = [*identity, *_allows(s.boundary, hopeful), *_allows(s.session, hopeful)]
    if who.kind == "root":
        identity_why = [{"policy": "root user", "allows": True}]
    # a resource policy that names a user or a session itself is not limited by implicit denies in
    # identity policies, boundaries or session policies; one that names a session's role is limited
    # by the boundary and the session policy ("Policy evaluation logic", same account)
    direct_ok = naming == Naming.DIRECT or (naming == Naming.ROLE and boundary_ok and session_ok)
    trust = request.action.lower() in _ASSUME_ACTIONS and ":iam::" in request.resource and ":role/" in request.resource
    kms_key = request.service == "kms" and request.resource.split(":", 5)[2:3] == ["kms"]
    kms_key = kms_key and ":key/" in request.resource  # an alias has no policy of its own
    if trust and who.kind == "root":
        return Effect.NONE, "the root user cannot assume a role", []
    if trust or kms_key:
        what = "role trust policy" if trust else "key policy"
        if request.resource_policy is None:
            return Effect.NONE, f"no {what}: identity policies alone never grant here", []
        if naming == Naming.NONE:
            return Effect.NONE, f"the {what} does not allow the principal", []
        if request.same_account and direct_ok:
            return Effect.ALLOW, f"the {what} allows the principal itself", grants
        if identity_ok:
            return (
                Effect.ALLOW,
                f"the {what} allows the principal's account and its own policies allow",
                grants + identity_why,
            )
        return Effect.NONE, f"the {what} allows only through the principal's own policies, which do not", []
    if request.same_account:
        if grants and direct_ok and naming >= Naming.ROLE:
            return Effect.ALLOW, "the resource policy allows the principal", grants
        if identity_ok:
            return Effect.ALLOW, "the principal's policies allow", identity_why
        return Effect.NONE, _missing(identity, boundary_ok, session_ok, who.kind), []
    if naming >= Naming.ACCOUNT and identity_ok:
        return (
            Effect.ALLOW,
            "across accounts: the resource policy and the principal's policies both allow",
            grants + identity_why,
        )
    if naming == Naming.NONE:
        return Effect.NONE, "across accounts: no resource policy statement allows the principal", []
    return Effect.NONE, "across accounts: " + _missing(identity, boundary_ok, session_ok, who.kind), []


def _missing(identity: list[Hit], boundary_ok: bool, session_ok: bool, kind: str) -> str:
    if not identity:
        return "no identity policy allows"
    if not boundary_ok:
        return "the permissions boundary does not allow"
    if kind == "federated_user" and session_ok is False:
        return "a federated user session needs a session policy that allows"
    return "the session policy does not allow"


def _explain(decided: list[Any]) -> list[dict[str, Any]]:
    out = []
    for item in decided:
        out.append(item.as_dict() if isinstance(item, Hit) else dict(item))
    return out


def _answer(request: Request) -> dict[str, Any]:
    """The answer for one resource: the decision, and whether unknown keys could change it."""
    scanned = _Scanned(request)
    best, reason, decided = _decide(scanned, hopeful=True)
    worst, _, _ = _decide(scanned, hopeful=False)
    keys = {k for h in scanned.applicable() if h.result is None for k in h.keys} if best is not worst else set()
    if best is not worst and not keys:  # undecided statements in guardrails that do not apply cannot matter
        keys = {k for h in scanned.resource + scanned.identity for k in h.keys}
    return _answered(settle(best, worst, keys, Mode.CONTEXT), worst, reason, _explain(decided))


def _answered(decision: Decision, worst: Effect, reason: str, explanation: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer's fields for a decision (`worst`: the decision with every undecided statement against the request)."""
    answer: dict[str, Any] = {
        "decision": _WORDS[decision.effect],
        "conditional": decision.conditional,
        "unknown_keys": list(decision.condition_keys),
        "reason": reason,
        "explanation": explanation,
    }
    if decision.conditional:
        answer["if_keys_fail"] = _WORDS[worst]
    return answer


def _before_policies(request: Request) -> dict[str, Any] | None:
    """The answers AWS gives before any policy is read: an unsigned request, sts:GetCallerIdentity."""
    who, action = request.who, request.action.lower()
    if who.kind == "anonymous" and not anonymous_callable(action):
        reason = f"{request.action} needs a signed request: an anonymous caller cannot make it"
        return {
            "decision": IMPLICITLY_DENIED,
            "reason": reason,
            "explanation": [{"policy": "request signing", "allows": False}],
        }
    if action == _CALLER_IDENTITY and who.iam:
        reason = "sts:GetCallerIdentity needs no permission, and no Deny stops it"
        return {
            "decision": ALLOWED,
            "reason": reason,
            "explanation": [{"policy": "sts:GetCallerIdentity", "allows": True}],
        }
    return None


def _both(request: Request) -> dict[str, Any]:
    """A KMS alias operation: allowed only when allowed on the alias (no resource policy: the identity
    side) and on each key it names (under the key policy, the request's `resource_policy`)."""
    sides = [("alias", _answer(replace(request, resource_policy=None, alias_keys=())))]
    for key, key_policy in request.alias_keys:
        parts = key.split(":", 5)
        account = parts[4] if len(parts) == 6 and parts[4] else request.resource_account
        policy = request.resource_policy if key_policy is None else key_policy
        on_key = replace(request, resource=key, resource_account=account, resource_policy=policy, alias_keys=())
        sides.append((key, _answer(on_key)))
    best = every(_EFFECTS[a["decision"]] for _, a in sides)  # both sides must allow
    worst = every(_EFFECTS[a.get("if_keys_fail", a["decision"])] for _, a in sides)
    where, deciding = next((w, a) for w, a in sides if a["decision"] == _WORDS[best])
    reason = ("on the alias: " if where == "alias" else f"on key {where}: ") + deciding["reason"]
    explanation = [
        {**item, "resource": request.resource if w == "alias" else w} for w, a in sides for item in a["explanation"]
    ]
    keys = {k for _, a in sides for k in a["unknown_keys"]}
    return _answered(settle(best, worst, keys, Mode.CONTEXT), worst, reason, explanation)


def decide(request: Request) -> dict[str, Any]:
    """The answer for a validated request."""
    answer = _before_policies(request)
    if answer is not None:
        answer = {"decision": answer["decision"], "conditional": False, "unknown_keys": [], **answer}
    elif request.alias_keys:
        answer = _both(request)
    else:
        answer = _answer(request)
    if request.notes:
        answer["notes"] = list(request.notes)
    return answer


def evaluate_request(raw: Any) -> dict[str, Any]:
    """Answer one request: `decision`, `conditional`, `unknown_keys`, `reason`, `explanation`.

    Raises RequestError for an invalid request."""
    return decide(parse_request(raw))


def evaluate_requests(raw: Any) -> tuple[Any, bool]:
    """One request, or a list of them where an invalid item is answered with its `error`.

    Returns the answer (a dict, or a list in the same order) and whether it is an answer
    (False only for a single invalid request)."""
    if isinstance(raw, list):
        answers: list[dict[str, Any]] = []
        for item in raw:
            try:
                answers.append(evaluate_request(item))
            except RequestError as exc:
                answers.append({"error": str(exc)})
        return answers, True
    try:
        return evaluate_request(raw), True
    except RequestError as exc:
        return {"error": str(exc)}, False
