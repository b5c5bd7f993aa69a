"""Gubs rules G1-G5, every card effect and the ten FAQ answers on constructed tables.

A table is built card by card (``cardsim.games.gubs.table.Table``: who holds what, what is
in play, the deck order top first, the discard pile), then the real kernel plays a turn
with scripted decisions (``play``, ``respond``, ``pick``, ``draw``/``skip``). Only the
cards placed exist, and every run checks card conservation (debug mode). Most scripts
start with ``skip()`` so the acting seat's hand stays exactly as built.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardsim.errors import PolicyError, ScenarioError
from cardsim.games.gubs import cards as C
from cardsim.games.gubs import engine as E
from cardsim.games.gubs.game import GAME
from cardsim.games.gubs.table import Table, draw, pick, play, respond, skip, stop
from cardsim.scenario import build_setup

FILL = ("Velvet Moth", "Velvet Moth", "Spear", "Spear", "Scout")


def ops(legal, op=None, card=None):
    return [a for a in legal if (op is None or a[0] == op) and (card is None or a[1] == card)]


# -- G1: the catalogue --------------------------------------------------------------------------
def test_G1_catalogue_counts_and_types():
    cnt = dict(zip(C.CARD_NAMES, C.STANDARD_COUNTS.tolist(), strict=True))
    assert sum(cnt.values()) == 70
    assert cnt["Gub"] == 13 and cnt["Esteemed Elder"] == 1
    assert cnt["Mushroom"] + cnt["Toad Rider"] + cnt["Velvet Moth"] == 13
    assert (cnt["Mushroom"], cnt["Toad Rider"], cnt["Velvet Moth"]) == (7, 4, 2)
    assert (cnt["Sud Spout"], cnt["Single Ring"], cnt["Double Ring"], cnt["Triple Ring"]) == (4, 1, 1, 1)
    assert (cnt["Lure"], cnt["Super Lure"], cnt["Cyclone"], cnt["Lightning"], cnt["Smahl Thief"],
            cnt["Omen Beetle"]) == (7, 2, 1, 1, 1, 1)
    assert (cnt["Spear"], cnt["Haki Flute"], cnt["Scout"], cnt["Retreat"], cnt["Age-Old Cure"]) == (4, 2, 1, 1, 2)
    assert (cnt["Feather"], cnt["Blindfold"], cnt["Flop Boat"], cnt["Cricket Song"]) == (2, 1, 1, 1)
    assert all(cnt[n] == 1 for n in ("Flash Flood", "Gargok Plague", "Dangerous Alchemy", "Traveling Merchant",
                                     "Rumor of Wasps", "G", "U", "B"))
    for c in C.CATALOGUE:
        assert c.source in ("sheet", "faq", "reference", "assumed")
        assert c.effect and c.text
    assumed = {c.name for c in C.CATALOGUE if c.source == "assumed"}
    assert {"Toad Rider", "Lure", "Super Lure", "Scout", "Blindfold", *C.ASSUMED_EVENTS} <= assumed


def test_G1_count_knobs_change_the_deck_and_validate():
    s = build_setup(GAME, rules={"remove_cards": ["Rumor of Wasps", "Lure", "Lure"], "add_cards": ["Feather"]})
    cnt = GAME.counts(s)
    assert cnt[C.WASPS] == 0 and cnt[C.LURE] == 5 and cnt[C.FEATHER] == 3 and cnt.sum() == 70 - 3 + 1
    s = build_setup(GAME, rules={"assumed_events": False})
    assert GAME.counts(s)[[C.ALCHEMY, C.MERCHANT, C.WASPS]].tolist() == [0, 0, 0]
    with pytest.raises(ScenarioError, match="more copies"):
        build_setup(GAME, rules={"remove_cards": ["Rumor of Wasps", "Rumor of Wasps"]})
    with pytest.raises(ScenarioError, match="unknown name 'G'"):
        build_setup(GAME, rules={"remove_cards": ["G"]})
    with pytest.raises(ScenarioError, match="one Esteemed Elder"):
        build_setup(GAME, rules={"add_cards": ["Esteemed Elder"]})
    with pytest.raises(ScenarioError, match="one per player"):
        build_setup(GAME, players=6, rules={"remove_cards": ["Gub"] * 8})
    with pytest.raises(ScenarioError, match="Mushrom"):
        build_setup(GAME, rules={"remove_cards": ["Mushrom"]})


def test_G1_removed_card_never_appears():
    s = build_setup(GAME, policies="random", rules={"remove_cards": ["Flash Flood", "Cricket Song"]})
    cards = GAME.simulate_chunk(s, 3, 0, 200, debug=True)["cards"]
    assert cards.filter(cards["card"].is_in(["Flash Flood", "Cricket Song"])).height == 0


# -- G2: set-up -----------------------------------------------------------------------------------
def test_G2_letters_one_in_each_third_of_the_deck():
    s = build_setup(GAME, players=2)
    cnt, kn = GAME.counts(s), GAME.knob_array(s)
    deck = np.zeros(C.DECK_MAX, np.int32)
    scr = np.zeros(C.DECK_MAX, np.int32)
    rng = np.zeros(1, np.uint64)
    for seed in range(300):
        rng[0] = np.uint64(seed * 7919 + 1)
        n = E.build_deck(2, cnt, kn, deck, rng, scr)
        top_first = deck[:n][::-1].tolist()
        assert n == 70 - 2
        assert Counter(top_first) == Counter({k: int(cnt[k]) - (2 if k == C.GUB else 0) for k in range(C.NK)
                                              if cnt[k] - (2 if k == C.GUB else 0) > 0})
        # 65 other cards -> parts of 22, 22, 21, each with one Letter: 23 / 23 / 22 cards
        parts = (top_first[:23], top_first[23:46], top_first[46:])
        assert [sum(c >= C.LETTER_G for c in p) for p in parts] == [1, 1, 1]


def test_G2_letter_placement_shuffled_puts_letters_anywhere():
    """letter_placement = "shuffled": the same cards, the Letters shuffled in with the rest, so a deal
    may hold two Letters in one third (never with "thirds", above); over 300 deals every position of
    the deck holds a Letter about as often (3 of 68 cards: each third about a third of them)."""
    s = build_setup(GAME, players=2, rules={"letter_placement": "shuffled"})
    cnt, kn = GAME.counts(s), GAME.knob_array(s)
    deck = np.zeros(C.DECK_MAX, np.int32)
    scr = np.zeros(C.DECK_MAX, np.int32)
    rng = np.zeros(1, np.uint64)
    crowded, per_third = 0, np.zeros(3, np.int64)
    for seed in range(300):
        rng[0] = np.uint64(seed * 7919 + 1)
        n = E.build_deck(2, cnt, kn, deck, rng, scr)
        top_first = deck[:n][::-1].tolist()
        assert n == 68 and sum(c >= C.LETTER_G for c in top_first) == 3
        third = [sum(c >= C.LETTER_G for c in p) for p in (top_first[:23], top_first[23:46], top_first[46:])]
        per_third += third
        crowded += max(third) > 1
    # two or three Letters in one third in about 7 of 9 deals (1 - 23*23*22*6/(68*67*66) = 0.77)
    assert 0.65 < crowded / 300 < 0.88
    assert per_third.min() > 240  # 900 Letters, about 300 a third


def test_G2_start_gubs_and_event_free_opening_hands():
    for n in (2, 4, 6):
        s = build_setup(GAME, players=n, policies="random")
        ev = GAME.trace(s, 11, 0, 30)
        for g in range(30):
            evg = [e for e in ev if e["game"] == g]
            starts = [e for e in evg if e["event"] == "start_gub"]
            assert sorted(e["seat"] for e in starts) == list(range(n)) and all(e["card"] == "Gub" for e in starts)
            deals = [e for e in evg if e["event"] == "deal"][: 3 * n]
            assert Counter(e["seat"] for e in deals) == Counter({s: 3 for s in range(n)})
            assert not any(C.CARD_TYPE[C.card_code(e["card"])] >= C.T_EVENT for e in deals)


def test_G2_dealt_event_goes_back_and_is_replaced():
    s = build_setup(GAME, players=2, policies="simple")
    rest = GAME.counts(s).copy()
    rest[C.GUB] -= 2
    top = ["Flash Flood", "Lure", "Spear", "G", "Mushroom", "Feather", "Cyclone", "Scout"]
    for nm in top:
        rest[C.card_code(nm)] -= 1
    stack = [C.card_code(nm) for nm in top] + [k for k in range(C.NK) for _ in range(rest[k])]
    ev = GAME.trace(s, 5, 0, 1, stack=np.array(stack, np.int32))
    back = [e for e in ev if e["event"] == "event_dealt_back"]
    assert [e["card"] for e in back[:2]] == ["Flash Flood", "G"]
    deals = [(e["seat"], e["card"]) for e in ev if e["event"] == "deal"][:6]
    assert deals[:4] == [(0, "Lure"), (1, "Spear"), (0, "Mushroom"), (1, "Feather")]
    assert all(C.CARD_TYPE[C.card_code(c)] < C.T_EVENT for _, c in deals)


# -- G3: the turn ---------------------------------------------------------------------------------
def test_G3_draw_is_optional():
    t = Table(2).give(0, "Spear").deck(*FILL)
    r = t.play([[skip()], []])
    assert r.hands(0) == Counter({"Spear": 1}) and len(r.deck) == 5 and r.pub[C.P_SKIP + 0] == 1
    assert r.kinds("skip_draw") and not r.kinds("draw")
    r = t.play([[draw()], []])
    assert r.hands(0) == Counter({"Spear": 1, "Velvet Moth": 1}) and len(r.deck) == 4 and r.pub[C.P_SKIP + 0] == 0


def test_G3_no_two_skips_in_a_row():
    t = Table(2).give(0, "Spear").deck("Lure", *FILL).skipped(0)
    r = t.play([[skip()], []])
    assert r.hands(0)["Lure"] == 1 and r.kinds("draw") and not r.kinds("skip_draw")
    assert r.pub[C.P_SKIP + 0] == 0
    # over two turns of seat 0: skip, then the draw is forced
    t = Table(2).deck("Lure", "Spear", *FILL)
    r = t.play([[skip(), skip()], [skip()]], turns=3)
    assert [e["seat"] for e in r.kinds("skip_draw")] == [0, 1]
    assert [(e["seat"], e["card"]) for e in r.kinds("draw")] == [(0, "Lure")]


def test_G3_no_draw_after_playing_and_FAQ1_play_any_number():
    t = Table(2).give(0, "Gub", "Gub", "Mushroom", "Velvet Moth").gub(0).deck(*FILL)
    r = t.play([[skip(), play("gub", "Gub"), play("gub", "Gub"), play("protect", "Mushroom"),
                 play("protect", "Velvet Moth")], []])
    assert r.score(0) == 3 and r.protected(0) == 2 and r.free(0) == 1 and r.hand_size(0) == 0
    assert len(r.deck) == 5 and not r.kinds("draw")
    assert len(r.kinds("play")) == 4


def test_G3_FAQ1_max_plays_knob_cuts_the_play_phase():
    """FAQ 1 allows any number of plays; the max_plays knob (a safety cap against endless turns) cuts
    a turn's play phase after that many plays: the third Gub stays in hand, the turn moves on."""
    t = Table(2, rules={"max_plays": 2}).give(0, "Gub", "Gub", "Gub").deck(*FILL)
    r = t.play([[skip(), play("gub", "Gub"), play("gub", "Gub"), play("gub", "Gub")], [skip()]], turns=2)
    assert len(r.kinds("play")) == 2 and r.score(0) == 2 and r.hands(0) == Counter({"Gub": 1})
    assert [e["seat"] for e in r.kinds("turn")] == [0, 1]
    r = Table(2).give(0, "Gub", "Gub", "Gub").deck(*FILL).play(
        [[skip(), play("gub", "Gub"), play("gub", "Gub"), play("gub", "Gub")], []])
    assert len(r.kinds("play")) == 3 and r.score(0) == 3  # the default (200) does not cut it


def test_G3_discard_down_to_the_hand_limit_at_the_end_of_the_turn():
    hand = ("Gub", "Gub", "Spear", "Spear", "Scout", "Lure", "Feather", "Mushroom")
    t = Table(2).give(0, *hand).deck("Cyclone", *FILL)
    r = t.play([[draw(), pick("Scout")], []])
    assert r.hand_size(0) == 8 and r.discard == Counter({"Scout": 1})
    assert [e["card"] for e in r.kinds("discard")] == ["Scout"]
    # at eight nothing is discarded (the sheet: no discarding at will below the limit)
    r = t.play([[skip()], []])
    assert r.hand_size(0) == 8 and not r.kinds("discard")


def test_G3_hand_limit_knob():
    t = Table(2, rules={"hand_limit": 2}).give(0, "Gub", "Spear", "Scout").deck(*FILL)
    r = t.play([[skip(), pick("Scout")], []])
    assert r.hand_size(0) == 2 and r.discard["Scout"] == 1


def test_G3_turns_pass_clockwise_from_seat_0():
    s = build_setup(GAME, players=4, policies="random")
    ev = GAME.trace(s, 2, 0, 1)
    seats = [e["seat"] for e in ev if e["event"] == "turn"]
    assert seats[:8] == [0, 1, 2, 3, 0, 1, 2, 3]


def test_FAQ2_gubs_may_stay_in_hand_only_events_must_act():
    t = Table(2).gub(0).deck("Gub", *FILL)
    r = t.play([[draw(), stop()], []])
    assert r.hands(0) == Counter({"Gub": 1}) and r.score(0) == 1


def test_FAQ4_play_continues_after_a_drawn_event():
    t = Table(2).give(0, "Gub").gub(1).deck("Flash Flood", *FILL)
    r = t.play([[draw(), play("gub", "Gub")], []])
    assert [e["card"] for e in r.kinds("event")] == ["Flash Flood"]
    assert r.score(0) == 1 and r.score(1) == 0 and r.discard == Counter({"Gub": 1, "Flash Flood": 1})


# -- G4: interrupts ---------------------------------------------------------------------------------
def test_G4_feather_cancels_a_hazard_both_cards_discarded():
    t = Table(2).give(0, "Lure").give(1, "Feather").gub(0).gub(1).deck(*FILL)
    r = t.play([[skip(), play("lure", "Lure", tseat=1)], [respond("Feather")]])
    assert r.score(0) == 1 and r.score(1) == 1
    assert r.discard == Counter({"Lure": 1, "Feather": 1})
    (ans,) = r.kinds("interrupt")
    assert (ans["seat"], ans["card"], ans["answers"]) == (1, "Feather", "Lure")
    assert r.kinds("cancelled")[0]["card"] == "Lure"


def test_G4_feather_cancels_a_trap():
    t = Table(2).give(0, "Sud Spout").give(1, "Feather").gub(1).deck(*FILL)
    r = t.play([[skip(), play("trap", "Sud Spout", tseat=1)], [respond("Feather")]])
    assert r.score(1) == 1 and r.side(1)[0]["trap"] is None and r.discard == Counter({"Sud Spout": 1, "Feather": 1})


def test_G4_a_passed_window_lets_the_card_act():
    t = Table(2).give(0, "Lure").give(1, "Feather").gub(1).deck(*FILL)
    r = t.play([[skip(), play("lure", "Lure", tseat=1)], [respond(None)]])
    assert r.score(0) == 1 and r.score(1) == 0 and r.hands(1) == Counter({"Feather": 1})
    assert r.kinds("interrupt_asked") and r.kinds("interrupt_pass")


def test_G4_no_window_for_tools_barricades_or_gubs():
    t = Table(2).give(0, "Spear", "Mushroom", "Gub").give(1, "Feather", "Cricket Song").gub(1, "Velvet Moth")
    t.gub(0).deck(*FILL)
    r = t.play([[skip(), play("spear_barricade", "Spear", tseat=1), play("protect", "Mushroom"),
                 play("gub", "Gub")], [respond("Feather")]])
    assert not r.kinds("interrupt_asked") and r.hands(1) == Counter({"Feather": 1, "Cricket Song": 1})
    assert r.free(1) == 1 and r.score(0) == 2


def test_G4_blindfold_answers_lures_only():
    t = Table(2).give(0, "Cyclone", "Lure").give(1, "Blindfold").gub(1, "Mushroom").gub(1).deck(*FILL)
    r = t.play([[skip(), play("cyclone", "Cyclone", tseat=1), play("lure", "Lure", tseat=1)],
                [respond("Blindfold")]])
    asked = r.kinds("interrupt_asked")
    assert [e["card"] for e in asked] == ["Lure"]
    assert r.discard == Counter({"Cyclone": 1, "Mushroom": 1, "Lure": 1, "Blindfold": 1})
    assert r.score(0) == 0 and r.free(1) == 2


def test_G4_blindfold_cancels_super_lure():
    t = Table(2).give(0, "Super Lure").give(1, "Blindfold").gub(1).gub(1, "Mushroom").deck(*FILL)
    r = t.play([[skip(), play("super_lure", "Super Lure", tseat=1)], [respond("Blindfold")]])
    assert r.score(1) == 2 and r.score(0) == 0


def test_G4_flop_boat_answers_events_not_plays_and_feather_not_events():
    t = Table(2).give(0, "Lure").give(1, "Flop Boat").gub(1).deck(*FILL)
    r = t.play([[skip(), play("lure", "Lure", tseat=1)], [respond("Flop Boat")]])
    assert not r.kinds("interrupt_asked") and r.score(0) == 1
    t = Table(2).give(1, "Feather").gub(1).deck("Flash Flood", *FILL)
    r = t.play([[draw()], [respond("Feather")]])
    assert not r.kinds("interrupt_asked") and r.score(1) == 0


def test_G4_flop_boat_sends_a_drawn_event_back_into_the_deck():
    t = Table(2).give(1, "Flop Boat").gub(0).gub(1).deck("Flash Flood", *FILL)
    r = t.play([[draw()], [respond("Flop Boat")]])
    assert r.score(0) == 1 and r.score(1) == 1
    assert sorted(r.deck) == sorted(["Flash Flood", *FILL]) and r.discard == Counter({"Flop Boat": 1})
    assert not r.kinds("event") and r.kinds("flop_boat")[0]["card"] == "Flash Flood"


def test_G4_drawer_is_asked_last_and_may_flop_its_own_event():
    t = Table(2).give(0, "Flop Boat").give(1, "Flop Boat").gub(0).deck("Flash Flood", *FILL)
    r = t.play([[draw(), respond("Flop Boat")], [respond(None)]])
    assert [e["seat"] for e in r.kinds("interrupt_asked")] == [1, 0]
    assert r.score(0) == 1 and r.hands(0) == Counter() and r.hands(1) == Counter({"Flop Boat": 1})


def test_G4_answers_asked_in_turn_order_from_the_acting_players_left():
    t = Table(3).give(0, "Lure").give(1, "Feather").give(2, "Feather").gub(2).deck(*FILL)
    r = t.play([[skip(), play("lure", "Lure", tseat=2)], [respond("Feather")], [respond("Feather")]])
    assert [e["seat"] for e in r.kinds("interrupt_asked")] == [1]
    assert r.hands(2) == Counter({"Feather": 1}) and r.score(2) == 1
    r = t.play([[skip(), play("lure", "Lure", tseat=2)], [respond(None)], [respond("Feather")]])
    assert [e["seat"] for e in r.kinds("interrupt_asked")] == [1, 2]
    assert r.hands(1) == Counter({"Feather": 1}) and r.hands(2) == Counter() and r.score(2) == 1
    # seat 2 acts: seat 0 (its left) is asked before seat 1
    t = Table(3).give(2, "Lure").give(0, "Feather").give(1, "Feather").gub(1).deck(*FILL).start(2)
    r = t.play([[respond(None)], [respond(None)], [skip(), play("lure", "Lure", tseat=1)]])
    assert [e["seat"] for e in r.kinds("interrupt_asked")] == [0, 1]


def test_G4_the_acting_player_is_not_asked_and_an_answer_is_not_answered():
    t = Table(2).give(0, "Lure", "Feather", "Cricket Song").give(1, "Feather").gub(1).deck(*FILL)
    r = t.play([[skip(), play("lure", "Lure", tseat=1), respond("Feather")], [respond("Feather")]])
    assert [e["seat"] for e in r.kinds("interrupt_asked")] == [1]
    assert len(r.kinds("interrupt")) == 1 and r.hands(0) == Counter({"Feather": 1, "Cricket Song": 1})


def test_G4_FAQ3_cricket_song_as_an_interrupt():
    t = Table(2).give(0, "Lure").give(1, "Cricket Song").gub(1).deck(*FILL)
    r = t.play([[skip(), play("lure", "Lure", tseat=1)], [respond("Cricket Song")]])
    (ans,) = r.kinds("interrupt")
    assert (ans["card"], ans["as"]) == ("Cricket Song", "Feather") and r.score(1) == 1
    t = Table(2).give(1, "Cricket Song").gub(1).deck("Flash Flood", *FILL)
    r = t.play([[draw()], [respond("Cricket Song")]])
    (ans,) = r.kinds("interrupt")
    assert ans["as"] == "Flop Boat" and r.score(1) == 1 and "Flash Flood" in r.deck


def test_FAQ7_flop_boat_returns_even_the_final_letter():
    t = Table(2).give(1, "Flop Boat").gub(0).letters(2).deck("B", *FILL)
    r = t.play([[draw()], [respond("Flop Boat")]], turns=1)
    assert not r.over and r.letters == 2 and "B" in r.deck and r.pub[C.P_FLOPPED] == 1
    assert r.kinds("flop_boat")[0]["card"] == "B"


# -- card effects --------------------------------------------------------------------------------------
def test_card_gub_enters_play_free_and_scores():
    r = Table(2).give(0, "Gub").deck(*FILL).play([[skip(), play("gub", "Gub")], []])
    assert r.side(0) == [{"slot": 0, "elder": False, "barricades": Counter(), "trap": None}] and r.score(0) == 1


def test_card_esteemed_elder_FAQ5_immune_to_all_but_lightning():
    t = Table(2, rules={"lightning_hand": False})
    t.give(0, "Lure", "Super Lure", "Sud Spout", "Single Ring", "Smahl Thief", "Cyclone", "Omen Beetle", "Spear",
           "Haki Flute", "Lightning")
    t.gub(1, elder=True).deck(*FILL)
    legal = t.legal(0)
    assert {a[0] for a in legal} == {"stop", "lightning_elder"}
    r = t.play([[skip(), play("lightning_elder", "Lightning")], []])
    assert r.score(1) == 0 and r.discard["Esteemed Elder"] == 1 and r.discard["Lightning"] == 1


def test_card_esteemed_elder_never_protected_never_flooded():
    t = Table(2).give(0, "Mushroom", "Velvet Moth", "Toad Rider").gub(0, elder=True).deck("Flash Flood", *FILL)
    assert not ops(t.legal(0), "protect")
    r = t.play([[draw()], []])
    assert r.score(0) == 1 and r.side(0)[0]["elder"]


def test_card_esteemed_elder_cannot_be_taken_with_age_old_cure():
    t = Table(2).give(0, "Age-Old Cure").discard("Esteemed Elder", "Gub").deck(*FILL)
    assert [a[4] for a in ops(t.legal(0), "cure")] == ["Gub"]


def test_card_mushroom_protects_or_discards_any_mushroom():
    t = Table(2).give(0, "Mushroom", "Mushroom").gub(0)
    s1 = t.put(1, "Mushroom")
    t.deck(*FILL)
    r = t.play([[skip(), play("protect", "Mushroom"), play("discard_mushroom", "Mushroom", tseat=1, tslot=s1)], []])
    assert r.protected(0) == 1 and r.free(1) == 1 and r.discard == Counter({"Mushroom": 2})
    # any Mushroom in play: its own too
    t = Table(2).give(0, "Mushroom")
    s0 = t.put(0, "Mushroom")
    assert ("discard_mushroom", "Mushroom", 0, s0, "Mushroom") in t.legal(0)


def test_card_toad_rider_protects_or_destroys_any_barricade_assumed():
    t = Table(2).give(0, "Toad Rider")
    s1 = t.put(1, "Velvet Moth")
    t.gub(0)
    t.deck(*FILL)
    r = t.play([[skip(), play("destroy_barricade", "Toad Rider", tseat=1, tslot=s1, aux="Velvet Moth")], []])
    assert r.free(1) == 1 and r.discard == Counter({"Toad Rider": 1, "Velvet Moth": 1})
    assert ops(t.legal(0), "protect", "Toad Rider")
    t2 = Table(2, rules={"toad_rider_destroys": False}).give(0, "Toad Rider")
    t2.gub(1, "Velvet Moth")
    assert not ops(t2.legal(0), "destroy_barricade")


def test_card_velvet_moth_only_protects():
    t = Table(2).give(0, "Velvet Moth").gub(0)
    t.gub(1, "Mushroom")
    assert [a[0] for a in t.legal(0)] == ["stop", "protect"]


def test_barricades_stack_seed001_knob():
    t = Table(2).give(0, "Velvet Moth")
    s0 = t.put(0, "Mushroom")
    assert ("protect", "Velvet Moth", 0, s0, 0) in t.legal(0)
    t.deck(*FILL)
    r = t.play([[skip(), play("protect", "Velvet Moth", tslot=s0)], []])
    assert r.side(0)[0]["barricades"] == Counter({"Mushroom": 1, "Velvet Moth": 1})
    t2 = Table(2, rules={"barricade_stack": False}).give(0, "Velvet Moth")
    t2.gub(0, "Mushroom")
    assert not ops(t2.legal(0), "protect")


def test_card_sud_spout_traps_a_free_gub_where_it_sits():
    t = Table(2).give(0, "Sud Spout").gub(1).gub(1, "Mushroom").deck(*FILL)
    assert [a[2] for a in ops(t.legal(0), "trap")] == [1]
    r = t.play([[skip(), play("trap", "Sud Spout", tseat=1)], []])
    assert r.score(1) == 1 and [g["trap"] for g in r.side(1)] == ["Sud Spout", None] and r.score(0) == 0
    # a Protected Gub cannot be trapped
    t = Table(2).give(0, "Sud Spout").gub(1, "Mushroom")
    assert not ops(t.legal(0), "trap")


def test_card_rings_trap_free_gubs_beneath_them_on_your_side():
    t = Table(2).give(0, "Single Ring").gub(1).gub(1).deck(*FILL)
    r = t.play([[skip(), play("ring", "Single Ring", aux={1: 1})], []])
    assert r.score(1) == 1 and r.score(0) == 0
    assert r.rings() == [{"ring": 0, "side": 0, "card": "Single Ring", "gubs": 1}]
    assert [g["trap"] for g in r.side(0)] == ["Single Ring"]
    # Double Ring: exactly two (ring_exact); from two players with three players
    t = Table(2).give(0, "Double Ring").gub(1)
    assert not ops(t.legal(0), "ring")
    t = Table(2, rules={"ring_exact": False}).give(0, "Double Ring").gub(1)
    assert len(ops(t.legal(0), "ring")) == 1
    t = Table(3).give(0, "Triple Ring").gub(1).gub(1).gub(2).deck(*FILL)
    r = t.play([[skip(), play("ring", "Triple Ring", aux={1: 2, 2: 1})], [], []])
    assert (r.score(1), r.score(2)) == (0, 0) and r.rings()[0]["gubs"] == 3 and len(r.side(0)) == 3


def test_card_lure_moves_one_free_gub_assumed():
    t = Table(2).give(0, "Lure").gub(1, "Mushroom")
    assert not ops(t.legal(0), "lure")
    t.gub(1).deck(*FILL)
    r = t.play([[skip(), play("lure", "Lure", tseat=1)], []])
    assert r.free(0) == 1 and r.protected(1) == 1 and r.free(1) == 0


@pytest.mark.parametrize("mode", ["return", "discard", "move"])
def test_card_super_lure_takes_free_and_protected_gubs(mode):
    t = Table(2, rules={"stolen_barricades": mode}).give(0, "Super Lure")
    t.gub(1)
    t.gub(1, "Mushroom")
    t.gub(1, trap="Sud Spout")
    t.gub(1, elder=True)
    t.deck(*FILL)
    r = t.play([[skip(), play("super_lure", "Super Lure", tseat=1)], []])
    assert r.score(0) == 2 and r.score(1) == 1 and len(r.side(1)) == 2
    if mode == "return":
        assert r.hands(1) == Counter({"Mushroom": 1}) and r.free(0) == 2
    elif mode == "discard":
        assert r.discard["Mushroom"] == 1 and r.free(0) == 2
    else:
        assert r.protected(0) == 1 and r.free(0) == 1


def test_card_cyclone_destroys_target_barricades_gubs_stay():
    t = Table(2).give(0, "Cyclone").gub(1, "Mushroom", "Velvet Moth").gub(1, "Toad Rider").gub(1).deck(*FILL)
    r = t.play([[skip(), play("cyclone", "Cyclone", tseat=1)], []])
    assert r.free(1) == 3 and r.score(1) == 3
    assert r.discard == Counter({"Cyclone": 1, "Mushroom": 1, "Velvet Moth": 1, "Toad Rider": 1})


def test_card_lightning_discards_a_hand_assumed_knob():
    t = Table(2).give(0, "Lightning").give(1, "Gub", "Spear").deck(*FILL)
    r = t.play([[skip(), play("lightning_hand", "Lightning", tseat=1)], []])
    assert r.hand_size(1) == 0 and r.discard == Counter({"Lightning": 1, "Gub": 1, "Spear": 1})
    t = Table(2, rules={"lightning_hand": False}).give(0, "Lightning").give(1, "Gub")
    assert not ops(t.legal(0), "lightning_hand")


def test_card_smahl_thief_steals_a_gub_FAQ8_from_a_sud_spout():
    t = Table(2).give(0, "Smahl Thief").gub(1, trap="Sud Spout").deck(*FILL)
    r = t.play([[skip(), play("steal", "Smahl Thief", tseat=1, aux=1)], []])
    assert r.free(0) == 1 and r.score(1) == 0 and len(r.side(1)) == 0
    assert r.discard == Counter({"Smahl Thief": 1, "Sud Spout": 1})


def test_card_smahl_thief_protected_and_knobs():
    t = Table(2).give(0, "Smahl Thief")
    s1 = t.put(1, "Velvet Moth")
    t.deck(*FILL)
    r = t.play([[skip(), play("steal", "Smahl Thief", tseat=1, tslot=s1, aux=2)], []])
    assert r.free(0) == 1 and r.hands(1) == Counter({"Velvet Moth": 1})
    t = Table(2, rules={"thief_targets": "unprotected"}).give(0, "Smahl Thief")
    t.gub(1, "Velvet Moth")
    assert not ops(t.legal(0), "steal")
    t = Table(2, rules={"thief_to": "hand"}).give(0, "Smahl Thief").gub(1).deck(*FILL)
    r = t.play([[skip(), play("steal", "Smahl Thief", tseat=1, aux=0), stop()], []])
    assert r.hands(0) == Counter({"Gub": 1}) and r.score(0) == 0 and r.score(1) == 0


def test_card_omen_beetle_discards_every_mushroom_with_its_gub():
    t = Table(2).give(0, "Omen Beetle").gub(0, "Mushroom").gub(1, "Mushroom").gub(1, "Mushroom", "Velvet Moth")
    t.gub(1, "Velvet Moth").gub(1).deck(*FILL)
    r = t.play([[skip(), play("omen_beetle", "Omen Beetle")], []])
    assert r.score(0) == 0 and r.score(1) == 2
    assert r.discard == Counter({"Omen Beetle": 1, "Gub": 3, "Mushroom": 3, "Velvet Moth": 1})


def test_card_spear_FAQ6_destroys_a_sud_spout_gub_stays_free():
    t = Table(2).give(0, "Spear").gub(1, trap="Sud Spout").deck(*FILL)
    r = t.play([[skip(), play("spear_spout", "Spear", tseat=1)], []])
    assert r.free(1) == 1 and r.score(1) == 1 and r.score(0) == 0
    assert r.discard == Counter({"Spear": 1, "Sud Spout": 1})


def test_card_spear_destroys_a_barricade_and_has_no_window():
    t = Table(2).give(0, "Spear").give(1, "Feather")
    s1 = t.put(1, "Mushroom", "Mushroom")
    t.deck(*FILL)
    r = t.play([[skip(), play("spear_barricade", "Spear", tseat=1, tslot=s1, aux="Mushroom")], [respond("Feather")]])
    assert r.side(1)[0]["barricades"] == Counter({"Mushroom": 1}) and r.protected(1) == 1
    assert not r.kinds("interrupt_asked")


def test_card_haki_flute_shatters_a_ring_gubs_to_your_side():
    t = Table(2).give(0, "Haki Flute")
    ring = t.ring(1, "Double Ring", 2)
    t.deck(*FILL)
    r = t.play([[skip(), play("flute", "Haki Flute", tseat=1, aux=ring)], []])
    assert r.free(0) == 2 and r.score(0) == 2 and r.side(1) == [] and r.rings() == []
    assert r.discard == Counter({"Haki Flute": 1, "Double Ring": 1})


def test_card_scout_looks_at_the_top_three_or_a_hand_assumed():
    t = Table(2).give(0, "Scout", "Cricket Song").give(1, "Lure", "Lure").deck("Gub", "G", "Spear", "Mushroom")
    r = t.play([[skip(), play("scout_deck", "Scout"), play("scout_hand", "Cricket Song", tseat=1)], []])
    seen = r.kinds("scout_seen")
    assert [(e["card"], e["where"]) for e in seen[:3]] == [("Gub", "deck"), ("G", "deck"), ("Spear", "deck")]
    assert (seen[3]["card"], seen[3]["copies"]) == ("Lure", 2)
    assert r.deck == ["Gub", "G", "Spear", "Mushroom"] and r.discard == Counter({"Scout": 1, "Cricket Song": 1})


def test_card_retreat_FAQ10_everything_on_your_side_back_to_hand():
    t = Table(2).give(0, "Retreat", "Lure", "Lure", "Lure", "Lure", "Lure", "Lure")
    t.gub(0)
    t.gub(0, "Mushroom")
    t.gub(0, trap="Sud Spout")
    t.gub(0, elder=True)
    t.ring(0, "Single Ring", 1)
    t.gub(1)
    t.deck(*FILL)
    r = t.play([[skip(), play("retreat", "Retreat"), stop()] + [pick("Lure")] * 5, []])
    assert r.side(0) == [{"slot": 3, "elder": True, "barricades": Counter(), "trap": None}] and r.score(0) == 1
    assert r.hands(0) == Counter({"Gub": 4, "Mushroom": 1, "Sud Spout": 1, "Single Ring": 1, "Lure": 1})
    assert r.hand_size(0) == 8 and r.discard == Counter({"Retreat": 1, "Lure": 5}) and r.score(1) == 1


def test_card_age_old_cure_takes_a_card_from_the_discard_pile():
    t = Table(2).give(0, "Age-Old Cure").discard("Gub", "Lure", "Flash Flood", "Esteemed Elder").deck(*FILL)
    assert sorted(a[4] for a in ops(t.legal(0), "cure")) == ["Gub", "Lure"]
    r = t.play([[skip(), play("cure", "Age-Old Cure", aux="Lure")], []])
    assert r.hands(0) == Counter({"Lure": 1})
    assert r.discard == Counter({"Gub": 1, "Flash Flood": 1, "Esteemed Elder": 1, "Age-Old Cure": 1})
    t = Table(2, rules={"cure_takes": "gub"}).give(0, "Age-Old Cure").discard("Gub", "Lure")
    assert [a[4] for a in ops(t.legal(0), "cure")] == ["Gub"]


def test_card_cricket_song_FAQ3_any_hazard_or_tool_never_gub_barricade_trap():
    t = Table(2).give(0, "Cricket Song").gub(0).gub(1).gub(1, "Mushroom").gub(1, trap="Sud Spout")
    t.give(1, "Gub").discard("Gub").deck(*FILL).ring(1, "Single Ring", 1)
    legal = t.legal(0)
    assert all(a[1] == "Cricket Song" for a in legal[1:])
    kinds = {a[0] for a in legal}
    assert kinds.isdisjoint({"gub", "protect", "trap", "ring", "discard_mushroom", "destroy_barricade"})
    assert {"lure", "super_lure", "cyclone", "lightning_hand", "steal", "omen_beetle", "spear_spout",
            "spear_barricade", "flute", "scout_deck", "scout_hand", "retreat", "cure"} <= kinds
    r = t.play([[skip(), play("lure", "Cricket Song", tseat=1)], []])
    assert r.free(0) == 2 and r.discard["Cricket Song"] == 1
    assert r.kinds("play")[0]["as"] == "Lure"


def test_card_cricket_song_as_a_hazard_can_be_feathered():
    t = Table(2).give(0, "Cricket Song").give(1, "Blindfold").gub(1).deck(*FILL)
    r = t.play([[skip(), play("lure", "Cricket Song", tseat=1)], [respond("Blindfold")]])
    assert r.score(1) == 1 and r.discard == Counter({"Cricket Song": 1, "Blindfold": 1})


def test_card_flash_flood_discards_every_free_gub():
    t = Table(2).gub(0).gub(0, "Mushroom").gub(0, elder=True).gub(1).gub(1).gub(1, trap="Sud Spout")
    t.ring(1, "Single Ring", 1)
    t.deck("Flash Flood", *FILL)
    r = t.play([[draw()], []])
    assert (r.score(0), r.score(1)) == (2, 0)
    assert r.discard == Counter({"Gub": 3, "Flash Flood": 1}) and len(r.side(1)) == 2


def test_card_gargok_plague_FAQ9_age_old_cure_saves_a_hand():
    t = Table(2).give(0, "Gub", "Lure").give(1, "Age-Old Cure", "Spear", "Feather")
    t.deck("Gargok Plague", "Mushroom", "Mushroom", "Mushroom", "Mushroom")
    r = t.play([[draw()], [respond("Age-Old Cure")]])
    assert r.hands(1) == Counter({"Spear": 1, "Feather": 1})
    assert r.hand_size(0) == 2 and len(r.deck) == 4
    assert Counter(r.deck) + r.hands(0) == Counter({"Mushroom": 4, "Gub": 1, "Lure": 1})
    assert r.discard == Counter({"Gargok Plague": 1, "Age-Old Cure": 1})
    assert [e["seat"] for e in r.kinds("plague_save")] == [1]


def test_card_gargok_plague_redraw_knob_and_cricket_save():
    for mode, size in (("same", 2), ("three", 3), ("none", 0)):
        t = Table(2, rules={"plague_redraw": mode}).give(0, "Gub", "Lure").give(1, "Cricket Song", "Spear")
        t.deck("Gargok Plague", "Mushroom", "Mushroom", "Mushroom", "Mushroom")
        r = t.play([[draw()], [respond(None), respond("Cricket Song")]])
        assert [e["context"] for e in r.kinds("interrupt_asked")] == ["event", "plague"]
        assert r.hand_size(0) == size and r.hands(1) == Counter({"Spear": 1})
    # no Cure: the hand goes too
    t = Table(2).give(0, "Gub").give(1, "Spear", "Lure").deck("Gargok Plague", "Mushroom", "Mushroom", "Mushroom")
    r = t.play([[draw()], []])
    assert r.hand_size(1) == 2 and r.hand_size(0) == 1
    assert sum((Counter(r.deck) + r.hands(0) + r.hands(1)).values()) == 6


def test_card_dangerous_alchemy_drawer_discards_its_side_assumed():
    t = Table(2).gub(0).gub(0, "Velvet Moth").gub(0, elder=True).gub(0, trap="Sud Spout")
    t.ring(0, "Single Ring", 1)
    t.gub(1).deck("Dangerous Alchemy", *FILL)
    r = t.play([[draw()], []])
    assert r.score(0) == 1 and len(r.side(0)) == 1 and r.side(0)[0]["elder"] and r.score(1) == 1
    assert r.discard == Counter({"Gub": 4, "Velvet Moth": 1, "Sud Spout": 1, "Single Ring": 1,
                                 "Dangerous Alchemy": 1})


def test_card_traveling_merchant_keep_one_pass_the_rest_assumed():
    t = Table(2).give(0, "Gub", "Lure", "Spear").give(1, "Feather", "Mushroom").deck("Traveling Merchant", *FILL)
    r = t.play([[draw(), pick("Gub")], [pick("Feather")]])
    assert r.hands(0) == Counter({"Gub": 1, "Mushroom": 1})
    assert r.hands(1) == Counter({"Feather": 1, "Lure": 1, "Spear": 1})
    t = Table(3).give(0, "Gub", "Lure").give(1, "Feather").give(2, "Spear", "Scout").deck("Traveling Merchant", *FILL)
    r = t.play([[draw(), pick("Gub")], [pick("Feather")], [pick("Spear")]])
    assert r.hands(0) == Counter({"Gub": 1, "Scout": 1}) and r.hands(1) == Counter({"Feather": 1, "Lure": 1})
    assert r.hands(2) == Counter({"Spear": 1})


def test_card_rumor_of_wasps_toad_riders_and_their_gubs_into_the_deck_assumed():
    t = Table(2).gub(0, "Toad Rider", "Mushroom").gub(1, "Toad Rider").gub(1, "Velvet Moth").gub(1)
    t.deck("Rumor of Wasps", "Spear")
    r = t.play([[draw()], []])
    assert (r.score(0), r.score(1)) == (0, 2)
    assert Counter(r.deck) == Counter({"Spear": 1, "Gub": 2, "Toad Rider": 2})
    assert r.discard == Counter({"Mushroom": 1, "Rumor of Wasps": 1})


def test_card_letters_set_aside_third_ends_the_game_at_once():
    t = Table(2).give(0, "Gub").gub(0).gub(1).deck("G", *FILL)
    r = t.play([[draw(), play("gub", "Gub")], []])
    assert r.letters == 1 and not r.over and r.score(0) == 2 and "G" not in r.deck
    t = Table(2).give(0, "Gub").gub(0).gub(1).letters(2).deck("B", *FILL)
    r = t.play([[draw(), play("gub", "Gub")], []], turns=5)
    assert r.over and r.letters == 3 and r.turn == 1 and r.hands(0) == Counter({"Gub": 1})
    assert not r.kinds("play") and r.game["tie_break"] == "hand" and r.game["winner"] == 1


# -- G5: scoring ---------------------------------------------------------------------------------------
def end(t, s0=(), s1=()):
    t.letters(2).deck("B", *FILL)
    return t.play([[draw()], []])


def test_G5_free_and_protected_count_trapped_and_hand_do_not():
    t = Table(2).give(0, "Gub", "Gub").gub(0).gub(0, "Mushroom").gub(0, trap="Sud Spout")
    t.gub(1).ring(1, "Triple Ring", 3)
    r = end(t)
    assert r.game["scores"] == [2, 1] and r.game["winner"] == 0 and r.game["tie_break"] == "none"


def test_G5_tie_goes_to_the_elder():
    t = Table(2).give(1, "Gub", "Gub", "Gub").gub(0).gub(0).gub(1).gub(1, elder=True)
    r = end(t)
    assert r.game["scores"] == [2, 2] and r.game["winner"] == 1 and r.game["tie_break"] == "elder"


def test_G5_then_fewest_cards_in_hand_then_shared():
    t = Table(2).give(0, "Gub", "Spear").give(1, "Gub").gub(0).gub(1)
    r = end(t)
    assert r.game["winner"] == 1 and r.game["tie_break"] == "hand"
    t = Table(3).give(0, "Gub").give(1, "Spear").give(2, "Lure", "Lure").gub(0).gub(1).gub(2)
    r = end(t)
    assert r.game["winner"] == -1 and r.game["winners"] == [0, 1] and r.game["tie_break"] == "shared"


def test_G5_elder_tie_break_only_among_tied_players():
    t = Table(3).gub(0).gub(0).gub(1).gub(1).gub(2, elder=True).give(0, "Gub", "Gub")
    r = end(t)
    assert r.game["winner"] == 1 and r.game["tie_break"] == "hand"


# -- policies ------------------------------------------------------------------------------------------
def test_random_policy_uniform_over_legal_plays():
    from cardsim.games.gubs.policies import random_play

    rng = np.array([12345], np.uint64)
    acts = np.zeros((8, 5), np.int32)
    counts = Counter(random_play(0, acts, 5, None, None, None, rng) for _ in range(20000))
    assert sorted(counts) == [0, 1, 2, 3, 4] and all(3600 < v < 4400 for v in counts.values())


def test_simple_plays_gubs_protects_and_attacks_the_leader():
    t = Table(3).give(0, "Gub", "Velvet Moth", "Lure").gub(0).gub(1).gub(1).gub(1).gub(2).deck("Scout", "Spear")
    r = t.play(["simple", [], []])
    assert r.score(0) == 3 and r.protected(0) == 1
    assert [(e["card"], e.get("target_seat")) for e in r.kinds("play")] == [
        ("Gub", 0), ("Velvet Moth", 0), ("Lure", 1)]


def test_simple_answers_attacks_on_itself_only():
    t = Table(3).give(0, "Lure", "Lure").give(1, "Feather", "Feather").gub(1).gub(2).deck(*FILL)
    r = t.play([[skip(), play("lure", "Lure", tseat=2), play("lure", "Lure", tseat=1)], "simple", []])
    assert r.score(0) == 1 and r.score(2) == 0 and r.score(1) == 1 and r.hands(1) == Counter({"Feather": 1})


def test_strong_hides_gubs_until_letters_are_out():
    t = Table(2).give(0, "Gub", "Gub", "Gub").deck(*FILL)
    r = t.play([{"name": "strong", "hide_gubs": 1}, []])
    assert r.hands(0)["Gub"] == 1 and r.score(0) == 2
    t.letters(2)
    r = t.play([{"name": "strong", "hide_gubs": 1}, []])
    assert r.hands(0)["Gub"] == 0 and r.score(0) == 3


def test_strong_uses_scout_knowledge_to_skip_the_final_letter_when_behind():
    from cardsim.games.gubs.policies import strong_draw

    t = Table(2).gub(1).letters(2)
    pub = t.pub.copy()
    E.refresh(pub)
    params = np.array([v for _, v in GAME.policy("strong").params], np.float64)
    rng = np.zeros(1, np.uint64)
    assert strong_draw(0, C.LETTER_B, pub, t.hand[0], params, rng) == 0
    t.gub(0).gub(0)
    pub = t.pub.copy()
    E.refresh(pub)
    assert strong_draw(0, C.LETTER_B, pub, t.hand[0], params, rng) == 1


def test_script_mismatch_is_a_policy_error():
    t = Table(2).give(0, "Gub").deck(*FILL)
    with pytest.raises(PolicyError, match="seat 0"):
        t.play([[skip(), play("lure", "Lure", tseat=1)], []])


def test_slot_masks_find_the_first_gub_a_walk_of_the_table_finds():
    """``engine.find_slot`` reads the lowest bit of a seat's Free Gub (or Sud Spout) slot mask,
    which ``slot_delta`` keeps; it must name the slot a walk of the table names (the first such
    Gub: a play on "a Free Gub of seat s" takes it)."""
    t = Table(3)
    t.gub(0, elder=True).gub(0, "Mushroom").gub(0, trap="Sud Spout").gub(0).gub(0)  # slots 0-4
    t.ring(1, "Double Ring", 2)  # slots 5, 6
    t.gub(1).gub(1, trap="Sud Spout")  # slots 7, 8
    pub = t.pub.copy()
    E.refresh(pub)
    tmp = np.zeros(C.P_SIZE, np.int32)
    want = {(0, 0): 3, (0, 1): 2, (1, 0): 7, (1, 1): 8, (2, 0): -1, (2, 1): -1}
    for (side, cls), slot in want.items():
        assert E.find_slot(pub, side, cls) == E.find_slot_scan(pub, side, cls) == slot
    E.slot_set(pub, C.P_BV, 3, 1)  # a Velvet Moth on slot 3: slot 4 is seat 0's first Free Gub
    assert E.find_slot(pub, 0, 0) == 4 and E.summaries_ok(pub, tmp)
    E.slot_set(pub, C.P_TRAP, 8, 0)  # slot 8's Sud Spout leaves: a Free Gub before none under a Spout
    assert E.find_slot(pub, 1, 0) == 7 and E.find_slot(pub, 1, 1) == -1 and E.summaries_ok(pub, tmp)
    E.slot_clear(pub, 7)
    assert E.find_slot(pub, 1, 0) == 8 and E.summaries_ok(pub, tmp)
    E.slot_set(pub, C.P_SIDE, 4, 2)  # slot 4 moves to seat 2
    assert E.find_slot(pub, 0, 0) == -1 and E.find_slot(pub, 2, 0) == 4 and E.summaries_ok(pub, tmp)
    pub[C.P_BM + 8] = 1  # a change that bypasses slot_delta: the debug check sees the stale mask
    assert not E.summaries_ok(pub, tmp)


def test_protected_gub_representatives_from_the_slot_masks():
    """``engine.protected_reps`` (the Protected Gubs one per kind, from the seats' slot masks) lists
    the slots a walk of the table lists: slot order, the first of Gubs alike in side and Barricades."""
    t = Table(3)
    t.gub(1, "Mushroom").gub(0, "Toad Rider").gub(1).gub(1, "Mushroom")  # slots 0-3: slot 3 is like slot 0
    t.gub(2, "Mushroom", "Velvet Moth").gub(0, "Toad Rider").gub(1, "Toad Rider")  # 4-6: slot 5 like slot 1
    t.gub(0, "Mushroom", elder=True).gub(2, "Velvet Moth", trap="Sud Spout")  # 7, 8: neither is one
    pub = t.pub.copy()
    E.refresh(pub)
    reps, scan = np.zeros(C.MAX_GUBS, np.int32), np.zeros(C.MAX_GUBS, np.int32)
    want = {-1: [0, 1, 4, 6], 0: [1], 1: [0, 6], 2: [4]}
    for ld, slots in want.items():
        k = E.protected_reps(pub, reps, ld)
        assert reps[:k].tolist() == slots
        assert E.protected_reps_scan(pub, scan, ld) == k and scan[:k].tolist() == slots
    E.slot_clear(pub, 0)  # slot 3 now stands for seat 1's Mushroom Gubs
    k = E.protected_reps(pub, reps, 1)
    assert reps[:k].tolist() == [3, 6] and E.summaries_ok(pub, np.zeros(C.P_SIZE, np.int32))


def test_legal_play_buffer_holds_the_longest_list():
    """``engine.addc`` writes a row at ``acts[n]`` before it knows whether the row counts, so the
    buffer must hold the longest list ``legal_plays`` can make plus one row. The longest list, kind
    by kind (6 seats, so 5 opponents; 30 Gubs, so at most 30 Protected Gub representatives; 8
    Rings; ``ring_exact = false``, ``barricade_stack``, ``thief_targets = any``, ``cure_takes = any``)."""
    opp, reps = C.MAXS - 1, C.MAX_GUBS
    multisets = [1, opp, opp * (opp + 1) // 2, opp * (opp + 1) * (opp + 2) // 6]  # of 0..3 opponents
    rings = sum(multisets[size] for k in (1, 2, 3) for size in range(1, k + 1))
    hazards_and_tools = (opp + opp + opp  # Lure, Super Lure, Cyclone
                         + 1 + opp  # Lightning: the Elder, a hand
                         + 2 * opp + reps  # Smahl Thief: Free, under a Sud Spout, Protected
                         + 1  # Omen Beetle
                         + C.MAXS + 3 * reps  # Spear: a Sud Spout, a Barricade
                         + C.MAX_RINGS  # Haki Flute
                         + 1 + opp  # Scout: the deck, a hand
                         + 1  # Retreat
                         + C.FLOOD - 1)  # Age-Old Cure: a card of the discard pile but the Elder
    longest = (1 + 2  # stop, a Gub, the Elder
               + 3 * (1 + reps)  # each Barricade on a Free Gub or stacked
               + reps + 3 * reps  # Mushroom and Toad Rider on a Barricade
               + opp  # Sud Spout
               + rings
               + 2 * hazards_and_tools)  # each card, then Cricket Song acting as it
    assert longest == 693
    assert longest + 1 <= C.MAX_ACTS
