"""Tournament configuration: a TOML file, or the embedded default.

```toml
[tournament]
name = "my event"             # optional: default the configuration file's name
format = "round-robin"        # or "gauntlet" (needs candidate = "NAME"), "knockout" (the bots in seed order; a
                              # match is games_per_pairing games), or "boards" (a round robin of boards)
boards = 100                  # optional: play boards (one hand in every seating of a deal), this many per pairing,
                              # instead of games_per_pairing whole games (tournaments/boards.py)
variant = "two-handed"
games_per_pairing = 40        # even: duplicate deals come in pairs (default 20)
seed = 1                      # optional: default a secret 128-bit seed from the OS, kept in OUTPUT/tournament.json
concurrency = 2               # games at once; default: number of cores
processes = 2                 # referee processes sharing them; default: number of cores
duplicate = true
output = "results/my-tournament"
anchor = "random"             # optional: this bot's rating is fixed at 0
deals = "event.deals"         # optional: play this deal file's deals in turn (pinochle-arena deals)
deals_order = "random"        # optional: the deal file's deals in an order drawn from the seed
rounds = 2                    # optional: the games (or boards) played this many times over, new deals each
wait = 0                      # optional: milliseconds between two games of one set of bot processes
own_deals = true              # optional: each pairing its own duplicate deals (the default with seatings apart)
restart = "on-fault"          # or "always" (fresh process every game) or "never" (a fault retires the bot)
isolation = "jail"            # default; "none" runs bots unjailed (NOT safe against hostile bots)
persist = false               # true: a bot keeps its process (and files) from game to game, as restart says
clean_env = true              # false: unjailed bots inherit the referee's environment
read_only = ["data"]          # more folders every jailed bot may read (relative to the config file)
runtimes = ["/opt/ruby"]      # optional: more runtimes for the jailed bots' system image (docs/competition.md)

[tournament.options]          # rule options of the variant
target = 1200

[time]                        # default time control, milliseconds
bank = 60000
increment = 100
move = 5000
grace = 100

[limits]                      # per bot process; 0 means no limit
memory = 2048                 # MiB of address space
cpu = 3600                    # CPU seconds over a process's life
processes = 256               # RLIMIT_NPROC (counts the whole user's processes; root is exempt)
open_files = 256
file_size = 64                # MiB, largest file a bot may write
output = 1024                 # KiB a bot may write to stdout between two requests
disk = 256                    # MiB in each of a jailed bot's writable spaces (home, /tmp, /dev/shm)
cpus = 1                      # cores a jailed bot may use at once (as root, with control groups)

[[bot]]
sample = "greedy"             # a sample bot, called by its sample's name unless given a name ...

[[bot]]
name = "mine"
command = "./mybot --fast"    # ... or any command line
cwd = "bots/mine"             # optional, relative to the config file (default: a private folder under
                              # the output's work/; paths in the command are relative to the config file)
env = { MYBOT_LEVEL = "3" }   # optional
time = { move = 2000 }        # optional: per-bot time control
limits = { memory = 4096 }    # optional: per-bot limits; restart, isolation, persist, clean_env too
read_only = ["data"]          # optional: more folders the jailed bot may read (relative to the config file)
ship = "bots/mine"            # optional, on a cluster: this folder is sent to the workers (else: same path there)

[cluster]                     # optional: play the games on a Dask cluster (tournaments/cluster.py)
address = "tcp://10.0.0.5:8786"
batch = 8                     # games per task (boards: a task is one run of boards)
```

Every mistake is reported as a :class:`ConfigError` naming the key.

The command line's flags (``tournament --bot ... --variant ... --time-per-move ...``)
are laid over this data by :func:`with_flags`, flags winning; the data a tournament
ran with is kept in its output folder (``config.json``, :func:`save_config`), so
``tournament --resume OUT`` needs nothing else.
"""

from __future__ import annotations

import copy
import difflib
import enum
import ipaddress
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import attrs

from referee.bots.samples import SAMPLES, command_identity
from referee.bots.sandbox import Isolation, Limits, Sandbox, SandboxError
from referee.bots.transport import BotCommand, BotStartError
from referee.match import Entrant, Restart
from referee.match.clock import TimeControl
from referee.records.deals import DealFile, DealFileError, DealsOrder, read_deals
from referee.records.seals import (
    KeyFileError,
    SealError,
    Unsealed,
    load_key,
    read_sealed_json,
    sealed_json,
)
from referee.rules import VariantError, get_variant
from referee.rules.variants import Partners, Variant


class Format(enum.StrEnum):
    """How the contestants are paired; the value is the configuration's (and the fingerprint's) text."""

    ROUND_ROBIN = "round-robin"  # every table of contestants once
    GAUNTLET = "gauntlet"  # the candidate against every table of the others
    KNOCKOUT = "knockout"  # seeded matches of two, the winners going on (tournaments.knockout)


FORMATS = tuple(f.value for f in Format)
BOARDS = "boards"  # format = "boards": a round robin of boards (the configuration's shorthand, not a Format)


class ConfigError(ValueError):
    """A bad configuration; the message names the file, the key and the problem."""


@attrs.frozen
class Team:
    """A partnership entrant: two bots (two programs, or two copies of one) that sit opposite."""

    name: str
    bots: tuple[str, str]

    def members(self) -> tuple[str, str]:
        """Entrant names of the two seats: one process each, even for two copies of one bot."""
        return (f"{self.name}.1", f"{self.name}.2")


@attrs.frozen
class Cluster:
    """Where a tournament's games are played when not on this machine: a Dask scheduler's address, and how many
    games make one task. How the games are run, not which: not part of the fingerprint."""

    address: str
    batch: int = 8  # games per task
    certs: str | None = None  # folder of TLS certificates (pinochle-arena cluster certs), for a tls:// address
    insecure: bool = False  # the organiser's word that a tcp:// scheduler off this machine is on a network they own
    seatings_apart: bool = False  # the seatings of a deal (for the same bot) on different machines


DEFAULT_BATCH = attrs.fields(Cluster).batch.default
SCHEDULER_ADDRESS = re.compile(r"(?:(?:tcp|tls)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}")


@attrs.frozen
class TournamentConfig:
    name: str
    format: Format = attrs.field(converter=Format)
    variant: Variant
    entrants: tuple[Entrant, ...]
    games_per_pairing: int
    seed: int | None  # None until the tournament starts: then a secret one is drawn (see secret_seed)
    concurrency: int
    duplicate: bool
    output: Path
    candidate: str | None = None
    anchor: str | None = None
    source: str = "embedded default"
    teams: tuple[Team, ...] = ()  # partnership variants: the entrants are these teams
    processes: int | None = None  # referee processes; None: one per core, at most one per concurrent game
    deals: DealFile | None = None  # a deal file's deals, in turn, instead of deals from the seed
    deals_order: DealsOrder = attrs.field(default=DealsOrder.SEQUENTIAL, converter=DealsOrder)
    rounds: int = 1  # the configuration's games (or boards) played this many times over (cutechess's -rounds);
    # games_per_pairing and boards count them all
    wait_ms: int = 0  # a pause between two games of one slot (cutechess's -wait)
    boards: int | None = None  # boards per pairing (tournaments.boards): one-hand games in every seating of each deal
    cluster: Cluster | None = None  # play on a Dask cluster instead of this machine
    shipped: tuple[tuple[str, str], ...] = ()  # (bot, folder): folders sent to the cluster's workers
    own_deals: bool = False  # each table its own duplicate deals (set by seatings apart; see schedule.table_deal)
    game_logs: bool = False  # a stderr log for each game and seat, not one for each bot and slot (the league's)

    @property
    def referee_processes(self) -> int:
        return min(self.processes or default_concurrency(), self.concurrency)

    @property
    def partnership(self) -> bool:
        return self.variant.partners is Partners.OPPOSITE

    def contestants(self) -> list[str]:
        """Who is paired and rated: the teams in a partnership variant, else the bots."""
        return [t.name for t in self.teams] if self.partnership else [e.name for e in self.entrants]

    def member_bots(self) -> dict[str, str]:
        """Partnerships: each team member's seat name -> the configuration's bot it runs (empty otherwise)."""
        return {m: bot for t in self.teams for m, bot in zip(t.members(), t.bots, strict=True)}

    def seat_entrants(self) -> dict[str, Entrant]:
        """Every entrant that takes a seat, by name (team members get their own processes)."""
        bots = {e.name: e for e in self.entrants}
        if not self.partnership:
            return bots
        return {member: attrs.evolve(bots[bot], name=member) for member, bot in self.member_bots().items()}

    def games_text(self) -> str:
        """How many games each pairing plays, in words."""
        if self.boards:
            return f"{self.boards} boards per pairing ({self.games_per_pairing} one-hand games)"
        return f"{self.games_per_pairing} games per pairing"

    def where_text(self) -> str:
        """Where the games are played, in words: on a cluster, or how many at once on this machine."""
        if self.cluster is not None:
            return f"on the Dask cluster at {self.cluster.address} ({self.cluster.batch} games a task)"
        return f"concurrency {self.concurrency} in {self.referee_processes} referee process(es)"

    def fingerprint(self) -> dict:
        """Everything that decides which games are played and how: kept with the results for --resume."""
        return {
            "name": self.name,
            "format": self.format.value,
            "variant": self.variant.name,
            "options": self.variant.settings(),
            "entrants": [{"name": e.name, "command": command_identity(e.command.argv), "time": e.time_control.to_dict()}
                         for e in self.entrants],
            "teams": [{"name": t.name, "bots": list(t.bots)} for t in self.teams],
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "candidate": self.candidate,
            "deals": self.deals.digest() if self.deals is not None else None,
            "boards": self.boards,
            # the order only when not the default, so 0.2's runs resume unchanged
            **({"deals_order": self.deals_order.value} if self.deals_order is DealsOrder.RANDOM else {}),
            **({"own_deals": True} if self.own_deals else {}),
        }


def default_data() -> dict:
    """The embedded default, as a configuration: a duplicate round robin of the sample bots marked in_default."""
    return {"tournament": {"name": "sample bots", "games_per_pairing": 40},
            "bot": [{"name": name, "sample": name} for name, sample in SAMPLES.items() if sample.in_default]}


def default_config(output: Path | None = None, concurrency: int | None = None) -> TournamentConfig:
    """The embedded default (:func:`default_data`), writing to ``output`` (default results/tournament)."""
    return parse_config(default_data(), Path.cwd() / "tournament.toml", output or Path("results") / "tournament",
                        concurrency, where="embedded default")


def default_concurrency() -> int:
    return max(os.cpu_count() or 1, 1)


def load_config(path: Path, output: Path | None = None, concurrency: int | None = None) -> TournamentConfig:
    return parse_config(load_toml(path), path, output, concurrency)


def load_toml(path: Path) -> dict:
    """A configuration file's data (ConfigError if it cannot be read or is not TOML)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None


def parse_config(data: dict, path: Path, output: Path | None = None, concurrency: int | None = None,
                 where: str | None = None) -> TournamentConfig:
    """The configuration ``data`` read as if from ``path``: relative paths are relative to its folder, and its name
    (the file's stem) is the default name. Errors name ``where`` (default: the path)."""
    where = where or str(path)
    base = path.parent
    _only(data, {"tournament", "time", "bot", "team", "limits", "cluster"}, where, "")
    t = _table(data, "tournament", where, required=False)
    _only(t, {"name", "format", "variant", "options", "games_per_pairing", "seed", "concurrency", "duplicate",
              "output", "candidate", "anchor", "processes", "deals", "boards", "deals_order", "rounds", "wait",
              "own_deals",
              *FENCE_KEYS}, where, "tournament.")
    fmt, boards = _format_and_boards(t, where)
    variant = _variant(t, boards, where)
    if fmt is Format.KNOCKOUT and variant.players != 2 and variant.partners is not Partners.OPPOSITE:
        raise ConfigError(f"{where}: tournament.format: a knockout's matches are between two: play it in a "
                          f"two-handed or partnership variant ({variant.name} seats {variant.players} contestants)")
    rounds = _get(t, "rounds", int, 1, where, "tournament.")
    if rounds < 1:
        raise ConfigError(f"{where}: tournament.rounds must be at least 1")
    boards = None if boards is None else boards * rounds
    games, duplicate = _games(t, variant, boards, rounds, where)
    default_time = _time_control(_table(data, "time", where, required=False), TimeControl(), where, "time.")
    default_fence = _fence(t, _table(data, "limits", where, required=False), Fence(), where,
                           "tournament.", "limits.", base)
    entrants, shipped = _entrants(data.get("bot"), default_time, default_fence, base, where)
    names = [e.name for e in entrants]
    teams = _teams(data.get("team"), names, variant, where)
    contestants = [tm.name for tm in teams] if teams else names
    needed = 2 if teams else variant.players
    if len(contestants) < needed:
        what = "teams" if teams else "bots"
        raise ConfigError(f"{where}: {variant.name} needs at least {needed} {what}, the config has {len(contestants)}")
    candidate = _candidate(t, fmt, contestants, where)
    anchor = _get(t, "anchor", str, None, where, "tournament.")
    if anchor is not None and anchor not in contestants:
        raise ConfigError(f"{where}: tournament.anchor: no entrant named {anchor!r}; entrants: {', '.join(contestants)}")
    conc, processes = _concurrency(t, concurrency, where)
    deals, deals_order = _deals(t, base, variant, where)
    wait_ms = _get(t, "wait", int, 0, where, "tournament.")
    if wait_ms < 0:
        raise ConfigError(f"{where}: tournament.wait is milliseconds between games: 0 or more")
    out = output or _resolve(base, _get(t, "output", str, str(Path("results") / path.stem), where, "tournament."))
    cluster = parse_cluster(_table(data, "cluster", where, required=False), where, base)
    return TournamentConfig(
        name=_get(t, "name", str, path.stem, where, "tournament."),
        format=fmt,
        variant=variant,
        entrants=entrants,
        games_per_pairing=games,
        seed=_get(t, "seed", int, None, where, "tournament."),
        concurrency=conc,
        duplicate=duplicate,
        output=Path(os.path.normpath(out)),
        candidate=candidate,
        anchor=anchor,
        source=where,
        teams=teams,
        processes=processes,
        deals=deals,
        deals_order=deals_order,
        rounds=rounds,
        wait_ms=wait_ms,
        boards=boards,
        cluster=cluster,
        shipped=shipped,
        own_deals=_get(t, "own_deals", bool, cluster is not None and cluster.seatings_apart, where, "tournament."),
    )


def _format_and_boards(t: dict, where: str) -> tuple[Format, int | None]:
    """tournament.format and tournament.boards (boards per pairing, before rounds; None: whole games).
    ``format = "boards"`` is a round robin of boards, 100 unless boards says."""
    text = _get(t, "format", str, Format.ROUND_ROBIN.value, where, "tournament.")
    if text not in (*FORMATS, BOARDS):
        raise ConfigError(f"{where}: tournament.format: {text!r} is not one of {', '.join(FORMATS)}, {BOARDS}")
    boards = _get(t, "boards", int, None, where, "tournament.")
    if text == BOARDS:
        return Format.ROUND_ROBIN, 100 if boards is None else boards
    return Format(text), boards


def _variant(t: dict, boards: int | None, where: str) -> Variant:
    """The variant with tournament.options; boards play one hand a game (max-hands = 1), so they take no
    games_per_pairing, no independent deals and no other max-hands."""
    options = {k: ("yes" if v else "no") if isinstance(v, bool) else str(v)
               for k, v in _table(t, "options", where, required=False, prefix="tournament.").items()}
    if boards is not None:
        if boards < 1:
            raise ConfigError(f"{where}: tournament.boards must be at least 1")
        if "games_per_pairing" in t or t.get("duplicate") is False or options.get("max-hands", "1") != "1":
            raise ConfigError(f"{where}: tournament.boards: a board is one hand in every seating of a deal, so it "
                              "takes no games_per_pairing, duplicate = false or max-hands")
        options["max-hands"] = "1"
    try:
        return get_variant(_get(t, "variant", str, "two-handed", where, "tournament."), options)
    except VariantError as e:
        raise ConfigError(f"{where}: tournament: {e}") from None


def _games(t: dict, variant: Variant, boards: int | None, rounds: int, where: str) -> tuple[int, bool]:
    """(games per pairing over all rounds, duplicate): with duplicate deals, a whole number of deals, every
    contestant holding every hand once."""
    group = {3: 6, 5: 5}.get(variant.players, 2)  # games per deal: every contestant holds every hand once
    games = _get(t, "games_per_pairing", int, 20, where, "tournament.") * rounds if boards is None else boards * group
    duplicate = _get(t, "duplicate", bool, True, where, "tournament.")
    if games < 1:
        raise ConfigError(f"{where}: tournament.games_per_pairing must be at least 1")
    if duplicate and games % group:
        what = "even with duplicate deals (games come in pairs)" if group == 2 else (
            f"a multiple of {group} with duplicate deals ({group} seatings of every deal)")
        raise ConfigError(f"{where}: tournament.games_per_pairing must be {what}")
    return games, duplicate


def _entrants(bots: Any, default_time: TimeControl, default_fence: Fence, base: Path,
              where: str) -> tuple[tuple[Entrant, ...], tuple[tuple[str, str], ...]]:
    """The [[bot]] tables: (entrants, (bot, folder) of those that ship a folder to a cluster); names unique."""
    if not isinstance(bots, list) or not bots:
        raise ConfigError(f"{where}: no bots: add [[bot]] tables with a name and a command or sample")
    entrants, shipped = [], []
    for i, bot in enumerate(bots, 1):
        entrants.append(_entrant(bot, i, default_time, default_fence, base, where))
        if isinstance(bot, dict) and "ship" in bot:
            shipped.append((entrants[-1].name, _shipped_folder(bot, i, base, where)))
    names = [e.name for e in entrants]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"{where}: bot names must be unique; repeated: {', '.join(duplicates)}")
    return tuple(entrants), tuple(shipped)


def _candidate(t: dict, fmt: Format, contestants: list[str], where: str) -> str | None:
    """tournament.candidate: a gauntlet's, who plays everyone; no other format takes one."""
    candidate = _get(t, "candidate", str, None, where, "tournament.")
    if fmt is not Format.GAUNTLET:
        if candidate is not None:
            raise ConfigError(f"{where}: tournament.candidate only applies to format = \"{Format.GAUNTLET}\"")
        return None
    if candidate is None:
        raise ConfigError(f"{where}: tournament.candidate: a gauntlet needs the name of the bot that plays everyone")
    if candidate not in contestants:
        raise ConfigError(f"{where}: tournament.candidate: no entrant named {candidate!r}; entrants: "
                          f"{', '.join(contestants)}")
    return candidate


def _concurrency(t: dict, concurrency: int | None, where: str) -> tuple[int, int | None]:
    """(games at once, referee processes or None for the default): the command line's concurrency wins."""
    conc = concurrency or _get(t, "concurrency", int, default_concurrency(), where, "tournament.")
    if conc < 1:
        raise ConfigError(f"{where}: tournament.concurrency must be at least 1")
    processes = _get(t, "processes", int, None, where, "tournament.")
    if processes is not None and processes < 1:
        raise ConfigError(f"{where}: tournament.processes must be at least 1")
    return conc, processes


def _deals(t: dict, base: Path, variant: Variant, where: str) -> tuple[DealFile | None, DealsOrder]:
    """tournament.deals (a deal file, read and checked against the variant) and the order of its deals."""
    deals = None
    deals_path = _get(t, "deals", str, None, where, "tournament.")
    if deals_path is not None:
        try:
            deals = read_deals(_resolve(base, deals_path), variant)
        except DealFileError as e:
            raise ConfigError(f"{where}: tournament.deals: {e}") from None
    text = _get(t, "deals_order", str, DealsOrder.SEQUENTIAL.value, where, "tournament.")
    try:
        order = DealsOrder(text)
    except ValueError:
        raise ConfigError(f"{where}: tournament.deals_order must be \"{DealsOrder.SEQUENTIAL}\" or "
                          f"\"{DealsOrder.RANDOM}\", got {text!r}") from None
    if order is DealsOrder.RANDOM and deals is None:
        raise ConfigError(f"{where}: tournament.deals_order orders a deal file's deals: give one (tournament.deals)")
    return deals, order


def parse_cluster(table: dict, where: str, base: Path = Path(".")) -> Cluster | None:
    """The [cluster] table: None without one (or with address = "none", which a resume on this machine gives)."""
    _only(table, {"address", "batch", "certs", "insecure", "seatings_apart"}, where, "cluster.")
    address = _get(table, "address", str, None, where, "cluster.")
    if address is None:
        if table:
            raise ConfigError(f"{where}: cluster.address is missing: the Dask scheduler, e.g. \"tcp://10.0.0.5:8786\"")
        return None
    if address == "none":
        return None
    if not SCHEDULER_ADDRESS.fullmatch(address):
        raise ConfigError(f"{where}: cluster.address {address!r}: give the Dask scheduler as tcp://HOST:PORT "
                          "(or tls://HOST:PORT with Dask's TLS configured), e.g. tcp://10.0.0.5:8786")
    batch = _get(table, "batch", int, DEFAULT_BATCH, where, "cluster.")
    if batch < 1:
        raise ConfigError(f"{where}: cluster.batch must be at least 1")
    certs = _get(table, "certs", str, None, where, "cluster.")
    certs = None if certs is None else str(_resolve(base, certs))
    insecure = _get(table, "insecure", bool, False, where, "cluster.")
    cluster = Cluster(address, batch, certs, insecure, _get(table, "seatings_apart", bool, False, where, "cluster."))
    problem = cluster_link_problem(cluster)
    if problem:
        raise ConfigError(f"{where}: {problem}")
    return cluster


def cluster_link_problem(cluster: Cluster) -> str | None:
    """Why the link to ``cluster``'s scheduler is not safe to use, or None.

    Over plain tcp:// anyone who reaches the scheduler runs code on every
    worker, and reads each task (the games' seeds, the bots' programs); so
    a scheduler off this machine needs TLS, or the organiser's explicit
    ``insecure``."""
    scheme, _, rest = cluster.address.rpartition("://")
    host = rest.rsplit(":", 1)[0].strip("[]")
    if scheme == "tls":
        if cluster.certs is None:
            return (f"cluster.address {cluster.address!r} is TLS: give the certificates' folder (--cluster-certs DIR, "
                    "or [cluster] certs; made by: pinochle-arena cluster certs DIR)")
        return None
    if cluster.certs is not None:
        return (f"cluster.certs is for a tls:// scheduler; {cluster.address!r} is plain tcp: start the scheduler with "
                "the certificates (pinochle-arena cluster scheduler --certs DIR) and give its tls:// address")
    if is_loopback(host) or cluster.insecure:
        return None
    return (f"the scheduler at {cluster.address} is on another machine and plain tcp:// is neither encrypted nor "
            "authenticated: anyone who reaches it runs code on every worker. Make certificates (pinochle-arena "
            "cluster certs DIR), start the cluster with them and give tls://HOST:PORT with --cluster-certs DIR; or, on "
            "a network only you reach, say --insecure")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _shipped_folder(bot: dict, i: int, base: Path, where: str) -> str:
    """A bot's ``ship`` folder, made absolute; it must exist and be a folder."""
    text = _get(bot, "ship", str, None, where, f"bot[{i}].")
    folder = _resolve(base, text)
    if not folder.is_dir():
        raise ConfigError(f"{where}: bot[{i}].ship: {folder} is not a folder (ship names the folder to send to the "
                          "cluster's workers, holding the bot's program)")
    return str(folder.resolve())


def with_flags(data: dict, tournament: dict | None = None, options: dict | None = None, time: dict | None = None,
               limits: dict | None = None, bots: list[dict] | None = None, cluster: dict | None = None) -> dict:
    """``data`` with the command line's values laid over it, flags winning.

    ``tournament``, ``options``, ``time``, ``limits`` and ``cluster`` set keys of the
    tables of the same names (a value of None removes the key). A fence, time or limit given on the command
    line applies to every bot (as cutechess's ``-each``), so a bot's own
    value for that key is dropped (``read_only`` adds folders instead).
    ``bots`` are added; one with the name of
    a bot of ``data`` replaces it.
    """
    data = copy.deepcopy(data)
    tournament, options, time, limits = tournament or {}, options or {}, time or {}, limits or {}
    cluster = cluster or {}

    def table(parent: dict, key: str) -> dict:
        value = parent.setdefault(key, {})
        if not isinstance(value, dict):  # left for parse_config to report
            raise ConfigError(f"{key} should be a table")
        return value

    try:
        t = table(data, "tournament")
        t.update({key: value for key, value in tournament.items() if key not in ADDED_KEYS and value is not None})
        for key in [key for key, value in tournament.items() if value is None]:  # None: the flag clears the key
            t.pop(key, None)
        for key in ADDED_KEYS:  # added to the file's paths
            if key in tournament:
                mine = t.get(key)
                t[key] = [*(mine if isinstance(mine, list) else []), *tournament[key]]
        if options:
            table(t, "options").update(options)
        if time:
            table(data, "time").update(time)
        if limits:
            table(data, "limits").update(limits)
        if cluster:
            table(data, "cluster").update(cluster)
    except ConfigError:
        return data
    found = data.get("bot")
    tables = found if isinstance(found, list) else []
    for bot in tables:
        if not isinstance(bot, dict):
            continue
        for key in FENCE_KEYS:
            if key in tournament and key not in ADDED_KEYS:  # a bot's own paths add to the tournament's
                bot.pop(key, None)
        for key, given in (("time", time), ("limits", limits)):
            if isinstance(bot.get(key), dict):
                for name in given:
                    bot[key].pop(name, None)
    if bots:
        replaced = {b["name"] for b in bots}
        data["bot"] = [b for b in tables  # (a sample's table without a name is called by its sample's)
                       if not (isinstance(b, dict) and (b.get("name") or b.get("sample")) in replaced)] + list(bots)
    return data


CONFIG_FILE = "config.json"


def save_config(output: Path, data: dict, path: Path, key: bytes) -> Path:
    """Keep the configuration a tournament runs with (after the command line's flags) in its output folder,
    with the folder its relative paths mean, for ``tournament --resume OUT``; sealed with the run's ``key``,
    since a resume takes its bots, their fences and limits from it."""
    kept = output / CONFIG_FILE
    tmp = kept.with_suffix(".json.tmp")
    tmp.write_text(sealed_json({"format": 1, "path": str(path.absolute()), "data": data}, key), encoding="utf-8")
    os.replace(tmp, kept)
    return kept


def load_saved_config(output: Path, concurrency: int | None = None) -> tuple[TournamentConfig, dict, Path]:
    """The configuration kept in ``output`` by :func:`save_config`: (config, its data, the path it was read as);
    ConfigError if it is missing, damaged or was changed since."""
    kept = output / CONFIG_FILE
    if not kept.exists():
        if not output.is_dir():
            raise ConfigError(f"--resume {output}: no such folder")
        raise ConfigError(f"{output} holds no {CONFIG_FILE} (not a tournament's output folder, or one started by an "
                          "older version: resume that one with its configuration, 'tournament CONFIG --resume "
                          f"--out {output}')")
    try:
        saved = read_sealed_json(kept, load_key(output))
        data, path = saved["data"], Path(saved["path"])
    except Unsealed:
        raise ConfigError(f"{kept} carries no seal (written by pinochle-arena 0.1): resume with the configuration "
                          f"file, 'tournament CONFIG --resume --out {output}'") from None
    except (KeyFileError, SealError) as e:
        raise ConfigError(f"{kept}: {e}; the tournament cannot be resumed from it") from None
    except (KeyError, TypeError) as e:
        raise ConfigError(f"{kept}: damaged ({e}); resume with the configuration file instead") from None
    return parse_config(data, path, output, concurrency, where=str(kept)), data, path


def _teams(tables: Any, names: list[str], variant: Variant, where: str) -> tuple[Team, ...]:
    """[[team]] tables; a partnership variant without them pairs every bot with a copy of itself."""
    partnership = variant.partners is Partners.OPPOSITE
    if tables is None:
        return tuple(Team(n, (n, n)) for n in names) if partnership else ()
    if not partnership:
        raise ConfigError(f"{where}: [[team]] only applies to partnership variants; {variant.name} has none")
    if not isinstance(tables, list):
        raise ConfigError(f"{where}: team should be a list of [[team]] tables")
    teams = []
    for i, table in enumerate(tables, 1):
        prefix = f"team[{i}]."
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: team[{i}] should be a table with name and bots")
        _only(table, {"name", "bots"}, where, prefix)
        name = _get(table, "name", str, None, where, prefix)
        if not name or not all(ch.isalnum() or ch in "-_" for ch in name):
            raise ConfigError(f"{where}: {prefix}name: give a name of letters, digits, '-' and '_'")
        bots = table.get("bots")
        if not isinstance(bots, list) or len(bots) != 2 or not all(isinstance(b, str) for b in bots):
            raise ConfigError(f"{where}: {prefix}bots should name two bots, e.g. bots = [\"greedy\", \"greedy\"]")
        for b in bots:
            if b not in names:
                raise ConfigError(f"{where}: {prefix}bots: no bot named {b!r}; bots: {', '.join(names)}")
        teams.append(Team(name, (bots[0], bots[1])))
    team_names = [t.name for t in teams]
    repeated = sorted({n for n in team_names if team_names.count(n) > 1})
    if repeated:
        raise ConfigError(f"{where}: team names must be unique; repeated: {', '.join(repeated)}")
    return tuple(teams)


FENCE_KEYS = ("restart", "isolation", "clean_env", "persist", "read_only", "runtimes", "own_files", "kept_jail")
ADDED_KEYS = ("read_only", "runtimes")  # lists of paths: the command line's add to the file's


@attrs.frozen
class Fence:
    sandbox: Sandbox = Sandbox()
    restart: Restart = Restart.ON_FAULT
    persist: bool = False


def _fence(table: dict, limits: dict, default: Fence, where: str, prefix: str, limits_prefix: str,
           base: Path) -> Fence:
    """The sandbox, restart policy and persistence from the fence keys and a limits table."""
    sandbox, restart = default.sandbox, default.restart
    try:
        restart = Restart(_get(table, "restart", str, restart.value, where, prefix))
    except ValueError:
        raise ConfigError(f"{where}: {prefix}restart should be one of {', '.join(r.value for r in Restart)}") from None
    try:
        isolation = Isolation(_get(table, "isolation", str, sandbox.isolation.value, where, prefix))
    except ValueError:
        raise ConfigError(f"{where}: {prefix}isolation should be one of "
                          f"{', '.join(i.value for i in Isolation)}") from None
    try:
        chosen = Limits.from_dict(limits, sandbox.limits)
    except ValueError as e:
        raise ConfigError(f"{where}: {limits_prefix.rstrip('.')}: {e}") from None
    read_only = _paths(table, "read_only", base, where, prefix, 'read_only = ["data"]')
    paths = sandbox.read_only + tuple(str(_resolve(base, x).resolve()) for x in read_only)
    runtimes = sandbox.runtimes + tuple(_paths(table, "runtimes", base, where, prefix, 'runtimes = ["/opt/ruby"]'))
    sandbox = Sandbox(chosen, isolation, _get(table, "clean_env", bool, sandbox.clean_env, where, prefix), paths,
                      _get(table, "own_files", bool, sandbox.own_files, where, prefix), runtimes,
                      _get(table, "kept_jail", bool, sandbox.kept_jail, where, prefix))
    try:
        sandbox.check()
    except SandboxError as e:
        raise ConfigError(f"{where}: {prefix}isolation: {e}") from None
    return Fence(sandbox, restart, _get(table, "persist", bool, default.persist, where, prefix))


def _paths(table: dict, key: str, base: Path, where: str, prefix: str, example: str) -> list[str]:
    """A fence key's list of paths (relative to the configuration's folder), each checked to exist."""
    found = table.get(key, [])
    if not isinstance(found, list) or not all(isinstance(x, str) for x in found):
        raise ConfigError(f"{where}: {prefix}{key} should be a list of paths, e.g. {example}")
    for text in found:
        if not _resolve(base, text).exists():
            raise ConfigError(f"{where}: {prefix}{key}: {_resolve(base, text)} does not exist")
    return [str(_resolve(base, x).resolve()) for x in found] if key == "runtimes" else found


def _entrant(bot: Any, i: int, default_time: TimeControl, default_fence: Fence, base: Path,
             where: str) -> Entrant:
    prefix = f"bot[{i}]."
    if not isinstance(bot, dict):
        raise ConfigError(f"{where}: bot[{i}] should be a table with name and command")
    _only(bot, {"name", "command", "sample", "cwd", "env", "time", "limits", "options", "ship", *FENCE_KEYS}, where,
          prefix)
    name = _get(bot, "name", str, None, where, prefix)
    if not name and isinstance(bot.get("sample"), str):
        name = bot["sample"]  # a sample bot is called by its sample's name unless given one (as --bot greedy is)
    if not name:
        raise ConfigError(f"{where}: {prefix}name is missing")
    if not all(ch.isalnum() or ch in "-_." for ch in name):
        raise ConfigError(f"{where}: {prefix}name {name!r}: use letters, digits, '-', '_' and '.' only")
    command_text = _get(bot, "command", str, None, where, prefix)
    sample = _get(bot, "sample", str, None, where, prefix)
    if (command_text is None) == (sample is None):
        raise ConfigError(f"{where}: {prefix}: give exactly one of command (a command line) or sample "
                          f"(one of {', '.join(SAMPLES)})")
    cwd = _get(bot, "cwd", str, None, where, prefix)
    env = _table(bot, "env", where, required=False, prefix=prefix)
    if not all(isinstance(v, str) for v in env.values()):
        raise ConfigError(f"{where}: {prefix}env values must be strings")
    if sample is not None:
        if sample not in SAMPLES:
            raise ConfigError(f"{where}: {prefix}sample: no sample bot {sample!r}; samples: {', '.join(SAMPLES)}")
        command = attrs.evolve(SAMPLES[sample].command(), env=tuple(sorted(env.items())))
    else:
        try:
            # relative paths in a command mean the configuration file's folder (or the given cwd), wherever
            # the referee is started from; without cwd the bot runs in a working directory of its own
            command = BotCommand.from_text(command_text, str(_resolve(base, cwd)) if cwd else None, env, str(base))
            command.check()
        except BotStartError as e:
            raise ConfigError(f"{where}: {prefix}command: {e}") from None
    time = _time_control(_table(bot, "time", where, required=False, prefix=prefix), default_time, where, prefix + "time.")
    fence = _fence(bot, _table(bot, "limits", where, required=False, prefix=prefix), default_fence, where,
                   prefix, prefix + "limits.", base)
    options = _bot_options(_table(bot, "options", where, required=False, prefix=prefix), where, prefix + "options.")
    return Entrant(name, command, time, fence.sandbox, fence.restart, fence.persist, options)


def _bot_options(table: dict, where: str, prefix: str) -> tuple[tuple[str, str], ...]:
    """``options = { depth = 4, style = "bold", learn = false }``: values for options the bot declares
    (protocol 3), sent as text (a boolean as yes or no); the bot checks nothing, the referee checks them against
    the bot's declarations when it starts."""
    options = []
    for name, value in table.items():
        if isinstance(value, bool):
            text = "yes" if value else "no"
        elif isinstance(value, (int, str)) and not isinstance(value, float):
            text = str(value)
        else:
            raise ConfigError(f"{where}: {prefix}{name}: a whole number, a string or true/false, got {value!r}")
        if not text or any(ch.isspace() for ch in text):
            raise ConfigError(f"{where}: {prefix}{name}: an option value is one word (no spaces), got {text!r}")
        options.append((name, text))
    return tuple(options)


def _time_control(table: dict, default: TimeControl, where: str, prefix: str) -> TimeControl:
    _only(table, {"bank", "increment", "move", "grace"}, where, prefix)
    values = {
        "bank_ms": _get(table, "bank", int, default.bank_ms, where, prefix),
        "increment_ms": _get(table, "increment", int, default.increment_ms, where, prefix),
        "move_ms": _get(table, "move", int, default.move_ms, where, prefix),
        "grace_ms": _get(table, "grace", int, default.grace_ms, where, prefix),
    }
    try:
        return TimeControl(**values)
    except ValueError as e:
        raise ConfigError(f"{where}: {prefix.rstrip('.')}: {e}") from None


def _resolve(base: Path, text: str) -> Path:
    """A path of the configuration, relative to its folder, made absolute (whatever the referee's folder)."""
    p = Path(text).expanduser()
    return p if p.is_absolute() else (base / p).absolute()


def _only(table: dict, allowed: set[str], where: str, prefix: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        near = difflib.get_close_matches(unknown[0], sorted(allowed), n=1, cutoff=0.6)
        hint = f"; did you mean {prefix}{near[0]}?" if near else ""
        raise ConfigError(f"{where}: unknown key {prefix}{unknown[0]}{hint}; allowed here: {', '.join(sorted(allowed))}")


def _table(data: dict, key: str, where: str, required: bool = True, prefix: str = "") -> dict:
    value = data.get(key)
    if value is None:
        if required:
            raise ConfigError(f"{where}: missing table [{prefix}{key}]")
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {prefix}{key} should be a table")
    return value


def _get(table: dict, key: str, kind: type, default: Any, where: str, prefix: str) -> Any:
    if key not in table:
        return default
    value = table[key]
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        names = {int: "a whole number", str: "a string", bool: "true or false"}
        raise ConfigError(f"{where}: {prefix}{key} should be {names[kind]}, got {value!r}")
    return value
