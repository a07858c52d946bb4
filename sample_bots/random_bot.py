#!/usr/bin/env python3
"""random: plays a uniformly random legal action.

The smallest complete pinochle-arena bot, Python standard library only.
Copy it and replace the line marked CHOOSE with your own thinking.
Usage: random_bot.py [SEED]   (with a SEED, each game's choices depend only on
the seed and the game id, so a replayed or resumed game plays the same way)
"""

import random
import sys


def main() -> None:
    seed = sys.argv[1] if len(sys.argv) > 1 else None
    rng = random.Random(seed)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "game" and seed is not None:  # game <id> ...: the same game plays the same way
            rng = random.Random(f"{seed}:{words[1]}")
        elif words[0] == "pinochle":  # greeting: say who we are, then ready
            print("id name random")
            print("id author pinochle-arena sample bots")
            print("ready", flush=True)
        elif words[0] == "go":  # go <decision> <time-left-ms> <bank-ms> <legal actions...>
            choice = rng.choice(words[4:])  # CHOOSE
            if ".." in choice:  # a range of bids, bid:20..40 or bid:65..100/5: bid its lowest
                choice = choice.split("..")[0]
            print(choice, flush=True)
        elif words[0] == "ping":
            print("pong", words[1], flush=True)
        elif words[0] == "quit":
            return
        # every other message (deal, play, trick, draw, meld...) is news we ignore


if __name__ == "__main__":
    main()
