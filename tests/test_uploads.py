"""An entrant's archive is checked before anything is written: paths out of its folder, links, device files, bombs
and duplicates are refused with one line, and what is unpacked is readable by the jailed bot and by nobody
writable."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from league.uploads import UploadError, read_manifest, unpack


def a_zip(path, entries, links=()):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
        for name, target in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, target)
    return path


def a_tar(path, kind, name="x", linkname=""):
    with tarfile.open(path, "w:gz") as t:
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, linkname
        t.addfile(info)
    return path


BOT = [("bot.toml", 'build = "make"\nrun = "./build/bot"\n'), ("src/main.c", "int main(void) { return 0; }\n")]


def test_a_plain_archive_is_unpacked_readable_and_its_manifest_read(tmp_path):
    with zipfile.ZipFile(tmp_path / "bot.zip", "w") as z:
        for name, data in BOT:
            z.writestr(name, data)
        run = zipfile.ZipInfo("run.sh")
        run.external_attr = (stat.S_IFREG | 0o755) << 16
        z.writestr(run, "#!/bin/sh\n")
    assert unpack(tmp_path / "bot.zip", tmp_path / "out") == []
    assert (tmp_path / "out" / "src" / "main.c").read_text().startswith("int main")
    assert stat.S_IMODE((tmp_path / "out" / "src" / "main.c").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "out" / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "out" / "src").stat().st_mode) == 0o755
    top, manifest = read_manifest(tmp_path / "out")
    assert top == tmp_path / "out" and (manifest.build, manifest.run) == ("make", "./build/bot")


def test_an_archive_of_one_folder_and_a_starter_kits_manifest_are_read_too(tmp_path):
    a_zip(tmp_path / "kit.zip", [("mybot/starter.toml", 'run = "python3 bot.py"\n'), ("mybot/bot.py", "")])
    unpack(tmp_path / "kit.zip", tmp_path / "out")
    top, manifest = read_manifest(tmp_path / "out")
    assert top == tmp_path / "out" / "mybot" and manifest.run == "python3 bot.py" and manifest.build == ""


@pytest.mark.parametrize("name", ["../evil", "/etc/evil", "src/../../evil", "a\\..\\evil", "tab\there"])
def test_paths_that_leave_the_folder_are_refused_and_nothing_is_written(tmp_path, name):
    archive = a_zip(tmp_path / "bad.zip", [*BOT, (name, "x")])
    with pytest.raises(UploadError, match="leaves the archive's folder"):
        unpack(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists() and not (tmp_path.parent / "evil").exists()


def test_links_are_refused_in_zips_and_tars(tmp_path):
    with pytest.raises(UploadError, match="is a link"):
        unpack(a_zip(tmp_path / "l.zip", BOT, links=[("secrets", "/etc/shadow")]), tmp_path / "a")
    with pytest.raises(UploadError, match="is a link"):
        unpack(a_tar(tmp_path / "s.tgz", tarfile.SYMTYPE, "secrets", "/etc"), tmp_path / "b")
    with pytest.raises(UploadError, match="is a link"):
        unpack(a_tar(tmp_path / "h.tgz", tarfile.LNKTYPE, "hard", "/etc/passwd"), tmp_path / "c")
    assert not any((tmp_path / x).exists() for x in "abc")


def test_a_builds_links_are_skipped_not_followed(tmp_path):
    notes = unpack(a_tar(tmp_path / "s.tgz", tarfile.SYMTYPE, "secrets", "/etc"), tmp_path / "out", links="skip")
    assert notes == ["skipped the link secrets"] and not (tmp_path / "out" / "secrets").exists()


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_device_files_and_fifos_are_refused(tmp_path, kind):
    with pytest.raises(UploadError, match="device file, fifo or socket"):
        unpack(a_tar(tmp_path / "d.tgz", kind, "dev"), tmp_path / "out", links="skip")


def test_a_zip_bomb_stops_at_the_limit_counted_as_written(tmp_path):
    archive = a_zip(tmp_path / "bomb.zip", [("zeros", b"\0" * (8 << 20))])
    assert archive.stat().st_size < 64 << 10
    with pytest.raises(UploadError, match="more than 1 MiB once unpacked"):
        unpack(archive, tmp_path / "out", max_bytes=1 << 20)
    assert not (tmp_path / "out").exists()


@pytest.mark.filterwarnings("ignore:Duplicate name")  # (zipfile's, as the test makes one)
def test_a_file_twice_or_under_a_file_is_refused(tmp_path):
    with pytest.raises(UploadError, match="twice"):
        unpack(a_zip(tmp_path / "twice.zip", [("a", "1"), ("a", "2")]), tmp_path / "a")
    with pytest.raises(UploadError, match="cannot unpack"):
        unpack(a_zip(tmp_path / "under.zip", [("a", "1"), ("a/b", "2")]), tmp_path / "b")


def test_what_is_not_an_archive_gets_one_line(tmp_path):
    (tmp_path / "junk").write_bytes(b"hello, world")
    with pytest.raises(UploadError, match="not a zip or tar archive"):
        unpack(tmp_path / "junk", tmp_path / "out")
    gz = io.BytesIO()
    with tarfile.open(fileobj=gz, mode="w:gz") as t:
        info = tarfile.TarInfo("big")
        info.size = 1 << 20
        t.addfile(info, io.BytesIO(os.urandom(1 << 20)))  # (random: the cut falls inside it)
    (tmp_path / "cut.tgz").write_bytes(gz.getvalue()[:2000])
    with pytest.raises(UploadError):
        unpack(tmp_path / "cut.tgz", tmp_path / "out2")


@pytest.mark.parametrize("manifest, says", [(None, "no bot.toml"), ('run = ""', "no run command"),
                                            ("run = [", "not valid TOML"), ('run = "x"\nbuild = 3', "build should")])
def test_a_missing_or_bad_manifest_says_what_to_write(tmp_path, manifest, says):
    (tmp_path / "bot.py").write_text("")
    if manifest is not None:
        (tmp_path / "bot.toml").write_text(manifest)
    with pytest.raises(UploadError, match=says):
        read_manifest(tmp_path)


def test_the_rate_limits_bucket_lets_a_burst_through_then_one_per_interval(monkeypatch):
    from viewer import guard

    now = [1000.0]
    monkeypatch.setattr(guard.time, "monotonic", lambda: now[0])
    bucket = guard.Bucket(burst=5, every=120.0)
    assert [bucket.take("alice") for _ in range(5)] == [None] * 5
    assert bucket.take("alice") == pytest.approx(120.0)  # the sixth waits for the next token
    assert bucket.take("bob") is None  # each key its own bucket
    now[0] += 60
    assert bucket.take("alice") == pytest.approx(60.0)
    now[0] += 60
    assert bucket.take("alice") is None


# ------------------------------------------------------------------ what the red team found (2026-11-26)

@pytest.mark.parametrize("run", ["python3 spy.py /tmp/league/bots", "./bot --data=/var/lib", "python3 ../other/bot.py",
                                 "./bot ~/x", "java -cp lib:/opt/jars -jar bot.jar", "python3 spy.py /proc"])
def test_a_run_command_may_name_only_the_bots_own_files(tmp_path, run):
    """The jail shows a bot every folder its command names: an upload naming /tmp/league/bots would read every
    other entrant's bot (and a folder such as /proc hung the fingerprint)."""
    (tmp_path / "bot.toml").write_text(f"run = {run!r}\n".replace("'", '"'))
    with pytest.raises(UploadError, match="outside the bot's folder"):
        read_manifest(tmp_path)


def test_a_run_command_may_name_the_systems_files_which_every_jail_shows(tmp_path):
    (tmp_path / "bot.toml").write_text('run = "/usr/bin/java -cp build:/usr/share/java/x.jar bot.Main"\n')
    assert read_manifest(tmp_path)[1].run.startswith("/usr/bin/java")


def test_a_bot_shown_another_entrants_folder_is_refused(tmp_path):
    from referee.bots.apart import exposures
    from referee.bots.jail import JailSpec

    bots = tmp_path / "bots"
    for name in ("alice", "bob"):
        (bots / name).mkdir(parents=True)
        (bots / name / "bot.py").write_text("")
    specs = {"alice": JailSpec(("python3", "bot.py", str(bots)), cwd=str(bots / "alice")),
             "bob": JailSpec(("python3", "bot.py"), cwd=str(bots / "bob"))}
    problems = exposures(specs)
    assert len(problems) == 1 and problems[0].startswith("bot alice would be shown bob's program")


def test_the_fingerprint_never_reads_the_kernels_files():
    from referee.bots.fingerprint import _files

    assert list(_files(Path("/proc"))) == [] and list(_files(Path("/sys/kernel"))) == []


def test_a_builds_tar_is_read_as_a_tar_even_when_it_ends_like_a_zip(tmp_path):
    """A build could make its folder's tar end with a zip (an encrypted one crashed the server)."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("x", "y")
    built = tmp_path / "built.tar"
    with tarfile.open(built, "w") as t:
        info = tarfile.TarInfo("bot.py")
        info.size = 3
        t.addfile(info, io.BytesIO(b"bot"))
        info = tarfile.TarInfo("last.zip")
        info.size = len(inner.getvalue())
        t.addfile(info, io.BytesIO(inner.getvalue()))
    with open(built, "ab") as f:
        f.write(inner.getvalue())  # past the tar's end: what zipfile looks for
    assert zipfile.is_zipfile(built)
    unpack(built, tmp_path / "out", links="skip", tar_only=True)
    assert (tmp_path / "out" / "bot.py").read_text() == "bot"


def test_encrypted_damaged_deep_and_endless_archives_get_one_line(tmp_path):
    encrypted = a_zip(tmp_path / "enc.zip", BOT)
    data = bytearray(encrypted.read_bytes())
    for at in range(len(data) - 4):  # set the "encrypted" flag in every header
        if data[at:at + 4] in (b"PK\x03\x04", b"PK\x01\x02"):
            data[at + (6 if data[at + 2] == 3 else 8)] |= 1
    encrypted.write_bytes(bytes(data))
    with pytest.raises(UploadError, match="encrypted"):
        unpack(encrypted, tmp_path / "a")
    deep = a_zip(tmp_path / "deep.zip", [("/".join(["d"] * 1900) + "/f", "x")])
    with pytest.raises(UploadError, match="leaves the archive's folder"):
        unpack(deep, tmp_path / "b")
    damaged = bytearray(a_zip(tmp_path / "bad.zip", [("big", b"abc" * 50_000)]).read_bytes())
    damaged[60:400] = b"\xff" * 340  # inside the deflated data
    (tmp_path / "bad.zip").write_bytes(bytes(damaged))
    with pytest.raises(UploadError):
        unpack(tmp_path / "bad.zip", tmp_path / "c")
    many = tmp_path / "many.tar"
    with tarfile.open(many, "w") as t:
        for i in range(6_000):
            t.addfile(tarfile.TarInfo(f"f{i}"))
    with pytest.raises(UploadError, match="more than 5000 files"):
        unpack(many, tmp_path / "d")
    assert not any((tmp_path / x).exists() for x in "abcd")


def test_a_built_script_whose_first_line_names_another_folder_is_refused(tmp_path):
    """The jail shows a script's interpreter's folder: a bot built as './bot.py' with '#!/srv/league/bots/bob/...'
    on its first line would be shown another entrant's folder."""
    from league.builds import shown_outside
    from referee.bots.transport import BotCommand
    from referee.match import Entrant

    elsewhere = tmp_path / "bob"
    elsewhere.mkdir()
    (elsewhere / "interpreter").write_text("")
    mine = tmp_path / "alice"
    mine.mkdir()
    (mine / "bot.py").write_text(f"#!{elsewhere / 'interpreter'}\n")
    (mine / "fair.py").write_text("#!/usr/bin/env python3\n")
    spy = Entrant("alice", BotCommand.from_text("./bot.py", str(mine)))
    assert shown_outside(spy, mine) == [elsewhere]
    fair = Entrant("alice", BotCommand.from_text("python3 fair.py", str(mine)))
    assert shown_outside(fair, mine) == []
