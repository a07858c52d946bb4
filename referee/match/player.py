"""An entrant (a bot as the organiser named it) and its player: the running process a game is given.

A :class:`Player` starts the entrant's bot, checks it between games with a
ping, and starts it afresh when its :class:`Restart` policy or a fault says
so. It knows how to run a bot, not the rules of the game it plays.
"""

from __future__ import annotations

import enum
import functools
import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path

import attrs
import trio

from protocol import messages as m

from ..bots.endpoint import LineEndpoint
from ..bots.fingerprint import fingerprint
from ..bots.samples import unique_names
from ..bots.sandbox import Sandbox
from ..bots.transport import BotCommand, BotCrashed, BotError, BotProcess, BotTimeout
from ..records.record import SeatInfo
from .client import STARTUP_ALLOWANCE, BotClient, printable
from .clock import TimeControl

BOARDS_PER_PROCESS = 20  # one seating of this many boards in a row is played by one process (see Player)


class Restart(enum.Enum):
    """When a bot's process is started afresh (cutechess's ``restart``)."""

    ON_FAULT = "on-fault"  # keep the process from game to game; a fresh one after a fault or a failed ping
    ALWAYS = "always"  # a fresh process for every game
    NEVER = "never"  # after its first fault the bot is not started again: it forfeits its remaining games


@attrs.frozen
class Entrant:
    """A bot as the user named it: a label, how to start it, its time control and its fence.

    Without ``persist`` (the default) every game gets a fresh process with an
    empty writable space, so nothing a bot learnt in one seating of a deal
    survives into the next; ``persist`` (for entrants the organiser trusts)
    keeps a process from game to game as ``restart`` says.
    """

    name: str
    command: BotCommand
    time_control: TimeControl = TimeControl()
    sandbox: Sandbox = Sandbox()
    restart: Restart = Restart.ON_FAULT
    persist: bool = False
    options: tuple[tuple[str, str], ...] = ()  # protocol 3: values for options the bot declares (setoption)
    # a player that is not a process here: given the nursery its tasks may run in and the path of its stderr
    # log, returns its line once it is there (a person's seat in a browser, a bot on another machine:
    # referee.bots.remote)
    connect: Callable[[trio.Nursery, Path | None], Awaitable[LineEndpoint]] | None = attrs.field(default=None, eq=False)
    # its start allowance (--startup-timeout): seconds of its own time until 'ready' (see referee.match.client), carried with
    # its time control to every game, whichever runner plays it
    startup_timeout: float = STARTUP_ALLOWANCE



@attrs.define(eq=False)
class Player:
    """An entrant's running bot, restarted after a fault (cutechess's restart-on-failure).

    ``one_seating`` says that the games this player is given are one seating
    each of different boards, so no two of them are on the same deal: its
    process is then kept from game to game (for up to
    ``BOARDS_PER_PROCESS`` games, a bound on what one process may spend of
    its lifetime CPU limit), even without ``persist``. A board's other
    seatings are played by other players, with processes of their own.
    """

    entrant: Entrant
    log_path: Path | None = None
    startup_timeout: float | None = None  # its start allowance; None: its entrant's (the usual)
    transcript_path: Path | None = None
    workdir: Path | None = None  # unjailed: where its fresh working folders go, unless the command names one
    hidden: tuple[str, ...] = ()  # folders its jail must never show it (the output folder)
    client: BotClient | None = None
    starts: int = 0
    games: int = 0
    one_seating: bool = False
    games_on_process: int = 0  # games the running process has been given
    faulted: bool = False
    stall_timeout: float = 2.0  # seconds for the pong of the stall check between games
    stalls: int = 0  # pings between games that went unanswered
    program: str | None = None  # its fingerprint (referee.bots.fingerprint), taken before its first start
    preflight: bool = False  # only started to check that it can (:func:`preflight`): its start is not numbered
    game_logs: bool = False  # a log of its own for each game's process, beside log_path (see will_play)
    _next_game: str = ""  # the game the next process started is for (will_play)
    _log: Path | None = None  # the log of the game being played: the referee's notes go there
    _spare: _Spare | None = None  # the process for its next game, started ahead (see prepare)
    _stopping: trio.Event | None = None  # set once the last process it stopped in the background is gone

    @classmethod
    def logged(cls, entrant: Entrant, logs: Path, stem: str | None = None, transcripts: bool = False,
               startup_timeout: float | None = None, one_seating: bool = False, game_logs: bool = False) -> Player:
        """A player whose stderr (and, with ``transcripts``, protocol lines) go to ``logs/STEM.*.log``; with
        ``game_logs``, each game's process writes its stderr to a log of its own, ``logs/ENTRANT.GAME.stderr.log``
        (:func:`game_log_name`), so that a league can remove its oldest logs whole.

        Unjailed, each of its processes works in a fresh folder under
        ``work/STEM`` next to ``logs`` (removed when the process ends); a
        jailed one works in its private home and never sees the folder that
        holds ``logs``.
        """
        stem = file_safe(stem or entrant.name)
        return cls(entrant, logs / f"{stem}.stderr.log", startup_timeout,
                   logs / f"{stem}.protocol.log" if transcripts else None, logs.parent / "work" / stem,
                   (str(logs.parent.resolve()),), one_seating=one_seating, game_logs=game_logs)

    def will_play(self, game_id: str) -> None:
        """Say which game the next process started (ahead, or for the game itself) and the next
        :meth:`ensure_started` are for: with ``game_logs``, its stderr and the referee's notes go to that game's
        log. A process kept from game to game (``persist``) goes on writing to the log of the game it was
        started for."""
        self._next_game = game_id

    def log_of(self, game_id: str) -> Path | None:
        """Where the stderr of a process started for ``game_id`` goes."""
        if not self.game_logs or not game_id or self.log_path is None:
            return self.log_path
        return self.log_path.parent / game_log_name(self.entrant.name, game_id)

    async def ensure_started(self, nursery: trio.Nursery) -> BotClient:
        """The running bot for the next game: checked with a ping if it played before, else started."""
        self.games += 1
        self._log = self.log_of(self._next_game)
        if self.faulted and self.entrant.restart is Restart.NEVER:
            raise BotCrashed("not restarted after its fault in an earlier game (restart = never)")
        await self.game_over(nursery)  # (a process kept from the last game that must not play this one)
        stalled = self.client is not None and not await self._answers_ping(self.client)
        if stalled and self.entrant.restart is Restart.NEVER:
            self.faulted = True
            raise BotTimeout("did not answer the stall check before this game (restart = never)")
        if self.client is None:
            self.client = await self._take_spare(nursery)
            self.games_on_process = 0
            process = self.client.process
            if isinstance(process, BotProcess) and process.play is not None:  # (a bot elsewhere is no process of ours)
                process.play()
        self.games_on_process += 1
        return self.client

    def prepare(self, nursery: trio.Nursery) -> None:
        """Start the process for this player's next game now, in the background, if that game will need a new one.

        The game then begins without waiting for it: a pooled process is past
        its handshake and options and has seen nothing else (a fault in its
        start is the next game's, as if it had started then). A player has at
        most one process waiting; a bot on another machine or in a browser is
        never started ahead.
        """
        if self._spare is not None or self.entrant.connect is not None:
            return
        if self.faulted and self.entrant.restart is Restart.NEVER:
            return
        if self.client is not None and not self._fresh_process_due():
            return
        self._spare = _Spare()
        nursery.start_soon(self._spare.fill, functools.partial(self._start_process, log=self.log_of(self._next_game)),
                           nursery)

    async def game_over(self, nursery: trio.Nursery) -> None:
        """After a game: a process that will not play the next one is stopped (matchend, quit) in the background,
        so the next game need not wait for it; a player stops one process at a time."""
        if self.client is None or not self._fresh_process_due():
            return
        if self._stopping is not None:
            await self._stopping.wait()
        client, self.client = self.client, None
        stopping = self._stopping = trio.Event()

        async def stop() -> None:
            try:
                with trio.CancelScope(shield=True):
                    await _say_goodbye(client)
            finally:
                stopping.set()
        nursery.start_soon(stop)

    async def _take_spare(self, nursery: trio.Nursery) -> BotClient:
        """The process started ahead for this game, once it is ready, or one started now."""
        spare, self._spare = self._spare, None
        try:
            if spare is None:
                return await self._start_process(nursery, self._log)
            await spare.done.wait()
            if spare.error is not None:
                raise spare.error
            return spare.client or await self._start_process(nursery, self._log)  # (none if its start was called off)
        except BotError:
            self.faulted = True
            raise

    async def _start_process(self, nursery: trio.Nursery, log: Path | None = None) -> BotClient:
        """Start the bot, past its handshake, with its options set; its stderr goes to ``log`` (default: the
        player's log)."""
        log = log or self.log_path
        if self.program is None:
            self.program = "" if self.entrant.connect is not None else \
                await trio.to_thread.run_sync(fingerprint, self.entrant.command)
        self.starts += 1
        first = "check before the first game" if self.preflight else f"start {self.starts}"
        self.note(f"{first} of {self.entrant.command.to_text()}", log)
        client = None
        try:
            if self.entrant.connect is not None:
                link = await self.entrant.connect(nursery, log)
                if link.program is not None:  # a remote bot's fingerprint, as its host found it
                    self.program = link.program
                client = await BotClient.attach(link, self.entrant.name, self.start_allowance())
            else:
                client = await BotClient.start(nursery, self.entrant.command, log,
                                               self.start_allowance(), self.transcript_path, self.entrant.sandbox,
                                               self.workdir, self.hidden)
            client.set_options(dict(self.entrant.options))
        except BotError:
            if client is not None:  # it started, but refused its options
                await client.process.kill()
            raise
        return client

    def start_allowance(self) -> float:
        """Seconds its process has to start (see :mod:`referee.bots.start_clock`): its entrant's, unless the
        player was given its own."""
        return self.entrant.startup_timeout if self.startup_timeout is None else self.startup_timeout

    def _fresh_process_due(self) -> bool:
        """Whether the next game needs a new process: always with ``restart = always``, never with ``persist``,
        and otherwise for every game but those of one seating of successive boards (see the class)."""
        if self.entrant.restart is Restart.ALWAYS:
            return True
        if self.entrant.persist:
            return False
        return not self.one_seating or self.games_on_process >= BOARDS_PER_PROCESS

    async def _answers_ping(self, client: BotClient) -> bool:
        """The stall check between games: a bot that is alive but wedged is replaced before it plays."""
        try:
            await client.ping(self.stall_timeout, str(self.games))
            return True
        except BotError as e:
            self.stalls += 1
            self.note(f"stall check before game {self.games} failed ({e}); stopping it")
            self.client = None
            await client.process.kill()
            return False

    def note(self, text: str, log: Path | None = None) -> None:
        """A line of the referee's own in the bot's stderr log (starts, stall checks, faults): in ``log``, else the
        log of the game being played, else the player's."""
        log = log or self._log or self.log_path
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            with open(log, "ab") as f:
                f.write(f"=== pinochle-arena: {text}\n".encode())

    async def retire(self) -> None:
        """Stop the process after a fault; the next game starts a fresh one (see :class:`Restart`)."""
        self.faulted = True
        if self.client is not None:
            client, self.client = self.client, None
            await client.process.kill()
        if self._spare is not None and self.entrant.restart is Restart.NEVER:  # it will not play again
            spare, self._spare = self._spare, None
            await spare.empty()

    async def close(self) -> None:
        """Stop its process, and the one started ahead for a next game that will not come."""
        spare, self._spare = self._spare, None
        if spare is not None:
            await spare.empty()
        if self.client is not None:
            client, self.client = self.client, None
            await _say_goodbye(client)
        if self._stopping is not None:
            await self._stopping.wait()

    def seat_info(self) -> SeatInfo:
        """Who played, as the record keeps it: the entrant, what the bot called itself, its protocol and options."""
        command = self.entrant.command.to_text()
        if self.client is None:
            return SeatInfo(self.entrant.name, self.entrant.name, command, program=self.program or "")
        c = self.client
        return SeatInfo(self.entrant.name, c.name, command, dict(c.ids), c.version, dict(c.options), self.program or "")


async def _say_goodbye(client: BotClient) -> None:
    """Matchend and quit: the process is gone when this returns."""
    try:
        await client.send(m.MatchEnd())
    except BotError:
        pass
    await client.quit()


@attrs.define(eq=False)
class _Spare:
    """A process being started ahead of the game that will use it."""

    done: trio.Event = attrs.Factory(trio.Event)
    client: BotClient | None = None
    error: BotError | None = None
    scope: trio.CancelScope = attrs.Factory(trio.CancelScope)

    async def fill(self, start: Callable[[trio.Nursery], Awaitable[BotClient]], nursery: trio.Nursery) -> None:
        try:
            with self.scope:
                self.client = await start(nursery)
        except BotError as e:
            self.error = e
        finally:
            self.done.set()

    async def empty(self) -> None:
        """Stop it (a start under way is called off)."""
        self.scope.cancel()
        await self.done.wait()
        if self.client is not None:
            await self.client.quit()  # (no matchend: it was never in the match)


@attrs.frozen
class Preflight:
    """What starting each entrant once found: who cannot start and why, and the name each bot gave itself."""

    failures: tuple[tuple[str, str], ...]  # (entrant, why)
    names: dict[str, str]  # entrant -> its bot's 'id name', for those that sent one
    notes: tuple[tuple[str, str], ...] = ()  # (entrant, what of its handshake the records do not keep whole)


async def preflight(entrants: Sequence[Entrant], logs: Path, startup_timeout: float | None = None) -> Preflight:
    """Start each entrant's bot once (handshake and options), as a game would, before any game is played.

    Reports each that cannot start, so that a run stops at once with the
    reason instead of charging every game to that bot (cutechess checks its
    engines the same way), and the ``id name`` of each that can. The start
    is logged in the bot's stderr log like any other. Each has its entrant's
    start allowance, as in its games, unless ``startup_timeout`` is given.
    The bots start side by side, as many at once as there are cores: a start
    is charged its own time, not its waits for a core, so company costs none
    of them its allowance, and the run waits for the slowest start, not for
    their sum.
    """
    found: list[tuple[str | None, str | None, list[str]]] = [(None, None, [])] * len(entrants)
    at_once = trio.CapacityLimiter(max(len(os.sched_getaffinity(0)), 1))

    async def start(index: int, entrant: Entrant) -> None:
        async with at_once:
            found[index] = await _start_once(entrant, logs, startup_timeout)

    async with trio.open_nursery() as nursery:
        for index, entrant in enumerate(entrants):
            nursery.start_soon(start, index, entrant)
    failures = tuple((e.name, why) for e, (why, _, _) in zip(entrants, found, strict=True) if why is not None)
    names = {e.name: name for e, (_, name, _) in zip(entrants, found, strict=True) if name}
    notes = tuple((e.name, note) for e, (_, _, said) in zip(entrants, found, strict=True) for note in said)
    return Preflight(failures, names, notes)


async def _start_once(entrant: Entrant, logs: Path,
                      startup_timeout: float | None) -> tuple[str | None, str | None, list[str]]:
    """One entrant's bot started and closed: (why it cannot start or None, its ``id name`` or None, its notes)."""
    player = Player.logged(entrant, logs, startup_timeout=startup_timeout)
    player.preflight = True
    async with trio.open_nursery() as nursery:
        try:
            client = await player.ensure_started(nursery)
            name = printable(client.ids["name"]) if client.ids.get("name") else None
            return None, name, list(client.notes)
        except BotError as e:
            player.note(f"could not start before the first game: {e}")
            return str(e), None, []
        finally:
            await player.close()


def named_by_bots(entrants: Sequence[Entrant], names: dict[str, str], logs: Path) -> tuple[Entrant, ...]:
    """The entrants, each called by the name its bot gave (``id name``), made unique (``-2``, ``-3``...); those
    whose bot gave none keep theirs. Each bot's log files so far follow it to its new name."""
    wanted = [names.get(e.name, e.name) for e in entrants]
    keep = [i for i, e in enumerate(entrants) if wanted[i] == e.name]  # first, so that a bot cannot take the
    move = [i for i in range(len(entrants)) if i not in keep]  # name of an entrant that keeps its own (a sample)
    final = dict(zip(keep, unique_names([wanted[i] for i in keep]), strict=True))
    final.update(zip(move, unique_names([wanted[i] for i in move], final.values()), strict=True))
    renamed = tuple(attrs.evolve(e, name=final[i]) for i, e in enumerate(entrants))
    for old, new in zip(entrants, renamed, strict=True):
        if old.name != new.name:
            for kind in ("stderr", "protocol"):
                source, target = logs / f"{file_safe(old.name)}.{kind}.log", logs / f"{file_safe(new.name)}.{kind}.log"
                if source.exists() and not target.exists():
                    source.rename(target)
    return renamed


async def close_players(players: Iterable[Player]) -> None:
    """Stop the players' bots (matchend, quit), even while the caller is being cancelled."""
    with trio.CancelScope(shield=True):
        for p in players:
            await p.close()


def game_log_name(entrant: str, game_id: str) -> str:
    """The file name of ``entrant``'s stderr log of game ``game_id``, when each game has its own (``game_logs``)."""
    return f"{file_safe(entrant)}.{file_safe(game_id)}.stderr.log"


def file_safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "bot"
