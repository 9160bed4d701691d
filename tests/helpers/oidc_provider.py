"""A small OpenID Connect provider on loopback, for signing in to the dashboard in a real browser.

Discovery, an authorization endpoint with a login page (one button per known user), a token
endpoint (authorization code, client secret, PKCE S256), JWKS and userinfo. ID tokens are RS256,
carry the nonce of the authorization request and the user's email, groups and verification flag.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

from joserfc import jwt
from joserfc.jwk import RSAKey


class OIDCProvider:
    """Serve on 127.0.0.1 until `stop()`; `users` maps a login name to its claims."""

    def __init__(self, client_id: str, client_secret: str, users: dict[str, dict]):
        self.client_id = client_id
        self.client_secret = client_secret
        self.users = users
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.codes: dict[str, dict] = {}
        self.access_tokens: dict[str, dict] = {}
        self.token_requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def _metadata(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": ["openid", "email", "profile"],
        }

    def _issue(self, form: dict[str, str], basic: str | None) -> tuple[int, dict]:
        client_id, secret = form.get("client_id"), form.get("client_secret")
        if basic:
            client_id, _, secret = base64.b64decode(basic).decode().partition(":")
        if client_id != self.client_id or secret != self.client_secret:
            return 401, {"error": "invalid_client"}
        grant = self.codes.pop(form.get("code", ""), None)
        if grant is None or form.get("grant_type") != "authorization_code":
            return 400, {"error": "invalid_grant"}
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri mismatch"}
        if grant.get("code_challenge"):
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != grant["code_challenge"]:
                return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}
        self.token_requests += 1
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": self.client_id,
            "iat": now,
            "exp": now + 300,
            "nonce": grant["nonce"],
            **self.users[grant["user"]],
        }
        id_token = jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, self.key)
        access = secrets.token_urlsafe(16)
        self.access_tokens[access] = self.users[grant["user"]]
        return 200, {"access_token": access, "token_type": "Bearer", "expires_in": 300, "id_token": id_token}

    def _handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _send(self, status: int, body: bytes, content_type: str, headers: dict | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, data: dict) -> None:
                self._send(status, json.dumps(data).encode(), "application/json")

            def do_GET(self) -> None:
                url = urlparse(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                if url.path == "/.well-known/openid-configuration":
                    self._json(200, provider._metadata())
                elif url.path == "/jwks":
                    self._json(200, {"keys": [provider.key.as_dict(private=False)]})
                elif url.path == "/userinfo":
                    token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    user = provider.access_tokens.get(token)
                    self._json(200, user) if user else self._json(401, {"error": "invalid_token"})
                elif url.path == "/authorize":
                    if query.get("client_id") != provider.client_id or query.get("response_type") != "code":
                        self._json(400, {"error": "invalid_request"})
                        return
                    hidden = "".join(
                        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                        for k, v in query.items()
                    )
                    buttons = "".join(
                        f'<button name="user" value="{html.escape(u)}">Sign in as {html.escape(u)}</button>'
                        for u in provider.users
                    )
                    page = f"<html><body><h1>Test identity provider</h1><form method='post'>{hidden}{buttons}</form>"
                    self._send(200, (page + "</body></html>").encode(), "text/html")
                else:
                    self._json(404, {"error": "not_found"})

            def do_POST(self) -> None:
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length", "0"))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                if url.path == "/authorize":
                    code = secrets.token_urlsafe(16)
                    provider.codes[code] = {
                        "user": form["user"],
                        "nonce": form.get("nonce"),
                        "redirect_uri": form["redirect_uri"],
                        "code_challenge": form.get("code_challenge"),
                    }
                    target = form["redirect_uri"] + "?" + urlencode({"code": code, "state": form.get("state", "")})
                    self._send(302, b"", "text/plain", {"Location": target})
                elif url.path == "/token":
                    basic = self.headers.get("Authorization", "")
                    status, body = provider._issue(form, basic[6:] if basic.startswith("Basic ") else None)
                    self._json(status, body)
                else:
                    self._json(404, {"error": "not_found"})

        return Handler
