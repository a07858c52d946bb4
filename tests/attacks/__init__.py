"""Hostile bots against the jail: one small attack bot per attack (tests/attacks/bots/), run through the real
command line with the defaults (``--isolation jail``, a secret seed, a fresh process per game).

Each bot plays legally (bots/botloop.py) and reports what it learnt on stderr as ``ATTACK <name> ...``; the
tests compare that with the records and the files. Outcomes as asserted (jail: test_jail.py; none:
test_unjailed.py, ``--isolation none``; "-": not run unjailed):

| # | attack (bot) | jail (default) | none |
| --- | --- | --- | --- |
| 1 | seed from the clock: deal every whole-second seed of the last 600 s with its own copy of the rules (clock_seed.py, engine given with --read-only) | no seed deals its hand, no claim on the opponent's; control run with ``--seed <time.time()>``: it finds the seed and the opponent's exact hand | - (the seed is secret in both modes) |
| 2 | reading OUT: ../ paths, OUT's absolute paths, walking OUT; OUT's parent readable with --read-only (read_out.py) | reads and lists nothing (OUT is an empty tmpfs in the jail), in ``match`` and ``tournament`` | reads OUT/secret.key, games.jsonl, the opponent's stderr log |
| 3 | memory across the two seatings of a deal: notes in $HOME, /tmp, /dev/shm, its program folder (memory.py) | finds none (fresh tmpfs per process; program folder EROFS); game ids are 12 random hex digits, unique per game, naming neither bots nor schedule | finds game 1's hand in /tmp and /dev/shm in game 2 |
| 4 | other processes: /proc/PID/environ, mem, fd/0, write to fd/1, SIGSTOP+SIGKILL on all it sees, the referee's pid and the 200 after it (processes.py) | sees only its jail (pid 1, bwrap, root): every step refused, no signal delivered; the referee's secret env var unseen; opponent completes, records replay, referee alive (``match`` and ``tournament``) | reads the referee's environment, secret included (only that is tried) |
| 5 | forged results: append to OUT/games.jsonl by absolute and ../ paths (forge.py) | cannot reach it; a line forged by the test itself (result swapped, seal kept; appended or in place) is rejected by ``replay`` and ``ratings`` | - |
| 6 | overwriting the opponent's program, path known (overwrite.py) | append EACCES, chmod/new file/delete EROFS; file unchanged | all succeed: the file is changed |
| 7 | process limit: fork up to 2,000 sleepers, opponent starts 20 threads per request (forkloop.py, threads.py) | forks stop at ~253 with EAGAIN (its own pids.max 256); the opponent never faults; nothing left (root only) | - |
| 8 | leftovers: files in /dev/shm, /tmp, home, 100 MiB in home, a setsid daemon (leftovers.py) | write stops at 32 MiB with ENOSPC (``--limit disk=32``); no process, no file in the host's /tmp, /dev/shm or anywhere in the test's folder, no OUT/work | - |
| 9 | starving on time: 100 spinners, each in a session of its own (beating per-session autogroup fairness), run while the opponent thinks (starve.py; burner.py works 150 ms of CPU per move) | the opponent never faults: each bot's control group has a 1-core quota and equal weight (root with cgroups only; without them the opponent loses on time) | - |
| 11 | memory through the page cache: 24 system files stand for the 24 faces; each game asks which are cached (mincore, RWF_NOWAIT), evicts all (fadvise) and reads its hand's (page_cache.py) | asking refused (EPERM, ENOTSUP): found nothing | the second seating finds the first seating's hand, its opponent's |
| 12 | a channel between running copies: a parent and its child (standing for two copies) try flock, fcntl and OFD locks on a system file, inotify, fanotify, io_uring (locks.py) | locks granted and unseen, asking refused, watches and io_uring ENOSYS | every lock seen, inotify and io_uring work |
| 13 | spaces without a size: writes 1 MiB to the jail's own / and /dev, raises its core-size limit (spaces.py); and attack 2 also looks for OUT in every command line it can see (/proc/1/cmdline is bwrap's) | EROFS, EROFS, core 0:0 and not raised; OUT named by no command line | - |
| 14 | entrants side by side: ./mybot beside ./otherbot, or a bot's folder holding an earlier results folder or the cluster's certificates (test_jail.py) | refused before the first game, with how to lay the folders out; a folder per bot plays | - |
| 17 | a channel between partners through CPU contention: both pin a thread to one core; the sender spins in the first or second half of 0.25 ms slots on the shared clock (its hand 40 times over), the receiver counts its loop's turns in each half (contention.py; test_contention.py) | **not closed**: a four-handed game with the attacker as both partners completes, each partner pinned (nothing refuses it) and reports the hand it sent; what it heard is not asserted (it depends on the load: bench/contention_channel.py) | - |
| 10 | a stranger's ordinary bot: ``python3 bot.py``, ``node bot.js``, a ``cc``-built C bot, each reading weights.txt beside its program (test_strangers.py) | plays 2 games against random without a fault | - |

Also: a bot that thinks 12 s on one move within its time is not cut short (slow.py).
"""
