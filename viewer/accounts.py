"""The league's pages for entrants and the organiser: logging in with a token, uploads, builds, logs and the
organiser's pause, remove and restore. Who may do what (:mod:`viewer.guard` says who is asking):

* anyone: the ladder, entrants' public pages, games (:mod:`viewer.site`);
* an entrant, with its token: uploading a new version of itself, and reading its own builds' logs and its own
  bots' stderr logs (one a game and seat, the latest within its quota: :mod:`league.logs`); never another
  entrant's (403);
* the organiser, with the organiser's token: every entrant's builds and logs, and pausing, removing and
  restoring entrants.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import trio
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from league.analysis import status_line
from league.builds import receive
from league.contest import ContestClosed, check_open
from league.db import PAUSED_BY_ORGANISER, Holder, LeagueDB, LeagueError
from league.logs import GAME_LOG_CAP, MIB, entrant_of, game_of, quota_mib, removed_text
from league.runner import games_folder
from league.uploads import UploadError
from referee.match import file_safe
from referee.records.record import GameRecord

from .guard import BIGGEST, Guard, address, by_browser, check_csrf, csrf_value

LOG_TAIL = 64 << 10  # the end of a stderr log a page shows
LOGS_LISTED = 100  # an entrant's newest logs its page links to


@attrs.define
class Accounts:
    db: LeagueDB
    folder: Path  # the league's
    templates: Jinja2Templates
    title: str
    wake: trio.MemorySendChannel | None = None  # tells the builder an upload is queued
    guard: Guard = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.guard = Guard(self.db)

    def routes(self) -> list[Route]:
        return [
            Route("/login", self.login, methods=["GET", "POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/organiser", self.organiser),
            Route("/entrant/{name}/upload", self.upload, methods=["POST"]),
            Route("/entrant/{name}/status", self.status, methods=["POST"]),
            Route("/entrant/{name}/builds/{build:int}", self.build_log),
            Route("/entrant/{name}/logs/{file}", self.bot_log),
        ]

    # ------------------------------------------------------------------ who
    def page(self, request: Request, template: str, context: dict, status: int = 200) -> Response:
        holder = self.guard.holder(request)
        return self.templates.TemplateResponse(request, template, {
            "title": self.title, "holder": holder, "csrf": csrf_value(request), **context}, status_code=status)

    def private(self, request: Request, name: str) -> dict:
        """What an entrant's page shows only to that entrant and the organiser: its builds and its logs."""
        holder = self.guard.holder(request)
        if holder is None or not (holder.organiser or holder.entrant == name):
            return {"mine": False, "organiser": False}
        logs = self.bot_logs(name)
        return {"mine": holder.entrant == name, "organiser": holder.organiser, "builds": self.db.builds(name),
                "logs": logs[:LOGS_LISTED], "older_logs": len(logs[LOGS_LISTED:]),
                "quota_mib": quota_mib(self.db.settings()), "game_log_mib": GAME_LOG_CAP // MIB}

    def signed_in(self, request: Request) -> Holder:
        """Who sent ``request``; 401 if nobody."""
        holder = self.guard.holder(request)
        if holder is None:
            raise HTTPException(401, "log in with your token first (/login), or send it: Authorization: Bearer TOKEN")
        return holder

    def organiser_only(self, request: Request, what: str) -> None:
        """403, saying ``what`` is the organiser's, unless the organiser sent ``request``."""
        holder = self.guard.holder(request)
        if holder is None or not holder.organiser:
            raise HTTPException(403, what)

    def allowed(self, request: Request, name: str) -> Holder:
        """The holder if it is ``name`` or the organiser; else 401 (nobody) or 403 (someone else)."""
        holder = self.signed_in(request)
        if not (holder.organiser or holder.entrant == name):
            raise HTTPException(403, "only that entrant (with its token) and the organiser may see this")
        return holder

    # ------------------------------------------------------------------ logging in
    async def login(self, request: Request) -> Response:
        if request.method == "GET":
            return self.page(request, "login.html", {})
        self.guard.limit(self.guard.logins, address(request))  # every try counts, whatever it sends
        form = await request.form(max_files=0, max_fields=4)
        check_csrf(request, form)
        holder = await trio.to_thread.run_sync(self.guard.login, request, str(form.get("token", "")))
        if holder is None:
            return self.page(request, "login.html", {"error": "that token is nobody's"}, status=403)
        where = "/organiser" if holder.organiser else f"/entrant/{holder.entrant}"
        return RedirectResponse(where, status_code=303)

    async def logout(self, request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=4)
        check_csrf(request, form)
        await trio.to_thread.run_sync(self.guard.logout, request)  # ended on the server, not only in the cookie
        return RedirectResponse("/", status_code=303)

    # ------------------------------------------------------------------ uploads
    async def upload(self, request: Request) -> Response:
        """A new version's archive (multipart field ``archive``): checked, then queued for its build."""
        name = request.path_params["name"]
        if self.signed_in(request).entrant != name:
            raise HTTPException(403, f"only {name}, with its own token, may upload its versions")
        self.guard.limit(self.guard.uploads, name)
        self.guard.limit(self.guard.uploads_from, address(request))
        form = await request.form(max_files=1, max_fields=4)
        check_csrf(request, form)
        try:
            await trio.to_thread.run_sync(check_open, self.db)
        except ContestClosed as e:
            raise HTTPException(403, f"upload refused: {e}") from None
        archive = form.get("archive")
        if not isinstance(archive, UploadFile):
            raise HTTPException(400, "no archive: send the file as the form field 'archive'")
        data = await archive.read()
        entrant = next((e for e in self.db.entrants() if e.name == name), None)
        if entrant is None or entrant.status == "removed":
            raise HTTPException(403, f"{name} is not in the league")
        if entrant.status == "paused" and entrant.version is not None and entrant.note == PAUSED_BY_ORGANISER:
            raise HTTPException(403, f"{name} is paused by the organiser: ask them to restore it")
        try:
            build = await trio.to_thread.run_sync(receive, self.folder, self.db, name, data)
        except UploadError as e:
            raise HTTPException(400, f"upload refused: {e}") from None
        if self.wake is not None:
            try:
                self.wake.send_nowait(None)
            except trio.WouldBlock:
                pass  # the builder has been told already
        if by_browser(request):
            return RedirectResponse(f"/entrant/{name}#builds", status_code=303)
        return PlainTextResponse(f"build {build} queued; its log: /entrant/{name}/builds/{build}\n", status_code=202)

    async def build_log(self, request: Request) -> Response:
        name = request.path_params["name"]
        self.allowed(request, name)
        number = request.path_params["build"]
        build = self.db.build(number) if number < BIGGEST else None
        if build is None or build.entrant != name:
            raise HTTPException(404, "no such build")
        if not by_browser(request):
            return PlainTextResponse(f"{build.status}{': ' + build.message if build.message else ''}\n{build.log}")
        return self.page(request, "build.html", {"name": name, "build": build})

    # ------------------------------------------------------------------ bots' logs
    def bot_logs(self, name: str) -> list[str]:
        """The stderr logs of ``name``'s versions (a file per game and seat), newest first."""
        logs = games_folder(self.folder) / "logs"
        if not logs.is_dir():
            return []
        found = []
        for p in logs.iterdir():
            if entrant_of(p.name) == name:
                try:
                    found.append((-p.stat().st_mtime, p.name))
                except FileNotFoundError:
                    pass  # (removed by the quota since)
        return [file for _, file in sorted(found)]

    async def bot_log(self, request: Request) -> Response:
        name, file = request.path_params["name"], request.path_params["file"]
        self.allowed(request, name)
        if entrant_of(file) != name:
            raise HTTPException(404, "no such log")
        path = games_folder(self.folder) / "logs" / file
        try:
            with open(path, "rb") as f:
                size = f.seek(0, 2)
                f.seek(max(0, size - LOG_TAIL))
                text = f.read().decode(errors="replace")
        except FileNotFoundError:
            gone = await trio.to_thread.run_sync(self.removed, file)
            raise HTTPException(410 if gone else 404, gone or "no such log") from None
        if not by_browser(request):
            return PlainTextResponse(text)
        return self.page(request, "log.html", {"name": name, "file": file, "text": text, "cut": size > LOG_TAIL})

    def removed(self, file: str) -> str | None:
        """Why the log ``file`` is not there, if it was the log of a seat of a game the league saved (the quota
        removed it); None if there never was such a log."""
        seat_and_game = game_of(file)
        if seat_and_game is None:
            return None
        seat, game_id = seat_and_game
        game = self.db.game_by_id(game_id)
        if game is None or seat not in {file_safe(s.entrant) for s in GameRecord.from_json(game[1]).seats}:
            return None
        return f"{removed_text(self.db.settings())} (game {game[0]}'s record is whole: /game/{game[0]}/)"

    # ------------------------------------------------------------------ the organiser
    async def organiser(self, request: Request) -> Response:
        self.organiser_only(request, "the organiser's page: log in with the organiser's token")
        entrants = await trio.to_thread.run_sync(self.db.entrants)
        analysis = await trio.to_thread.run_sync(status_line, self.db, self.folder)  # (how it keeps up)
        return self.page(request, "organiser.html", {"entrants": entrants, "analysis": analysis})

    async def status(self, request: Request) -> Response:
        """The organiser pauses, removes or restores an entrant (form field ``action``)."""
        name = request.path_params["name"]
        self.organiser_only(request, "only the organiser may pause, remove or restore entrants")
        form = await request.form(max_files=0, max_fields=4)
        check_csrf(request, form)
        status = {"pause": "paused", "remove": "removed", "restore": "active"}.get(str(form.get("action")))
        if status is None:
            raise HTTPException(400, "action: pause, remove or restore")
        note = PAUSED_BY_ORGANISER if status == "paused" else ""
        try:
            await trio.to_thread.run_sync(self.db.set_status, name, status, note)
        except LeagueError as e:
            raise HTTPException(404, str(e)) from None
        if by_browser(request):
            return RedirectResponse("/organiser", status_code=303)
        return PlainTextResponse(f"{name}: {status}\n")


__all__ = ["Accounts"]
