"""``league serve``: the league's web pages, read from its database while ``league run`` plays.

A Starlette application (served by Hypercorn on trio, as the ``play`` page
is) with Jinja2 templates, which escape every text a page shows (entrant
names, commands, notes) unless a template says otherwise. Pages:

* ``/``: what the contest is (its variant and rules in a line, its deadline
  and phase if it has them, how to enter, the starter kits) over the ladder
  (:func:`league.ladder.ladder_rows`, as ``league show`` prints it); the page
  asks ``/ladder/rows`` every two seconds and puts in the rows it gets, so it
  follows the games as they finish without a reload;
* ``/kits/KIT.tar.gz``: a starter kit's sources (:mod:`viewer.kits`), and
  ``/PROTOCOL.md`` the protocol a bot speaks, for those who enter;
* ``/entrant/NAME``: an entrant's versions with their ratings along the
  league's games (a plot), its results against every opponent and its latest
  games (:func:`league.ladder.entrant_view`);
* ``/ladder.json``, ``/ladder.csv``: the ladder's rows as data
  (:func:`league.ladder.ladder`), ``/entrant/NAME/history.json`` an entrant's
  ratings along the league's games, ``/final.json`` the contest's phase and
  final standings (:func:`league.contest.final_json`);
* ``/entrant/NAME/analysis`` and ``/entrant/NAME/analysis/N``: where the
  entrant lost its points (:mod:`league.analysis`), over its latest games
  and in game N: its own seats alone, to itself and the organiser only;
* ``/entrant/NAME/analysis/N/replay/``: game N in the replay viewer with the
  marks of ``analysis.js`` (:func:`viewer.marks.game_marks`) on NAME's seats
  alone (the organiser's: every seat's), to the same two;
* ``/game/N/``: game N (its number in the league, a stable address) in the
  replay viewer of the HTML report (``viewer/static/report.js``), its record's
  seal checked first.

With the league's folder it also serves its entrants and organiser
(:mod:`viewer.accounts`: tokens, uploads, builds, logs, pausing), fenced
by :mod:`viewer.guard` (sessions, CSRF, rate limits, body size); the
pages above only read.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import attrs
import trio
from hypercorn.middleware import ProxyFixMiddleware
from sqlalchemy import exc
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from league.analysis import (
    AnalysisStore,
    EntrantAnalysis,
    GameAnalysis,
    PhaseRow,
    analysis_settings,
    entrant_analysis,
    game_analysis,
)
from league.contest import ContestState, contest_state, final_json, when_text
from league.db import LeagueDB
from league.health import damage_line
from league.ladder import entrant_view, history_json, ladder_csv, ladder_json, ladder_rows
from league.ladder import ladder as ladder_of
from referee.records.record import GameRecord
from referee.records.seals import SealError, check_seal
from referee.rules import get_variant
from referee.rules.variants import VariantError

from .accounts import Accounts
from .guard import BIGGEST, SESSION_DAYS, BodyLimit, by_browser, session_key
from .film import film_script
from .kits import kit_archive, kits
from .marks import game_marks
from .report import GAMES_HTML, STATIC, game_row, script_json

TEMPLATES = Jinja2Templates(directory=Path(__file__).resolve().parent / "templates")
POLL_MS = 2000  # how often the ladder page asks for new rows
PROTOCOL = Path(__file__).resolve().parent.parent / "protocol" / "PROTOCOL.md"
HEADERS = [(b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"same-origin")]


class SafetyHeaders:
    """ASGI middleware: no page may be framed by another site (clickjacking), nor its type guessed."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers if scope["type"] == "http" else send)


def ladder_shown(db: LeagueDB) -> dict:
    """What the ladder's rows show: the rows, and each entrant's newest version's bot with its options."""
    return {"rows": ladder_rows(db), "bots": {e.name: e.version.command for e in db.entrants() if e.version}}


def contest_shown(db: LeagueDB) -> dict:
    """What the front page says of the contest: its variant with its options and its rules in a line, and its
    deadline and phase when the league has them (nothing when it has not)."""
    settings = db.settings()
    tournament = settings.get("tournament", {})
    name, options = tournament.get("variant", "two-handed"), tournament.get("options", {})
    try:
        rules = get_variant(name, options).summary
    except VariantError as e:
        rules = str(e)
    return {"variant": name, "options": " ".join(f"{k}={v}" for k, v in options.items()), "rules": rules,
            **phase_shown(contest_state(db, standings=False))}


def phase_shown(state: ContestState) -> dict:
    """The contest's phase in a word and a line, for a league with an end (a deadline, a closing or a final);
    nothing for one without."""
    if state.phase == "open":
        if state.deadline is None:
            return {"phase": None, "phase_line": ""}
        line = f"Entries and new versions close at {when_text(state.deadline)}."
    elif state.phase == "closed" and state.closed_at is not None:  # (a closed contest has its time of closing)
        line = f"Entries and new versions closed at {when_text(state.closed_at)}; the ladder plays on until the final."
    elif state.phase == "final" and state.final is not None:  # (and a final its plan)
        line = (f"The final is on: the ladder's top {state.final.top} play {state.final.games} games on fresh deals; "
                "the ladder plays no more.")
    else:
        line = "The final is over: its standings are final."
    return {"phase": state.phase, "phase_line": line}


def front_shown(db: LeagueDB) -> dict:
    """The front page: what the contest is over the ladder's rows."""
    return {**ladder_shown(db), "contest": contest_shown(db), "kits": list(kits().values())}


def league_site(db: LeagueDB, title: str, folder: Path | None = None, wake: trio.MemorySendChannel | None = None,
                behind_proxy: bool = False) -> ASGIApp:
    """The league's pages over ``db`` (with ``folder``, the league's: also its entrants' uploads, builds and logs;
    ``wake`` tells the builder of an upload). ``behind_proxy``: served by a TLS proxy that names the client."""
    pages = Pages(db, title, Accounts(db, folder or Path("."), TEMPLATES, title, wake), folder)
    app = Starlette(routes=pages.routes(), middleware=[
        Middleware(SafetyHeaders), Middleware(BodyLimit, refuse=pages.refused),
        Middleware(SessionMiddleware, secret_key=session_key(db.key()), session_cookie="league_session",
                   max_age=SESSION_DAYS * 86400, same_site="strict", https_only=behind_proxy)],
        # (Starlette calls each handler with the exceptions of its own class, which its handlers' type cannot say)
        exception_handlers={HTTPException: pages.refused, exc.DatabaseError: pages.unreadable})  # type: ignore[dict-item]
    if behind_proxy:  # (hypercorn and Starlette each type ASGI's messages their own way: one protocol)
        return ProxyFixMiddleware(app, mode="legacy", trusted_hops=1)  # type: ignore[arg-type, return-value]
    return app


@attrs.define
class Pages:
    """The league's pages (and the entrants' and organiser's, through ``accounts``): one method a route."""

    db: LeagueDB
    title: str
    accounts: Accounts
    folder: Path | None = None  # the league's (its analysis.db)
    analyses: AnalysisStore | None = None  # opened at the first analysis page

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/", self.ladder),
            Route("/ladder/rows", self.ladder_fragment),
            Route("/ladder.json", self.ladder_data),
            Route("/ladder.csv", self.ladder_data),
            Route("/final.json", self.final_data),
            Route("/entrant/{name}", self.entrant),
            Route("/entrant/{name}/history.json", self.history),
            Route("/kits/{kit}.tar.gz", self.kit),
            Route("/PROTOCOL.md", self.protocol),
            *self.accounts.routes(),
            Route("/entrant/{name}/analysis", self.analysis),
            Route("/entrant/{name}/analysis/{number:int}", self.game_analysis),
            Route("/entrant/{name}/analysis/{number:int}/replay/", self.marked_replay),
            Route("/entrant/{name}/analysis/{number:int}/replay/films/0.js", self.marked_film),
            Route("/game/{number:int}/", self.game),
            Route("/game/{number:int}/films/0.js", self.game_film),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]

    async def ladder(self, request: Request) -> Response:
        shown = await trio.to_thread.run_sync(front_shown, self.db)
        return self.accounts.page(request, "ladder.html", {**shown, "poll": POLL_MS})

    async def kit(self, request: Request) -> Response:
        known = kits().get(request.path_params["kit"])  # (only a kit found on disk names a folder)
        if known is None:
            raise HTTPException(404, f"no such starter kit; the kits: {', '.join(kits())}")
        data = await trio.to_thread.run_sync(kit_archive, known.name)
        return Response(data, media_type="application/gzip",
                        headers={"Content-Disposition": f'attachment; filename="{known.file}"'})

    async def protocol(self, request: Request) -> Response:
        text = await trio.to_thread.run_sync(PROTOCOL.read_text)
        return PlainTextResponse(text, media_type="text/plain; charset=utf-8")

    async def ladder_fragment(self, request: Request) -> Response:
        shown = await trio.to_thread.run_sync(ladder_shown, self.db)
        return TEMPLATES.TemplateResponse(request, "ladder_rows.html", shown, headers={"Cache-Control": "no-store"})

    async def ladder_data(self, request: Request) -> Response:
        rows = await trio.to_thread.run_sync(ladder_of, self.db)
        as_csv = request.url.path.endswith(".csv")
        return Response(ladder_csv(rows) if as_csv else ladder_json(rows),
                        media_type="text/csv" if as_csv else "application/json",
                        headers={"Cache-Control": "no-store"})

    async def final_data(self, request: Request) -> Response:
        state = await trio.to_thread.run_sync(contest_state, self.db)
        return Response(final_json(state), media_type="application/json", headers={"Cache-Control": "no-store"})

    async def history(self, request: Request) -> Response:
        view = await trio.to_thread.run_sync(entrant_view, self.db, request.path_params["name"])
        if view is None:
            raise HTTPException(404, "no such entrant")
        return Response(history_json(view), media_type="application/json", headers={"Cache-Control": "no-store"})

    async def entrant(self, request: Request) -> Response:
        view = await trio.to_thread.run_sync(entrant_view, self.db, request.path_params["name"])
        if view is None:
            raise HTTPException(404, "no such entrant")
        private = await trio.to_thread.run_sync(self.accounts.private, request, view.name)
        return self.accounts.page(request, "entrant.html", {"entrant": view, "plot": rating_plot(view), **private})

    async def game(self, request: Request) -> Response:
        record = await trio.to_thread.run_sync(_record, self.db, request.path_params["number"])
        games_json = script_json([game_row(0, record)])
        return self.accounts.page(request, "game.html",
                                  {"record": record, "viewer": GAMES_HTML, "games_json": games_json})

    async def game_film(self, request: Request) -> Response:
        record = await trio.to_thread.run_sync(_record, self.db, request.path_params["number"])
        return Response(await trio.to_thread.run_sync(film_script, 0, record), media_type="text/javascript")

    async def analysis(self, request: Request) -> Response:
        """An entrant's analysis over its latest games weighed: to that entrant and the organiser alone."""
        name = request.path_params["name"]
        self.accounts.allowed(request, name)
        view = await trio.to_thread.run_sync(self._entrant_analysis, name)
        if not by_browser(request):
            return Response(analysis_json(view), media_type="application/json", headers=PRIVATE)
        settings = await trio.to_thread.run_sync(analysis_settings, self.db)
        return private(self.accounts.page(request, "analysis.html", {"view": view, "settings": settings}))

    async def game_analysis(self, request: Request) -> Response:
        """One game weighed: the asking entrant's own seats (the organiser: every seat)."""
        name, number = request.path_params["name"], request.path_params["number"]
        holder = self.accounts.allowed(request, name)
        view = await trio.to_thread.run_sync(self._game_analysis, number, None if holder.organiser else name)
        if not by_browser(request):
            return Response(game_analysis_json(view, name), media_type="application/json", headers=PRIVATE)
        return private(self.accounts.page(request, "analysis_game.html", {"name": name, "view": view}))

    async def marked_replay(self, request: Request) -> Response:
        """Game N in the replay viewer with the marks of the asking entrant's own seats (the organiser: every
        seat's), embedded in the page: no other seat's decision is in it or in anything it loads."""
        name, number = request.path_params["name"], request.path_params["number"]
        holder = self.accounts.allowed(request, name)
        view, record, marks = await trio.to_thread.run_sync(self._marked, number,
                                                            None if holder.organiser else name)
        row = {**game_row(0, record), "analysis": marks is not None}
        return private(self.accounts.page(request, "analysis_replay.html", {
            "name": name, "view": view, "record": record, "viewer": GAMES_HTML, "games_json": script_json([row]),
            "marks_json": script_json(marks) if marks is not None else None}))

    async def marked_film(self, request: Request) -> Response:
        """The film of the replay with marks, to the same holders (the film itself is the public replay's)."""
        self.accounts.allowed(request, request.path_params["name"])
        return private(await self.game_film(request))

    def _marked(self, number: int, entrant: str | None) -> tuple[GameAnalysis, GameRecord, dict | None]:
        """Game ``number`` weighed (``entrant``'s seats; None: all), its record, and the marks of those seats that
        fit the record (None: no valued decision)."""
        view = self._game_analysis(number, entrant)
        record = _record(self.db, number)
        return view, record, game_marks(record, [s.analysis for s in view.seats])

    def _store(self) -> AnalysisStore:
        """The league's analysis (its folder's ``analysis.db``), opened once; 404 without the league's folder."""
        if self.folder is None:
            raise HTTPException(404, "this server has no league folder: no analysis")
        if self.analyses is None:
            self.analyses = AnalysisStore.open(self.folder)
        return self.analyses

    def _entrant_analysis(self, name: str) -> EntrantAnalysis:
        if not any(e.name == name for e in self.db.entrants()):
            raise HTTPException(404, "no such entrant")
        return entrant_analysis(self.db, self._store(), name)

    def _game_analysis(self, number: int, entrant: str | None) -> GameAnalysis:
        store = self._store()
        view = game_analysis(store, number, entrant) if number < BIGGEST else None
        if view is not None:
            return view
        if entrant is not None:  # (whether the game was someone else's is not this entrant's to know)
            raise HTTPException(404, f"game {number}: none of your seats analysed (not yet, or not your game)")
        status = store.status(number) if number < BIGGEST else None
        raise HTTPException(404, f"game {number}: " + ("not analysed yet" if status is None
                                                      else f"it could not be analysed: {status[1]}"))

    async def refused(self, request: Request, error: HTTPException) -> Response:
        """An error as a page for a browser, as one line of text for curl."""
        if not by_browser(request):
            return PlainTextResponse(f"{error.detail}\n", error.status_code, headers=error.headers)
        return TEMPLATES.TemplateResponse(request, "refused.html", {"title": self.title, "error": error},
                                          status_code=error.status_code, headers=error.headers)

    async def unreadable(self, request: Request, error: exc.DatabaseError) -> Response:
        """A database that fails under a page (damaged, a table missing): 503, until it is repaired. The pool's
        connections are dropped, so that the next request opens the repaired file afresh."""
        await trio.to_thread.run_sync(self.db.engine.dispose)
        said = (f"the league's database cannot be read ({damage_line(error)}); its organiser sees why with: "
                "pinochle-arena league check")
        return await self.refused(request, HTTPException(503, said))


PRIVATE = {"Cache-Control": "private, no-store"}  # an entrant's analysis: kept by no cache on the way


def private(response: Response) -> Response:
    response.headers.update(PRIVATE)
    return response


def analysis_json(view: EntrantAnalysis) -> str:
    """An entrant's analysis as JSON: the per-phase table over its latest games weighed, and those games."""
    return json.dumps({"entrant": view.name, "backlog": attrs.asdict(view.backlog),
                       "phases": [_phase_dict(r) for r in view.rows],
                       "games": [{"number": g.number, "game": g.game_id, "versions": list(g.labels), "lost": g.lost,
                                  "marks": g.marks, "analysis": f"/entrant/{view.name}/analysis/{g.number}",
                                  "replay": f"/game/{g.number}/",
                                  "marked_replay": f"/entrant/{view.name}/analysis/{g.number}/replay/"}
                                 for g in view.games]}, indent=1) + "\n"


def game_analysis_json(view: GameAnalysis, name: str) -> str:
    """One game's seats weighed, as JSON: each seat's every decision, and the per-phase table."""
    return json.dumps({"number": view.number, "game": view.game_id, "replay": f"/game/{view.number}/",
                       "marked_replay": f"/entrant/{name}/analysis/{view.number}/replay/",
                       "seats": [{"seat": s.seat, "entrant": s.entrant, "version": s.label,
                                  "decisions": [w.to_dict() for w in s.analysis.decisions]} for s in view.seats],
                       "phases": [_phase_dict(r) for r in view.rows]}, indent=1) + "\n"


def _phase_dict(row: PhaseRow) -> dict:
    return {"version": row.label, "phase": row.phase, "hands": row.hands, "mean": row.mean, "low": row.low,
            "high": row.high, "valued": row.valued, "decisions": row.decisions, "marks": row.marks}


def _record(db: LeagueDB, number: int) -> GameRecord:
    line = db.record(number) if number < BIGGEST else None
    if line is None:
        raise HTTPException(404, "no such game")
    try:
        check_seal(line, db.key())
    except SealError as e:
        raise HTTPException(500, f"game {number}'s record fails its seal: {e}") from e
    return GameRecord.from_json(line)


PLOT_WIDTH, PLOT_HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 16, 40  # room for the Elo ticks on the left, the games' below
NICE_STEPS = (1, 2, 2.5, 5, 10)


def nice_step(span: float, count: int = 5) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) that cuts ``span`` into about ``count`` parts."""
    raw = max(span, 1e-9) / count
    power = 10 ** math.floor(math.log10(raw))
    return next(n * power for n in NICE_STEPS if n * power >= raw)


def ticks(low: float, high: float, step: float) -> list[float]:
    """The multiples of ``step`` from ``low`` to ``high``."""
    first = math.ceil(low / step - 1e-9) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def rating_plot(view) -> dict:
    """Each version's Elo along the league's games, as an SVG chart's coordinates (the template draws): a line a
    version, with its 95% interval as a band around it where a point has one (a third number: half its width), the
    Elo and games axes with their ticks. Nothing to draw (``lines`` empty) before the entrant's first game."""
    shown = [(i, v) for i, v in enumerate(view.versions) if v.history]
    points = [p for _, v in shown for p in v.history]
    size = {"width": PLOT_WIDTH, "height": PLOT_HEIGHT, "left": LEFT, "right": PLOT_WIDTH - RIGHT, "top": TOP,
            "bottom": PLOT_HEIGHT - BOTTOM}
    if not points:
        return {**size, "lines": []}
    games = max(max(p[0] for p in points), 1)
    low = min(p[1] - _half(p) for p in points)
    high = max(p[1] + _half(p) for p in points)
    if high - low < 50:  # (a flat line in the middle, not a magnified wobble)
        low, high = (low + high) / 2 - 25, (low + high) / 2 + 25
    step = nice_step(high - low)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step  # the axis ends on ticks

    def x(g: float) -> float:
        return LEFT + (PLOT_WIDTH - LEFT - RIGHT) * g / games

    def y(r: float) -> float:
        return PLOT_HEIGHT - BOTTOM - (PLOT_HEIGHT - TOP - BOTTOM) * (r - low) / (high - low)

    def line(index: int, version) -> dict:
        h = version.history
        band = [(x(p[0]), y(p[1] + _half(p))) for p in h] + [(x(p[0]), y(p[1] - _half(p))) for p in reversed(h)]
        return {"version": version.number, "colour": index % 6, "command": version.command,
                "last": round(h[-1][1]), "points": " ".join(f"{x(p[0]):.1f},{y(p[1]):.1f}" for p in h),
                "end": (round(x(h[-1][0]), 1), round(y(h[-1][1]), 1)),
                "band": " ".join(f"{a:.1f},{b:.1f}" for a, b in band) if any(_half(p) for p in h) else ""}

    return {**size, "lines": [line(i, v) for i, v in shown], "games": games,
            "elo_ticks": [(round(y(t), 1), f"{t:+g}" if t else "0") for t in ticks(low, high, step)],
            "game_ticks": [(round(x(t), 1), f"{t:g}") for t in ticks(0, games, max(1, math.ceil(nice_step(games))))]}


def _half(point: tuple) -> float:
    """Half the width of a history point's 95% interval, if it has one (else 0)."""
    return point[2] if len(point) > 2 else 0.0


async def serve_site(app: ASGIApp, host: str, port: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``app`` (:func:`league_site`) on ``host:port`` (0: a free port) until cancelled; ``task_status`` gets
    the address."""
    from hypercorn.config import Config
    from hypercorn.trio import serve

    config = Config()
    config.bind = [f"{host}:{port}"]
    config.accesslog = config.errorlog = None
    async with trio.open_nursery() as nursery:
        # (hypercorn and Starlette each type ASGI's messages their own way: one protocol)
        binds = await nursery.start(functools.partial(serve, app, config,  # type: ignore[arg-type]
                                                      shutdown_trigger=trio.sleep_forever))
        task_status.started(binds[0])


__all__ = ["league_site", "serve_site"]
