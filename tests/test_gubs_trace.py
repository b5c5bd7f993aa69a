"""Gubs traces say everything a checker needs (issue 18): every event and field is in
``trace_schema.EVENTS``, and a checker that knows only the trace follows every card (the
deck, each hand, the discard pile, each Gub slot and Ring) through whole games, checks
each move against the state it tracks (the card drawn is the top card; a Lure moves a Free
Gub of its target; a new Gub takes the lowest free slot ...) and ends with the scores the
kernel reports."""

from __future__ import annotations

from collections import Counter

import pytest

from cardsim.games.gubs import cards as C
from cardsim.games.gubs.game import GAME
from cardsim.games.gubs.table import Table, play
from cardsim.games.gubs.trace_schema import EVENTS
from cardsim.rng import root_key
from cardsim.scenario import build_setup

GUBS = ("Gub", "Esteemed Elder")
BARS = ("Mushroom", "Toad Rider", "Velvet Moth")
RINGS = ("Single Ring", "Double Ring", "Triple Ring")
EVENT_CARDS = {c.name for c in C.CATALOGUE if c.type in (C.T_EVENT, C.T_LETTER)}


def check_schema(events):
    for e in events:
        name = e["event"]
        assert name in EVENTS, f"unknown event {name}"
        spec = EVENTS[name]
        fields = set(e) - {"event", "game"}
        assert fields <= set(spec), f"{name}: unknown fields {fields - set(spec)}"
        need = {f for f, m in spec.items() if not m.startswith("(optional) ")}
        assert need <= fields, f"{name}: missing {need - fields}"


class Tracker:
    """The table as the trace alone shows it."""

    def __init__(self, players: int):
        self.n = players
        self.deck: list[str] = []
        self.hands = [Counter() for _ in range(players)]
        self.discard: Counter = Counter()
        self.slots: dict[int, dict] = {}
        self.rings: dict[int, dict] = {}
        self.pending: Counter = Counter()  # cards played or drawn, not yet placed
        self.letters = 0
        self.done = False

    # -- helpers -------------------------------------------------------------------
    def take(self, c: Counter, card: str, k: int = 1) -> None:
        assert c[card] >= k, f"{card} x{k} is not there ({dict(c)})"
        c[card] -= k

    def free(self, i: int) -> bool:
        s = self.slots[i]
        return not s["elder"] and s["trap"] is None and not +s["bars"]

    def score(self, seat: int) -> int:
        return sum(1 for s in self.slots.values() if s["side"] == seat and (s["elder"] or s["trap"] is None))

    def leave_play(self, e: dict) -> None:
        card = e["card"]
        k = e["copies"] if "copies" in e else 1
        side = e["from_seat"] if "from_seat" in e else e["seat"]
        if card in RINGS:
            r = self.rings.pop(e["ring"])
            assert r["card"] == card and r["side"] == side
            assert all(s["trap"] != ("ring", e["ring"]) for s in self.slots.values()), "Gubs left beneath a Ring"
            return
        s = self.slots[e["slot"]]
        assert s["side"] == side
        if card in GUBS:
            assert s["elder"] == (card == "Esteemed Elder") and k == 1
            assert not +s["bars"] and (s["trap"] is None or s["trap"][0] == "ring"), "a Gub left play before its cards"
            del self.slots[e["slot"]]
        elif card == "Sud Spout":
            assert s["trap"] == "spout"
            s["trap"] = None
        else:
            self.take(s["bars"], card, k)

    def place(self, e: dict) -> None:
        """Take the card of a to_* event from where it comes from."""
        src, card, k = e["from"], e["card"], e.get("copies", 1)
        if src == "play":
            self.leave_play(e)
        elif src == "hand":
            self.take(self.hands[e["from_seat"] if "from_seat" in e else e["seat"]], card, k)
        elif src == "played":
            self.take(self.pending, card, k)
        elif src == "discard":
            self.take(self.discard, card, k)
        elif src == "deck":
            assert self.deck[0] == card
            self.deck.pop(0)

    # -- events --------------------------------------------------------------------
    def apply(self, e: dict) -> None:
        k, s = e["event"], e.get("seat")
        if k == "start_gub":
            assert e["slot"] not in self.slots
            self.slots[e["slot"]] = {"side": s, "elder": False, "bars": Counter(), "trap": None}
        elif k == "deck":
            self.deck = list(e["cards"])
        elif k in ("deal", "draw"):
            assert self.deck and self.deck[0] == e["card"], f"{k} {e['card']} but the top is {self.deck[:1]}"
            self.deck.pop(0)
            if k == "draw":
                assert e["deck_left"] == len(self.deck)
            if k == "draw" and e["card"] in EVENT_CARDS:
                self.pending[e["card"]] += 1
            else:
                assert e["card"] not in EVENT_CARDS
                self.hands[s][e["card"]] += 1
        elif k == "turn":
            assert e["deck"] == len(self.deck) and e["letters"] == self.letters
        elif k == "interrupt":
            self.take(self.hands[s], e["card"])
            self.discard[e["card"]] += 1
        elif k in ("plague_save", "discard"):
            self.take(self.hands[s], e["card"])
            self.discard[e["card"]] += 1
        elif k == "cancelled":
            self.take(self.pending, e["card"])
            self.discard[e["card"]] += 1
        elif k == "letter":
            self.take(self.pending, e["card"])
            self.letters += 1
            assert e["letters"] == self.letters
        elif k == "play":
            self.take(self.hands[s], e["card"])
            self.pending[e["card"]] += 1
            self.check_play(e)
        elif k == "gub_in_play":
            assert e["slot"] == min(set(range(C.MAX_GUBS)) - set(self.slots)), "a new Gub takes the lowest free slot"
            self.take(self.pending, e["card"])
            self.slots[e["slot"]] = {"side": s, "elder": e["card"] == "Esteemed Elder", "bars": Counter(), "trap": None}
        elif k == "ring_in_play":
            assert e["ring"] not in self.rings
            self.take(self.pending, e["card"])
            self.rings[e["ring"]] = {"side": s, "card": e["card"]}
        elif k == "protected":
            sl = self.slots[e["slot"]]
            assert sl["side"] == s and not sl["elder"] and sl["trap"] is None
            self.take(self.pending, e["card"])
            sl["bars"][e["card"]] += 1
        elif k == "trapped":
            assert self.slots[e["slot"]]["side"] == s and self.free(e["slot"])
            if e["trap"] == "Sud Spout":
                self.take(self.pending, "Sud Spout")
                self.slots[e["slot"]]["trap"] = "spout"
            else:
                assert self.rings[e["ring"]]["card"] == e["trap"] and self.rings[e["ring"]]["side"] == e["ring_side"]
                self.slots[e["slot"]]["trap"] = ("ring", e["ring"])
        elif k == "freed":
            sl = self.slots[e["slot"]]
            assert sl["side"] == s
            if e["trap"] == "Sud Spout":
                assert sl["trap"] == "spout"  # the Spout's to_discard follows and takes it off
            else:
                assert sl["trap"] == ("ring", e["ring"])
                sl["trap"] = None
        elif k == "gub_moved":
            sl = self.slots[e["slot"]]
            assert sl["side"] == e["from_seat"] and not sl["elder"]
            sl["side"] = e["to_seat"]
        elif k in ("to_discard", "to_hand", "to_deck"):
            self.place(e)
            if k == "to_discard":
                self.discard[e["card"]] += e["copies"]
            elif k == "to_hand":
                self.hands[s][e["card"]] += e["copies"]
            else:
                assert 0 <= e["depth"] <= len(self.deck)
                self.deck.insert(e["depth"], e["card"])
        elif k == "deck_shuffled":
            assert sorted(e["cards"]) == sorted(self.deck) and e["deck"] == len(self.deck)
            self.deck = list(e["cards"])
        elif k == "scout_seen":
            if e["where"] == "deck":
                assert self.deck[e["position"]] == e["card"]
            else:
                assert self.hands[int(e["where"].split()[-1])][e["card"]] == e["copies"]
        elif k == "merchant_keep":
            assert self.hands[s][e["card"]] > 0
        elif k == "score":
            assert e["score"] == self.score(s), f"seat {s}: trace says {e['score']}, tracked {self.score(s)}"
            assert e["hand"] == self.hands[s].total()
            assert e["elder"] == any(sl["elder"] and sl["side"] == s for sl in self.slots.values())

    def check_play(self, e: dict) -> None:
        """A few rules checked on the tracked table (G1 card texts, RULES_NOTES readings)."""
        op, ts, tsl = e["op"], e.get("target_seat"), e.get("target_slot")
        if op in ("lure", "trap"):
            assert ts != e["seat"] and self.slots[tsl]["side"] == ts and self.free(tsl)
        if op == "protect":
            assert self.slots[tsl]["side"] == e["seat"] and not self.slots[tsl]["elder"]
        if op == "steal":
            sl = self.slots[tsl]
            state = {"free": self.free(tsl), "sud_spout": sl["trap"] == "spout",
                     "protected": sl["trap"] is None and bool(+sl["bars"])}
            assert sl["side"] == ts != e["seat"] and not sl["elder"] and state[e["target_state"]]
        if op == "lightning_elder":
            assert self.slots[tsl]["elder"] and self.slots[tsl]["side"] == ts != e["seat"]
        if op == "flute":
            assert e["ring"] in self.rings

    def total(self) -> int:
        play = sum(1 + sum(s["bars"].values()) + (s["trap"] == "spout") for s in self.slots.values())
        return (len(self.deck) + sum(h.total() for h in self.hands) + self.discard.total() + self.pending.total()
                + play + len(self.rings) + self.letters)


def follow(events, players):
    """Replay the trace of consecutive games with a Tracker each; returns the trackers."""
    out, t, cards = [], None, None
    for e in events:
        if t is None or t.done:
            t = Tracker(players)
            out.append(t)
        t.apply(e)
        if e["event"] == "deck":
            cards = t.total()
        if e["event"] in ("turn", "score"):
            assert t.total() == cards, "a card appeared or vanished in the trace"
            assert not +t.pending, f"cards played or drawn and never placed: {dict(+t.pending)}"
        if e["event"] == "game_end":
            t.done = True
    return out


CASES = [
    ("random", 2, {}), ("random", 4, {}), ("random", 6, {}), ("simple", 3, {}), ("strong", 4, {}),
    ("random", 3, {"stolen_barricades": "discard", "thief_to": "hand", "plague_shuffle": "shuffle",
                   "plague_redraw": "three", "cure_takes": "gub", "ring_exact": False,
                   "letter_placement": "shuffled", "barricade_stack": False}),
    ("random", 4, {"stolen_barricades": "move", "thief_targets": "unprotected", "plague_redraw": "none",
                   "hand_limit": 3, "hand_size": 5}),
    ("random", 3, {"add_cards": ["Cricket Song"] * 3 + ["Smahl Thief", "Haki Flute", "Retreat", "Scout",
                                                        "Flop Boat", "Rumor of Wasps", "Gargok Plague"]}),
]


@pytest.mark.parametrize(("policy", "players", "rules"), CASES)
def test_trace_alone_follows_every_card(policy, players, rules):
    setup = build_setup(GAME, "standard", players, policy, rules)
    events = GAME.trace(setup, root_key(5), 0, 40)
    check_schema(events)
    trackers = follow(events, players)
    assert len(trackers) == 40
    seen = {e["event"] for e in events}
    assert {"deck", "gub_in_play", "to_discard", "play", "score"} <= seen


def test_every_event_of_the_schema_occurs():
    """Many random games with every card doubled show every event of the schema."""
    rules = {"add_cards": [c.name for c in C.CATALOGUE if c.type not in (C.T_LETTER,) and c.name != "Esteemed Elder"],
             "plague_shuffle": "shuffle"}
    setup = build_setup(GAME, "standard", 4, "random", rules)
    events = GAME.trace(setup, root_key(8), 0, 60)
    check_schema(events)
    follow(events, 4)
    assert {e["event"] for e in events} == set(EVENTS)


def test_used_cards_and_broken_spout_are_discarded_in_the_trace():
    """Issue 18: a used Hazard or Tool, and a Sud Spout broken by a Spear (FAQ 6), each have a
    to_discard; the play names its target slot."""
    t = Table(players=2)
    t.give(0, "Spear", "Lure")
    spouted = t.put(0, trap="Sud Spout")
    t.gub(1)
    free = t.put(1)
    t.deck("Gub", "Gub")
    r = t.play([[play("spear_spout", "Spear", tseat=0), play("lure", "Lure", tseat=1)], "simple"], turns=1)
    disc = r.kinds("to_discard")
    assert {"seat": 0, "card": "Sud Spout", "copies": 1, "from": "play", "slot": spouted} == {
        k: v for k, v in disc[0].items() if k not in ("event", "game")}
    assert [(d["card"], d["from"], d["seat"]) for d in disc[1:]] == [("Spear", "played", 0), ("Lure", "played", 0)]
    lure = r.kinds("play")[1]
    assert lure["target_slot"] == r.kinds("gub_moved")[0]["slot"] in (free, free - 1)
