"""The coverage suite's framework, and a smoke run of every case (the full suite: make coverage)."""

from __future__ import annotations

from cardsim import coverage


def test_every_case_runs_and_is_reproducible():
    cases = coverage.load_all()
    assert "wilson rate" in cases
    a = coverage.table(coverage.run(scale=0.02, seed=3))
    b = coverage.table(coverage.run(scale=0.02, seed=3))
    assert a.equals(b) and a.height >= len(cases)
    assert ((a["measured"] >= 0) & (a["measured"] <= 1)).all()
