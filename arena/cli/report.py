"""``pinochle-arena report``: the HTML report of a results folder."""

from __future__ import annotations

from pathlib import Path

from .args import add_bootstrap_argument, add_no_verify_argument, add_partial_argument


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="write the HTML report of a match or tournament: tables, plots, every game "
                       "in a replay viewer", description=(
        "Write OUT/report/index.html: standings, head to head, crosstable, faults with their detail, plots of score "
        "and time use, and a filterable list of the games, each watchable step by step in a replay viewer (every "
        "hand face up, or one seat's view), with the marks of OUT/analysis.jsonl where 'analyse' wrote one. One "
        "folder, no server: it opens from the disk and works offline."))
    p.add_argument("results", type=Path, metavar="OUT", help="a match's or tournament's output folder, or its games.jsonl "
                   "(the report is written beside it)")
    p.add_argument("--open", action="store_true", help="open the report in the web browser")
    add_bootstrap_argument(p)
    add_no_verify_argument(p)
    add_partial_argument(p, "report on")
    p.set_defaults(handler=run)


def run(args) -> int:
    # Here, not at the top: the records and the report's writer are the work's, and 'report --help' needs neither.
    from .printing import open_in_browser, write_html_report
    from .results import games_file, records_to_use

    path = games_file(args.results)
    folder = path.parent  # (the report is written beside the records)
    records, gap = records_to_use(path, args.no_verify, "report on", "reports", args.partial)
    unverified = " (unverified: --no-verify, seals and schedule not checked)" if args.no_verify else \
        " (--partial: not every scheduled game)" if gap else ""
    index = write_html_report(records, folder, f"{folder.resolve().name}: {len(records)} games{unverified}",
                              bootstrap=args.bootstrap)
    if args.open:
        open_in_browser(index.resolve().as_uri())  # (a file URI names an absolute path: the folder may be given relative)
    return 0
