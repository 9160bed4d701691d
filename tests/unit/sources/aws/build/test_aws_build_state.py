"""The AWS build's state in its three parts (build/state.py) and its steps in one ordered table
(build/transform.py): the inventory is frozen once read, the edge sink merges a second reason for a
relationship by one rule, the evaluation cache holds what its keys name, and the steps run in the
table's order."""

from __future__ import annotations

import gc
import weakref

import pytest

from blastshield_core.graph.model import RelType
from blastshield_core.sources.aws import read_sources
from blastshield_core.sources.aws.build.state import EdgeSink, EvaluationCache
from blastshield_core.sources.aws.build.transform import EDGE_STEPS, READ_STEPS, _Builder
from blastshield_core.sources.aws.iam.policy import Decision, Effect, Statement
from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, write_aws_collection


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("aws-state")
    options = AwsGenerateOptions(
        users=40, roles=20, policies=30, buckets=10, escalations=8, bucket_policies=4, org_levels=2, scps=4, seed=4
    )
    write_aws_collection(options, folder)
    return read_sources([folder])


def _recording(ran: list):
    """A builder that records each step as it runs: its name, whether the inventory was frozen, and the
    relationships (key -> properties) before and after it."""

    class Recording(_Builder):
        pass

    for step in READ_STEPS + EDGE_STEPS:

        def record(self, _step=step.name):
            before = dict(self.sink.edges)
            result = getattr(_Builder, _step)(self)
            ran.append((_step, self.inv.frozen, before, dict(self.sink.edges)))
            return result

        setattr(Recording, step.name, record)
    return Recording


def test_the_steps_run_in_the_tables_order_and_the_inventory_is_frozen_between(sources):
    """Every read step runs before the inventory is frozen, every edge family after, in the tables' order."""
    ran: list = []
    _recording(ran)(sources, []).build()
    assert [(name, frozen) for name, frozen, _, _ in ran] == [(s.name, False) for s in READ_STEPS] + [
        (s.name, True) for s in EDGE_STEPS
    ]
    assert len({name for name, *_ in ran}) == len(ran)  # no step twice
    assert all(step.why for step in READ_STEPS + EDGE_STEPS)


def test_each_step_writes_only_the_relationship_types_it_declares(sources):
    """What each step adds, changes or removes is of the types its row of the table names, and every
    declared type is one the graph model knows."""
    ran: list = []
    _recording(ran)(sources, []).build()
    declared = {step.name: step.writes for step in READ_STEPS + EDGE_STEPS}
    touched_by: dict[str, set[str]] = {}
    for name, _, before, after in ran:
        changed = {k for k in before.keys() | after.keys() if before.get(k) is not after.get(k)}
        touched_by[name] = {rel for _, rel, _ in changed}
        assert touched_by[name] <= declared[name], (name, touched_by[name] - declared[name])
    assert set().union(*declared.values()) <= {t.value for t in RelType}
    # the account has escalations, bucket policies and an organisation: the families that re-decide do so
    assert touched_by["escalations"] and touched_by["can_assume"] and touched_by["can_read"]
    assert touched_by["follow_policies"] and touched_by["can_access"]


def test_a_frozen_inventory_refuses_a_field_being_set(sources):
    builder = _Builder(sources, [])
    builder.inv.accounts = {"111122223333": "x"}  # reading: allowed
    builder = _Builder(sources, [])
    builder.build()
    assert builder.inv.frozen and builder.inv.roles
    with pytest.raises(AttributeError, match="frozen"):
        builder.inv.roles = {}
    with pytest.raises(AttributeError, match="frozen"):
        builder.inv.frozen = False


def test_a_second_reason_for_a_relationship_merges_by_one_rule():
    """A deny wins over an allow; an unconditional allow replaces a conditional one; otherwise the first stays."""
    sink = EdgeSink()
    conditional = Decision(Effect.ALLOW, True, ("aws:SourceIp",))
    sink.decision_edge("a", "CAN_READ", "b", conditional)
    assert sink.edges[("a", "CAN_READ", "b")]["conditional"] is True
    sink.decision_edge("a", "CAN_READ", "b", Decision(Effect.ALLOW))
    assert "conditional" not in sink.edges[("a", "CAN_READ", "b")]
    sink.decision_edge("a", "CAN_READ", "b", conditional)
    assert "conditional" not in sink.edges[("a", "CAN_READ", "b")]
    sink.decision_edge("a", "CAN_READ", "b", Decision(Effect.DENY))
    assert sink.edges[("a", "CAN_READ", "b")]["permission"] == "deny"
    sink.decision_edge("a", "CAN_READ", "b", Decision(Effect.ALLOW))
    assert sink.edges[("a", "CAN_READ", "b")]["permission"] == "deny"
    sink.decision_edge("a", "CAN_READ", "c", Decision(Effect.NONE))
    assert ("a", "CAN_READ", "c") not in sink.edges
    # equal decisions share one stored properties dict
    sink.decision_edge("x", "CAN_READ", "y", Decision(Effect.DENY))
    assert sink.edges[("x", "CAN_READ", "y")] is sink.edges[("a", "CAN_READ", "b")]


def test_the_cache_holds_what_its_keys_name():
    """An entry keyed by an object's id keeps the object alive, so the id cannot name another object."""
    cache = EvaluationCache()
    stmt = Statement(effect="Allow", actions=("s3:GetObject",), resources=("*",))
    alive = weakref.ref(stmt)
    cache.stmt_actions[id(stmt)] = frozenset({"s3:GetObject"})
    cache.hold(stmt)
    del stmt
    gc.collect()
    assert alive() is not None
    other = Statement(effect="Allow", actions=("s3:GetObject",), resources=("*",))
    gone = weakref.ref(other)
    del other
    gc.collect()
    assert gone() is None  # what is not held goes


def test_the_builder_holds_every_statement_its_caches_name(sources):
    """After a build, every id in a statement-keyed cache names an object the cache holds."""
    builder = _Builder(sources, [])
    builder.build()
    cache = builder.cache
    held = set(cache._held)
    keyed = set(cache.stmt_actions) | set(cache.stmt_services) | {k[0] for k in cache.hits}
    keyed |= {k[0] for k in cache.statement_candidates} | set(cache.rules)
    assert keyed and keyed <= held


def test_nodes_are_built_through_the_models_public_constructor():
    """The sink builds each node with `NodeSpec.model_construct`, so the model's own checks of the name and
    properties run on it (a property name or a DataAsset the model refuses is refused when built), and no
    module of the build sets a pydantic field by hand."""
    from pathlib import Path

    from blastshield_core.graph.model import NodeSpec
    from blastshield_core.sources import aws

    sink = EdgeSink()
    sink.node("111122223333:user:alice", "Identity", "alice", arn="arn:aws:iam::111122223333:user/alice")
    node = sink.nodes["111122223333:user:alice"]
    assert isinstance(node, NodeSpec) and node.model_fields_set == {"id", "label", "name", "properties"}
    assert NodeSpec.model_validate(node.model_dump(mode="json")) == node
    with pytest.raises(ValueError, match="property name 'bad-key'"):
        sink.node("111122223333:user:bob", "Identity", "bob", **{"bad-key": "x"})
    with pytest.raises(ValueError, match=r"needs properties\.sensitivity"):
        sink.node("111122223333:bucket:b", "DataAsset", "b")
    assert "111122223333:user:bob" not in sink.nodes and "111122223333:bucket:b" not in sink.nodes
    root = Path(aws.__file__).parent
    by_hand = [
        str(path.relative_to(root))
        for folder in ("build", "escalation")
        for path in sorted((root / folder).glob("*.py"))
        if "__pydantic_" in path.read_text(encoding="utf-8") or "object.__new__" in path.read_text(encoding="utf-8")
    ]
    assert by_hand == []


def test_an_edge_family_evaluates_the_principals_it_is_given(sources):
    """The edge families read what they are given, not a shared attribute: `CanRead.run` over one principal
    writes that principal's reads and no other's, exactly those the build's `can_read` step wrote for it."""
    from blastshield_core.sources.aws.build.grants import Assets, CanRead

    ran: list = []
    _recording(ran)(sources, []).build()
    after_can_read = next(after for name, _, _, after in ran if name == "can_read")
    builder = _Builder(sources, [])
    for step in READ_STEPS:
        getattr(builder, step.name)()
    builder.inv.freeze()
    principal = next(
        p for p in builder.inv.users.values() if any(k[0] == p.node and k[1] == "CAN_READ" for k in after_can_read)
    )
    expected = {k: v for k, v in after_can_read.items() if k[0] == principal.node and k[1] == "CAN_READ"}
    CanRead(builder.inv, builder.sink, builder.ev, Assets(builder.inv, builder.sink)).run([principal])
    written = {k: v for k, v in builder.sink.edges.items() if k[1] == "CAN_READ"}
    assert written == expected
