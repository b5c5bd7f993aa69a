"""cardsim: Monte Carlo strategy analysis for FUBNUB, Bad Bad Turtle, Gubs and FOURBID.

The Python API (the CLI is a thin layer over it)::

    import cardsim
    result = cardsim.run("scenarios/fubnub.toml", games=10_000)
    result.tables["hands"]          # polars LazyFrame
    result.summary()                # list of (title, polars DataFrame)
"""

__version__ = "0.1.0"
__all__ = ["__version__", "cards", "compare", "load", "meta", "open_run", "rate", "run", "search", "sweep", "to_pandas"]


def __getattr__(name: str):  # lazy: ``import cardsim`` stays cheap
    if name in ("run", "load", "Result", "cards", "compare", "sweep", "rate", "open_run", "search", "meta", "to_pandas"):
        from cardsim import api

        return getattr(api, name)
    if name in _SUBMODULES:  # ``import cardsim`` then ``cardsim.report.write(...)``, as the README writes it
        import importlib

        return importlib.import_module(f"cardsim.{name}")
    raise AttributeError(name)


#: the modules the README names after ``import cardsim`` alone (``cardsim.report.write``,
#: ``cardsim.studies.cards.output``, ``cardsim.stats.P_FLOOR``, ``cardsim.tracing.replay``, ...)
_SUBMODULES = ("report", "studies", "stats", "tracing", "scenario", "windows", "games", "results", "policies")
