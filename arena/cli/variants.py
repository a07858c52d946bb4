"""``pinochle-arena variants``: the presets and options, or one variant's settings and meld table."""

from __future__ import annotations

import re

from tabulate import tabulate

from referee.rules import OPTIONS, PRESETS
from referee.rules.variants import RULE_TEXTS

from .args import variant_from_args


def add_parser(sub) -> None:
    p = sub.add_parser("variants", help="list variants and their options, or show one variant's settings")
    p.add_argument("name", nargs="?", help="a variant to show in full")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="show the variant with this option")
    p.set_defaults(handler=run, variant=None)


def run(args) -> int:
    if args.name:
        print_variant(variant_from_args(args))
        return 0
    rows = [[v.name, v.players, v.summary, v.source] for v in PRESETS.values()]
    print(tabulate(rows, headers=["variant", "players", "summary", "follows"], tablefmt="github",
                   maxcolwidths=[None, None, 50, 50]))
    print()
    rows = [[key, "|".join(opt.choices) if opt.choices else "<number>", opt.help] for key, opt in OPTIONS.items()]
    print(tabulate(rows, headers=["option", "values", "meaning"], tablefmt="github", maxcolwidths=[None, 30, 70]))
    print_rule_texts(" ".join(v.source for v in PRESETS.values()))
    print("\n'pinochle-arena variants NAME [--option KEY=VALUE ...]' shows one variant's settings and meld table.")
    return 0


def print_variant(variant) -> None:
    print(f"{variant.name}: {variant.summary}\nfollows: {variant.source}\nplayers: {variant.players}\n")
    rows = [[key, value, OPTIONS[key].help] for key, value in variant.settings(complete=True).items()]
    print(tabulate(rows, headers=["option", "value", "meaning"], tablefmt="github", maxcolwidths=[None, None, 70]))
    melds = [[kind, " / ".join("-" if v is None else str(v) for v in row)] for kind, row in variant.melds.values.items()]
    print()
    print(tabulate(melds, headers=["meld", "value single / double / ..."], tablefmt="github"))
    print_rule_texts(variant.source)


def print_rule_texts(cited: str) -> None:
    """The titles of the rule texts cited by number (000...), so that a reader can find them."""
    numbers = sorted(set(re.findall(r"\b(00\d)\b", cited)) & set(RULE_TEXTS))
    if numbers:
        print("\nrule texts (docs/rules-sources.md):")
        for n in numbers:
            print(f"  {n}: {RULE_TEXTS[n]}")
