#!/usr/bin/env python3
"""random: plays a uniformly random legal action, but never claims unless told to.

The smallest complete pinochle-arena bot, Python standard library only.
Copy it and replace the line marked CHOOSE with your own thinking.
Usage: random_bot.py [SEED]   (with a SEED, each game's choices depend only on
the seed and the game id, so a replayed or resumed game plays the same way)

It speaks protocol 3 for one option: claim (yes/no, default no). In
two-handed-hoyle (and any game with claim=yes) `claim` is among the legal
actions of every lead, follow and meld; a random claim nearly always loses the
game at once, so it is left out unless the organiser sets option.claim=yes.
"""

import random
import sys


def main() -> None:
    seed = sys.argv[1] if len(sys.argv) > 1 else None
    rng = random.Random(seed)
    claims = False  # option claim: set by 'setoption claim yes'
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "game" and seed is not None:  # game <id> ...: the same game plays the same way
            rng = random.Random(f"{seed}:{words[1]}")
        elif words[0] == "pinochle":  # greeting: say who we are, then ready
            print("id name random")
            print("id author pinochle-arena sample bots")
            print("protocol 3")  # for the option below (PROTOCOL.md, section 10)
            print("option claim bool no")
            print("ready", flush=True)
        elif words[0] == "setoption" and words[1] == "claim":
            claims = words[2] == "yes"
        elif words[0] == "go":  # go <decision> <time-left-ms> <bank-ms> <legal actions...>
            legal = [w for w in words[4:] if claims or w != "claim"]
            choice = rng.choice(legal)  # CHOOSE
            if ".." in choice:  # a range of bids, bid:20..40 or bid:65..100/5: bid its lowest
                choice = choice.split("..")[0]
            print(choice, flush=True)
        elif words[0] == "ping":
            print("pong", words[1], flush=True)
        elif words[0] == "quit":
            return
        # every other message (rule, deal, play, trick, draw, meld...) is news we ignore


if __name__ == "__main__":
    main()
