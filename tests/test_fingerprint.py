"""A bot's fingerprint: the same program gives the same one wherever it lies; any change of its files, another."""

import hashlib
import shutil
import sys
from pathlib import Path

from helpers import arena

from referee.bots.fingerprint import fingerprint
from referee.bots.samples import SAMPLES
from referee.bots.transport import BotCommand
from referee.records.audit import audit_results

ROOT = Path(__file__).resolve().parent.parent


def a_bot(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("import helper\nhelper.main()\n")
    (folder / "helper.py").write_text("def main():\n    pass\n")
    return folder / "bot.py"


def test_the_same_files_elsewhere_give_the_same_fingerprint_and_a_change_beside_the_program_another(tmp_path):
    here = a_bot(tmp_path / "here")
    there = shutil.copytree(here.parent, tmp_path / "shipped" / "copy") / "bot.py"
    first = fingerprint(BotCommand(("python3", str(here))))
    assert first.startswith("sha256:") and len(first) == len("sha256:") + 64
    assert fingerprint(BotCommand(("python3", str(there)))) == first  # paths do not count, contents do
    assert fingerprint(BotCommand((sys.executable, str(here)))) == first  # nor which interpreter runs it
    (there.parent / "helper.py").write_text("def main():\n    print('other')\n")  # a module beside the script
    assert fingerprint(BotCommand(("python3", str(there)))) != first
    (there.parent / "helper.py").write_text((here.parent / "helper.py").read_text())
    (there.parent / "data").mkdir()
    (there.parent / "data" / "book.txt").write_text("an opening book")  # a file deeper in its folder
    assert fingerprint(BotCommand(("python3", str(there)))) != first


def test_what_a_run_writes_beside_a_bot_does_not_change_its_fingerprint(tmp_path):
    bot = a_bot(tmp_path / "mybot")
    first = fingerprint(BotCommand(("python3", str(bot))))
    (bot.parent / "__pycache__").mkdir()
    (bot.parent / "__pycache__" / "helper.cpython-311.pyc").write_bytes(b"compiled")
    results = bot.parent / "results" / "tournament"
    results.mkdir(parents=True)
    (results / "secret.key").write_text("key")
    (results / "games.jsonl").write_text("{}\n")
    assert fingerprint(BotCommand(("python3", str(bot)))) == first


def test_a_compiled_bot_is_its_binary_and_its_folder(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    binary = folder / "mybot"
    binary.write_bytes(b"\x7fELF one build")
    binary.chmod(0o755)
    first = fingerprint(BotCommand((str(binary),)))
    binary.write_bytes(b"\x7fELF another build")
    assert fingerprint(BotCommand((str(binary),))) != first


def test_a_compiled_sample_is_its_source_and_a_missing_program_has_none():
    sample = SAMPLES["first-legal"]
    command = sample.command()
    assert fingerprint(command) == fingerprint(BotCommand((str(sample.source),)))  # built anew on each machine
    assert fingerprint(BotCommand(("no-such-bot-program",))) == ""


def test_every_record_names_the_program_each_seat_ran(tmp_path):
    bot = a_bot(tmp_path / "mine")
    (bot.parent / "bot.py").write_text((ROOT / "sample_bots" / "greedy_bot.py").read_text())
    out = tmp_path / "out"
    done = arena("match", f"python3 {bot}", "random", "--games", "2", "--out", str(out), "--no-report",
                 "--isolation", "none", "--option", "target=300")
    assert done.returncode == 0, done.stderr
    records = audit_results(out / "games.jsonl").records
    programs = {seat.entrant: seat.program for record in records for seat in record.seats}
    assert programs == {"greedy": fingerprint(BotCommand(("python3", str(bot)))),
                        "random": fingerprint(SAMPLES["random"].command())}


def test_a_file_gone_while_it_is_hashed_does_not_stop_a_game(tmp_path, monkeypatch):
    import referee.bots.fingerprint as fp

    bot = a_bot(tmp_path / "mine")
    first = fingerprint(BotCommand(("python3", str(bot))))
    listed = fp._files
    monkeypatch.setattr(fp, "_files", lambda root: [*listed(root), ("gone.py", root / "gone.py")])  # listed, then gone
    assert fingerprint(BotCommand(("python3", str(bot)))) not in ("", first)  # counted as gone, no error


def test_a_sample_bot_of_an_installed_package_is_its_file_though_the_package_lies_in_the_runtimes_folder(monkeypatch):
    """Installed with pip, pinochle-arena (and so its sample bots) lies inside the interpreter's environment, a
    runtime's folder whose files do not count: the samples' own files still do (greedy's was once the hash of
    nothing: sha256:e3b0c442...)."""
    from referee.bots import fingerprint as module

    command = SAMPLES["greedy"].command()
    as_in_a_checkout = fingerprint(command)
    monkeypatch.setattr(module, "RUNTIMES", (*module.RUNTIMES, str(Path(command.argv[-1]).parents[1])))
    assert fingerprint(command) == as_in_a_checkout != "sha256:" + hashlib.sha256().hexdigest()
