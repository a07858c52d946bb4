"""Entrants upload their bots to ``league serve`` with their tokens: the upload is built and checked in the jail
and enters as a version; a broken one leaves the old version playing; nobody reads or uploads as another entrant,
and the fences (CSRF, rate limits, body size, archive checks) hold. Over HTTP, against the command as started by an
organiser."""

from __future__ import annotations

import http.cookiejar
import io
import re
import shutil
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
from helpers import ROOT, arena
from helpers import league_serving as serving

from league.db import LeagueDB, database_url
from referee.bots import jail

pytestmark = pytest.mark.skipif(bool(jail.problem()), reason="uploads are built in the jail, which this machine lacks")
PYTHON_KIT = ROOT / "sample_bots" / "starters" / "python"


def kit_zip(folder: Path = PYTHON_KIT, manifest: str | None = None, extra=()) -> bytes:
    """The Python starter kit as an entrant would zip it (``manifest`` replaces its starter.toml)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                z.write(path, path.relative_to(folder).as_posix())
        if manifest is not None:
            z.writestr("bot.toml", manifest)
        for name, data in extra:
            z.writestr(name, data)
    return out.getvalue()


def multipart(fields: dict[str, str], archive: bytes | None) -> tuple[bytes, str]:
    boundary = "----pinochle-arena-test-boundary"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    if archive is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="bot.zip"\r\n'
                     "Content-Type: application/zip\r\n\r\n".encode() + archive + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def call(url: str, token: str | None = None, data: bytes | None = None, content_type: str | None = None,
         opener=None, html: bool = False) -> tuple[int, str]:
    request = urllib.request.Request(url, data=data)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if content_type:
        request.add_header("Content-Type", content_type)
    if html:
        request.add_header("Accept", "text/html")
    try:
        with (opener or urllib.request.build_opener()).open(request, timeout=120) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def upload(address: str, name: str, token: str, archive: bytes) -> tuple[int, str]:
    body, kind = multipart({}, archive)
    return call(f"{address}/entrant/{name}/upload", token, body, kind)


def built(address: str, name: str, token: str, reply: str) -> str:
    """The build's log once it is done (the reply to its upload names it)."""
    where = re.search(r"/entrant/\S+/builds/\d+", reply).group(0)
    for _ in range(600):
        status, text = call(address + where, token)
        assert status == 200, text
        if not text.startswith(("receiving", "queued", "building")):
            return text
        time.sleep(0.5)
    raise AssertionError(f"the build never finished: {text}")


def token_of(result) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A jailed league (boards) with one sample bot and two entrants who upload, alice's first upload built; their
    tokens and the organiser's. (Each test is whole on its own: xdist may spread them over workers.)"""
    folder = tmp_path_factory.mktemp("uploads") / "league"
    assert arena("league", "init", folder, "--boards").returncode == 0
    assert arena("league", "add", "greedy", "greedy", "--league", folder).returncode == 0
    tokens = {name: token_of(arena("league", "entrant", "add", name, "--league", folder))
              for name in ("alice", "bob", "carol")}
    tokens["organiser"] = token_of(arena("league", "token", "--organiser", "--league", folder))
    with serving(folder) as address:
        status, reply = upload(address, "alice", tokens["alice"], kit_zip())
        assert status == 202, reply
        log = built(address, "alice", tokens["alice"], reply)
        assert log.startswith("passed") and "PASSED: version 1 of alice plays from now on" in log, log
        yield folder, address, tokens


def test_an_upload_is_built_checked_and_plays_and_a_broken_one_keeps_the_old_version(league):
    folder, address, tokens = league
    db = LeagueDB.open(database_url(folder))
    alice = next(e for e in db.entrants() if e.name == "alice")
    assert alice.version.number == 1 and alice.version.bot["isolation"] == "jail"
    assert Path(alice.version.bot["cwd"]).parent == folder.resolve() / "bots" / "alice"
    assert token_of(arena("league", "run", folder, "--games", "4", "--concurrency", "1")) and db.game_count() == 4

    status, reply = upload(address, "alice", tokens["alice"], kit_zip(manifest='run = "python3 no-such-bot.py"\n'))
    assert status == 202, reply
    log = built(address, "alice", tokens["alice"], reply)
    # (the missing script is named before any game: it was found by check's first start, "failed check")
    assert log.startswith("failed: the manifest's run command: bot file 'no-such-bot.py' not found (given to "
                          "python3 to run)"), log
    assert next(e for e in db.entrants() if e.name == "alice").version.number == 1  # the old one still plays
    status, reply = upload(address, "alice", tokens["alice"],  # a bot that starts, then breaks the protocol
                           kit_zip(manifest='run = "python3 mute.py"\n', extra=[("mute.py", "print('hello')\n")]))
    log = built(address, "alice", tokens["alice"], reply)
    assert log.startswith("failed: the built bot failed check") and "FAILED" in log, log
    assert next(e for e in db.entrants() if e.name == "alice").version.number == 1

    status, reply = upload(address, "alice", tokens["alice"],
                           kit_zip(manifest='build = "exit 3"\nrun = "python3 bot.py"\n'))
    assert built(address, "alice", tokens["alice"], reply).startswith("failed: the build failed (exit status 3)")
    status, page = call(f"{address}/entrant/alice", tokens["alice"], html=True)
    assert status == 200 and 'id="upload"' in page and "the build failed (exit status 3)" in page
    assert re.search(r"alice\.u[0-9]+[ab]\.stderr\.log", page)  # its own bots' logs, one a game
    db.close()


def test_a_build_has_no_network_and_writes_only_in_the_jail(league):
    folder, address, tokens = league
    # (the words it prints are put together by the shell, so the log's copy of the command cannot match them)
    probe = ('build = "x=NO; (python3 -c \'import socket; socket.create_connection((\\"127.0.0.1\\", 9), 2)\' '
             '&& echo ${x}T-SHUT) || echo ${x}-NETWORK; touch /escaped-from-the-build || echo ${x}-ROOT-WRITE; '
             'cat ' + str(folder.resolve() / "league.db") + ' || echo ${x}-LEAGUE; echo \\"<script>alert(1)</script>\\""'
             '\nrun = "python3 bot.py"\n')
    status, reply = upload(address, "bob", tokens["bob"], kit_zip(manifest=probe))
    log = built(address, "bob", tokens["bob"], reply)
    assert "NO-NETWORK" in log and "NOT-SHUT" not in log, log
    assert "NO-ROOT-WRITE" in log and not Path("/escaped-from-the-build").exists()
    assert "NO-LEAGUE" in log  # the league's database is not in the jail (only the folders above the sources)
    status, page = call(address + re.search(r"/entrant/\S+/builds/\d+", reply).group(0), tokens["bob"], html=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page  # escaped


def test_nobody_reads_or_uploads_as_another_entrant(league):
    folder, address, tokens = league
    assert call(f"{address}/entrant/alice/builds/1", tokens["bob"])[0] == 403
    assert call(f"{address}/entrant/alice/logs/alice.w0.stderr.log", tokens["bob"])[0] == 403
    assert call(f"{address}/entrant/alice/logs/alice.w0.stderr.log")[0] == 401
    assert upload(address, "alice", tokens["bob"], kit_zip())[0] == 403
    status, page = call(f"{address}/entrant/alice", tokens["bob"], html=True)
    assert status == 200 and 'id="upload"' not in page and "stderr.log" not in page
    assert call(f"{address}/entrant/alice/logs/..%2Fleague.db", tokens["alice"])[0] == 404
    status, text = call(f"{address}/entrant/alice/builds/1", tokens["organiser"])
    assert status == 200 and text.startswith("passed")  # the organiser reads every entrant's


def test_refused_archives_say_why_and_leave_nothing(league):
    folder, address, tokens = league
    before = sorted(p.name for p in (folder / "builds").iterdir())
    status, text = upload(address, "carol", tokens["carol"], kit_zip(extra=[("../escape.py", "x")]))
    assert status == 400 and "upload refused" in text and "leaves the archive's folder" in text
    link = io.BytesIO()
    with zipfile.ZipFile(link, "w") as z:
        z.writestr("bot.toml", 'run = "python3 bot.py"\n')
        info = zipfile.ZipInfo("bot.py")
        info.external_attr = 0o120777 << 16
        z.writestr(info, "/etc/shadow")
    status, text = upload(address, "carol", tokens["carol"], link.getvalue())
    assert status == 400 and "is a link" in text
    status, text = upload(address, "carol", tokens["carol"], b"not an archive")
    assert status == 400 and "not a zip or tar archive" in text
    assert sorted(p.name for p in (folder / "builds").iterdir()) == before
    status, text = call(f"{address}/entrant/carol/upload", tokens["carol"], b"x" * 100,
                        "multipart/form-data; boundary=x")
    assert status == 400  # no archive in it
    request = urllib.request.Request(f"{address}/entrant/carol/upload", data=b"x", method="POST")
    request.add_header("Content-Length", str(64 << 20))
    request.add_header("Authorization", f"Bearer {tokens['carol']}")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    assert refused.value.code == 413


def test_forms_need_the_sessions_csrf_value_and_the_organiser_pauses(league):
    folder, address, tokens = league
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    status, page = call(f"{address}/login", opener=browser, html=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    body, kind = multipart({"token": tokens["organiser"]}, None)
    assert call(f"{address}/login", data=body, content_type=kind, opener=browser, html=True)[0] == 403  # no csrf
    body, kind = multipart({"token": tokens["organiser"], "csrf": csrf}, None)
    status, page = call(f"{address}/login", data=body, content_type=kind, opener=browser, html=True)
    assert status == 200 and 'id="entrants"' in page  # the organiser's page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    body, kind = multipart({"action": "pause", "csrf": "forged"}, None)
    assert call(f"{address}/entrant/greedy/status", data=body, content_type=kind, opener=browser)[0] == 403
    body, kind = multipart({"action": "pause"}, None)
    assert call(f"{address}/entrant/greedy/status", tokens["alice"], body, kind)[0] == 403  # not the organiser
    body, kind = multipart({"action": "pause", "csrf": csrf}, None)
    status, page = call(f"{address}/entrant/greedy/status", data=body, content_type=kind, opener=browser, html=True)
    assert status == 200 and "paused by the organiser" in page
    body, kind = multipart({"action": "restore", "csrf": csrf}, None)
    assert call(f"{address}/entrant/greedy/status", data=body, content_type=kind, opener=browser)[0] == 200
    db = LeagueDB.open(database_url(folder))
    assert next(e for e in db.entrants() if e.name == "greedy").status == "active"
    assert all(len(h) == 64 for h in db.engine.connect().exec_driver_sql("select hash from tokens").scalars())
    assert not any(t in (folder / "league.db").read_bytes() for t in (tokens["alice"].encode(),))
    db.close()


def test_an_entrant_the_organiser_paused_cannot_lift_the_pause_by_uploading(league):
    folder, address, tokens = league
    body, kind = multipart({"action": "pause"}, None)
    assert call(f"{address}/entrant/alice/status", tokens["organiser"], body, kind) == (200, "alice: paused\n")
    status, text = upload(address, "alice", tokens["alice"], kit_zip())
    assert status == 403 and "paused by the organiser" in text
    body, kind = multipart({"action": "restore"}, None)
    assert call(f"{address}/entrant/alice/status", tokens["organiser"], body, kind) == (200, "alice: active\n")


def test_wrong_tokens_are_rate_limited(league):
    folder, _, tokens = league
    with serving(folder) as address:  # a server of its own: the limit is per address, and every test is 127.0.0.1
        answers = [call(f"{address}/entrant/alice/builds/1", "not-a-token")[0] for _ in range(12)]
        assert answers[:10] == [401] * 10 and answers[-1] == 429
        body, kind = multipart({"token": tokens["alice"], "csrf": "x"}, None)
        assert call(f"{address}/login", data=body, content_type=kind)[0] == 429  # even the right one, for now


def test_tokens_come_from_the_command_line_with_one_line_errors(league, tmp_path):
    folder, _, _ = league
    taken = arena("league", "entrant", "add", "alice", "--league", folder)
    assert taken.returncode == 2 and "already an entrant 'alice'" in taken.stderr
    assert "Traceback" not in taken.stderr
    both = arena("league", "token", "alice", "--organiser", "--league", folder)
    assert both.returncode == 2 and "not both" in both.stderr
    nobody = arena("league", "token", "nobody", "--league", folder)
    assert nobody.returncode == 2 and "no entrant 'nobody'" in nobody.stderr
    listed = arena("league", "list", folder)
    assert "alice" in listed.stdout and "bob" in listed.stdout
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_a_builds_hard_links_come_out_as_the_files_they_are(tmp_path):
    """cargo hard-links its binary into two folders; as a tar link the second would be skipped when unpacked."""
    import trio

    from league.builds import Log, jailed_build
    from league.uploads import read_manifest, unpack

    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.toml").write_text('build = "echo hi > a; mkdir d; ln a d/b"\nrun = "python3 bot.py"\n')
    for path in (tmp_path, source, *source.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    top, manifest = read_manifest(source)
    trio.run(jailed_build, top, manifest, tmp_path / "built.tar", Log())
    assert unpack(tmp_path / "built.tar", tmp_path / "out", links="skip", tar_only=True) == []
    assert (tmp_path / "out" / "a").read_text() == (tmp_path / "out" / "d" / "b").read_text() == "hi\n"
