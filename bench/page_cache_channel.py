"""Benchmark: the timing channel through the page cache, with the host's files and with a file system of its own.

The seccomp filter takes away asking the kernel which file pages are cached
(mincore, cachestat, RWF_NOWAIT reads) and evicting them (fadvise, madvise).
With the host's files in the jail, the page cache is still the machine's: a
first seating of a deal can read system files that nothing has cached, and
a later seating, a fresh process in a fresh jail, can time its own reads of
them: a cached page comes back in microseconds, one from the disk much later.
With a file system of its own (the default, as root), each process reads
through mounts nobody else reads, and there is nothing to time.

Each round this benchmark evicts ``--files`` files of the Python runtime
from the cache (as the harness, outside any jail: a jailed bot cannot),
starts a *sender* in a jail exactly as the referee starts a bot, which reads
the files of the 1 bits of a random message, then a *receiver* in a fresh
jail, which times one read of each file and calls the fastest half 1; once
with the host's files (``own_files = false``), once with the default. It
prints how many bits came through and the capacity of that channel per file
(1 - H(error rate), a binary symmetric channel).

    python bench/page_cache_channel.py [--files 96] [--rounds 5]
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import trio

from _common import capacity, jailed_output, read_all, summary

from referee.bots.sandbox import Sandbox, launch, start

SENDER = """
import sys
for path in open(sys.argv[1]).read().split():
    with open(path, "rb") as f:
        f.read(4096)
"""

RECEIVER = """
import os, sys, time
for path in open(sys.argv[1]).read().split():
    fd = os.open(path, os.O_RDONLY)
    start = time.perf_counter_ns()
    os.pread(fd, 4096, 0)
    print(time.perf_counter_ns() - start)
    os.close(fd)
"""


MODES = {"the host's files": Sandbox(own_files=False), "a file system of its own (default)": Sandbox()}


def jailed(script: Path, listing: Path, sandbox: Sandbox) -> str:
    """Run ``python3 script listing`` in a jail, as the referee starts a bot; its stdout."""
    return trio.run(_jailed, script, listing, sandbox)


async def _jailed(script: Path, listing: Path, sandbox: Sandbox) -> str:
    how = launch(sandbox, ("/usr/bin/python3", str(script), str(listing)), None, {})
    try:
        process = await start(how)
        await process.stdin.aclose()
        out, err = bytearray(), bytearray()
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read_all, process.stdout, out)
                nursery.start_soon(read_all, process.stderr, err)
            code = await process.wait()
    finally:
        how.cleanup()
    return jailed_output(code, out, err)



def evict(paths: list[str]) -> None:
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def through(folder: Path, pool: list[str], sandbox: Sandbox, args) -> float:
    """The error rate of the channel from a jailed sender to a jailed receiver, over the rounds."""
    rng = random.Random(1)
    right = total = 0
    for round_ in range(args.rounds):
        files = rng.sample(pool, args.files)
        bits = [rng.randrange(2) for _ in files]
        evict(files)
        (folder / "send.txt").write_text("\n".join(f for f, b in zip(files, bits, strict=True) if b))
        (folder / "all.txt").write_text("\n".join(files))
        for listing in ("send.txt", "all.txt"):
            (folder / listing).chmod(0o644)
        jailed(folder / "sender.py", folder / "send.txt", sandbox)
        times = [int(t) for t in jailed(folder / "receiver.py", folder / "all.txt", sandbox).split()]
        cut = sorted(times)[len(times) // 2]
        guessed = [1 if t < cut else 0 for t in times]
        hits = sum(g == b for g, b in zip(guessed, bits, strict=True))
        right, total = right + hits, total + len(bits)
        print(f"  round {round_ + 1}: {hits}/{len(bits)} bits right; read times fastest {sorted(times)[:3]} ns "
              f"... slowest {sorted(times)[-3:]} ns")
    return 1 - right / total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    pool = sorted(p for p in glob.glob("/usr/lib/python3*/**/*.py", recursive=True)
                  if os.path.isfile(p) and os.path.getsize(p) >= 4096)
    folder = Path(tempfile.mkdtemp(prefix="pa-pagecache-"))
    folder.chmod(0o755)
    try:
        (folder / "sender.py").write_text(SENDER)
        (folder / "receiver.py").write_text(RECEIVER)
        for mode, sandbox in MODES.items():
            print(f"{mode}:")
            error = through(folder, pool, sandbox, args)
            per_file = capacity(error)
            print(f"  {100 * (1 - error):.1f}% of bits right: {per_file:.2f} bits per file a bot reads")
            summary(f"page cache timing, {mode}: {100 * (1 - error):.1f}% of bits through, {per_file:.2f} bits/file")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
