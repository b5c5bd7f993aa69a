"""FOURBID's face: variants, knobs, tables, trace decoding, summaries and test entry points."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from cardsim.errors import PolicyError, ScenarioError
from cardsim.events import decode_rows
from cardsim.frames import column
from cardsim.games.base import Game, Knob, Setup, Variant
from cardsim.games.fourbid import cards
from cardsim.games.fourbid import state as S
from cardsim.games.fourbid.baseline import minimal
from cardsim.games.fourbid.policies import POLICIES
from cardsim.policies import kernel_namespace
from cardsim.report import numbers as N
from cardsim.stats import bonferroni_z, collect_all, mean_exprs, mean_query, rate_query, rate_table, wilson_at

SEATS = range(4)
ARGS = "seat, hand, nh, cnt, pts, pub, cset, cval, params, rng"
DECISIONS = {
    "acquire": ARGS,
    "discard": ARGS,
    "bid": "seat, bid, hand, nh, cnt, pts, pub, cset, cval, params, rng",
    "challenge": ARGS,
}


def _per_seat(prefix: str, text: str) -> dict[str, str]:
    return {f"{prefix}_s{s}": text.replace("{s}", str(s)) for s in SEATS}


HAND_COLUMNS = {
    "game": "global unit index (the hand, the game or the tournament, by variant)",
    "tgame": "game number inside the tournament (0-based; 0 outside the tournament variant)",
    "hand": "hand number in the game (0-based; void hands included)",
    "dealer": "seat that dealt (B2)",
    "out": "seat that went out (B8); -1 for a hand cut at the turn cap (B14, void)",
    "first_indicator": "seat that played the first Indicator of the hand (B6; -1 none)",
    "first_indicator_turn": "completed turns before the first Indicator went down (-1 none)",
    "bids": "turns that began with bidding (B4)",
    "turns": "completed turns (one acquire + one discard each)",
    "reshuffles": "times the discards became a new deck (B12)",
    **_per_seat("earned", "seat {s}'s Earned Points (B10; 0 in a void hand)"),
    **_per_seat("bonus", "seat {s}'s Bonus Points: 24 going out, 12 / 8 for a won / tied challenge (B8, B9)"),
    **_per_seat("spent", "seat {s}'s Points Spent: bids, Special Rule 1, challenge (B5, B6, B9; 0 if void)"),
    **_per_seat("net", "seat {s}'s Net = Earned + Bonus - Spent, may be negative (B11; 0 if void)"),
    **_per_seat("challenged", "seat {s} paid for the Bid-Four Challenge (B9)"),
    **_per_seat("ind", "Indicators seat {s} had played when the hand ended"),
    **_per_seat("score", "seat {s}'s running score after the hand (a negative Net adds 0, B11)"),
}
GAME_COLUMNS = {
    "game": "global unit index (the game; the tournament in the tournament variant)",
    "tgame": "game number inside the tournament (0-based; 0 in the game variant)",
    "winner": "seat that won (B13); -1 unfinished (cut at max_hands)",
    "winner_player": "player (policy index, P1 = 0) who won; -1 unfinished",
    "hands": "hands played, void hands included",
    "void_hands": "hands cut at the turn cap (B14)",
    "finished": "the game reached a sole leader at the target",
    **_per_seat("final_net", "seat {s}'s final running score"),
    **_per_seat("player", "player seated at seat {s} (position A-D; identity outside tournaments)"),
    **{f"final_net_p{p}": f"player {p}'s final running score" for p in SEATS},
}
TOURNAMENT_COLUMNS = {
    "game": "global unit index (the tournament)",
    "winner": "player (policy index, P1 = 0) who won the tournament; -1 unfinished (cut at max_games)",
    "games": "games played",
    "hands": "hands played",
    "finished": "a player reached tournament_wins",
    **{f"wins_p{p}": f"games won by player {p}" for p in SEATS},
}
TABLES = {"hand": ("hands",), "game": ("hands", "games"), "tournament": ("hands", "games", "tournaments")}
VARIANT_CODE = {"hand": S.V_HAND, "game": S.V_GAME, "tournament": S.V_TOURNAMENT}


class Fourbid(Game):
    name = "fourbid"
    title = "FOURBID"
    rules_version = 1
    unit = "hand"
    unit_table = "hands"
    variants = (
        Variant("game", "one game to a target (knob target, default 72): position A (seat 0) deals first; "
                "a unit is a game", 4, 4, 4),
        Variant("hand", "single hands with scores at 0 (many samples for tactics); a unit is a hand", 4, 4, 4),
        Variant("tournament", "first to tournament_wins games (3), players re-seated each game by the Player "
                "Position Map; a unit is a tournament; seat policies are players P1-P4", 4, 4, 4),
    )
    knobs = (
        Knob("target", 72, "B13: running score that ends a game (72 in tournaments; 100 and 200 are common)",
             lo=1, hi=1_000_000, variants=("game", "tournament")),
        Knob("target_rule", "reach", "B13: 'reach' ends a game at a sole leader with score >= target "
             "(the default reading), 'surpass' needs > target (the sheet's wording)", kind="choice",
             choices=("reach", "surpass"), variants=("game", "tournament")),
        Knob("turn_cap", 2000, "B14: completed turns after which a hand is cut (void, nobody scores, counted)",
             lo=1, hi=1_000_000),
        Knob("max_hands", 1000, "hands after which a game is cut and counted unfinished",
             lo=1, hi=1_000_000, variants=("game", "tournament")),
        Knob("tournament_wins", 3, "B13: games a player must win to take the tournament", lo=1, hi=1000,
             variants=("tournament",)),
        Knob("max_games", 100, "games after which a tournament is cut and counted unfinished", lo=1, hi=100_000,
             variants=("tournament",)),
        Knob("dealer", "rotate", "who deals a single hand: 'rotate' = seat (unit index mod 4), 'A' = seat 0",
             kind="choice", choices=("rotate", "A"), variants=("hand",)),
        Knob("rule1_cost", 4, "B6 Special Rule 1: cost of the first Indicator of a hand", lo=0, hi=1000),
        Knob("rule2", True, "B7 Special Rule 2: after the first 2, a player with no Indicator down must "
             "play Indicator 1 the next time they complete a turn", kind="bool"),
        Knob("out_bonus", 24, "B8: Bonus Points for going out", lo=0, hi=1000),
        Knob("challenge_cost", 4, "B9: Points Spent to challenge", lo=0, hi=1000),
        Knob("challenge_win", 12, "B9: Bonus Points for a challenger with more Earned Points", lo=0, hi=1000),
        Knob("challenge_tie", 8, "B9: Bonus Points for a challenger with equal Earned Points", lo=0, hi=1000),
    )
    policies = POLICIES
    decisions = DECISIONS
    dispatchers = {"acquire": "decide_acquire", "discard": "decide_discard", "bid": "decide_bid",
                   "challenge": "decide_challenge"}
    columns = {"hands": HAND_COLUMNS, "games": GAME_COLUMNS, "tournaments": TOURNAMENT_COLUMNS}
    default_chunk = 20000
    kernel_module = "cardsim.games.fourbid.rules"
    default_policy = "collector"
    bench_count = 20000  # games to 72 (the default variant): about 5.8 collector hands each
    minimal_scale = 6  # so the minimal kernel plays about as many hands as the full one
    trace_batch = 5  # a tournament traces thousands of events

    def check_setup(self, setup: Setup) -> None:
        if setup.variant == "tournament" and setup.knob("max_games") < setup.knob("tournament_wins"):
            raise ScenarioError(
                f"rules.max_games = {setup.knob('max_games')} is below rules.tournament_wins = "
                f"{setup.knob('tournament_wins')}: no tournament could finish"
            )
        _check_someone_opens(setup)

    # -- the kernel call -------------------------------------------------------------
    def knob_vector(self, setup: Setup) -> np.ndarray:
        """int64[NK]: the knob values as the kernel reads them (``state.K_*``)."""
        kn = np.zeros(S.NK, np.int64)
        k = setup.knobs
        kn[S.K_VARIANT] = VARIANT_CODE[setup.variant]
        kn[S.K_TURN_CAP] = k["turn_cap"]
        kn[S.K_TARGET] = k.get("target", 0)
        kn[S.K_SURPASS] = 1 if k.get("target_rule") == "surpass" else 0
        kn[S.K_MAX_HANDS] = k.get("max_hands", 1)
        kn[S.K_WINS] = k.get("tournament_wins", 3)
        kn[S.K_MAX_GAMES] = k.get("max_games", 1)
        kn[S.K_ROTATE] = 1 if k.get("dealer", "rotate") == "rotate" else 0
        kn[S.K_RULE1] = k["rule1_cost"]
        kn[S.K_RULE2] = 1 if k["rule2"] else 0
        kn[S.K_OUT_BONUS] = k["out_bonus"]
        kn[S.K_CH_COST] = k["challenge_cost"]
        kn[S.K_CH_WIN] = k["challenge_win"]
        kn[S.K_CH_TIE] = k["challenge_tie"]
        return kn

    def run_arrays(self, setup: Setup, key: int, start: int, count: int, debug: bool = False,
                   trace: bool = False, stack: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Run the kernel; returns the raw (hands, games, tournaments, events) arrays.

        ``stack`` (int64[k, ncards], top card first) replaces the shuffle of the first ``k`` hands
        of every unit (hand ``i`` counts all hands of the unit, across a tournament's games)."""
        run = kernel_namespace(self, setup.plugins)["run_chunk"]
        kn = self.knob_vector(setup)
        v = setup.variant
        stack = np.zeros((0, cards.N_CARDS), np.int64) if stack is None else np.atleast_2d(
            np.asarray(stack, np.int64))
        per = {"hand": 1, "game": 6, "tournament": 30}[v]
        hout = np.zeros((max(16, count * per), S.NH), np.int32)
        gout = np.zeros((max(1, count * (6 if v == "tournament" else 1)) if v != "hand" else 1, S.NG), np.int32)
        tout = np.zeros((count if v == "tournament" else 1, S.NT), np.int32)
        evcap = max(1, count * per * 300) if trace else 1
        while True:
            ev = np.zeros((evcap, 8), np.int64)
            nev = np.zeros(1, np.int64)
            ctr = np.zeros(4, np.int64)
            while True:
                err = np.zeros(S.NERR, np.int64)
                run(np.uint64(key), start, count, setup.pids(), setup.params(), kn, cards.CARD_SET,
                    cards.CARD_VALUE, cards.N_SETS, cards.position_map(), stack, debug, trace, ev, nev,
                    hout, gout, tout, ctr, err)
                if err[0] == S.E_FULL:
                    hout = _grow(hout, ctr[1])
                    gout = _grow(gout, ctr[2])
                    tout = _grow(tout, ctr[3])
                    continue
                if err[0] != S.E_NONE:
                    self._raise(setup, err)
                break
            if trace and nev[0] > evcap:
                evcap = int(nev[0])
                continue
            return hout[: ctr[1]], gout[: ctr[2]], tout[: ctr[3]], ev[: nev[0]]

    def _raise(self, setup: Setup, err: np.ndarray) -> None:
        code, seat, d, value, player, g = (int(x) for x in err[:6])
        if code == S.E_CONSERVATION:
            where = ("after the deal", "after an acquire", "after a discard")[value]
            raise RuntimeError(f"fourbid debug: card conservation broken in game {g} {where}")
        npile, forced, ind, nh = (int(x) for x in err[6:10])
        hand = ", ".join(f"{c} ({cards.card_name(c)})" for c in err[10:10 + nh])
        if d == S.D_ACQUIRE:
            legal = "0 (top of the deck)" + (" or 1 (top of the discard pile)" if npile > 0 else
                                             "; the discard pile is empty")
        elif d == S.D_DISCARD:
            if forced:
                legal = "-1 only (Special Rule 2, B7: Indicator 1 must be played)"
            else:
                legal = f"an OceanLife card code in hand [{hand}]"
                legal += f" or -1 (Indicator {ind})" if ind else " (the next Indicator is not legal now, B8)"
        else:
            legal = "1 (raise) or 0 (pass)" if d == S.D_BID else "1 (challenge) or 0 (decline)"
        sp = setup.seats[player]
        raise PolicyError(
            f"policy {sp.plugin or sp.name!r} (player {player}) at seat {seat} returned {value} at decision "
            f"'{S.DECISION_NAMES[d]}' in game {g}; legal: {legal}"
        )

    def simulate_chunk(self, setup: Setup, key: int, start: int, count: int,
                       debug: bool = False) -> dict[str, pl.DataFrame]:
        """``hands``, ``games`` and ``tournaments`` frames; a table the variant does not fill (``games``
        in the hand variant, ``tournaments`` outside the tournament variant) is empty, with its schema."""
        hout, gout, tout, _ = self.run_arrays(setup, key, start, count, debug)
        v = setup.variant
        return {"hands": hands_frame(hout),
                "games": games_frame(gout if "games" in TABLES[v] else gout[:0]),
                "tournaments": tournaments_frame(tout if "tournaments" in TABLES[v] else tout[:0])}

    def bench_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        """Hands played by the kernel alone (no polars frames)."""
        return int(self.run_arrays(setup, key, start, count)[0].shape[0])

    def minimal_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        """``count`` hands of the baseline (``baseline.py``); returns hands played."""
        return minimal_turns(setup, key, start, count)[0]

    # -- trace ------------------------------------------------------------------------
    def trace(self, setup: Setup, key: int, start: int, count: int,
              stack: np.ndarray | None = None) -> list[dict[str, Any]]:
        *_, ev = self.run_arrays(setup, key, start, count, True, True, stack)
        return decode_events(ev, setup.variant == "tournament")

    def describe_event(self, event: Mapping[str, Any]) -> str:
        return describe(event)

    # -- analysis ---------------------------------------------------------------------
    def outcomes(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> pl.LazyFrame:
        """One row per (unit, seat). ``hand``: 1/k for the k seats with the best Net of the hand
        (null when cut, B14), ``length`` = turns. ``game``: 1 for the winner (null when cut at
        max_hands), ``length`` = hands. ``tournament``: ``seat`` is the player (P1 = 0), 1 for the
        champion, ``length`` = hands. ``dealer`` / ``first`` mark the seat that dealt the first hand
        and the seat that played first (hand and game variants)."""
        seats = pl.LazyFrame({"seat": list(SEATS)}, schema={"seat": pl.Int8})
        if setup.variant == "hand":
            h = tables["hands"]
            top = pl.max_horizontal(*[pl.col(f"net_s{s}") for s in SEATS])
            k = pl.sum_horizontal(*[(pl.col(f"net_s{s}") == top).cast(pl.Int32) for s in SEATS])
            long = pl.concat([
                h.select("game", "out", "dealer", pl.col("turns").alias("length"),
                         pl.lit(s, pl.Int8).alias("seat"),
                         ((pl.col(f"net_s{s}") == top).cast(pl.Float64) / k).alias("w"))
                for s in SEATS
            ])
            return long.select(
                "game", "seat", pl.when(pl.col("out") < 0).then(None).otherwise(pl.col("w")).alias("win"),
                pl.col("length").cast(pl.Int64),
                (pl.col("seat") == pl.col("dealer")).alias("dealer"),
                (pl.col("seat") == (pl.col("dealer") + 1) % 4).alias("first"),
            ).sort("game", "seat")
        table = "games" if setup.variant == "game" else "tournaments"
        g = tables[table].select("game", "winner", "hands")
        cols = [
            "game", "seat",
            pl.when(pl.col("winner") < 0).then(None).otherwise((pl.col("winner") == pl.col("seat"))
                                                                 .cast(pl.Float64)).alias("win"),
            pl.col("hands").cast(pl.Int64).alias("length"),
        ]
        if setup.variant == "game":  # B13: position A (seat 0) deals the first hand, seat 1 plays first
            cols += [(pl.col("seat") == 0).alias("dealer"), (pl.col("seat") == 1).alias("first")]
        return g.join(seats, how="cross").select(cols).sort("game", "seat")

    def progress(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
        """Game variant: running scores after each hand (side = seat). Tournament: games won so far
        after each game (side = player). A single hand keeps no running score (None)."""
        if setup.variant == "game":
            h = tables["hands"]
            prog = pl.concat([h.select("game", pl.col("hand").alias("step"), pl.lit(s, pl.Int8).alias("side"),
                                       pl.col(f"score_s{s}").alias("score")) for s in SEATS])
            win = tables["games"].filter(pl.col("winner") >= 0).select("game", pl.col("winner").alias("side"))
            return prog, win
        if setup.variant == "tournament":
            g = tables["games"].sort("game", "tgame")
            prog = pl.concat([g.select("game", pl.col("tgame").alias("step"), pl.lit(p, pl.Int8).alias("side"),
                                       (pl.col("winner_player") == p).cast(pl.Int32).cum_sum().over("game")
                                       .alias("score")) for p in SEATS])
            win = tables["tournaments"].filter(pl.col("winner") >= 0).select("game", pl.col("winner").alias("side"))
            return prog, win
        return None

    def count_table(self, variant: str) -> str:
        """A unit is a hand, a game or a tournament (the variant): its table has a row per unit."""
        return {"hand": "hands", "game": "games", "tournament": "tournaments"}[variant]

    def length_unit(self, setup: Setup) -> str:
        return "turns" if setup.variant == "hand" else "hands"

    def headline(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
        return headline(tables, setup)

    def figures(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, list, list]]:
        return figures(tables, setup)

    def summarize(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
        return summarize(tables, setup)


GAME = Fourbid()


#: turns a table may play at most in one game before it is refused as a table that never starts a hand
NEVER_OPENS_LIMIT = 1_000_000


def _check_someone_opens(setup: Setup) -> None:
    """Refuse a table where no seat ever plays a hand's first Indicator (B6): every seat a ``bidder``
    whose ``first_at`` exceeds the OceanLife cards it holds when it decides (the 4 dealt, B2, and the
    one just acquired; the shipped defaults are such a bidder, found against collectors, who do open). Every hand would then run to ``turn_cap`` and every game
    to ``max_hands``; with caps that small games stay cheap (the meta-game plays such profiles)."""
    names = [s.name for s in setup.seats]
    if any(n != "bidder" for n in names):
        return
    first = [dict(zip(s.param_names, s.params, strict=True)).get("first_at", 0.0) for s in setup.seats]
    most = cards.DEALT + 1
    if min(first) <= most:
        return
    hands, turns = setup.knobs.get("max_hands", 1), setup.knobs.get("turn_cap", 1)
    if hands * turns <= NEVER_OPENS_LIMIT:
        return
    raise ScenarioError(
        f"no seat ever plays a hand's first Indicator: every seat is a bidder with first_at > {most} (the "
        f"OceanLife cards it holds when it decides; the bidder defaults, found against collectors, never open), so "
        f"every hand would run to rules.turn_cap = {turns:,} and every game to rules.max_hands = {hands:,}. "
        f"Give a seat first_at <= {most} or another policy (e.g. collector), or lower "
        f"rules.max_hands x rules.turn_cap to at most {NEVER_OPENS_LIMIT:,} to study such a table")


def _grow(a: np.ndarray, used: int) -> np.ndarray:
    b = np.zeros((max(2 * a.shape[0], 16), a.shape[1]), a.dtype)
    b[:used] = a[:used]
    return b


# -- frames ------------------------------------------------------------------------------
def hands_frame(h: np.ndarray) -> pl.DataFrame:
    i8, i16, i32 = pl.Int8, pl.Int16, pl.Int32

    def seat_cols(prefix: str, base: int, dtype: Any) -> dict[str, pl.Series]:
        return {f"{prefix}_s{s}": column(h[:, base + s], dtype) for s in SEATS}

    return pl.DataFrame({
        "game": column(h[:, S.H_GAME], pl.Int64),
        "tgame": column(h[:, S.H_TGAME], i32),  # max_games reaches 100,000
        "hand": column(h[:, S.H_HAND], i32),
        "dealer": column(h[:, S.H_DEALER], i8),
        "out": column(h[:, S.H_OUT], i8),
        "first_indicator": column(h[:, S.H_FIRST], i8),
        "first_indicator_turn": column(h[:, S.H_FIRST_TURN], i32),
        "bids": column(h[:, S.H_BIDS], i32),
        "turns": column(h[:, S.H_TURNS], i32),
        "reshuffles": column(h[:, S.H_RESHUF], i32),  # a hand cut at turn_cap can pass 32,767
        **seat_cols("earned", S.H_EARNED, i16),
        **seat_cols("bonus", S.H_BONUS, i16),
        **seat_cols("spent", S.H_SPENT, i32),
        **seat_cols("net", S.H_NET, i32),
        **{f"challenged_s{s}": pl.Series(h[:, S.H_CHAL + s] == 1) for s in SEATS},
        **seat_cols("ind", S.H_IND, i8),
        **seat_cols("score", S.H_SCORE, i32),
    })


def games_frame(g: np.ndarray) -> pl.DataFrame:
    i8, i32 = pl.Int8, pl.Int32
    return pl.DataFrame({
        "game": column(g[:, S.G_GAME], pl.Int64),
        "tgame": column(g[:, S.G_TGAME], pl.Int32),
        "winner": column(g[:, S.G_WINNER], i8),
        "winner_player": column(g[:, S.G_WPLAYER], i8),
        "hands": column(g[:, S.G_HANDS], i32),
        "void_hands": column(g[:, S.G_VOID], i32),
        "finished": pl.Series(g[:, S.G_FINISHED] == 1),
        **{f"final_net_s{s}": column(g[:, S.G_FINAL + s], i32) for s in SEATS},
        **{f"player_s{s}": column(g[:, S.G_PLAYER + s], i8) for s in SEATS},
        **{f"final_net_p{p}": column(g[:, S.G_FINAL_P + p], i32) for p in SEATS},
    })


def tournaments_frame(t: np.ndarray) -> pl.DataFrame:
    return pl.DataFrame({
        "game": column(t[:, S.T_GAME], pl.Int64),
        "winner": column(t[:, S.T_WINNER], pl.Int8),
        "games": column(t[:, S.T_GAMES], pl.Int32),
        "hands": column(t[:, S.T_HANDS], pl.Int32),
        "finished": pl.Series(t[:, S.T_FINISHED] == 1),
        **{f"wins_p{p}": column(t[:, S.T_WINS + p], pl.Int16) for p in SEATS},
    })


# -- bench -------------------------------------------------------------------------------
def minimal_turns(setup: Setup, key: int, start: int, count: int) -> tuple[int, int]:
    """Run the bench baseline (``baseline.py``); returns (hands, turns) played."""
    out = np.zeros(2, np.int64)
    minimal(np.uint64(key), start, count, cards.CARD_SET, cards.CARD_VALUE, cards.N_SETS,
            int(setup.knob("turn_cap")), out)
    return int(out[0]), int(out[1])


# -- constructed situations (tests, examples) ---------------------------------------------
def deal_stack(hands: Sequence[Sequence[str]], dealer: int = 0, deck: Sequence[str] = ()) -> np.ndarray:
    """int64[ncards]: a stacked deck (top first) that deals ``hands[s]`` (4 names each) to seat ``s``
    (one card at a time from the dealer's left, B2), then has ``deck`` on top of the rest; the
    cards not named follow in code order."""
    order: list[int] = []
    for i in range(4 * cards.DEALT):
        s = (dealer + 1 + i) % 4
        order.append(cards.card_code(hands[s][i // 4]))
    order += cards.codes(list(deck))
    if len(set(order)) != len(order):
        raise ValueError("a card is named twice in the stacked deck")
    rest = [c for c in range(cards.N_CARDS) if c not in set(order)]
    return np.array(order + rest, np.int64)


def play_state(setup: Setup, hands: Sequence[str | Sequence[str]], deck: str | Sequence[str],
               pile: str | Sequence[str] = (), boards: Sequence[int] = (0, 0, 0, 0), last: int = 0,
               spent: Sequence[int] = (0, 0, 0, 0), scores: Sequence[int] = (0, 0, 0, 0),
               any_indicator: bool | None = None, two_down: bool | None = None, turns: int = 0,
               key: int = 0, debug: bool = True) -> dict[str, Any]:
    """Play a constructed hand from a chosen state to its end with ``setup``'s policies.

    ``hands[s]``: seat ``s``'s OceanLife cards (``4 + boards[s]`` names); ``deck``: top card
    first, then every card not named anywhere (code order); ``pile``: bottom first (last = top);
    ``last``: the seat that completed the last turn (the next turn starts left of it, with
    bidding once an Indicator is down). Returns a dict with ``out``, per-seat lists ``earned``,
    ``bonus``, ``spent``, ``net``, ``challenged``, ``ind``, ``score``, the counts ``turns``,
    ``bids``, ``reshuffles``, ``first_indicator`` and the decoded ``events``."""
    ns = kernel_namespace(GAME, setup.plugins)
    nc = cards.N_CARDS
    hl = [cards.codes(h) for h in hands]
    dl = cards.codes(deck)
    pl_ = cards.codes(pile)
    named = [c for h in hl for c in h] + dl + pl_
    if len(set(named)) != len(named):
        raise ValueError("a card is named twice in the constructed state")
    rest = [c for c in range(nc) if c not in set(named)]
    full_deck = dl + rest
    hands_a = np.zeros((4, cards.WIDTH), np.int64)
    nhand = np.zeros(4, np.int64)
    for s in SEATS:
        if len(hl[s]) != 4 + boards[s]:
            raise ValueError(f"seat {s} holds {len(hl[s])} OceanLife cards; with {boards[s]} Indicators down "
                             f"it must hold {4 + boards[s]}")
        hands_a[s, : len(hl[s])] = hl[s]
        nhand[s] = len(hl[s])
    deck_a = np.zeros(nc, np.int64)
    deck_a[: len(full_deck)] = full_deck[::-1]  # top = deck[ndeck - 1]
    pile_a = np.zeros(nc, np.int64)
    pile_a[: len(pl_)] = pl_
    pub = np.zeros(S.NPUB, np.int64)
    for s in SEATS:
        pub[S.P_IND + s] = boards[s]
        pub[S.P_SPENT + s] = spent[s]
        pub[S.P_SCORE + s] = scores[s]
    pub[S.P_TOP] = pl_[-1] if pl_ else -1
    pub[S.P_NDECK] = len(full_deck)
    pub[S.P_NPILE] = len(pl_)
    pub[S.P_DEALER] = last
    pub[S.P_LAST] = last
    anyi = any(b > 0 for b in boards) if any_indicator is None else any_indicator
    pub[S.P_ANYIND] = 1 if anyi else 0
    pub[S.P_TWO] = 1 if (any(b >= 2 for b in boards) if two_down is None else two_down) else 0
    pub[S.P_FIRST] = -1
    pub[S.P_FIRST_TURN] = -1 if not anyi else 0
    pub[S.P_TURNS] = turns
    pub[S.P_OUT] = -1
    pub[S.P_OPENER] = pub[S.P_HIGH] = -1
    pub[S.P_NSETS] = cards.N_SETS
    pub[S.P_RULE1] = setup.knob("rule1_cost")
    ev = np.zeros((200_000, 8), np.int64)
    nev = np.zeros(1, np.int64)
    err = np.zeros(S.NERR, np.int64)
    res = np.zeros((5, 4), np.int64)
    out = ns["play_state"](np.uint64(key), 0, setup.pids(), setup.params(), GAME.knob_vector(setup),
                           cards.CARD_SET, cards.CARD_VALUE, pub, hands_a, nhand, deck_a, pile_a, debug, ev, nev,
                           err, res)
    if err[0] != S.E_NONE:
        GAME._raise(setup, err)
    return {
        "out": int(out),
        "earned": res[0].tolist(), "bonus": res[1].tolist(), "spent": res[2].tolist(), "net": res[3].tolist(),
        "challenged": res[4].tolist(),
        "ind": [int(pub[S.P_IND + s]) for s in SEATS],
        "score": [int(pub[S.P_SCORE + s]) for s in SEATS],
        "turns": int(pub[S.P_TURNS]), "bids": int(pub[S.P_BIDS]), "reshuffles": int(pub[S.P_RESHUF]),
        "first_indicator": int(pub[S.P_FIRST]),
        "hands": [[cards.card_name(int(c)) for c in hands_a[s, : nhand[s]]] for s in SEATS],
        "events": decode_events(ev[: min(nev[0], ev.shape[0])], False),
    }


# -- events ------------------------------------------------------------------------------
def decode_events(ev: np.ndarray, tournament: bool) -> list[dict[str, Any]]:
    """Trace rows -> dicts (``event`` names the kind; cards named as the sheet writes them)."""
    out: list[dict[str, Any]] = []
    hand = 0
    tgame = 0
    for d in decode_rows(ev, decode_event, S.LIST_EVENTS):
        if d["event"] == "hand":
            hand, tgame = d["hand"], d["tgame"]
        elif d["event"] == "seating":
            tgame = d["tgame"]
        if d["event"] not in ("seating", "game_end", "tournament_end"):
            d["hand"] = hand
        if tournament and d["event"] != "tournament_end":
            d["tgame"] = tgame
        elif not tournament:
            d.pop("tgame", None)
        out.append(d)
    return out


def decode_event(row: list[int], items: list[int]) -> dict[str, Any]:
    """One event row (with its list, for a list event) as a dict; the fields are documented in
    ``trace_schema.py``."""
    g, kind, seat, a, b, c, d, e = row
    cn = cards.card_name
    base: dict[str, Any] = {"event": S.EV_NAMES[kind], "game": g}
    if kind == S.EV_HAND:
        return {**base, "hand": a, "tgame": b, "dealer": seat}
    if kind == S.EV_DEAL:
        return {**base, "seat": seat, "cards": [cn(x) for x in (a, b, c, d)]}
    if kind == S.EV_ACQUIRE:
        return {**base, "seat": seat, "source": "deck" if a == S.SRC_DECK else "discards", "card": cn(b),
                "deck": c, "discards": d}
    if kind == S.EV_DISCARD:
        return {**base, "seat": seat, "card": cn(a)}
    if kind == S.EV_INDICATOR:
        return {**base, "seat": seat, "indicator": a, "cost": b, "forced": bool(c), "rule2_starts": bool(d)}
    if kind == S.EV_BID:
        return {**base, "seat": seat, "bid": a, "forced": bool(b)}
    if kind == S.EV_PASS:
        return {**base, "seat": seat, "standing_bid": a}
    if kind == S.EV_WIN:
        return {**base, "seat": seat, "bid": a, "cost": b, "indicator_showing": c}
    if kind == S.EV_RESHUFFLE:
        return {**base, "deck": b, "top_discard": cn(a), "cards": [cn(x) for x in items]}
    if kind == S.EV_DECK:
        return {**base, "cards": [cn(x) for x in items]}
    if kind == S.EV_OUT:
        return {**base, "seat": seat, "earned": a, "set_cards": b}
    if kind == S.EV_CHALLENGE:
        return {**base, "seat": seat, "challenge": bool(a), "cost": b}
    if kind == S.EV_RESULT:
        res = "won" if a > b else "tied" if a == b else "lost"
        return {**base, "seat": seat, "earned": a, "out_earned": b, "result": res, "bonus": c}
    if kind == S.EV_SCORE:
        return {**base, "seat": seat, "earned": a, "bonus": b, "spent": c, "net": d, "score": e}
    if kind == S.EV_CUT:
        return {**base, "turns": a}
    if kind == S.EV_GAME:
        return {**base, "tgame": c, "winner": seat, "winner_player": a, "hands": b, "finished": bool(d)}
    if kind == S.EV_SEATING:
        return {**base, "tgame": e, "players": [a, b, c, d]}
    if kind == S.EV_TOURNAMENT:
        return {**base, "winner_player": seat, "games": a, "hands": b}
    raise ValueError(f"unknown FOURBID event kind {kind}")


def describe(e: Mapping[str, Any]) -> str:
    k = e["event"]
    s = e.get("seat")
    if k == "hand":
        tg = f" of game {e['tgame']}" if "tgame" in e else ""
        return f"-- hand {e['hand']}{tg}: seat {e['dealer']} deals"
    if k == "deal":
        return f"seat {s} is dealt {', '.join(e['cards'])} (+ Indicators 1-4)"
    if k == "acquire":
        src = "the deck" if e["source"] == "deck" else "the discard pile"
        return f"seat {s} acquires {e['card']} from {src}"
    if k == "discard":
        return f"seat {s} discards {e['card']}"
    if k == "indicator":
        notes = []
        if e["cost"]:
            notes.append(f"first Indicator of the hand: costs {e['cost']} (Special Rule 1)")
        if e["forced"]:
            notes.append("forced by Special Rule 2")
        if e["rule2_starts"]:
            notes.append("first 2: Special Rule 2 now applies")
        tail = f" ({'; '.join(notes)})" if notes else ""
        name = "4 (FOURBID)" if e["indicator"] == 4 else str(e["indicator"])
        return f"seat {s} plays Indicator {name}{tail}"
    if k == "bid":
        return f"seat {s} bids {e['bid']}" + (" (forced opening)" if e["forced"] else "")
    if k == "pass":
        return f"seat {s} passes (bid stands at {e['standing_bid']})"
    if k == "win_bid":
        return (f"seat {s} wins the bid at {e['bid']} and completes the turn: cost {e['bid']} x Indicator "
                f"{e['indicator_showing']} = {e['cost']}")
    if k == "deck":
        return f"the deck, top first: {', '.join(e['cards'])}"
    if k == "reshuffle":
        return f"deck empty: discards shuffled into a new deck of {e['deck']}; {e['top_discard']} stays on top"
    if k == "go_out":
        return f"seat {s} goes out (Earned Points {e['earned']}, {e['set_cards']} of a set with wilds)"
    if k == "challenge":
        return f"seat {s} challenges (spends {e['cost']})" if e["challenge"] else f"seat {s} declines to challenge"
    if k == "challenge_result":
        return (f"seat {s}'s challenge: {e['earned']} vs {e['out_earned']}: {e['result']}"
                + (f" (+{e['bonus']})" if e["bonus"] else ""))
    if k == "score":
        return (f"seat {s}: earned {e['earned']} + bonus {e['bonus']} - spent {e['spent']} = net {e['net']}; "
                f"score {e['score']}")
    if k == "hand_cut":
        return f"hand cut at the turn cap after {e['turns']} turns: void, nobody scores (B14)"
    if k == "game_end":
        if not e["finished"]:
            return f"== game {e.get('tgame', e['game'])}: unfinished after {e['hands']} hands (max_hands)"
        return (f"== game {e.get('tgame', e['game'])}: seat {e['winner']} (P{e['winner_player'] + 1}) wins after "
                f"{e['hands']} hands")
    if k == "seating":
        return f"== game {e['tgame']} seating: " + " ".join(
            f"{pos}=P{p + 1}" for pos, p in zip("ABCD", e["players"], strict=True))
    if k == "tournament_end":
        w = e["winner_player"]
        who = f"P{w + 1} wins" if w >= 0 else "unfinished (max_games)"
        return f"=== tournament {e['game']}: {who} after {e['games']} games, {e['hands']} hands"
    return str(dict(e))


# -- summaries ---------------------------------------------------------------------------
def points_bounds(setup: Setup) -> dict[str, tuple[float, float]]:
    """The least and most points one seat can earn, spend and net in a played hand, from the rules and the
    scenario's knobs: the interval of a mean a hand stays within them, and where every game gave the same
    mean (a seat that never spent a point) it is Clopper-Pearson's at the games times them
    (:func:`cardsim.stats.mean_query`'s ``bounds``; points come in chunks, so a count's Poisson floor
    does not hold). Earned (B10): one set's best cards, at most 8 OceanLife cards in hand. Spent: Special
    Rule 1 once (B6), a challenge once (B9), and at most one won bid a completed turn at bid 4 x
    Indicator 3 (B5; the 4 ends the hand), fewer than ``turn_cap`` turns. Bonus: going out or one
    challenge (B8, B9)."""
    earn = max(sum(sorted(st.values)[-cards.HAND:]) for st in cards.SETS)
    spend = setup.knob("rule1_cost") + setup.knob("challenge_cost") + 4 * (cards.INDICATORS - 1) * setup.knob("turn_cap")
    bonus = max(setup.knob("out_bonus"), setup.knob("challenge_win"), setup.knob("challenge_tie"))
    return {"earned": (0.0, float(earn)), "spent": (0.0, float(spend)), "net": (-float(spend), float(earn + bonus))}


def summarize(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
    hands = tables["hands"]
    out: list[tuple[str, pl.DataFrame]] = []
    played = hands.filter(pl.col("out") >= 0)
    long = pl.concat([
        played.select(
            "game", pl.lit(s, pl.Int8).alias("seat"),
            pl.col(f"net_s{s}").alias("net"), pl.col(f"earned_s{s}").alias("earned"),
            pl.col(f"spent_s{s}").alias("spent"),
            (pl.col("out") == s).alias("went_out"),
            pl.col(f"challenged_s{s}").alias("challenged"),
            (pl.col(f"challenged_s{s}") & (pl.col(f"bonus_s{s}") > 0)).alias("challenge_paid_off"),
        ) for s in SEATS
    ])
    # the hands of a game are one cluster: per-hand means and rates are clustered by game (deff: design effect)
    bounds = points_bounds(setup)
    net, earned, spent = collect_all([mean_query(long, c, ["seat"], prefix=f"{c}_", bounds=bounds[c])
                                      for c in ("net", "earned", "spent")])
    per = net.join(earned.select("seat", "earned_mean", "earned_lo", "earned_hi"), on="seat").join(
        spent.select("seat", "spent_mean", "spent_lo", "spent_hi"), on="seat").sort("seat")
    out.append((f"Net, earned and spent points per played hand by seat ({', '.join(s.name for s in setup.seats)}): "
                "mean, se, 95% CI clustered by game", per))
    # lazy, on the streaming engine: the four seats' rows of every hand are never held in memory at once
    out.append(("Going-out rate per played hand by seat, 95% Wilson clustered by game",
                rate_table(long, ["seat"], "went_out")))
    paid = rate_table(long.filter(pl.col("challenged")), ["seat"], "challenge_paid_off")
    if paid.height:
        out.append(("Bid-Four Challenges that won or tied, by seat, 95% Wilson", paid))
    length = pl.concat([t.select(pl.lit(c).alias("per_hand"), pl.all()) for c, t in zip(
        ("turns", "bids", "reshuffles"), collect_all([mean_query(hands, c, count=True) for c in ("turns", "bids", "reshuffles")]),
        strict=True)])
    out.append(("Hand length: turns, bidding turns and reshuffles per hand (mean, se, 95% CI clustered by game)",
                length))
    out.append(("Hands cut at the turn cap (B14), 95% Wilson clustered by game",
                rate_table(hands.with_columns(x=pl.lit("cut")), ["x"], pl.col("out") < 0).drop("x")))
    first = rate_table(played.filter(pl.col("first_indicator") >= 0).with_columns(
        went_out=pl.col("out") == pl.col("first_indicator")), ["first_indicator"], "went_out")
    if first.height:
        out.append(("Does the player who pays for the first Indicator go out? By seat, 95% Wilson", first))
    for variant, table, who in (("game", "games", "seat"), ("tournament", "tournaments", "player")):
        if setup.variant != variant:
            continue
        # one row per game (tournament): lazy, on the streaming engine
        t = tables[table]
        fin = t.filter(pl.col("finished"))
        per = [f"{c}_" for c in (("games", "hands") if variant == "tournament" else ("hands",))]
        length, *wins = collect_all([
            t.select(*(e for c in per for e in mean_exprs(c[:-1], c, count=True)),
                     (~pl.col("finished")).sum().alias("unfinished")),
            *(rate_query(fin.with_columns(pl.lit(s, pl.Int8).alias(who), win=pl.col("winner") == s), [who], "win")
              for s in SEATS),
        ])
        if variant == "game":
            out.append(("Game win rate by seat (seat 0 deals first), 95% Wilson", pl.concat(wins)))
            out.append(("Hands per game (mean, se, 95% CI); unfinished games", length))
        else:
            out.append(("Tournament win rate by player (P1 = 0), 95% Wilson", pl.concat(wins)))
            out.append(("Games and hands per tournament (mean, se, 95% CI); unfinished tournaments", length))
    return out


def _pct(row: Mapping[str, Any]) -> str:
    return N.pct_ci(row["rate"], row["lo"], row["hi"])


def _names(setup: Setup) -> list[str]:
    return [s.plugin.rsplit("/", 1)[-1] if s.plugin else s.name for s in setup.seats]


def headline(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
    """In words: the unit's win rates against the fair share, Net per hand and cut hands.

    Which seats (players) differ from the fair share is a claim about four rows at once, so it reads
    Bonferroni intervals (each Wilson at level 0.05 / 4, the summary's estimator): all four hold at
    once with chance at least 95%, and on a fair game the verdict names a seat in at most 5% of runs
    (the pointwise intervals it read before named one in 16.8% of fair 20,000-game runs). The Net
    points are listed, not compared: each with its pointwise 95% interval, clustered by game as in
    the summary."""
    names = _names(setup)
    hands = tables["hands"]
    played = hands.filter(pl.col("out") >= 0)
    long = pl.concat([played.select("game", pl.lit(s, pl.Int8).alias("seat"), pl.col(f"net_s{s}").alias("net"))
                      for s in SEATS])
    cut, net = collect_all([rate_query(hands.with_columns(x=pl.lit(0), cut=pl.col("out") < 0), ["x"], "cut"),
                            mean_query(long, "net", ["seat"], bounds=points_bounds(setup)["net"])])
    cut = cut.row(0, named=True) if cut.height else {"k": 0}
    nets = ", ".join(f"seat {r['seat']} ({names[r['seat']]}) {_net(r)}" for r in net.sort("seat").iter_rows(named=True))
    cuts = "no hand was cut at the turn cap"
    if cut["k"]:  # to the decimals its interval shows (0.43%, 95% CI 0.41-0.44%, not 0.4-0.4%)
        digits = max(1, N.decimals_for(50 * (cut["hi"] - cut["lo"])))
        cuts = (f"{cut['k']:,} of {cut['n']:,} hands were cut at the turn cap (B14), "
                f"{N.pct_ci(cut['rate'], cut['lo'], cut['hi'], digits, label='95% CI clustered by game')}")
    tail = (f"Net points per played hand (95% CI each, clustered by game): {nets}; {cuts}." if net.height else
            f"No hand was played to the end; {cuts}.")
    if setup.variant == "hand":
        return tail
    table, who, what = ("games", "seat", "game") if setup.variant == "game" else ("tournaments", "player", "tournament")
    t = tables[table].filter(pl.col("winner") >= 0)
    n, *rates = collect_all([t.select(pl.len()), *(
        rate_query(t.with_columns(x=pl.lit(0), win=pl.col("winner") == s), ["x"], "win") for s in SEATS)])
    if n.item() == 0:
        return f"No {what} finished. " + tail
    k = len(SEATS)
    rows = list(wilson_at(pl.concat(rates), bonferroni_z(k)).iter_rows(named=True))
    off = [s for s in SEATS if rows[s]["sim_lo"] > 0.25 or rows[s]["sim_hi"] < 0.25]  # NaN ends: not off
    each = ", ".join(f"{who} {s} ({names[s]}) {N.pct_ci(r['rate'], r['sim_lo'], r['sim_hi'], label='', ref=0.25)}"
                     for s, r in zip(SEATS, rows, strict=True))
    listed = ", ".join(str(s) for s in off[:-1]) + (" and " if len(off) > 1 else "") + (str(off[-1]) if off else "")
    verdict = (f"no {who} differs detectably from the fair share of 25%" if not off else
               f"{who}{'s' if len(off) > 1 else ''} {listed} differ{'s' if len(off) == 1 else ''} detectably from "
               f"the fair share of 25%")
    return (f"Win rate over {N.many(n.item(), what)}, with 95% intervals simultaneous over the {k} {who}s: {each}; "
            f"{verdict}. " + tail)


def _net(row: Mapping[str, Any]) -> str:
    """A seat's mean Net with its interval, ``+6.6 (6.1 to 7.1)``, to the precision the interval justifies."""
    lo, hi = row["lo"], row["hi"]
    d = N.decimals_for((hi - lo) / 2 if N.finite(lo) and N.finite(hi) else float("nan"), hi=2)
    sign = "+" if N.finite(row["mean"]) and row["mean"] > 0 else ""
    return f"{sign}{N.num(row['mean'], d)} ({N.interval(N.num(lo, d), N.num(hi, d))})"


def figures(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, list, list]]:
    from cardsim.report import figures as F

    names = _names(setup)
    hands = tables["hands"]
    played = hands.filter(pl.col("out") >= 0)
    # the summary's estimators (clustered by game: the hands of a game are one cluster), lazy: the four
    # seats' rows of every hand are never held in memory at once
    long = pl.concat([
        played.select("game", pl.lit(s, pl.Int8).alias("seat"), pl.col(f"net_s{s}").alias("net"),
                      (pl.col("out") == s).alias("went_out"))
        for s in SEATS
    ])
    label = pl.col("seat").replace_strict({s: f"seat {s} ({names[s]})" for s in SEATS}, return_dtype=pl.String)
    net, out = (t.with_columns(label) for t in collect_all([mean_query(long, "net", ["seat"],
                                                                       bounds=points_bounds(setup)["net"]),
                                                            rate_query(long, ["seat"], "went_out")]))
    net_fig = F.forest(net["seat"].to_list(), net["mean"].to_list(), net["lo"].to_list(), net["hi"].to_list(),
                       "Net points per played hand (95% interval)", "Net = Earned + Bonus - Spent (B11)",
                       zero=False)
    out = out.with_columns(  # float noise at rate 0 or 1
        lo=pl.min_horizontal("lo", "rate"), hi=pl.max_horizontal("hi", "rate"))
    out_fig = F.rate_dots(out, "seat", "Share of played hands each seat goes out (B8)", "seat", ref=0.25,
                          ylabel="going-out rate (95% interval)")
    turns = hands.select("turns").collect()
    turn_fig = F.histogram(turns["turns"], "Turns per hand", "completed turns", ylabel="hands", cap=200)
    return [
        ("Net points by seat", [("Mean Net points per played hand, by seat", net_fig),
                                ("Going-out rate by seat", out_fig)],
         [("Net per hand", net), ("Going out", out)]),
        ("Hand length", [("Completed turns per hand", turn_fig)], []),
    ]
