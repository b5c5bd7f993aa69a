"""Every table of many intervals says how it handles multiplicity, under the command's tables and in its
report: compare's arms and differences, and the card study's association table (pointwise, no adjustment
over the cards), which said nothing of it (the card study's notes spoke of the effects table only)."""

from __future__ import annotations

import numpy as np

from cardsim import api
from cardsim import report as rep
from cardsim.scenario import from_dict
from cardsim.studies import cards as card_study
from cardsim.studies import compare as paired

BASE = {"scenario": {"name": "mult", "game": "fubnub", "games": 40, "seed": 2},
        "seats": {"policies": ["partner", "partner", "partner", "partner"]}}


def _compare(arms: list[str], decide: bool = False) -> paired.CompareResult:
    """A comparison of ``arms`` on 12 deals of made-up wins, without playing."""
    p = paired.Plan(base=None, arms=arms, runs={a: [None] for a in arms}, focus=0, metric="win", decide=decide,
                    alpha=0.2 if decide else 0.05)
    rng = np.random.default_rng(0)
    values = {a: rng.integers(0, 2, 12).astype(float) for a in arms}
    arm_t, diffs = paired.summarize(p, values, sequential=decide)
    if decide:
        arm_t = paired._sequence_first(arm_t, {"lo": "lo_fixed_n", "hi": "hi_fixed_n"})
        diffs = paired._sequence_first(diffs.drop("p", "p_holm"), {"lo": "lo_fixed_n", "hi": "hi_fixed_n"})
    return paired.CompareResult(p, 12, arm_t, diffs)


def test_compare_says_its_intervals_are_pointwise_and_what_p_holm_adjusts():
    three = paired.output(_compare(["a", "b", "c"]))
    note = three.notes[-1]
    assert note.startswith("Each arm's interval and each difference's is a 95% interval for its own row (pointwise)")
    assert "p_holm adjusts the 2 differences' p-values (Holm)" in note
    two = paired.output(_compare(["a", "b"])).notes[-1]
    assert "(pointwise)" in two and "p_holm" not in two  # one difference: nothing to adjust
    seq = paired.output(_compare(["a", "b", "c"], decide=True)).notes[-1]
    assert seq.startswith("Each arm's and each difference's lo/hi is an anytime-valid 80% confidence sequence")
    assert "not adjusted across the 2 differences" in seq and "95%" not in seq


def test_compare_report_says_it_too():
    res = _compare(["a", "b", "c"])
    s = from_dict({**BASE, "compare": {"arms": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}})
    report = rep.build_study(s, "compare", res)
    assert report.intervals == paired.multiplicity(res)  # its Intervals paragraph (it said nothing of it)


def test_cards_study_says_its_association_table_is_pointwise(tmp_path):
    raw = {"scenario": {"name": "assoc", "game": "turtle", "variant": "full", "players": 4, "games": 20, "seed": 5},
           "seats": {"policy": "eager"}, "cards": {"cards": ["Shuffle", "Restart Game"]}}
    s = from_dict(raw)
    res = api.cards(s, runs=tmp_path / "runs")
    assert res.association is not None and res.association[1].height > 1  # a table of many cards
    note = card_study.output(res).notes[-1]
    assert "lo_simultaneous/hi_simultaneous hold for all 2 cards at once (Bonferroni)" in note
    assert "The association table's intervals are each for their own card (pointwise" in note
    assert rep.build_study(s, "cards", res).intervals == note  # the report's Intervals paragraph (it said nothing)
