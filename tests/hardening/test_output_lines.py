"""A name cannot forge a line of the command line's output.

Before: an archive member named `x\nimported accounts 999999999999: …` whose content was not JSON was
printed raw inside the one-line error, so the export wrote a whole line of its own ("imported
accounts …") under the real "error:" line. Control characters were already shown as escapes; line
breaks now are too, wherever a name is printed: errors, the entity matches, the tool answers.
"""

from __future__ import annotations

import io
import json
import zipfile

from tests.conftest import run_cli

FORGED = "imported accounts 999999999999: 1 Identity; 0 HAS_SESSION; 0 alerts"


def test_an_archive_member_name_with_a_line_break_stays_in_its_error_line(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"evil\n{FORGED}\r\u2028x.json", b"{ not json")
    path = tmp_path / "export.zip"
    path.write_bytes(buffer.getvalue())
    result = run_cli("import-aws", str(path), "--data-dir", str(tmp_path / "data"))
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: nothing written: "), result.stderr
    assert "\\x0aimported accounts 999999999999" in lines[0] and "\\x0d" in lines[0] and "\\u2028" in lines[0]
    assert not any(line.startswith("imported") for line in (result.stdout + result.stderr).splitlines())


def test_entity_names_with_line_breaks_stay_in_their_lines(tmp_path):
    data = tmp_path / "data"
    doc = {
        "format": "blastshield-graph/v1",
        "name": "names",
        "nodes": [
            {"id": "ana", "label": "Identity", "name": f"ana\n{FORGED}"},
            {"id": "bob", "label": "Identity", "name": "bob\u2029[paths_found] 9 qualifying path(s)"},
        ],
        "edges": [],
        "alerts": [],
    }
    (tmp_path / "doc.json").write_text(json.dumps(doc))
    imported = run_cli("import", str(tmp_path / "doc.json"), "--data-dir", str(data))
    assert imported.returncode == 0, imported.stdout + imported.stderr
    found = run_cli("entities", "Identity", "--data-dir", str(data))
    listed = run_cli("entities", "a", "--label", "Identity", "--data-dir", str(data))
    for result in (found, listed):
        assert result.returncode == 0, result.stderr
        assert not any(line.startswith(("imported", "[paths_found] 9")) for line in result.stdout.splitlines())
    shown = listed.stdout.splitlines()
    assert any("ana\\x0aimported accounts 999999999999" in line for line in shown), listed.stdout
    assert any("bob\\u2029[paths_found] 9" in line for line in shown), listed.stdout
    # a name several entities would hold: the matches listed with the error, one line each
    opened = run_cli("alert", "open", "imported accounts", "--title", "t", "--data-dir", str(data))
    assert opened.returncode == 3, opened.stdout + opened.stderr
    assert not any(line.startswith("imported") for line in opened.stderr.splitlines()), opened.stderr
