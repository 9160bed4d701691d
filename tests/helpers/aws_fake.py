"""A misbehaving AWS endpoint on loopback: answers botocore by proxying to the moto server
(tests/helpers/aws_live.py), except for the calls it is told to spoil.

    endpoint.spoil("GetAccountAuthorizationDetails", "endless_markers")

Misbehaviours (by the API action's name, as botocore names it on the wire):
`endless_markers`, `repeated_marker`, `cycling_markers` (GAAD pages with no users),
`drip` (one byte a second, never ending), `hang` (no answer), `huge` (a body of `huge_mb` MB with
no Content-Length), `account` (GetCallerIdentity naming `hostile_account`), `denied`
(AccessDenied in the service's protocol), `expired` (ExpiredToken), `throttle` (Throttling every time), `throttle_once`,
`not_aws` (an HTML page with status 200), `slow` (moto's answer after 50 ms; `most_in_flight`
counts how many were answered at once). Every request's action is counted (`seen`).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

_XMLNS = "https://iam.amazonaws.com/doc/2010-05-08/"


def _action(method: str, path: str, headers: dict[str, str], body: bytes) -> str:
    target = headers.get("x-amz-target", "")
    if target:
        return target.rsplit(".", 1)[-1]
    if body and headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return parse_qs(body.decode("utf-8", "replace")).get("Action", [""])[0]
    route = urlsplit(path).path
    if "/functions" in route:
        return "ListFunctions"
    if route.rstrip("/").endswith("/detector"):
        return "ListDetectors"
    if method == "GET" and route == "/":
        return "ListBuckets"
    return f"{method} {route}"


def _gaad_page(marker: str | None) -> bytes:
    more = f"<IsTruncated>true</IsTruncated><Marker>{marker}</Marker>" if marker else "<IsTruncated>false</IsTruncated>"
    return (
        f'<GetAccountAuthorizationDetailsResponse xmlns="{_XMLNS}"><GetAccountAuthorizationDetailsResult>'
        f"{more}<UserDetailList/><GroupDetailList/><RoleDetailList/><Policies/>"
        "</GetAccountAuthorizationDetailsResult><ResponseMetadata><RequestId>fake</RequestId>"
        "</ResponseMetadata></GetAccountAuthorizationDetailsResponse>"
    ).encode()


@dataclass
class FakeEndpoint:
    """The server, what it spoils, and what it saw."""

    moto_url: str
    url: str = ""
    spoiled: dict[str, str] = field(default_factory=dict)
    seen: Counter = field(default_factory=Counter)
    hostile_account: str = "../../x"
    huge_mb: int = 40
    stop: threading.Event = field(default_factory=threading.Event)
    in_flight: int = 0  # `slow` calls being answered now, and the most at once
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    _cycle: int = 0

    def spoil(self, action: str, how: str) -> FakeEndpoint:
        self.spoiled[action] = how
        return self

    def clear(self) -> None:
        self.spoiled.clear()
        self.seen.clear()


def _handler(fake: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: object) -> None:  # quiet
            return

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            action = _action(self.command, self.path, headers, body)
            fake.seen[action] += 1
            how = fake.spoiled.get(action, "")
            if how == "throttle_once":
                fake.spoiled.pop(action, None)
                how = "throttle"
            if how == "slow":  # answered by moto after 50 ms, counting the calls in flight
                with fake.lock:
                    fake.in_flight += 1
                    fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
                time.sleep(0.05)
                try:
                    self._proxy(body)
                finally:
                    with fake.lock:
                        fake.in_flight -= 1
            elif how:
                self._spoil(how, action, headers)
            else:
                self._proxy(body)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _any

        def _send(self, status: int, body: bytes, content_type: str = "text/xml", extra: dict | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("x-amzn-RequestId", "fake")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _error(self, status: int, code: str, message: str, headers: dict[str, str]) -> None:
            if headers.get("x-amz-target") or not headers.get("content-type", "").startswith("application/x-www"):
                body = json.dumps({"__type": code, "message": message}).encode()
                self._send(status, body, "application/x-amz-json-1.1", {"x-amzn-ErrorType": code})
                return
            body = (
                f'<ErrorResponse xmlns="{_XMLNS}"><Error><Type>Sender</Type><Code>{code}</Code>'
                f"<Message>{message}</Message></Error><RequestId>fake</RequestId></ErrorResponse>"
            ).encode()
            self._send(status, body)

        def _spoil(self, how: str, action: str, headers: dict[str, str]) -> None:
            if how == "endless_markers":
                self._send(200, _gaad_page(uuid.uuid4().hex))
            elif how == "repeated_marker":
                self._send(200, _gaad_page("same-marker"))
            elif how == "cycling_markers":
                fake._cycle += 1
                self._send(200, _gaad_page("marker-" + "ABC"[fake._cycle % 3]))
            elif how == "denied":
                self._error(403, "AccessDenied", f"User is not authorized to perform {action}", headers)
            elif how == "expired":
                self._error(403, "ExpiredToken", "The security token included in the request is expired", headers)
            elif how == "throttle":
                self._error(400, "Throttling", "Rate exceeded", headers)
            elif how == "not_aws":
                self._send(200, b"<html><body><h1>Welcome to nginx!</h1></body></html>", "text/html")
            elif how == "account":
                body = (
                    '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
                    f"<GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/x</Arn><UserId>AIDAX</UserId>"
                    f"<Account>{fake.hostile_account}</Account></GetCallerIdentityResult>"
                    "<ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></GetCallerIdentityResponse>"
                ).encode()
                self._send(200, body)
            elif how == "hang":
                fake.stop.wait(600)
                self.close_connection = True
            elif how == "drip":
                self.send_response(200)
                self.send_header("Content-Type", "text/xml")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                while not fake.stop.is_set():
                    try:
                        self.wfile.write(b" ")
                        self.wfile.flush()
                    except OSError:
                        break
                    fake.stop.wait(1.0)
                self.close_connection = True
            elif how == "huge":
                self.send_response(200)
                self.send_header("Content-Type", "text/xml")
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = b" " * (1 << 20)
                try:
                    for _ in range(fake.huge_mb):
                        self.wfile.write(chunk)
                except OSError:
                    pass
                self.close_connection = True
            else:
                raise AssertionError(f"unknown misbehaviour {how!r}")

        def _proxy(self, body: bytes) -> None:
            target = urlsplit(fake.moto_url)
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                conn.request(self.command, self.path, body=body or None, headers=headers)
                answer = conn.getresponse()
                data = answer.read()
            finally:
                conn.close()
            self.send_response(answer.status)
            for k, v in answer.getheaders():
                if k.lower() not in ("content-length", "connection", "transfer-encoding", "server", "date"):
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that closed its kept-alive connection is not an error of the endpoint."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture
def fake_endpoint(moto_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEndpoint]:
    """The misbehaving endpoint in front of a fresh moto account. Profiles: `collect` (keys, the
    fake's endpoint), `nokeys` (the fake's endpoint, no credentials), `respond` (keys, writes)."""
    import urllib.request

    fake = FakeEndpoint(moto_server)
    server = _Server(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    config = tmp_path / "aws-config"
    config.write_text(
        "".join(
            f"[profile {name}]\nregion = us-east-1\nendpoint_url = {fake.url}\n"
            + (f"aws_access_key_id = AKIA{name.upper():0<16}\naws_secret_access_key = secret-{name}\n" if keys else "")
            for name, keys in (("collect", True), ("respond", True), ("nokeys", False))
        ),
        encoding="utf-8",
    )
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # no instance metadata probe for `nokeys`
    monkeypatch.delenv("BLASTSHIELD_AWS_RESPOND_PROFILE", raising=False)
    monkeypatch.setenv("BLASTSHIELD_AWS_COLLECT_PROFILE", "collect")
    urllib.request.urlopen(urllib.request.Request(f"{moto_server}/moto-api/reset", method="POST"), timeout=10)
    try:
        yield fake
    finally:
        fake.stop.set()
        server.shutdown()
        server.server_close()
