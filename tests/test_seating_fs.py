"""A file system of its own for every jailed bot process: images, their mounts, the system's selection, and the
fixed figures laid over the jail's /proc (docs/competition.md, "A file system of its own")."""

from __future__ import annotations

import ctypes
import mmap
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.bots import counters, images, jail, runtimes, seating_fs

needs_images = pytest.mark.skipif(bool(images.problem()), reason=f"no images here: {images.problem()}")
PAGE = mmap.PAGESIZE
libc = ctypes.CDLL(None, use_errno=True)
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def resident_pages(path: Path) -> int:
    """How many pages of ``path`` its file system has cached (mincore on a mapping, from outside any jail)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, f.fileno(), 0)
    try:
        vector = ctypes.create_string_buffer((size + PAGE - 1) // PAGE)
        assert libc.mincore(address, size, vector) == 0
        return sum(byte & 1 for byte in vector.raw)
    finally:
        libc.munmap(address, size)


def a_folder(tmp_path: Path, pages: int = 64) -> Path:
    folder = tmp_path / "bot"
    (folder / "out").mkdir(parents=True)
    (folder / "data").write_bytes(os.urandom(pages * PAGE))
    (folder / "out" / "secret.key").write_text("never shown")
    return folder


@needs_images
def test_two_mounts_of_one_image_have_page_caches_of_their_own(tmp_path):
    """What one seating reads is cached in its own mount only: the same image mounted for another seating shows
    none of it, so that seating cannot tell what the first one read."""
    layout = seating_fs.Layout((("0", images.Source.folder(str(a_folder(tmp_path)))),))
    first, second = seating_fs.SeatingFs(tmp_path / "first"), seating_fs.SeatingFs(tmp_path / "second")
    try:
        first.mount(layout)
        second.mount(layout)
        assert (first.root / "0" / "data").read_bytes() == (tmp_path / "bot" / "data").read_bytes()
        assert resident_pages(first.root / "0" / "data") == 64
        assert resident_pages(second.root / "0" / "data") == 0
    finally:
        first.close()
        second.close()
    assert not first.root.exists() and not second.root.exists()
    assert seating_fs._mount_points_under(tmp_path) == []


@needs_images
def test_an_image_leaves_out_what_the_bot_must_not_see(tmp_path):
    folder = a_folder(tmp_path)
    layout = seating_fs.Layout((("0", images.Source.folder(str(folder), [str(folder / "out")])),))
    fs = seating_fs.SeatingFs(tmp_path / "seat")
    try:
        fs.mount(layout)
        assert sorted(p.name for p in (fs.root / "0").iterdir()) == ["data"]
        with pytest.raises(OSError):
            (fs.root / "0" / "new").write_text("x")  # read-only
    finally:
        fs.close()


@needs_images
def test_an_image_is_made_again_when_a_file_in_it_changes(tmp_path, monkeypatch):
    folder = a_folder(tmp_path, pages=1)
    source = images.Source.folder(str(folder))
    before = images.image_for(source)
    assert images.image_for(source) == before  # kept
    (folder / "data").write_bytes(b"changed")
    monkeypatch.setattr(images, "RECHECK_SECONDS", 0.0)
    after = images.image_for(source)
    assert after != before
    assert not os.path.exists(before)  # the older version of the same folder is removed
    fs = seating_fs.SeatingFs(tmp_path / "seat")
    try:
        fs.mount(seating_fs.Layout((("0", source),)))
        assert (fs.root / "0" / "data").read_bytes() == b"changed"
    finally:
        fs.close()


@needs_images
def test_a_package_installed_in_a_shared_installation_is_in_the_next_processs_image(tmp_path, monkeypatch):
    """An interpreter's installation is compared with its image by one referee process for all of them every
    RECHECK_SECONDS; a package installed since (pip writes it into site-packages, three folders down) is seen by
    the next process at once: a bot's `check` right after a `pip install` runs with the package."""
    packages = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    packages.mkdir(parents=True)
    (packages / "old.py").write_text("X = 1\n")
    source = images.Source.folder(str(tmp_path / "venv"), shared_check=True)
    first = images.image_for(source)

    def another_process() -> str:  # what a new referee process finds: the store and its notes, nothing in memory
        monkeypatch.setattr(images, "_checked", {})
        return images.image_for(source)

    with monkeypatch.context() as walking:
        walking.setattr(images.Source, "digest", lambda self: pytest.fail("compared again with nothing installed"))
        assert another_process() == first  # the note of the first comparison serves (within RECHECK_SECONDS)
    (packages / "new").mkdir()
    (packages / "new" / "__init__.py").write_text("Y = 2\n")
    installed = another_process()
    assert installed != first
    fs = seating_fs.SeatingFs(tmp_path / "seat")
    try:
        fs.mount(seating_fs.Layout((("0", source),)))
        assert (fs.root / "0" / "lib" / "python3.11" / "site-packages" / "new" / "__init__.py").read_text() == "Y = 2\n"
    finally:
        fs.close()
    shutil.rmtree(packages / "new")  # uninstalled: the next process's image is without it again
    assert another_process() != installed


@needs_images
def test_a_program_rebuilt_in_place_is_in_the_next_processs_image(tmp_path, monkeypatch):
    """A compiled bot's folder is a shared source too (its program's installation); rebuilt in place (the same
    file written again, its folder's time unchanged), the next process's image has the new program."""
    program = tmp_path / "mybot" / "bot"
    program.parent.mkdir()
    program.write_bytes(b"version 1")
    source = images.Source.folder(str(program.parent), shared_check=True)
    first = images.image_for(source)
    folder_time = program.parent.stat().st_mtime_ns
    with open(program, "r+b") as f:  # in place, as a compiler or cp writes over a file
        f.write(b"version 2, longer")
    assert program.parent.stat().st_mtime_ns == folder_time
    monkeypatch.setattr(images, "_checked", {})  # a new referee process: the store's notes, nothing in memory
    assert images.image_for(source) != first


@needs_images
def test_mounts_left_by_a_killed_referee_are_removed_at_the_next_start(tmp_path):
    """A referee killed with SIGKILL leaves its seatings mounted; the next one unmounts them."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    folder = seating_fs.SEATINGS / f"{dead.stdout.strip()}-test{os.getpid()}"
    fs = seating_fs.SeatingFs(folder)
    fs.mount(seating_fs.Layout((("0", images.Source.folder(str(a_folder(tmp_path)))),)))
    assert seating_fs._mount_points_under(folder)
    seating_fs.remove_stale()
    assert not folder.exists()
    assert seating_fs._mount_points_under(folder) == []


def test_the_system_image_holds_what_its_runtimes_load():
    """Every library the selected programs need (and the program loader) is in the selection, and whole runtimes
    are there; the host's /usr as a whole is not."""
    selection = runtimes.system_selection()
    chosen = set(selection.paths)
    python = os.path.realpath(shutil.which("python3", path=jail.JAIL_PATH) or "/usr/bin/python3")
    if not os.path.exists(python):
        pytest.skip("no system python3")
    assert runtimes.canonical(python) in chosen
    for library in runtimes.needed_libraries([python]):
        assert runtimes.canonical(library) in chosen
    assert "/usr" not in chosen and "/usr/bin" not in chosen and "/usr/lib" not in chosen
    assert "/etc" in chosen and "/usr/bin/setpriv" in chosen


def test_a_bots_own_compiled_program_gets_its_libraries(tmp_path):
    """A C++ bot in its own folder needs libstdc++: the system image holds it (and every library the loader
    knows, so that bots of every kind share one image)."""
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("no g++")
    (tmp_path / "bot.cpp").write_text("#include <iostream>\nint main() { std::cout << 1; }\n")
    subprocess.run([compiler, "-o", str(tmp_path / "bot"), str(tmp_path / "bot.cpp")], check=True)
    needed = runtimes.needed_libraries([str(tmp_path / "bot")])
    assert any("libstdc++" in p for p in needed)
    chosen = set(runtimes.system_selection().paths)  # every library the loader knows is in every system image
    assert {runtimes.canonical(p) for p in needed} <= chosen


def test_fixed_counters_keep_the_kernels_layout_with_every_figure_zero():
    stat = counters.fixed_text("/proc/stat").splitlines()
    processors = [line for line in stat if line.startswith("cpu") and line[3:4].isdigit()]
    assert len(processors) == os.cpu_count()
    assert [line.split()[0] for line in processors] == [f"cpu{i}" for i in range(len(processors))]
    assert all(set(line.split()[1:]) == {"0"} for line in stat if not line.startswith("btime"))
    assert counters.fixed_text("/proc/stat") == counters.fixed_text("/proc/stat")  # nothing moves
    meminfo = {k: v.split()[0] for k, v in (line.split(":") for line in counters.fixed_text("/proc/meminfo").splitlines())}
    assert meminfo["MemTotal"] == meminfo["MemAvailable"] and meminfo["Cached"] == "0"
    for block in counters.fixed_text("/proc/cpuinfo").split("\n\n"):
        fields = dict(line.split(":", 1) for line in block.splitlines() if ":" in line)
        if "cpu MHz" in fields and "bogomips" in fields:  # the clock of the moment replaced by a fixed figure
            assert float(fields["cpu MHz"]) == pytest.approx(float(fields["bogomips"]) / 2, abs=0.001)


@needs_images
def test_the_fixed_counters_folder_is_made_once_when_the_first_jailed_starts_come_at_once(tmp_path, monkeypatch):
    """The check before a run's first game starts its bots side by side, each start in a thread: the first of
    them make the fixed counters' folder at once (after a reboot emptied the store), and none may fail for it."""
    import threading

    def first_starts(base) -> tuple[list, list]:
        monkeypatch.setattr(counters, "_base", lambda as_root: base)
        counters._made_folder.cache_clear()
        ready, found, failed = threading.Barrier(8), [], []

        def first_start() -> None:
            ready.wait()
            try:
                found.append(counters._folder(False))
            except OSError as e:
                failed.append(e)

        threads = [threading.Thread(target=first_start) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return found, failed

    try:
        for round_ in range(5):  # (a race: several rounds, for a test that fails without the lock)
            base = tmp_path / f"proc{round_}"
            found, failed = first_starts(base)
            assert failed == [] and len(set(found)) == 1 and len(found) == 8
            assert [p.name for p in base.iterdir()] == [found[0].name]  # nothing half-made left
            assert (found[0] / "empty").is_dir()
    finally:
        counters._made_folder.cache_clear()  # (the next start finds the real folder again)


def test_a_data_file_named_alone_is_shown_from_an_image_of_its_own(tmp_path):
    """``read_only`` may name one file: the jail shows it, read through an image holding just that file."""
    data = tmp_path / "book.txt"
    data.write_text("opening book\n")
    spec = jail.JailSpec(("/bin/cat",), read_only=(str(data),), own_files=True, seat="SEAT")
    shown = jail.filesystem(spec)
    layout = dict(shown.layout.images)
    file_images = [source for source in layout.values() if source.paths == (str(data),)]
    assert file_images and file_images[0].root == str(tmp_path)
    fs = seating_fs.SeatingFs(tmp_path / "seat")
    try:
        fs.mount(shown.layout)
        name = next(n for n, source in shown.layout.images if source.paths == (str(data),))
        assert (fs.root / name / "book.txt").read_text() == "opening book\n"
        assert sorted(p.name for p in (fs.root / name).iterdir()) == ["book.txt"]
    finally:
        fs.close()
    args = shown.arguments(str(fs.root))
    assert f"{fs.root}/{name}/book.txt" in args


@needs_images
def test_a_run_says_when_a_bots_first_start_makes_images(tmp_path):
    """A bot whose images are not made yet makes them at its first start (seconds): the run says so first."""
    from referee.bots.sandbox import Sandbox, images_to_make

    tmp_path.chmod(0o755)  # a bot's folder is one its own uid may read
    (tmp_path / "bot.py").write_text("print('ready')\n")
    argv = ("/usr/bin/python3", str(tmp_path / "bot.py"))
    assert images_to_make(Sandbox(), argv, None)
    spec = jail.JailSpec(argv, own_files=True, uid=0)
    for _, source in jail.filesystem(spec).layout.images:
        images.image_for(source)
    assert not images_to_make(Sandbox(), argv, None)
    assert not images_to_make(Sandbox(own_files=False), argv, None)


def test_the_organisers_runtimes_reach_every_bots_sandbox(tmp_path):
    """``runtimes = [...]`` in a configuration (relative to it, checked to exist) and a bot's own add up."""
    from tournaments.config import ConfigError, load_config

    (tmp_path / "ruby").mkdir()
    (tmp_path / "extra").mkdir()
    config = tmp_path / "t.toml"
    config.write_text('[tournament]\nruntimes = ["ruby"]\n\n[[bot]]\nname = "a"\nsample = "random"\n'
                      'runtimes = ["extra"]\n\n[[bot]]\nname = "b"\nsample = "greedy"\n')
    entrants = {e.name: e for e in load_config(config).entrants}
    assert entrants["b"].sandbox.runtimes == (str(tmp_path / "ruby"),)
    assert entrants["a"].sandbox.runtimes == (str(tmp_path / "ruby"), str(tmp_path / "extra"))
    config.write_text('[tournament]\nruntimes = ["nowhere"]\n\n[[bot]]\nname = "a"\nsample = "random"\n'
                      '[[bot]]\nname = "b"\nsample = "greedy"\n')
    with pytest.raises(ConfigError, match="runtimes: .*nowhere does not exist"):
        load_config(config)
