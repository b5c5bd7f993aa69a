"""Bad, Bad, Turtle's face: variants, knobs, tables, trace decoding and summaries (T1-T10)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from cardsim.errors import PolicyError, ScenarioError, first_repeat
from cardsim.frames import column, const, pick
from cardsim.games.base import Game, Knob, Setup, Variant
from cardsim.games.turtle import cards
from cardsim.games.turtle import rules as R
from cardsim.games.turtle.policies import POLICIES
from cardsim.policies import kernel_namespace
from cardsim.stats import (
    Estimate,
    bonferroni_z,
    cluster_key,
    collect,
    collect_all,
    count_rate_ci,
    effective_size,
    mean_exprs,
    on_games,
    pooled_dispersion,
    rate_difference,
    rate_query,
    wilson,
    wilson_at,
    wilson_exprs,
)
from cardsim.windows import game_windows, kept_for_frames

ARGS = "seat, obs, legal, params, rng"
DECISIONS = {"pick": ARGS, "respond": ARGS, "perform": ARGS}
ENDED = ("turtle", "last_player", "cap")
REASONS = ("initial", "gecko", "empty_stack", "shuffle", "restart")
SKIPS = ("Skip", "declined", "unable")
ANSWERS = {cards.NH_CARD: "overrule_card", cards.NH_HELD: "overrule_held", cards.NO_WAY_PLAY: "discard"}
CARD_ENUM = pl.Enum(list(cards.ACTION_NAMES))
CARD_SERIES = pl.Series("card", cards.ACTION_NAMES, dtype=CARD_ENUM)

GAME_COLUMNS = {
    "game": "global game index",
    "players": "seats at the table",
    "winner": "seat that won (turtle or last player standing); -1 when the game was cut at max_turns",
    "turns": "turns played, skipped and Second Chance turns included",
    "eliminated": "players out at the end (revealed the gecko, T5)",
    "restarts": "Restart Game cards carried out",
    "redeals": "redeals after a gecko (T5) or an emptied stack (T6)",
    "shuffles": "Shuffle cards carried out (redeals of every stack and discard pile)",
    "ended_by": "turtle, last_player or cap (unfinished, T9)",
    **{f"out_s{s}": f"seat {s}'s elimination order (1 = first out), -1 if never out (seats < players)"
       for s in range(8)},
    **{f"reveals_s{s}": f"cards seat {s} revealed (seats < players)" for s in range(8)},
}
REVEAL_COLUMNS = {
    "game": "global game index",
    "card": "the action card revealed (one row per reveal; Double Dip and Recycle Bonus reveals included)",
    "seat": "seat that revealed it",
    "turn": "turn number of the reveal",
    "applied_to": "seat it acted on (another seat after a Shield); -1 if overruled or discarded (T8)",
    "won": "the revealing seat won the game (null when the game was unfinished)",
}


@dataclass
class Table:
    """A constructed situation for rule tests: piles as card names, **top first**.

    ``held`` maps a held card name to its holder; ``pending`` holds effects
    waiting for the next turn: ``skip``, ``no_reveal``, ``no_trash``,
    ``partial``, ``rapid``, ``slow`` (0/1) and ``perform`` (a list of
    performance card names). ``cur`` plays next (``extra``: as a Second
    Chance turn); ``turn`` turns were already played.
    """

    stacks: list[list[str]]
    discards: list[list[str]] = field(default_factory=list)
    reveals: list[list[str]] = field(default_factory=list)
    held: dict[str, int] = field(default_factory=dict)
    alive: list[bool] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    cur: int = 1
    direction: int = 1
    extra: bool = False
    turn: int = 0
    pending: dict[str, Any] = field(default_factory=dict)
    known: list[int] = field(default_factory=list)


@dataclass
class Played:
    """What :meth:`Turtle.play_table` returns: the table after, the events and the outcome."""

    table: Table
    events: list[dict[str, Any]]
    winner: int
    ended_by: str | None
    turns: int
    eliminated: int
    restarts: int
    redeals: int
    shuffles: int
    reveals: pl.DataFrame


class Turtle(Game):
    name = "turtle"
    title = "Bad, Bad, Turtle"
    rules_version = 2
    unit = "game"
    unit_table = "games"
    variants = (
        Variant("full", "the 55-card deck with all 31 action cards acting as their sheet entries say", 2, 8, 4),
        Variant("young", "younger players (T10): action cards are ignored; only the turtle and the gecko act",
                2, 8, 4),
    )
    knobs = (
        Knob("max_turns", 1000, "turns (skipped ones included) after which a game is cut and counted "
             "unfinished (T9)", lo=1, hi=1_000_000),
        Knob("remove", (), "action cards taken out of the deck before the deal, as the sheet invites "
             "(the Turtle stays)", kind="names", choices=cards.REMOVABLE),
        Knob("p_perform", 1.0, "probability that a player asked by a performance card can perform; "
             "one who cannot, or whose policy declines, skips the turn (T7)", kind="float", lo=0.0, hi=1.0,
             variants=("full",)),
        Knob("pick_self", True, "Pick a Player may pick the player who revealed it", kind="bool",
             variants=("full",)),
        Knob("shield_continue", "after_target", "after a Shield, play continues with the player after the "
             "target (after_target: the target is treated as having revealed the card) or with the target "
             "(target)", kind="choice", choices=("after_target", "target"), variants=("full",)),
        Knob("shield_turtle", False, "Shield may force a revealed Turtle onto another player", kind="bool",
             variants=("full",)),
        Knob("never_happened_held", True, "Never Happened may also overrule a No Way or Shield played on a "
             "card (\"any action card played\")", kind="bool", variants=("full",)),
        Knob("refund_to", "top", "where Refund puts the last discarded card back into the stack",
             kind="choice", choices=("top", "bottom"), variants=("full",)),
        Knob("restart_revives", False, "Restart Game also brings eliminated players back", kind="bool",
             variants=("full",)),
    )
    policies = POLICIES
    decisions = DECISIONS
    dispatchers = {"pick": "decide_pick", "respond": "decide_respond", "perform": "decide_perform"}
    columns = {"games": GAME_COLUMNS, "reveals": REVEAL_COLUMNS}
    default_chunk = 100_000
    kernel_module = "cardsim.games.turtle.rules"
    default_policy = "eager"
    bench_count = 50_000
    minimal_scale = 2

    # -- set-up -----------------------------------------------------------------------
    def check_setup(self, setup: Setup) -> None:
        removed = list(setup.knob("remove"))
        if (twice := first_repeat(removed)) is not None:
            raise ScenarioError(f"rules.remove names {removed[twice[1]]!r} twice; list each card once")

    def _state(self, setup: Setup, key: int, debug: bool, trace: bool,
               deck: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kernel's ``S``, ``F`` and ``RS`` arrays for this set-up (rules.py layout)."""
        kv = setup.knobs
        p = setup.players
        S = np.zeros(R.NS, np.int64)
        S[R.OB + cards.OBS_STACK: R.OB + cards.OBS_STACK + R.CAP] = -1
        S[R.G_PLAYERS] = p
        S[R.G_MAX_TURNS] = int(kv["max_turns"])
        S[R.G_YOUNG] = int(setup.variant == "young")
        S[R.G_PICK_SELF] = int(kv.get("pick_self", True))
        S[R.G_SHIELD_TARGET] = int(kv.get("shield_continue", "after_target") == "target")
        S[R.G_SHIELD_TURTLE] = int(kv.get("shield_turtle", False))
        S[R.G_NH_HELD] = int(kv.get("never_happened_held", True))
        S[R.G_REFUND_BOTTOM] = int(kv.get("refund_to", "top") == "bottom")
        S[R.G_REVIVE] = int(kv.get("restart_revives", False))
        S[R.G_DEBUG] = int(debug)
        S[R.G_TRACE] = int(trace)
        S[R.PIDS: R.PIDS + p] = setup.pids()
        if deck is None:
            deck = self.deck(setup)
        S[R.INUSE + deck] = 1
        params = setup.params()
        w = params.shape[1]
        S[R.G_PW] = w
        F = np.zeros(R.FP + R.MAXP * w, np.float64)
        F[0] = float(kv.get("p_perform", 1.0))
        F[R.FP: R.FP + p * w] = params.ravel()
        RS = np.zeros(R.NRS, np.uint64)
        RS[R.RS_KEY] = np.uint64(key)
        return S, F, RS

    def deck(self, setup: Setup) -> np.ndarray:
        """int64[n]: the card codes in play (T1 without the removed cards)."""
        return np.array(cards.deck_codes(tuple(setup.knob("remove"))), np.int64)

    # -- the kernel call -------------------------------------------------------------------
    def _run(self, setup: Setup, key: int, start: int, count: int, debug: bool, trace: bool,
             stacked: Sequence[str] | None = None):
        ns = kernel_namespace(self, setup.plugins)
        deck = self.deck(setup)
        st = np.zeros(0, np.int64)
        if stacked is not None:
            st = np.array([cards.card_code(c) for c in stacked], np.int64)
            if sorted(st.tolist()) != sorted(deck.tolist()):
                raise ScenarioError("a stacked deck must hold exactly the cards in play, each once")
        rvcap = max(64, count * (0 if setup.variant == "young" else 30))
        evcap = max(64, count * 600) if trace else 0
        while True:
            S, F, RS = self._state(setup, key, debug, trace, deck)
            out_g = np.zeros((count, R.NOG), np.int64)
            out_s = np.zeros((count, 16), np.int64)
            RV = np.zeros((rvcap, R.NRV), np.int32)
            EV = np.zeros((evcap, 8), np.int64)
            self._call(setup, S, ns["simulate"], S, F, RS, np.int64(start), np.int64(count), deck, st,
                       out_g, out_s, EV, RV)
            if S[R.CNT + 1] > rvcap:
                rvcap = int(S[R.CNT + 1])
                continue
            if trace and S[R.CNT] > evcap:
                evcap = int(S[R.CNT])
                continue
            return out_g, out_s, RV[: S[R.CNT + 1]], EV[: S[R.CNT]]

    def _call(self, setup: Setup, S: np.ndarray, fn, *args) -> Any:
        try:
            return fn(*args)
        except (ValueError, AssertionError):
            err = S[R.ERR:]
            if err[0] == R.ILLEGAL:
                self._illegal(setup, err)
            if err[0] == R.BROKEN and err[2] < 0:
                raise AssertionError(f"live-card mask out of step in game {err[1]} at turn {err[4]}") from None
            if err[0] == R.BROKEN:
                raise AssertionError(
                    f"card conservation broken in game {err[1]} at turn {err[4]}: "
                    f"{cards.card_name(err[2])} found {err[3]} times") from None
            raise

    def _illegal(self, setup: Setup, err: np.ndarray) -> None:
        g, seat, d, value = (int(x) for x in err[1:5])
        legal = [i for i in range(cards.LEGAL_LEN) if err[8 + i] == 1]
        what = {R.D_PICK: "a seat", R.D_RESPOND: "0 pass, 1/2 Never Happened, 3 No Way, 4+t Shield onto t",
                R.D_PERFORM: "0 skip, 1 perform"}[d]
        raise PolicyError(
            f"seat {seat} ({setup.seats[seat].plugin or setup.seats[seat].name}) returned {value} at decision "
            f"'{cards.DECISION_NAMES[d]}' in game {g}; legal: {legal} ({what})"
        )

    def simulate_chunk(self, setup: Setup, key: int, start: int, count: int,
                       debug: bool = False) -> dict[str, pl.DataFrame]:
        out_g, out_s, rv, _ = self._run(setup, key, start, count, debug, False)
        games = games_frame(start, setup.players, out_g, out_s)
        return {"games": games, "reveals": reveals_frame(rv, out_g, start)}

    def bench_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        return self._run(setup, key, start, count, False, False)[0].shape[0]

    def minimal_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        R.minimal(np.uint64(key), np.int64(start), np.int64(count), np.int64(setup.players), self.deck(setup))
        return count

    # -- trace -----------------------------------------------------------------------------------
    def trace(self, setup: Setup, key: int, start: int, count: int,
              stacked: Sequence[str] | None = None) -> list[dict[str, Any]]:
        *_, ev = self._run(setup, key, start, count, True, True, stacked)
        return decode_events(ev)

    def describe_event(self, event: Mapping[str, Any]) -> str:
        return describe(event)

    # -- constructed situations (tests) ----------------------------------------------------
    def _table_state(self, setup: Setup, table: Table, key: int, game: int, debug: bool):
        p = setup.players
        placed = [c for lists in (table.stacks, table.discards, table.reveals) for pile in lists for c in pile]
        placed += list(table.held)
        codes = np.array([cards.card_code(c) for c in placed], np.int64)
        if len(set(codes.tolist())) != len(codes):
            raise ValueError("a card is placed twice in the table")
        S, F, RS = self._state(setup, key, debug, True, codes)
        for s in range(p):
            for kind, lists in ((R.STK, table.stacks), (R.DIS, table.discards), (R.REV, table.reveals)):
                names_ = lists[s] if s < len(lists) else []
                q = 3 * s + kind
                for i, name in enumerate(reversed(names_)):
                    S[R.PL + q * R.CAP + i] = cards.card_code(name)
                S[R.PN + q] = len(names_)
            S[R.sv(s, R.SV_ALIVE)] = int(table.alive[s]) if table.alive else 1
            S[R.sv(s, R.SV_OUT)] = table.out[s] if table.out else 0
            S[R.sv(s, R.SV_KNOWN)] = table.known[s] if table.known else 0
        S[R.G_HOLD: R.G_HOLD + 3] = -1
        for name, seat in table.held.items():
            S[R.G_HOLD + cards.HELD.index(name)] = seat
        S[R.G_GAME] = game
        S[R.G_START] = game
        S[R.G_CUR] = table.cur
        S[R.G_REF] = table.cur
        S[R.G_DIR] = table.direction
        S[R.G_OVERRIDE] = -1
        S[R.G_EXTRA] = -1
        S[R.G_IS_EXTRA] = int(table.extra)
        S[R.G_TURN] = table.turn
        S[R.G_WINNER] = -1
        S[R.G_ENDED] = -1
        S[R.G_CHAIN_SEAT] = -1
        S[R.G_NALIVE] = sum(int(S[R.sv(s, R.SV_ALIVE)]) for s in range(p))
        S[R.G_ELIM] = max([int(S[R.sv(s, R.SV_OUT)]) for s in range(p)] + [0])
        pend = table.pending
        for name, slot in (("skip", R.G_SKIP), ("no_reveal", R.G_NOREVEAL), ("no_trash", R.G_NOTRASH),
                           ("partial", R.G_PARTIAL), ("rapid", R.G_RAPID), ("slow", R.G_SLOW)):
            S[slot] = int(pend.get(name, 0))
        for i, name in enumerate(pend.get("perform", [])):
            S[R.G_PERF + i] = cards.action_code(name)
        S[R.G_NPERF] = len(pend.get("perform", []))
        return S, F, RS

    def observe(self, setup: Setup, table: Table, seat: int) -> np.ndarray:
        """The observation ``obs`` (cards.OBS_*) seat ``seat`` would get at a Pick a Player decision
        in a constructed :class:`Table` (for plug-in authors and tests)."""
        S, _, _ = self._table_state(setup, table, 0, 0, False)
        S[R.G_LIVE] = 0
        for q in range(3 * setup.players):
            if q % 3 != R.REV:
                for c in S[R.PL + q * R.CAP: R.PL + q * R.CAP + S[R.PN + q]]:
                    if c >= cards.ACTION_BASE:
                        S[R.G_LIVE] |= 1 << int(c - cards.ACTION_BASE)
        R.fill_obs(S, seat, R.D_PICK, cards.PICK_A_PLAYER, seat, seat, -1, -1, 0)
        return S[R.OB: R.OB + cards.OBS_LEN].copy()

    def play_table(self, setup: Setup, table: Table, turns: int = 1, key: int = 0, game: int = 0,
                   debug: bool = True) -> Played:
        """Play ``turns`` more turns (or to the end) from a constructed :class:`Table`."""
        p = setup.players
        S, F, RS = self._table_state(setup, table, key, game, debug)
        S[R.G_MAX_TURNS] = table.turn + turns
        ns = kernel_namespace(self, setup.plugins)
        EV = np.zeros((20000, 8), np.int64)
        RV = np.zeros((2000, R.NRV), np.int32)
        self._call(setup, S, ns["play_state"], S, F, RS, EV, RV)

        def names(q: int) -> list[str]:
            return [cards.card_name(c) for c in reversed(S[R.PL + q * R.CAP: R.PL + q * R.CAP + S[R.PN + q]])]

        after = Table(
            stacks=[names(3 * s + R.STK) for s in range(p)],
            discards=[names(3 * s + R.DIS) for s in range(p)],
            reveals=[names(3 * s + R.REV) for s in range(p)],
            held={cards.HELD[k]: int(S[R.G_HOLD + k]) for k in range(3) if S[R.G_HOLD + k] >= 0},
            alive=[bool(S[R.sv(s, R.SV_ALIVE)]) for s in range(p)],
            out=[int(S[R.sv(s, R.SV_OUT)]) for s in range(p)],
            cur=int(S[R.G_CUR]),
            direction=int(S[R.G_DIR]),
            extra=bool(S[R.G_IS_EXTRA]),
            turn=int(S[R.G_TURN]),
            pending={"skip": int(S[R.G_SKIP]), "no_reveal": int(S[R.G_NOREVEAL]),
                     "no_trash": int(S[R.G_NOTRASH]), "partial": int(S[R.G_PARTIAL]),
                     "rapid": int(S[R.G_RAPID]), "slow": int(S[R.G_SLOW]),
                     "perform": [cards.ACTION_NAMES[S[R.G_PERF + i]] for i in range(S[R.G_NPERF])]},
            known=[int(S[R.sv(s, R.SV_KNOWN)]) for s in range(p)],
        )
        ended = int(S[R.G_ENDED])
        out_g = np.zeros((1, R.NOG), np.int64)
        out_g[0, R.OG_WINNER] = S[R.G_WINNER]
        return Played(
            table=after,
            events=decode_events(EV[: S[R.CNT]]),
            winner=int(S[R.G_WINNER]),
            ended_by=ENDED[ended] if ended in (R.ENDED_TURTLE, R.ENDED_LAST) else None,
            turns=int(S[R.G_TURN]),
            eliminated=int(S[R.G_ELIM]),
            restarts=int(S[R.G_RESTARTS]),
            redeals=int(S[R.G_REDEALS]),
            shuffles=int(S[R.G_SHUFFLES]),
            reveals=reveals_frame(RV[: S[R.CNT + 1]], out_g, game),
        )

    # -- analysis ------------------------------------------------------------------------------
    def outcomes(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> pl.LazyFrame:
        games = tables["games"].select("game", "winner", "turns")
        seats = pl.LazyFrame({"seat": list(range(setup.players))}, schema={"seat": pl.Int8})
        return games.join(seats, how="cross").select(
            "game", "seat",
            pl.when(pl.col("winner") < 0).then(None)
            .otherwise((pl.col("winner") == pl.col("seat")).cast(pl.Float64)).alias("win"),
            pl.col("turns").alias("length"),
            (pl.col("seat") == 1).alias("first"),  # T3: seat 1 plays first
            (pl.col("seat") == 0).alias("dealer"),  # T3: seat 0 deals
        )

    def summarize(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
        return summarize(tables, setup)

    def columns_for(self, variant: str, players: int) -> dict[str, list[str]]:
        """``out_s<k>`` and ``reveals_s<k>`` exist for the seats at the table only."""
        seats = {f"{c}_s{k}" for c in ("out", "reveals") for k in range(players, 8)}
        return {t: [c for c in cols if c not in seats] for t, cols in self.columns.items()}

    def length_unit(self, setup: Setup) -> str:
        return "turns"

    def headline(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
        return headline(tables, setup)

    def figures(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, list, list]]:
        return figures(tables, setup)


# -- frames ------------------------------------------------------------------------------------
ENDED_SERIES = pl.Series("ended_by", ENDED, dtype=pl.Enum(list(ENDED)))


def games_frame(start: int, players: int, g: np.ndarray, s: np.ndarray) -> pl.DataFrame:
    n = g.shape[0]
    return pl.DataFrame({
        "game": pl.Series(np.arange(start, start + n), dtype=pl.Int64),
        "players": const(n, players, pl.Int8),
        "winner": column(g[:, R.OG_WINNER], pl.Int8),
        "turns": column(g[:, R.OG_TURNS], pl.Int32),
        "eliminated": column(g[:, R.OG_ELIM], pl.Int8),
        "restarts": column(g[:, R.OG_RESTARTS], pl.Int32),
        "redeals": column(g[:, R.OG_REDEALS], pl.Int32),
        "shuffles": column(g[:, R.OG_SHUFFLES], pl.Int32),
        "ended_by": pick(ENDED_SERIES, g[:, R.OG_ENDED]),
        **{f"out_s{k}": column(s[:, k], pl.Int8) for k in range(players)},
        **{f"reveals_s{k}": column(s[:, 8 + k], pl.Int32) for k in range(players)},
    })


def reveals_frame(rv: np.ndarray, out_g: np.ndarray, start: int) -> pl.DataFrame:
    """One row per action card revealed; ``won``: the revealer won the game (null: no winner)."""
    n = rv.shape[0]
    local = rv[:, R.RV_GAME]
    seat = rv[:, R.RV_SEAT]
    winner = np.take(out_g[:, R.OG_WINNER].astype(np.int8), local)  # the game's winner on each row
    won = pl.Series(winner == seat).zip_with(pl.Series(winner >= 0), const(n, None, pl.Boolean))
    return pl.DataFrame({
        "game": pl.Series(local.astype(np.int64) + start, dtype=pl.Int64),
        "card": pick(CARD_SERIES, rv[:, R.RV_CARD]),
        "seat": column(seat, pl.Int8),
        "turn": column(rv[:, R.RV_TURN], pl.Int32),
        "applied_to": column(rv[:, R.RV_APPLIED], pl.Int8),
        "won": won,
    })


# -- events ------------------------------------------------------------------------------------------
def _dir(d: int) -> str:
    return "clockwise" if d > 0 else "counter-clockwise"


def unpack_cards(fields: Sequence[int]) -> list[str]:
    """Card names packed by ``rules.pack8`` (one byte a card, code + 1; 0 none), in order."""
    out = []
    for x in fields:
        for k in range(8):
            c = (int(x) >> (8 * k)) & 0xFF
            if c:
                out.append(cards.card_name(c - 1))
    return out


def answer_options(mask: int) -> dict[str, Any]:
    """The held-card answers a legal mask allows (besides passing), named as ``play_held``'s
    ``answer``; ``targets``: the seats a Shield could be played onto (only when it could)."""
    opts = [name for code, name in sorted(ANSWERS.items()) if mask >> code & 1]
    targets = [t for t in range(cards.LEGAL_LEN - cards.SHIELD_BASE) if mask >> (cards.SHIELD_BASE + t) & 1]
    if targets:
        return {"options": [*opts, "shield"], "targets": targets}
    return {"options": opts}


def decode_events(rows: np.ndarray) -> list[dict[str, Any]]:
    """Kernel event rows -> events (:func:`decode_event`); continuation rows (card lists, a held-card
    answer's options) are folded into the event before them."""
    out: list[dict[str, Any]] = []
    for row in rows:
        kind = int(row[1])
        if kind == R.EV_CARDS:
            out[-1]["stack_cards"].extend(unpack_cards(row[3:8]))
        elif kind == R.EV_OPTIONS:
            out[-1].update(answer_options(int(row[3])))
        else:
            out.append(decode_event(row))
    return out


def decode_event(row: np.ndarray) -> dict[str, Any]:
    """One kernel event row -> a dict with names as the sheet writes them (continuation rows are
    :func:`decode_events`' business)."""
    g, kind, seat, a, b, c, d, e = (int(x) for x in row)
    cn = cards.card_name
    an = cards.ACTION_NAMES
    base: dict[str, Any] = {"game": g}
    if kind == R.EV_START:
        return {"event": "start", **base, "dealer": seat, "players": a, "cards": b}
    if kind == R.EV_DEAL:
        return {"event": "deal", **base, "seat": seat, "cards": a, "reason": REASONS[b], "stack_cards": []}
    if kind == R.EV_TURN:
        return {"event": "turn", **base, "seat": seat, "turn": a, "stack": b, "second_chance": bool(c),
                "direction": _dir(d)}
    if kind == R.EV_SKIP:
        return {"event": "skip", **base, "seat": seat, "reason": SKIPS[a]}
    if kind == R.EV_PERFORM:
        return {"event": "perform", **base, "seat": seat, "card": an[a], "able": bool(b), "performed": bool(c)}
    if kind == R.EV_DISCARD:
        return {"event": "discard", **base, "seat": seat, "card": cn(a), "stack": b}
    if kind == R.EV_REVEAL:
        return {"event": "reveal", **base, "seat": seat, "card": cn(a), "from": "stack" if b == 0 else "discard pile"}
    if kind == R.EV_EFFECT:
        out = {"event": "effect", **base, "seat": seat, "card": an[a]}
        if a == cards.CLEAN_UP:
            out["moved"] = b
        elif a == cards.DO_OVER:
            out.update(moved=b, stack=c, stack_cards=[])
        elif a in (cards.DOUBLE_DIP, cards.RECYCLE_BONUS):
            out["second_reveal"] = bool(b)
        elif a == cards.REFUND:
            out.update(card_back=cn(b) if b >= 0 else None, to="bottom" if c else "top")
        elif a == cards.PEEK:
            out["known"] = b
        elif a == cards.PICK_A_PLAYER:
            out["picked"] = b
        elif a == cards.REVERSE_DIRECTION:
            out["direction"] = _dir(b)
        elif a in (cards.STACK_SWAP_LEFT, cards.STACK_SWAP_RIGHT):
            out["to"] = "left" if b > 0 else "right"
        return out
    if kind == R.EV_NEXT:
        out = {"event": "next_effect", **base, "seat": seat, "card": an[a]}
        if a == cards.SLOW_DOWN:
            out.update(moved=b, stack_cards=[])
        elif a == cards.NO_TRASH:
            out["discards"] = b
        return out
    if kind == R.EV_HOLD:
        return {"event": "hold", **base, "seat": seat, "card": an[a]}
    if kind == R.EV_PASS:
        return {"event": "pass", **base, "seat": seat, "on": an[a], "on_seat": b, **answer_options(c)}
    if kind == R.EV_PLAY:
        answer = ANSWERS.get(b, "shield")
        out = {"event": "play_held", **base, "seat": seat, "card": an[a], "answer": answer,
               "on": an[c], "on_seat": d}
        if answer == "shield":
            out["target"] = e
        if answer == "overrule_held":
            out["held_by"] = e
        return out
    if kind == R.EV_CANCEL:
        return {"event": "cancel", **base, "seat": seat, "card": an[a],
                "by": "Never Happened" if b == 1 else "No Way"}
    if kind == R.EV_ELIM:
        return {"event": "eliminated", **base, "seat": seat, "order": a}
    if kind == R.EV_REDEAL:
        return {"event": "redeal", **base, "reason": REASONS[a], "cards": b, "first": c}
    if kind == R.EV_WIN:
        return {"event": "win", **base, "seat": seat, "by": ENDED[a]}
    if kind == R.EV_CAP:
        return {"event": "cap", **base, "turns": a}
    if kind == R.EV_END:
        return {"event": "end", **base, "winner": seat, "ended_by": ENDED[a], "turns": b}
    raise ValueError(f"unknown Bad, Bad, Turtle event kind {kind}")


_EFFECT_TEXT = {
    "Dance": "the next player must dance or skip their turn",
    "Rhyme": "the next player must say a rhyme or skip their turn",
    "Talk Funny": "the next player must talk funny or skip their turn",
    "Tell A Joke": "the next player must tell a joke or skip their turn",
    "Tell a Story": "the next player must tell a story or skip their turn",
    "Share an Opinion": "the next player must share an opinion or skip their turn",
    "Sing Something": "the next player must sing or skip their turn",
    "Skip": "the next player is skipped",
    "No Reveal": "the next player only discards",
    "No Trash": "the next player reveals the top of their discard pile, nothing else",
    "Partial Play": "the next player discards only one card",
    "Rapid Fire": "the next player does not discard",
    "Slow Down": "the next player shuffles their reveal pile into their stack first",
    "Second Chance": "takes another turn right now",
    "Restart Game": "every card is shuffled and redealt",
    "Shuffle": "every stack and discard pile is shuffled and redealt",
}


def describe(e: Mapping[str, Any]) -> str:
    """One line of text for a decoded event."""
    k = e["event"]
    who = f"seat {e.get('seat')}"
    if k == "start":
        return f"== game {e['game']}: {e['players']} players, {e['cards']} cards, seat {e['dealer']} deals"
    if k == "deal":
        return f"{who} is dealt {e['cards']} cards ({e['reason']}), top first: {', '.join(e['stack_cards'])}"
    if k == "turn":
        tag = " (Second Chance)" if e["second_chance"] else ""
        return f"-- turn {e['turn']}: {who}{tag}, stack {e['stack']}, play {e['direction']}"
    if k == "skip":
        why = {"Skip": "skipped", "declined": "declines to perform: turn skipped",
               "unable": "cannot perform: turn skipped"}[e["reason"]]
        return f"{who} {why}"
    if k == "perform":
        return f"{who} {'performs' if e['performed'] else 'does not perform'} for {e['card']}"
    if k == "discard":
        return f"{who} discards {e['card']} ({e['stack']} left in stack)"
    if k == "reveal":
        src = "" if e["from"] == "stack" else " from the discard pile"
        return f"{who} reveals {e['card']}{src}"
    if k == "effect":
        c = e["card"]
        if c == "Clean Up":
            txt = f"{e['moved']} revealed cards go to the discard pile"
        elif c == "Do Over":
            txt = f"{e['moved']} revealed cards back into the stack, reshuffled ({e['stack']} cards)"
        elif c in ("Double Dip", "Recycle Bonus"):
            txt = "reveals another card" if e["second_reveal"] else "nothing left to reveal"
        elif c == "Refund":
            txt = (f"{e['card_back']} goes back to the {e['to']} of the stack" if e["card_back"]
                   else "no discarded card to take back")
        elif c == "Peek":
            txt = f"looks through the stack ({e['known']} cards) until the next turn"
        elif c == "Pick a Player":
            txt = f"seat {e['picked']} gets the next turn"
        elif c == "Reverse Direction":
            txt = f"play now goes {e['direction']}"
        elif c.startswith("Stack Swap"):
            txt = f"every stack goes to the player on the {e['to']}"
        else:
            txt = _EFFECT_TEXT.get(c, "")
        return f"{c} acts for {who}: {txt}"
    if k == "next_effect":
        c = e["card"]
        extra = f" ({e['moved']} cards)" if c == "Slow Down" else ""
        if c == "No Trash" and not e["discards"]:
            extra = " (empty discard pile: nothing to reveal)"
        return f"{c} applies to {who}{extra}"
    if k == "hold":
        return f"{who} sets {e['card']} aside"
    if k == "pass":
        return f"{who} does not answer seat {e['on_seat']}'s {e['on']} (could: {', '.join(e['options'])})"
    if k == "play_held":
        if e["answer"] == "shield":
            return f"{who} plays Shield: {e['on']} is forced from seat {e['on_seat']} onto seat {e['target']}"
        if e["answer"] == "discard":
            return f"{who} plays No Way: seat {e['on_seat']}'s {e['on']} is discarded"
        if e["answer"] == "overrule_held":
            return f"{who} plays Never Happened on seat {e['held_by']}'s {e['on']}"
        return f"{who} plays Never Happened: seat {e['on_seat']}'s {e['on']} is overruled"
    if k == "cancel":
        return f"{e['card']} of {who} does not act ({e['by']})"
    if k == "eliminated":
        return f"{who} is eliminated (out #{e['order']})"
    if k == "redeal":
        return f"redeal ({e['reason']}): {e['cards']} cards shuffled and dealt from seat {e['first']}"
    if k == "win":
        return f"{who} wins ({'the Turtle' if e['by'] == 'turtle' else 'last player standing'})"
    if k == "cap":
        return f"game cut after {e['turns']} turns (unfinished)"
    if k == "end":
        w = e["winner"]
        res = f"seat {w} wins by {e['ended_by']}" if w >= 0 else "unfinished"
        return f"== game {e['game']}: {res} after {e['turns']} turns"
    return str(dict(e))


# -- summaries ---------------------------------------------------------------------------------------
# Every summary reads the tables lazily, on polars' streaming engine, and the per-game reveal counts a
# window of whole games at a time (cardsim.windows): memory bounded whatever the run's size.
def _games(tables: Mapping[str, pl.LazyFrame], players: int) -> pl.LazyFrame:
    """The games table's columns the summaries read (not the per-seat ``out_s*`` columns, nor the
    seats the game does not have)."""
    return tables["games"].select(
        "game", "winner", "turns", "eliminated", "restarts", "redeals", "shuffles", "ended_by",
        *(f"reveals_s{k}" for k in range(players)))


_LENGTHS = ("turns", "eliminated", "restarts", "redeals", "shuffles")


def _exact_counts(setup: Setup) -> set[str]:
    """The per-game counts the rules make 0 in every game of ``setup``: in the young variant (T10) no
    action card acts, so there are no restarts or shuffles; in the full one a card taken out (``remove``)
    never acts. The summary prints these without an interval's width; every other count (turns,
    eliminated, redeals, and the rest wherever they can happen) reads at least Garwood's interval at its
    effective count, never 0-0 (:func:`cardsim.stats.mean_exprs` with ``count``)."""
    removed = tuple(setup.knobs.get("remove", ()))
    return {c for c, card in (("restarts", "Restart Game"), ("shuffles", "Shuffle"))
            if setup.variant == "young" or card in removed}


def _seat_rates(finished: pl.LazyFrame, players: int) -> list[pl.LazyFrame]:
    """Each seat's win rate over finished games (one row per game: Wilson, design effect 1)."""
    return [rate_query(finished.with_columns(seat=pl.lit(s, pl.Int8), win=pl.col("winner") == s), ["seat"], "win")
            for s in range(players)]


def summarize(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
    games = _games(tables, setup.players)
    finished = games.filter(pl.col("winner") >= 0)
    exact = _exact_counts(setup)
    count, ends, *rest = collect_all([
        games.select(pl.len().alias("n"), (pl.col("winner") >= 0).sum().alias("finished")),
        games.group_by("ended_by").agg(pl.len().alias("k")),
        *(games.select(pl.lit(c).alias("per_game"), *mean_exprs(c, count=c not in exact)) for c in _LENGTHS),
        *_seat_rates(finished, setup.players),
    ])
    n_games, n_fin = int(count["n"][0]), int(count["finished"][0])
    out: list[tuple[str, pl.DataFrame]] = []
    pol = pl.DataFrame({"seat": list(range(setup.players)),
                        "policy": [s.plugin or s.name for s in setup.seats]},
                       schema={"seat": pl.Int8, "policy": pl.String})
    out.append((f"Win rate by seat (seat 1 plays first; {n_games - n_fin} unfinished games "
                "left out), 95% Wilson", pol.join(pl.concat(rest[len(_LENGTHS):]), on="seat")))
    ends = ends.with_columns(pl.lit(n_games).alias("n"), pl.col("ended_by").cast(pl.String)).sort("ended_by")
    out.append(("How games end (turtle / last player standing / cut at max_turns), 95% Wilson",
                ends.with_columns(wilson_exprs(pl.col("k"), pl.col("n")))))
    out.append(("Game length and events per game (mean, se, 95% CI)", pl.concat(rest[:len(_LENGTHS)])))
    if setup.variant == "full":
        base, table = card_section(tables, setup.players)
        out.append((f"Action cards: reveals per game and share of games with a reveal (over all games, 95% "
                    f"intervals), and the revealing seat's win rate (finished games; 95% Wilson clustered by game, "
                    f"win_deff its design effect); lift = win_rate minus {baseline_text(base)}, the win rate behind a "
                    f"revealed number card (players who reveal more stay in longer), with the 95% interval of "
                    f"that difference clustered by game", table))
    return out


@kept_for_frames  # a report's figure and summary (and a cards study) ask for the same table
def card_section(tables: Mapping[str, pl.LazyFrame], players: int) -> tuple[Estimate, pl.DataFrame]:
    """The full variant's per-card table (:func:`card_table` with the lifts of :func:`card_lifts`) and
    its baseline, from a run's tables."""
    games = tables["games"]
    n_games = int(collect(games.select(pl.len())).item())
    # the lifts' intervals: Wilson by MOVER (a t interval shrank to the baseline's where a card's revealers never won)
    base, lifts = card_lifts(games.filter(pl.col("winner") >= 0), tables["reveals"], players, mover=True)
    return base, card_table(tables["reveals"], n_games, lifts)


def baseline_text(base: Estimate) -> str:
    """The lifts' baseline as a caption gives it: ``29.8% (95% CI 29.1-30.5%)``."""
    from cardsim.report import numbers as N

    return N.pct_ci(base.value, base.lo, base.hi)


def headline(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
    """In words: the seats' win rates against the fair share, game length and how games end.

    Which seats differ from the fair share is a claim about every seat at once, so it reads Bonferroni
    intervals (each seat's Wilson interval at level 0.05 / players): all hold at once with chance at
    least 95%. The pointwise interval of the best seat it read before (the best picked from the data)
    claimed an edge in 10.2% of fair 4-seat runs of 20,000 games."""
    from cardsim.report import numbers as N

    games = _games(tables, setup.players)
    count, ended, turns, *rates = collect_all([
        games.select(pl.len().alias("n"), (pl.col("winner") >= 0).sum().alias("finished")),
        games.group_by("ended_by").agg(pl.len().alias("k")).with_columns(pl.col("ended_by").cast(pl.String)),
        games.select(mean_exprs("turns", count=True)),
        *_seat_rates(games.filter(pl.col("winner") >= 0), setup.players),
    ])
    n, n_fin = int(count["n"][0]), int(count["finished"][0])
    if n == 0:
        return "No games played."
    ends = {k: 0 for k in ENDED} | dict(zip(ended["ended_by"].to_list(), ended["k"].to_list(), strict=True))
    turns = turns.row(0, named=True)

    def share(k: int) -> str:  # games are independent: each share's Wilson interval
        return N.pct_ci(k / n, *wilson(k, n))

    cut = "none was cut at the turn cap" if ends["cap"] == 0 else \
        f"{ends['cap']:,} ({share(ends['cap'])}) were cut at the turn cap (T9)"
    tail = (f"A game lasts {N.num_ci(turns['mean'], turns['lo'], turns['hi'], 'turns')}; "
            f"{share(ends['turtle'])} end with the Turtle, {share(ends['last_player'])} with the last "
            f"player standing, and {cut}.")
    if n_fin == 0:
        return tail
    k = setup.players
    rows = list(wilson_at(pl.concat(rates), bonferroni_z(k)).iter_rows(named=True))
    best = max(range(k), key=lambda s: rows[s]["rate"])
    names = [s.plugin.rsplit("/", 1)[-1] if s.plugin else s.name for s in setup.seats]
    fair = 1 / k

    def ci(s: int) -> str:
        return N.pct_ci(rows[s]["rate"], rows[s]["sim_lo"], rows[s]["sim_hi"], label="", ref=fair)

    off = [s for s in range(k) if rows[s]["sim_lo"] > fair or rows[s]["sim_hi"] < fair]  # NaN ends: not off
    simultaneous = f"95% intervals simultaneous over the {k} seats"
    if not off:  # the highest rate is the sample's, not a finding: no seat is named first
        seats = ", ".join(f"seat {s} {ci(s)}" for s in range(k))
        return (f"No seat differs detectably from the fair share of {N.pct(fair)} over {n_fin:,} finished games "
                f"({seats}; {simultaneous}). " + tail)
    others = ", ".join(f"seat {s} {ci(s)}" for s in range(k) if s != best)
    listed = [f"{s} ({N.points(rows[s]['rate'] - fair)})" for s in off]
    verdict = (f"seat{'s' if len(off) > 1 else ''} {', '.join(listed[:-1])}{' and ' if len(off) > 1 else ''}"
               f"{listed[-1]} differ{'s' if len(off) == 1 else ''} detectably from the fair share of {N.pct(fair)}")
    return (f"Seat {best} ({names[best]}) wins most often, {ci(best)} of {n_fin:,} finished games ({others}; "
            f"{simultaneous}): {verdict}. " + tail)


def figures(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, list, list]]:
    """Report sections (the game length is the report's own section): in the full variant, each
    action card's lift on its revealer's win rate."""
    from cardsim.report import figures as F

    out: list[tuple[str, list, list]] = []
    if setup.variant == "full" and collect(tables["games"].select(pl.len())).item():
        base, t = card_section(tables, setup.players)
        t = t.filter(pl.col("win_n") > 0).sort("lift")
        plot = t.filter(~pl.col("card").is_in(["Turtle", "Eliminated"]))
        figs = []
        if plot.height:
            # a figure of k cards is read as a ranking: intervals that hold for every card at once
            # (Bonferroni, Wilson combined by MOVER), so a card off 0 is not one of the k by chance
            k = plot.height
            _, sim = card_lifts(tables["games"].filter(pl.col("winner") >= 0), tables["reveals"], setup.players,
                                alpha=0.05 / k, mover=True)
            plot = plot.select("card", "lift").join(sim.select("card", "lift_lo", "lift_hi"), on="card", how="left").sort(
                "lift")
            fig = F.forest([str(c) for c in plot["card"].to_list()], plot["lift"].to_list(),
                           plot["lift_lo"].to_list(), plot["lift_hi"].to_list(),
                           "Revealer's win rate minus the win rate behind a number card",
                           f"difference in win rate (simultaneous 95% intervals over the {k} cards, clustered by "
                           f"game)", percent=True)
            figs.append(("Which action cards help the player who reveals them: lift over the "
                          f"{baseline_text(base)} win rate behind a revealed number card (Turtle and gecko in the "
                          f"table); the intervals hold for all {k} cards at once", fig))
        out.append(("Action cards", figs, [("Per action card (pointwise 95% intervals: each for its own row)",
                                            t.sort("lift", descending=True))]))
    return out


def card_lifts(finished: pl.DataFrame | pl.LazyFrame, reveals: pl.DataFrame | pl.LazyFrame,
               players: int, alpha: float = 0.05, mover: bool = False) -> tuple[Estimate, pl.DataFrame]:
    """The baseline and each action card's lift: (the win rate of the seat behind a revealed number
    card, over finished games and weighted by reveals: number cards do nothing, so a seat that
    reveals more has simply stayed in the game longer; its 95% Wilson interval at the effective size,
    clustered by game; per card, the revealing seat's win rate minus that baseline, with the 95%
    interval of the difference clustered by game, :func:`cardsim.stats.rate_difference`: both rates
    are estimated, from the same games).
    Beyond ``stats.CLUSTERS`` games a cluster is a block of consecutive games (``stats.cluster_block``).
    ``alpha`` and ``mover``: the intervals' level, and Wilson intervals combined by MOVER (for a level
    as far out as Bonferroni's over the cards)."""
    schema = {"card": CARD_ENUM, "lift": pl.Float64, "lift_lo": pl.Float64, "lift_hi": pl.Float64}
    finished = finished.lazy()
    cluster = cluster_key(finished)
    fin = finished.group_by(cluster).agg(
        pl.sum_horizontal([pl.col(f"reveals_s{k}") for k in range(players)]).sum().alias("every"),
        pl.sum_horizontal([pl.col(f"reveals_s{k}") * (pl.col("winner") == k).cast(pl.Int64)
                           for k in range(players)]).sum().alias("by_winner")).sort("game")
    act = reveals.lazy().filter(pl.col("won").is_not_null())
    per = act.group_by("card", cluster).agg(pl.len().alias("n"), pl.col("won").cast(pl.Float64).sum().alias("w"))
    fin, per = collect_all([fin, per])
    if fin.height == 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, 0, 0), pl.DataFrame(schema=schema)
    games = fin["game"].to_numpy()
    every, by_winner = fin["every"].to_numpy(), fin["by_winner"].to_numpy()
    act_n, act_w = on_games(games, per.group_by("game").agg(pl.col("n").sum(), pl.col("w").sum()), "n", "w")
    num_n, num_w = every - act_n, by_winner - act_w  # the number cards' reveals, by cluster
    base = float(num_w.sum() / num_n.sum()) if num_n.sum() > 0 else math.nan
    neff = effective_size(num_n, num_w)
    lo, hi = wilson(base * neff, neff) if num_n.sum() > 0 else (math.nan, math.nan)
    baseline = Estimate(base, math.nan, lo, hi, int(num_n.sum()), int((num_n > 0).sum()),
                        float(num_n.sum()) / neff if neff > 0 else 1.0)
    rows = []
    for (card,), g in per.partition_by("card", as_dict=True).items():
        n_in, w_in = on_games(games, g, "n", "w")
        e = rate_difference(w_in, n_in, w_in + num_w, n_in + num_n, alpha=alpha, mover=mover)
        rows.append({"card": card, "lift": e.value, "lift_lo": e.lo, "lift_hi": e.hi})
    return baseline, pl.DataFrame(rows, schema=schema)


def reveal_counts(rv: pl.DataFrame | pl.LazyFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per action card (by code): the games with a reveal of it, and the sum and sum of squares over
    games of its reveals in a game. From runs of equal (game, card) keys, a window of whole games at
    a time (:func:`cardsim.windows.game_windows`): a group_by on (card, game) held every pair in
    memory (4 GiB at 1M games), a sort of the whole table too (1.2 KiB a game)."""
    nk = len(cards.ACTION_NAMES)
    with_, s, q = np.zeros(nk, np.int64), np.zeros(nk), np.zeros(nk)
    for w in game_windows({"reveals": rv.lazy()}, ["reveals"], {"reveals": ["card"]}):
        r = w["reveals"]
        g = r["game"].to_numpy()
        key = np.sort((g - g[0]) * nk + r["card"].to_physical().to_numpy(), kind="stable")
        start = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
        c = np.diff(np.append(start, key.size)).astype(np.float64)
        kind = key[start] % nk
        with_ += np.bincount(kind, minlength=nk)
        s += np.bincount(kind, c, nk)
        q += np.bincount(kind, c * c, nk)
    return with_, s, q


def card_table(rv: pl.DataFrame | pl.LazyFrame, n_games: int, lifts: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per action card: reveals (in all, and per game with its 95% interval), games with one (rate
    over all games), how many were stopped (overruled or discarded), the revealing seat's win rate in
    finished games and, given :func:`card_lifts`, its lift with the lift's interval."""
    rv = rv.lazy()
    with_, s, q = reveal_counts(rv)
    counts = pl.DataFrame({"card": CARD_SERIES, "games_with": with_, "_s": s, "_q": q})
    # a seat may reveal a card several times in one game: the win rate is clustered by game
    per, win = collect_all([
        rv.group_by("card").agg(
            pl.len().alias("reveals"),
            (pl.col("applied_to") < 0).sum().alias("stopped"),
            pl.col("won").count().alias("win_n"),
            pl.col("won").cast(pl.Float64).sum().alias("win_k")),
        rate_query(rv.filter(pl.col("won").is_not_null()), ["card"], "won"),
    ])
    allcards = pl.DataFrame({"card": CARD_SERIES})
    per = allcards.join(per, on="card", how="left").fill_null(0).join(counts.select("card", "games_with"), on="card")
    win = win.select("card", pl.col("rate").alias("win_rate"), pl.col("lo").alias("win_lo"),
                     pl.col("hi").alias("win_hi"), pl.col("deff").alias("win_deff"))
    # reveals per game: the mean over all games of a game's count (zero in most), Garwood's Poisson
    # interval at the effective count (a card never revealed still gets an upper bound); a card seen
    # fewer than 20 times clumps at least as the table's cards do (stats.pooled_dispersion)
    n = max(n_games, 1)
    lo, hi = count_rate_ci(s, q, n, floor=pooled_dispersion(s, q, n))
    per_game = counts.select("card", (pl.col("_s") / max(n_games, 1)).alias("per_game"),
                             pl.Series("per_game_lo", lo), pl.Series("per_game_hi", hi))
    if lifts is None:
        lifts = pl.DataFrame(schema={"card": CARD_ENUM, "lift": pl.Float64, "lift_lo": pl.Float64,
                                     "lift_hi": pl.Float64})
    return per.join(win, on="card", how="left").join(per_game, on="card", how="left").with_columns(
        *wilson_exprs(pl.col("games_with"), pl.lit(n_games), prefix="games_"),
    ).join(lifts, on="card", how="left").select(
        "card", "reveals", "per_game", "per_game_lo", "per_game_hi", "games_with", "games_rate", "games_lo",
        "games_hi", "stopped", "win_n", "win_rate", "win_lo", "win_hi", "win_deff", "lift", "lift_lo", "lift_hi",
    ).sort("card")


GAME = Turtle()
