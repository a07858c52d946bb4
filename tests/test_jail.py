"""The jail's building blocks: what a bot may see (bwrap arguments), uids, control groups.

The attacks themselves are in tests/attacks/; these pin the pieces down,
including the cgroup v2 layout that this machine (cgroup v1) cannot run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.bots import cgroups, jail
from referee.bots.cgroups import CgroupLimits, Hierarchy, find_hierarchy


def binds(argv: list[str]) -> list[str]:
    """The host paths bound read-only into the jail, in order."""
    return [argv[i + 1] for i, word in enumerate(argv) if word == "--ro-bind"]


def covered(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, word in enumerate(argv) if word == "--tmpfs"]


def test_a_script_shows_its_interpreter_installation_and_its_own_folder(tmp_path):
    bot = tmp_path / "bots" / "mine" / "bot.py"
    bot.parent.mkdir(parents=True)
    bot.write_text("print('ready')\n")
    argv = jail.command(jail.JailSpec((sys.executable, str(bot))))
    seen = binds(argv)
    assert str(bot.parent) in seen
    assert str(Path(os.path.realpath(sys.executable)).parent.parent) in seen  # the interpreter's installation
    assert str(tmp_path) not in seen and str(tmp_path / "bots") not in seen  # not the folders around it
    assert argv[argv.index("--") + 1:][-2:] == [sys.executable, str(bot)]


def test_the_output_folder_is_covered_even_inside_a_folder_the_bot_may_read(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("")
    out = tmp_path / "results" / "run1"
    out.mkdir(parents=True)
    argv = jail.command(jail.JailSpec((sys.executable, str(bot)), hidden=(str(out),)))
    assert str(tmp_path) in binds(argv)
    assert str(out) in covered(argv)
    assert argv.index("--tmpfs", argv.index(str(tmp_path))) > argv.index(str(tmp_path))  # after the bind


def test_a_program_inside_the_output_folder_is_refused(tmp_path):
    out = tmp_path / "out"
    program = out / "bots" / "bot"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    with pytest.raises(jail.JailError, match="program is inside the output folder"):
        jail.command(jail.JailSpec((str(program),), hidden=(str(out),)))


def test_a_script_in_the_output_folder_is_not_shown(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("")
    argv = jail.command(jail.JailSpec((sys.executable, str(bot)), hidden=(str(tmp_path),)))
    assert str(tmp_path) not in binds(argv)  # so the bot cannot start: it says so on its stderr


def test_a_command_that_would_show_the_whole_file_system_is_refused():
    with pytest.raises(jail.JailError, match="whole file system"):
        jail.command(jail.JailSpec((sys.executable, "/")))


def test_version_manager_shims_are_skipped_on_path(tmp_path):
    shims, real = tmp_path / "shims", tmp_path / "bin"
    for folder in (shims, real):
        folder.mkdir()
        program = folder / "python3"
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    assert jail.resolve_program("python3", f"{shims}:{real}") == str(real / "python3")
    with pytest.raises(jail.JailError, match="not found"):
        jail.resolve_program("no-such-program-here", str(real))


def test_a_scripts_interpreter_line_is_followed(tmp_path):
    tool = tmp_path / "tools" / "bin" / "myinterp"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    bot = tmp_path / "bot" / "run"
    bot.parent.mkdir()
    bot.write_text(f"#!{tool}\n")
    bot.chmod(0o755)
    seen = binds(jail.command(jail.JailSpec((str(bot),))))
    assert str(tmp_path / "tools") in seen and str(bot.parent) in seen


def test_a_program_link_turned_to_another_program_is_followed(tmp_path):
    """The jail's file system is worked out once per bot, and again when its program is another file."""
    for version in ("v1", "v2"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "bot").write_text("#!/bin/sh\n")
        (tmp_path / version / "bot").chmod(0o755)
    (tmp_path / "links").mkdir()
    link = tmp_path / "links" / "current"
    link.symlink_to(tmp_path / "v1" / "bot")
    first = binds(jail.command(jail.JailSpec((str(link),))))
    link.unlink()
    link.symlink_to(tmp_path / "v2" / "bot")
    second = binds(jail.command(jail.JailSpec((str(link),))))
    assert str(tmp_path / "v1") in first and str(tmp_path / "v2") not in first
    assert str(tmp_path / "v2") in second and str(tmp_path / "v1") not in second


def test_a_bound_folder_turned_into_a_link_to_the_output_is_not_shown_at_the_next_start(tmp_path):
    """What a jail shows is worked out once per bot, but not trusted blindly: a folder it binds that has become a
    link (bwrap would follow it into the hidden output folder) makes it worked out again."""
    data, out = tmp_path / "data", tmp_path / "out"
    data.mkdir()
    out.mkdir()
    (data / "w.bin").write_text("weights")
    (out / "games.jsonl").write_text("")
    spec = jail.JailSpec(("/bin/cat", str(data / "w.bin")), hidden=(str(out),))
    assert str(data) in binds(jail.command(spec))
    (data / "w.bin").unlink()
    data.rmdir()
    data.symlink_to(out)
    again = binds(jail.command(spec))
    assert str(data) not in again and str(out) not in again


def test_root_runs_the_bot_under_its_own_uid_without_privileges():
    argv = jail.command(jail.JailSpec(("/bin/true",), uid=jail.UID_BASE + 7))
    tail = argv[argv.index("--") + 1:]
    assert tail[0].endswith("setpriv") and f"--reuid={jail.UID_BASE + 7}" in tail
    assert {"--no-new-privs", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"} <= set(tail)
    assert "--unshare-user" not in argv
    unprivileged = jail.command(jail.JailSpec(("/bin/true",)))
    assert "--unshare-user" in unprivileged and "--disable-userns" in unprivileged


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid pool is for a referee running as root")
def test_uids_are_held_one_per_bot_and_given_back():
    held = [jail.Uid.take() for _ in range(5)]
    uids = {u.uid for u in held}
    assert len(uids) == 5 and all(jail.UID_BASE <= u < jail.UID_BASE + jail.UID_POOL for u in uids)
    for u in held:
        u.release()


# ------------------------------------------------------------------ control groups
V1_CGROUP = "8:pids:/\n4:memory:/machine/ref\n1:cpu:/\n2:cpuacct:/\n0::/\n"
V1_MOUNTS = (
    "30 25 0:26 / /sys/fs/cgroup/pids rw,relatime shared:1 - cgroup cgroup rw,pids\n"
    "31 25 0:27 / /sys/fs/cgroup/memory rw,relatime shared:2 - cgroup cgroup rw,memory\n"
    "32 25 0:28 / /sys/fs/cgroup/cpu rw,relatime shared:3 - cgroup cgroup rw,cpu\n"
    "33 25 0:29 / /sys/fs/cgroup/unified rw,relatime shared:4 - cgroup2 cgroup2 rw\n"
)


def test_cgroup_v1_groups_go_below_the_referees_own_group_in_each_controller():
    hierarchy, why = find_hierarchy(V1_CGROUP, V1_MOUNTS)
    assert why == ""
    assert hierarchy == Hierarchy(1, (Path("/sys/fs/cgroup/pids/pinochle-arena"),
                                      Path("/sys/fs/cgroup/memory/machine/ref/pinochle-arena"),
                                      Path("/sys/fs/cgroup/cpu/pinochle-arena")))
    writes = hierarchy.writes(CgroupLimits(processes=64, memory_bytes=1 << 30, cpus=2))
    assert (0, "pids.max", "64") in writes
    assert (1, "memory.limit_in_bytes", str(1 << 30)) in writes
    assert (2, "cpu.cfs_quota_us", "200000") in writes
    # a new group starts at a sixteenth of a playing bot's weight (BotCgroup.play gives it the full one)
    assert (2, "cpu.shares", "64") in writes and hierarchy.weight() == (2, "cpu.shares", "64", "1024")
    assert writes.index((1, "memory.limit_in_bytes", str(1 << 30))) < writes.index(
        (1, "memory.memsw.limit_in_bytes", str(1 << 30)))  # the kernel wants memory first


def test_cgroup_v2_when_it_has_the_controllers(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma misc\n")
    mounts = f"40 25 0:30 / {tmp_path} rw,nosuid shared:5 - cgroup2 cgroup2 rw,nsdelegate\n"
    hierarchy, why = find_hierarchy("0::/system.slice/arena.service\n", mounts)
    assert why == "" and hierarchy == Hierarchy(2, (tmp_path / "system.slice/arena.service/pinochle-arena",))
    writes = hierarchy.writes(CgroupLimits(processes=10, memory_bytes=100, cpus=1))
    assert (0, "cpu.max", "100000 100000") in writes and (0, "memory.swap.max", "0") in writes
    assert (0, "pids.max", "10") in writes
    assert (0, "cpu.weight", "6") in writes and hierarchy.weight() == (0, "cpu.weight", "6", "100")


def test_cgroup_v2_without_the_controllers_says_which_are_missing(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpu io\n")
    mounts = f"40 25 0:30 / {tmp_path} rw - cgroup2 cgroup2 rw\n"
    hierarchy, why = find_hierarchy("0::/\n", mounts)
    assert hierarchy is None and "pids, memory" in why


def test_no_limit_means_max_and_no_quota():
    writes = Hierarchy(1, (Path("p"), Path("m"), Path("c"))).writes(CgroupLimits())
    assert (0, "pids.max", "max") in writes
    assert not any(file.startswith("memory.") or file == "cpu.cfs_quota_us" for _, file, _ in writes)


@pytest.mark.skipif(cgroups.usable_hierarchy()[0] is None, reason="no writable control groups here")
def test_a_real_group_holds_its_limits_and_is_removed():
    hierarchy, _ = cgroups.usable_hierarchy()
    group = cgroups.BotCgroup.create(hierarchy, CgroupLimits(processes=12, memory_bytes=64 << 20, cpus=1))
    try:
        assert all(folder.is_dir() for folder in group.folders)
        assert (group.folders[0] / "pids.max").read_text().strip() == "12"
    finally:
        group.close()
    assert not any(folder.exists() for folder in group.folders)


@pytest.mark.skipif(cgroups.usable_hierarchy()[0] is None, reason="no writable control groups here")
def test_each_run_keeps_its_bots_groups_in_its_own_and_a_gone_ones_are_swept():
    hierarchy, _ = cgroups.usable_hierarchy()
    assert all(folder.name == cgroups.run_name() and folder.parent.name == cgroups.PARENT
               for folder in hierarchy.folders)  # the CPU is shared between runs first
    assert cgroups.run_name().startswith(f"{os.getpid()}.") or cgroups.RUN_ENV in os.environ
    group = cgroups.BotCgroup.create(hierarchy, CgroupLimits(processes=4))
    try:
        assert all(g.parent == h for g, h in zip(group.folders, hierarchy.folders, strict=True))
    finally:
        group.close()
    gone = _a_dead_pid()
    shared = cgroups.Hierarchy(hierarchy.version, tuple(folder.parent for folder in hierarchy.folders))
    # as killed runs leave them: one whose first process is gone, and one whose pid a new process has now
    mine = cgroups.start_time(os.getpid())
    left = [folder / name / f"{gone}-1" for folder in shared.folders
            for name in (f"{gone}.123", f"{os.getpid()}.{int(mine) - 1}")]
    for folder in left:
        folder.mkdir(parents=True)
    cgroups.sweep(shared)  # (another test process's first use may sweep some of them first: the end is what counts)
    assert not any(folder.parent.exists() for folder in left)
    assert all(folder.exists() for folder in hierarchy.folders)  # this run's own is kept


def _a_dead_pid() -> int:
    """The pid of a process that has ended (and was waited for)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_bot_that_cannot_reach_a_file_in_its_jail_fails_to_start_naming_it(tmp_path):
    """Its data lies outside every folder its command names: the start-up error quotes what it could not open."""
    import trio
    from helpers import play

    from referee.bots.samples import SAMPLES
    from referee.bots.transport import BotCommand
    from referee.match import Entrant
    from referee.match.clock import TimeControl
    from referee.records.record import Termination
    from referee.rules import get_variant

    data = tmp_path / "elsewhere" / "weights.txt"
    data.parent.mkdir()
    data.write_text("1 2 3\n")
    bot = tmp_path / "bot" / "bot.py"
    bot.parent.mkdir()
    bot.write_text(f"open({str(data)!r}).read()\nprint('ready')\n")

    entrants = [Entrant("mine", BotCommand((sys.executable, str(bot)))),
                Entrant("random", SAMPLES["random"].command(), TimeControl())]
    (record,), _ = trio.run(play, entrants, get_variant("two-handed"), 1, tmp_path / "out")
    assert record.termination is Termination.CRASH and record.culprit == 0
    assert "failed to start" in record.detail and str(data) in record.detail and "No such file" in record.detail


def test_a_command_word_inside_the_output_folder_is_not_shown(tmp_path):
    """Naming a results file on the command line neither shows the output folder nor stops the bot."""
    bot = tmp_path / "bot" / "bot.py"
    bot.parent.mkdir()
    bot.write_text("")
    out = tmp_path / "out"
    out.mkdir()
    (out / "games.jsonl").write_text("")
    argv = jail.command(jail.JailSpec((sys.executable, str(bot), str(out / "games.jsonl")), hidden=(str(out),)))
    assert str(out) not in binds(argv) and str(bot.parent) in binds(argv)


def test_a_folder_other_users_cannot_read_is_a_clear_error_when_bots_get_their_own_uid(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "bot.py").write_text("")
    with pytest.raises(jail.JailError, match=r"mode 0700.*runs as a uid of its own: chmod o\+rx"):
        jail.command(jail.JailSpec((sys.executable, str(private / "bot.py")), uid=jail.UID_BASE))
    jail.command(jail.JailSpec((sys.executable, str(private / "bot.py"))))  # in a user namespace: its own user


def _listing_in_jail(spec: jail.JailSpec) -> str:
    import subprocess

    done = subprocess.run(jail.command(spec), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("spelling", ["symlink", "dotdot", "relative"])
def test_the_output_folder_stays_covered_however_the_bots_folder_is_spelled(spelling, tmp_path, monkeypatch):
    """Hidden or not is decided on real paths: a symlink, a '..' or a relative path cannot show OUT."""
    real = tmp_path / "real"
    out = real / "results" / "t"
    out.mkdir(parents=True)
    (out / "secret.key").write_text("k")
    (real / "bots").mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.chdir(tmp_path)
    cwd = {"symlink": str(tmp_path / "link"), "dotdot": str(real / "bots" / ".."), "relative": "real"}[spelling]
    seen_as = {"symlink": tmp_path / "link", "dotdot": real, "relative": real}[spelling]
    spec = jail.JailSpec(("/bin/ls", "-A", str(seen_as / "results" / "t")), cwd=cwd, hidden=(str(out),))
    assert _listing_in_jail(spec) == ""  # an empty folder where OUT is
    listing = _listing_in_jail(jail.JailSpec(("/bin/ls", "-A", str(seen_as)), cwd=cwd, hidden=(str(out),)))
    assert listing.split() == ["bots", "results"]  # the rest of the folder is there


def test_covers_map_a_hidden_folder_into_every_place_that_shows_it(tmp_path):
    out = tmp_path / "a" / "out"
    out.mkdir(parents=True)
    shown = [(Path("/seen/here"), tmp_path), (Path("/usr"), Path("/usr")), (Path("/other"), tmp_path / "a" / "out" / "x")]
    assert jail.covers((str(out),), shown) == [Path("/seen/here/a/out")]


def run_probe(tmp_path, name: str, source: str):
    """Run a Python probe in a jail with the syscall filter, as a bot runs (its own uid as root)."""
    import subprocess

    probe = tmp_path / "probe" / name
    probe.parent.mkdir()
    probe.write_text(source)
    seccomp = jail.seccomp_pipe()
    uid = jail.UID_BASE + jail.UID_POOL - 1 if os.geteuid() == 0 else None
    spec = jail.JailSpec(("/usr/bin/python3", str(probe)), uid=uid, seccomp_fd=seccomp)
    try:
        return subprocess.run(jail.command(spec), capture_output=True, text=True, timeout=60, pass_fds=(seccomp,))
    finally:
        os.close(seccomp)


KEYRING_PROBE = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
KEY_SPEC_USER_KEYRING = -4
number = libc.syscall(248, b"user", b"note", b"AS KS", 5, KEY_SPEC_USER_KEYRING)  # add_key
print("add_key", number, ctypes.get_errno())
"""


def test_a_jailed_bot_cannot_leave_notes_in_the_kernels_keyrings(tmp_path):
    """Keyrings belong to a uid and outlive the bot's processes: a note there would reach its next game."""
    import errno

    done = run_probe(tmp_path, "keys.py", KEYRING_PROBE)
    assert done.stdout.split() == ["add_key", "-1", str(errno.EPERM)], done.stderr


USERNS_PROBE = """
import ctypes, os, subprocess, threading
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
print("unshare", libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), ctypes.get_errno())
tool = subprocess.run(["unshare", "-Urm", "true"], capture_output=True)  # util-linux: clone or unshare
print("tool", "refused" if tool.returncode else "made one")
worker = threading.Thread(target=lambda: print("thread", "ran"))  # clone3 fails with ENOSYS: threads still start
worker.start()
worker.join()
"""


def test_a_jailed_bot_cannot_make_a_user_namespace_to_mount_a_tmpfs_past_its_disk_limit(tmp_path):
    """In a user namespace of its own the bot is root over its mounts: a tmpfs of any size would lift its disk
    limit. The filter refuses one, by unshare and by clone; threads (clone3, refused with ENOSYS so that the C
    library falls back to clone) still work."""
    import errno

    done = run_probe(tmp_path, "userns.py", USERNS_PROBE)
    assert done.stdout.split("\n")[:3] == [f"unshare -1 {errno.EPERM}", "tool refused", "thread ran"], done.stderr


def test_bots_in_folders_of_their_own_by_cwd_are_apart(tmp_path):
    """README's layout with a cwd per bot: './a' in bots/a and './b' in bots/b. The relative program is
    looked up in its own cwd, not where the referee was started."""
    from referee.bots.apart import exposures

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        program = tmp_path / name / name
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    specs = {n: jail.JailSpec((f"./{n}",), cwd=str(tmp_path / n)) for n in ("a", "b")}
    assert exposures(specs) == []
    beside = {n: jail.JailSpec((str(tmp_path / n / n),)) for n in ("a", "b")}
    (tmp_path / "a" / "b").write_text("#!/bin/sh\n")  # a second program in a's folder: now a would see it
    beside["b"] = jail.JailSpec((str(tmp_path / "a" / "b"),))
    assert any("bot a would be shown b's program" in p for p in exposures(beside))


def test_unique_names_never_collide():
    from referee.bots.samples import unique_names

    assert unique_names(["random", "random", "random-2"]) == ["random", "random-2", "random-2-2"]
    assert unique_names(["greedy"], taken=["greedy"]) == ["greedy-2"]


def test_a_read_only_folder_that_holds_another_bot_is_named_as_the_cause(tmp_path):
    from referee.bots.apart import exposures

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        program = tmp_path / name / "bot"
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    specs = {n: jail.JailSpec((str(tmp_path / n / "bot"),), read_only=(str(tmp_path),)) for n in ("a", "b")}
    problems = exposures(specs)
    assert problems and all("through a read-only folder given to it" in p for p in problems)


_PARTS = st.sampled_from(["a", "b", "bc", "usr", ".x", "a b"])
_PATHS = st.lists(_PARTS, max_size=4).map(lambda parts: "/" + "/".join(parts))


@given(_PATHS, st.lists(st.tuples(_PATHS, st.sampled_from(["", "/", "//"])).map("".join), max_size=3))
def test_is_under_compares_parts_as_pathlib_does(path, roots):
    """The jail's "is this path inside that folder" (on texts, for speed) agrees with pathlib's parents: /a/b is
    under /a and /a/, not under /a/bc or /ab; / holds everything."""
    expected = any(Path(path) == Path(r) or Path(r) in Path(path).parents for r in roots)
    assert jail.is_under(Path(path), roots) == expected


@pytest.mark.parametrize("written", [b'{\n    "child-pid": 4242,\n    "cgroup-namespace": 4026532475,\n}\n',
                                     b'{\n    "child-pid": 4242,\n    "cgroup'])
def test_the_jails_first_process_is_read_from_bwraps_info_even_cut_short(written):
    """bwrap writes the first process's pid at once and the namespaces once the jail is set up: a bwrap killed in
    between leaves the JSON cut short, and that process must still be found (and reaped) by its pid."""
    read, write = os.pipe()
    os.write(write, written)
    os.close(write)
    assert jail.read_first_process(read) == 4242


def test_a_child_of_ours_on_its_way_out_is_still_ours_to_reap(monkeypatch):
    """A jail's first process, adopted by the referee, read while it exits: its environment is gone (reading it
    fails with ESRCH) and it must still be reaped, or it stays a zombie (found beside two busy processes)."""
    from referee.bots import sandbox

    child = subprocess.Popen(["sleep", "30"])
    while not Path(f"/proc/{child.pid}/environ").read_bytes():  # (just forked, mid-exec: none to read yet)
        time.sleep(0.001)
    real_open = open

    def exiting(path, *args, **kwargs):
        if str(path) == f"/proc/{child.pid}/environ":
            raise ProcessLookupError(3, "No such process")
        return real_open(path, *args, **kwargs)

    try:
        monkeypatch.setattr("builtins.open", exiting)
        assert sandbox._is_ours(child.pid, "no-marker")
        monkeypatch.undo()
        assert not sandbox._is_ours(child.pid, "no-marker")  # alive, environment readable, not its marker
    finally:
        child.kill()
        child.wait()


FIRST_THING = """import sys
cgroups = open("/proc/self/cgroup").read().replace(chr(10), " ")
limits = [line for line in open("/proc/self/limits") if line.startswith(("Max open files", "Max cpu time"))]
print(cgroups, "|", " ".join(" ".join(line.split()) for line in limits), flush=True)
"""


@pytest.mark.skipif(os.geteuid() != 0 or jail.problem() != "" or cgroups.usable_hierarchy()[0] is None,
                    reason="needs the jail as root, with control groups")
def test_a_jailed_bots_first_instruction_already_runs_in_its_group_and_under_its_limits():
    """bwrap holds the jail it made until the referee has moved it into the bot's control groups and set its
    rlimits: what the bot's program sees first of itself is its own group and its own limits."""
    import shutil
    import tempfile

    import trio

    from referee.bots.sandbox import Limits, Sandbox
    from referee.bots.transport import BotCommand, BotProcess

    folder = Path(tempfile.mkdtemp(prefix="pa-first-"))  # not under pytest's folder (0700): the bot's uid reads it
    folder.chmod(0o755)
    program = folder / "first.py"
    program.write_text(FIRST_THING)
    sandbox = Sandbox(Limits(open_files=37, cpu_seconds=99))

    async def first_line() -> str:
        async with trio.open_nursery() as nursery:
            bot = await BotProcess.start(nursery, BotCommand((os.path.realpath(sys.executable), "-S", str(program))),
                                         sandbox=sandbox)
            line = await bot.read_line(trio.current_time() + 30)
            await bot.kill()
            nursery.cancel_scope.cancel()
        return line.text

    try:
        seen, limits = trio.run(first_line).split("|")
    finally:
        shutil.rmtree(folder)
    assert f"{cgroups.PARENT}/{cgroups.run_name()}/" in seen  # every hierarchy: the run's folder, the bot's group
    assert all(f"{cgroups.PARENT}/{cgroups.run_name()}/" in entry for entry in seen.split() if ":pids:" in entry)
    assert "Max open files 37 37 files" in limits and "Max cpu time 99 " in limits


@pytest.mark.skipif(os.geteuid() != 0 or jail.problem() != "", reason="needs the jail as root")
def test_a_jail_that_cannot_be_fenced_is_killed_before_it_goes_on(monkeypatch):
    """If the referee cannot set the held jail's limits, the start fails with one line, and the jail (still
    waiting for its syscall filter, so nothing of the bot ran) is killed and reaped, its uid and group given back."""
    import trio

    from referee.bots import sandbox
    from referee.bots.transport import BotCommand, BotProcess, BotStartError

    def refused(pid, which, limits):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(sandbox.resource, "prlimit", refused)
    before = _children()

    async def start() -> str:
        async with trio.open_nursery() as nursery:
            try:
                await BotProcess.start(nursery, BotCommand(("/bin/cat",)))
            except BotStartError as e:
                return str(e)
        return "started"

    assert trio.run(start).endswith("cannot fence the bot's jail: Operation not permitted")
    assert _children() - before == set()  # bwrap and the jail's first process: killed and reaped


def _children() -> set[int]:
    me = str(os.getpid())
    found = set()
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                found.add(int(entry.name))
        except OSError:
            pass
    return found


@pytest.mark.skipif(os.geteuid() != 0 or jail.problem() != "", reason="needs the jail as root")
def test_a_held_jail_whose_gate_closes_without_its_filter_never_runs_the_bot(monkeypatch):
    """The gate fails closed: were the referee to die mid-admission, the kernel would close its end of the jail's
    syscall-filter pipe with no filter written. Here the fencing fails and nobody kills bwrap: bwrap must find
    no filter and refuse to go on, so the bot's command (exit 42) never runs."""
    import trio

    from referee.bots import sandbox
    from referee.bots.transport import BotCommand, BotProcess, BotStartError

    started = []
    real_spawn = sandbox.spawn.spawn

    async def spawn(*args, **kwargs):
        started.append(await real_spawn(*args, **kwargs))
        return started[-1]

    def refused(pid, which, limits):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(sandbox.spawn, "spawn", spawn)
    monkeypatch.setattr(sandbox.resource, "prlimit", refused)
    monkeypatch.setattr(os, "killpg", lambda group, sig: None)  # as if no referee were left to kill the jail

    async def start() -> str:
        async with trio.open_nursery() as nursery:
            try:
                await BotProcess.start(nursery, BotCommand(("/bin/sh", "-c", "exit 42")))
            except BotStartError as e:
                return str(e)
        return "started"

    assert "cannot fence the bot's jail" in trio.run(start)
    assert started[0].returncode not in (None, 0, 42)  # bwrap refused: no syscall filter, no bot


@pytest.mark.skipif(os.geteuid() != 0 or jail.problem() != "", reason="needs the jail as root")
def test_a_start_cancelled_while_its_jail_is_held_leaves_no_process_and_no_descriptor(monkeypatch):
    """Ctrl-C (or a cancelled game) during the admission: bwrap and the held jail are killed and reaped, and the
    referee keeps no descriptor of them."""
    import trio

    from referee.bots import sandbox
    from referee.bots.transport import BotCommand, BotProcess

    async def never(info):
        await trio.sleep_forever()

    monkeypatch.setattr(sandbox, "_first_process", never)
    before, fds = _children(), len(os.listdir("/proc/self/fd"))

    async def start() -> None:
        with trio.move_on_after(0.5):
            async with trio.open_nursery() as nursery:
                await BotProcess.start(nursery, BotCommand(("/bin/cat",)))

    for _ in range(3):
        trio.run(start)
    assert _children() - before == set()
    assert len(os.listdir("/proc/self/fd")) == fds


JVM_SIZES = """#!/bin/sh
for i in 1 2 3; do
  java -XX:+PrintFlagsFinal -version 2>/dev/null | while read -r line; do
    case "$line" in *" MaxHeapSize "*) echo "$line" 1>&2;; esac
  done
done
"""


def test_a_jvm_in_the_jail_sizes_its_heap_from_the_bots_memory_limit(tmp_path):
    """sysinfo is not supported in the jail, and the C library's sysconf(_SC_PHYS_PAGES), from which the JVM sizes
    its heap, then returns what its stack held: five starts in one jail took 146 MB to 7.7 GB. Told the bot's
    limit as the machine's memory (JAVA_TOOL_OPTIONS=-XX:MaxRAM), every start takes a quarter of it."""
    import shutil

    from helpers import arena

    if jail.problem() or shutil.which("java", path=jail.JAIL_PATH) is None:
        pytest.skip("needs the jail and a JVM (apt-get install default-jdk-headless)")
    script = tmp_path / "bot" / "sizes.sh"
    script.parent.mkdir()
    script.write_text(JVM_SIZES)
    arena("check", f"sh {script}", "--games", "1", "--limit", "memory=1024", "--out", str(tmp_path / "out"))
    said = (tmp_path / "out" / "logs" / "bot.stderr.log").read_text()
    sizes = [int(line.split("=")[1].split()[0]) for line in said.splitlines() if "MaxHeapSize" in line]
    assert sizes == [1024 * (1 << 20) // 4] * 3, said
