"""FUBNUB's face: variants, knobs, tables, trace decoding and summaries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from cardsim.errors import PolicyError, ScenarioError
from cardsim.games.base import Game, Knob, Setup, Variant
from cardsim.games.fubnub import cards
from cardsim.games.fubnub import rules as R
from cardsim.games.fubnub.policies import POLICIES
from cardsim.policies import kernel_namespace
from cardsim.stats import mean_exprs, rate_table


def pct(row: Mapping[str, Any]) -> str:
    return f"{100 * row['rate']:.1f}% (95% CI {100 * row['lo']:.1f}-{100 * row['hi']:.1f}%)"

POINT_ENUM = pl.Enum(list(cards.KIND_NAMES))
POINT_SERIES = pl.Series("point_card", cards.KIND_NAMES, dtype=POINT_ENUM)
DECISIONS = {
    "call": "hand, pos, point, seat, dealer, rnd, params, rng",
    "swap": "hand, pos, point, nswaps, params, rng, out",
    "card": "hand, n, pos, point, trick, tseat, nplayed, winner, seat, partner, caller, tricks, params, rng",
}
DECISION_NAMES = ("call", "swap", "card")

HAND_COLUMNS = {
    "game": "global game index",
    "hand": "hand number in the game (0-based; every deal counts, misdeals included)",
    "dealer": "seat that dealt",
    "point_card": "the point card in play (for a misdeal: the second-round card)",
    "caller": "seat that said play (-1: misdeal)",
    "round": "decision round the card was played in (1 or 2; 0: misdeal)",
    "tricks_s0": "tricks won by seat 0 (likewise _s1.._s3)",
    "winner": "team that won the point card (0: seats 0+2, 1: seats 1+3; -1: misdeal)",
    "misdeal": "both decision rounds passed (F6)",
    "swept": "the calling team won all five tricks (F10)",
    "fubbed": "the calling team lost the point card (F10)",
    "double": "the dealer had a double advantage",
    "swaps": "cards the dealer swapped (0-2)",
    "score_t0": "team 0's point cards after this hand (likewise score_t1)",
}
GAME_COLUMNS = {
    "game": "global game index",
    "winner": "team that won the game (-1: unfinished, cut at max_hands)",
    "hands": "hands dealt, misdeals included",
    "points_t0": "point cards won by team 0 (likewise points_t1)",
    "first_dealer": "seat that dealt the first hand (F4)",
    "misdeals": "misdeals in the game",
    "unfinished": "the game hit max_hands",
}


class Fubnub(Game):
    name = "fubnub"
    title = "FUBNUB"
    rules_version = 1
    unit = "hand"
    unit_table = "hands"
    variants = (
        Variant("traditional", "two teams of two (seats 0+2 vs 1+3), first team to (k+1)/2 point cards", 4, 4, 4),
    )
    knobs = (
        Knob("point_cards", 15, "point cards in the game, k (odd); first team to (k+1)/2 wins (F11)",
             lo=1, hi=15, odd=True),
        Knob("point_deck", cards.STANDARD_DECK,
             "the point deck by kind name (F2: 12 named + 3 assumed Natural); the game uses k of them",
             kind="names", choices=cards.KIND_NAMES),
        Knob("fub_dealer", "caller_left",
             "who of the winning team deals after a fub (F10, assumed: the opponent on the caller's left)",
             kind="choice", choices=("caller_left", "caller_right")),
        Knob("max_hands", 1000, "hands after which a game is cut and counted unfinished", lo=1, hi=100000),
    )
    policies = POLICIES
    decisions = DECISIONS
    dispatchers = {"call": "decide_call", "swap": "decide_swap", "card": "decide_card"}
    columns = {"hands": HAND_COLUMNS, "games": GAME_COLUMNS}
    default_chunk = 20000
    kernel_module = "cardsim.games.fubnub.rules"
    default_policy = "partner"
    bench_count = 20000
    minimal_scale = 12

    def check_setup(self, setup: Setup) -> None:
        k = setup.knob("point_cards")
        deck = setup.knob("point_deck")
        if k > len(deck):
            raise ScenarioError(f"rules.point_cards = {k} is more than the {len(deck)} cards of rules.point_deck")

    # -- the kernel call -------------------------------------------------------
    def _run(self, setup: Setup, key: int, start: int, count: int, debug: bool, trace: bool,
             stack: np.ndarray | None = None, pstack: np.ndarray | None = None):
        ns = kernel_namespace(self, setup.plugins)
        kinds = cards.deck_kinds(setup.knob("point_deck"))
        k = int(setup.knob("point_cards"))
        fub = R.FUB_CALLER_LEFT if setup.knob("fub_dealer") == "caller_left" else R.FUB_CALLER_RIGHT
        stack = np.zeros((0, 24), np.int64) if stack is None else np.asarray(stack, np.int64)
        pstack = np.zeros(0, np.int64) if pstack is None else np.asarray(pstack, np.int64)
        cap = 64 + count * 16  # about 12.5 hands a game; FULL doubles it
        evcap = count * 400 if trace else 1
        while True:
            hout = np.empty((cap, R.NH), np.int16)
            hg = np.empty(cap, np.int64)
            gout = np.zeros((count, R.NG), np.int32)
            ev = np.zeros((evcap, 8), np.int64)
            evn = np.zeros(1, np.int64)
            err = np.zeros(4, np.int64)
            rows = ns["simulate"](np.uint64(key), start, count, setup.pids(), setup.params(), kinds, k, fub,
                                  int(setup.knob("max_hands")), stack, pstack, debug, trace, ev, evn, hg, hout,
                                  gout, err)
            if rows == R.FULL:
                cap *= 2
                continue
            if rows == R.ILLEGAL:
                self._illegal(setup, err)
            if trace and evn[0] > evcap:
                evcap = int(evn[0])
                continue
            return rows, hout[:rows], hg[:rows], gout, ev[: evn[0]]

    def _illegal(self, setup: Setup, err: np.ndarray) -> None:
        g, seat, d, value = (int(x) for x in err)
        legal = {R.D_CALL: "1 (play) or 0 (pass)", R.D_SWAP: "-1 (no swap) or a hand index 0-4",
                 R.D_CARD: "an index into hand[:n]"}[d]
        raise PolicyError(
            f"seat {seat} ({setup.seats[seat].name}) returned {value} at decision '{DECISION_NAMES[d]}' "
            f"in game {g}; legal: {legal}"
        )

    def simulate_chunk(self, setup: Setup, key: int, start: int, count: int,
                       debug: bool = False) -> dict[str, pl.DataFrame]:
        _rows, hout, hg, gout, _ = self._run(setup, key, start, count, debug, False)
        return {"hands": hands_frame(hg, hout), "games": games_frame(start, gout)}

    def bench_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        return self._run(setup, key, start, count, False, False)[0]

    def minimal_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        R.minimal(np.uint64(key), start, count)
        return count

    # -- trace ------------------------------------------------------------------
    def trace(self, setup: Setup, key: int, start: int, count: int,
              stack: np.ndarray | None = None, pstack: np.ndarray | None = None) -> list[dict[str, Any]]:
        *_, ev = self._run(setup, key, start, count, True, True, stack, pstack)
        return [decode_event(row) for row in ev]

    def describe_event(self, e: Mapping[str, Any]) -> str:
        return describe(e)

    # -- analysis ---------------------------------------------------------------
    def outcomes(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> pl.LazyFrame:
        games = tables["games"].select("game", "winner", "hands")
        seats = pl.LazyFrame({"seat": list(range(4))}, schema={"seat": pl.Int8})
        return games.join(seats, how="cross").select(
            "game", "seat",
            pl.when(pl.col("winner") < 0).then(None)
            .otherwise((pl.col("winner") == pl.col("seat") % 2).cast(pl.Float64)).alias("win"),
            pl.col("hands").alias("length"),
        )

    def summarize(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
        return summarize(tables)

    def headline(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
        games = tables["games"].filter(pl.col("winner") >= 0).collect()
        t0 = rate_table(games.with_columns(team=pl.lit(0), win=pl.col("winner") == 0), ["team"], "win").row(0, named=True)
        fd = rate_table(games.with_columns(x=pl.lit(0), win=pl.col("winner") == pl.col("first_dealer") % 2),
                        ["x"], "win").row(0, named=True)
        called = tables["hands"].filter(pl.col("caller") >= 0).with_columns(
            x=pl.lit(0), win=pl.col("winner") == pl.col("caller") % 2).collect()
        ct = rate_table(called, ["x"], "win").row(0, named=True)
        return (f"Team 0 (seats 0+2) wins {pct(t0)} of {t0['n']:,} games; the first dealer's team wins {pct(fd)}; "
                f"the calling team wins the point card in {pct(ct)} of {ct['n']:,} played hands.")

    def figures(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, list, list]]:
        from cardsim.report import figures as F

        played = tables["hands"].filter(~pl.col("misdeal")).with_columns(
            calling_tricks=pl.when(pl.col("caller") % 2 == 0).then(pl.col("tricks_s0") + pl.col("tricks_s2"))
            .otherwise(pl.col("tricks_s1") + pl.col("tricks_s3"))).collect()
        dist = played.group_by("calling_tricks").len().sort("calling_tricks").with_columns(
            share=pl.col("len") / pl.col("len").sum())
        tricks = F.histogram(played["calling_tricks"], "Tricks won by the calling team per hand", "tricks (of 5)")
        rel = pl.concat([
            played.select(position=pl.lit(i), win=pl.col("winner") == ((pl.col("dealer") + i) % 4) % 2)
            for i in (1, 2, 3, 4)
        ])
        by_pos = rate_table(rel, ["position"], "win")
        pos_fig = F.rate_bars(by_pos, "position", "Point-card win rate by seat position relative to the dealer",
                              "position (1 = dealer's left, 4 = dealer)", ref=0.5)
        caller = played.with_columns(caller_pos=((pl.col("caller") - pl.col("dealer") + 3) % 4 + 1),
                                     win=pl.col("winner") == pl.col("caller") % 2)
        by_caller = rate_table(caller, ["caller_pos"], "win")
        caller_fig = F.rate_bars(by_caller, "caller_pos", "Calling team's point-card win rate by caller position",
                                 "caller position (1 = dealer's left, 4 = dealer)", ref=0.5)
        by_card = rate_table(caller, ["point_card"], "win")
        card_fig = F.rate_bars(by_card, "point_card", "Calling team's win rate by point card", "point card", ref=0.5)
        card_fig.axes[0].tick_params(axis="x", labelrotation=45)
        return [
            ("Tricks won by the calling team",
             [("Tricks won by the calling team (3+ wins the point card; 5 is a sweep)", tricks)],
             [("Tricks won by the calling team", dist)]),
            ("Position relative to the dealer",
             [("Share of played hands whose point card goes to the team of the seat at each position", pos_fig),
              ("Calling team's win rate by the caller's position", caller_fig)],
             [("By position", by_pos), ("By caller position", by_caller)]),
            ("Point cards", [("Calling team's win rate by point card", card_fig)], [("By point card", by_card)]),
        ]


# -- frames -------------------------------------------------------------------------
def hands_frame(hg: np.ndarray, h: np.ndarray) -> pl.DataFrame:
    i8 = pl.Int8
    return pl.DataFrame({
        "game": pl.Series(hg, dtype=pl.Int64),
        "hand": pl.Series(h[:, R.H_HAND], dtype=pl.Int16),
        "dealer": pl.Series(h[:, R.H_DEALER], dtype=i8),
        "point_card": POINT_SERIES.gather(h[:, R.H_POINT].astype(np.int64)),
        "caller": pl.Series(h[:, R.H_CALLER], dtype=i8),
        "round": pl.Series(h[:, R.H_ROUND], dtype=i8),
        **{f"tricks_s{s}": pl.Series(h[:, R.H_T0 + s], dtype=i8) for s in range(4)},
        "winner": pl.Series(h[:, R.H_WINNER], dtype=i8),
        "misdeal": pl.Series(h[:, R.H_MISDEAL] == 1),
        "swept": pl.Series(h[:, R.H_SWEPT] == 1),
        "fubbed": pl.Series(h[:, R.H_FUBBED] == 1),
        "double": pl.Series(h[:, R.H_DOUBLE] == 1),
        "swaps": pl.Series(h[:, R.H_SWAPS], dtype=i8),
        "score_t0": pl.Series(h[:, R.H_SCORE0], dtype=i8),
        "score_t1": pl.Series(h[:, R.H_SCORE1], dtype=i8),
    })


def games_frame(start: int, g: np.ndarray) -> pl.DataFrame:
    return pl.DataFrame({
        "game": pl.Series(np.arange(start, start + g.shape[0]), dtype=pl.Int64),
        "winner": pl.Series(g[:, R.G_WINNER], dtype=pl.Int8),
        "hands": pl.Series(g[:, R.G_HANDS], dtype=pl.Int32),
        "points_t0": pl.Series(g[:, R.G_P0], dtype=pl.Int16),
        "points_t1": pl.Series(g[:, R.G_P1], dtype=pl.Int16),
        "first_dealer": pl.Series(g[:, R.G_FIRST], dtype=pl.Int8),
        "misdeals": pl.Series(g[:, R.G_MISDEALS], dtype=pl.Int32),
        "unfinished": pl.Series(g[:, R.G_UNFINISHED] == 1),
    })


# -- events -------------------------------------------------------------------------
def decode_event(row: np.ndarray) -> dict[str, Any]:
    g, kind, seat, a, b, c, d, e = (int(x) for x in row)
    cn = cards.card_name
    base: dict[str, Any] = {"game": g}
    if kind == R.EV_DRAW:
        return {"event": "draw_for_deal", **base, "seat": seat, "card": cn(a)}
    if kind == R.EV_DEALER:
        return {"event": "dealer", **base, "hand": a, "seat": seat, "advantage": "double" if b == 2 else "single"}
    if kind == R.EV_DEAL:
        return {"event": "deal", **base, "seat": seat, "cards": [cn(x) for x in (a, b, c, d, e)]}
    if kind == R.EV_UNDEALT:
        return {"event": "undealt", **base, "cards": [cn(x) for x in (a, b, c, d)]}
    if kind == R.EV_REVEAL:
        return {"event": "reveal", **base, "point_card": cards.KIND_NAMES[a], "round": b}
    if kind == R.EV_CALL:
        return {"event": "decision", **base, "seat": seat, "choice": "play" if a else "pass", "round": b,
                "point_card": cards.KIND_NAMES[c]}
    if kind == R.EV_BACK:
        return {"event": "shuffle_back", **base, "point_card": cards.KIND_NAMES[a], "round": b}
    if kind == R.EV_MISDEAL:
        return {"event": "misdeal", **base, "dealer": seat, "point_card": cards.KIND_NAMES[a]}
    if kind == R.EV_SWAP:
        return {"event": "swap", **base, "seat": seat, "out": cn(a), "in": cn(b)}
    if kind == R.EV_PLAY:
        return {"event": "play", **base, "seat": seat, "card": cn(a), "trick": b}
    if kind == R.EV_TRICK:
        return {"event": "trick", **base, "winner": seat, "trick": a, "card": cn(b)}
    if kind == R.EV_HAND:
        return {"event": "hand", **base, "caller": seat, "winner_team": a, "tricks_t0": b, "tricks_t1": c,
                "swept": bool(d), "fubbed": bool(e)}
    if kind == R.EV_GAME:
        return {"event": "game", **base, "winner_team": a, "points_t0": b, "points_t1": c, "hands": d}
    raise ValueError(f"unknown FUBNUB event kind {kind}")


def describe(e: Mapping[str, Any]) -> str:
    k = e["event"]
    if k == "draw_for_deal":
        return f"seat {e['seat']} draws {e['card']} for the deal"
    if k == "dealer":
        return f"-- hand {e['hand']}: seat {e['seat']} deals ({e['advantage']} advantage)"
    if k == "deal":
        return f"seat {e['seat']} is dealt {', '.join(e['cards'])}"
    if k == "undealt":
        return f"undealt: {', '.join(e['cards'])}"
    if k == "reveal":
        return f"point card revealed: {e['point_card']} (round {e['round']})"
    if k == "decision":
        return f"seat {e['seat']}: {e['choice']}"
    if k == "shuffle_back":
        return f"all pass: {e['point_card']} shuffled back into the point deck"
    if k == "misdeal":
        return f"misdeal: two rounds passed; {e['point_card']} shuffled back, the deal moves left"
    if k == "swap":
        return f"dealer seat {e['seat']} swaps {e['out']} for {e['in']}"
    if k == "play":
        return f"trick {e['trick']}: seat {e['seat']} plays {e['card']}"
    if k == "trick":
        return f"trick {e['trick']} won by seat {e['winner']} with {e['card']}"
    if k == "hand":
        tags = " (swept)" if e["swept"] else " (fubbed)" if e["fubbed"] else ""
        return (f"hand won by team {e['winner_team']}, tricks {e['tricks_t0']}-{e['tricks_t1']}, "
                f"caller seat {e['caller']}{tags}")
    if k == "game":
        w = e["winner_team"]
        who = f"team {w} wins" if w >= 0 else "unfinished (hand cap)"
        return f"== game {e['game']}: {who}, points {e['points_t0']}-{e['points_t1']} in {e['hands']} hands"
    return str(dict(e))


# -- summaries ------------------------------------------------------------------------
def summarize(tables: Mapping[str, pl.LazyFrame]) -> list[tuple[str, pl.DataFrame]]:
    games = tables["games"].collect()
    hands = tables["hands"]
    out: list[tuple[str, pl.DataFrame]] = []
    finished = games.filter(pl.col("winner") >= 0)
    teams = pl.concat([
        rate_table(finished.with_columns(team=pl.lit(t), win=pl.col("winner") == t), ["team"], "win")
        for t in (0, 1)
    ])
    out.append(("Game win rate by team (seats 0+2 = team 0), 95% Wilson", teams))
    fd = rate_table(finished.with_columns(win=pl.col("winner") == pl.col("first_dealer") % 2), ["first_dealer"], "win")
    out.append(("Game win rate of the first dealer's team, by first dealer", fd))
    hs = hands.select(
        pl.len().alias("deals"),
        pl.col("misdeal").mean().alias("misdeal_rate"),
        (pl.col("swept").sum() / (~pl.col("misdeal")).sum()).alias("sweep_rate"),
        (pl.col("fubbed").sum() / (~pl.col("misdeal")).sum()).alias("fub_rate"),
    ).collect()
    length = games.select(mean_exprs("hands", "hands_"))
    unf = games.select(pl.col("unfinished").sum().alias("unfinished_games"), pl.len().alias("games"))
    out.append(("Hands per game (mean, se, 95% CI) and per-deal rates",
                pl.concat([length, hs, unf], how="horizontal")))
    rates = hands.filter(~pl.col("misdeal")).select(
        pl.col("misdeal"), pl.col("swept"), pl.col("fubbed")).collect()
    n = rates.height
    ev = pl.DataFrame({"event": ["sweep", "fub"], "n": [n, n],
                       "k": [int(rates["swept"].sum()), int(rates["fubbed"].sum())]})
    from cardsim.stats import wilson_exprs

    out.append(("Sweep and fub rates per played hand, 95% Wilson",
                ev.with_columns(wilson_exprs(pl.col("k"), pl.col("n")))))
    called = hands.filter(pl.col("caller") >= 0).with_columns(
        calling_team_won=pl.col("winner") == pl.col("caller") % 2).collect()
    out.append(("Point-card win rate of the calling team, by point card",
                rate_table(called, ["point_card"], "calling_team_won")))
    rel = called.with_columns(caller_pos=((pl.col("caller") - pl.col("dealer")) % 4).cast(pl.Int8))
    out.append(("Calling team's win rate by caller position (1 = dealer's left ... 4 = dealer)",
                rate_table(rel.with_columns(pl.when(pl.col("caller_pos") == 0).then(4)
                                            .otherwise(pl.col("caller_pos")).alias("caller_pos")),
                           ["caller_pos"], "calling_team_won")))
    return out


GAME = Fubnub()
