"""After an AWS import on the AWS accounts page (AppTest): the feedback next to the import, and the
principals with the most qualifying paths to high or critical data, each with a button that opens an
alert on it and shows it selected in the Alerts page's queue."""

from __future__ import annotations

import json

from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, generate_aws
from tests.app.test_app import app, open_page, plain, table

__all__ = ["app"]  # the fixture, shared with tests/app/test_app.py


def _files() -> list[tuple[str, bytes, str]]:
    """A generated account without GuardDuty findings: no alert comes with it."""
    options = AwsGenerateOptions(users=30, roles=20, policies=20, buckets=8, findings=0, seed=5)
    return [(name, json.dumps(data).encode(), "application/json") for name, data in generate_aws(options).items()]


def _in_order(node) -> list:
    """Every element of the page in the order it is drawn."""
    children = getattr(node, "children", None)
    if not children:
        return [node]
    return [leaf for key in sorted(children) for leaf in _in_order(children[key])]


def _import(app):
    open_page(app, "pages/aws.py")
    app.file_uploader(key="aws_upload").set_value(_files())
    app.run()
    app.button(key="aws_import").click().run()
    assert not app.exception, app.exception


def test_the_import_feedback_is_drawn_next_to_the_import(app):
    _import(app)
    order = _in_order(app.main)
    kinds = [(type(e).__name__, getattr(e, "value", None)) for e in order]
    heading = kinds.index(("Subheader", "Import an AWS account (AWS CLI exports)"))
    done = next(i for i, (k, v) in enumerate(kinds) if k == "Success" and "Imported AWS account(s)" in str(v))
    assert heading < done and any(k == "Button" for k, _ in kinds[heading:done])  # below the import button


def test_the_principals_with_most_paths_are_listed_and_an_alert_opens_on_one(app):
    from pages._services import services

    _import(app)
    lines = [plain(m.value) for m in app.markdown if "qualifying path(s)," in m.value]
    assert 1 <= len(lines) <= 10
    tools = services().tools
    listed = []
    for line in lines:
        entity = line.split("`")[1]
        paths, _ = tools._paths("sensitive", 6, {"source_id": entity})  # the investigation's own query
        assert f"**{len(paths)}** qualifying path(s)" in line
        listed.append(len(paths))
    assert listed == sorted(listed, reverse=True) and listed[0] > 0
    first = lines[0].split("`")[1]
    app.button(key="aws_next_open_0").click().run()
    assert not app.exception, app.exception
    assert any(plain(s.value).startswith("Opened alert **AN-") for s in app.success)  # on the Alerts page now
    chosen = app.selectbox(key="alerts_select").value
    rows = {r["alert"]: r for r in table(app, "alert", "entity").to_dict("records")}
    assert chosen.startswith("AN-") and rows[chosen]["entity"] == first
    assert rows[chosen]["qualifying paths"] == listed[0]
