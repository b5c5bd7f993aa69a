"""Bad, Bad, Turtle traces say everything a checker needs (issue 18).

A small independent checker follows every card of traced games from the
events alone: each deal and redeal names every stack top first, so every
discard and reveal must take the card the checker has on top, every redeal
must deal exactly the cards the rules collect (T5, T6, Restart Game,
Shuffle), and every card must be in exactly one place at the end. The
events' fields are those of ``trace_schema.EVENTS``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from cardsim.games import get_game
from cardsim.games.turtle import cards
from cardsim.games.turtle.trace_schema import EVENTS
from cardsim.rng import root_key
from cardsim.scenario import build_setup

GAME = get_game("turtle")
HOLDS = {"overrule_card": "Never Happened", "overrule_held": "Never Happened", "discard": "No Way",
         "shield": "Shield"}


class Checker:
    """The piles of one game, top first, followed from its events alone."""

    def __init__(self, deck: list[str], revive: bool) -> None:
        self.deck = Counter(deck)
        self.revive = revive
        self.p = 0
        self.stack: list[list[str]] = []
        self.dis: list[list[str]] = []
        self.rev: list[list[str]] = []
        self.held: dict[str, int] = {}
        self.alive: list[bool] = []
        self.pool: Counter | None = None   # cards a (re)deal must hand out
        self.dealt: Counter = Counter()
        self.card = ""                     # the action card of the open held-card window
        self.forced_from: list[int] = []   # seats a Shield moved that card from

    def everything(self) -> Counter:
        c = Counter(list(self.held))
        for piles in (self.stack, self.dis, self.rev):
            for pile in piles:
                c.update(pile)
        return c

    def close_deal(self) -> None:
        if self.pool is not None:
            assert self.dealt == self.pool, "a (re)deal handed out other cards than the rules collect"
            self.pool = None

    def next_alive(self, s: int, d: int) -> int:
        for k in range(1, self.p + 1):
            t = (s + d * k) % self.p
            if self.alive[t]:
                return t
        raise AssertionError("nobody left")

    def see(self, e: dict) -> None:
        k = e["event"]
        if k != "deal":
            self.close_deal()
        if k == "start":
            self.p = e["players"]
            self.stack = [[] for _ in range(self.p)]
            self.dis = [[] for _ in range(self.p)]
            self.rev = [[] for _ in range(self.p)]
            self.alive = [True] * self.p
            self.held = {}
            self.pool, self.dealt = Counter(self.deck), Counter()
            assert e["cards"] == sum(self.deck.values())
        elif k == "deal":
            s = e["seat"]
            assert self.pool is not None and self.alive[s] and not self.stack[s]
            assert len(e["stack_cards"]) == e["cards"]
            self.stack[s] = list(e["stack_cards"])
            self.dealt.update(e["stack_cards"])
        elif k == "redeal":
            pool: Counter = Counter()
            if e["reason"] == "gecko":
                gone = next(s for s in range(self.p) if self.rev[s][:1] == ["Eliminated"] and not self.alive[s])
                pool.update([self.rev[gone].pop(0)])
            for s in range(self.p):
                pool.update(self.stack[s] + self.dis[s])
                self.stack[s], self.dis[s] = [], []
                if e["reason"] == "restart":
                    pool.update(self.rev[s])
                    self.rev[s] = []
            if e["reason"] == "restart":
                pool.update(list(self.held))
                self.held = {}
                if self.revive:
                    self.alive = [True] * self.p
            assert sum(pool.values()) == e["cards"]
            self.pool, self.dealt = pool, Counter()
        elif k == "turn":
            assert len(self.stack[e["seat"]]) == e["stack"]
        elif k == "discard":
            s = e["seat"]
            assert self.stack[s].pop(0) == e["card"]
            self.dis[s].insert(0, e["card"])
            assert len(self.stack[s]) == e["stack"]
        elif k == "reveal":
            s = e["seat"]
            src = self.stack[s] if e["from"] == "stack" else self.dis[s]
            assert src.pop(0) == e["card"]
            self.rev[s].insert(0, e["card"])
            if e["card"] in cards.ACTION_NAMES:
                self.card, self.forced_from = e["card"], []
        elif k == "effect":
            self.effect(e)
        elif k == "next_effect" and e["card"] == "Slow Down":
            s = e["seat"]
            assert Counter(e["stack_cards"]) == Counter(self.stack[s] + self.rev[s])
            assert e["moved"] == len(self.rev[s])
            self.stack[s], self.rev[s] = list(e["stack_cards"]), []
        elif k == "hold":
            s = e["seat"]
            assert self.rev[s].pop(0) == e["card"]
            self.held[e["card"]] = s
        elif k == "pass":
            for o in e["options"]:
                assert self.held.get(HOLDS[o]) == e["seat"]
        elif k == "play_held":
            self.play_held(e)
        elif k == "eliminated":
            self.alive[e["seat"]] = False
        elif k == "end":
            assert self.everything() == self.deck

    def effect(self, e: dict) -> None:
        s, c = e["seat"], e["card"]
        if c == "Clean Up":
            rest = self.rev[s][1:]
            assert self.rev[s][0] == c and len(rest) == e["moved"]
            self.dis[s] = rest[::-1] + self.dis[s]  # turned over as a packet: the oldest ends on top
            self.rev[s] = [c]
        elif c == "Do Over":
            rest = self.rev[s][1:]
            assert Counter(e["stack_cards"]) == Counter(self.stack[s] + rest) and len(rest) == e["moved"]
            self.stack[s], self.rev[s] = list(e["stack_cards"]), [c]
        elif c == "Refund" and e["card_back"] is not None:
            assert self.dis[s].pop(0) == e["card_back"]
            if e["to"] == "top":
                self.stack[s].insert(0, e["card_back"])
            else:
                self.stack[s].append(e["card_back"])
        elif c in ("Stack Swap Left", "Stack Swap Right"):
            d = 1 if e["to"] == "left" else -1
            new = [[] for _ in range(self.p)]
            for t in range(self.p):
                if self.alive[t]:
                    new[self.next_alive(t, d)] = self.stack[t]
            self.stack = new

    def play_held(self, e: dict) -> None:
        s, held, answer, v = e["seat"], e["card"], e["answer"], e["on_seat"]
        assert self.held.pop(held) == s and HOLDS[answer] == held
        assert answer in e["options"]
        card = self.card
        if answer == "overrule_card":
            self.rev[s].insert(0, held)
        elif answer == "discard":
            assert self.rev[v].pop(0) == card
            self.dis[v].insert(0, card)
            self.rev[v].insert(0, held)
        elif answer == "shield":
            assert e["target"] in e["targets"]
            assert self.rev[v].pop(0) == card
            self.rev[s].insert(0, held)
            self.rev[e["target"]].insert(0, card)
            self.forced_from.append(v)
        elif e["on"] == "No Way":  # overrule_held: the card comes back from the discard pile
            assert self.dis[v].pop(0) == card
            self.rev[s].insert(0, held)
            self.rev[v].insert(0, card)
        else:  # overrule_held on a Shield: the card goes back to the seat it was forced from
            assert self.rev[v].pop(0) == card
            self.rev[s].insert(0, held)
            self.rev[self.forced_from.pop()].insert(0, card)


def follow(events: list[dict], deck: list[str], revive: bool = False) -> int:
    """Check every game of ``events``; returns how many games were followed."""
    games = 0
    checker = Checker(deck, revive)
    for e in events:
        checker.see(e)
        games += e["event"] == "end"
    return games


def fields_ok(events: list[dict]) -> None:
    for e in events:
        schema = EVENTS[e["event"]]
        keys = set(e) - {"event", "game"}
        assert keys <= set(schema), (e["event"], keys - set(schema))
        need = {f for f, meaning in schema.items() if not meaning.startswith("(optional) ")}
        assert need <= keys, (e["event"], need - keys)


@pytest.mark.parametrize(("players", "policy", "rules"), [
    (4, "random", {}),
    (2, "random", {"refund_to": "bottom", "p_perform": 0.5}),
    (5, "random", {"shield_continue": "target", "restart_revives": True, "shield_turtle": True}),
    (3, "cunning", {"never_happened_held": False}),
    (6, "eager", {}),
    (4, "random", {"remove": ["Restart Game", "Eliminated"]}),
])
def test_a_checker_follows_every_card_from_the_trace_alone(players, policy, rules):
    s = build_setup(GAME, "full", players, policy, rules)
    deck = [cards.card_name(c) for c in GAME.deck(s)]
    events = GAME.trace(s, root_key(18), 0, 150)
    fields_ok(events)
    assert follow(events, deck, bool(rules.get("restart_revives"))) == 150
    seen = {e["event"] for e in events}
    assert {"deal", "redeal", "discard", "reveal", "effect"} <= seen


def test_young_traces_follow_too():
    s = build_setup(GAME, "young", 4, "eager", {})
    events = GAME.trace(s, root_key(3), 0, 100)
    fields_ok(events)
    assert follow(events, [cards.card_name(c) for c in GAME.deck(s)]) == 100


def test_held_card_windows_name_who_was_asked():
    """T8: every ask of a held-card window is one pass or play_held event naming the options."""
    s = build_setup(GAME, "full", 4, "random", {})
    events = GAME.trace(s, root_key(2), 0, 200)
    passes = [e for e in events if e["event"] == "pass"]
    plays = [e for e in events if e["event"] == "play_held"]
    assert passes and plays
    assert all(e["options"] for e in passes + plays)
    shields = [e for e in passes + plays if "shield" in e["options"]]
    assert shields and all(e["on_seat"] not in e["targets"] for e in shields)


def test_every_event_and_field_is_documented():
    s = build_setup(GAME, "full", 4, "random", {"p_perform": 0.5})
    events = GAME.trace(s, root_key(1), 0, 300)
    fields_ok(events)
    used = {(e["event"], f) for e in events for f in e} - {(e["event"], f) for e in events for f in ("event", "game")}
    documented = {(k, f) for k, fs in EVENTS.items() for f in fs}
    # every documented field shows up in 300 random games but the cut-game ones
    assert documented - used <= {("cap", "turns")}


def test_the_checker_catches_a_wrong_stack_order():
    s = build_setup(GAME, "full", 4, "eager", {})
    deck = [cards.card_name(c) for c in GAME.deck(s)]
    events = GAME.trace(s, root_key(4), 0, 3)
    deal = next(e for e in events if e["event"] == "deal")
    deal["stack_cards"] = deal["stack_cards"][::-1]
    with pytest.raises(AssertionError):
        follow(events, deck)
