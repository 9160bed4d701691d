"""The dashboard token's file: private, the current user's, printed as a URL by `make run`'s first step."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from urllib.parse import quote

import pytest

from blastshield_core.base.dashboard_token import ensure_token, token_matches
from blastshield_core.base.ownership import UntrustedLocation
from tests.conftest import ROOT
from tests.helpers.other_user import as_other, shared_directory


def test_make_run_prints_a_fresh_token_url_kept_0600(tmp_path):
    data = tmp_path / "data"
    env = {"PATH": "/usr/bin:/bin", "BLASTSHIELD_DATA_DIR": str(data)}
    urls = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-m", "blastshield_core.interfaces.dashboard_start", "--port", "8599"],
                             cwd=ROOT, env=env, capture_output=True, text=True, check=False)  # fmt: skip
        assert out.returncode == 0, out.stderr
        token = (data / "dashboard.token").read_text().strip()
        assert f"open http://127.0.0.1:8599/{token}/\n" in out.stdout  # the dashboard's every URL is under it
        urls.append(token)
    assert urls[0] != urls[1] and len(urls[1]) >= 32  # a fresh token on each start
    assert stat.S_IMODE((data / "dashboard.token").stat().st_mode) == 0o600
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    token = urls[1]
    assert token_matches(token, token) and not token_matches(token[:-1] + "x", token) and not token_matches(None, token)
    assert quote(token, safe="") == token  # one segment of a URL's path as it is


def test_a_token_file_others_can_read_or_another_users_directory_is_refused(tmp_path):
    path = tmp_path / "t" / "dashboard.token"
    ensure_token(path)
    path.chmod(0o644)
    with pytest.raises(UntrustedLocation, match="readable by others"):
        ensure_token(path)
    with shared_directory() as shared:
        theirs = shared / "theirs"
        assert as_other("mkdir", "-m", "0755", str(theirs)).returncode == 0
        with pytest.raises(UntrustedLocation, match="not by the current user"):
            ensure_token(theirs / "dashboard.token")
        out = subprocess.run([sys.executable, "-m", "blastshield_core.interfaces.dashboard_start"], cwd=ROOT,
                             env={"PATH": "/usr/bin:/bin", "BLASTSHIELD_TOKEN_FILE": str(theirs / "dashboard.token")},
                             capture_output=True, text=True, check=False)  # fmt: skip
        assert (
            out.returncode == 2
            and "not by the current user" in out.stderr
            and not (theirs / "dashboard.token").exists()
        )


def test_the_served_path_is_the_token_and_given_on_no_command_line(tmp_path):
    """`dashboard_run` on loopback without sign-in serves under the token, read from its file and handed to
    Streamlit inside the process; a base path given on the command line is replaced; with sign-in or
    beyond loopback nothing is added. The options it hands on are read here without starting a server."""
    code = (
        "import sys, json\n"
        "from streamlit.web import cli\n"
        "from blastshield_core.interfaces import dashboard_run\n"
        "cli.main = lambda: print(json.dumps(sys.argv)) or sys.exit(0)\n"
        "sys.exit(dashboard_run.main(sys.argv[1:]))\n"
    )
    data = tmp_path / "data"
    env = {"PATH": "/usr/bin:/bin", "BLASTSHIELD_DATA_DIR": str(data), "HOME": str(tmp_path)}

    def handed_on(*argv: str) -> list[str]:
        out = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, env=env, capture_output=True,
                             text=True, check=False)  # fmt: skip
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    local = handed_on("--server.port", "8599", "--server.baseUrlPath", "mine")
    token = (data / "dashboard.token").read_text().strip()
    assert local[-2:] == ["--server.baseUrlPath", token] and "mine" not in local
    assert handed_on("--server.address=127.0.0.1")[-1] == token
    wide = handed_on("--server.address", "0.0.0.0")
    assert "--server.baseUrlPath" not in wide and token not in wide
    (tmp_path / "theirs").mkdir(mode=0o755)
    env["BLASTSHIELD_TOKEN_FILE"] = str(tmp_path / "theirs" / "dashboard.token")
    (tmp_path / "theirs" / "dashboard.token").write_text("x" * 40)
    (tmp_path / "theirs" / "dashboard.token").chmod(0o644)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert out.returncode == 2 and "readable by others" in out.stderr and "--server" not in out.stdout
