"""FOURBID rules B1-B14 on constructed situations, the reference policies, and the kernel's contract.

Every rule test builds a state by hand (``play_state``: chosen hands, boards, deck and discard
pile) or a stacked deck (``deal_stack``), plays it with deterministic policies and checks the
outcome written out in the test. Seats are 0-3 (position A = seat 0).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import polars as pl
import pytest

from cardsim.errors import PolicyError, ScenarioError
from cardsim.games import get_game
from cardsim.games.fourbid import cards
from cardsim.games.fourbid import policies as P
from cardsim.games.fourbid import state as S
from cardsim.games.fourbid.game import deal_stack, play_state
from cardsim.games.fourbid.rules import recount
from cardsim.rng import root_key
from cardsim.scenario import build_setup, load

G = get_game("fourbid")
COLLECTORS = ["collector"] * 4


def setup(variant="hand", policies=COLLECTORS, **rules):
    return build_setup(G, variant, None, list(policies), rules)


def brief(events, n=None):
    """Events as short tuples: (event, seat, key fields...)."""
    out = []
    for e in events[:n]:
        k = e["event"]
        if k == "bid":
            out.append(("bid", e["seat"], e["bid"]))
        elif k == "pass":
            out.append(("pass", e["seat"]))
        elif k == "win_bid":
            out.append(("win_bid", e["seat"], e["bid"], e["cost"]))
        elif k == "acquire":
            out.append(("acquire", e["seat"], e["source"], e["card"]))
        elif k == "discard":
            out.append(("discard", e["seat"], e["card"]))
        elif k == "indicator":
            out.append(("indicator", e["seat"], e["indicator"], e["cost"]))
        elif k == "challenge":
            out.append(("challenge", e["seat"], e["challenge"]))
        else:
            out.append((k, e.get("seat")))
    return out


# -- B1 catalogue -----------------------------------------------------------------------
def test_b1_catalogue_51_cards_8_sets_of_6_and_3_wilds():
    assert cards.N_CARDS == 51 and cards.N_SETS == 8
    for k in range(8):
        members = [c for c in range(51) if cards.CARD_SET[c] == k]
        assert sorted(cards.CARD_VALUE[members].tolist()) == [1, 2, 3, 4, 5, 6]
    wilds = [c for c in range(51) if cards.CARD_SET[c] < 0]
    assert len(wilds) == 3 and cards.CARD_VALUE[wilds].tolist() == [0, 0, 0]
    assert all(s.source.startswith("assumed") for s in cards.SETS)
    assert cards.POSITION_MAP_SOURCE.startswith("assumed")
    assert cards.card_name(cards.card_code("Set3 5")) == "Set3 5"
    assert cards.card_name(cards.card_code("wild#2")) == "Wild#2"
    with pytest.raises(ValueError, match="unknown OceanLife card"):
        cards.card_code("Set9 1")


def test_four_players_exactly():
    with pytest.raises(ScenarioError, match="takes 4 players"):
        build_setup(G, "game", 3)
    with pytest.raises(ScenarioError, match="takes 4 players"):
        build_setup(G, "hand", None, ["collector"] * 5)


# -- B2 deal ----------------------------------------------------------------------------
def test_b2_deal_4_each_from_the_dealers_left_and_play_starts_left_of_the_dealer():
    hands = [["Set1 1", "Set1 2", "Set1 3", "Set2 6"], ["Set3 1", "Set3 2", "Set4 3", "Set5 4"],
             ["Set6 1", "Set6 2", "Set7 3", "Set8 4"], ["Set2 1", "Set2 2", "Set4 5", "Set5 5"]]
    stack = deal_stack(hands, dealer=0, deck=["Set8 6", "Set7 6"])
    assert stack[:4].tolist() == cards.codes(["Set3 1", "Set6 1", "Set2 1", "Set1 1"])  # seat 1 first
    ev = G.trace(setup("hand", dealer="A"), 0, 0, 1, stack=stack)
    assert ev[0] == {"event": "hand", "game": 0, "hand": 0, "dealer": 0}
    deals = [e for e in ev if e["event"] == "deal"]
    assert [d["cards"] for d in deals] == hands
    # seat 1 (dealer's left) plays first; the discard pile is empty, so it takes the deck's top and
    # discards its lowest non-target card (target Set3): Set4 3. Seat 2 (target Set7: 2 cards, 9
    # points beat Set6's 3) leaves Set4 3, takes Set7 6 and discards Set6 1.
    play = [e for e in ev if e["event"] != "deck"]  # the deck after the deal is its own event
    assert brief(play[5:9]) == [("acquire", 1, "deck", "Set8 6"), ("discard", 1, "Set4 3"),
                              ("acquire", 2, "deck", "Set7 6"), ("discard", 2, "Set6 1")]


def test_b2_deal_moves_left_and_b13_position_a_deals_first_in_every_game():
    t = G.simulate_chunk(setup("game"), root_key(3), 0, 40)
    h = t["hands"]
    assert (h["dealer"] == (h["hand"] % 4)).all()
    tt = G.simulate_chunk(setup("tournament"), root_key(3), 0, 3)["hands"]
    assert (tt.filter(pl.col("hand") == 0)["dealer"] == 0).all()
    assert (tt["dealer"] == (tt["hand"] % 4)).all()


# -- B3 turns ---------------------------------------------------------------------------
def test_b3_acquire_then_discard_collector_takes_a_useful_top_discard():
    """No Indicator down: seat 1 (left of last completer 0) takes the top discard Set1 6 (its
    target set Set1), holds 5, discards its lowest non-target card Set2 1; no bidding. Seat 2
    (target Set5: 2 cards, 7 points beat Set4's 3) leaves Set2 1, draws Set2 2, discards Set4 1."""
    r = play_state(setup(), hands=["Set7 1,Set7 2,Set8 3,Set8 4", "Set1 1,Set1 2,Set2 1,Set3 5",
                                   "Set4 1,Set4 2,Set5 3,Set5 4", "Set6 1,Set6 2,Set3 3,Set3 4"],
                   deck="Set2 2,Set3 6", pile="Set8 1,Set1 6", last=0)
    assert brief(r["events"], 4) == [
        ("acquire", 1, "discards", "Set1 6"), ("discard", 1, "Set2 1"),
        ("acquire", 2, "deck", "Set2 2"), ("discard", 2, "Set4 1"),
    ]


def test_b3_hands_stay_at_8_and_indicators_never_go_on_the_pile():
    """Debug mode checks after every acquire and discard that each hand holds 8 cards counting the
    unplayed Indicators (9 between acquire and discard) and every OceanLife card is in one place."""
    for v in ("hand", "game", "tournament"):
        for pols in (["random"] * 4, COLLECTORS, ["bidder", "collector", "random", "bidder"]):
            t = G.simulate_chunk(setup(v, pols), root_key(11), 0, 60 if v != "tournament" else 8, debug=True)
            assert t["hands"].height > 0


# -- B4 bidding -------------------------------------------------------------------------
def test_b4_first_indicator_turn_has_no_bidding_then_opener_left_of_it_forced_1():
    """Seat 0 (last completer 3) holds 4 of Set1: plays Indicator 1 with no bidding that turn,
    paying 4 (B6). Next turn: seat 1 opens with the forced 1; seat 2 and 3 (no Indicator, cost 0)
    raise to 2 and 3; the opener decides 4 (its cost 4 x 0 = 0) and wins; seat 0 never bids."""
    r = play_state(setup(), hands=["Set1 1,Set1 2,Set1 3,Set1 4", "Set2 1,Set2 2,Set3 3,Set4 4",
                                   "Set5 1,Set5 2,Set6 3,Set7 4", "Set6 1,Set6 2,Set7 3,Set8 4"],
                   deck="Set8 1,Set8 2,Set8 3", last=3)
    assert brief(r["events"], 9) == [
        ("acquire", 0, "deck", "Set8 1"), ("indicator", 0, 1, 4),
        ("bid", 1, 1), ("bid", 2, 2), ("bid", 3, 3), ("bid", 1, 4), ("win_bid", 1, 4, 0),
        ("acquire", 1, "deck", "Set8 2"), ("discard", 1, "Set8 2"),
    ]
    assert r["events"][2]["forced"] is True
    assert r["first_indicator"] == 0


def test_b4_bid_ladder_when_everyone_raises_opener_takes_4():
    """All boards at 1: collectors raise while (bid+1) x 1 <= 4. Last completer 0: seat 1 opens 1,
    seat 2 raises to 2, seat 3 to 3, and the opener decides 4 and wins paying 4 x 1 = 4 (B5).
    The next round opens left of the winner (seat 2) and seat 1 may not bid."""
    r = play_state(setup(), hands=["Set1 1,Set2 2,Set3 3,Set4 4,Set5 5", "Set1 2,Set2 3,Set3 4,Set4 5,Set5 6",
                                   "Set6 1,Set7 2,Set8 3,Set1 4,Set2 5", "Set6 2,Set7 3,Set8 4,Set1 5,Set2 6"],
                   deck="Set3 1,Set3 2", boards=(1, 1, 1, 1), last=0)
    ev = brief(r["events"], 12)
    assert ev[:5] == [("bid", 1, 1), ("bid", 2, 2), ("bid", 3, 3), ("bid", 1, 4), ("win_bid", 1, 4, 4)]
    assert ev[5][:2] == ("acquire", 1) and ev[6][:2] in (("discard", 1), ("indicator", 1))
    assert ev[7:11] == [("bid", 2, 1), ("bid", 3, 2), ("bid", 0, 3), ("bid", 2, 4)]


def test_b4_first_pass_ends_the_round_and_the_last_bidder_wins():
    """Boards (0, 2, 3, 1), last completer 3: seat 0 opens 1; seat 1 (Indicator 2) raises to 2
    since 2 x 2 <= 4; seat 2 (Indicator 3) passes since 3 x 3 > 4: seat 1 wins at 2, pays 4."""
    r = play_state(setup(), hands=["Set1 1,Set2 2,Set3 3,Set4 4", "Set1 2,Set2 3,Set3 4,Set4 5,Set5 6,Set6 6",
                                   "Set6 1,Set7 2,Set8 3,Set1 4,Set2 5,Set5 1,Set5 2",
                                   "Set6 2,Set7 3,Set8 4,Set1 5,Set2 6"],
                   deck="Set3 1,Set3 2", boards=(0, 2, 3, 1), last=3)
    assert brief(r["events"], 4) == [("bid", 0, 1), ("bid", 1, 2), ("pass", 2), ("win_bid", 1, 2, 4)]


def _check_bidding_order(events):
    last = None
    round_open = True
    for e in events:
        k = e["event"]
        if k == "hand":
            last, round_open = e["dealer"], True
        elif k in ("discard", "indicator"):
            last, round_open = e["seat"], True
        elif k in ("bid", "pass"):
            assert e["seat"] != last, "the last completer may not bid (B4)"
            if round_open:
                assert k == "bid" and e["bid"] == 1 and e["forced"] and e["seat"] == (last + 1) % 4
                round_open = False
        elif k == "win_bid":
            assert e["seat"] != last
    return True


def test_b4_last_completer_never_bids_and_opener_is_left_of_it_random_play():
    # bidders that pay for a first Indicator (the default, first_at 6, never does: four of them never bid)
    for pols in (["random"] * 4, COLLECTORS, [{"name": "bidder", "first_at": 5}] * 4):
        ev = G.trace(setup("game", pols), root_key(21), 0, 2)
        assert _check_bidding_order(ev)
        assert any(e["event"] == "bid" for e in ev)


# -- B5 cost --------------------------------------------------------------------------------
def test_b5_cost_is_bid_times_indicator_showing_before_that_turns_discard():
    """Seat 1 (Indicator 1) wins at 4 (cost 4 x 1 = 4) and then plays Indicator 2 in the same
    turn (it holds 4 of Set2): the cost stays 4, not 4 x 2."""
    r = play_state(setup(), hands=["Set1 1,Set3 2,Set3 3,Set4 4,Set5 5", "Set2 2,Set2 3,Set2 4,Set2 5,Set5 6",
                                   "Set6 1,Set7 2,Set8 3,Set1 4,Set6 5", "Set6 2,Set7 3,Set8 4,Set1 5,Set7 6"],
                   deck="Set8 1,Set8 2", boards=(1, 1, 1, 1), last=0)
    assert brief(r["events"], 7) == [
        ("bid", 1, 1), ("bid", 2, 2), ("bid", 3, 3), ("bid", 1, 4), ("win_bid", 1, 4, 4),
        ("acquire", 1, "deck", "Set8 1"), ("indicator", 1, 2, 0),
    ]
    assert r["events"][4]["indicator_showing"] == 1


def test_b5_no_cost_without_an_indicator_showing():
    r = play_state(setup(), hands=["Set1 1,Set2 2,Set3 3,Set4 4", "Set1 2,Set2 3,Set3 4,Set4 5",
                                   "Set6 1,Set7 2,Set8 3,Set1 4,Set2 5", "Set6 2,Set7 3,Set8 4,Set1 5"],
                   deck="Set3 1,Set3 2", boards=(0, 0, 1, 0), last=2, two_down=False)
    assert brief(r["events"], 5) == [("bid", 3, 1), ("bid", 0, 2), ("bid", 1, 3), ("bid", 3, 4),
                                     ("win_bid", 3, 4, 0)]


# -- B6 Special Rule 1 ----------------------------------------------------------------------
def test_b6_first_indicator_of_the_hand_costs_4_later_ones_do_not():
    r = play_state(setup(), hands=["Set1 1,Set1 2,Set1 3,Set1 4", "Set2 1,Set2 2,Set2 3,Set2 4",
                                   "Set5 1,Set5 2,Set6 3,Set7 4", "Set6 1,Set6 2,Set7 3,Set8 4"],
                   deck="Set8 1,Set8 2,Set8 3", last=3)
    inds = [e for e in r["events"] if e["event"] == "indicator"]
    assert (inds[0]["seat"], inds[0]["indicator"], inds[0]["cost"]) == (0, 1, 4)
    assert all(e["cost"] == 0 for e in inds[1:])
    r0 = play_state(setup(rule1_cost=0), hands=["Set1 1,Set1 2,Set1 3,Set1 4", "Set2 1,Set2 2,Set2 3,Set2 4",
                                                "Set5 1,Set5 2,Set6 3,Set7 4", "Set6 1,Set6 2,Set7 3,Set8 4"],
                    deck="Set8 1,Set8 2,Set8 3", last=3)
    assert next(e for e in r0["events"] if e["event"] == "indicator")["cost"] == 0


# -- B7 Special Rule 2 ----------------------------------------------------------------------
def test_b7_after_a_two_a_player_with_no_indicator_must_play_indicator_1():
    """Seat 0 has played its 2. Seat 1 (no Indicator, cost 0) wins the bid and, holding nothing
    worth an Indicator, must still play Indicator 1 (forced). With rule2 off it discards its
    lowest non-target card instead (one card per set: target Set4 by points; Set8 1 goes)."""
    hands = ["Set1 1,Set2 2,Set3 3,Set4 4,Set5 5,Set6 6", "Set1 2,Set2 3,Set3 4,Set4 5",
             "Set6 1,Set7 2,Set8 3,Set1 4,Set2 5,Set5 1,Set5 2", "Set6 2,Set7 3,Set8 4,Set1 5,Set2 6,Set3 6,Set4 6"]
    r = play_state(setup(), hands=hands, deck="Set8 1,Set8 2", boards=(2, 0, 3, 3), last=0)
    ev = r["events"]
    assert brief(ev, 5) == [("bid", 1, 1), ("pass", 2), ("win_bid", 1, 1, 0), ("acquire", 1, "deck", "Set8 1"),
                            ("indicator", 1, 1, 0)]
    assert ev[4]["forced"] is True
    r2 = play_state(setup(rule2=False), hands=hands, deck="Set8 1,Set8 2", boards=(2, 0, 3, 3), last=0)
    assert brief(r2["events"], 5)[4] == ("discard", 1, "Set8 1")


def test_b7_starts_with_the_first_two():
    r = play_state(setup(), hands=["Set1 1,Set1 2,Set1 3,Set1 4", "Set2 1,Set2 2,Set2 3,Set3 4",
                                   "Set5 1,Set5 2,Set6 3,Set7 4", "Set6 1,Set6 2,Set7 3,Set8 4"],
                   deck="Set8 1,Set8 2,Set8 3", last=3)
    ind = [e for e in r["events"] if e["event"] == "indicator"]
    first_two = next(i for i, e in enumerate(ind) if e["indicator"] == 2)
    assert ind[first_two]["rule2_starts"] is True
    assert not any(e["rule2_starts"] for e in ind[first_two + 1:])
    assert not any(e["forced"] for e in ind[:first_two + 1])


# -- B8 going out ---------------------------------------------------------------------------
def test_b8_goes_out_with_4_of_a_set_counted_after_the_acquire():
    """Seat 0 (Indicators 1-3 down) holds 3 of Set2; the top discard is Set2 6. It opens with the
    forced 1, seat 1 (Indicator 3) passes; seat 0 takes Set2 6 from the pile (4 of Set2 now) and
    plays the 4: out at once, +24. Earned 2+3+5+6 = 16."""
    r = play_state(setup(), hands=["Set2 2,Set2 3,Set2 5,Set1 1,Set3 1,Set4 1,Set5 1",
                                   "Set1 2,Set3 2,Set4 2,Set5 2,Set6 2,Set7 2,Set8 2",
                                   "Set6 1,Set7 1,Set8 1,Set1 4", "Set6 3,Set7 3,Set8 3,Set1 5"],
                   deck="Set8 6", pile="Set1 6,Set2 6", boards=(3, 3, 0, 0), last=3, two_down=False)
    assert brief(r["events"], 6) == [("bid", 0, 1), ("pass", 1), ("win_bid", 0, 1, 3),
                                     ("acquire", 0, "discards", "Set2 6"), ("indicator", 0, 4, 0), ("go_out", 0)]
    assert r["out"] == 0 and r["turns"] == 1
    assert r["earned"][0] == 16 and r["bonus"][0] == 24 and r["ind"][0] == 4


def test_b8_wilds_count_with_no_minimum_of_natural_cards():
    """3 wilds + 1 Set4 card make 4 of Set4: eligible (B8); Earned counts the Set4 card only."""
    r = play_state(setup(), hands=["Wild#1,Wild#2,Wild#3,Set4 6,Set1 1,Set2 1,Set3 1",
                                   "Set1 2,Set3 2,Set4 2,Set5 2,Set6 2,Set7 2,Set8 2",
                                   "Set6 1,Set7 1,Set8 1,Set1 4", "Set6 3,Set7 3,Set8 3,Set1 5"],
                   deck="Set8 6", boards=(3, 3, 0, 0), last=3, two_down=False)
    assert r["out"] == 0 and r["earned"][0] == 6


def test_b8_not_eligible_no_going_out():
    """Seat 0 (1-3 down) holds only 3 of Set2 and draws Set8 6: it cannot play the 4 and discards."""
    r = play_state(setup(), hands=["Set2 2,Set2 3,Set2 5,Set1 1,Set3 1,Set4 1,Set5 1",
                                   "Set1 2,Set3 2,Set4 2,Set5 2,Set6 2,Set7 2,Set8 2",
                                   "Set6 1,Set7 1,Set8 1,Set1 4", "Set6 3,Set7 3,Set8 3,Set1 5"],
                   deck="Set8 6", pile="Set1 6,Set7 5", boards=(3, 3, 0, 0), last=3, two_down=False)
    assert brief(r["events"], 5) == [("bid", 0, 1), ("pass", 1), ("win_bid", 0, 1, 3),
                                     ("acquire", 0, "deck", "Set8 6"), ("discard", 0, "Set1 1")]


def test_b8_indicator_legality():
    pub = np.zeros(S.NPUB, np.int64)
    pub[S.P_NSETS] = 8
    cnt = np.zeros(9, np.int64)
    cnt[2] = 3
    for played, ok in ((0, True), (1, True), (2, True), (3, False), (4, False)):
        pub[S.P_IND] = played
        assert P.indicator_legal(0, cnt, pub) == ok
    cnt[8] = 1  # a wild makes 4 of set 2
    pub[S.P_IND] = 3
    assert P.indicator_legal(0, cnt, pub)


# -- B9 challenge ----------------------------------------------------------------------------
CHALLENGE_HANDS = ["Set1 3,Set1 4,Set1 5,Set1 6,Set5 1,Set6 1,Set7 1",
                   "Set2 2,Set2 3,Set2 4,Set2 5,Set2 6,Set5 2,Set6 2",
                   "Set3 3,Set3 4,Set3 5,Set3 6,Set5 3,Set6 3,Set7 3",
                   "Set4 1,Set4 2,Set4 3,Set5 4,Set6 4,Set7 4"]


def test_b9_challenge_won_tied_declined_and_b11_negative_net():
    """Seat 0 goes out with Earned 18 (Set1 3-6). From its left: seat 1 (Earned 20 >= 15)
    challenges and wins +12; seat 2 (18) challenges and ties +8; seat 3 (6) declines. Each
    challenger spends 4. Seat 3 had spent 30: Net -24 counts 0 (score stays 10)."""
    r = play_state(setup(), hands=CHALLENGE_HANDS, deck="Set8 1", boards=(3, 3, 3, 2), last=3,
                   spent=(0, 0, 0, 30), scores=(10, 10, 10, 10))
    assert brief(r["events"]) == [
        ("bid", 0, 1), ("pass", 1), ("win_bid", 0, 1, 3), ("acquire", 0, "deck", "Set8 1"),
        ("indicator", 0, 4, 0), ("go_out", 0),
        ("challenge", 1, True), ("challenge", 2, True), ("challenge", 3, False),
        ("challenge_result", 1), ("challenge_result", 2),
        ("score", 0), ("score", 1), ("score", 2), ("score", 3),
    ]
    assert [e["result"] for e in r["events"] if e["event"] == "challenge_result"] == ["won", "tied"]
    assert r["earned"] == [18, 20, 18, 6]
    assert r["bonus"] == [24, 12, 8, 0]
    assert r["spent"] == [3, 4, 4, 30]
    assert r["net"] == [39, 28, 22, -24]
    assert r["challenged"] == [0, 1, 1, 0]
    assert r["score"] == [49, 38, 32, 10]


def test_b8_b9_bonus_and_challenge_knobs_are_applied():
    """The same deal with other B8/B9 amounts (knobs out_bonus, challenge_cost, challenge_win,
    challenge_tie): the goer-out's bonus is 30, each challenger spends 2, a won challenge earns 10 and a
    tied one 5; B11's Net and the running scores follow."""
    r = play_state(setup(out_bonus=30, challenge_cost=2, challenge_win=10, challenge_tie=5), hands=CHALLENGE_HANDS,
                   deck="Set8 1", boards=(3, 3, 3, 2), last=3, spent=(0, 0, 0, 30), scores=(10, 10, 10, 10))
    assert [e["result"] for e in r["events"] if e["event"] == "challenge_result"] == ["won", "tied"]
    assert r["earned"] == [18, 20, 18, 6]
    assert r["bonus"] == [30, 10, 5, 0]
    assert r["spent"] == [3, 2, 2, 30]
    assert r["net"] == [45, 28, 21, -24]
    assert r["score"] == [55, 38, 31, 10]


def test_b9_challenge_lost_still_spends_4():
    """Seat 1 holds Set2 2-6 minus the 6 plus Set2 1: Earned 15 < 18: it challenges (>= 15),
    loses, gets no bonus and still spends 4."""
    hands = list(CHALLENGE_HANDS)
    hands[1] = "Set2 1,Set2 2,Set2 3,Set2 4,Set2 5,Set5 2,Set6 2"
    r = play_state(setup(), hands=hands, deck="Set8 1", boards=(3, 3, 3, 2), last=3)
    res = [e for e in r["events"] if e["event"] == "challenge_result"]
    assert (res[0]["seat"], res[0]["result"], res[0]["bonus"]) == (1, "lost", 0)
    assert r["bonus"][1] == 0 and r["spent"][1] == 4 and r["net"][1] == 15 - 4


# -- B10 / B11 --------------------------------------------------------------------------------
def test_b10_earned_is_the_best_single_set_total_wilds_worth_0():
    pts = np.zeros(9, np.int64)
    pts[:8] = [3, 11, 0, 7, 0, 0, 0, 0]
    assert P.earned(pts, 8) == 11
    hands = np.zeros((4, cards.WIDTH), np.int64)
    nhand = np.array([5, 0, 0, 0])
    hands[0, :5] = cards.codes("Set1 6,Set1 5,Wild#1,Set2 4,Set2 3")
    cnt = np.zeros((4, 9), np.int64)
    ptsa = np.zeros((4, 9), np.int64)
    recount(hands, nhand, cnt, ptsa, cards.CARD_SET, cards.CARD_VALUE, 8)
    assert P.earned(ptsa[0], 8) == 11 and cnt[0, 8] == 1 and P.best_with_wilds(cnt[0], 8) == 3


def test_b11_net_is_earned_plus_bonus_minus_spent_and_running_score_never_drops():
    t = G.simulate_chunk(setup("game", ["random", "collector", "bidder", "random"]), root_key(4), 0, 200)
    h = t["hands"]
    played = h.filter(pl.col("out") >= 0)
    for s in range(4):
        assert (played[f"net_s{s}"] == played[f"earned_s{s}"] + played[f"bonus_s{s}"] - played[f"spent_s{s}"]).all()
        gain = h.with_columns(prev=pl.col(f"score_s{s}").shift(1).over("game").fill_null(0))
        d = gain[f"score_s{s}"] - gain["prev"]
        assert (d == gain[f"net_s{s}"].clip(0, None)).all()
    assert (played.select(pl.min_horizontal([f"net_s{s}" for s in range(4)])).to_series() < 0).any()


# -- B12 deck runs out -------------------------------------------------------------------------
def test_b12_reshuffle_the_moment_the_deck_last_card_is_drawn():
    """The deck holds one card (Set8 6); 34 cards are on the pile with Set7 6 on top. Seat 0 draws
    the last card: at once the 33 discards under Set7 6 become the new deck, Set7 6 stays."""
    hands = ["Set1 1,Set1 2,Set2 3,Set3 4", "Set4 1,Set4 2,Set5 3,Set6 4",
             "Set7 1,Set7 2,Set8 3,Set1 4", "Set2 1,Set2 2,Set3 3,Set4 4"]
    named = set(cards.codes(",".join(hands))) | {cards.card_code("Set8 6"), cards.card_code("Set7 6")}
    pile = [cards.card_name(c) for c in range(cards.N_CARDS) if c not in named] + ["Set7 6"]
    r = play_state(setup(), hands=hands, deck="Set8 6", pile=pile, last=3)
    ev = r["events"]
    assert brief(ev, 2) == [("acquire", 0, "deck", "Set8 6"), ("reshuffle", None)]
    assert ev[0]["deck"] == 0 and ev[1]["deck"] == 33 and ev[1]["top_discard"] == "Set7 6"
    assert r["reshuffles"] >= 1
    # the trace names the new deck top first: the 33 discards under Set7 6, and the next card drawn
    # from the deck is its top card
    order = ev[1]["cards"]
    assert sorted(order) == sorted(pile[:-1]) and len(order) == 33
    nxt = next(e for e in ev[2:] if e["event"] == "acquire" and e["source"] == "deck")
    assert nxt["card"] == order[0]


def test_b2_trace_names_the_deal_and_the_deck_left_top_first():
    """B2: seat 0 deals one card at a time from its left; the trace's ``deal`` events list each
    seat's four cards in dealt order and the ``deck`` event the 35 cards left, top first, which
    the deck acquires draw in that order."""
    hands = [["Set1 1", "Set1 2", "Set1 3", "Set1 4"], ["Set2 1", "Set2 2", "Set2 3", "Set2 4"],
             ["Set3 1", "Set3 2", "Set3 3", "Set3 4"], ["Set4 1", "Set4 2", "Set4 3", "Set4 4"]]
    stack = deal_stack(hands, dealer=0, deck=["Set5 1", "Set5 2"])
    ev = G.trace(setup("hand", dealer="A"), root_key(1), 0, 1, stack=stack)
    assert [e["cards"] for e in ev if e["event"] == "deal"] == hands
    deck = next(e for e in ev if e["event"] == "deck")
    rest = [cards.card_name(int(c)) for c in stack[16:]]
    assert deck["cards"] == rest and deck["cards"][:2] == ["Set5 1", "Set5 2"]
    kinds = [e["event"] for e in ev]
    first = ev[: kinds.index("reshuffle")] if "reshuffle" in kinds else ev
    drawn = [e["card"] for e in first if e["event"] == "acquire" and e["source"] == "deck"]
    assert drawn and drawn == rest[: len(drawn)]


# -- B13 games and tournaments -----------------------------------------------------------------
def _check_game_ends(h: pl.DataFrame, g: pl.DataFrame, target: int, surpass: bool) -> None:
    scores = [f"score_s{s}" for s in range(4)]
    h = h.with_columns(top=pl.max_horizontal(scores),
                       ntop=pl.sum_horizontal([(pl.col(c) == pl.max_horizontal(scores)).cast(pl.Int32)
                                               for c in scores]))
    done = (pl.col("ntop") == 1) & ((pl.col("top") > target) if surpass else (pl.col("top") >= target))
    h = h.with_columns(done=done)
    last = h.group_by("game", "tgame").agg(pl.col("done").last(), pl.col("done").sum().alias("n"),
                                           pl.len().alias("hands"))
    assert (last["done"]).all() and (last["n"] == 1).all()
    assert sorted(last["hands"].to_list()) == sorted(g["hands"].to_list())


@pytest.mark.parametrize("rule", ["reach", "surpass"])
def test_b13_game_ends_at_a_sole_leader_reaching_the_target_ties_play_on(rule):
    s = setup("game", ["bidder", "collector", "collector", "collector"], target=40, target_rule=rule)
    t = G.simulate_chunk(s, root_key(8), 0, 300)
    _check_game_ends(t["hands"], t["games"], 40, rule == "surpass")
    g = t["games"]
    assert (g["winner"] >= 0).all()
    for s_ in range(4):
        won = g.filter(pl.col("winner") == s_)
        others = [f"final_net_s{o}" for o in range(4) if o != s_]
        assert (won[f"final_net_s{s_}"] > won.select(pl.max_horizontal(others)).to_series()).all()


def test_b13_tie_at_the_top_plays_another_hand():
    """Find a game where, after some hand, two seats shared a top score >= target: it went on."""
    t = G.simulate_chunk(setup("game", target=20), root_key(2), 0, 2000)
    h = t["hands"]
    scores = [f"score_s{s}" for s in range(4)]
    tied = h.with_columns(top=pl.max_horizontal(scores)).filter(
        (pl.col("top") >= 20) & (pl.sum_horizontal([(pl.col(c) == pl.col("top")).cast(pl.Int32) for c in scores]) > 1))
    assert tied.height > 0
    nxt = tied.select("game", (pl.col("hand") + 1).alias("hand")).join(h, on=["game", "hand"])
    assert nxt.height == tied.height


def test_b13_tournament_first_to_3_reseated_by_the_position_map():
    t = G.simulate_chunk(setup("tournament", ["bidder", "collector", "random", "collector"]), root_key(6), 0, 12)
    g, tour = t["games"], t["tournaments"]
    pm = cards.position_map()
    for row in g.iter_rows(named=True):
        assert [row[f"player_s{s}"] for s in range(4)] == pm[row["tgame"] % 12].tolist()
        assert row["winner_player"] == row[f"player_s{row['winner']}"]
        for s in range(4):
            assert row[f"final_net_p{row[f'player_s{s}']}"] == row[f"final_net_s{s}"]
    for row in tour.iter_rows(named=True):
        mine = g.filter(pl.col("game") == row["game"])
        wins = [int((mine["winner_player"] == p).sum()) for p in range(4)]
        assert wins == [row[f"wins_p{p}"] for p in range(4)]
        assert max(wins) == 3 and wins[row["winner"]] == 3 and row["games"] == mine.height
        assert int(mine["winner_player"][-1]) == row["winner"]
        assert row["hands"] == int(mine["hands"].sum())


# -- B14 turn cap -----------------------------------------------------------------------------
def test_b14_hand_cut_at_the_turn_cap_is_void_counted_and_the_deal_moves_left():
    t = G.simulate_chunk(setup("game", turn_cap=5, max_hands=6), root_key(1), 0, 5)
    h, g = t["hands"], t["games"]
    assert h.height == 30 and (h["out"] == -1).all() and (h["turns"] == 5).all()
    for c in ("earned", "bonus", "spent", "net", "score"):
        assert (h.select(pl.sum_horizontal(f"{c}_s{s}" for s in range(4))).to_series() == 0).all()
    assert (h["dealer"] == h["hand"] % 4).all()
    assert (g["winner"] == -1).all() and (g["void_hands"] == 6).all() and (~g["finished"]).all()
    out = G.outcomes({k: v.lazy() for k, v in t.items()}, setup("game")).collect()
    assert out["win"].null_count() == out.height


def test_b14_a_policy_deadlock_is_cut_not_hung():
    """Collectors deadlock in hand 204 of seed 1 (two Indicator-1 players win every bid)."""
    h = G.simulate_chunk(setup("hand"), 1, 204, 1)["hands"]
    assert h["out"][0] == -1 and h["turns"][0] == 2000 and h["bids"][0] > 1900


def test_b12_b14_a_deadlocked_hand_at_the_largest_turn_cap_keeps_its_reshuffle_count():
    """The same deadlock cut at the largest turn cap (B14, 1,000,000 turns): the deck runs out
    and is rebuilt from the discards (B12) 35,714 times, which the hands table holds (the knob
    matrix found this count overflowing a 16-bit column)."""
    h = G.simulate_chunk(setup("hand", turn_cap=1_000_000), 1, 204, 1)["hands"]
    assert h["out"][0] == -1 and h["turns"][0] == 1_000_000 and h["reshuffles"][0] == 35_714


def test_b13_a_tournament_past_32767_games_keeps_its_game_numbers():
    """B13 tournament whose games never finish (target out of reach, one hand a game): it is cut at
    max_games, and every game's number (tgame) fits the tables (the knob matrix found 16-bit
    columns too narrow for max_games up to 100,000)."""
    s = setup("tournament", target=1_000_000, max_hands=1, max_games=40_000, tournament_wins=1)
    t = G.simulate_chunk(s, root_key(2), 0, 1)
    assert t["games"]["tgame"].to_list() == list(range(40_000))
    assert t["hands"]["tgame"].max() == 39_999 and t["hands"].height == 40_000
    tour = t["tournaments"].row(0, named=True)
    assert tour["winner"] == -1 and tour["games"] == 40_000 and not tour["finished"]


# -- reference policies ---------------------------------------------------------------------------
def _view(names: str):
    hand = np.zeros(cards.WIDTH, np.int64)
    codes = cards.codes(names)
    hand[: len(codes)] = codes
    hands = np.zeros((4, cards.WIDTH), np.int64)
    hands[0] = hand
    nhand = np.array([len(codes), 0, 0, 0])
    cnt = np.zeros((4, 9), np.int64)
    pts = np.zeros((4, 9), np.int64)
    recount(hands, nhand, cnt, pts, cards.CARD_SET, cards.CARD_VALUE, 8)
    pub = np.zeros(S.NPUB, np.int64)
    pub[S.P_NSETS] = 8
    pub[S.P_TOP] = -1
    return hand, len(codes), cnt[0].copy(), pts[0].copy(), pub


def _call(fn, names, *, top=None, ind=0, forced=0, bid=None):
    hand, nh, cnt, pts, pub = _view(names)
    if top is not None:
        pub[S.P_TOP] = cards.card_code(top)
        pub[S.P_NPILE] = 1
    pub[S.P_IND] = ind
    pub[S.P_FORCED] = forced
    params = np.zeros(8)
    rng = np.zeros(1, np.uint64)
    if bid is not None:
        return fn(0, bid, hand, nh, cnt, pts, pub, cards.CARD_SET, cards.CARD_VALUE, params, rng)
    return fn(0, hand, nh, cnt, pts, pub, cards.CARD_SET, cards.CARD_VALUE, params, rng)


def test_collector_target_set_ties_to_points_then_lower_set():
    _, _, cnt, pts, _ = _view("Set3 1,Set3 2,Set5 1,Set5 3,Wild#1")
    assert P.target_set(cnt, pts, 8) == 4  # Set5: 2 cards, 4 points beats Set3: 2 cards, 3 points
    _, _, cnt, pts, _ = _view("Set3 1,Set3 3,Set5 1,Set5 3")
    assert P.target_set(cnt, pts, 8) == 2  # equal counts and points: the lower set (Set3)
    _, _, cnt, pts, _ = _view("Set2 1,Wild#1,Wild#2,Set6 6")
    assert P.target_set(cnt, pts, 8) == 5  # wilds excluded; one card each: Set6 has more points


def test_collector_acquire_discard_bid_challenge():
    acq, dis = P.collector_acquire, P.collector_discard
    assert _call(acq, "Set3 1,Set3 2,Set5 1,Set6 2", top="Set3 6") == 1  # target set
    assert _call(acq, "Set3 1,Set3 2,Set5 1,Set6 2", top="Wild#2") == 1  # wild
    assert _call(acq, "Set3 1,Set3 2,Set5 1,Set6 2", top="Set5 6") == 0  # not target: deck
    assert _call(acq, "Set3 1,Set3 2,Set5 1,Set6 2") == 0  # empty pile
    code = cards.card_code
    # lowest non-target, ties to the lower set, never a wild
    assert _call(dis, "Set3 1,Set3 2,Set5 2,Set4 2,Wild#1") == code("Set4 2")
    # every card target or wild: the lowest target card
    assert _call(dis, "Set3 4,Set3 2,Set3 5,Wild#1,Wild#2") == -1  # 3 + 2 wilds = 5: Indicator
    assert _call(dis, "Set3 4,Set3 2,Wild#1,Wild#2,Wild#3", ind=3) == -1  # 4 with wilds: goes out
    assert _call(dis, "Set3 4,Set3 2,Set3 5,Wild#1,Set1 1", ind=3) == -1
    assert _call(dis, "Set3 4,Set3 2,Set3 5,Set1 1,Set1 2", ind=3) == code("Set1 1")
    assert _call(dis, "Set3 4,Set3 2,Wild#1,Set4 1", ind=1) == code("Set4 1")
    assert _call(dis, "Set3 4,Set3 2,Set3 1", ind=2) == code("Set3 1")  # all target: lowest target
    assert _call(dis, "Set3 4,Set1 2,Set2 1,Set4 1", forced=1) == -1  # B7
    bid = P.collector_bid
    for ind, raises in ((0, [1, 1, 1]), (1, [1, 1, 1]), (2, [1, 0, 0]), (3, [0, 0, 0]), (4, [0, 0, 0])):
        assert [_call(bid, "Set1 1", ind=ind, bid=b) for b in (1, 2, 3)] == raises
    ch = P.collector_challenge
    assert _call(ch, "Set1 4,Set1 5,Set1 6,Set2 6") == 1  # 15
    assert _call(ch, "Set1 3,Set1 5,Set1 6,Set2 6") == 0  # 14


def test_bidder_with_collector_parameters_plays_exactly_like_collector():
    eq = {"name": "bidder", **P.COLLECTOR_EQUIVALENT}
    a = G.simulate_chunk(setup("game", [eq, "collector", eq, "random"]), root_key(12), 0, 60)
    b = G.simulate_chunk(setup("game", ["collector", "collector", "collector", "random"]), root_key(12), 0, 60)
    for k in a:
        assert a[k].equals(b[k])


def test_bidder_parameters_change_play():
    # first_at 5: pays for the first Indicator with five target cards (the default, 6, never does)
    base = G.simulate_chunk(setup("hand", [{"name": "bidder", "first_at": 5}] + ["collector"] * 3),
                            root_key(13), 0, 400)["hands"]
    never = G.simulate_chunk(setup("hand", [{"name": "bidder", "first_at": 9}] + ["collector"] * 3),
                             root_key(13), 0, 400)["hands"]
    assert (never["first_indicator"] != 0).all()
    assert (base["first_indicator"] == 0).any()
    noch = G.simulate_chunk(setup("hand", [{"name": "bidder", "challenge_at": 99}] + ["collector"] * 3),
                            root_key(13), 0, 400)["hands"]
    assert not noch["challenged_s0"].any() and base["challenged_s0"].any()


# -- kernel contract ------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["hand", "game", "tournament"])
def test_determinism_and_chunk_independence(variant):
    s = setup(variant, ["bidder", "random", "collector", "random"])
    n = 10 if variant != "tournament" else 4
    whole = G.simulate_chunk(s, root_key(31), 0, n)
    again = G.simulate_chunk(s, root_key(31), 0, n)
    parts = [G.simulate_chunk(s, root_key(31), 0, 4), G.simulate_chunk(s, root_key(31), 4, n - 4)]
    for t in whole:
        assert whole[t].equals(again[t])
        assert whole[t].equals(pl.concat([p[t] for p in parts]))


def test_same_game_index_same_first_deal_whatever_the_policies():
    a = G.trace(setup("hand", ["random"] * 4), root_key(5), 7, 1)
    b = G.trace(setup("hand", COLLECTORS), root_key(5), 7, 1)
    assert [e for e in a if e["event"] == "deal"] == [e for e in b if e["event"] == "deal"]


def test_buffers_grow_when_a_chunk_has_many_hands():
    s = setup("game", target=400)
    t = G.simulate_chunk(s, root_key(2), 0, 30)
    assert t["hands"].height > 30 * 6 and t["games"].height == 30


def test_trace_is_json_and_every_event_kind_describes():
    import json

    seen = set()
    for v, pols, n in (("tournament", ["bidder", "collector", "random", "collector"], 1),
                       ("game", ["random"] * 4, 2)):
        for e in G.trace(setup(v, pols), root_key(0), 0, n):
            json.loads(json.dumps(e))
            assert isinstance(G.describe_event(e), str)
            seen.add(e["event"])
    r = play_state(setup(), hands=CHALLENGE_HANDS, deck="Set8 1", boards=(3, 3, 3, 2), last=3)
    seen |= {e["event"] for e in r["events"]}
    cut = G.trace(setup("game", turn_cap=3, max_hands=1), root_key(0), 0, 1)
    seen |= {e["event"] for e in cut}
    assert seen == set(S.EV_NAMES)


def test_summaries_outcomes_progress_headline_every_variant():
    for v, n in (("hand", 300), ("game", 40), ("tournament", 4)):
        s = setup(v, ["bidder", "collector", "collector", "collector"])
        frames = G.simulate_chunk(s, root_key(3), 0, n)
        assert set(frames) == {"hands", "games", "tournaments"}  # the runner expects every table
        assert (frames["games"].height == 0) == (v == "hand")
        assert (frames["tournaments"].height == 0) == (v != "tournament")
        tables = {k: f.lazy() for k, f in frames.items()}
        out = G.outcomes(tables, s).collect()
        assert out.height == 4 * n
        assert (out.drop_nulls("win").group_by("game").agg(pl.col("win").sum())["win"] - 1).abs().max() < 1e-9
        if v != "tournament":
            assert (out.group_by("game").agg(pl.col("dealer").sum(), pl.col("first").sum())
                    .select(pl.col("dealer") == 1, pl.col("first") == 1).to_series().all())
        for title, frame in G.summarize(tables, s):
            assert isinstance(title, str) and frame.height > 0
        prog = G.progress(tables, s)
        if v == "hand":
            assert prog is None
        else:
            steps, winners = (x.collect() for x in prog)
            assert steps.height > 0 and winners.height > 0
            last = steps.sort("step").group_by("game", "side").agg(pl.col("score").last())
            top = last.group_by("game").agg(pl.col("score").max())
            assert top.join(winners, on="game").height == winners.height
        assert "seat 0 (bidder)" in G.headline(tables, s)
        assert G.figures(tables, s)


def test_scenarios_load():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "scenarios"
    files = sorted(root.glob("fourbid*.toml"))
    assert files
    for f in files:
        sc = load(f)
        assert sc.game == "fourbid"
        G.simulate_chunk(sc.setup, root_key(sc.seed), 0, 3)


def test_tournament_needs_max_games_at_least_tournament_wins():
    with pytest.raises(ScenarioError, match="max_games"):
        setup("tournament", max_games=2, tournament_wins=3)


# -- plug-ins -------------------------------------------------------------------------------------
PLUGIN = textwrap.dedent('''
    import numba
    from cardsim.games.fourbid.state import P_FORCED

    tester_params = {"mode": 0.0}

    @numba.njit
    def tester_acquire(seat, hand, nh, cnt, pts, pub, cset, cval, params, rng):
        return 1 if params[0] == 1.0 else 0

    @numba.njit
    def tester_discard(seat, hand, nh, cnt, pts, pub, cset, cval, params, rng):
        if params[0] == 5.0:
            return hand[0]
        if params[0] == 2.0 or pub[P_FORCED] == 1:
            return -1
        if params[0] == 3.0:
            return 99
        return hand[0]

    @numba.njit
    def tester_bid(seat, bid, hand, nh, cnt, pts, pub, cset, cval, params, rng):
        return 7 if params[0] == 4.0 else 0

    @numba.njit
    def tester_challenge(seat, hand, nh, cnt, pts, pub, cset, cval, params, rng):
        return 1
''')


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    path = tmp_path_factory.mktemp("plug") / "fourbid_tester.py"
    path.write_text(PLUGIN)
    return f"{path}:tester"


def test_plugin_policy_runs(plugin):
    s = setup("game", [plugin, "collector", "collector", "collector"])
    assert s.seats[0].plugin and s.seats[0].param_names == ("mode",)
    t = G.simulate_chunk(s, root_key(1), 0, 5, debug=True)
    assert t["games"].height == 5
    assert (t["hands"]["first_indicator"] != 0).all()  # the tester never plays an Indicator unforced


@pytest.mark.parametrize(("mode", "seat_policies", "match"), [
    (1.0, "all", r"decision 'acquire'.*discard pile is empty"),
    (3.0, "all", r"returned 99 at decision 'discard'.*OceanLife card code in hand"),
    (4.0, "one", r"returned 7 at decision 'bid'"),
])
def test_illegal_plugin_actions_raise(plugin, mode, seat_policies, match):
    p = {"name": plugin, "mode": mode}
    pols = [p] * 4 if seat_policies == "all" else ["collector", "collector", "collector", p]
    with pytest.raises(PolicyError, match=match):
        G.simulate_chunk(setup("game", pols), root_key(1), 0, 3)


def test_illegal_going_out_attempt_raises(plugin):
    """Seat 0 (1-3 down, only 3 of Set2 after the acquire) tries to play the 4: illegal (B8)."""
    s = setup("hand", [{"name": plugin, "mode": 2.0}, "collector", "collector", "collector"])
    with pytest.raises(PolicyError, match=r"decision 'discard'.*next Indicator is not legal now, B8"):
        play_state(s, hands=["Set2 2,Set2 3,Set2 5,Set1 1,Set3 1,Set4 1,Set5 1",
                             "Set1 2,Set3 2,Set4 2,Set5 2,Set6 2,Set7 2,Set8 2",
                             "Set6 1,Set7 1,Set8 1,Set1 4", "Set6 3,Set7 3,Set8 3,Set1 5"],
                   deck="Set8 6", boards=(3, 3, 0, 0), last=3, two_down=False)


def test_illegal_discard_when_rule2_forces_an_indicator(plugin):
    """Seat 1 (no Indicator, a 2 is down) completes a turn and discards a card: refused (B7)."""
    s = setup("hand", ["collector", {"name": plugin, "mode": 5.0}, "collector", "collector"])
    with pytest.raises(PolicyError, match=r"seat 1 returned \d+ at decision 'discard'.*-1 only \(Special Rule 2"):
        play_state(s, hands=["Set1 1,Set2 2,Set3 3,Set4 4,Set5 5,Set6 6", "Set1 2,Set2 3,Set3 4,Set4 5",
                             "Set6 1,Set7 2,Set8 3,Set1 4,Set2 5,Set5 1,Set5 2",
                             "Set6 2,Set7 3,Set8 4,Set1 5,Set2 6,Set3 6,Set4 6"],
                   deck="Set8 1,Set8 2", boards=(2, 0, 3, 3), last=0)


# -- interpreted kernel ------------------------------------------------------------------------
INTERP = """
import sys
from cardsim.games import get_game
from cardsim.scenario import build_setup
from cardsim.rng import root_key
g = get_game("fourbid")
s = build_setup(g, "game", None, ["bidder", "random", "collector", "random"])
for t, f in g.simulate_chunk(s, root_key(41), 0, 2, debug=True).items():
    f.write_parquet(sys.argv[1] + "/" + t + ".parquet")
"""


def test_interpreted_kernel_matches_compiled(tmp_path):
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", INTERP, str(tmp_path)], env=env, check=True,
                   cwd=os.path.dirname(os.path.dirname(__file__)))
    s = build_setup(G, "game", None, ["bidder", "random", "collector", "random"])
    compiled = G.simulate_chunk(s, root_key(41), 0, 2)
    for t, f in compiled.items():
        assert f.equals(pl.read_parquet(tmp_path / f"{t}.parquet")), t


def test_trace_survives_buffer_growth():
    """A traced game with more hands than the first row buffer holds is replayed once, not twice."""
    s = setup("game", target=400)
    ev = G.trace(s, root_key(2), 0, 1)
    hands = [e for e in ev if e["event"] == "hand"]
    assert [e["hand"] for e in hands] == list(range(len(hands))) and len(hands) > 16


def test_a_table_where_nobody_opens_is_refused_unless_its_caps_are_small():
    # B6: a hand starts when a seat plays its first Indicator; the bidder defaults (first_at 6, found
    # against collectors) never do, so four of them would play every hand to turn_cap
    with pytest.raises(ScenarioError, match=r"no seat ever plays a hand's first Indicator.*first_at <= 5"):
        build_setup(G, "game", None, ["bidder"] * 4)
    build_setup(G, "game", None, ["bidder"] * 3 + ["collector"])
    build_setup(G, "game", None, ["bidder"] * 3 + [{"name": "bidder", "first_at": 5}])
    build_setup(G, "game", None, ["bidder"] * 4, {"max_hands": 100, "turn_cap": 400})


def test_points_a_hand_are_never_0_0_and_stay_within_the_rules_bounds():
    """A seat that never spent a point in the run printed spent 0 (0-0), and two hands printed earned
    -21 to 42 and spent -47 to 55. Points come in chunks (a bid of 1-4 x an Indicator, 4 for Special
    Rule 1 or a challenge), so a count's Poisson floor is wrong: the interval is cut to the rules'
    bounds (points_bounds), and where no game differed it is Clopper-Pearson's upper end at 0 of the
    games times the most a hand can spend (coverage case "bounded points mean")."""
    from cardsim.games.fourbid.game import points_bounds
    from cardsim.stats import _cp_interval

    s = setup("hand", ["bidder", "collector", "collector", "collector"])
    b = points_bounds(s)
    assert b["earned"] == (0.0, 21.0)  # the 6 cards of one set, 1-6
    assert b["spent"] == (0.0, 4 + 4 + 12 * 2000) and b["net"] == (-b["spent"][1], 21.0 + 24)
    frames = G.simulate_chunk(s, root_key(3), 0, 2)
    h = frames["hands"]
    hands = h.with_columns(out=pl.lit(3), spent_s0=0, earned_s0=0, earned_s1=pl.Series([1, 20]),
                           spent_s1=pl.Series([0, 40])).cast(h.schema)  # seat 0 never scores
    tables = {k: f.lazy() for k, f in {**frames, "hands": hands}.items()}
    per = next(f for t, f in G.summarize(tables, s) if t.startswith("Net, earned"))
    r0, r1 = per.row(0, named=True), per.row(1, named=True)
    up = _cp_interval(0, 2, 0.05)[1] * b["spent"][1]
    assert r0["spent_lo"] == 0.0 and r0["spent_hi"] == pytest.approx(up)
    assert r0["earned_hi"] == pytest.approx(_cp_interval(0, 2, 0.05)[1] * 21.0)
    assert r1["earned_lo"] >= 0.0 and r1["earned_hi"] <= 21.0 and r1["spent_lo"] >= 0.0
    assert r1["net_lo"] >= b["net"][0] and r1["net_hi"] <= b["net"][1]
