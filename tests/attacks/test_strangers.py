"""Attack 10, the other way round: a stranger's ordinary bot plays in the jail unchanged.

Bots as people write them, outside this repository: a Python script run by
the bare ``python3`` of PATH, a node script, a C program built with ``cc``;
each reads a data file next to its program at start-up (found from its own
path, as the jail's working folder is its private home). Each plays a short
match against ``random`` under the defaults, without a fault.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from .jailrun import completed, match, records, stderr_text

pytestmark = pytest.mark.usefixtures("needs_jail")

PYTHON_BOT = '''\
import os
import sys

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.txt")) as f:
    pick = int(f.read().split()[0])
print("loaded weights", pick, file=sys.stderr, flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "pinochle":
        print("id name stranger-py")
        print("ready", flush=True)
    elif words[0] == "go":
        legal = words[4:]
        print(legal[pick % len(legal)], flush=True)
    elif words[0] == "ping":
        print("pong", words[1], flush=True)
    elif words[0] == "quit":
        break
'''

NODE_BOT = '''\
const fs = require("fs");
const path = require("path");
const readline = require("readline");
const pick = parseInt(fs.readFileSync(path.join(__dirname, "weights.txt"), "utf8"), 10);
process.stderr.write(`loaded weights ${pick}\\n`);
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const words = line.split(" ").filter(Boolean);
  if (words.length === 0) return;
  if (words[0] === "pinochle") process.stdout.write("id name stranger-js\\nready\\n");
  else if (words[0] === "go") {
    const legal = words.slice(4);
    process.stdout.write(legal[pick % legal.length] + "\\n");
  }
  else if (words[0] === "ping") process.stdout.write(`pong ${words[1]}\\n`);
  else if (words[0] === "quit") process.exit(0);
});
'''

C_BOT = r'''
#include <libgen.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    char self[4096], path[4200], line[70000];
    snprintf(self, sizeof self, "%s", argv[0]);
    snprintf(path, sizeof path, "%s/weights.txt", dirname(self));
    FILE *f = fopen(path, "r");
    int pick = 0;
    if (!f || fscanf(f, "%d", &pick) != 1) { perror(path); return 1; }
    fclose(f);
    fprintf(stderr, "loaded weights %d\n", pick);
    while (fgets(line, sizeof line, stdin)) {
        char *words[256];
        int n = 0;
        for (char *t = strtok(line, " \r\n"); t && n < 256; t = strtok(NULL, " \r\n")) words[n++] = t;
        if (n == 0) continue;
        if (!strcmp(words[0], "pinochle")) printf("id name stranger-c\nready\n");
        else if (!strcmp(words[0], "go") && n > 4) printf("%s\n", words[4 + pick % (n - 4)]);
        else if (!strcmp(words[0], "ping") && n > 1) printf("pong %s\n", words[1]);
        else if (!strcmp(words[0], "quit")) break;
        fflush(stdout);
    }
    return 0;
}
'''


def python_bot(folder):
    (folder / "bot.py").write_text(PYTHON_BOT)
    return "python3 bot.py"


def node_bot(folder):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    (folder / "bot.js").write_text(NODE_BOT)
    return "node bot.js"


def c_bot(folder):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (cc)")
    (folder / "bot.c").write_text(C_BOT)
    subprocess.run([compiler, "-O2", "-o", str(folder / "bot"), str(folder / "bot.c")], check=True)
    return "./bot"


@pytest.mark.parametrize("make", [python_bot, node_bot, c_bot], ids=["python3", "node", "c"])
def test_strangers_bot_plays_in_the_jail(make, tmp_path):
    folder = tmp_path / "stranger"
    folder.mkdir()
    (folder / "weights.txt").write_text("1\n")
    bot = make(folder)
    out = tmp_path / "out"
    match(out, bot, "random", cwd=folder)  # relative paths in the command: the referee makes them absolute
    recs = records(out)
    assert len(recs) == 2
    completed(recs)
    # one fresh process per game and one started before them (the check that it starts), each found its data
    assert stderr_text(out).count("loaded weights 1") == 3
