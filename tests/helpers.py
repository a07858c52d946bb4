"""Shared test helpers: stacked decks, random playouts, games between bot processes, the process tree."""

from __future__ import annotations

import contextlib
import io
import os
import random
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import attrs
import trio

from referee.match.clock import TimeControl
from referee.records.record import Termination
from referee.rules import cards, new_game
from referee.rules.actions import Bid, Claim, Pass
from referee.rules.cards import Card, make_deck, sort_cards
from referee.rules.events import DecisionKind


def stacked_deck(variant, non_dealer: str, dealer: str, turnup: str, stock: str = "") -> list[Card]:
    """A deck that deals the given hands (in threes, non-dealer first), the turn-up and the
    stock (top first); the rest of the stock is filled with the remaining cards."""
    first, second = cards(non_dealer), cards(dealer)
    packet = variant.deal_packet
    deck: list[Card] = []
    for i in range(0, variant.hand_size, packet):
        deck += first[i:i + packet] + second[i:i + packet]
    deck.append(cards(turnup)[0])
    deck += cards(stock)
    rest = Counter(make_deck(variant.deck_copies, variant.deck_ranks))
    rest.subtract(Counter(deck))
    if any(n < 0 for n in rest.values()):
        raise ValueError(f"stacked deck uses a card too often: {[c for c, n in rest.items() if n < 0]}")
    deck += sort_cards(rest.elements())
    return deck


def random_playout(variant, seed: int, rng: random.Random | None = None, on_step=None):
    """Play a whole game with uniformly random legal actions; return (game, actions, all notices)."""
    rng = rng or random.Random(seed)
    game, notices = new_game(variant, seed)
    log = list(notices)
    actions = []
    while not game.is_terminal():
        decision = game.decision()
        assert decision.legal, "a seat to act must have a legal action"
        action = rng.choice(decision.legal)
        actions.append((decision.seat, action))
        produced = game.apply(action)
        log.extend(produced)
        if on_step is not None:
            on_step(game, decision, action, produced)
    return game, actions, log


def sensible(rng: random.Random):
    """Random play that bids like a person (mostly pass, else the lowest legal bid), so auctions end,
    and seldom claims where a variant allows it (a random claim ends the game after one deal)."""
    def choose(decision):
        if Claim() in decision.legal and len(decision.legal) > 1 and rng.random() < 0.98:
            return rng.choice([a for a in decision.legal if a != Claim()])
        if decision.kind is DecisionKind.BID:
            lowest = next((a for a in decision.legal if isinstance(a, Bid)), None)
            if lowest and (rng.random() < 0.35 or Pass() not in decision.legal):
                return lowest
            return Pass() if Pass() in decision.legal else lowest
        return rng.choice(decision.legal)
    return choose


async def play(entrants, variant, seed, out: Path, games: int = 1):
    """Play ``games`` games between ``entrants`` (logs in ``out/logs``); returns (records, players)."""
    from referee.match import Player, play_game

    records = []
    async with trio.open_nursery() as nursery:
        players = [Player.logged(e, out / "logs", startup_timeout=3) for e in entrants]
        with trio.fail_after(60):  # the referee must never hang
            for g in range(games):
                records.append(await play_game(nursery, players, variant, seed, f"g{g + 1}"))
        for p in players:
            await p.close()
        nursery.cancel_scope.cancel()
    return records, players


def play_tournament(data: dict, folder: Path) -> tuple[list, list]:
    """A tournament of configuration ``data`` (results in ``folder/out``) played in this process, as the
    ``tournament`` command plays it; returns (its games, their records)."""
    from referee.records.record import read_records
    from tournaments.config import parse_config
    from tournaments.runner import run_games
    from tournaments.schedule import schedule
    from tournaments.store import ResultStore, tournament_schedule

    config = parse_config(data, folder / "t.toml", output=folder / "out")
    games = schedule(config)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config, games))
    trio.run(run_games, config, games, store)
    return games, list(read_records(config.output / "games.jsonl", store.key))


def process_stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1])


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children, ...), zombies included."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := process_stat(int(entry.name))) is not None:
            children.setdefault(stat[1], []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def command_line(pid: int) -> str:
    """Process ``pid``'s command line, its arguments joined by spaces ("(gone)" once it has ended)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "(gone)"


ROOT = Path(__file__).resolve().parent.parent
# The clock of a bot that is not meant to run out of time: roomy, so that a busy machine never turns a fast reply
# into a time-out (the tests give a short clock only to bots that must time out).
ROOMY = TimeControl(bank_ms=600_000, increment_ms=0, move_ms=30_000, grace_ms=100)


# A bot's text that an inline script must hold as text: after '<!--', '<script>' keeps the script open past '</script>'
HOSTILE = "<!--<script>x</script>&"


def hostile(record, fault: bool = False):
    """``record`` with its bots' names and 'id' lines holding :data:`HOSTILE`; with ``fault``, ended by seat 0's
    crash whose detail holds it too."""
    seats = [attrs.evolve(s, entrant=s.entrant + HOSTILE, bot_name=HOSTILE, ids={"name": HOSTILE, "info": HOSTILE})
             for s in record.seats]
    if not fault:
        return attrs.evolve(record, seats=seats)
    return attrs.evolve(record, seats=seats, termination=Termination.CRASH, culprit=0, detail=f"said {HOSTILE}")


def arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``pinochle-arena ARGS`` run in ``cwd`` (the checkout by default), in this process.

    The command line's ``main`` with its own standard output and error, its exit status and the
    folder it runs from, as a shell would give them; it saves the half second a new interpreter
    spends importing the referee, over a hundred times a suite. Tests of what only a separate process
    shows (signals, the entry point, kill -9) use ``arena_process``.
    """
    from arena.cli import main

    out, err = io.StringIO(), io.StringIO()
    started_in = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main([str(a) for a in args])
            except SystemExit as e:  # argparse's errors and --help
                status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if isinstance(e.code, str):
                    print(e.code, file=sys.stderr)
    finally:
        os.chdir(started_in)  # resume moves to the folder a run was started from
    return subprocess.CompletedProcess(["pinochle-arena", *args], status, out.getvalue(), err.getvalue())


def arena_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``pinochle-arena ARGS`` as a separate process, exactly as a user starts it."""
    return subprocess.run([sys.executable, "-m", "arena", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=300)


def interrupted_after_first_game(*args: str, total: int = 400) -> subprocess.CompletedProcess:
    """``pinochle-arena ARGS`` as a separate process started as from a terminal, given Ctrl-C (SIGINT) once its
    progress shows its first finished game of ``total``; asserts that it handles Ctrl-C."""
    process = subprocess.Popen([sys.executable, "-m", "arena", *map(str, args)], cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=as_from_a_terminal)
    try:
        for line in process.stderr:  # the progress lines: wait for the first finished game, then interrupt
            if line.startswith(f"[1/{total}]"):
                break
        assert sigint_state(process.pid)["SigCgt"]  # it handles Ctrl-C
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    return subprocess.CompletedProcess(["pinochle-arena", *args], process.returncode, stdout, stderr)


def sigint_state(pid: int | str = "self") -> dict[str, bool]:
    """Whether a process ignores, blocks or has a handler for SIGINT, as the kernel sees it."""
    bit = 1 << 1  # SIGINT is signal 2
    fields = dict(line.split(":\t", 1) for line in open(f"/proc/{pid}/status").read().splitlines() if ":\t" in line)
    return {name: bool(int(fields[name], 16) & bit) for name in ("SigIgn", "SigBlk", "SigCgt")}


def as_from_a_terminal() -> None:
    """For ``preexec_fn``: SIGINT at its default in the child, as a command started from a terminal has it, whatever
    the test process itself does with SIGINT (a child inherits an ignored signal)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


def stopped_after(out: Path, kept: int = -1) -> list[str]:
    """Make the finished run in ``out`` look as if it had stopped after its first ``kept`` records were written
    (negative: all but the last -``kept``): the later records, their lines in the ledger and the sealed mark of
    its end taken away, as if those games had not been played yet; returns the records' lines taken away."""
    from referee.records.seals import load_key, read_sealed_json, sealed_json

    taken: list[str] = []
    for name in ("games.jsonl", "ledger.jsonl"):
        path = out / name
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(lines[:kept]))
        taken = taken or [line.removesuffix("\n") for line in lines[kept:]]
    key = load_key(out)
    for meta in (out / name for name in ("match.json", "sprt.json", "tournament.json")):
        if not meta.exists():
            continue
        data = read_sealed_json(meta, key)
        if data.pop("ended", None) is not None:
            meta.write_text(sealed_json(data, key))
    return taken


@contextlib.contextmanager
def league_serving(folder):
    """``league serve FOLDER --port 0`` as a separate process; yields the address it prints. It must stop on
    Ctrl-C without a traceback."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "arena", "league", "serve", str(folder), "--port", "0"],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("the league's pages: http://"), line + process.stderr.read()
        yield line.split()[3].rstrip("/")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
        said = process.stderr.read()
        assert "Traceback" not in said, said


def lines_for(seat: int, notices) -> list[str]:
    """The protocol lines the referee would send ``seat`` for ``notices`` (those it may see that have a line)."""
    from referee.match import wire

    return [text for n in notices if seat in n.seats for text in [wire.event_text(n.event)] if text is not None]


def tell_the_game(bots, variant, notices) -> None:
    """Start bot objects (``on_line``) as the referee starts version 3 bots, each told the game so far."""
    from referee.match import wire

    for seat, bot in enumerate(bots):
        bot.on_line("pinochle 3")
        bot.on_line(wire.new_game_message("t1", variant, seat).to_text())
        for rule in wire.rule_messages(variant):
            bot.on_line(rule.to_text())
        for line in lines_for(seat, notices):
            bot.on_line(line)
