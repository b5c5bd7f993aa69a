"""Pages of the manual generated from the code (``python -m cardsim.docs PAGE``), so they cannot
drift from it: ``traces`` writes ``docs/traces.md`` from each game's ``trace_schema.EVENTS``."""
