"""Who is asking, and the fences of the league's pages against the internet.

* **Tokens.** An entrant (or the organiser) proves who it is with its
  secret token: ``Authorization: Bearer TOKEN`` on each request (``curl``),
  or once through the login form, which keeps a session in a signed cookie
  (Starlette's ``SessionMiddleware``; signed with a key derived from the
  league's, ``SameSite=Strict``, ``Secure`` behind a TLS proxy). The cookie
  holds a random session id; the session itself is kept in the league's
  database (the id's hash and the token's), so logging out ends it on the
  server and a copy of the cookie is refused from then on, a new token
  (``league token``) ends the old one's sessions, and a session ends after
  ``SESSION_DAYS``. The database keeps hashes only.
* **CSRF.** Every form carries the session's random CSRF value, checked on
  every POST made with the cookie; a request with a bearer token carries no
  cookie a browser could send for another site.
* **Rate limits.** Logins (and wrong tokens) per client address, uploads
  per entrant and per address: token buckets, answered with 429 and
  ``Retry-After``.
* **Size.** A request body past ``MAX_BODY`` bytes is cut off with 413
  while it arrives, whatever ``Content-Length`` says: for a browser the
  site's page saying the limit, with a way back; for curl one line.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable

import attrs
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from league.db import Holder, LeagueDB
from league.uploads import MAX_UPLOAD

MAX_BODY = MAX_UPLOAD + (64 << 10)  # an upload and its form's other fields
BIGGEST = 1 << 62  # numbers in addresses past this are no game or build (the database's integers end at 2**63)
SESSION_DAYS = 14


def session_key(league_key: bytes) -> str:
    """The key that signs the pages' session cookies: the league's key, through HMAC, for this one use."""
    return hmac.new(league_key, b"league serve: session cookies", hashlib.sha256).hexdigest()


@attrs.define
class Bucket:
    """A token bucket: ``burst`` at once, then one more every ``every`` seconds."""

    burst: int
    every: float
    _state: dict[str, tuple[float, float]] = attrs.Factory(dict)  # key -> (tokens, when)

    def take(self, key: str) -> float | None:
        """Take one for ``key``: None if allowed, else the seconds until one is free."""
        now = time.monotonic()
        tokens, when = self._state.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - when) / self.every)
        if tokens < 1:
            self._state[key] = (tokens, now)
            return (1 - tokens) * self.every
        self._state[key] = (tokens - 1, now)
        if len(self._state) > 100_000:  # forget the oldest keys rather than grow without end
            for old in sorted(self._state, key=lambda k: self._state[k][1])[:50_000]:
                del self._state[old]
        return None


@attrs.define
class Guard:
    db: LeagueDB
    logins: Bucket = attrs.Factory(lambda: Bucket(10, 30.0))  # per address: 10, then one every 30 s
    uploads: Bucket = attrs.Factory(lambda: Bucket(5, 120.0))  # per entrant: 5, then one every 2 minutes
    uploads_from: Bucket = attrs.Factory(lambda: Bucket(20, 30.0))  # per address (entrants behind one NAT): 20, 1/30 s

    def holder(self, request: Request) -> Holder | None:
        """Who sent ``request``: its bearer token's holder (a wrong one is refused, and counted as a failed
        login), else its session's, else None. Looked up once a request."""
        if not hasattr(request.state, "holder"):
            request.state.holder = self._holder(request)
        return request.state.holder

    def _holder(self, request: Request) -> Holder | None:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            holder = self.db.holder(header[7:].strip())
            if holder is None:
                self.limit(self.logins, address(request))
                raise HTTPException(401, "that token is nobody's")
            return holder
        session = request.session.get("session")
        return self.db.holder_by_session(session) if isinstance(session, str) else None

    def login(self, request: Request, token: str) -> Holder | None:
        """Check ``token``; on success a new session of its holder begins, in the database and the cookie. (The
        caller counts the try against the address.)"""
        holder = self.db.holder(token.strip())
        if holder is not None:
            self.logout(request)  # the session it had, if any, ends
            request.state.holder = holder
            request.session["session"] = self.db.new_session(token.strip(), SESSION_DAYS * 86400)
            request.session["csrf"] = secrets.token_urlsafe(24)
        return holder

    def logout(self, request: Request) -> None:
        """End ``request``'s session: in the database (a copy of its cookie is nobody's from now on) and its
        cookie."""
        session = request.session.get("session")
        if isinstance(session, str):
            self.db.end_session(session)
        request.session.clear()
        request.state.holder = None

    def limit(self, bucket: Bucket, key: str) -> None:
        wait = bucket.take(key)
        if wait is not None:
            raise HTTPException(429, f"too many tries: wait {wait:.0f} s", headers={"Retry-After": f"{wait:.0f}"})


def address(request: Request) -> str:
    """The client's address (behind a proxy started with --behind-proxy: the one the proxy names)."""
    return request.client.host if request.client else "?"


def by_browser(request: Request) -> bool:
    """Whether a browser asked (it takes HTML), rather than curl: a page or a line of text in reply."""
    return "text/html" in request.headers.get("accept", "")


def csrf_value(request: Request) -> str:
    """The session's CSRF value, for a form (made on first use)."""
    value = request.session.get("csrf")
    if not isinstance(value, str):
        value = request.session["csrf"] = secrets.token_urlsafe(24)
    return value


def check_csrf(request: Request, form) -> None:
    """403 unless a POST made with the session's cookie carries the session's CSRF value."""
    if request.headers.get("authorization", "").lower().startswith("bearer "):
        return
    sent, kept = form.get("csrf"), request.session.get("csrf")
    if not (isinstance(sent, str) and isinstance(kept, str) and hmac.compare_digest(sent, kept)):
        raise HTTPException(403, "the form is stale or not this site's (CSRF check): reload the page and try again")


Refuse = Callable[[Request, HTTPException], Awaitable[Response]]  # an error as the site's page or line


class BodyLimit:
    """ASGI middleware: a request whose body passes ``limit`` bytes gets 413, as soon as it does. One that says
    so in its ``Content-Length`` is answered here, before the application sees it: with the page ``refuse`` makes
    of the error (the site's: a styled page for a browser, a line for curl), else a line of text."""

    def __init__(self, app, limit: int = MAX_BODY, refuse: Refuse | None = None) -> None:
        self.app, self.limit, self.refuse = app, limit, refuse

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers", ())).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.limit:
            return await self._too_large(scope, receive, send)
        seen = 0

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise too_large(self.limit)
            return message

        await self.app(scope, counted, send)

    async def _too_large(self, scope, receive, send) -> None:
        error = too_large(self.limit)
        response: Response
        if self.refuse is None:
            response = PlainTextResponse(f"{error.detail}\n", error.status_code, headers=error.headers)
        else:
            response = await self.refuse(Request(scope), error)
        await response(scope, receive, send)


def too_large(limit: int) -> HTTPException:
    """413 for a request past ``limit`` bytes (the connection closes: the rest of the body is never read)."""
    return HTTPException(413, f"the request passes {limit >> 20} MiB, the most the league takes: make the upload's "
                              "archive smaller (leave out what the bot needs neither to build nor to run) and send "
                              "it again", headers={"Connection": "close"})


__all__ = ["BIGGEST", "MAX_BODY", "BodyLimit", "Bucket", "Guard", "address", "by_browser", "check_csrf", "csrf_value",
           "session_key"]
