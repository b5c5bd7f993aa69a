"""The studies: questions asked over many runs on the same deals.

Each study validates its section of the scenario, derives ordinary
scenarios from it (:mod:`cardsim.studies.derive`), plays them through a
``runner(scenario) -> Result`` it is given, and returns data: tables, the
answer in plain words (``headline``) and what ``cardsim`` prints
(``output``). Studies know nothing of HTML; :mod:`cardsim.report.studies`
renders what they return.

- :mod:`~cardsim.studies.compare`: arms against the first, paired on deals, with seat rotation.
- :mod:`~cardsim.studies.sweep`: a grid or list of points.
- :mod:`~cardsim.studies.rate`: a round robin or gauntlet, with a rating model.
"""


def __getattr__(name: str):
    """The study modules, imported on first use: ``cardsim.studies.cards.output(result)`` as the README
    writes it, after ``import cardsim`` alone (any module of this package: the list is its files)."""
    import importlib
    import pkgutil

    if name in {m.name for m in pkgutil.iter_modules(__path__)}:
        return importlib.import_module(f"cardsim.studies.{name}")
    raise AttributeError(name)
