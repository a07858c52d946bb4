"""The referee: bots as processes, the rules, games, matches and their records."""


def installed_version() -> str:
    """pinochle-arena's installed version (looked up only when asked: importlib.metadata costs 60 ms)."""
    import importlib.metadata

    try:
        return importlib.metadata.version("pinochle-arena")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"
