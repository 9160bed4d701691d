"""A loopback HTTP server speaking the Gemini generateContent wire format.

The only fake in the suite: the real google-genai client talks to it, turn by
turn, from a script. Requests are recorded so tests can assert what the model
was shown (tool declarations, function responses, prompts).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """A reply carrying one function call."""
    return calls((name, args or {}))


def calls(*pairs: tuple[str, Any]) -> dict[str, Any]:
    """A reply carrying several function calls in one turn."""
    parts = [{"functionCall": {"name": name, "args": args}} for name, args in pairs]
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}


def text(message: str) -> dict[str, Any]:
    """A reply with text only."""
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": message}]}, "finishReason": "STOP"}]}


class HttpStatus:
    """Reply with an HTTP error status."""

    def __init__(self, code: int):
        self.code = code


class Delay:
    """Sleep, then reply."""

    def __init__(self, seconds: float, reply: Any):
        self.seconds = seconds
        self.reply = reply


class Raw:
    """Reply with raw bytes (e.g. not JSON)."""

    def __init__(self, body: bytes):
        self.body = body


class FakeGemini:
    """Serves scripted replies on 127.0.0.1 and records every request."""

    def __init__(self) -> None:
        self.script: list[Any] = []
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with fake._lock:
                    fake.paths.append(self.path)
                    try:
                        fake.requests.append(json.loads(body))
                    except json.JSONDecodeError:
                        fake.requests.append({"raw": body.decode(errors="replace")})
                    item = fake.script.pop(0) if fake.script else text("script exhausted")
                if isinstance(item, Delay):
                    time.sleep(item.seconds)
                    item = item.reply
                if isinstance(item, HttpStatus):
                    error = {"error": {"code": item.code, "message": "scripted failure", "status": "INTERNAL"}}
                    self._send(item.code, json.dumps(error).encode())
                elif isinstance(item, Raw):
                    self._send(200, item.body)
                else:
                    self._send(200, json.dumps(item).encode())

            def _send(self, code: int, data: bytes) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def add(self, *items: Any) -> None:
        with self._lock:
            self.script.extend(items)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def json_text(payload: Any) -> dict[str, Any]:
    """A reply whose text is a JSON document (what structured output returns)."""
    return text(payload if isinstance(payload, str) else json.dumps(payload))
