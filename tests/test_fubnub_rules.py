"""FUBNUB rules F1-F11 on constructed deals (rule ids of docs/rules/fubnub.md in each test name).

A deal is built by hand: ``stack[0]`` is the number deck the seats draw
from for the first deal (F4), ``stack[h + 1]`` the deck of hand ``h``,
dealt one card at a time from the dealer's left; ``pstack`` is the point
deck from the top.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardsim.errors import PolicyError, ScenarioError
from cardsim.games.fubnub import cards
from cardsim.games.fubnub.game import GAME
from cardsim.scenario import build_setup
from tests.plugins import write_duck

C = cards.card_code
K = cards.KIND_NAMES.index


def draw_deck(first: dict[int, str]) -> list[int]:
    """A first-deal draw: seat s draws ``first[s]`` (F4)."""
    top = [C(first[s]) for s in range(4)]
    return top + [c for c in range(24) if c not in top]


def hand_deck(dealer: int, hands: dict[int, list[str]], undealt: list[str] | None = None) -> list[int]:
    """The deck that deals ``hands`` (seat -> 5 names) with the given dealer (F5)."""
    deck = [-1] * 24
    for s, names in hands.items():
        for j, name in enumerate(names):
            deck[j * 4 + (s - dealer - 1) % 4] = C(name)
    used = {c for c in deck if c >= 0}
    rest = [C(n) for n in (undealt or [])]
    rest += [c for c in range(24) if c not in used and c not in rest]
    it = iter(rest)
    deck = [c if c >= 0 else next(it) for c in deck]
    assert sorted(deck) == list(range(24))
    return deck


def fill_hands(dealer: int, fixed: dict[int, list[str]], undealt: list[str] | None = None) -> list[int]:
    """Like hand_deck, but seats not in ``fixed`` get the remaining cards lowest first."""
    used = {C(n) for h in fixed.values() for n in h} | {C(n) for n in (undealt or [])}
    free = [c for c in range(24) if c not in used]
    hands = dict(fixed)
    for s in range(4):
        if s not in hands:
            hands[s] = [cards.card_name(free.pop(0)) for _ in range(5)]
    return hand_deck(dealer, hands, undealt)


def trace(stack, pstack=None, policies="greedy", rules=None):
    setup = build_setup(GAME, "traditional", 4, policies, rules or {})
    ps = None
    if pstack is not None:
        deck = list(setup.knob("point_deck"))
        order = [K(n) for n in pstack]
        rest = [K(n) for n in deck]
        for o in order:
            rest.remove(o)
        ps = np.array(order + rest, np.int64)
    return GAME.trace(setup, 7, 0, 1, stack=np.array(stack, np.int64), pstack=ps)


def of(events, kind, **match):
    return [e for e in events if e["event"] == kind and all(e.get(k) == v for k, v in match.items())]


def first_hand(events):
    """Events of hand 0 only."""
    out = []
    for e in events:
        if e["event"] == "dealer" and e["hand"] == 1:
            break
        out.append(e)
    return out


# F1 / F2 / F3 -------------------------------------------------------------------------
def test_F1_natural_order_rank_then_colour():
    assert cards.ranking("Natural")[:5] == ["Gold 6", "Green 6", "Purple 6", "Red 6", "Gold 5"]
    assert cards.ranking("Natural")[-1] == "Red 1"
    assert cards.card_name(23) == "Gold 6" and cards.card_name(0) == "Red 1"


def test_F2_point_deck_catalogue():
    assert len(cards.STANDARD_DECK) == 15
    assert cards.STANDARD_DECK.count("Natural") == 3
    assert "assumed" in cards.POINT_KINDS[cards.KIND_NAMES.index("Natural")].source
    # the sheet's note: only Ones, Odds and Red lift the Red 1 off the bottom
    lifting = {k for k in cards.KIND_NAMES if cards.ranking(k)[-1] != "Red 1"}
    assert lifting == {"Ones", "Odds", "Red"}


def test_F3_sheet_example_twos():
    expected = ["Gold 2", "Green 2", "Purple 2", "Red 2", "Gold 6", "Green 6", "Purple 6", "Red 6",
                "Gold 5", "Green 5", "Purple 5", "Red 5", "Gold 4", "Green 4", "Purple 4", "Red 4",
                "Gold 3", "Green 3", "Purple 3", "Red 3", "Gold 1", "Green 1", "Purple 1", "Red 1"]
    assert cards.ranking("Twos") == expected


def test_F3_colour_and_odds_rankings():
    assert cards.ranking("Red")[:6] == ["Red 6", "Red 5", "Red 4", "Red 3", "Red 2", "Red 1"]
    assert cards.ranking("Red")[6] == "Gold 6"
    odds = cards.ranking("Odds")
    assert odds[:4] == ["Gold 5", "Green 5", "Purple 5", "Red 5"] and odds[11] == "Red 1" and odds[12] == "Gold 6"


# F4 ---------------------------------------------------------------------------------
def test_F4_first_dealer_highest_natural_card_colour_breaks_ties():
    stack = [draw_deck({0: "Red 6", 1: "Gold 6", 2: "Gold 5", 3: "Green 6"})]
    ev = trace(stack, rules={"max_hands": 1})
    assert [e["card"] for e in of(ev, "draw_for_deal")] == ["Red 6", "Gold 6", "Gold 5", "Green 6"]
    assert of(ev, "dealer")[0]["seat"] == 1


# F5 ---------------------------------------------------------------------------------
def test_F5_deal_five_each_from_dealers_left_four_undealt_point_card_revealed():
    hands = {0: ["Red 1", "Red 2", "Red 3", "Red 4", "Red 5"], 1: ["Gold 1", "Gold 2", "Gold 3", "Gold 4", "Gold 5"],
             2: ["Green 1", "Green 2", "Green 3", "Green 4", "Green 5"],
             3: ["Purple 1", "Purple 2", "Purple 3", "Purple 4", "Purple 5"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}), hand_deck(0, hands)]
    ev = first_hand(trace(stack, pstack=["Evens"], rules={"max_hands": 1}))
    deals = {e["seat"]: e["cards"] for e in of(ev, "deal")}
    assert deals == hands
    assert sorted(of(ev, "undealt")[0]["cards"]) == sorted(["Red 6", "Purple 6", "Green 6", "Gold 6"])
    assert of(ev, "reveal")[0] == {"event": "reveal", "game": 0, "point_card": "Evens", "round": 1}
    # the first card dealt goes to the dealer's left
    stack2 = [draw_deck({0: "Red 1", 1: "Red 2", 2: "Gold 6", 3: "Red 3"}), list(range(24))]
    ev2 = first_hand(trace(stack2, rules={"max_hands": 1}))
    assert of(ev2, "deal", seat=3)[0]["cards"][0] == "Red 1"


# F6 ---------------------------------------------------------------------------------
def test_F6_decision_cycle_from_dealers_left_first_play_calls():
    # dealer 0; seat 1 has one of the top 8 under Sixes (passes), seat 2 has two (plays)
    hands = {1: ["Gold 6", "Red 1", "Red 2", "Purple 1", "Green 1"],
             2: ["Green 6", "Purple 6", "Red 3", "Purple 2", "Green 2"],
             3: ["Red 4", "Purple 3", "Green 3", "Gold 1", "Gold 2"],
             0: ["Gold 3", "Red 5", "Purple 4", "Green 4", "Gold 4"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}), hand_deck(0, hands)]
    ev = first_hand(trace(stack, pstack=["Sixes"], rules={"max_hands": 1}))
    dec = [(e["seat"], e["choice"]) for e in of(ev, "decision")]
    assert dec == [(1, "pass"), (2, "play")]
    # the hand's trace names its point card and the round it was played in (F6, F9)
    h = of(ev, "hand")[0]
    assert (h["point_card"], h["round"], h["caller"]) == ("Sixes", 1, 2)
    assert h["tricks_t0"] + h["tricks_t1"] == 5


def test_F6_second_round_then_misdeal_deal_moves_left():
    never = {"name": "tactician", "call_need": 6, "round2_need": 6}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"})]
    setup_rules = {"max_hands": 3}
    ev = trace(stack, pstack=["Gold"], policies=[never] * 4, rules=setup_rules)
    h0 = first_hand(ev)
    kinds = [e["event"] for e in h0 if e["event"] in ("reveal", "decision", "shuffle_back", "misdeal")]
    assert kinds == ["reveal"] + ["decision"] * 4 + ["shuffle_back", "reveal"] + ["decision"] * 4 + [
        "shuffle_back", "misdeal"]
    assert [e["seat"] for e in of(h0, "decision")][:4] == [1, 2, 3, 0]
    assert of(h0, "reveal")[0]["point_card"] == "Gold"
    # the misdeal names the second-round card; the deal moves left each misdeal
    assert of(h0, "misdeal")[0]["point_card"] == of(h0, "reveal")[1]["point_card"]
    assert [e["seat"] for e in of(ev, "dealer")] == [0, 1, 2]
    assert [(e["hand"], e["dealer"]) for e in of(ev, "misdeal")] == [(0, 0), (1, 1), (2, 2)]
    game = of(ev, "game")[0]
    assert game["winner_team"] == -1 and game["hands"] == 3


def test_F6_misdeal_rows_in_tables():
    never = {"name": "tactician", "call_need": 6, "round2_need": 6}
    setup = build_setup(GAME, "traditional", 4, [never] * 4, {"max_hands": 5})
    t = GAME.simulate_chunk(setup, 3, 0, 4)
    h = t["hands"]
    assert h.height == 20 and h["misdeal"].all() and (h["winner"] == -1).all() and (h["caller"] == -1).all()
    assert t["games"]["unfinished"].all() and (t["games"]["winner"] == -1).all()


def test_F6_misdeals_up_to_the_largest_hand_cap_keep_their_hand_numbers():
    # F6 misdeals forever (nobody ever calls) until the cap: every hand keeps its number in the
    # hands table, up to the largest cap allowed (32,767 hands); a larger cap is refused (the knob
    # matrix found hand numbers past 32,767 wrapping around in the table)
    never = {"name": "tactician", "call_need": 6, "round2_need": 6}
    setup = build_setup(GAME, "traditional", 4, [never] * 4, {"max_hands": 32767, "point_cards": 1})
    t = GAME.simulate_chunk(setup, 3, 0, 1)
    h = t["hands"]
    assert h.height == 32767 and h["misdeal"].all()
    assert h["hand"].to_list() == list(range(32767))
    assert t["games"]["hands"].to_list() == [32767] and t["games"]["unfinished"].all()
    with pytest.raises(ScenarioError, match=r"rules.max_hands = 40000 .*allowed: int in \[1, 32767\]"):
        build_setup(GAME, "traditional", 4, "partner", {"max_hands": 40000})


# F7 ---------------------------------------------------------------------------------
def test_F7_dealer_swaps_lowest_card_with_top_undealt():
    # Natural card: top 12 = all 6s, 5s, 4s. Dealer 0 holds Red 1 (lowest, not top 12).
    hands = {0: ["Gold 6", "Green 6", "Red 1", "Gold 5", "Green 5"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}),
             fill_hands(0, hands, undealt=["Purple 3", "Gold 2", "Green 2", "Purple 2"])]
    ev = first_hand(trace(stack, pstack=["Natural"], rules={"max_hands": 1}))
    assert of(ev, "swap") == [{"event": "swap", "game": 0, "seat": 0, "out": "Red 1", "in": "Purple 3"}]
    played0 = {e["card"] for e in of(ev, "play", seat=0)}
    assert "Purple 3" in played0 and "Red 1" not in played0


def test_F7_no_swap_when_lowest_card_is_in_top_12():
    hands = {0: ["Gold 6", "Green 6", "Red 4", "Gold 5", "Green 5"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}), fill_hands(0, hands)]
    ev = first_hand(trace(stack, pstack=["Natural"], rules={"max_hands": 1}))
    assert of(ev, "swap") == []


# F8 / F9 -----------------------------------------------------------------------------
def naive_trick_winner(plays, point):
    order = cards.ranking(point)
    return min(plays, key=lambda p: order.index(p["card"]))["seat"]


def test_F8_tricks_highest_card_wins_winner_leads_next_left_of_dealer_leads_first():
    stack = [draw_deck({0: "Red 1", 1: "Red 2", 2: "Gold 6", 3: "Red 3"})]  # seat 2 deals
    ev = first_hand(trace(stack, pstack=["Twos"], policies="random", rules={"max_hands": 1}))
    plays = of(ev, "play")
    point = next(e for e in ev if e["event"] == "decision" and e["choice"] == "play")["point_card"]
    leader = 3
    for t in range(1, 6):
        trick = [p for p in plays if p["trick"] == t]
        assert len(trick) == 4 and trick[0]["seat"] == leader
        assert [p["seat"] for p in trick] == [(leader + i) % 4 for i in range(4)]
        won = of(ev, "trick", trick=t)[0]
        assert won["winner"] == naive_trick_winner(trick, point)
        leader = won["winner"]


def test_F8_twos_red_2_beats_gold_6():
    # seat 1 calls with Red 2 + Purple 6 and leads Red 2; Gold 6, Green 6 and Red 6 follow
    hands = {1: ["Red 2", "Purple 6", "Red 1", "Purple 1", "Green 1"], 2: ["Gold 6", "Red 3", "Purple 3", "Green 3", "Gold 3"],
             3: ["Green 6", "Red 4", "Purple 4", "Green 4", "Gold 4"], 0: ["Red 6", "Red 5", "Purple 5", "Green 5", "Gold 5"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}),
             hand_deck(0, hands, undealt=["Gold 2", "Green 2", "Purple 2", "Gold 1"])]
    ev = first_hand(trace(stack, pstack=["Twos"], rules={"max_hands": 1}))
    assert [(p["seat"], p["card"]) for p in of(ev, "play", trick=1)] == [
        (1, "Red 2"), (2, "Gold 6"), (3, "Green 6"), (0, "Red 6")]
    t1 = of(ev, "trick", trick=1)[0]
    assert t1["winner"] == 1 and t1["card"] == "Red 2"


def test_F9_team_with_more_tricks_wins_point_card():
    setup = build_setup(GAME, "traditional", 4, "random", {})
    h = GAME.simulate_chunk(setup, 11, 0, 200)["hands"].filter(~pl_col("misdeal"))
    t0 = h["tricks_s0"] + h["tricks_s2"]
    t1 = h["tricks_s1"] + h["tricks_s3"]
    assert ((t0 + t1) == 5).all()
    assert (h["winner"] == (t1 > t0).cast(int)).all()


def pl_col(name):
    import polars as pl

    return pl.col(name)


# F10 --------------------------------------------------------------------------------
def test_F10_sweep_caller_deals_next_with_double_advantage():
    # dealer 0; seat 1 (dealer's left) holds the five best Natural cards and calls: a sweep
    hands = {1: ["Gold 6", "Green 6", "Purple 6", "Red 6", "Gold 5"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}), fill_hands(0, hands)]
    ev = trace(stack, pstack=["Natural", "Natural"], rules={"max_hands": 2})
    h = of(ev, "hand")[0]
    assert h["caller"] == 1 and h["swept"] and h["tricks_t1"] == 5
    nxt = of(ev, "dealer")[1]
    assert nxt["seat"] == 1 and nxt["advantage"] == "double"


def test_F10_double_advantage_swaps_lowest_then_second_lowest():
    hands = {1: ["Gold 6", "Green 6", "Purple 6", "Red 6", "Gold 5"]}
    hand2 = {1: ["Gold 6", "Green 6", "Red 1", "Red 2", "Gold 4"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}), fill_hands(0, hands),
             fill_hands(1, hand2, undealt=["Purple 5", "Green 5", "Purple 1", "Green 1"])]
    ev = trace(stack, pstack=["Natural", "Natural"], rules={"max_hands": 2})
    swaps = [e for e in ev if e["event"] == "swap" and e["seat"] == 1]
    assert [(s["out"], s["in"]) for s in swaps] == [("Red 1", "Purple 5"), ("Red 2", "Green 5")]


def test_F10_fub_opponent_on_callers_left_deals_with_double_advantage():
    # dealer 0; seat 1 holds two top-8 cards and calls; team 0 holds far better cards and wins
    hands = {1: ["Purple 6", "Red 6", "Red 1", "Red 2", "Red 3"],
             0: ["Gold 6", "Green 6", "Gold 5", "Green 5", "Purple 5"],
             2: ["Red 5", "Gold 4", "Green 4", "Purple 4", "Red 4"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}), fill_hands(0, hands)]
    ev = trace(stack, pstack=["Natural", "Natural"], rules={"max_hands": 2})
    h = of(ev, "hand")[0]
    assert h["caller"] == 1 and h["fubbed"] and h["winner_team"] == 0
    nxt = of(ev, "dealer")[1]
    assert nxt["seat"] == 2 and nxt["advantage"] == "double"
    ev_r = trace(stack, pstack=["Natural", "Natural"], rules={"max_hands": 2, "fub_dealer": "caller_right"})
    assert of(ev_r, "dealer")[1]["seat"] == 0


def test_F10_misdeal_loses_double_advantage_deal_moves_left():
    hands = {1: ["Gold 6", "Green 6", "Purple 6", "Red 6", "Gold 5"]}
    never = {"name": "tactician", "call_need": 6, "round2_need": 6}
    caller_then_never = [never, {"name": "tactician", "call_need": 5, "round2_need": 6}, never, never]
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}), fill_hands(0, hands)]
    ev = trace(stack, pstack=["Natural"], policies=caller_then_never, rules={"max_hands": 3})
    dealers = [(e["seat"], e["advantage"]) for e in of(ev, "dealer")]
    assert dealers[0] == (0, "single") and dealers[1] == (1, "double")
    assert of(ev, "misdeal")[0]["dealer"] == 1
    assert dealers[2] == (2, "single")


def test_F10_plain_hand_deal_moves_left():
    setup = build_setup(GAME, "traditional", 4, "partner", {})
    h = GAME.simulate_chunk(setup, 5, 0, 300)["hands"].sort("game", "hand")
    import polars as pl

    nxt = h.with_columns(next_dealer=pl.col("dealer").shift(-1).over("game"),
                         next_double=pl.col("double").shift(-1).over("game")).drop_nulls("next_dealer")
    plain = nxt.filter(~pl.col("misdeal") & ~pl.col("swept") & ~pl.col("fubbed"))
    assert (plain["next_dealer"] == (plain["dealer"] + 1) % 4).all() and not plain["next_double"].any()
    sw = nxt.filter(pl.col("swept"))
    assert (sw["next_dealer"] == sw["caller"]).all() and sw["next_double"].all()
    fb = nxt.filter(pl.col("fubbed"))
    assert (fb["next_dealer"] == (fb["caller"] + 1) % 4).all() and fb["next_double"].all()
    md = nxt.filter(pl.col("misdeal"))
    assert (md["next_dealer"] == (md["dealer"] + 1) % 4).all() and not md["next_double"].any()
    # the dealer swaps at most one card without, two with a double advantage
    assert h.filter(~pl.col("double"))["swaps"].max() <= 1
    assert h.filter(pl.col("double"))["swaps"].max() == 2


# F11 --------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 3, 7, 15])
def test_F11_first_team_to_half_of_k_wins(k):
    setup = build_setup(GAME, "traditional", 4, "partner", {"point_cards": k})
    g = GAME.simulate_chunk(setup, 2, 0, 300)["games"]
    need = (k + 1) // 2
    assert (g["winner"] >= 0).all()
    win_pts = g.select(p=__import__("polars").max_horizontal("points_t0", "points_t1"))["p"]
    assert (win_pts == need).all()
    assert ((g["points_t0"] + g["points_t1"]) <= k).all()


def test_F11_point_cards_must_be_odd_and_fit_the_deck():
    with pytest.raises(ScenarioError, match="odd"):
        build_setup(GAME, "traditional", 4, "partner", {"point_cards": 4})
    with pytest.raises(ScenarioError, match="point_deck"):
        build_setup(GAME, "traditional", 4, "partner", {"point_cards": 5, "point_deck": ["Ones", "Twos"]})


def test_F11_point_card_won_leaves_the_deck():
    # with k = 3 and 3 distinct kinds each point card can be won once only
    setup = build_setup(GAME, "traditional", 4, "partner", {"point_cards": 3, "point_deck": ["Ones", "Twos", "Gold"]})
    h = GAME.simulate_chunk(setup, 9, 0, 300)["hands"]
    won = h.filter(~pl_col("misdeal")).group_by("game", "point_card").len()
    assert won["len"].max() == 1


# reference policies ----------------------------------------------------------------------
def test_partner_policy_ducks_under_partner_and_when_beaten():
    # dealer 3; seat 0 calls with Gold 6 + Gold 5 and leads Gold 6 (the best Natural card);
    # seat 1 cannot beat it: lowest; seat 2's partner is winning: lowest; the dealer (seat 3)
    # swapped Purple 1 for Red 4 and cannot beat it: its lowest is now Purple 2.
    hands = {0: ["Gold 6", "Gold 5", "Red 1", "Red 2", "Red 3"], 1: ["Green 6", "Gold 1", "Gold 2", "Gold 3", "Gold 4"],
             2: ["Purple 6", "Green 1", "Green 2", "Green 3", "Green 4"], 3: ["Red 6", "Purple 1", "Purple 2", "Purple 3", "Purple 4"]}
    stack = [draw_deck({0: "Red 1", 1: "Red 2", 2: "Red 3", 3: "Gold 6"}),
             hand_deck(3, hands, undealt=["Red 4", "Green 5", "Purple 5", "Red 5"])]
    ev = first_hand(trace(stack, pstack=["Natural"], policies="partner", rules={"max_hands": 1}))
    assert of(ev, "decision")[0]["choice"] == "play"
    assert of(ev, "swap")[0]["out"] == "Purple 1"
    t1 = [(p["seat"], p["card"]) for p in of(ev, "play", trick=1)]
    assert t1 == [(0, "Gold 6"), (1, "Gold 1"), (2, "Green 1"), (3, "Purple 2")]
    # seat 0 then leads its highest (Gold 5): seat 1 beats it with its highest (Green 6)
    t2 = [(p["seat"], p["card"]) for p in of(ev, "play", trick=2)]
    assert t2[0] == (0, "Gold 5") and t2[1] == (1, "Green 6")
    # greedy plays its highest regardless
    evg = first_hand(trace(stack, pstack=["Natural"], policies="greedy", rules={"max_hands": 1}))
    assert [p["card"] for p in of(evg, "play", trick=1)] == ["Gold 6", "Green 6", "Purple 6", "Red 6"]


def test_greedy_calls_with_exactly_two_of_top_8():
    # Natural: top 8 = the 6s and the 5s. Seat 1 holds one (pass), seat 2 holds exactly two (play)
    hands = {1: ["Red 5", "Red 1", "Red 2", "Purple 1", "Green 1"], 2: ["Gold 6", "Purple 5", "Red 3", "Purple 2", "Green 2"]}
    stack = [draw_deck({0: "Gold 6", 1: "Red 1", 2: "Red 2", 3: "Red 3"}), fill_hands(0, hands)]
    ev = first_hand(trace(stack, pstack=["Natural"], rules={"max_hands": 1}))
    assert [(e["seat"], e["choice"]) for e in of(ev, "decision")] == [(1, "pass"), (2, "play")]


# conservation and plug-ins -------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["random", "greedy", "partner", "tactician"])
def test_card_conservation_debug_mode(policy):
    setup = build_setup(GAME, "traditional", 4, policy, {})
    t = GAME.simulate_chunk(setup, 1, 0, 300, debug=True)
    assert t["games"].height == 300


@pytest.mark.parametrize("variant,players,policies", [
    ("traditional", 4, "partner"), ("traditional", 4, "random"),
    ("traditional", 4, ["partner", "random", "greedy", "tactician"]), ("lucky_ghost", 2, "partner"),
    ("battle_royal", 3, "partner"), ("solo", 1, "partner"), ("full_deck", 4, "partner"),
    ("full_deck", 4, ["tactician", "greedy", "random", "partner"]),
])
def test_lean_kernels_play_the_games_of_the_debug_kernel(variant, players, policies):
    """Simulations run a kernel compiled for the table's one policy with the trace and debug code
    out (rules.lean_team, rules.lean_royal); debug mode runs the generic kernel, which also checks every hand
    reaches a decision ordered highest first. Both must play the same games."""
    pols = policies if isinstance(policies, list) else [policies] * players
    setup = build_setup(GAME, variant, players, pols, {})
    lean = GAME.simulate_chunk(setup, 7, 0, 400)
    debug = GAME.simulate_chunk(setup, 7, 0, 400, debug=True)
    for name in ("hands", "games"):
        assert lean[name].equals(debug[name]), name


def test_plugin_policy_from_a_file(tmp_path):
    f = write_duck(tmp_path)
    setup = build_setup(GAME, "traditional", 4, [f"{f}:duck", "partner", {"name": f"{f}:duck", "top": 10}, "partner"])
    assert setup.seats[2].params == (10.0, 0.0, 0.0)
    t = GAME.simulate_chunk(setup, 1, 0, 200, debug=True)
    assert t["games"].height == 200
    callers = t["hands"].filter(pl_col("caller") >= 0)["caller"].unique().to_list()
    assert set(callers) <= {0, 1, 2, 3}


def test_plugin_illegal_action_names_seat_and_decision(tmp_path):
    f = write_duck(tmp_path)
    setup = build_setup(GAME, "traditional", 4, ["partner", "partner", "partner", {"name": f"{f}:duck", "bad": 1}], {})
    with pytest.raises(PolicyError, match=r"seat 3 .*'swap'"):
        for start in range(0, 400, 100):
            GAME.simulate_chunk(setup, 1, start, 100)


def test_plugin_missing_function(tmp_path):
    f = tmp_path / "half.py"
    f.write_text("import numba\n@numba.njit\ndef x_call(hand, pos, point, seat, dealer, rnd, params, rng):\n    return 0\n")
    with pytest.raises(PolicyError, match="x_swap"):
        build_setup(GAME, "traditional", 4, f"{f}:x", {})
