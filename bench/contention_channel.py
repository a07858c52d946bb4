"""Benchmark: the channel two running jails keep through CPU contention (tests/attacks/bots/contention.py).

The jail closes every channel between two bots that asks the kernel for
something, but two bots playing at once (partners of a four-handed game)
still share the machine's cores. The attack bot pins a thread to one core in
each partner and signals in slots on the shared clock: the sender spins in
the first half of a slot for a 1 and in the second for a 0, the receiver
counts how much work it gets done in each half.

Each round this benchmark starts a *sender* and a *receiver* in two jails,
exactly as the referee starts two bots (the defaults: jailed, as root a uid
and a control group each with a 1-core quota, at a playing bot's CPU
weight), running the attack bot's own ``send`` and ``receive`` on a known
random bit string for ``--seconds``, and counts the bits read wrong. For a
few slot lengths it prints the bit error rate and the capacity of that
channel, (1 - H(error rate)) bits a slot (a binary symmetric channel), in
bits per second; first with nothing added to the machine (the table gives
its load average: whatever else runs is noise to the channel), then beside
two busy processes (``yes > /dev/null``, started and killed here). It
asserts nothing. This is the raw channel, one copy of every bit read
alone; the capacity is the most any coding of it carries (the attack in a
game sends its hand 40 times over and adds up what the copies say).

    python bench/contention_channel.py [--slots 0.25 0.5 1 2 5 10 20 50] [--seconds 4] [--rounds 3] [--unpinned]

``--unpinned``: neither end pins its thread (what is left if bots could not choose their cores).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs
import trio
from _common import ROOT, capacity, jailed_output, read_all, summary
from tabulate import tabulate

from referee.bots.sandbox import Sandbox, launch, start

BOTS = ROOT / "tests" / "attacks" / "bots"
LEAD = 0.3  # seconds from telling both ends when to start to the first slot
HAND_BITS = 39  # a four-handed hand as the attack sends it (contention.hand_bits)

# One end of the channel: it says "ready" once started, reads the monotonic time of the first slot on stdin.
ENDPOINT = """
import sys
from contention import pin, receive, send
args = dict(word.split("=", 1) for word in sys.argv[1:])
pinned = pin() if args["pin"] == "yes" else "no"
print("ready", flush=True)
start, slot = float(sys.stdin.readline()), float(args["slot"]) / 1000
if args["role"] == "send":
    send([int(b) for b in args["bits"]], start, slot)
    print(pinned)
else:
    print(pinned, "".join(map(str, receive(int(args["count"]), start, slot))))
"""


@attrs.define
class Rendezvous:
    """Both ends are started (a jail takes its time) before either is told when the first slot is."""

    waiting: int
    moment: float = 0.0
    go: trio.Event = attrs.Factory(trio.Event)

    async def arrive(self) -> float:
        """Wait for the other end; the monotonic time of the first slot."""
        self.waiting -= 1
        if self.waiting == 0:
            self.moment = time.monotonic() + LEAD
            self.go.set()
        await self.go.wait()
        return self.moment


async def _run(argv: tuple[str, ...], rendezvous: Rendezvous) -> str:
    """Run ``argv`` in a jail as the referee starts a bot, at a playing bot's CPU weight; once it and the other
    end are ready, tell it when the first slot is. Its stdout after "ready"."""
    how = launch(Sandbox(), argv, None, {})
    try:
        process = await start(how)
        how.play()
        out, err = bytearray(), bytearray()
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read_all, process.stderr, err)
                while not out.endswith(b"ready\n") and (chunk := await process.stdout.receive_some(1 << 16)):
                    out += chunk
                moment = await rendezvous.arrive()
                await process.stdin.send_all(f"{moment}\n".encode())
                await process.stdin.aclose()
                out.clear()
                await read_all(process.stdout, out)
            code = await process.wait()
    finally:
        how.cleanup()
    return jailed_output(code, out, err)



async def _pair(script: Path, bits: str, slot_ms: float, pinned: bool) -> str:
    """Run a sender of ``bits`` and a receiver at once, each in a jail of its own; the receiver's output."""
    common = ("/usr/bin/python3", str(script), f"slot={slot_ms:g}", f"pin={'yes' if pinned else 'no'}")
    rendezvous = Rendezvous(2)
    heard = []

    async def receiver():
        heard.append(await _run((*common, "role=receive", f"count={len(bits)}"), rendezvous))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_run, (*common, "role=send", f"bits={bits}"), rendezvous)
        nursery.start_soon(receiver)
    return heard[0]


def measure(script: Path, slot_ms: float, seconds: float, rounds: int, pinned: bool,
            rng: random.Random) -> tuple[int, int, str]:
    """(bits wrong, bits sent, how the receiver pinned) over ``rounds`` runs of ``seconds`` each."""
    wrong = total = 0
    pin_result = "?"
    for _ in range(rounds):
        count = max(16, int(seconds * 1000 / slot_ms))
        bits = "".join(str(rng.randrange(2)) for _ in range(count))
        heard = trio.run(_pair, script, bits, slot_ms, pinned)
        pin_result, got = heard.split()
        wrong += sum(a != b for a, b in zip(bits, got, strict=True))
        total += count
    return wrong, total, pin_result


@contextlib.contextmanager
def busy(count: int):
    """``count`` processes of ``yes > /dev/null``, killed (by pid) at the end."""
    processes = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(count)]
    try:
        time.sleep(0.2)
        yield
    finally:
        for process in processes:
            process.kill()
            process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slots", type=float, nargs="+", default=[0.25, 0.5, 1, 2, 5, 10, 20, 50],
                        help="slot lengths, ms")
    parser.add_argument("--seconds", type=float, default=4.0, help="length of one run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each slot length and load")
    parser.add_argument("--unpinned", action="store_true", help="neither end pins its thread to a core")
    args = parser.parse_args()
    Sandbox().check()
    folder = Path(tempfile.mkdtemp(prefix="pa-contention-"))
    folder.chmod(0o755)
    rng = random.Random(1)
    rows = []
    best: dict[str, tuple[float, float, float]] = {}  # load -> (bits/s, slot ms, error rate) of its best slot
    try:
        for name in ("contention.py", "botloop.py"):
            shutil.copy(BOTS / name, folder / name)
        script = folder / "endpoint.py"
        script.write_text(ENDPOINT)
        for path in folder.iterdir():
            path.chmod(0o644)
        for load, extra in (("quiet", 0), ("2 busy", 2)):
            with busy(extra):
                for slot_ms in args.slots:
                    wrong, total, pinned = measure(script, slot_ms, args.seconds, args.rounds, not args.unpinned, rng)
                    error = wrong / total
                    raw = 1000 / slot_ms
                    rate = capacity(error) * raw
                    rows.append([load, f"{os.getloadavg()[0]:.1f}", f"{slot_ms:g}", pinned, f"{wrong}/{total}",
                                 f"{100 * error:.1f}%", f"{raw:.0f}", f"{rate:.1f}"])
                    print(" | ".join(rows[-1]), flush=True)
                    if load not in best or rate > best[load][0]:
                        best[load] = (rate, slot_ms, error)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print()
    print(tabulate(rows, headers=["machine", "load (1 min)", "slot ms", "pin", "bits wrong", "error rate",
                                  "raw bits/s", "capacity bits/s"], tablefmt="github"))
    parts = [f"{load} {rate:.1f} bits/s at {slot_ms:g} ms ({100 * error:.1f}% wrong; a hand's {HAND_BITS} bits "
             f"in {1000 * HAND_BITS / rate if rate else math.inf:.0f} ms at capacity)"
             for load, (rate, slot_ms, error) in best.items()]
    summary(f"CPU contention between two jails{' (unpinned)' if args.unpinned else ''}: " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
