"""Bad, Bad, Turtle: a constructed situation per rule (T1-T10) and per action card.

Piles in a :class:`Table` are written top first. Seats sit clockwise, seat 0
deals and seat 1 plays first (T3); "next player" is the next seat in the play
direction. Every constructed game runs in debug mode (card conservation).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import polars as pl
import pytest

from cardsim.errors import PolicyError, ScenarioError
from cardsim.games import get_game
from cardsim.games.turtle import cards
from cardsim.games.turtle.game import Table
from cardsim.rng import root_key
from cardsim.scenario import build_setup
from cardsim.stats import wilson

GAME = get_game("turtle")
NUMBERS = [f"{c} {r}" for c in cards.COLOURS for r in cards.RANKS]


class Nums:
    """Distinct number cards for filling piles."""

    def __init__(self) -> None:
        self._it = iter(NUMBERS)

    def __call__(self, k: int) -> list[str]:
        return [next(self._it) for _ in range(k)]


def setup(players=3, policy="eager", variant="full", **rules):
    return build_setup(GAME, variant, players, policy, rules)


def play(table: Table, turns=1, policy="eager", variant="full", players=None, **rules):
    s = setup(players or len(table.stacks), policy, variant, **rules)
    return GAME.play_table(s, table, turns)


def kinds(events, *names):
    return [e for e in events if e["event"] in names]


def flat(piles: list[list[str]]) -> list[str]:
    return [c for pile in piles for c in pile]


def stack_total(t: Table) -> int:
    return sum(len(x) for x in t.stacks)


# -- a scripted plug-in policy, written once per session ------------------------------------------
PLUGIN = '''
import numba

scripted_params = {"respond": 0.0, "pick": -1.0, "perform": 1.0, "strict": 0.0}


@numba.njit
def scripted_respond(seat, obs, legal, params, rng):
    a = int(params[0])
    if params[3] > 0.5:
        return a
    if 0 <= a < 16 and legal[a] == 1:
        return a
    return 0


@numba.njit
def scripted_pick(seat, obs, legal, params, rng):
    a = int(params[1])
    if params[3] > 0.5:
        return a
    if 0 <= a < 16 and legal[a] == 1:
        return a
    for i in range(16):
        if legal[i] == 1:
            return i
    return 0


@numba.njit
def scripted_perform(seat, obs, legal, params, rng):
    return int(params[2])
'''


@pytest.fixture(scope="session")
def plugin(tmp_path_factory):
    path = tmp_path_factory.mktemp("plugins") / "scripted.py"
    path.write_text(PLUGIN)
    return f"{path}:scripted"


def scripted(plugin, respond=0, pick=-1, perform=1, strict=0):
    return {"name": plugin, "respond": respond, "pick": pick, "perform": perform, "strict": strict}


def play_with(policies, table, turns=1, **rules):
    s = build_setup(GAME, "full", len(policies), list(policies), rules)
    return GAME.play_table(s, table, turns)


# -- catalogue and deck (T1, T2) ------------------------------------------------------------------
def test_t1_t2_catalogue_and_deck():
    t2 = ["Clean Up", "Dance", "Do Over", "Double Dip", "Eliminated", "Never Happened", "No Reveal", "No Trash",
          "No Way", "Partial Play", "Peek", "Pick a Player", "Rapid Fire", "Recycle Bonus", "Refund",
          "Restart Game", "Reverse Direction", "Rhyme", "Talk Funny", "Tell A Joke", "Tell a Story",
          "Second Chance", "Share an Opinion", "Shield", "Shuffle", "Sing Something", "Skip", "Slow Down",
          "Stack Swap Left", "Stack Swap Right", "Turtle"]
    assert list(cards.ACTION_NAMES) == t2
    assert all(src == "sheet" for _, src in cards.ACTION_CARDS)
    assert len(cards.PERFORMANCE) == 7 and len(cards.HELD) == 3
    assert set(cards.ACTION_TEXT) == set(t2) and set(cards.ACTION_KIND) == set(t2)
    assert cards.N_CARDS == 55 and len(GAME.deck(setup())) == 55
    assert cards.card_name(0) == "Gold 1" and cards.card_name(23) == "Red 6"
    assert cards.card_name(cards.ACTION_BASE + cards.TURTLE) == "Turtle"
    s = setup(remove=["Restart Game", "Eliminated"])
    assert len(GAME.deck(s)) == 53
    with pytest.raises(ScenarioError, match="allowed"):
        setup(remove=["Turtle"])


def test_cards_module_has_no_numba():
    code = "import sys, cardsim.games.turtle.cards as c; assert 'numba' not in sys.modules; print(len(c.ACTION_CARDS))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.stdout.strip() == "31"


# -- T3: the deal ----------------------------------------------------------------------------------------
def test_t3_deal_clockwise_from_dealers_left_and_seat_1_first():
    """Deck card i goes to seat (1 + i) % P; the last card dealt to a seat is the top of its stack.
    2 players: seat 1 gets deck[0, 2, ..., 54]; its top three are deck[54], deck[52], deck[50]."""
    deck = [cards.card_name(c) for c in range(55)]
    turtle = deck.index("Turtle")
    deck[50], deck[turtle] = deck[turtle], deck[50]
    s = setup(players=2, variant="young")
    ev = GAME.trace(s, 0, 0, 1, stacked=deck)
    deals = [e for e in kinds(ev, "deal") if e["reason"] == "initial"]
    assert [(e["seat"], e["cards"]) for e in deals] == [(1, 28), (0, 27)]
    turn = kinds(ev, "turn")[0]
    assert turn["seat"] == 1 and turn["stack"] == 28
    assert [e["card"] for e in kinds(ev, "discard")] == [deck[54], deck[52]]
    assert kinds(ev, "reveal")[0]["card"] == "Turtle"
    assert kinds(ev, "win")[0]["seat"] == 1


def test_t3_three_players_deal():
    deck = [cards.card_name(c) for c in range(55)]
    ev = GAME.trace(setup(players=3, variant="young"), 0, 0, 1, stacked=deck)
    initial = [(e["seat"], e["cards"]) for e in kinds(ev, "deal") if e["reason"] == "initial"]
    assert initial == [(1, 19), (2, 18), (0, 18)]
    # seat 1's stack is deck[0, 3, 6, ..., 54]: top three 54, 51, 48
    assert [e["card"] for e in kinds(ev, "discard")][:2] == [deck[54], deck[51]]
    assert kinds(ev, "reveal")[0]["card"] == deck[48]


# -- T4: a turn --------------------------------------------------------------------------------------------
def test_t4_discard_two_reveal_one():
    n = Nums()
    a, b, c, d, e = n(5)
    t = Table(stacks=[n(5), [a, b, c, d, e], n(5)])
    r = play(t)
    after = r.table
    assert after.stacks[1] == [d, e]
    assert after.discards[1] == [b, a]
    assert after.reveals[1] == [c]
    assert after.cur == 2 and r.turns == 1
    assert [x["card"] for x in kinds(r.events, "discard")] == [a, b]


def test_t4_short_stack_two_cards_then_t6_redeal():
    """Two cards: discard one, reveal the last; the emptied stack triggers a redeal when the turn ends
    (T6), dealt from the next player; revealed cards stay."""
    n = Nums()
    a, b = n(2)
    old = n(2)
    t = Table(stacks=[n(4), [a, b], n(5)], reveals=[old, [], []])
    r = play(t)
    assert [x["card"] for x in kinds(r.events, "discard")] == [a]
    assert [x["card"] for x in kinds(r.events, "reveal")] == [b]
    red = kinds(r.events, "redeal")
    assert len(red) == 1 and red[0]["reason"] == "empty_stack" and red[0]["first"] == 2
    assert red[0]["cards"] == 4 + 1 + 5
    assert r.table.reveals == [old, [b], []]
    assert r.table.discards == [[], [], []]
    assert [len(x) for x in r.table.stacks] == [3, 3, 4]  # dealt 2, 0, 1, 2, 0, 1, ... from seat 2
    assert r.redeals == 1


def test_t4_short_stack_one_card_is_revealed():
    n = Nums()
    (a,) = n(1)
    r = play(Table(stacks=[n(4), [a], n(4)]))
    assert not kinds(r.events, "discard")
    assert kinds(r.events, "reveal")[0]["card"] == a
    assert r.redeals == 1


# -- T5: turtle, gecko, last player ---------------------------------------------------------------
def test_t5_turtle_wins():
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "Turtle", *n(2)], n(4)]), turns=5)
    assert r.winner == 1 and r.ended_by == "turtle" and r.turns == 1


def test_t5_gecko_eliminates_and_redeals_unrevealed_cards():
    """The gecko, every stack and every discard pile are shuffled and redealt to the remaining players,
    from the player who plays next; revealed cards stay."""
    n = Nums()
    r0, r1, r2 = n(2), n(1), n(3)
    t = Table(stacks=[n(5), [*n(2), "Eliminated", *n(3)], n(4)], discards=[n(2), n(1), []],
              reveals=[r0, r1, r2])
    r = play(t)
    after = r.table
    assert after.alive == [True, False, True] and after.out == [0, 1, 0]
    assert r.eliminated == 1 and r.redeals == 1
    assert after.reveals == [r0, r1, r2]
    assert after.discards == [[], [], []]
    assert after.stacks[1] == []
    moved = 5 + 3 + 4 + 2 + 1 + 2 + 1  # stacks, discards (incl. this turn's two), the gecko
    assert stack_total(after) == moved
    assert "Eliminated" in after.stacks[0] + after.stacks[2]
    red = kinds(r.events, "redeal")[0]
    assert red["reason"] == "gecko" and red["first"] == 2 and red["cards"] == moved
    assert len(after.stacks[2]) == (moved + 1) // 2  # dealt first
    assert after.cur == 2


def test_t5_last_player_standing_wins():
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "Eliminated", *n(1)]]), turns=3)
    assert r.winner == 0 and r.ended_by == "last_player" and r.table.alive == [True, False]


def test_t5_gecko_with_four_players_skips_the_eliminated_seat():
    n = Nums()
    t = Table(stacks=[n(4), n(4), [*n(2), "Eliminated", *n(2)], n(4)], cur=2)
    r = play(t, turns=2)
    assert r.table.alive == [True, True, False, True]
    assert [e["seat"] for e in kinds(r.events, "turn")] == [2, 3]


# -- T6: empty stack -------------------------------------------------------------------------------------
def test_t6_empty_stack_redeal_after_the_turn():
    n = Nums()
    a, b, c = n(3)
    rev = n(2)
    t = Table(stacks=[n(4), [a, b, c], n(3)], discards=[n(1), [], n(2)], reveals=[[], [], rev])
    r = play(t)
    evs = [e["event"] for e in r.events]
    assert evs.index("reveal") < evs.index("redeal")
    assert r.table.reveals == [[], [c], rev]
    assert sorted(flat(r.table.stacks)) == sorted(t.stacks[0] + t.stacks[2] + t.discards[0] + t.discards[2]
                                                      + [a, b])
    assert r.table.discards == [[], [], []]
    assert kinds(r.events, "redeal")[0]["first"] == 2


def test_t6_refund_refills_the_stack_so_no_redeal():
    """Reading: the check is made when the turn ends; a Refund that puts a card back first avoids it."""
    n = Nums()
    a, b = n(2)
    r = play(Table(stacks=[n(4), [a, b, "Refund"], n(4)]))
    assert r.redeals == 0 and r.table.stacks[1] == [b] and r.table.discards[1] == [a]


def test_t6_fewer_cards_than_players_still_ends():
    """Seats dealt nothing take empty turns; the redeal always starts with the next player."""
    t = Table(stacks=[[], [], []], discards=[[], [], ["Turtle"]], cur=1)
    r = play(t, turns=10)
    assert r.winner == 2 and r.ended_by == "turtle" and r.turns == 2


# -- T7: performance cards ------------------------------------------------------------------------------
@pytest.mark.parametrize("card", cards.PERFORMANCE)
def test_t7_performance_card_unable_skips(card):
    n = Nums()
    nxt = n(4)
    t = Table(stacks=[n(4), [*n(2), card, *n(3)], nxt])
    r = play(t, turns=2, p_perform=0.0)
    perf = kinds(r.events, "perform")
    assert perf == [{"event": "perform", "game": 0, "seat": 2, "card": card, "able": False, "performed": False}]
    assert kinds(r.events, "skip")[0]["reason"] == "unable"
    assert r.table.stacks[2] == nxt and r.table.cur == 0


@pytest.mark.parametrize("card", cards.PERFORMANCE)
def test_t7_performance_card_performed(card):
    n = Nums()
    a, b, c, d = n(4)
    t = Table(stacks=[n(4), [*n(2), card, *n(3)], [a, b, c, d]])
    r = play(t, turns=2, p_perform=1.0)
    assert kinds(r.events, "perform")[0]["performed"] is True
    assert r.table.reveals[2] == [c]


# -- T8: held cards ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("card", cards.HELD)
def test_t8_held_cards_are_set_aside(card):
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), card, *n(3)], n(4)]))
    assert r.table.held == {card: 1}
    assert r.table.reveals[1] == []
    assert kinds(r.events, "hold")[0]["card"] == card


def test_t8_eager_never_happened_overrules_own_gecko():
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Eliminated", *n(3)], n(4)], held={"Never Happened": 1})
    r = play(t)
    assert r.table.alive == [True, True, True] and r.redeals == 0
    assert r.table.reveals[1] == ["Never Happened", "Eliminated"]
    assert r.table.held == {}
    play_ = kinds(r.events, "play_held")[0]
    assert play_["answer"] == "overrule_card" and play_["on"] == "Eliminated"
    assert kinds(r.events, "cancel")[0]["by"] == "Never Happened"
    assert r.reveals["applied_to"].to_list() == [-1]


def test_t8_eager_no_way_discards_anothers_turtle():
    n = Nums()
    a, b = n(2)
    t = Table(stacks=[n(4), [a, b, "Turtle", *n(3)], n(4)], held={"No Way": 2})
    r = play(t)
    assert r.winner == -1 and r.ended_by is None
    assert r.table.discards[1] == ["Turtle", b, a]
    assert r.table.reveals[1] == ["No Way"]  # placed on the reveal pile of the player it is used against
    assert kinds(r.events, "cancel")[0]["by"] == "No Way"


def test_t8_eager_does_not_no_way_its_own_turtle_or_gecko():
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Turtle", *n(3)], n(4)], held={"No Way": 1})
    assert play(t).winner == 1
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Eliminated", *n(3)], n(4)], held={"No Way": 1})
    r = play(t)
    assert r.table.alive[1] is False and r.table.held == {"No Way": 1}  # held cards leave with their owner


def test_t8_eager_shield_forces_own_gecko_onto_next_player():
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Eliminated", *n(3)], n(4), n(4)], held={"Shield": 1})
    r = play(t, turns=2)
    assert r.table.alive == [True, True, False, True]
    assert r.table.reveals[1] == ["Shield"]
    shield = kinds(r.events, "play_held")[0]
    assert shield["answer"] == "shield" and shield["target"] == 2
    # play continues around the table from the target: seat 3 plays next
    assert [e["seat"] for e in kinds(r.events, "turn")] == [1, 3]
    assert "Eliminated" in flat(r.table.stacks)


def test_t8_never_happened_cannot_overrule_the_turtle(plugin):
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Turtle", *n(3)], n(4)], held={"Never Happened": 2})
    # a forgiving script asking for Never Happened gets nothing: it is not legal on the Turtle
    r = play_with(["eager", "eager", scripted(plugin, respond=cards.NH_CARD)], t)
    assert r.winner == 1
    # the holder is not even asked about a Turtle (passing is its only legal answer) ...
    assert play_with(["eager", "eager", scripted(plugin, respond=cards.NH_CARD, strict=1)], t).winner == 1
    # ... but is about any other action card, where an illegal answer is reported
    n = Nums()
    skip = Table(stacks=[n(4), [*n(2), "Skip", *n(3)], n(4)], held={"Never Happened": 2})
    r = play_with(["eager", "eager", scripted(plugin, respond=cards.NH_CARD, strict=1)], skip)
    assert kinds(r.events, "cancel")[0]["card"] == "Skip"
    with pytest.raises(PolicyError, match=r"seat 2 .* returned 99 at decision 'respond'"):
        play_with(["eager", "eager", scripted(plugin, respond=99, strict=1)], skip)


def test_t8_never_happened_overrules_a_no_way_on_a_turtle(plugin):
    """Knob never_happened_held (default true): "overrule any action card played" includes No Way."""
    n = Nums()
    table = Table(stacks=[n(4), [*n(2), "Turtle", *n(3)], n(4)], held={"Never Happened": 1, "No Way": 2})
    seats = ["eager", scripted(plugin, respond=cards.NH_HELD), "eager"]
    r = play_with(seats, table)
    assert r.winner == 1 and r.ended_by == "turtle"
    answers = [e["answer"] for e in kinds(r.events, "play_held")]
    assert answers == ["discard", "overrule_held"]
    r = play_with(seats, table, never_happened_held=False)
    assert r.winner == -1 and r.table.held == {"Never Happened": 1}


def test_t8_cunning_counters_a_shield_with_never_happened():
    """Seat 1 shields its gecko onto seat 2; seat 2 (cunning) overrules the Shield: seat 1 is out."""
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Eliminated", *n(3)], n(4)], held={"Shield": 1, "Never Happened": 2})
    r = play_with(["eager", "eager", "cunning"], t)
    assert r.table.alive == [True, False, True]
    assert [e["answer"] for e in kinds(r.events, "play_held")] == ["shield", "overrule_held"]
    assert r.table.reveals[1] == ["Shield"] and r.table.reveals[2] == ["Never Happened"]


def test_t8_cunning_no_way_saves_itself_from_the_gecko():
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Eliminated", *n(3)], n(4)], held={"No Way": 1})
    r = play(t, policy="cunning")
    assert r.table.alive == [True, True, True]
    assert r.table.discards[1][0] == "Eliminated" and r.table.reveals[1] == ["No Way"]


# -- T9: the turn cap ---------------------------------------------------------------------------------
def test_t9_cap_counts_unfinished_games():
    s = setup(players=4, max_turns=6)
    games = GAME.simulate_chunk(s, root_key(3), 0, 300, debug=True)["games"]
    assert games.height == 300
    cut = games.filter(pl.col("ended_by") == "cap")
    assert cut.height > 0 and (cut["winner"] == -1).all() and (cut["turns"] == 6).all()
    assert (games.filter(pl.col("ended_by") != "cap")["turns"] <= 6).all()


def test_t9_a_restarting_game_is_cut_not_hung():
    keep = {"Restart Game", "Turtle"}
    s = setup(players=2, max_turns=40, remove=[c for c in cards.REMOVABLE if c not in keep])
    games = GAME.simulate_chunk(s, root_key(4), 0, 400, debug=True)["games"]
    assert games.height == 400 and (games["restarts"] > 0).any()
    assert (games["turns"] <= 40).all()
    assert games.filter(pl.col("ended_by") == "cap")["winner"].to_list() == [-1] * int(
        (games["ended_by"] == "cap").sum())


def test_t9_turn_counts_include_skipped_turns():
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "Skip", *n(3)], n(4)]), turns=2)
    assert r.turns == 2 and kinds(r.events, "skip")[0]["seat"] == 2


# -- T10: younger players ---------------------------------------------------------------------------------
def test_t10_young_ignores_action_cards():
    n = Nums()
    nxt = n(4)
    t = Table(stacks=[n(4), [*n(2), "Skip", *n(3)], nxt])
    r = play(t, turns=2, variant="young")
    assert not kinds(r.events, "skip", "effect")
    assert r.table.reveals[2] == [nxt[2]]
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "No Way", *n(3)], n(4)]), variant="young")
    assert r.table.held == {} and r.table.reveals[1] == ["No Way"]
    assert r.reveals.height == 0


def test_t10_young_keeps_turtle_and_gecko():
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "Eliminated", *n(3)], n(4)]), variant="young")
    assert r.table.alive == [True, False, True]
    n = Nums()
    assert play(Table(stacks=[n(4), [*n(2), "Turtle", *n(3)], n(4)]), variant="young").winner == 1


# -- every action card ------------------------------------------------------------------------------------
def test_card_clean_up():
    """The rest of the reveal pile, turned over as a packet, goes on the discard pile."""
    n = Nums()
    a, b = n(2)
    r1, r2, r3 = n(3)
    d = n(1)
    t = Table(stacks=[n(4), [a, b, "Clean Up", *n(3)], n(4)], discards=[[], d, []], reveals=[[], [r1, r2, r3], []])
    r = play(t)
    assert r.table.reveals[1] == ["Clean Up"]
    assert r.table.discards[1] == [r3, r2, r1, b, a, *d]


def test_card_do_over():
    n = Nums()
    a, b = n(2)
    rest = n(3)
    rev = n(2)
    t = Table(stacks=[n(4), [a, b, "Do Over", *rest], n(4)], reveals=[[], rev, []])
    r = play(t)
    assert r.table.reveals[1] == ["Do Over"]
    assert sorted(r.table.stacks[1]) == sorted(rest + rev)
    assert r.table.discards[1] == [b, a]


def test_card_double_dip():
    n = Nums()
    x, y, z = n(3)
    r = play(Table(stacks=[n(4), [*n(2), "Double Dip", x, y, z], n(4)]))
    assert r.table.reveals[1] == [x, "Double Dip"] and r.table.stacks[1] == [y, z]


def test_card_double_dip_second_card_acts():
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "Double Dip", "Turtle", *n(2)], n(4)]))
    assert r.winner == 1


def test_card_double_dip_on_an_empty_stack_reveals_nothing_more():
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "Double Dip"], n(4)]))
    assert kinds(r.events, "effect")[0]["second_reveal"] is False and r.redeals == 1


def test_card_no_reveal():
    n = Nums()
    a, b, c, d = n(4)
    r = play(Table(stacks=[n(4), [*n(2), "No Reveal", *n(3)], [a, b, c, d]]), turns=2)
    assert r.table.stacks[2] == [c, d] and r.table.discards[2] == [b, a] and r.table.reveals[2] == []


def test_card_no_trash():
    n = Nums()
    q = n(2)
    stack = n(4)
    r = play(Table(stacks=[n(4), [*n(2), "No Trash", *n(3)], stack], discards=[[], [], q]), turns=2)
    assert r.table.reveals[2] == [q[0]] and r.table.discards[2] == [q[1]] and r.table.stacks[2] == stack


def test_card_no_trash_with_empty_discard_pile_does_nothing():
    n = Nums()
    stack = n(4)
    r = play(Table(stacks=[n(4), [*n(2), "No Trash", *n(3)], stack]), turns=2)
    assert r.table.reveals[2] == [] and r.table.stacks[2] == stack


def test_card_partial_play():
    n = Nums()
    a, b, c = n(3)
    r = play(Table(stacks=[n(4), [*n(2), "Partial Play", *n(3)], [a, b, c]]), turns=2)
    assert r.table.discards[2] == [a] and r.table.reveals[2] == [b] and r.table.stacks[2] == [c]


def test_card_rapid_fire():
    n = Nums()
    a, b, c = n(3)
    r = play(Table(stacks=[n(4), [*n(2), "Rapid Fire", *n(3)], [a, b, c]]), turns=2)
    assert r.table.discards[2] == [] and r.table.reveals[2] == [a] and r.table.stacks[2] == [b, c]


def test_card_peek_lasts_until_the_next_turn():
    n = Nums()
    rest = n(4)
    t = Table(stacks=[n(5), [*n(2), "Peek", *rest], n(5)])
    r = play(t)
    assert r.table.known[1] == 4
    obs = GAME.observe(setup(), r.table, 1)
    assert obs[cards.OBS_KNOWN] == 4 and list(obs[cards.OBS_STACK: cards.OBS_STACK + 5]) == [
        cards.card_code(c) for c in rest] + [-1]
    assert GAME.observe(setup(), r.table, 2)[cards.OBS_KNOWN] == 0
    r = play(t, turns=3)
    assert r.table.known[1] == 4
    r = play(t, turns=4)
    assert r.table.known[1] == 0


def test_card_peek_guides_cunning_perform_decision():
    """Seat 1 knows its next reveal is the gecko: cunning skips the Dance turn, eager performs and is out."""
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Eliminated", *n(2)], n(4)], known=[0, 5, 0], pending={"perform": ["Dance"]})
    r = play(t, policy="cunning")
    assert kinds(r.events, "skip")[0]["reason"] == "declined" and r.table.alive[1] is True
    assert play(t, policy="eager").table.alive[1] is False
    r = build_setup(GAME, "full", 3, {"name": "cunning", "use_peek": 0.0})
    assert GAME.play_table(r, t).table.alive[1] is False


def test_card_pick_a_player_eager_and_continue_from_picked(plugin):
    n = Nums()
    t = Table(stacks=[n(5), [*n(2), "Pick a Player", *n(5)], n(5), n(5)])
    r = play(t, turns=2)
    assert kinds(r.events, "effect")[0]["picked"] == 2
    r = play_with(["eager", scripted(plugin, pick=3), "eager", "eager"], t, turns=3)
    assert [e["seat"] for e in kinds(r.events, "turn")] == [1, 3, 0]
    r = play_with(["eager", scripted(plugin, pick=1), "eager", "eager"], t, turns=2)
    assert [e["seat"] for e in kinds(r.events, "turn")] == [1, 1]
    with pytest.raises(PolicyError, match="pick"):
        play_with(["eager", scripted(plugin, pick=1, strict=1), "eager", "eager"], t, pick_self=False)


def test_card_recycle_bonus_reveals_the_last_discard():
    n = Nums()
    a, b = n(2)
    r = play(Table(stacks=[n(4), [a, b, "Recycle Bonus", *n(3)], n(4)]))
    assert r.table.reveals[1] == [b, "Recycle Bonus"] and r.table.discards[1] == [a]


def test_card_recycle_bonus_second_card_acts():
    n = Nums()
    (a,) = n(1)
    r = play(Table(stacks=[n(4), [a, "Skip", "Recycle Bonus", *n(3)], n(4)]), turns=2)
    assert kinds(r.events, "skip")[0]["seat"] == 2


def test_card_refund_top_and_bottom():
    n = Nums()
    a, b = n(2)
    x, y = n(2)
    t = Table(stacks=[n(4), [a, b, "Refund", x, y], n(4)])
    r = play(t)
    assert r.table.stacks[1] == [b, x, y] and r.table.discards[1] == [a]
    r = play(t, refund_to="bottom")
    assert r.table.stacks[1] == [x, y, b]


def test_card_restart_game_redeals_every_card():
    n = Nums()
    t = Table(stacks=[n(3), [*n(2), "Restart Game", *n(2)], n(3)], discards=[n(1), [], n(2)],
              reveals=[n(2), n(1), []], held={"No Way": 0})
    total = 3 + 5 + 3 + 1 + 2 + 2 + 1 + 1
    r = play(t)
    assert r.restarts == 1 and stack_total(r.table) == total
    assert r.table.reveals == [[], [], []] and r.table.discards == [[], [], []] and r.table.held == {}
    assert kinds(r.events, "redeal")[0]["first"] == 2


def test_card_restart_game_and_eliminated_players():
    n = Nums()
    t = Table(stacks=[n(3), [*n(2), "Restart Game", *n(2)], [], n(3)], reveals=[[], [], n(3), []],
              alive=[True, True, False, True], out=[0, 0, 1, 0])
    r = play(t)
    assert r.table.alive == [True, True, False, True] and r.table.stacks[2] == []
    assert stack_total(r.table) == 3 + 5 + 3 + 3
    r = play(t, restart_revives=True)
    assert r.table.alive == [True] * 4 and all(r.table.stacks)


def test_card_reverse_direction():
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "Reverse Direction", *n(2)], n(4), n(4)]), turns=3)
    assert [e["seat"] for e in kinds(r.events, "turn")] == [1, 0, 3]
    assert r.table.direction == -1


def test_card_second_chance():
    n = Nums()
    c, d, e, f = n(4)
    r = play(Table(stacks=[n(4), [*n(2), "Second Chance", c, d, e, f], n(4)]), turns=3)
    turns = kinds(r.events, "turn")
    assert [(x["seat"], x["second_chance"]) for x in turns] == [(1, False), (1, True), (2, False)]
    assert r.table.reveals[1] == [e, "Second Chance"]


def test_card_second_chance_turn_leaves_next_player_effects_waiting():
    n = Nums()
    t = Table(stacks=[n(4), n(5), n(4)], extra=True, pending={"skip": 1})
    r = play(t, turns=2)
    assert [e["seat"] for e in kinds(r.events, "turn")] == [1, 2]
    assert kinds(r.events, "skip")[0]["seat"] == 2


def test_card_shield_onto_a_chosen_player(plugin):
    """Seat 0 shields seat 1's Skip onto seat 2 (the Skip now acts as if seat 2 revealed it)."""
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Skip", *n(3)], n(4), n(4)], held={"Shield": 0})
    seats = [scripted(plugin, respond=cards.SHIELD_BASE + 2), "eager", "eager", "eager"]
    r = play_with(seats, t, turns=3)
    assert r.reveals["applied_to"].to_list() == [2]
    assert r.table.reveals[2] == ["Skip"] and r.table.reveals[0][-1] == "Shield"
    # after_target: play continues after seat 2, so seat 3 is the next player and is skipped
    assert [(e["seat"]) for e in kinds(r.events, "turn")] == [1, 3, 0]
    assert kinds(r.events, "skip")[0]["seat"] == 3
    r = play_with(seats, t, turns=3, shield_continue="target")
    assert [(e["seat"]) for e in kinds(r.events, "turn")] == [1, 2, 3]
    assert kinds(r.events, "skip")[0]["seat"] == 2


def test_card_shield_target_second_chance_is_the_targets_next_turn(plugin):
    """T8 Shield with shield_continue = target (RULES_NOTES "Held cards"), T2 Second Chance: seat 0
    shields seat 1's Second Chance onto seat 2. Seat 2's Second Chance turn is the turn the target
    takes next; then play continues from seat 2, so seat 3 plays (not seat 2 twice, issue 18)."""
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Second Chance", *n(3)], n(5), n(4)], held={"Shield": 0})
    seats = [scripted(plugin, respond=cards.SHIELD_BASE + 2), "eager", "eager", "eager"]
    for knob in ("target", "after_target"):
        r = play_with(seats, t, turns=4, shield_continue=knob)
        turns = [(e["seat"], e["second_chance"]) for e in kinds(r.events, "turn")]
        assert turns == [(1, False), (2, True), (3, False), (0, False)], knob
        assert r.reveals["applied_to"].to_list() == [2]


def test_card_shield_target_restart_in_the_second_chance_turn_redeals_after_the_target(plugin):
    """T5 (a redeal starts with the player who plays next) with T8 Shield, shield_continue = target:
    a Restart Game revealed in the target's Second Chance turn is dealt from the player after the
    target, who plays next."""
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Second Chance", *n(3)], [*n(2), "Restart Game", *n(3)], n(4)],
              held={"Shield": 0})
    seats = [scripted(plugin, respond=cards.SHIELD_BASE + 2), "eager", "eager", "eager"]
    r = play_with(seats, t, turns=3, shield_continue="target")
    assert kinds(r.events, "redeal")[0]["first"] == 3
    assert [(e["seat"], e["second_chance"]) for e in kinds(r.events, "turn")] == [(1, False), (2, True),
                                                                                  (3, False)]


def test_card_shield_cannot_move_the_turtle_by_default(plugin):
    n = Nums()
    t = Table(stacks=[n(4), [*n(2), "Turtle", *n(3)], n(4)], held={"Shield": 2})
    seats = ["eager", "eager", scripted(plugin, respond=cards.SHIELD_BASE + 2)]
    assert play_with(seats, t).winner == 1
    assert play_with(seats, t, shield_turtle=True).winner == 2


def test_card_shuffle_redeals_unrevealed_cards():
    n = Nums()
    rev = [n(1), n(2), n(1)]
    t = Table(stacks=[n(4), [*n(2), "Shuffle", *n(3)], n(4)], discards=[n(2), [], []], reveals=rev)
    r = play(t)
    assert r.shuffles == 1 and r.table.discards == [[], [], []]
    assert r.table.reveals == [rev[0], ["Shuffle"] + rev[1], rev[2]]
    assert stack_total(r.table) == 4 + 2 + 3 + 4 + 2
    assert kinds(r.events, "redeal")[0] == {"event": "redeal", "game": 0, "reason": "shuffle", "cards": 15,
                                           "first": 2}


def test_card_skip():
    n = Nums()
    nxt = n(4)
    r = play(Table(stacks=[n(4), [*n(2), "Skip", *n(3)], nxt]), turns=3)
    assert [e["seat"] for e in kinds(r.events, "turn")] == [1, 2, 0]
    assert r.table.stacks[2] == nxt


def test_card_slow_down():
    n = Nums()
    stack, rev = n(3), n(2)
    r = play(Table(stacks=[n(4), [*n(2), "Slow Down", *n(3)], stack], reveals=[[], [], rev]), turns=2)
    after = r.table
    assert len(after.stacks[2]) == 2 and len(after.discards[2]) == 2 and len(after.reveals[2]) == 1
    assert sorted(after.stacks[2] + after.discards[2] + after.reveals[2]) == sorted(stack + rev)
    assert kinds(r.events, "next_effect")[0]["moved"] == 2


@pytest.mark.parametrize(("card", "shift"), [("Stack Swap Left", 1), ("Stack Swap Right", -1)])
def test_card_stack_swaps(card, shift):
    n = Nums()
    s0, s2, s3 = n(3), n(4), n(5)
    rest1 = n(2)
    t = Table(stacks=[s0, [*n(2), card, *rest1], s2, s3])
    after = play(t).table
    before = [s0, rest1, s2, s3]
    for s in range(4):
        assert after.stacks[(s + shift) % 4] == before[s]


def test_card_stack_swap_skips_eliminated_seats():
    n = Nums()
    s0, s3 = n(3), n(5)
    rest1 = n(2)
    t = Table(stacks=[s0, [*n(2), "Stack Swap Left", *rest1], [], s3], alive=[True, True, False, True],
              out=[0, 0, 1, 0])
    after = play(t).table
    assert after.stacks == [s3, s0, [], rest1]


def test_card_turtle_revealed_from_the_discard_pile_wins():
    n = Nums()
    r = play(Table(stacks=[n(4), [*n(2), "No Trash", *n(3)], n(4)], discards=[[], [], ["Turtle"]]), turns=2)
    assert r.winner == 2


# -- the reference policies ----------------------------------------------------------------------------
def test_eager_pick_goes_to_the_next_player_in_the_play_direction():
    n = Nums()
    t = Table(stacks=[n(5), [*n(2), "Pick a Player", *n(5)], n(5), n(5)], direction=-1)
    r = play(t, turns=2)
    assert kinds(r.events, "effect")[0]["picked"] == 0


def test_random_policy_only_takes_legal_actions():
    s = setup(players=5, policy="random")
    t = GAME.simulate_chunk(s, root_key(11), 0, 300, debug=True)
    assert t["games"].height == 300 and t["reveals"]["applied_to"].min() >= -1


def test_cunning_beats_eager_in_a_mixed_table():
    s = build_setup(GAME, "full", 4, ["eager", "cunning", "eager", "cunning"])
    g = GAME.simulate_chunk(s, root_key(21), 0, 4000)["games"].filter(pl.col("winner") >= 0)
    cunning = g.filter(pl.col("winner").is_in([1, 3])).height / g.height
    assert cunning > 0.5


# -- plug-ins ---------------------------------------------------------------------------------------------
def test_plugin_policy_runs_and_illegal_action_raises(plugin):
    s = build_setup(GAME, "full", 3, [scripted(plugin), "eager", "random"])
    t = GAME.simulate_chunk(s, root_key(2), 0, 200, debug=True)
    assert t["games"].height == 200
    bad = build_setup(GAME, "full", 3, [scripted(plugin, perform=7), "eager", "random"])
    with pytest.raises(PolicyError, match="seat 0"):
        GAME.simulate_chunk(bad, root_key(2), 0, 200)


# -- determinism, chunks, debug, trace, summary ----------------------------------------------------------
@pytest.mark.parametrize("variant", ["full", "young"])
def test_deterministic_and_chunk_independent(variant):
    s = setup(players=4, variant=variant)
    key = root_key(8)
    whole = GAME.simulate_chunk(s, key, 0, 10)
    again = GAME.simulate_chunk(s, key, 0, 10)
    parts = [GAME.simulate_chunk(s, key, 0, 4), GAME.simulate_chunk(s, key, 4, 6)]
    for name in ("games", "reveals"):
        assert whole[name].equals(again[name])
        assert whole[name].equals(pl.concat([p[name] for p in parts]))
        assert set(whole[name].columns) <= set(GAME.columns[name])


@pytest.mark.parametrize("variant", ["full", "young"])
@pytest.mark.parametrize("policy", ["random", "eager", "cunning"])
def test_debug_mode_conservation(variant, policy):
    s = setup(players=4, policy=policy, variant=variant)
    t = GAME.simulate_chunk(s, root_key(30), 0, 300, debug=True)
    assert t["games"].height == 300


@pytest.mark.parametrize("policy", ["eager", "cunning", "random"])
def test_debug_and_fast_games_agree(policy):
    """Debug mode fills every policy's whole observation; the fast kernel gives an eager seat only
    the entries eager reads (rules.lean). Same games either way, in a mixed table too."""
    for seats in ([policy] * 4, [policy, "eager", "cunning", "eager"]):
        s = build_setup(GAME, "full", 4, seats, {"p_perform": 0.7})
        fast = GAME.simulate_chunk(s, root_key(40), 0, 400)
        slow = GAME.simulate_chunk(s, root_key(40), 0, 400, debug=True)
        assert all(fast[k].equals(slow[k]) for k in fast)


@pytest.mark.parametrize("rules", [
    {"shield_turtle": True, "refund_to": "bottom", "restart_revives": True, "p_perform": 0.5},
    {"shield_continue": "target", "never_happened_held": False, "pick_self": False},
    {"remove": ["Restart Game", "Shuffle", "Eliminated"]},
])
def test_debug_mode_conservation_with_knobs(rules):
    for players in (2, 6):
        s = build_setup(GAME, "full", players, "random", rules)
        assert GAME.simulate_chunk(s, root_key(31), 0, 200, debug=True)["games"].height == 200


def test_interpreted_kernel_matches_compiled(plugin, tmp_path):
    code = ("import sys; from cardsim.games import get_game; from cardsim.scenario import build_setup; "
            "g = get_game('turtle'); s = build_setup(g, 'full', 4, 'cunning'); "
            "t = g.simulate_chunk(s, 99, 0, 12, debug=True); "
            "t['games'].write_parquet(sys.argv[1] + '/g.parquet'); t['reveals'].write_parquet(sys.argv[1] + '/r.parquet')")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, check=True,
                   cwd=os.path.dirname(os.path.dirname(__file__)))
    t = GAME.simulate_chunk(setup(players=4, policy="cunning"), 99, 0, 12)
    assert t["games"].equals(pl.read_parquet(tmp_path / "g.parquet"))
    assert t["reveals"].equals(pl.read_parquet(tmp_path / "r.parquet"))


def test_trace_decodes_every_event_kind():
    s = setup(players=4, policy="random", p_perform=0.5)
    events = GAME.trace(s, root_key(1), 0, 40)
    seen = {e["event"] for e in events}
    assert {"start", "deal", "turn", "discard", "reveal", "effect", "hold", "redeal", "win", "end", "skip",
            "perform", "next_effect", "eliminated"} <= seen
    for e in events:
        json.dumps(e)
        assert isinstance(GAME.describe_event(e), str) and GAME.describe_event(e)
    ends = [e for e in events if e["event"] == "end"]
    assert [e["game"] for e in ends] == list(range(40))
    games = GAME.simulate_chunk(s, root_key(1), 0, 40)["games"]
    assert [e["turns"] for e in ends] == games["turns"].to_list()
    assert [e["winner"] for e in ends] == games["winner"].to_list()


def test_trace_events_are_the_kernels_reveals():
    s = setup(players=3)
    events = GAME.trace(s, root_key(6), 0, 20)
    t = GAME.simulate_chunk(s, root_key(6), 0, 20)
    action = [e for e in events if e["event"] == "reveal" and e["card"] in cards.ACTION_NAMES]
    assert len(action) == t["reveals"].height
    assert [e["card"] for e in action] == t["reveals"]["card"].cast(pl.String).to_list()
    per_seat = [sum(1 for e in events if e["event"] == "reveal" and e["game"] == g and e["seat"] == k)
                for g in range(20) for k in range(3)]
    cols = t["games"].select("reveals_s0", "reveals_s1", "reveals_s2").rows()
    assert per_seat == [x for row in cols for x in row]


def test_tables_outcomes_and_summary():
    s = setup(players=4)
    t = GAME.simulate_chunk(s, root_key(12), 0, 500)
    g = t["games"]
    assert set(g.columns) == {"game", "players", "winner", "turns", "eliminated", "restarts", "redeals",
                              "shuffles", "ended_by"} | {f"out_s{k}" for k in range(4)} | {
        f"reveals_s{k}" for k in range(4)}
    assert set(t["reveals"].columns) == set(GAME.columns["reveals"])
    elim = g.select(pl.sum_horizontal([(pl.col(f"out_s{k}") > 0).cast(pl.Int64) for k in range(4)]))
    assert elim.to_series().to_list() == g["eliminated"].to_list()
    lazy = {k: v.lazy() for k, v in t.items()}
    out = GAME.outcomes(lazy, s).collect()
    assert out.height == 2000 and out.group_by("game").agg(pl.col("win").sum())["win"].max() == 1
    summary = dict(GAME.summarize(lazy, s))
    assert len(summary) == 4
    per_card = next(f for title, f in summary.items() if title.startswith("Action cards"))
    assert per_card.height == 31 and {"games_rate", "games_lo", "games_hi", "win_rate", "win_lo", "win_hi"} <= set(
        per_card.columns)
    stood = t["reveals"].filter((pl.col("card") == "Turtle") & (pl.col("applied_to") >= 0))
    assert stood.height > 0 and stood["won"].all()  # a Turtle not stopped by No Way wins


def test_headline_and_report_figures():
    s = setup(players=4)
    lazy = {k: v.lazy() for k, v in GAME.simulate_chunk(s, root_key(13), 0, 400).items()}
    head = GAME.headline(lazy, s)
    assert head.startswith("No seat differs detectably from the fair share of 25.0% over 400 finished games (seat 0 ")
    # how games end: each share with its Wilson interval (games are independent)
    k = int(lazy["games"].filter(pl.col("ended_by") == "turtle").select(pl.len()).collect().item())
    lo, hi = wilson(k, 400)
    assert f"{100 * k / 400:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%) end with the Turtle" in head
    sections = GAME.figures(lazy, s)
    # the game length is the report's own section (one section, not two)
    assert [title for title, _, _ in sections] == ["Action cards"]
    cards_frame = sections[0][2][0][1]
    assert cards_frame.height == 31 and "lift" in cards_frame.columns


def test_young_variant_has_an_empty_reveals_table():
    t = GAME.simulate_chunk(setup(variant="young"), root_key(1), 0, 20)
    assert t["reveals"].height == 0 and set(t["reveals"].columns) == set(GAME.columns["reveals"])


def test_same_game_index_deals_the_same_cards_whatever_the_policies():
    a = GAME.trace(setup(policy="eager"), root_key(5), 3, 1)
    b = GAME.trace(setup(policy="random"), root_key(5), 3, 1)
    deal = [e for e in a if e["event"] == "discard"][:2]
    assert deal == [e for e in b if e["event"] == "discard"][:2]



def test_remove_naming_a_card_twice_names_the_card():
    with pytest.raises(ScenarioError, match=r"^rules\.remove names 'Shuffle' twice; list each card once$"):
        setup(remove=["Restart Game", "Shuffle", "Shuffle"])
