"""The AWS build keeps its output: the graph document (and the report) built from generated accounts
hash to the digests the builder gave before its state was split and its edge families became steps.

The digests were computed from the builder of the mixins (as the move of the AWS code by stage left it),
over the document in a canonical form: nodes, relationships and alerts sorted (the builder's
relationship order follows set iteration, which varies with hash seeds; the graph does not), the
report's counts, policy counts and warnings (file names without their temporary folder). A change
that alters any node, relationship, property, alert, count or warning changes a digest: the test names
the account whose document changed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from blastshield_core.sources.aws import build_document, read_sources
from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, write_aws_collection

# account -> (generate-aws options, relationships, digest of the document and report built before)
ACCOUNTS = {
    "plain": (dict(users=200, roles=80, policies=120, buckets=40, seed=2), 2736, "cd5a3e8f3bea30dc"),
    "messy": (dict(users=150, roles=60, policies=90, buckets=30, messy=True, seed=5), 2129, "be6229937bfe9502"),
    "escalations": (dict(users=150, roles=60, policies=90, buckets=30, escalations=40, seed=7), 3093, "fcf77aca94b29306"),
    "all": (
        dict(users=180, roles=70, policies=100, buckets=40, escalations=30, bucket_policies=20, org_levels=3, scps=8,
             messy=True, findings=12, seed=11),
        6982,
        "11f730229836cfc4",
    ),
    "policies": (
        dict(users=150, roles=60, policies=90, buckets=30, bucket_policies=20, org_levels=2, scps=6, seed=9),
        5579,
        "92867d431a3596d2",
    ),
}  # fmt: skip


def canonical(doc, report) -> list[str]:
    """The document and report as sorted lines of JSON."""
    nodes = sorted(json.dumps([n.id, str(n.label), n.name, n.properties], sort_keys=True) for n in doc.nodes)
    edges = sorted(json.dumps([e.source, str(e.type), e.target, e.properties], sort_keys=True) for e in doc.edges)
    alerts = sorted(json.dumps(a.model_dump(mode="json"), sort_keys=True) for a in doc.alerts)
    lines = [*nodes, "|", *edges, "|", *alerts]
    lines += ["|", json.dumps([report.counts, report.policy_counts], sort_keys=True, default=str)]
    lines += sorted(json.dumps({**w, "file": Path(w["file"]).name}, sort_keys=True) for w in report.warnings)
    return lines


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", list(ACCOUNTS))
def test_the_built_document_is_the_one_built_before(name, tmp_path):
    options, relationships, expected = ACCOUNTS[name]
    write_aws_collection(AwsGenerateOptions(**options), tmp_path)
    doc, report = build_document(read_sources([tmp_path]))
    lines = canonical(doc, report)
    assert len(doc.edges) == relationships
    assert digest(lines) == expected, f"{name}: the built document changed"


def test_the_digest_sees_a_one_property_change(tmp_path):
    """The canonical form covers properties: changing one relationship's changes the digest."""
    options, _, expected = ACCOUNTS["plain"]
    write_aws_collection(AwsGenerateOptions(**options), tmp_path)
    doc, report = build_document(read_sources([tmp_path]))
    assert digest(canonical(doc, report)) == expected
    first = doc.edges[0]
    doc.edges[0] = first._replace(properties={**first.properties, "status": "blocked"})
    assert digest(canonical(doc, report)) != expected
