"""``league serve DIR``: the league's web pages (viewer.site) and the builds of entrants' uploads, until Ctrl-C."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..args import UsageError
from .common import open_league


def add_serve(commands: argparse._SubParsersAction) -> None:
    serve = commands.add_parser("serve", help="the league's web pages: the live ladder, each entrant's page, every "
                                              "game in the replay viewer, and entrants' uploads, built in the jail "
                                              "(beside league run)")
    serve.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1: this machine only; see docs/league.md "
                            "before serving others)")
    serve.add_argument("--port", type=int, default=8000, help="the port (default 8000; 0: a free one)")
    serve.add_argument("--behind-proxy", action="store_true",
                       help="served by a TLS reverse proxy on this machine: trust the client address it names "
                            "(X-Forwarded-For, one hop) and send cookies over HTTPS only")
    serve.set_defaults(handler=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    import trio

    from league.builds import build_forever
    from viewer.site import league_site, serve_site

    from ..running import run_trio_stoppable

    db = open_league(args.folder)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: a port is 0 to 65535")

    async def serve() -> None:
        wake, woken = trio.open_memory_channel[None](1)
        folder = args.folder.resolve()
        app = league_site(db, folder.name, folder, wake, args.behind_proxy)
        async with trio.open_nursery() as nursery:
            try:
                address = await nursery.start(serve_site, app, args.host, args.port)
            except BaseException as e:  # (the server's nurseries wrap the system's refusal in groups)
                refused = _os_error(e)
                if refused is None:
                    raise
                raise UsageError(f"cannot listen on {args.host}:{args.port}: {refused.strerror or refused}") from None
            nursery.start_soon(build_forever, folder, db, woken)
            print(f"the league's pages: {address}/ (Ctrl-C stops)", flush=True)

    try:
        run_trio_stoppable(serve)  # (until Ctrl-C)
    except BaseExceptionGroup as e:
        refused = e.subgroup(UsageError)
        if refused is None:
            raise
        raise _first(refused) from None
    return 0


def _first(group: BaseException) -> BaseException:
    """The one exception inside ``group``, nested as deep as the nurseries it crossed."""
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


def _os_error(error: BaseException) -> OSError | None:
    """The operating system's refusal to listen inside ``error``, if that is it."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error if isinstance(error, OSError) else None
