"""Bounds on everything an endpoint controls: how long a call and a collection take, how large a
response is, how many pages a listing has and how many principals one collection fans out to.

Every request a collector client makes is sent here (botocore's `before-send` event), not by
botocore's own HTTP session: the body is read in chunks, each read waiting at most until the
call's deadline (the earlier of the per-call and the per-collection one), so a drip or a hang
ends at the deadline, and a body past `max_bytes` is dropped as it streams. A bound passed raises
`BoundExceeded`, which botocore does not retry (its one retry layer retries only throttling,
transient errors and connection failures, at most `max_attempts` times in all).
"""

from __future__ import annotations

import http.client
import os
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = ["BoundExceeded", "BoundedSender", "Bounds", "Clock", "NotAws"]

_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Bounds:
    """The limits of one collection (all configurable on `collect-aws`)."""

    call_s: float = 30.0  # one request, its whole response included
    collection_s: float = 1800.0  # the whole collection of every account
    max_pages: int = 1000  # pages of one paginated listing
    max_bytes: int = 32 << 20  # one response body
    max_total_bytes: int = 512 << 20  # every response of the collection (what one import may read)
    max_principals: int = 20000  # users one collection lists access keys for
    pool: int = 8  # per-principal calls at once
    max_attempts: int = 3  # botocore's retries included (the one retry layer)
    connect_s: float = 5.0

    def check(self) -> None:
        for name in ("call_s", "collection_s", "connect_s"):
            if not 0 < getattr(self, name) <= 86400:
                raise ValueError(f"{name} must be more than 0 and at most 86400 seconds")
        for name, top in (("max_pages", 10**6), ("max_bytes", 1 << 32), ("max_total_bytes", 1 << 40),
                          ("max_principals", 10**7), ("pool", 64)):  # fmt: skip
            if not 1 <= getattr(self, name) <= top:
                raise ValueError(f"{name} must be 1 to {top}")
        if not 1 <= self.max_attempts <= 10:
            raise ValueError("max_attempts must be 1 to 10")


class BoundExceeded(Exception):
    """A bound passed: the call and the limit. Not a botocore error, so never retried."""

    def __init__(self, limit: str, message: str):
        super().__init__(message)
        self.limit = limit


class NotAws(Exception):
    """An answer no AWS API gives (a web page): the endpoint is not AWS or not a faithful mirror."""


@dataclass
class Clock:
    """The collection's deadline, shared by every thread of one collection."""

    bounds: Bounds
    started: float = field(default_factory=time.monotonic)

    @property
    def deadline(self) -> float:
        return self.started + self.bounds.collection_s

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0


def _size(limit: int) -> str:
    return f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit} bytes"


def _ca_file() -> str | None:
    for var in ("AWS_CA_BUNDLE", "REQUESTS_CA_BUNDLE"):
        if os.environ.get(var):
            return os.environ[var]
    try:
        from botocore.httpsession import get_cert_path

        return get_cert_path(True)
    except Exception:
        return None


class _Raw:
    """The read body, as botocore's AWSResponse reads a raw response."""

    def __init__(self, body: bytes):
        self._body = body

    def stream(self, *_: Any, **__: Any):
        yield self._body


class BoundedSender:
    """Sends botocore's requests with a deadline over the whole response and a size limit.

    One keep-alive connection per thread and host. Connection failures are raised as botocore's
    own (`EndpointConnectionError`, `ConnectTimeoutError`), which its retry layer retries."""

    def __init__(self, bounds: Bounds, clock: Clock):
        self.bounds = bounds
        self.clock = clock
        self._local = threading.local()
        self._context: ssl.SSLContext | None = None
        self._total = 0
        self._total_lock = threading.Lock()

    # -- the handler -----------------------------------------------------------------
    def __call__(self, request: Any, event_name: str = "", **_: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        operation = event_name.rsplit(".", 1)[-1] if event_name else ""
        deadline = min(time.monotonic() + self.bounds.call_s, self.clock.deadline)
        if time.monotonic() >= deadline:
            raise self._late(operation, deadline)
        url = urlsplit(request.url)
        body = request.body
        if hasattr(body, "read"):
            body = body.read()
        headers = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in request.headers.items()}
        for attempt in (0, 1):
            conn, fresh = self._connection(url, deadline)
            try:
                conn.sock.settimeout(max(deadline - time.monotonic(), 0.001))
                path = url.path or "/"
                conn.request(request.method, path + (f"?{url.query}" if url.query else ""), body=body, headers=headers)
                sock = conn.sock  # the connection forgets it once a response says it will close
                response = conn.getresponse()
                data = self._read(response, sock, deadline, operation)
                if data.lstrip()[:14].lower().startswith((b"<!doctype html", b"<html")):
                    self._drop(url)
                    raise NotAws(f"{operation or 'the call'} was answered with a web page (status {response.status})")
            except (BoundExceeded, NotAws):
                self._drop(url)
                raise
            except TimeoutError:
                self._drop(url)
                raise self._late(operation, deadline) from None
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self._drop(url)
                if fresh or attempt:
                    raise self._unreachable(request.url) from None
                continue  # a kept-alive connection the server closed: once more on a new one
            except (OSError, http.client.HTTPException):
                self._drop(url)
                raise self._unreachable(request.url) from None
            if response.will_close:
                self._drop(url)
            return AWSResponse(request.url, response.status, dict(response.getheaders()), _Raw(data))
        raise self._unreachable(request.url)

    # -- parts ---------------------------------------------------------------------------
    def _late(self, operation: str, deadline: float) -> BoundExceeded:
        if deadline >= self.clock.deadline:
            return BoundExceeded(
                "collection_s",
                f"{operation or 'a call'} cut off: the collection's deadline of {self.bounds.collection_s:g} s passed",
            )
        return BoundExceeded(
            "call_s", f"{operation or 'a call'} took longer than the per-call deadline of {self.bounds.call_s:g} s"
        )

    @staticmethod
    def _unreachable(url: str) -> Exception:
        from botocore.exceptions import EndpointConnectionError

        return EndpointConnectionError(endpoint_url=url)

    def _read(self, response: Any, sock: Any, deadline: float, operation: str) -> bytes:
        chunks: list[bytes] = []
        size = 0
        length = response.getheader("Content-Length")
        if length and length.isdigit() and int(length) > self.bounds.max_bytes:
            raise BoundExceeded("max_bytes", self._too_big(operation))
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._late(operation, deadline)
            sock.settimeout(left)
            chunk = response.read1(_CHUNK) if hasattr(response, "read1") else response.read(_CHUNK)
            if not chunk:
                response.close()  # read to its end: the connection may carry the next request
                return b"".join(chunks)
            size += len(chunk)
            if size > self.bounds.max_bytes:
                raise BoundExceeded("max_bytes", self._too_big(operation))
            with self._total_lock:
                self._total += len(chunk)
                if self._total > self.bounds.max_total_bytes:
                    raise BoundExceeded(
                        "max_total_bytes",
                        f"{operation or 'a call'} cut off: the collection's answers passed"
                        f" {_size(self.bounds.max_total_bytes)} in all",
                    )
            chunks.append(chunk)

    def _too_big(self, operation: str) -> str:
        return f"{operation or 'a response'} is larger than the limit of {_size(self.bounds.max_bytes)}: dropped"

    def _connections(self) -> dict[tuple[str, str], Any]:
        if not hasattr(self._local, "conns"):
            self._local.conns = {}
        return self._local.conns

    def _connection(self, url: Any, deadline: float) -> tuple[Any, bool]:
        key = (url.scheme, url.netloc)
        conns = self._connections()
        if key in conns:
            return conns[key], False
        timeout = max(min(self.bounds.connect_s, deadline - time.monotonic()), 0.001)
        host, port = url.hostname or "", url.port
        if url.scheme == "https":
            if self._context is None:
                self._context = ssl.create_default_context(cafile=_ca_file())
            conn: Any = http.client.HTTPSConnection(host, port, timeout=timeout, context=self._context)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        try:
            conn.connect()
        except TimeoutError:
            from botocore.exceptions import ConnectTimeoutError

            raise ConnectTimeoutError(endpoint_url=f"{url.scheme}://{url.netloc}") from None
        except OSError:
            raise self._unreachable(f"{url.scheme}://{url.netloc}") from None
        conns[key] = conn
        return conn, True

    def _drop(self, url: Any) -> None:
        conn = self._connections().pop((url.scheme, url.netloc), None)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        for conn in self._connections().values():
            conn.close()
        self._connections().clear()
