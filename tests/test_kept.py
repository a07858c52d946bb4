"""Kept jails without running one: the plan made from a fresh jail's bwrap command, and the pool of idle jails.
(tests/attacks/test_kept.py runs them.)"""

from __future__ import annotations

import pytest

from referee.bots import kept


def test_a_fresh_jails_command_becomes_a_kept_jail_and_its_keepers_arguments():
    """Each image bind becomes an empty folder to mount on, named to the keeper in order with the folder each
    game's mount is cloned from; the private spaces and /proc's fixed files are redone by the keeper each game;
    the rest of bwrap's command (namespaces, uid, seccomp) is kept as it is."""
    seat = kept.SEAT
    fresh = ["bwrap", "--unshare-pid", "--seccomp", "9", "--proc", "/proc", "--size", "1024", "--perms", "1777",
             "--tmpfs", "/tmp", "--ro-bind", f"{seat}/system/usr", "/usr", "--symlink", "usr/bin", "/bin",
             "--ro-bind", "/store/proc/stat", "/proc/stat", "--ro-bind", f"{seat}/1", "/tmp/bots/mine",
             "--remount-ro", "/", "--chdir", "/home/bot", "--", "/usr/bin/setpriv", "--reuid=7", "--regid=7",
             "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--", "/bots/bot", "x"]
    plan = kept.plan(fresh)
    assert plan.bwrap == ("--unshare-pid", "--seccomp", "9", "--proc", "/proc", "--size", "1024", "--perms", "1777",
                          "--tmpfs", "/tmp", "--dir", "/usr", "--symlink", "usr/bin", "/bin", "--ro-bind",
                          "/store/proc/stat", "/proc/stat", "--dir", "/tmp/bots/mine", "--remount-ro", "/",
                          "--chdir", "/home/bot")
    assert plan.keeper == ("--tmpfs", "/tmp", "1777", "1024", "--image", "/usr", "--carry", "/proc/stat",
                           "--image", "/tmp/bots/mine", "--chdir", "/home/bot")  # (a uid each game)
    assert plan.binds == ("system/usr", "1")
    assert plan.command == ("/bots/bot", "x")  # the keeper drops setpriv's privileges itself


def test_a_command_it_does_not_know_is_not_kept():
    with pytest.raises(kept.KeptJailError, match="--bind-try"):
        kept.plan(["bwrap", "--bind-try", "/a", "/b", "--", "bot"])
    with pytest.raises(kept.KeptJailError, match="images"):
        kept.plan(["bwrap", "--ro-bind", "/usr", "/usr", "--", "bot"])  # not own files: nothing fresh to mount
    image = ["bwrap", "--ro-bind", f"{kept.SEAT}/1", "/bots", "--"]
    for command in (["/bots/bot"], ["/usr/bin/setpriv", "--reuid=7", "--", "/bots/bot"],  # not as root; not all
                    ["/usr/bin/setpriv", "--reuid=0", "--regid=0", "--clear-groups", "--no-new-privs",
                     "--inh-caps=-all", "--bounding-set=-all", "--", "/bots/bot"]):
        with pytest.raises(kept.KeptJailError, match="uid of its own"):
            kept.plan(image + command)


class FakeJail:
    def __init__(self, reusable: bool = True):
        self.is_reusable, self.closed, self.game = reusable, False, None

    def reusable(self) -> bool:
        return self.is_reusable

    def close(self) -> None:
        self.closed = True


def test_the_pool_gives_a_clean_jail_back_closes_the_rest_and_keeps_few(monkeypatch):
    monkeypatch.setattr(kept, "_IDLE", {})
    monkeypatch.setattr(kept, "IDLE_KEPT", 2)
    broken = FakeJail(reusable=False)
    kept.give_back("a", broken)  # its game did not end as it should: never used again
    assert broken.closed and kept.take("a") is None
    first, second, third = FakeJail(), FakeJail(), FakeJail()
    kept.give_back("a", first)
    kept.give_back("b", second)
    kept.give_back("b", third)  # one too many: the one idle longest goes
    assert first.closed and not second.closed and not third.closed
    assert kept.take("a") is None
    assert kept.take("b") is third
    assert kept.close_idle() == 1 and second.closed


def test_a_game_reaped_before_its_pid_is_read_has_a_pid_no_group_has():
    """A game that ends at once is reaped by the keeper right after it says "started": its pidfd then names no
    pid (-1), and the pid the transport kills by must find no group (never killpg(-1), which is an error)."""
    import os
    import signal

    pid = os.fork()
    if pid == 0:
        os._exit(0)
    pidfd = os.pidfd_open(pid)
    try:
        assert kept.host_pid(pidfd) == pid
        os.waitpid(pid, 0)
        assert kept.host_pid(pidfd) == kept.GONE
    finally:
        os.close(pidfd)
    with pytest.raises(ProcessLookupError):
        os.killpg(kept.GONE, signal.SIGTERM)


def test_a_forked_process_forgets_its_parents_idle_jails(monkeypatch):
    """A child forked without an exec never hands games to its parent's keepers (it closes its copies of their
    channels); the parent keeps them."""
    import os
    import socket

    monkeypatch.setattr(kept, "_IDLE", {})
    ours, keepers = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    jail = FakeJail()
    jail.channel, jail.stderr = ours, os.dup(2)
    kept.give_back("a", jail)
    pid = os.fork()
    if pid == 0:
        os._exit(0 if not kept._IDLE and ours.fileno() == -1 else 1)
    assert os.waitpid(pid, 0)[1] == 0
    assert kept.take("a") is jail and ours.fileno() != -1  # the parent's are untouched
    ours.close()
    keepers.close()
    os.close(jail.stderr)


def test_a_game_is_stopped_through_its_pidfd_never_by_a_pid_another_process_may_have_by_then():
    """The keeper reaps a game's init, not the referee: by the time the referee stops the game, the init's pid
    may belong to another process (one leading a group, too). The stop goes through the init's pidfd, which
    names that process alone: once it has ended, a stop reaches nobody, even a group whose id is the old pid."""
    import os
    import signal
    import socket
    import subprocess

    pid = os.fork()  # the game's init, ended and reaped before the stop
    if pid == 0:
        os._exit(0)
    pidfd = os.pidfd_open(pid)
    os.waitpid(pid, 0)
    stranger = subprocess.Popen(["sleep", "60"], start_new_session=True)  # a group leader that is not the game
    ours, keepers = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        game = kept.GamePopen(stranger.pid, ours, pidfd)  # as if the old pid had gone to the stranger
        with pytest.raises(ProcessLookupError):
            game.signal(signal.SIGKILL)
        assert stranger.poll() is None  # untouched
        keepers.send(b"exit 0")
        assert game.wait() == 0 and game.pidfd is None  # the keeper's word closes the pidfd
        with pytest.raises(ProcessLookupError):
            game.signal(signal.SIGKILL)
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()
        ours.close()
        keepers.close()
        if game.pidfd is not None:
            os.close(game.pidfd)


def test_the_keeper_is_built_where_only_root_writes_and_never_run_from_a_place_another_could_write(tmp_path,
                                                                                                     monkeypatch):
    """The keeper runs as root in every kept jail: it is compiled into a root-only folder named by its source's
    digest (not the package's folder, read-only where installed and left by an uninstall), and a keeper or a
    folder that another user could have written is refused, not run."""
    import os
    import stat

    path = kept.program_path()
    assert path.parent == kept.KEEPERS and kept.SOURCE.parent not in path.parents
    shared = tmp_path / "keepers"
    shared.mkdir()
    monkeypatch.setattr(kept, "KEEPERS", shared)
    os.chmod(shared, 0o777)  # anyone may write here
    with pytest.raises(kept.KeptJailError, match="not root's alone"):
        kept.program()
    os.chmod(shared, 0o700)
    built = kept.program()
    assert built.parent == shared and stat.S_IMODE(built.stat().st_mode) & 0o022 == 0
    os.chmod(built, 0o777)  # the program itself made writable by others
    with pytest.raises(kept.KeptJailError, match="not root's alone"):
        kept.program()
