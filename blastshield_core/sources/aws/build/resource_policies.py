"""Resource policies (bucket, secret and key policies) read from their per-resource exports, and
one data read decided from both sides: the identity side as the transform already found it,
the resource policy and the organisation's guardrails as `evaluate_input.scan` finds them.

The rules are those of `evaluate.py` (IAM User Guide, "Policy evaluation logic" and
"Cross-account policy evaluation logic"; AWS KMS Developer Guide, "Key policies"; AWS
Organizations User Guide on SCPs and RCPs), applied with the identity side already decided:

* an explicit Deny in the resource policy or an applicable guardrail decides;
* every level of the SCPs (the principal's account) must allow; RCPs (the resource's account) only
  deny: AWS attaches `RCPFullAWSAccess` to the root, every OU and every account and it cannot be
  detached, so an RCP level with only Deny statements, or none, denies nothing by itself;
* an anonymous caller (a public grant, `Principal: "*"`) can make only the requests AWS accepts
  unsigned (`evaluate.anonymous_callable`, IAM User Guide "AWS Signature Version 4 for API
  requests"): a public grant of any other action allows no anonymous read;
* same account: a resource policy naming the principal itself grants on its own (naming a role
  is limited by the role's permissions boundary); otherwise the identity side must allow;
* across accounts: the resource policy must name the principal or its account, and the identity
  side must allow;
* a KMS key: its key policy must allow (naming the account hands over to identity policies);
* a resource whose policy was not collected keeps the identity side's answer, marked
  `basis: identity policy only` when that answer needed the resource policy (across accounts,
  or a key).

Pure: no I/O, no store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..iam.caller import Caller, Naming
from ..iam.conditions import Context
from ..iam.decision import Effect, Mode, counts, settle
from ..iam.evaluate import RCP_SERVICES, anonymous_callable
from ..iam.evaluate_input import Hit, Request, Rule, read_policy, request_context, scan
from ..iam.policy import PolicyFormatError, as_list
from .get import AwsSources, SourceFile

__all__ = [
    "Level",
    "Read",
    "ResourcePolicy",
    "Side",
    "decide_guarded",
    "decide_read",
    "guardrail_hits",
    "read_resource_policies",
    "referenced_keys",
]

_PRINCIPAL_KEYS = ("aws:principalarn", "aws:principaltag/", "aws:username", "aws:userid", "aws:principaltype")


@dataclass
class ResourcePolicy:
    """One resource's policy as collected (`rules` empty: collected, and the resource has none)."""

    kind: str  # bucket | secret | kms_key
    account: str
    name: str  # the name in the asset's id (bucket name, secret name with its suffix, key id)
    arn: str
    file: str
    rules: list[Rule]
    tags: dict[str, str] | None = None  # the resource's tags, None when not exported
    keys: frozenset[str] = frozenset()  # the condition keys its statements use (lower case)
    per_principal: bool = False  # some statement names principals by ARN or tests a principal's own keys
    named: frozenset[str] = frozenset()  # the principal ARNs its statements name
    # a statement tests a principal's own keys or resolves a policy variable: every principal may
    # be answered differently (else only the principals in `named` are, each alone)
    keyed: bool = False


@dataclass
class Side:
    """What a read's identity side decided for one action: `allow` yes / maybe / no, `deny` explicit."""

    allow: str = "no"
    deny: bool = False
    keys: tuple[str, ...] = ()


@dataclass
class Read:
    """A data read decided from both sides: `effect` allow / deny / none, `conditional` with `keys`."""

    effect: str
    conditional: bool = False
    keys: list[str] = field(default_factory=list)
    basis: str = ""


def referenced_keys(rules: Iterable[Rule]) -> frozenset[str]:
    """The condition keys (lower case) the rules test."""
    found: set[str] = set()
    for rule in rules:
        for keys in (rule.condition or {}).values():
            if isinstance(keys, dict):
                found.update(str(k).lower() for k in keys)
    return frozenset(found)


def _describe(rules: list[Rule]) -> tuple[frozenset[str], bool, frozenset[str], bool]:
    keys = referenced_keys(rules)
    named = {
        entry
        for rule in rules
        for block in (rule.principals, rule.not_principals)
        if block
        for entry in block.get("AWS", ())
        if entry.startswith("arn:") and not entry.endswith(":root")
    }
    variables = any("${" in p for r in rules for p in (r.resources or ()) + (r.not_resources or ()))
    keyed = variables or any(k.startswith(_PRINCIPAL_KEYS) for k in keys)
    return keys, bool(named) or keyed, frozenset(named), keyed


def _policy_rules(file: str, item: str, text: Any, warn: Callable[[str, str, str], None]) -> list[Rule] | None:
    try:
        return read_policy(text)
    except PolicyFormatError as exc:
        warn(file, item, f"resource policy not read ({exc}): the resource counts as having no policy collected")
        return None


def _tags(value: Any) -> dict[str, str] | None:
    if value is None:
        return None
    return {str(t["Key"]): str(t.get("Value", "")) for t in as_list(value) if isinstance(t, dict) and "Key" in t}


def read_resource_policies(
    sources: AwsSources,
    bucket_owner: Callable[[str, SourceFile], str],
    default_account: Callable[[SourceFile], str],
    warn: Callable[[str, str, str], None],
) -> dict[tuple[str, str, str], ResourcePolicy]:
    """Every collected resource policy, by (account, kind, name) as the asset's id is made."""
    out: dict[tuple[str, str, str], ResourcePolicy] = {}

    def put(kind: str, account: str, name: str, arn: str, *, source: SourceFile, rules: list[Rule], tags: Any) -> None:
        keys, per_principal, named, keyed = _describe(rules)
        out[(account, kind, name)] = ResourcePolicy(
            kind, account, name, arn, source.name, rules, tags, keys, per_principal, named, keyed
        )

    for source in sources.of("bucket_policy"):
        bucket = source.resource
        if "Policy" not in source.data:
            warn(source.name, bucket, "no Policy in the bucket policy output: not used")
            continue
        rules = _policy_rules(source.name, f"bucket {bucket}", source.data["Policy"], warn)
        if rules is not None:
            put(
                "bucket",
                bucket_owner(bucket, source),
                bucket,
                f"arn:aws:s3:::{bucket}",
                source=source,
                rules=rules,
                tags=None,
            )
    secrets: dict[str, tuple[str, dict[str, str] | None]] = {}  # name -> (ARN, tags)
    for source in sources.of("secrets"):
        for entry in as_list(source.data.get("SecretList")):
            if isinstance(entry, dict) and isinstance(entry.get("Name"), str) and isinstance(entry.get("ARN"), str):
                secrets[entry["Name"]] = (entry["ARN"], _tags(entry.get("Tags")))
    for source in sources.of("secret_policy"):
        name = str(source.data.get("Name") or source.resource)
        arn, tags = secrets.get(name, (str(source.data.get("ARN") or ""), None))
        if not arn.startswith("arn:"):
            warn(source.name, name, "secret not in secretsmanager-list-secrets and its ARN not in the file: not used")
            continue
        account = _account_of(arn)
        if not account:
            account = default_account(source)
            warn(source.name, name, f"the secret's ARN names no 12-digit account: taken as {account}")
        text = source.data.get("ResourcePolicy")
        rules = [] if text in (None, "") else _policy_rules(source.name, f"secret {name}", text, warn)
        if rules is not None:
            put("secret", account, arn.split(":secret:", 1)[-1], arn, source=source, rules=rules, tags=tags)
    keys: dict[str, str] = {}  # key id -> ARN
    for source in sources.of("kms_keys"):
        for entry in as_list(source.data.get("Keys")):
            if isinstance(entry, dict) and isinstance(entry.get("KeyId"), str):
                keys[entry["KeyId"]] = str(entry.get("KeyArn") or "")
    for source in sources.of("key_policy"):
        key_id = source.resource
        arn = keys.get(key_id, "")
        account = _account_of(arn) or default_account(source)
        if not arn:
            warn(source.name, key_id, f"key not in kms-list-keys: taken as a key of {account}")
        if "Policy" not in source.data:
            warn(source.name, key_id, "no Policy in the key policy output: not used")
            continue
        rules = _policy_rules(source.name, f"key {key_id}", source.data["Policy"], warn)
        if rules is not None:
            put(
                "kms_key",
                account,
                key_id,
                arn or f"arn:aws:kms:*:{account}:key/{key_id}",
                source=source,
                rules=rules,
                tags=None,
            )
    return out


def _account_of(arn: str) -> str:
    parts = arn.split(":", 5)
    return parts[4] if len(parts) == 6 and len(parts[4]) == 12 and parts[4].isdigit() else ""


# ---------------------------------------------------------------- one read, both sides


def request_for(
    who: Caller, action: str, resource: str, account: str, *, facts: dict[str, Any], bounded: bool
) -> Request:
    """The request a scan needs (policies are passed to `scan` directly)."""
    return Request(
        who=who,
        action=action,
        resource=resource,
        resource_account=account,
        identity=[],
        boundary=[] if bounded else None,
        resource_policy=None,
        scps=[],
        rcps=[],
        session=None,
        context=facts,
    )


def _allows(hits: list[Hit], hopeful: bool) -> list[Hit]:
    return [h for h in hits if h.effect == "Allow" and counts(h.effect, h.result, hopeful)]


def _denies(hits: list[Hit], hopeful: bool) -> bool:
    return any(h.effect == "Deny" and counts(h.effect, h.result, hopeful) for h in hits)


@dataclass(frozen=True)
class Level:
    """One guardrail level's hits for a request; `needs_allow`: the level denies unless one of its
    statements allows (an SCP level; an RCP level holds `RCPFullAWSAccess` and only denies)."""

    needs_allow: bool
    hits: list[Hit]


def _guardrail_hits(
    request: Request, context: Context, scps: list[list[list[Rule]]], rcps: list[list[list[Rule]]]
) -> list[Level]:
    """The hits of each guardrail level that applies: SCPs to principals of accounts (not to
    service-linked roles), RCPs to the services they cover (not to service principals or
    service-linked roles; the management account's levels are empty already)."""
    who = request.who
    levels: list[Level] = []
    if scps and who.iam and not who.service_linked:
        for n, level in enumerate(scps):
            hits = [h for i, p in enumerate(level) for h in scan(p, f"scps[{n}][{i}]", request, context)]
            levels.append(Level(True, hits))
    if rcps and request.service in RCP_SERVICES and who.kind != "service" and not who.service_linked:
        for n, level in enumerate(rcps):
            hits = [h for i, p in enumerate(level) for h in scan(p, f"rcps[{n}][{i}]", request, context, who=who)]
            levels.append(Level(False, hits))
    return levels


def _level_denies(levels: list[Level], hopeful: bool) -> bool:
    return any(_denies(level.hits, hopeful) for level in levels)


def _level_lacks_allow(levels: list[Level], hopeful: bool) -> bool:
    """An SCP level none of whose statements allows (RCP levels never lack one: RCPFullAWSAccess)."""
    return any(level.needs_allow and not _allows(level.hits, hopeful) for level in levels)


guardrail_hits = _guardrail_hits  # the public name, for callers that keep the hits


def decide_guarded(request: Request, side: Side, scps: list[list[list[Rule]]], rcps: list[list[list[Rule]]]) -> Read:
    """An action whose every other policy is decided (`side`: a role assumption, with its trust
    policy) under the organisation's guardrails: a Deny decides, every level must allow."""
    levels = _guardrail_hits(request, request_context(request), scps, rcps)

    def decided(hopeful: bool) -> str:
        if side.deny or _level_denies(levels, hopeful):
            return "deny"
        if _level_lacks_allow(levels, hopeful):
            return "none"
        return "allow" if side.allow == "yes" or (hopeful and side.allow == "maybe") else "none"

    best, worst = decided(True), decided(False)
    keys: set[str] = set()
    if best == "allow" and worst != "allow":
        keys = {k for level in levels for h in level.hits for k in h.keys} | set(side.keys)
    found = settle(Effect(best), Effect(worst), keys, Mode.UNDECIDED)
    return Read(found.effect.value, found.conditional, list(found.condition_keys))


def decide_read(
    request: Request,
    side: Side,
    *,
    policy: ResourcePolicy | None,
    scps: list[list[list[Rule]]],
    rcps: list[list[list[Rule]]],
    boundary_ok: bool,
    guardrail_hits: Callable[[Request, Context], list[Level]] | None = None,
) -> Read:
    """One action on one resource, with the identity side decided (`side`); `guardrail_hits`, when
    given, finds the guardrails' hits (the caller may keep them for requests alike)."""
    who = request.who
    if who.kind == "anonymous" and not anonymous_callable(request.action):
        return Read("none", basis="request signing")  # AWS refuses the unsigned request before any policy
    context: Context = request_context(request)
    rp_hits = scan(policy.rules, "resource_policy", request, context, who=who) if policy else []
    if guardrail_hits is not None:
        levels = guardrail_hits(request, context)
    else:
        levels = _guardrail_hits(request, context, scps, rcps)
    kms = request.service == "kms"

    def decided(hopeful: bool) -> tuple[str, str]:
        if side.deny or _denies(rp_hits, hopeful):
            return "deny", "resource policy"
        if _level_denies(levels, hopeful):
            return "deny", "guardrail"
        if _level_lacks_allow(levels, hopeful):
            return "none", "guardrail"
        grants = _allows(rp_hits, hopeful)
        naming = max((h.naming for h in grants), default=Naming.NONE)
        identity_ok = side.allow == "yes" or (hopeful and side.allow == "maybe")
        direct_ok = naming == Naming.DIRECT or (naming == Naming.ROLE and boundary_ok)
        if who.kind == "anonymous":
            return ("allow", "resource policy") if grants else ("none", "")
        if policy is None:
            if not identity_ok:
                return "none", ""
            return "allow", "identity policy only" if (kms or not request.same_account) else ""
        if kms:
            if naming == Naming.NONE:
                return "none", ""
            if request.same_account and direct_ok:
                return "allow", "key policy"
            return ("allow", "identity and key policy") if identity_ok else ("none", "")
        if request.same_account:
            if grants and direct_ok and naming >= Naming.ROLE:
                return "allow", "resource policy" if not identity_ok else ""
            return ("allow", "") if identity_ok else ("none", "")
        if naming >= Naming.ACCOUNT and identity_ok:
            return "allow", "identity and resource policy"
        return "none", ""

    best, basis = decided(True)  # basis: what allowed it, or what removed it (a guardrail, else the resource side)
    worst, _ = decided(False)
    keys: set[str] = set()
    if best == "allow" and worst != "allow":
        keys = {k for h in rp_hits for k in h.keys} | {k for level in levels for h in level.hits for k in h.keys}
        if side.allow == "maybe":
            keys |= set(side.keys)
    found = settle(Effect(best), Effect(worst), keys, Mode.UNDECIDED)
    return Read(found.effect.value, found.conditional, list(found.condition_keys), basis)
