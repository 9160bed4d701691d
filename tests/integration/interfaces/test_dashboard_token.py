"""The dashboard token's file: private, the current user's, printed as a URL by `make run`'s first step."""

from __future__ import annotations

import stat
import subprocess
import sys

import pytest

from blastshield_core.base.dashboard_token import cookie_value, ensure_token, token_matches
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
        assert f"http://127.0.0.1:8599/?token={token}" in out.stdout
        urls.append(token)
    assert urls[0] != urls[1] and len(urls[1]) >= 32  # a fresh token on each start
    assert stat.S_IMODE((data / "dashboard.token").stat().st_mode) == 0o600
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    token = urls[1]
    assert token_matches(token, token) and not token_matches(token[:-1] + "x", token) and not token_matches(None, token)
    assert cookie_value(token) != token and len(cookie_value(token)) == 64


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
