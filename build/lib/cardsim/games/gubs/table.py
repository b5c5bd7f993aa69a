"""Constructed Gubs tables: put chosen cards in hands, in play, in the deck and the discard
pile, then let the real kernel play on (``rules.run_table``) and read the result.

This is how the rule tests build a situation by hand (who holds what, what is in play,
the deck order); it is also handy to check a ruling interactively::

    t = Table(players=2)
    t.give(0, "Lure"); t.gub(1); t.deck("Gub", "Gub")
    r = t.play([[play("lure", "Lure", tseat=1)], "simple"], turns=1)
    r.score(0), r.events

A seat's policy is a built-in name (``"simple"``), a ``{"name": ..., param: value}``
table, or a script: a list of decisions made with :func:`play`, :func:`respond`,
:func:`pick`, :func:`draw`, :func:`stop` and :func:`skip`, used in order by the
decisions of their kind (a seat whose next scripted entry is of another kind acts by
default: it draws, stops playing, passes, or picks the first option).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardsim.errors import PolicyError
from cardsim.games.gubs import cards as C
from cardsim.games.gubs import engine as E
from cardsim.games.gubs import rules as R
from cardsim.games.gubs.game import GAME, decode_events
from cardsim.games.gubs.policies import SCRIPT, WILD
from cardsim.scenario import build_setup

_KIND = {"draw": 0, "play": 1, "respond": 2, "pick": 3}


def _code(x: Any) -> int:
    if x is None:
        return WILD
    if isinstance(x, str):
        return C.card_code(x)
    return int(x)


def play(op: str, card: str | None = None, tseat: int | None = None, tslot: int | None = None,
         aux: Any = None) -> tuple:
    """A scripted play: ``op`` as in ``cards.OP_NAMES`` (e.g. ``"lure"``), the card played
    (``None``: any), its target seat / slot and aux (a card name for the target card, the
    ring index for a Flute, the Thief's target state 0/1/2, a Ring's ``{seat: count}``)."""
    if isinstance(aux, dict):
        aux = sum(v << (2 * s) for s, v in aux.items())
    return ("play", C.OP_NAMES.index(op), _code(card), WILD if tseat is None else tseat,
            WILD if tslot is None else tslot, _code(aux))


def stop() -> tuple:
    return ("play", C.OP_STOP, WILD, WILD, WILD, WILD)


def respond(card: str | None) -> tuple:
    """Answer with ``card`` (``None``: pass)."""
    return ("respond", -1 if card is None else C.card_code(card), 0, 0, 0, 0)


def pick(card: str) -> tuple:
    return ("pick", C.card_code(card), 0, 0, 0, 0)


def draw() -> tuple:
    return ("draw", 1, 0, 0, 0, 0)


def skip() -> tuple:
    return ("draw", 0, 0, 0, 0, 0)


@dataclass
class Result:
    """The table after play: hands, sides, deck (top first), discard pile, events."""

    n: int
    pub: np.ndarray
    hand: np.ndarray
    deck_codes: list[int]
    over: bool
    game: dict[str, Any] | None
    events: list[dict[str, Any]] = field(default_factory=list)

    def hands(self, s: int) -> Counter:
        return Counter({C.card_name(k): int(self.hand[s, k]) for k in range(C.NK) if self.hand[s, k]})

    def side(self, s: int) -> list[dict[str, Any]]:
        """The Gubs on seat ``s``'s side, by slot."""
        out = []
        for i in range(C.MAX_GUBS):
            if self.pub[C.P_SIDE + i] != s:
                continue
            tr = int(self.pub[C.P_TRAP + i])
            bars = Counter({C.card_name(b): int(self.pub[E.bar_index(b) + i])
                            for b in (C.MUSHROOM, C.TOAD, C.MOTH) if self.pub[E.bar_index(b) + i]})
            trap = None if tr == 0 else ("Sud Spout" if tr == C.TRAP_SPOUT
                                         else C.card_name(int(self.pub[C.P_RKIND + tr - C.TRAP_RING0])))
            out.append({"slot": i, "elder": bool(self.pub[C.P_ELD + i]), "barricades": bars, "trap": trap})
        return out

    def rings(self) -> list[dict[str, Any]]:
        return [{"ring": r, "side": int(self.pub[C.P_RSIDE + r]), "card": C.card_name(int(self.pub[C.P_RKIND + r])),
                 "gubs": int(self.pub[C.P_RN + r])} for r in range(C.MAX_RINGS) if self.pub[C.P_RSIDE + r] >= 0]

    def score(self, s: int) -> int:
        return int(self.pub[C.P_SCORE + s])

    def free(self, s: int) -> int:
        return int(self.pub[C.P_FREE + s])

    def protected(self, s: int) -> int:
        return int(self.pub[C.P_PROT + s])

    def hand_size(self, s: int) -> int:
        return int(self.pub[C.P_HANDN + s])

    @property
    def deck(self) -> list[str]:
        return [C.card_name(k) for k in self.deck_codes]

    @property
    def discard(self) -> Counter:
        return Counter({C.card_name(k): int(self.pub[C.P_DISC + k]) for k in range(C.NK) if self.pub[C.P_DISC + k]})

    @property
    def letters(self) -> int:
        return int(self.pub[C.P_LETTERS])

    @property
    def turn(self) -> int:
        return int(self.pub[C.P_TURN])

    @property
    def current(self) -> int:
        return int(self.pub[C.P_CUR])

    def kinds(self, name: str) -> list[dict[str, Any]]:
        """The events of one kind (``"play"``, ``"interrupt"``, ...)."""
        return [e for e in self.events if e["event"] == name]


class Table:
    """A Gubs table built card by card (nothing is dealt; only the cards placed exist)."""

    def __init__(self, players: int = 2, rules: dict[str, Any] | None = None) -> None:
        self.setup = build_setup(GAME, "standard", players, "random", rules or {})
        self.n = players
        self.kn = GAME.knob_array(self.setup)
        self.pub = np.zeros(C.P_SIZE, np.int32)
        self.hand = np.zeros((C.MAXS + 1, C.NK), np.int32)  # row HMASK: the kind masks (E.hand_mask)
        self.priv = np.zeros(C.V_SIZE, np.int32)
        self.st = np.zeros((C.MAXS, C.NK, 2), np.int32)
        self.pub[C.P_NP] = players
        self.pub[C.P_SIDE:C.P_SIDE + C.MAX_GUBS] = -1
        self.pub[C.P_RSIDE:C.P_RSIDE + C.MAX_RINGS] = -1
        self.pub[C.P_HI] = C.MAX_GUBS
        self._deck: list[int] = []

    # -- building ------------------------------------------------------------------------
    def give(self, seat: int, *names: str) -> Table:
        for nm in names:
            self.hand[seat, C.card_code(nm)] += 1
            self.pub[C.P_HANDN + seat] += 1
        return self

    def _slot(self) -> int:
        for i in range(C.MAX_GUBS):
            if self.pub[C.P_SIDE + i] < 0:
                return i
        raise ValueError("no free slot")

    def gub(self, seat: int, *barricades: str, trap: str | None = None, elder: bool = False) -> Table:
        """Put a Gub (or the Elder) in play on ``seat``'s side, behind ``barricades``, maybe
        under a Sud Spout (``trap="Sud Spout"``)."""
        self.put(seat, *barricades, trap=trap, elder=elder)
        return self

    def put(self, seat: int, *barricades: str, trap: str | None = None, elder: bool = False) -> int:
        """As :meth:`gub`; returns the Gub's slot."""
        i = self._slot()
        self.pub[C.P_SIDE + i] = seat
        self.pub[C.P_ELD + i] = 1 if elder else 0
        for b in barricades:
            self.pub[E.bar_index(C.card_code(b)) + i] += 1
        if trap is not None:
            assert trap == "Sud Spout", "use ring() for Rings"
            self.pub[C.P_TRAP + i] = C.TRAP_SPOUT
        return i

    def ring(self, seat: int, card: str, gubs: int) -> int:
        """A Ring on ``seat``'s side with ``gubs`` Gubs beneath it; returns the ring index."""
        r = next(r for r in range(C.MAX_RINGS) if self.pub[C.P_RSIDE + r] < 0)
        self.pub[C.P_RSIDE + r] = seat
        self.pub[C.P_RKIND + r] = C.card_code(card)
        self.pub[C.P_RN + r] = gubs
        for _ in range(gubs):
            i = self._slot()
            self.pub[C.P_SIDE + i] = seat
            self.pub[C.P_TRAP + i] = C.TRAP_RING0 + r
        return r

    def deck(self, *names: str) -> Table:
        """The deck, top card first."""
        self._deck = [C.card_code(nm) for nm in names]
        return self

    def discard(self, *names: str) -> Table:
        for nm in names:
            self.pub[C.P_DISC + C.card_code(nm)] += 1
        return self

    def letters(self, k: int) -> Table:
        """``k`` Letters already set aside (G, then U, then B)."""
        for j in range(k):
            self.pub[C.P_ASIDE + j] = 1
        self.pub[C.P_LETTERS] = k
        return self

    def skipped(self, seat: int) -> Table:
        self.pub[C.P_SKIP + seat] = 1
        return self

    def start(self, seat: int) -> Table:
        self.pub[C.P_CUR] = seat
        return self

    # -- playing ---------------------------------------------------------------------------
    def legal(self, seat: int) -> list[tuple[str, str, int, int, int]]:
        """Seat ``seat``'s legal plays on the table as built: (op, card, tseat, tslot, aux),
        "stop" first; aux is a card name for ops that name a target card."""
        pub = self.pub.copy()
        pub[C.P_DECKN] = len(self._deck)
        E.refresh(pub)
        hand = self.hand.copy()
        hand[C.HMASK, seat] = E.hand_mask(hand, seat)
        acts = np.zeros((C.MAX_ACTS, C.ACT_W), np.int32)
        reps = np.zeros(C.MAX_GUBS, np.int32)
        m = E.legal_plays(seat, pub, hand, self.kn, acts, reps, -1)
        out = []
        for op, card, ts, tsl, aux in acts[:m].tolist():
            a: Any = aux
            if op in (C.OP_UNMUSH, C.OP_UNBAR, C.OP_SPEAR_BAR, C.OP_CURE):
                a = C.card_name(aux)
            out.append((C.OP_NAMES[op], C.card_name(card) if card >= 0 else "", ts, tsl, a))
        return out

    def _policies(self, policies: list[Any]) -> tuple[np.ndarray, np.ndarray, list[str]]:
        pids = np.zeros(self.n, np.int64)
        rows: list[list[float]] = []
        names = []
        for s in range(self.n):
            p = policies[s] if s < len(policies) else "simple"
            if isinstance(p, list):
                pids[s] = SCRIPT
                row = [0.0]
                for e in p:
                    row += [float(_KIND[e[0]])] + [float(x) for x in e[1:]]
                rows.append(row)
                names.append("script")
            else:
                name, over = (p, {}) if isinstance(p, str) else (p["name"], {k: v for k, v in p.items() if k != "name"})
                spec = GAME.policy(name)
                vals = dict(spec.params)
                vals.update(over)
                pids[s] = spec.pid
                rows.append([float(v) for v in vals.values()])
                names.append(name)
        width = max(8, *(len(r) for r in rows))
        params = np.zeros((self.n, width), np.float64)
        for s, r in enumerate(rows):
            params[s, : len(r)] = r
        return pids, params, names

    def counts(self) -> np.ndarray:
        """int32[NK]: every card on the table (what conservation checks against)."""
        cnt = np.zeros(C.NK, np.int32)
        cnt += self.hand[: C.MAXS].sum(axis=0).astype(np.int32)
        for k in self._deck:
            cnt[k] += 1
        cnt += self.pub[C.P_DISC:C.P_DISC + C.NK]
        for j in range(3):
            cnt[C.LETTER_G + j] += self.pub[C.P_ASIDE + j]
        for i in range(C.MAX_GUBS):
            if self.pub[C.P_SIDE + i] < 0:
                continue
            cnt[C.ELDER if self.pub[C.P_ELD + i] else C.GUB] += 1
            cnt[C.MUSHROOM] += self.pub[C.P_BM + i]
            cnt[C.TOAD] += self.pub[C.P_BT + i]
            cnt[C.MOTH] += self.pub[C.P_BV + i]
            if self.pub[C.P_TRAP + i] == C.TRAP_SPOUT:
                cnt[C.SPOUT] += 1
        for r in range(C.MAX_RINGS):
            if self.pub[C.P_RSIDE + r] >= 0:
                cnt[self.pub[C.P_RKIND + r]] += 1
        return cnt

    def play(self, policies: list[Any], turns: int = 1, key: int = 0, game: int = 0, debug: bool = True) -> Result:
        """Play ``turns`` turns (or to the end of the game) with the kernel; the table itself is
        not changed (each call starts from the table as built)."""
        pids, params, names = self._policies(policies)
        pub, hand, priv, st = self.pub.copy(), self.hand.copy(), self.priv.copy(), self.st.copy()
        deck = np.zeros(C.DECK_MAX, np.int32)
        for i, k in enumerate(reversed(self._deck)):
            deck[i] = k
        pub[C.P_DECKN] = len(self._deck)
        E.refresh(pub)
        cnt = self.counts()
        ev = np.zeros((200_000, 8), np.int64)
        evn = np.zeros(1, np.int64)
        err = np.zeros(6, np.int64)
        gout = np.zeros((1, C.NG), np.int32)
        try:
            over = R.run_table(np.uint64(key), game, turns, pids, params, self.kn, cnt, pub, hand, deck, priv, st,
                               debug, ev, evn, err, gout)
        except (ValueError, AssertionError):
            g, a, d, value, kind, nopts = (int(x) for x in err)
            if kind == E.E_POLICY:
                raise PolicyError(f"seat {a} ({names[a]}) returned {value} at decision "
                                  f"'{E.DECISION_NAMES[d]}' (legal: 0..{nopts - 1})") from None
            raise
        events = decode_events(ev[: evn[0]])
        row = None
        if over:
            g = gout[0]
            row = {"winner": int(g[C.G_WINNER]), "winners": [s for s in range(self.n) if (g[C.G_WINNERS] >> s) & 1],
                   "tie_break": C.TB_NAMES[g[C.G_TB]], "scores": [int(g[C.G_SCORE + s]) for s in range(self.n)]}
        return Result(self.n, pub, hand, [int(deck[i]) for i in range(pub[C.P_DECKN] - 1, -1, -1)], bool(over), row,
                      events)
