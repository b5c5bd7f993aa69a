"""FUBNUB modes on constructed deals: Lucky Ghost (F12), Battle Royal (F13), Solo (F14) and
Full Deck (F15), one test per rule and per action-card meaning.

A deal is built by hand: ``stack[0]`` is the number deck the players draw from for the first
deal (seat ``s`` draws card ``s``; ghosts do not draw), ``stack[h + 1]`` the deck of hand ``h``,
dealt one card at a time from the dealer's next seat in the play direction; ``pstack`` is the
point deck and ``astack`` the Full Deck action stack, top first.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cardsim.errors import PolicyError, ScenarioError
from cardsim.games.fubnub import cards
from cardsim.games.fubnub.game import GAME
from cardsim.scenario import build_setup

C = cards.card_code
K = cards.KIND_NAMES.index
A = cards.ACTION_NAMES.index

# hands used again and again (point card Natural: 6s > 5s > ..., Gold > Green > Purple > Red)
TOP5 = ["Gold 6", "Green 6", "Purple 6", "Red 6", "Gold 5"]
# a greedy deal (dealer 0) whose tricks go 2-2-1-0 to seats 1, 2, 3, 0: seat 1 wins tricks 1-2,
# seat 2 tricks 3-4, seat 3 trick 5 (F13 ties)
TIE_HANDS = {1: ["Gold 6", "Green 6", "Red 1", "Purple 1", "Green 1"],
             2: ["Purple 6", "Red 6", "Gold 5", "Green 5", "Gold 1"],
             3: ["Gold 4", "Green 4", "Purple 4", "Red 4", "Gold 3"],
             0: ["Purple 5", "Red 5", "Green 3", "Purple 3", "Red 3"]}


def draw(first: dict[int, str]) -> list[int]:
    """The draw for the first deal: seat s draws ``first[s]`` (F4)."""
    top = [C(first[s]) for s in sorted(first)]
    rest = [c for c in range(24) if c not in top]
    deck = []
    for s in range(4):
        deck.append(C(first[s]) if s in first else rest.pop(0))
    return deck + rest


def deal(dealer: int, hands: dict[int, list[str]], n: int = 4, undealt: list[str] | None = None,
         direction: int = 1) -> list[int]:
    """The deck that deals ``hands`` (seat -> 5 names, in dealing order) at a table of ``n`` seats;
    seats not given get the lowest free cards; ``undealt`` are the first undealt cards."""
    deck = [-1] * 24
    for s, names in hands.items():
        for j, name in enumerate(names):
            deck[j * n + ((s - dealer) * direction - 1) % n] = C(name)
    for u, name in enumerate(undealt or []):
        deck[5 * n + u] = C(name)
    free = iter([c for c in range(24) if c not in deck])
    deck = [c if c >= 0 else next(free) for c in deck]
    assert sorted(deck) == list(range(24))
    return deck


def run(variant, players, stack, points=(), actions=(), policies="greedy", rules=None, seed=7):
    setup = build_setup(GAME, variant, players, policies, rules or {})
    deck = list(setup.knob("point_deck"))
    order = [K(p) for p in points]
    rest = [K(n) for n in deck]
    for o in order:
        rest.remove(o)
    ps = np.array(order + rest, np.int64)
    ast = None
    if variant == "full_deck":
        acts = [int(a) for a in cards.action_stack(tuple(setup.knob("remove_actions")))]
        top = [A(a) for a in actions]
        for t in top:
            acts.remove(t)
        ast = np.array(top + acts, np.int64)
    return GAME.trace(setup, seed, 0, 1, stack=np.array(stack, np.int64), pstack=ps, astack=ast)


def of(events, kind, **match):
    return [e for e in events if e["event"] == kind and all(e.get(k) == v for k, v in match.items())]


def hand(events, h):
    """The events of hand ``h``."""
    out, on = [], False
    for e in events:
        if e["event"] == "dealer":
            on = e["hand"] == h
        if on:
            out.append(e)
    return out


def plays(events, seat):
    return [e["card"] for e in of(events, "play", seat=seat)]


# ---------------------------------------------------------------------------------------------
# F12 Lucky Ghost
# ---------------------------------------------------------------------------------------------
def test_F12_only_players_draw_ghosts_never_deal():
    # two players: seats 0 and 1 draw; ghosts 2 and 3 never deal; the deal skips them (0, 1, 0, ...)
    stack = [draw({0: "Red 1", 1: "Gold 6"})]
    ev = run("lucky_ghost", 2, stack, rules={"max_hands": 4})
    assert [e["seat"] for e in of(ev, "draw_for_deal")] == [0, 1]
    dealers = [e["seat"] for e in of(ev, "dealer")]
    assert dealers[0] == 1 and set(dealers) <= {0, 1}
    # one player always deals
    ev1 = run("lucky_ghost", 1, [draw({0: "Red 1"})], rules={"max_hands": 3})
    assert [e["seat"] for e in of(ev1, "draw_for_deal")] == [0]
    assert {e["seat"] for e in of(ev1, "dealer")} == {0}


def test_F12_ghosts_always_pass_and_play_the_top_of_their_stack():
    # dealer 0 (one player); ghost seat 1 holds the five best Natural cards: it still passes
    hands = {1: TOP5, 0: ["Green 5", "Purple 5", "Red 5", "Gold 4", "Green 4"]}
    stack = [draw({0: "Gold 6"}), deal(0, hands)]
    ev = hand(run("lucky_ghost", 1, stack, points=["Natural"], rules={"max_hands": 1}), 0)
    dec = [(e["seat"], e["choice"]) for e in of(ev, "decision")]
    assert dec[:3] == [(1, "pass"), (2, "pass"), (3, "pass")] and dec[3] == (0, "play")
    # the stack is dealt face down: the last card dealt to a ghost is on top and is played first
    assert plays(ev, 1) == list(reversed(TOP5))
    assert plays(ev, 2) == list(reversed(of(ev, "deal", seat=2)[0]["cards"]))


def test_F12_teams_stay_across_the_table_ghost_partner_counts():
    # seat 0 (player) calls; its ghost partner seat 2 holds the top five: team 0 wins 5-0
    hands = {2: TOP5, 0: ["Green 5", "Purple 5", "Red 5", "Gold 4", "Green 4"]}
    stack = [draw({0: "Gold 6"}), deal(0, hands)]
    ev = run("lucky_ghost", 1, stack, points=["Natural"], rules={"max_hands": 1})
    h = of(ev, "hand")[0]
    assert h["caller"] == 0 and h["winner_team"] == 0 and h["tricks_t0"] == 5 and h["swept"]


def test_F12_after_a_fub_the_winning_teams_player_deals():
    # two players, dealer 0; seat 1 (player) calls with two top-8 cards; team 0 (seat 0 + ghost 2)
    # holds better cards and wins: a fub. The caller's left is ghost seat 2, so its partner seat 0
    # deals with a double advantage.
    hands = {1: ["Purple 6", "Red 6", "Red 1", "Red 2", "Red 3"],
             0: ["Gold 6", "Green 6", "Gold 5", "Green 5", "Purple 5"],
             2: ["Red 5", "Gold 4", "Green 4", "Purple 4", "Red 4"]}
    stack = [draw({0: "Gold 6", 1: "Red 1"}), deal(0, hands)]
    ev = run("lucky_ghost", 2, stack, points=["Natural", "Natural"], rules={"max_hands": 2})
    h = of(ev, "hand")[0]
    assert h["caller"] == 1 and h["fubbed"] and h["winner_team"] == 0
    assert (of(ev, "dealer")[1]["seat"], of(ev, "dealer")[1]["advantage"]) == (0, "double")


def test_F12_fub_won_by_a_team_of_ghosts_deal_moves_on_single():
    # one player: seat 0 calls and loses to the ghosts of team 1: nobody of that team can deal;
    # the deal moves to the next player (seat 0 again) with a single advantage (RULES_NOTES)
    hands = {0: ["Purple 6", "Red 6", "Red 1", "Red 2", "Red 3"],
             1: ["Gold 6", "Green 6", "Gold 5", "Green 5", "Purple 5"],
             3: ["Red 5", "Gold 4", "Green 4", "Purple 4", "Red 4"]}
    stack = [draw({0: "Gold 6"}), deal(0, hands)]
    ev = run("lucky_ghost", 1, stack, points=["Natural", "Natural"], rules={"max_hands": 2})
    h = of(ev, "hand")[0]
    assert h["caller"] == 0 and h["fubbed"] and h["winner_team"] == 1
    assert (of(ev, "dealer")[1]["seat"], of(ev, "dealer")[1]["advantage"]) == (0, "single")


def test_F12_partner_policy_ducks_under_a_winning_ghost_partner():
    # dealer 0, one player; ghost seat 1 leads its top card (Red 5, last dealt); ghost seat 2 (the
    # player's partner) plays Gold 6 on top; ghost 3 plays; the player (partner policy) sees its
    # partner winning and plays its lowest card
    hands = {1: ["Red 1", "Red 2", "Red 3", "Red 4", "Red 5"], 2: ["Red 6", "Purple 1", "Purple 2", "Purple 3", "Gold 6"],
             3: ["Green 1", "Green 2", "Green 3", "Green 4", "Green 5"], 0: ["Green 6", "Purple 6", "Gold 5", "Gold 1",
                                                                            "Purple 4"]}
    stack = [draw({0: "Gold 6"}), deal(0, hands, undealt=["Gold 2", "Gold 3", "Gold 4", "Purple 5"])]
    ev = hand(run("lucky_ghost", 1, stack, points=["Natural"], policies="partner", rules={"max_hands": 1}), 0)
    t1 = [(e["seat"], e["card"]) for e in of(ev, "play", trick=1)]
    assert t1[:3] == [(1, "Red 5"), (2, "Gold 6"), (3, "Green 5")]
    # the dealer swapped its lowest card (Gold 1) for the top undealt card (Gold 2), now its lowest
    assert [(e["out"], e["in"]) for e in of(ev, "swap")] == [("Gold 1", "Gold 2")]
    assert t1[3] == (0, "Gold 2")


def test_F12_outcomes_have_rows_for_players_only():
    for players in (1, 2, 3):
        s = build_setup(GAME, "lucky_ghost", players, "partner")
        t = {k: v.lazy() for k, v in GAME.simulate_chunk(s, 3, 0, 40).items()}
        out = GAME.outcomes(t, s).collect()
        assert out.height == 40 * players and set(out["seat"].to_list()) == set(range(players))
        g = t["games"].collect()
        assert (g["winner"] >= 0).all()
        assert GAME.ghost_seats(s) == 4 - players


# ---------------------------------------------------------------------------------------------
# F13 Battle Royal
# ---------------------------------------------------------------------------------------------
def test_F13_every_point_card_in_play_no_decision_no_swap_game_ends_when_deck_used_up():
    s = build_setup(GAME, "battle_royal", 4, "greedy", {"point_cards": 5})
    ev = GAME.trace(s, 3, 0, 1)
    assert not of(ev, "decision") and not of(ev, "swap") and not of(ev, "misdeal")
    assert [e["round"] for e in of(ev, "reveal")] == [1] * 5
    assert len(of(ev, "dealer")) == 5 and of(ev, "game")[0]["hands"] == 5
    t = GAME.simulate_chunk(s, 3, 0, 200)
    g = t["games"]
    assert (g["hands"] == 5).all() and not g["unfinished"].any()
    total = g["points_s0"] + g["points_s1"] + g["points_s2"] + g["points_s3"] + g["limbo_left"] + g["discarded"]
    assert (total == 5).all()
    h = t["hands"]
    assert (h["caller"] == -1).all() and (h["swaps"] == 0).all() and not h["swept"].any() and not h["fubbed"].any()


def test_F13_most_tricks_wins_deal_moves_left():
    stack = [draw({0: "Gold 6"}), deal(0, {2: TOP5}), deal(1, {3: TOP5})]
    ev = run("battle_royal", 4, stack, points=["Natural", "Natural", "Natural"], rules={"point_cards": 3})
    hs = of(ev, "hand")
    assert hs[0]["winner"] == 2 and hs[0]["tricks"] == [0, 0, 5, 0]
    assert hs[1]["winner"] == 3
    assert [e["seat"] for e in of(ev, "dealer")] == [0, 1, 2]
    # no teams: partners do not exist, every seat plays for itself
    assert of(ev, "score")[1]["points"] == [0, 0, 1, 1]


def test_F13_partner_without_a_partner_plays_highest_unless_beaten():
    """The reference partner in individual play (no partner to duck under): the highest card when it
    beats the winning card (or on the lead), else the lowest. The kernel computes it without a
    branch, from the winning card's position it holds (Game.dispatcher_hints)."""
    # dealer 0, seat 1 leads; Natural: 6s > 5s > ..., Gold > Green > Purple > Red
    hands = {1: ["Green 6", "Red 1", "Purple 1", "Green 1", "Gold 1"],
             2: ["Gold 6", "Red 2", "Purple 2", "Green 2", "Gold 2"],
             3: ["Purple 5", "Red 3", "Purple 3", "Green 3", "Gold 3"],
             0: ["Gold 5", "Red 4", "Purple 4", "Green 4", "Gold 4"]}
    stack = [draw({0: "Red 6"}), deal(0, hands)]
    ev = hand(run("battle_royal", 4, stack, points=["Natural"], policies="partner", rules={"point_cards": 1}), 0)
    t1 = [(p["seat"], p["card"]) for p in of(ev, "play", trick=1)]
    # seat 1 leads its highest; seat 2 beats it with Gold 6; seats 3 and 0 cannot beat Gold 6: lowest
    assert t1 == [(1, "Green 6"), (2, "Gold 6"), (3, "Red 3"), (0, "Red 4")]
    # seat 2 leads Gold 2; seat 3's highest (Purple 5) beats it; seat 0's Gold 5 beats Purple 5;
    # seat 1's highest is Gold 1: beaten, so its lowest
    t2 = [(p["seat"], p["card"]) for p in of(ev, "play", trick=2)]
    assert t2 == [(2, "Gold 2"), (3, "Purple 5"), (0, "Gold 5"), (1, "Red 1")]


def test_F13_tie_limbo_goes_to_the_next_hands_winner():
    stack = [draw({0: "Gold 6"}), deal(0, TIE_HANDS), deal(1, {3: TOP5})]
    ev = run("battle_royal", 4, stack, points=["Natural", "Twos", "Natural"], rules={"point_cards": 3})
    h0, h1 = of(ev, "hand")[:2]
    assert h0["tricks"] == [0, 2, 2, 1] and h0["tie"] and h0["winner"] == -1 and h0["limbo"] == 1
    assert of(ev, "limbo")[0]["point_card"] == "Natural"
    assert h1["winner"] == 3 and h1["limbo"] == 0
    assert of(ev, "claim_limbo")[0] == {"event": "claim_limbo", "game": 0, "seat": 3, "point_cards": 1,
                                        "reason": "hand"}
    assert of(ev, "score")[1]["points"] == [0, 0, 0, 2]


def test_F13_tie_discard_and_last_trick_knobs():
    stack = [draw({0: "Gold 6"}), deal(0, TIE_HANDS)]
    ev = run("battle_royal", 4, stack, points=["Natural"], rules={"point_cards": 1, "tie_rule": "discard"})
    assert of(ev, "discard")[0]["point_card"] == "Natural" and of(ev, "hand")[0]["limbo"] == 0
    g = of(ev, "game")[0]
    assert g["tie"] and g["winner"] == -1  # nobody has a point card: a four-way tie at 0
    # last_trick: among the tied seats 1 and 2, seat 2 won the later trick (trick 4)
    ev2 = run("battle_royal", 4, stack, points=["Natural"], rules={"point_cards": 1, "tie_rule": "last_trick"})
    h = of(ev2, "hand")[0]
    assert h["tie"] and h["winner"] == 2
    assert of(ev2, "game")[0]["winner"] == 2


def test_F13_limbo_left_at_the_end_goes_to_nobody_and_ties_are_ties():
    stack = [draw({0: "Gold 6"}), deal(0, {1: TOP5}), deal(1, {2: TOP5}), deal(2, TIE_HANDS)]
    # hand 2 is dealt by seat 2, so shift the tie deal: build it for dealer 2 with the same holdings
    stack[3] = deal(2, {(s + 2) % 4: h for s, h in TIE_HANDS.items()})
    ev = run("battle_royal", 4, stack, points=["Natural"] * 3, rules={"point_cards": 3})
    assert of(ev, "hand")[2]["tie"] and of(ev, "hand")[2]["winner"] == -1
    g = of(ev, "game")[0]
    assert g["limbo_left"] == 1 and g["tie"] and g["winner"] == -1
    assert of(ev, "score")[-1]["points"] == [0, 1, 1, 0]


@pytest.mark.parametrize(("players", "undealt"), [(2, 14), (3, 9), (4, 4)])
def test_F13_five_cards_each_rest_undealt(players, undealt):
    s = build_setup(GAME, "battle_royal", players, "greedy", {"point_cards": 1})
    ev = GAME.trace(s, 5, 0, 1)
    assert len(of(ev, "deal")) == players and all(len(e["cards"]) == 5 for e in of(ev, "deal"))
    # the trace: one undealt event naming them all, and each seat's tricks (no padding to four)
    assert [len(e["cards"]) for e in of(ev, "undealt")] == [undealt]
    dealt = [c for e in of(ev, "deal") for c in e["cards"]] + of(ev, "undealt")[0]["cards"]
    assert sorted(dealt, key=C) == [cards.card_name(c) for c in range(24)]
    assert len(of(ev, "hand")[0]["tricks"]) == players == len(of(ev, "score")[0]["points"])
    assert sum(of(ev, "hand")[0]["tricks"]) == 5
    assert len(of(ev, "draw_for_deal")) == players
    assert {e["seat"] for e in of(ev, "play")} == set(range(players))


def test_F13_outcomes_share_ties():
    s = build_setup(GAME, "battle_royal", 3, "random", {"point_cards": 3})
    t = {k: v.lazy() for k, v in GAME.simulate_chunk(s, 8, 0, 300).items()}
    out = GAME.outcomes(t, s).collect()
    per = out.group_by("game").agg(pl.col("win").sum())
    assert (per["win"] - 1).abs().max() < 1e-9  # every seat is a player: the wins of a game add to 1
    g = t["games"].collect()
    assert g["tie"].any() and (g.filter(pl.col("tie"))["winner"] == -1).all()


# ---------------------------------------------------------------------------------------------
# F14 Solo
# ---------------------------------------------------------------------------------------------
def test_F14_solo_one_player_against_three_ghosts_individual_play():
    hands = {0: TOP5}
    stack = [draw({0: "Red 1"}), deal(0, hands), deal(0, {2: TOP5})]
    ev = run("solo", 1, stack, points=["Natural", "Natural", "Natural"], rules={"point_cards": 3})
    assert [e["seat"] for e in of(ev, "draw_for_deal")] == [0]
    assert {e["seat"] for e in of(ev, "dealer")} == {0}  # ghosts never deal
    assert not of(ev, "decision") and not of(ev, "swap")
    h0 = hand(ev, 0)
    for g in (1, 2, 3):  # ghosts play their stacks from the top (the last card dealt)
        assert plays(h0, g) == list(reversed(of(h0, "deal", seat=g)[0]["cards"]))
    assert of(ev, "hand")[0]["winner"] == 0 and of(ev, "hand")[1]["winner"] == 2
    s = build_setup(GAME, "solo", 1, "partner")
    assert GAME.ghost_seats(s) == 3
    t = {k: v.lazy() for k, v in GAME.simulate_chunk(s, 4, 0, 100).items()}
    out = GAME.outcomes(t, s).collect()
    assert out.height == 100 and (out["seat"] == 0).all()


# ---------------------------------------------------------------------------------------------
# F15 Full Deck: the point-card winner reveals an action card before the next hand's play
# ---------------------------------------------------------------------------------------------
NOADV = {"advantage": "none"}


def fd(hand1: dict[int, list[str]] | None = None, actions=("Dance",), rules=None, policies="greedy",
       undealt1: list[str] | None = None, more=(), points=None):
    """Seat 0 deals hand 0 and seat 1 takes all five tricks; seat 1 deals hand 1 and reveals
    ``actions[0]`` before its play; ``more`` are decks of later hands."""
    stack = [draw({0: "Gold 6"}), deal(0, {1: TOP5}), deal(1, hand1 or {}, undealt=undealt1), *more]
    r = {"point_cards": 3, **(rules or {})}
    return run("full_deck", 4, stack, points=points or ["Natural"] * 3, actions=actions, policies=policies, rules=r)


def test_F15_winner_reveals_before_next_play_performance_cards_do_nothing():
    ev = fd(actions=["Dance"], rules=NOADV)
    h1 = hand(ev, 1)
    a = of(h1, "action_card")[0]
    assert a["seat"] == 1 and a["card"] == "Dance" and a["effect"] == "none"
    kinds = [e["event"] for e in h1]
    assert kinds.index("reveal") < kinds.index("action_card") < kinds.index("play")
    assert not of(hand(ev, 0), "action_card")  # nobody won a point card before hand 0
    assert not of(h1, "swap") and not of(h1, "advantage")


def test_F15_revealer_takes_a_single_advantage_by_default():
    # reading: the revealer holds this hand's dealer advantage (one blind swap, F7 mechanics)
    h = {1: ["Gold 6", "Green 6", "Red 1", "Gold 5", "Green 5"]}
    ev = hand(fd(h, actions=["Dance"], undealt1=["Purple 3", "Gold 2", "Green 2", "Purple 2"]), 1)
    assert of(ev, "advantage")[0] == {"event": "advantage", "game": 0, "seat": 1, "swaps": 1}
    assert [(e["seat"], e["out"], e["in"]) for e in of(ev, "swap")] == [(1, "Red 1", "Purple 3")]


def test_F15_skip_puts_the_point_card_just_won_in_limbo_for_the_next_winner():
    ev = fd({3: TOP5}, actions=["Skip"], rules=NOADV)
    h1 = hand(ev, 1)
    lb = of(h1, "limbo")[0]
    assert lb["seat"] == 1 and lb["reason"] == "skip" and lb["limbo"] == 1
    assert of(h1, "hand")[0]["winner"] == 3
    assert of(h1, "score")[0]["points"] == [0, 0, 0, 2]


def test_F15_eliminated_each_player_may_swap_blind_with_the_dealer():
    # hand 1: dealer seat 1; seats 2, 3, 0 in turn give their lowest card (greedy: not in the top 12)
    # for a blind card of the dealer's hand
    h = {2: ["Gold 6", "Red 1", "Gold 5", "Gold 4", "Green 4"], 3: ["Green 6", "Red 2", "Green 5", "Purple 4", "Red 4"],
         0: ["Purple 6", "Red 3", "Purple 5", "Red 5", "Gold 3"]}
    ev = hand(fd(h, actions=["Eliminated"], rules=NOADV), 1)
    picks = of(ev, "eliminated_pick")
    assert [(p["seat"], p["gave"], p["dealer"]) for p in picks] == [(2, "Red 1", 1), (3, "Red 2", 1), (0, "Red 3", 1)]
    dealt = set(of(ev, "deal", seat=1)[0]["cards"])
    given = set()
    for p in picks:
        assert p["took"] in dealt | given
        given.add(p["gave"])
    assert set(plays(ev, 1)) == (dealt | given) - {p["took"] for p in picks} | (
        {p["took"] for p in picks} & given)


def test_F15_no_reveal_the_player_plays_blind_like_a_ghost():
    h = {1: ["Red 1", "Gold 6", "Red 2", "Green 6", "Red 3"]}
    ev = hand(fd(h, actions=["No Reveal"], rules=NOADV), 1)
    assert of(ev, "no_reveal")[0]["seat"] == 1
    assert plays(ev, 1) == ["Red 3", "Green 6", "Red 2", "Gold 6", "Red 1"]


def test_F15_no_reveal_with_the_advantage_swaps_in_place_and_still_plays_the_stack():
    # The revealer keeps the single blind swap (advantage = revealer). It chooses on its ordered
    # cards (greedy: the lowest, Red 1, for the top undealt Purple 5), but its stack keeps the
    # dealt order: Purple 5 takes Red 1's place and comes up last.
    h = {1: ["Red 1", "Gold 6", "Red 2", "Green 6", "Red 3"]}
    ev = hand(fd(h, actions=["No Reveal"], undealt1=["Purple 5", "Green 5", "Purple 1", "Green 1"]), 1)
    assert [(e["out"], e["in"]) for e in of(ev, "swap", seat=1)] == [("Red 1", "Purple 5")]
    assert plays(ev, 1) == ["Red 3", "Green 6", "Red 2", "Gold 6", "Purple 5"]


def test_F15_peek_the_revealer_sees_every_hand():
    # hand 0 dealt by seat 2 (seat 1 still wins it), so seat 3 deals hand 1 and seat 0 leads it.
    # Seat 0 leads Red 6; seat 1 holds Gold 6 and Purple 6; seat 2 holds Green 6. Without Peek the
    # tactician beats Red 6 as cheaply as it can (Purple 6); with Peek it knows Green 6 is coming
    # and plays Gold 6.
    h1 = {0: ["Red 6", "Red 1", "Red 2", "Red 3", "Red 4"], 1: ["Gold 6", "Purple 6", "Purple 1", "Purple 2", "Purple 3"],
          2: ["Green 6", "Green 1", "Green 2", "Green 3", "Green 4"]}
    stack = [draw({2: "Gold 6", 0: "Red 1", 1: "Red 2", 3: "Red 3"}), deal(2, {1: TOP5}), deal(3, h1)]
    rules = {"point_cards": 3, **NOADV}
    ev = hand(run("full_deck", 4, stack, points=["Natural"] * 3, actions=["Peek"], policies="tactician",
                  rules=rules), 1)
    assert of(ev, "peek")[0]["seat"] == 1
    assert [(e["seat"], e["card"]) for e in of(ev, "play", trick=1)][:2] == [(0, "Red 6"), (1, "Gold 6")]
    ev2 = hand(run("full_deck", 4, stack, points=["Natural"] * 3, actions=["Dance"], policies="tactician",
                   rules=rules), 1)
    assert [(e["seat"], e["card"]) for e in of(ev2, "play", trick=1)][:2] == [(0, "Red 6"), (1, "Purple 6")]


def test_F15_do_over_keep_one_take_the_four_undealt():
    h = {1: ["Red 1", "Gold 6", "Red 2", "Red 3", "Red 4"]}
    und = ["Gold 5", "Green 5", "Purple 5", "Red 5"]
    ev = hand(fd(h, actions=["Do Over"], rules=NOADV, undealt1=und), 1)
    assert of(ev, "do_over")[0]["kept"] == "Gold 6"
    assert sorted(of(ev, "deal", seat=1)[-1]["cards"]) == sorted(["Gold 6", *und])
    assert sorted(plays(ev, 1)) == sorted(["Gold 6", *und])


def test_F15_do_over_gives_up_its_cards_in_dealt_order_then_the_blind_swap():
    # Seat 1 keeps Gold 6; the four it gives up become the undealt stack in the order they were
    # dealt (not in the order its decision saw them, highest first), so the advantage swap that
    # follows draws Green 1, the first of them, for its lowest card Purple 1.
    h = {1: ["Green 1", "Gold 6", "Red 2", "Red 3", "Red 4"]}
    ev = hand(fd(h, actions=["Do Over"], undealt1=["Gold 5", "Green 5", "Purple 5", "Purple 1"]), 1)
    assert of(ev, "do_over")[0]["kept"] == "Gold 6"
    # the trace names the undealt cards after the Do Over: the four given up, in dealt order
    assert of(ev, "undealt")[-1]["cards"] == ["Green 1", "Red 2", "Red 3", "Red 4"]
    assert [(e["out"], e["in"]) for e in of(ev, "swap", seat=1)] == [("Purple 1", "Green 1")]


def test_F15_rapid_fire_the_revealer_leads_every_trick():
    ev = hand(fd({2: TOP5}, actions=["Rapid Fire"], rules=NOADV), 1)
    assert of(ev, "rapid_fire")[0]["seat"] == 1
    for t in range(1, 6):
        assert of(ev, "play", trick=t)[0]["seat"] == 1
    assert {e["winner"] for e in of(ev, "trick")} == {2}


def test_F15_clean_up_claims_limbo():
    # limbo_award = claim: hand 0 is tied (limbo 1), seat 3 wins hand 1 (limbo stays), seat 3
    # reveals Clean Up before hand 2 and claims it
    stack = [draw({0: "Gold 6"}), deal(0, TIE_HANDS), deal(1, {3: TOP5}), deal(2, {})]
    ev = run("full_deck", 4, stack, points=["Natural"] * 3, actions=["Clean Up"],
             rules={"point_cards": 3, "limbo_award": "claim", **NOADV})
    assert of(ev, "hand")[1]["limbo"] == 1
    claim = of(hand(ev, 2), "claim_limbo")[0]
    assert claim["seat"] == 3 and claim["point_cards"] == 1 and claim["reason"] == "clean_up"
    assert of(hand(ev, 2), "score")[0]["points"][3] >= 2
    # with the default (next_winner) seat 3 took the limbo with hand 1's card: nothing left to claim
    ev2 = run("full_deck", 4, stack, points=["Natural"] * 3, actions=["Clean Up"], rules={"point_cards": 3, **NOADV})
    assert of(hand(ev2, 2), "claim_limbo")[0]["point_cards"] == 0
    assert of(ev2, "score")[1]["points"] == [0, 0, 0, 2]


def test_F15_pick_a_player_gives_the_advantage_to_another_player():
    # greedy picks the player with the fewest point cards, nearest on its left: seat 2
    h = {2: ["Gold 6", "Green 6", "Red 1", "Gold 5", "Green 5"], 1: ["Red 2", "Purple 1", "Green 1", "Gold 1", "Red 3"]}
    ev = hand(fd(h, actions=["Pick a Player"], undealt1=["Purple 3", "Gold 2", "Green 2", "Purple 2"]), 1)
    assert of(ev, "pick_a_player")[0] == {"event": "pick_a_player", "game": 0, "seat": 1, "picked": 2}
    assert of(ev, "advantage")[0]["seat"] == 2
    assert [(e["seat"], e["out"], e["in"]) for e in of(ev, "swap")] == [(2, "Red 1", "Purple 3")]


@pytest.mark.parametrize("card", ["Double Dip", "Recycle Bonus", "Refund"])
def test_F15_double_advantage(card):
    h = {1: ["Gold 6", "Green 6", "Red 1", "Red 2", "Gold 4"]}
    ev = hand(fd(h, actions=[card], undealt1=["Purple 5", "Green 5", "Purple 1", "Green 1"]), 1)
    assert of(ev, "advantage")[0]["swaps"] == 2
    assert [(e["out"], e["in"]) for e in of(ev, "swap", seat=1)] == [("Red 1", "Purple 5"), ("Red 2", "Green 5")]


@pytest.mark.parametrize("card", ["No Trash", "Partial Play"])
def test_F15_no_advantage(card):
    h = {1: ["Gold 6", "Green 6", "Red 1", "Red 2", "Gold 4"]}
    ev = hand(fd(h, actions=[card], undealt1=["Purple 5", "Green 5", "Purple 1", "Green 1"]), 1)
    assert not of(ev, "advantage") and not of(ev, "swap")


@pytest.mark.parametrize("card", ["Second Chance", "Slow Down"])
def test_F15_redeal_own_hand_with_the_undealt_cards_then_still_the_advantage(card):
    h = {1: ["Red 1", "Red 2", "Red 3", "Red 4", "Red 5"]}
    und = ["Gold 6", "Green 6", "Purple 6", "Red 6"]
    ev = hand(fd(h, actions=[card], undealt1=und), 1)
    assert of(ev, "redeal")[0]["seat"] == 1
    new = of(ev, "deal", seat=1)[-1]["cards"]
    assert set(new) <= set(h[1]) | set(und) and len(set(new)) == 5
    assert of(ev, "advantage")[0]["seat"] == 1 and of(ev, "advantage")[0]["swaps"] == 1


@pytest.mark.parametrize("card", ["Second Chance", "Slow Down"])
def test_F15_redeal_own_hand_grants_the_swap_with_advantage_none(card):
    # F15 with advantage = none: nobody holds a dealer advantage unless a card grants it, and
    # Second Chance / Slow Down do ("they still get the dealer advantage": one blind swap). Seat 1
    # redeals from nine low cards (none in the Natural top 12), so greedy swaps its lowest card
    # for the first undealt card after the redeal.
    h = {1: ["Red 1", "Red 2", "Red 3", "Purple 1", "Purple 2"]}
    und = ["Purple 3", "Green 1", "Green 2", "Green 3"]
    ev = hand(fd(h, actions=[card], undealt1=und, rules=NOADV), 1)
    kinds = [e["event"] for e in ev]
    assert kinds.index("redeal") < kinds.index("advantage") < kinds.index("swap") < kinds.index("play")
    assert of(ev, "advantage") == [{"event": "advantage", "game": 0, "seat": 1, "swaps": 1}]
    new = of(ev, "deal", seat=1)[-1]["cards"]
    after = of(ev, "undealt")[-1]["cards"]  # the undealt cards after the redeal, next to be drawn first
    assert sorted(new + after) == sorted(h[1] + und)
    lowest = min(new, key=C)  # Natural: the natural order (F1), codes ascending
    assert [(e["seat"], e["out"], e["in"]) for e in of(ev, "swap")] == [(1, lowest, after[0])]
    assert sorted(plays(ev, 1)) == sorted([c for c in new if c != lowest] + [after[0]])


@pytest.mark.parametrize("card", ["Never Happened", "No Way", "Shield"])
def test_F15_steal_an_earned_point_card(card):
    # seat 3 wins hand 0 (dealer 0), reveals Dance before hand 1 and loses hand 1 to seat 1;
    # seat 1 reveals the steal card before hand 2 and takes seat 3's point card (greedy: the
    # player with the most point cards)
    stack = [draw({0: "Gold 6"}), deal(0, {3: TOP5}), deal(1, {1: TOP5}), deal(2, {})]
    ev = run("full_deck", 4, stack, points=["Natural", "Twos", "Natural"], actions=["Dance", card],
             rules={"point_cards": 3, **NOADV})
    st = of(hand(ev, 2), "steal")[0]
    assert st == {"event": "steal", "game": 0, "seat": 1, "from": 3, "point_card": "Natural"}
    assert of(hand(ev, 2), "score")[0]["points"][1] >= 2 and of(hand(ev, 2), "score")[0]["points"][3] == 0


def test_F15_restart_game_rebuilds_the_action_stack_and_redeals():
    ev = fd({}, actions=["Restart Game"], rules=NOADV)
    h1 = hand(ev, 1)
    assert of(h1, "restart")[0] == {"event": "restart", "game": 0, "seat": 1, "point_cards_reset": False}
    assert len(of(h1, "deal")) == 8  # the deal, then a complete redeal
    assert of(h1, "score")[0]["points"][1] >= 1  # earned point cards stay (optional rule off)
    # optional rule: every point card goes back into the point deck and a new one is revealed
    ev2 = fd({}, actions=["Restart Game"], rules={"move_points": True, **NOADV})
    h1 = hand(ev2, 1)
    assert of(h1, "restart")[0]["point_cards_reset"] and len(of(h1, "reveal")) == 2
    assert sum(of(h1, "score")[0]["points"]) <= 1


def test_F15_reverse_direction():
    ev = fd({}, actions=["Reverse Direction"], rules=NOADV)
    h1 = hand(ev, 1)
    assert of(h1, "reverse")[0]["direction"] == "counter-clockwise"
    # dealer 1: the first trick starts on the dealer's right (seat 0) and goes 0, 3, 2, 1
    assert [e["seat"] for e in of(h1, "play", trick=1)] == [0, 3, 2, 1]
    d2 = of(ev, "dealer")[2]
    assert d2["seat"] == 0 and d2["direction"] == "counter-clockwise"


def test_F15_shuffle_complete_redeal():
    ev = fd({}, actions=["Shuffle"], rules=NOADV)
    h1 = hand(ev, 1)
    assert of(h1, "redeal")[0]["seat"] == -1 and len(of(h1, "deal")) == 8
    first = {e["seat"]: e["cards"] for e in of(h1, "deal")[:4]}
    again = {e["seat"]: e["cards"] for e in of(h1, "deal")[4:]}
    assert first != again
    for s in range(4):
        assert sorted(plays(h1, s)) == sorted(again[s])


def test_F15_shuffle_with_move_points_deals_the_earned_point_cards_out_again():
    # the sheet's optional rule: seat 1 earned hand 0's point card; after Shuffle (hand 1, dealer
    # seat 1) the earned cards are shuffled and dealt one at a time from the dealer's next seat:
    # the one card goes to seat 2, and the trace names each seat's point cards
    ev = fd({}, actions=["Shuffle"], rules={"move_points": True, **NOADV})
    h1 = hand(ev, 1)
    kinds = [e["event"] for e in h1]
    assert kinds.index("redeal") < kinds.index("points_dealt") < kinds.index("play")
    assert [(e["seat"], e["point_cards"]) for e in of(h1, "points_dealt")] == [
        (0, []), (1, []), (2, ["Natural"]), (3, [])]
    before = of(h1, "hand")[0]
    assert of(h1, "score")[0]["points"][2] == 1 + (before["winner"] == 2)


@pytest.mark.parametrize(("card", "to"), [("Stack Swap Left", 1), ("Stack Swap Right", -1)])
def test_F15_stack_swaps_pass_hands(card, to):
    ev = fd({3: TOP5}, actions=[card], rules=NOADV)
    h1 = hand(ev, 1)
    before = {e["seat"]: e["cards"] for e in of(h1, "deal")[:4]}
    after = {e["seat"]: e["cards"] for e in of(h1, "deal")[4:]}
    for s in range(4):
        assert after[(s + to) % 4] == before[s]
    assert of(h1, "hand")[0]["winner"] == (3 + to) % 4
    # optional rule: seat 1's earned point card moves with its hand
    ev2 = fd({3: TOP5}, actions=[card], rules={"move_points": True, **NOADV})
    pts = of(hand(ev2, 1), "score")[0]["points"]
    assert pts[(1 + to) % 4] >= 1 and pts[1] == (1 if (3 + to) % 4 == 1 else 0)


def test_F15_turtle_ends_the_game_and_takes_limbo():
    stack = [draw({0: "Gold 6"}), deal(0, TIE_HANDS), deal(1, {3: TOP5}), deal(2, {})]
    ev = run("full_deck", 4, stack, points=["Natural"] * 3, actions=["Turtle"],
             rules={"point_cards": 3, "limbo_award": "claim", **NOADV})
    h2 = hand(ev, 2)
    assert of(h2, "action_card")[0]["card"] == "Turtle" and not of(h2, "play")
    assert of(h2, "claim_limbo")[0] == {"event": "claim_limbo", "game": 0, "seat": 3, "point_cards": 1,
                                        "reason": "turtle"}
    g = of(ev, "game")[0]
    assert g["turtle"] and g["hands"] == 3 and g["winner"] == 3
    assert of(ev, "score")[-1]["points"] == [0, 0, 0, 2]


def test_F15_every_action_card_has_a_meaning_or_none():
    fx = cards.effect_table()
    none = {n for n, e in zip(cards.ACTION_NAMES, fx, strict=True) if e == cards.FX_NONE}
    assert none == {"Dance", "Rhyme", "Talk Funny", "Tell A Joke", "Tell a Story", "Share an Opinion",
                    "Sing Something"}
    assert len(cards.ACTION_NAMES) == 31
    for n in cards.ACTION_NAMES:
        assert cards.full_deck_meaning(n).source


def test_F15_hand_cap_counts_unfinished_never_drops():
    s = build_setup(GAME, "full_deck", 4, "random", {"move_points": True, "max_hands": 12})
    t = GAME.simulate_chunk(s, 2, 0, 300)
    g = t["games"]
    assert g.height == 300 and g["unfinished"].any()
    assert (g.filter(pl.col("unfinished"))["hands"] == 12).all()
    assert (g.filter(pl.col("unfinished"))["winner"] == -1).all()
    out = GAME.outcomes({k: v.lazy() for k, v in t.items()}, s).collect()
    assert out.filter(pl.col("game").is_in(g.filter(pl.col("unfinished"))["game"].implode()))["win"].is_null().all()


def test_F15_remove_actions_knob_and_validation():
    s = build_setup(GAME, "full_deck", 4, "greedy", {"remove_actions": ["Restart Game", "Skip"]})
    h = GAME.simulate_chunk(s, 2, 0, 200)["hands"]
    assert not h["action_card"].is_in(["Restart Game", "Skip"]).any()
    with pytest.raises(ScenarioError, match="allowed"):
        build_setup(GAME, "full_deck", 4, "greedy", {"remove_actions": ["Turtle"]})
    with pytest.raises(ScenarioError, match="does not apply"):
        build_setup(GAME, "battle_royal", 4, "greedy", {"move_points": True})
    with pytest.raises(ScenarioError, match="does not apply"):
        build_setup(GAME, "full_deck", 4, "greedy", {"fub_dealer": "caller_right"})


# ---------------------------------------------------------------------------------------------
# policies for the new decisions, conservation, determinism, plug-ins
# ---------------------------------------------------------------------------------------------
def test_steal_and_pick_policies():
    from cardsim.games.fubnub.policies import GREEDY, RANDOM, TACTICIAN, decide_keep, decide_pick, decide_steal

    rng = np.zeros(1, np.uint64)
    pts = np.array([2, 0, 3, 3], np.int64)
    par = np.zeros(8)
    for pid in (GREEDY, TACTICIAN):
        assert decide_steal(pid, pts, 1, 4, par, rng) == 2  # most point cards, ties nearest on the left
        assert decide_pick(pid, pts, 0, 4, par, rng) == 1  # fewest point cards
        assert decide_steal(pid, np.zeros(4, np.int64), 1, 4, par, rng) == -1  # nothing to steal
    seen_s, seen_p = set(), set()
    for _ in range(300):
        seen_s.add(int(decide_steal(RANDOM, pts, 2, 4, par, rng)))
        seen_p.add(int(decide_pick(RANDOM, pts, 2, 4, par, rng)))
    assert seen_s == {-1, 0, 3} and seen_p == {0, 1, 3}
    pos = cards.position_table()[K("Natural")]
    # decisions get the hand ordered highest first (policies.py): greedy keeps index 0
    hand_ = np.array([C("Gold 6"), C("Red 4"), C("Red 3"), C("Red 2"), C("Red 1")], np.int64)
    assert decide_keep(GREEDY, hand_, pos, K("Natural"), par, rng) == 0


CONFIGS = [("lucky_ghost", 1, {}), ("lucky_ghost", 3, {}), ("battle_royal", 2, {}),
           ("battle_royal", 3, {"tie_rule": "last_trick"}), ("solo", 1, {"tie_rule": "discard"}),
           ("full_deck", 4, {}), ("full_deck", 4, {"move_points": True, "limbo_award": "claim"}),
           ("full_deck", 4, {"advantage": "none", "tie_rule": "discard"})]


@pytest.mark.parametrize(("variant", "players", "rules"), CONFIGS)
@pytest.mark.parametrize("policy", ["random", "greedy", "partner", "tactician"])
def test_debug_conservation_every_mode(variant, players, rules, policy):
    s = build_setup(GAME, variant, players, policy, rules)
    t = GAME.simulate_chunk(s, 6, 0, 300, debug=True)
    assert t["games"].height == 300


@pytest.mark.parametrize(("variant", "players", "rules"), CONFIGS)
def test_chunk_independence_and_trace_agree_with_tables(variant, players, rules):
    s = build_setup(GAME, variant, players, "tactician", rules)
    whole = GAME.simulate_chunk(s, 12, 0, 10)
    parts = [GAME.simulate_chunk(s, 12, 0, 4), GAME.simulate_chunk(s, 12, 4, 6)]
    for t in whole:
        assert whole[t].equals(pl.concat([p[t] for p in parts]))
    ev = GAME.trace(s, 12, 0, 10)
    games = [e for e in ev if e["event"] == "game"]
    assert [e["hands"] for e in games] == whole["games"]["hands"].to_list()


PLUGIN = '''
import numba

@numba.njit
def flex_call(hand, pos, point, seat, dealer, rnd, params, rng):
    return 1

@numba.njit
def flex_swap(hand, pos, point, nswaps, params, rng, out):
    out[0] = -1
    out[1] = -1

@numba.njit
def flex_card(hand, n, pos, point, trick, tseat, nplayed, winner, seat, partner, caller, tricks, params, rng):
    return n if params[0] > 0.5 else 0

flex_params = {"illegal": 0.0}
'''


def test_plugin_in_full_deck_and_illegal_card(tmp_path):
    # one plug-in file, one compiled namespace; its Full Deck choices (steal, pick, keep) follow the
    # greedy rule and it plays Peek hands with its own card decision
    f = tmp_path / "mine.py"
    f.write_text(PLUGIN)
    s = build_setup(GAME, "full_deck", 4, [f"{f}:flex", "tactician", "greedy", "random"])
    t = GAME.simulate_chunk(s, 1, 0, 200, debug=True)
    assert t["games"].height == 200
    bad = build_setup(GAME, "full_deck", 4, ["greedy", "greedy", {"name": f"{f}:flex", "illegal": 1}, "greedy"])
    with pytest.raises(PolicyError, match=r"seat 2 .*'card'"):
        GAME.simulate_chunk(bad, 1, 0, 5)


OWN = '''
import numba

@numba.njit
def own_call(hand, pos, point, seat, dealer, rnd, params, rng):
    return 1

@numba.njit
def own_swap(hand, pos, point, nswaps, params, rng, out):
    out[0] = -1
    out[1] = -1

@numba.njit
def own_card(hand, n, pos, point, trick, tseat, nplayed, winner, seat, partner, caller, tricks, params, rng):
    return 0  # the highest card: the hand comes ordered highest first

@numba.njit
def own_steal(points, seat, nplayers, params, rng):
    return -1  # never steals

@numba.njit
def own_pick(points, seat, nplayers, params, rng):
    return (seat + 2) % nplayers

@numba.njit
def own_keep(hand, pos, point, params, rng):
    return 4  # keeps its lowest card

@numba.njit
def own_peek(hand, n, pos, point, trick, tseat, nplayed, winner, seat, hands, nh, tricks, params, rng):
    return n - 1 if params[0] < 0.5 else n  # its lowest card (or an illegal index)

own_params = {"illegal": 0.0}
'''


def test_plugin_defines_the_full_deck_decisions(tmp_path):
    # seat 1 plays the plug-in: it wins hand 0 with TOP5 and reveals the action card of hand 1
    f = tmp_path / "own.py"
    f.write_text(OWN)
    pols = ["greedy", f"{f}:own", "greedy", "greedy"]
    h = {1: ["Red 1", "Gold 6", "Red 2", "Red 3", "Red 4"]}
    ev = hand(fd(h, actions=["Do Over"], rules=NOADV, policies=pols,
                 undealt1=["Gold 5", "Green 5", "Purple 5", "Red 5"]), 1)
    assert of(ev, "do_over")[0]["kept"] == "Red 1"  # index 4 of the ordered hand: its lowest
    ev = hand(fd({}, actions=["Pick a Player"], policies=pols), 1)
    assert of(ev, "pick_a_player")[0]["picked"] == 3
    h = {1: ["Red 1", "Gold 6", "Red 2", "Green 6", "Red 3"]}
    ev = hand(fd(h, actions=["Peek"], rules=NOADV, policies=pols), 1)
    assert plays(ev, 1)[0] == "Red 1"  # with Peek it plays its peek decision: the lowest card
    ev = hand(fd(h, actions=["Dance"], rules=NOADV, policies=pols), 1)
    assert plays(ev, 1)[0] == "Gold 6"  # without, its card decision: the highest
    stack = [draw({0: "Gold 6"}), deal(0, {3: TOP5}), deal(1, {1: TOP5}), deal(2, {})]
    ev = run("full_deck", 4, stack, points=["Natural", "Twos", "Natural"], actions=["Dance", "Shield"],
             policies=pols, rules={"point_cards": 3, **NOADV})
    assert of(hand(ev, 2), "steal")[0]["from"] == -1
    bad = [*pols[:1], {"name": f"{f}:own", "illegal": 1}, *pols[2:]]
    with pytest.raises(PolicyError, match=r"seat 1 .*'peek'"):
        fd(h, actions=["Peek"], rules=NOADV, policies=bad)


def test_full_deck_answer_when_only_the_turtle_was_revealed():
    """One Full Deck game the Turtle ended before any other action card (`cardsim run` of 1 game, seed 3):
    the answer took row 0 of an empty table, polars' OutOfBoundsError traceback. No sentence about the
    other cards then, and the summary's table still lists the Turtle."""
    from cardsim.games.fubnub.game import action_card_answer, revealer_table

    hands = pl.LazyFrame({"game": [0, 0], "hand": [1, 2], "winner": [2, -1], "revealer": [-1, 2],
                          "action_card": [None, "Turtle"]}, schema_overrides={"action_card": pl.String})
    assert action_card_answer({"hands": hands}) == ""
    by_card, base = revealer_table({"hands": hands})
    assert by_card["action_card"].to_list() == ["Turtle"] and base["n"] == 0
