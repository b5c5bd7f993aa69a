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

#: the study modules, imported on first use: ``cardsim.studies.cards.output(result)`` as the README
#: writes it, after ``import cardsim`` alone
_MODULES = ("cards", "compare", "derive", "evaluate", "meta", "rate", "search", "space", "sweep", "until")


def __getattr__(name: str):
    if name in _MODULES:
        import importlib

        return importlib.import_module(f"cardsim.studies.{name}")
    raise AttributeError(name)
