"""FUBNUB's face: variants (traditional and the sheet's modes), knobs, tables, trace
decoding and summaries."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import polars as pl

from cardsim.errors import PolicyError, ScenarioError
from cardsim.events import decode_rows
from cardsim.frames import column, const, flags, pick
from cardsim.games.base import Game, Knob, Setup, Variant
from cardsim.games.fubnub import cards
from cardsim.games.fubnub import rules as R
from cardsim.games.fubnub.policies import GREEDY, POLICIES
from cardsim.policies import kernel_namespace
from cardsim.report import numbers as N
from cardsim.stats import (
    CLUSTERS,
    bonferroni_z,
    cluster_key,
    collect,
    collect_all,
    mean_exprs,
    mean_query,
    rate_difference,
    rate_query,
    rate_table,
    wilson_at,
    wilson_exprs,
)


def pct(row: Mapping[str, Any], ref: float | None = None) -> str:
    """A rate row (``rate``, ``lo``, ``hi``) in words: ``50.3% (95% CI 49.3-51.3%)``; ``ref`` a reference the
    sentence judges it against (an even game): each end keeps its side of it (49.96, not 50.0)."""
    return N.pct_ci(row["rate"], row["lo"], row["hi"], ref=ref)

POINT_ENUM = pl.Enum(list(cards.KIND_NAMES))
POINT_SERIES = pl.Series("point_card", cards.KIND_NAMES, dtype=POINT_ENUM)
ACTION_ENUM = pl.Enum(list(cards.ACTION_NAMES))
ACTION_SERIES = pl.Series("action_card", cards.ACTION_NAMES, dtype=ACTION_ENUM)
DECISIONS = {
    "call": "hand, pos, point, seat, dealer, rnd, params, rng",
    "swap": "hand, pos, point, nswaps, params, rng, out",
    "card": "hand, n, pos, point, trick, tseat, nplayed, winner, seat, partner, caller, tricks, params, rng",
}
#: The Full Deck decisions (F15): a plug-in may define them; one that does not gets the fallbacks.
OPTIONAL_DECISIONS = {
    "steal": "points, seat, nplayers, params, rng",
    "pick": "points, seat, nplayers, params, rng",
    "keep": "hand, pos, point, params, rng",
    "peek": "hand, n, pos, point, trick, tseat, nplayed, winner, seat, hands, nh, tricks, params, rng",
}
OPTIONAL_FALLBACKS = {
    "steal": ("the greedy rule", f"{{builtin}}({GREEDY}, points, seat, nplayers, params, rng)"),
    "pick": ("the greedy rule", f"{{builtin}}({GREEDY}, points, seat, nplayers, params, rng)"),
    "keep": ("the greedy rule: its highest card", f"{{builtin}}({GREEDY}, hand, pos, point, params, rng)"),
    "peek": ("its own card decision (no partner, no caller)",
             "{card}(hand, n, pos, point, trick, tseat, nplayed, winner, seat, -1, -1, tricks, params, rng)"),
}
DECISION_NAMES = ("call", "swap", "card", "steal", "pick", "keep", "peek")
TEAM_VARIANTS = ("traditional", "lucky_ghost")
ROYAL_VARIANTS = ("battle_royal", "solo", "full_deck")
VARIANT_CODE = {"traditional": R.V_TRADITIONAL, "lucky_ghost": R.V_LUCKY_GHOST, "battle_royal": R.V_BATTLE_ROYAL,
                "solo": R.V_SOLO, "full_deck": R.V_FULL_DECK}
TIE_CODE = {"limbo": R.TIE_LIMBO, "discard": R.TIE_DISCARD, "last_trick": R.TIE_LAST_TRICK}


def table_seats(variant: str, players: int) -> tuple[int, tuple[bool, ...]]:
    """(seats at the table, ghost flag per seat 0-3) of a variant with ``players`` human players.

    Lucky Ghost and Solo (F12, F14): humans in seats 0..players-1, ghosts in the rest of the
    four seats; Battle Royal (F13): ``players`` seats; traditional and Full Deck: four humans.
    """
    if variant in ("lucky_ghost", "solo"):
        return 4, tuple(s >= players for s in range(4))
    if variant == "battle_royal":
        return players, (False,) * 4
    return 4, (False,) * 4

HAND_COLUMNS = {
    "game": "global game index",
    "hand": "hand number in the game (0-based; every deal counts, misdeals included)",
    "dealer": "seat that dealt",
    "point_card": "the point card in play (for a misdeal: the second-round card)",
    "caller": "seat that said play (-1: misdeal, or an individual variant: no decision cycle)",
    "round": "decision round the card was played in (1 or 2; 0: misdeal or individual variant)",
    **{f"tricks_s{s}": f"tricks won by seat {s}" for s in range(4)},
    "winner": "team that won the point card (0: seats 0+2, 1: seats 1+3; -1: misdeal); in individual variants "
              "the seat that won it (-1: nobody, a tie sent it to limbo or the discard, or the Turtle ended the game)",
    "misdeal": "both decision rounds passed (F6)",
    "swept": "the calling team won all five tricks (F10)",
    "fubbed": "the calling team lost the point card (F10)",
    "double": "the dealer had a double advantage (Full Deck: Double Dip / Recycle Bonus / Refund)",
    "swaps": "cards the dealer swapped (0-2); Full Deck: swapped by the player with this hand's advantage",
    **{f"score_t{t}": f"team {t}'s point cards after this hand (null in individual variants)" for t in range(2)},
    "tie": "individual variants: the most tricks were tied (F13)",
    "limbo": "individual variants: point cards in limbo after this hand (F13, F15 Skip)",
    "action_card": "Full Deck: the action card revealed before this hand's play (null: none, F15)",
    "revealer": "Full Deck: the seat that revealed it (last hand's point-card winner; -1: none)",
    "target": "Full Deck: the seat picked (Pick a Player) or stolen from (Never Happened / No Way / Shield); -1",
    **{f"points_s{s}": f"individual variants: seat {s}'s point cards after this hand (null otherwise)"
       for s in range(4)},
}
GAME_COLUMNS = {
    "game": "global game index",
    "winner": "team that won the game (-1: unfinished, cut at max_hands); in individual variants the seat "
              "with the most point cards (-1: a tie at the top, or unfinished)",
    "hands": "hands dealt, misdeals included",
    **{f"points_t{t}": f"point cards won by team {t} (null in individual variants)" for t in range(2)},
    "first_dealer": "seat that dealt the first hand (F4; only players draw, F12)",
    "misdeals": "misdeals in the game",
    "unfinished": "the game hit max_hands",
    **{f"points_s{s}": f"individual variants: seat {s}'s point cards at the end (null otherwise)" for s in range(4)},
    "tie": "individual variants: two or more seats tied for the most point cards (a shared win)",
    "limbo_left": "individual variants: point cards still in limbo at the end (they go to nobody, F13)",
    "discarded": "individual variants: point cards discarded by the tie rule 'discard'",
    "turtle": "Full Deck: the Turtle ended the game",
    "restarts": "Full Deck: Restart Game cards revealed",
    "action_cards": "Full Deck: action cards revealed",
}


class Fubnub(Game):
    name = "fubnub"
    title = "FUBNUB"
    rules_version = 4  # 2: the modes added columns; 3: decisions see ordered hands (random draws other cards);
    # 4: Full Deck with advantage = none: Second Chance / Slow Down grant the revealer's swap (F15)
    unit = "hand"
    unit_table = "hands"
    variants = (
        Variant("traditional", "two teams of two (seats 0+2 vs 1+3), first team to (k+1)/2 point cards", 4, 4, 4),
        Variant("lucky_ghost", "F12: the players take seats 0.., ghosts the rest of the four seats (dealt a stack, "
                "always pass, never deal, play their top card); teams 0+2 vs 1+3 as traditional", 1, 3, 2),
        Variant("battle_royal", "F13: each for themselves, every point card in play, no swap, no sweep/fub; most "
                "tricks wins the point card; the game ends when the k point cards are used up", 2, 4, 4),
        Variant("solo", "F14: Lucky Ghost + Battle Royal: one player (seat 0) against three ghosts", 1, 1, 1),
        Variant("full_deck", "F15: Battle Royal with the 31 Bad, Bad, Turtle action cards; the point-card "
                "winner reveals one before the next hand's play", 4, 4, 4),
    )
    knobs = (
        Knob("point_cards", 15, "point cards in the game, k (odd); first team to (k+1)/2 wins (F11); individual "
             "variants play all k (F13)", lo=1, hi=15, odd=True),
        Knob("point_deck", cards.STANDARD_DECK,
             "the point deck by kind name (F2: 12 named + 3 assumed Natural); the game uses k of them",
             kind="names", choices=cards.KIND_NAMES),
        Knob("fub_dealer", "caller_left",
             "who of the winning team deals after a fub (F10, assumed: the opponent on the caller's left)",
             kind="choice", choices=("caller_left", "caller_right"), variants=TEAM_VARIANTS),
        Knob("max_hands", 1000, "hands after which a game is cut and counted unfinished (never dropped; at "
             "most 32,767, the hands table's largest hand number)", lo=1, hi=32767),
        Knob("tie_rule", "limbo", "a tie for most tricks (F13, assumed): limbo = the point card goes to the next "
             "hand's winner; discard = to nobody; last_trick = to the tied player who won the latest trick",
             kind="choice", choices=tuple(TIE_CODE), variants=ROYAL_VARIANTS),
        Knob("advantage", "revealer", "Full Deck dealer advantage (F15 reading): revealer = the player revealing "
             "an action card takes a single blind swap with the undealt cards unless the card says otherwise; "
             "none = only Double Dip / Recycle Bonus / Refund, Pick a Player and Second Chance / Slow Down give "
             "swaps", kind="choice", choices=("revealer", "none"), variants=("full_deck",)),
        Knob("limbo_award", "next_winner", "Full Deck: who gets point cards in limbo (ties, Skip): next_winner = "
             "the next hand's winner (F13); claim = they wait for Clean Up or the Turtle (else nobody), the "
             "reading under which those cards' limbo clauses can act", kind="choice",
             choices=("next_winner", "claim"), variants=("full_deck",)),
        Knob("move_points", False, "Full Deck: the sheet's optional rule: earned point cards move with hand "
             "swaps (Stack Swap), Restart Game (all back into the point deck) and Shuffle (redealt)",
             kind="bool", variants=("full_deck",)),
        Knob("remove_actions", (), "Full Deck: action cards taken out of the stack (the sheet invites it; the "
             "Turtle stays)", kind="names", choices=cards.ACTION_REMOVABLE, variants=("full_deck",)),
    )
    policies = POLICIES
    decisions = DECISIONS
    dispatchers = {"call": "decide_call", "swap": "decide_swap", "card": "decide_card"}
    #: ``wpos``: the position of the card winning the trick (99 before the lead), which the kernel
    #: holds and ``partner`` would reload as ``pos[trick[winner]]``
    dispatcher_hints = {"card": "wpos"}
    filled_decisions = ("swap",)
    plugin_writes = ("rng", "out")
    #: Full Deck's decisions, optional for a plug-in
    optional_decisions = OPTIONAL_DECISIONS
    optional_dispatchers = {"steal": "decide_steal", "pick": "decide_pick", "keep": "decide_keep",
                            "peek": "decide_peek"}
    optional_fallbacks = OPTIONAL_FALLBACKS
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
             stack: np.ndarray | None = None, pstack: np.ndarray | None = None,
             astack: np.ndarray | None = None):
        ns = kernel_namespace(self, setup.plugins)
        kinds = cards.deck_kinds(setup.knob("point_deck"))
        k = int(setup.knob("point_cards"))
        variant = setup.variant
        fub = R.FUB_CALLER_LEFT if setup.knobs.get("fub_dealer", "caller_left") == "caller_left" else R.FUB_CALLER_RIGHT
        tie = TIE_CODE[setup.knobs.get("tie_rule", "limbo")]
        fd_base = 1 if setup.knobs.get("advantage", "revealer") == "revealer" else 0
        move_pts = bool(setup.knobs.get("move_points", False))
        limbo_next = setup.knobs.get("limbo_award", "next_winner") == "next_winner"
        acts = (cards.action_stack(tuple(setup.knobs.get("remove_actions", ()))) if variant == "full_deck"
                else np.zeros(0, np.int64))
        nseat, ghosts = table_seats(variant, setup.players)
        ghost = np.array(ghosts, np.int64)
        pids = np.full(4, -1, np.int64)
        pids[: setup.players] = setup.pids()
        # one built-in policy at every player's seat: the kernel compiled for it (R.lean_team, R.lean_royal)
        shared = set(setup.pids())
        one = int(shared.pop()) if len(shared) == 1 and min(setup.pids()) < R.PLUGIN_BASE else R.ANY
        sp = setup.params()
        params = np.zeros((4, sp.shape[1]), np.float64)
        params[: setup.players] = sp
        stack = np.zeros((0, 24), np.int64) if stack is None else np.asarray(stack, np.int64)
        pstack = np.zeros(0, np.int64) if pstack is None else np.asarray(pstack, np.int64)
        astack = np.zeros(0, np.int64) if astack is None else np.asarray(astack, np.int64)
        cap = 64 + count * 16  # about 12.5 hands a game; FULL doubles it
        evcap = count * 600 if trace else 1
        while True:
            hout = np.empty((R.NH, cap), np.int8)
            hh = np.empty(cap, np.int16)
            hg = np.empty(cap, np.int64)
            gout = np.zeros((count, R.NG), np.int32)
            ev = np.zeros((evcap, 8), np.int64)
            evn = np.zeros(1, np.int64)
            err = np.zeros(4, np.int64)
            if variant in TEAM_VARIANTS:
                args = [np.uint64(key), start, count, VARIANT_CODE[variant], pids, params, kinds, k, fub,
                        int(setup.knob("max_hands")), ghost, stack, pstack, ev, evn, hg, hh, hout, gout, err]
                if debug or trace:
                    rows = ns["simulate_team"](*args, debug, trace)
                else:
                    rows = ns["LEAN_TEAM"][one](*args)
            else:
                args = [np.uint64(key), start, count, VARIANT_CODE[variant], pids, params, kinds, k,
                        int(setup.knob("max_hands")), ghost, tie, limbo_next, fd_base, move_pts, acts, stack,
                        pstack, astack, ev, evn, hg, hh, hout, gout, err]
                if debug or trace:
                    rows = ns["simulate_royal"](*args[:9], nseat, *args[9:], debug, trace)
                else:
                    rows = ns["LEAN_ROYAL"][one, nseat, variant == "full_deck"](*args)
            if rows == R.FULL:
                cap *= 2
                continue
            if rows == R.ILLEGAL:
                self._illegal(setup, err)
            if trace and evn[0] > evcap:
                evcap = int(evn[0])
                continue
            return rows, (hh[:rows], hout[:, :rows]), hg[:rows], gout, ev[: evn[0]]

    def _illegal(self, setup: Setup, err: np.ndarray) -> None:
        g, seat, d, value = (int(x) for x in err)
        legal = {R.D_CALL: "1 (play) or 0 (pass)", R.D_SWAP: "-1 (no swap) or a hand index 0-4, at most nswaps",
                 R.D_CARD: "an index into hand[:n]", R.D_STEAL: "-1 or another seat holding a point card",
                 R.D_PICK: "another seat at the table", R.D_KEEP: "a hand index 0-4",
                 R.D_PEEK: "an index into hand[:n]"}[d]
        raise PolicyError(
            f"seat {seat} ({setup.seats[seat].name}) returned {value} at decision '{DECISION_NAMES[d]}' "
            f"in game {g}; legal: {legal}"
        )

    def simulate_chunk(self, setup: Setup, key: int, start: int, count: int,
                       debug: bool = False) -> dict[str, pl.DataFrame]:
        _rows, hout, hg, gout, _ = self._run(setup, key, start, count, debug, False)
        nseat, _g = table_seats(setup.variant, setup.players)
        team = setup.variant in TEAM_VARIANTS
        return {"hands": hands_frame(hg, hout, team, nseat), "games": games_frame(start, gout, team, nseat)}

    def bench_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        return self._run(setup, key, start, count, False, False)[0]

    def minimal_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        R.minimal(np.uint64(key), start, count)
        return count

    # -- trace ------------------------------------------------------------------
    def trace(self, setup: Setup, key: int, start: int, count: int,
              stack: np.ndarray | None = None, pstack: np.ndarray | None = None,
              astack: np.ndarray | None = None) -> list[dict[str, Any]]:
        """Events of the games; ``stack`` / ``pstack`` / ``astack`` (tests) fix the number decks
        (row 0: the draw for the first deal, row h + 1: hand h), the point deck and the Full
        Deck action stack (action codes, top first)."""
        *_, ev = self._run(setup, key, start, count, True, True, stack, pstack, astack)
        return decode_rows(ev, decode_event, LIST_KINDS)

    def ghost_seats(self, setup: Setup) -> int:
        """Seats at the table played by ghosts (Lucky Ghost, Solo): outcomes() has rows for the
        players only, so a finished game may have no winning row."""
        return sum(table_seats(setup.variant, setup.players)[1])

    def describe_event(self, e: Mapping[str, Any]) -> str:
        return describe(e)

    # -- analysis ---------------------------------------------------------------
    def outcomes(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> pl.LazyFrame:
        """One row per (game, player seat); ghosts have no row (F12, F14). Team variants: 1 when the
        seat's team won. Individual variants: 1 / (seats tied for the most point cards), ghosts
        counted, for a seat among them, else 0; null when unfinished."""
        seats = pl.LazyFrame({"seat": list(range(setup.players))}, schema={"seat": pl.Int8})
        if setup.variant in TEAM_VARIANTS:
            games = tables["games"].select("game", "winner", "hands", "first_dealer")
            return games.join(seats, how="cross").select(
                "game", "seat",
                pl.when(pl.col("winner") < 0).then(None)
                .otherwise((pl.col("winner") == pl.col("seat") % 2).cast(pl.Float64)).alias("win"),
                pl.col("hands").alias("length"),
                # F4 / F8: the first dealer, and the seat on its left that plays first
                (pl.col("seat") == pl.col("first_dealer")).alias("dealer"),
                (pl.col("seat") == (pl.col("first_dealer") + 1) % 4).alias("first"),
            )
        nseat, _g = table_seats(setup.variant, setup.players)
        pts = [f"points_s{s}" for s in range(nseat)]
        games = tables["games"].select("game", "hands", "unfinished", *pts).with_columns(
            top=pl.max_horizontal(*pts)).with_columns(
            ntop=pl.sum_horizontal(*[(pl.col(c) == pl.col("top")).cast(pl.Int32) for c in pts]))
        own = pl.coalesce(*[pl.when(pl.col("seat") == s).then(pl.col(c)) for s, c in enumerate(pts)])
        return games.join(seats, how="cross").select(
            "game", "seat",
            pl.when(pl.col("unfinished")).then(None)
            .when(own == pl.col("top")).then(1.0 / pl.col("ntop")).otherwise(0.0).alias("win"),
            pl.col("hands").alias("length"),
        )

    def progress(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
        """Team variants: each team's point cards after every hand (for the drama metrics)."""
        if setup.variant not in TEAM_VARIANTS:
            return None
        h = tables["hands"].select("game", "hand", "score_t0", "score_t1")
        prog = pl.concat([h.select("game", pl.col("hand").alias("step"), side=pl.lit(t, pl.Int8),
                                   score=pl.col(f"score_t{t}")) for t in (0, 1)])
        winners = tables["games"].filter(pl.col("winner") >= 0).select("game", side=pl.col("winner").cast(pl.Int8))
        return prog, winners

    def summarize(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
        if setup.variant == "traditional":
            return summarize(tables)
        if setup.variant == "lucky_ghost":
            return summarize_ghost(tables, setup) + summarize(tables)
        return summarize_royal(tables, setup)

    def fixed_length(self, setup: Setup) -> bool:
        # the individual variants without Full Deck's action cards: one point card a hand, 15 hands (or
        # max_hands); the team games play to a score
        return setup.variant not in ("traditional", "lucky_ghost") and "hands" in _exact_counts(setup)

    def headline(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
        if setup.variant == "lucky_ghost":
            return headline_ghost(tables, setup)
        if setup.variant in ROYAL_VARIANTS:
            return headline_royal(tables, setup)
        # lazy queries collected at once: a run's tables are not read into memory (bench --memory)
        games = tables["games"].filter(pl.col("winner") >= 0).select("game", "winner", "first_dealer")
        called = tables["hands"].filter(pl.col("caller") >= 0).select(
            "game", "point_card", x=pl.lit(0), win=pl.col("winner") == pl.col("caller") % 2)
        t0, fd, ct, cards_ = collect_all([
            rate_query(games.with_columns(team=pl.lit(0), win=pl.col("winner") == 0), ["team"], "win"),
            rate_query(games.with_columns(x=pl.lit(0), win=pl.col("winner") == pl.col("first_dealer") % 2),
                       ["x"], "win"),
            rate_query(called, ["x"], "win"),
            rate_query(called, ["point_card"], "win"),
        ])
        t0, fd, ct = t0.row(0, named=True), fd.row(0, named=True), ct.row(0, named=True)
        # the lowest and highest of the point cards, picked from the data: Bonferroni intervals over the
        # cards (Wilson at level 0.05 / cards, at the effective size of the summary's clustered rate)
        cards_ = wilson_at(cards_, bonferroni_z(cards_.height)).sort("rate")
        lo_card, hi_card = cards_.row(0, named=True), cards_.row(cards_.height - 1, named=True)
        seat = (f"Seats do not detectably favour a team: team 0 (seats 0+2) wins {pct(t0, 0.5)} of "
                f"{N.many(t0['n'], 'game')}." if t0["lo"] <= 0.5 <= t0["hi"] else
                f"Team 0 (seats 0+2) wins {pct(t0, 0.5)} of {N.many(t0['n'], 'game')}.")
        deal = f"The first dealer's team wins {pct(fd, 0.5)}"
        deal += (f", {N.points(fd['rate'] - 0.5, sign=False)} above an even game." if fd["lo"] > 0.5 else
                 f", {N.points(0.5 - fd['rate'], sign=False)} below an even game." if fd["hi"] < 0.5 else
                 ", no detectable edge.")
        sim = [N.pct_ci(r["rate"], r["sim_lo"], r["sim_hi"], label="") for r in (lo_card, hi_card)]
        card = (f"The calling team wins the point card in {pct(ct)} of {ct['n']:,} played hands; by point card "
                f"from {lo_card['point_card']} {sim[0]} to {hi_card['point_card']} {sim[1]}, the lowest and "
                f"highest of {cards_.height}, 95% intervals simultaneous over the cards.")
        return f"{seat} {deal} {card}"

    def figures(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, list, list]]:
        if setup.variant == "full_deck":
            return figures_full_deck(tables)
        if setup.variant not in TEAM_VARIANTS:
            return []
        from cardsim.report import figures as F

        # only the columns the figures read: collecting every column of every played hand made the report's
        # peak, 2.2 GB at 3 million games (1.5 GB now)
        played = tables["hands"].filter(~pl.col("misdeal")).select(
            "game", "dealer", "caller", "winner", "point_card",
            calling_tricks=pl.when(pl.col("caller") % 2 == 0).then(pl.col("tricks_s0") + pl.col("tricks_s2"))
            .otherwise(pl.col("tricks_s1") + pl.col("tricks_s3"))).collect()
        dist = played.group_by("calling_tricks").len("hands").sort("calling_tricks").with_columns(
            share=pl.col("hands") / pl.col("hands").sum())
        tricks = F.histogram(played["calling_tricks"], "Tricks won by the calling team per hand", "tricks (of 5)",
                             ylabel="played hands")
        rel = pl.concat([
            played.select(position=pl.lit(i), win=pl.col("winner") == ((pl.col("dealer") + i) % 4) % 2)
            for i in (1, 2, 3, 4)
        ])
        by_pos = rate_table(rel, ["position"], "win")
        pos_fig = F.rate_dots(by_pos, "position", "Point-card win rate by seat position relative to the dealer",
                              "position (1 = dealer's left, 4 = dealer)", ref=0.5, ref_label="even",
                              ylabel="point-card win rate (95% interval)")
        caller = played.with_columns(caller_pos=((pl.col("caller") - pl.col("dealer") + 3) % 4 + 1),
                                     win=pl.col("winner") == pl.col("caller") % 2)
        by_caller = rate_table(caller, ["caller_pos"], "win")
        caller_fig = F.rate_dots(by_caller, "caller_pos", "Calling team's point-card win rate by caller position",
                                 "caller position (1 = dealer's left, 4 = dealer)", ref=0.5, ref_label="even",
                                 ylabel="point-card win rate (95% interval)")
        by_card = rate_table(caller, ["point_card"], "win")
        card_fig = F.rate_dots(by_card, "point_card", "Calling team's win rate by point card", "point card", ref=0.5,
                               ref_label="even", ylabel="point-card win rate (95% interval)")
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
# Columns come straight from the kernel's arrays (one contiguous row of ``hout`` per hand column),
# and the columns a variant leaves unwritten are constants: no Python object per row.
def hands_frame(hg: np.ndarray, out: tuple[np.ndarray, np.ndarray], team: bool = True, nseat: int = 4
                ) -> pl.DataFrame:
    """The ``hands`` table of kernel output ``out`` = (hand numbers int16[rows], ``h`` int8[NH, rows]:
    one row per column, one column per hand), with game indices ``hg``. Each kernel leaves the
    other's columns unwritten (stores a hand would pay for nothing): they are constants here."""
    hand, h = out
    n = h.shape[1]
    i8 = pl.Int8
    if team:
        extra = {
            "score_t0": pl.Series(h[R.H_SCORE0]), "score_t1": pl.Series(h[R.H_SCORE1]), "tie": const(n, False, pl.Boolean),
            "limbo": const(n, 0, i8), "action_card": const(n, None, ACTION_ENUM), "revealer": const(n, -1, i8),
            "target": const(n, -1, i8), **{f"points_s{s}": const(n, None, i8) for s in range(4)},
        }
        caller, rnd = pl.Series(h[R.H_CALLER]), pl.Series(h[R.H_ROUND])
        misdeal, swept, fubbed = flags(h[R.H_MISDEAL]), flags(h[R.H_SWEPT]), flags(h[R.H_FUBBED])
    else:
        extra = {
            "score_t0": const(n, None, i8), "score_t1": const(n, None, i8), "tie": flags(h[R.H_TIE]),
            "limbo": pl.Series(h[R.H_LIMBO]), "action_card": pick(ACTION_SERIES, h[R.H_ACTION]),
            "revealer": pl.Series(h[R.H_REVEALER]), "target": pl.Series(h[R.H_TARGET]),
            **{f"points_s{s}": pl.Series(h[R.H_PS0 + s]) if s < nseat else const(n, None, i8) for s in range(4)},
        }
        caller, rnd = const(n, -1, i8), const(n, 0, i8)
        misdeal, swept, fubbed = (const(n, False, pl.Boolean) for _ in range(3))
    return pl.DataFrame({
        "game": pl.Series(hg, dtype=pl.Int64),
        "hand": pl.Series(hand),
        "dealer": pl.Series(h[R.H_DEALER]),
        "point_card": pick(POINT_SERIES, h[R.H_POINT]),
        "caller": caller,
        "round": rnd,
        **{f"tricks_s{s}": pl.Series(h[R.H_T0 + s]) for s in range(4)},
        "winner": pl.Series(h[R.H_WINNER]),
        "misdeal": misdeal,
        "swept": swept,
        "fubbed": fubbed,
        "double": flags(h[R.H_DOUBLE]),
        "swaps": pl.Series(h[R.H_SWAPS]),
        "score_t0": extra["score_t0"],
        "score_t1": extra["score_t1"],
        "tie": extra["tie"],
        "limbo": extra["limbo"],
        "action_card": extra["action_card"],
        "revealer": extra["revealer"],
        "target": extra["target"],
        **{f"points_s{s}": extra[f"points_s{s}"] for s in range(4)},
    })


def games_frame(start: int, g: np.ndarray, team: bool = True, nseat: int = 4) -> pl.DataFrame:
    """The ``games`` table of kernel output ``g`` (int32[games, NG]); game indices from ``start``."""
    n = g.shape[0]
    i16 = pl.Int16

    def col(c: int, dtype: pl.DataType, keep: bool = True) -> pl.Series:
        return column(g[:, c], dtype) if keep else const(n, None, dtype)

    return pl.DataFrame({
        "game": pl.Series(np.arange(start, start + n), dtype=pl.Int64),
        "winner": col(R.G_WINNER, pl.Int8),
        "hands": col(R.G_HANDS, pl.Int32),
        "points_t0": col(R.G_P0, i16, team),
        "points_t1": col(R.G_P1, i16, team),
        "first_dealer": col(R.G_FIRST, pl.Int8),
        "misdeals": col(R.G_MISDEALS, pl.Int32),
        "unfinished": flags(g[:, R.G_UNFINISHED]),
        **{f"points_s{s}": col(R.G_PS0 + s, i16, not team and s < nseat) for s in range(4)},
        "tie": flags(g[:, R.G_TIE]),
        "limbo_left": col(R.G_LIMBO, i16),
        "discarded": col(R.G_DISC, i16),
        "turtle": flags(g[:, R.G_TURTLE]),
        "restarts": col(R.G_RESTARTS, pl.Int32),
        "action_cards": col(R.G_ACTIONS, pl.Int32),
    })


# -- events -------------------------------------------------------------------------
#: the kernel's list events (cardsim.events.emit_list)
LIST_KINDS = frozenset({R.EV_UNDEALTN, R.EV_POINTS})


def decode_event(row: list[int], items: list[int]) -> dict[str, Any]:
    """One event row (with its list, for a list event) as a dict; the fields are documented in
    ``trace_schema.py``."""
    g, kind, seat, a, b, c, d, e = row
    cn = cards.card_name
    pk = cards.KIND_NAMES
    an = cards.ACTION_NAMES
    base: dict[str, Any] = {"game": g}
    if kind == R.EV_DRAW:
        return {"event": "draw_for_deal", **base, "seat": seat, "card": cn(a)}
    if kind == R.EV_DEALER:
        if b == 0:  # individual variants: no dealer advantage (F13)
            return {"event": "dealer", **base, "hand": a, "seat": seat, "advantage": "none",
                    "direction": "clockwise" if c == 1 else "counter-clockwise"}
        return {"event": "dealer", **base, "hand": a, "seat": seat, "advantage": "double" if b == 2 else "single"}
    if kind == R.EV_DEAL:
        return {"event": "deal", **base, "seat": seat, "cards": [cn(x) for x in (a, b, c, d, e)]}
    if kind == R.EV_UNDEALT:
        return {"event": "undealt", **base, "cards": [cn(x) for x in (a, b, c, d)]}
    if kind == R.EV_UNDEALTN:
        return {"event": "undealt", **base, "cards": [cn(x) for x in items]}
    if kind == R.EV_POINTS:
        return {"event": "points_dealt", **base, "seat": seat, "point_cards": [pk[x] for x in items]}
    if kind == R.EV_REVEAL:
        return {"event": "reveal", **base, "point_card": pk[a], "round": b}
    if kind == R.EV_CALL:
        return {"event": "decision", **base, "seat": seat, "choice": "play" if a else "pass", "round": b,
                "point_card": pk[c]}
    if kind == R.EV_BACK:
        return {"event": "shuffle_back", **base, "point_card": pk[a], "round": b}
    if kind == R.EV_MISDEAL:
        return {"event": "misdeal", **base, "hand": b, "dealer": seat, "point_card": pk[a]}
    if kind == R.EV_SWAP:
        return {"event": "swap", **base, "seat": seat, "out": cn(a), "in": cn(b)}
    if kind == R.EV_PLAY:
        return {"event": "play", **base, "seat": seat, "card": cn(a), "trick": b}
    if kind == R.EV_TRICK:
        return {"event": "trick", **base, "winner": seat, "trick": a, "card": cn(b)}
    if kind == R.EV_HAND:
        return {"event": "hand", **base, "point_card": pk[c], "round": d, "caller": seat, "winner_team": a,
                "tricks_t0": b, "tricks_t1": 5 - b, "swept": bool(e & 1), "fubbed": bool(e & 2)}
    if kind == R.EV_GAME:
        return {"event": "game", **base, "winner_team": a, "points_t0": b, "points_t1": c, "hands": d}
    if kind == R.EV_ACTION:
        return {"event": "action_card", **base, "seat": seat, "card": an[a], "effect": cards.EFFECT_NAMES[b]}
    if kind == R.EV_LIMBO:
        return {"event": "limbo", **base, "seat": seat, "point_card": pk[a], "limbo": b,
                "reason": "tie" if c == R.LB_TIE else "skip"}
    if kind == R.EV_DISCARD:
        return {"event": "discard", **base, "point_card": pk[a]}
    if kind == R.EV_CLAIM:
        return {"event": "claim_limbo", **base, "seat": seat, "point_cards": a,
                "reason": ("hand", "clean_up", "turtle")[b]}
    if kind == R.EV_STEAL:
        return {"event": "steal", **base, "seat": seat, "from": a, "point_card": pk[b] if b >= 0 else None}
    if kind == R.EV_PICK:
        return {"event": "pick_a_player", **base, "seat": seat, "picked": a}
    if kind == R.EV_ELIM:
        return {"event": "eliminated_pick", **base, "seat": seat, "dealer": c,
                "gave": cn(a) if a >= 0 else None, "took": cn(b) if b >= 0 else None}
    if kind == R.EV_KEEP:
        return {"event": "do_over", **base, "seat": seat, "kept": cn(a)}
    if kind == R.EV_REDEAL:
        return {"event": "redeal", **base, "seat": seat, "reason": cards.EFFECT_NAMES[a]}
    if kind == R.EV_PASS:
        return {"event": "stack_swap", **base, "to": "left" if a == 1 else "right", "point_cards_move": bool(b)}
    if kind == R.EV_REVERSE:
        return {"event": "reverse", **base, "seat": seat, "direction": "clockwise" if a == 1 else "counter-clockwise"}
    if kind == R.EV_RESTART:
        return {"event": "restart", **base, "seat": seat, "point_cards_reset": bool(a)}
    if kind == R.EV_GHOST:
        return {"event": "no_reveal", **base, "seat": seat}
    if kind == R.EV_PEEK:
        return {"event": "peek", **base, "seat": seat}
    if kind == R.EV_RAPID:
        return {"event": "rapid_fire", **base, "seat": seat}
    if kind == R.EV_ADV:
        return {"event": "advantage", **base, "seat": seat, "swaps": a}
    if kind == R.EV_RHAND:
        return {"event": "hand", **base, "winner": seat, "tie": bool(a), "limbo": b,
                "tricks": [(c >> (3 * s)) & 7 for s in range(e)], "point_card": pk[d]}
    if kind == R.EV_SCORE:
        return {"event": "score", **base, "points": [a, b, c, d][:e]}
    if kind == R.EV_RGAME:
        return {"event": "game", **base, "winner": seat, "tie": bool(a), "hands": b, "unfinished": bool(c),
                "turtle": bool(d), "limbo_left": e}
    raise ValueError(f"unknown FUBNUB event kind {kind}")


_EFFECT_TEXT = {
    "none": "no effect in FUBNUB", "skip": "skip", "eliminated": "each player may swap blind with the dealer",
    "no_reveal": "plays this hand as a ghost", "peek": "sees every hand", "do_over": "takes the undealt cards",
    "rapid_fire": "leads every trick", "clean_up": "claims limbo", "pick_a_player": "picks a player",
    "double_advantage": "double advantage", "no_advantage": "no advantage", "redeal_self": "redeals own hand",
    "steal": "may steal a point card", "restart": "restart", "reverse": "reverse direction",
    "shuffle": "complete redeal", "swap_left": "hands pass left", "swap_right": "hands pass right",
    "turtle": "the game ends",
}


def describe(e: Mapping[str, Any]) -> str:
    k = e["event"]
    if k == "draw_for_deal":
        return f"seat {e['seat']} draws {e['card']} for the deal"
    if k == "dealer":
        if e["advantage"] == "none":
            return f"-- hand {e['hand']}: seat {e['seat']} deals (no dealer advantage, play goes {e['direction']})"
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
        return f"misdeal in hand {e['hand']}: two rounds passed; {e['point_card']} shuffled back, the deal moves left"
    if k == "swap":
        return f"seat {e['seat']} swaps {e['out']} for {e['in']}"
    if k == "play":
        return f"trick {e['trick']}: seat {e['seat']} plays {e['card']}"
    if k == "trick":
        return f"trick {e['trick']} won by seat {e['winner']} with {e['card']}"
    if k == "hand" and "winner_team" in e:
        tags = " (swept)" if e["swept"] else " (fubbed)" if e["fubbed"] else ""
        return (f"{e['point_card']} won by team {e['winner_team']}, tricks {e['tricks_t0']}-{e['tricks_t1']}, "
                f"caller seat {e['caller']} in round {e['round']}{tags}")
    if k == "hand":
        who = f"seat {e['winner']} wins {e['point_card']}" if e["winner"] >= 0 else f"nobody wins {e['point_card']}"
        tie = " after a tie" if e["tie"] else ""
        return f"{who}{tie}; tricks {e['tricks']}; {e['limbo']} in limbo"
    if k == "game" and "winner_team" in e:
        w = e["winner_team"]
        who = f"team {w} wins" if w >= 0 else "unfinished (hand cap)"
        return f"== game {e['game']}: {who}, points {e['points_t0']}-{e['points_t1']} in {e['hands']} hands"
    if k == "game":
        who = ("unfinished (hand cap)" if e["unfinished"] else "a tie for most point cards" if e["tie"]
               else f"seat {e['winner']} wins")
        end = " (the Turtle ended it)" if e["turtle"] else ""
        return f"== game {e['game']}: {who} in {e['hands']} hands{end}; {e['limbo_left']} left in limbo"
    if k == "score":
        return f"point cards by seat: {e['points']}"
    if k == "action_card":
        return f"seat {e['seat']} reveals {e['card']}: {_EFFECT_TEXT[e['effect']]}"
    if k == "limbo":
        src = "after a tie" if e["reason"] == "tie" else f"from seat {e['seat']} (Skip)"
        return f"{e['point_card']} goes to limbo {src}; {e['limbo']} in limbo"
    if k == "discard":
        return f"{e['point_card']} is discarded after a tie"
    if k == "claim_limbo":
        return f"seat {e['seat']} claims {e['point_cards']} point card(s) from limbo ({e['reason']})"
    if k == "steal":
        if e["from"] < 0:
            return f"seat {e['seat']} steals nothing"
        return f"seat {e['seat']} steals {e['point_card']} from seat {e['from']}"
    if k == "pick_a_player":
        return f"seat {e['seat']} picks seat {e['picked']} for the dealer advantage"
    if k == "eliminated_pick":
        if e["gave"] is None:
            return f"seat {e['seat']} leaves the dealer's hand alone"
        return f"seat {e['seat']} gives {e['gave']} to dealer seat {e['dealer']} for {e['took']} (blind)"
    if k == "do_over":
        return f"seat {e['seat']} keeps {e['kept']} and takes the four undealt cards"
    if k == "redeal":
        return "complete redeal of the number cards" if e["seat"] < 0 else (
            f"seat {e['seat']} shuffles their hand with the undealt cards and deals themself five")
    if k == "points_dealt":
        return f"seat {e['seat']} is dealt point cards {', '.join(e['point_cards']) or '(none)'}"
    if k == "stack_swap":
        moved = ", point cards too" if e["point_cards_move"] else ""
        return f"every hand passes to the {e['to']}{moved}"
    if k == "reverse":
        return f"play now goes {e['direction']}"
    if k == "restart":
        return "restart: action stack rebuilt" + (", every point card back in the deck" if e["point_cards_reset"] else "")
    if k == "no_reveal":
        return f"seat {e['seat']} plays this hand blind (ghost)"
    if k == "peek":
        return f"seat {e['seat']} sees every hand"
    if k == "rapid_fire":
        return f"seat {e['seat']} leads every trick"
    if k == "advantage":
        return f"seat {e['seat']} has the dealer advantage ({e['swaps']} swap{'s' if e['swaps'] > 1 else ''})"
    return str(dict(e))


# -- summaries ------------------------------------------------------------------------
# Every aggregate is a lazy query over the run's parquet parts, and a summary collects its queries
# at once with the streaming engine: summarising 100 million hands needs memory for the aggregates
# only, and the parts' columns are read once.
def summarize(tables: Mapping[str, pl.LazyFrame]) -> list[tuple[str, pl.DataFrame]]:
    """The team game's summary."""
    games = tables["games"]
    hands = tables["hands"]
    finished = games.filter(pl.col("winner") >= 0)
    played = ~pl.col("misdeal")
    called = hands.filter(pl.col("caller") >= 0).with_columns(
        calling_team_won=pl.col("winner") == pl.col("caller") % 2,
        caller_pos=((pl.col("caller") - pl.col("dealer") + 3) % 4 + 1).cast(pl.Int8))
    # the hands of a game are one cluster: per-hand rates are clustered by game (deff: design effect)
    t0, t1, fd, hs, length, unf, misdeal, sweep, fub, by_card, by_pos = collect_all([
        *(rate_query(finished.with_columns(team=pl.lit(t), win=pl.col("winner") == t), ["team"], "win")
          for t in (0, 1)),
        rate_query(finished.with_columns(win=pl.col("winner") == pl.col("first_dealer") % 2), ["first_dealer"], "win"),
        hands.select(pl.len().alias("deals")),
        games.select(mean_exprs("hands", "hands_", count=True)),
        games.select(pl.col("unfinished").sum().alias("unfinished_games"), pl.len().alias("games")),
        rate_query(hands.with_columns(event=pl.lit("misdeal")), ["event"], "misdeal"),
        *(rate_query(hands.filter(played).with_columns(event=pl.lit(e)), ["event"], c)
          for e, c in (("sweep", "swept"), ("fub", "fubbed"))),
        rate_query(called, ["point_card"], "calling_team_won"),
        rate_query(called, ["caller_pos"], "calling_team_won"),
    ])
    return [
        ("Game win rate by team (seats 0+2 = team 0), 95% Wilson", pl.concat([t0, t1])),
        ("Game win rate of the first dealer's team, by first dealer", fd),
        ("Hands per game (mean, se, 95% CI), deals and unfinished games", pl.concat([length, hs, unf], how="horizontal")),
        ("Misdeals per deal, sweeps and fubs per played hand: rates, 95% Wilson clustered by game",
         pl.concat([misdeal, sweep, fub])),
        ("Point-card win rate of the calling team, by point card", by_card),
        ("Calling team's win rate by caller position (1 = dealer's left ... 4 = dealer)", by_pos),
    ]


GAME = Fubnub()


# -- the modes' summaries -----------------------------------------------------------------
# As in the team game's summary, every aggregate is a lazy query and a summary collects them at once.
# A hand's rows belong to its game: per-hand rates and means are clustered by game (deff: design effect).
def _rates(frame: pl.LazyFrame, label: str, cols: Mapping[str, pl.Expr]) -> list[pl.LazyFrame]:
    """One query per named 0/1 expression over ``frame``: n, k, rate and Wilson interval, clustered
    by game; concatenate the collected frames with ``pl.concat``."""
    return [rate_query(frame.with_columns(pl.lit(name).alias(label)), [label], e.fill_null(False))
            for name, e in cols.items()]


def _means(frame: pl.LazyFrame, quantities: list[tuple[str, str]], exact: Collection[str] = ()) -> list[pl.LazyFrame]:
    """One query per (column, name) of ``frame`` (the games table: one value a game): its n, mean, se and
    95% interval (:func:`cardsim.stats.mean_exprs`: Student's t with Hall's skewness correction, as every
    mean over games; it was the clustered t of :func:`cardsim.stats.mean_query`, without the correction),
    and ``deff`` 1 (one value a game). Every quantity is a count (point cards, hands, cards revealed): its
    interval is cut at 0 and is never narrower than Garwood's at the effective count, so a count no game
    showed reads 0 to 3.69 / games, not 0-0; the columns in ``exact`` are constant by the scenario's rules
    (:func:`_exact_counts`) and keep the t interval (zero width where every game gave the same)."""
    return [frame.select(*mean_exprs(c, count=c not in exact)).with_columns(pl.col("n").cast(pl.Int64), deff=pl.lit(1.0))
            for c, _ in quantities]


def _exact_counts(setup: Setup) -> set[str]:
    """The games table's counts that the rules make constant in every game of ``setup`` (its summary's
    means print them without an interval's width): without Full Deck's action cards every hand plays one
    point card, so every game has as many hands (15, or max_hands); only the tie rule discard discards
    (limbo puts a tied point card in limbo, last_trick gives it to a tied player); outside Full Deck
    (whose Skip puts point cards in limbo) nothing is left in limbo unless the tie rule is limbo; Full
    Deck without its Restart Game card has no restarts."""
    full = setup.variant == "full_deck"
    tie = setup.knobs.get("tie_rule", "limbo")
    out = set()
    if not full:
        out.add("hands")
    if tie != "discard":
        out.add("discarded")
    if not full and tie != "limbo":
        out.add("limbo_left")
    if full and "Restart Game" in tuple(setup.knobs.get("remove_actions", ())):
        out.add("restarts")
    return out


def _mean_rows(frames: list[pl.DataFrame], quantities: list[tuple[str, str]]) -> pl.DataFrame:
    return pl.concat([f.with_columns(quantity=pl.lit(name)) for f, (_, name) in zip(frames, quantities, strict=True)]
                     ).select("quantity", pl.exclude("quantity"))


def summarize_ghost(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
    """Lucky Ghost (F12): what a player's seat gains over its ghost partner, seat by seat."""
    _n, ghosts = table_seats(setup.variant, setup.players)
    played = tables["hands"].filter(~pl.col("misdeal"))
    pairs = [(s, (s + 2) % 4) for s in range(4) if not ghosts[s] and ghosts[(s + 2) % 4]]
    called = played.filter(pl.col("caller") >= 0).with_columns(won=pl.col("winner") == pl.col("caller") % 2)
    res = collect_all([
        *(mean_query(played, f"tricks_s{s}", prefix="tricks_", count=True) for s in range(4)),
        *(mean_query(played, pl.col(f"tricks_s{s}").cast(pl.Int32) - pl.col(f"tricks_s{p}"), prefix="gain_")
          for s, p in pairs),
        rate_query(called, ["caller"], "won"),
    ])
    out: list[tuple[str, pl.DataFrame]] = []
    seats = pl.concat([
        res[s].with_columns(seat=pl.lit(s, pl.Int8), role=pl.lit("ghost" if ghosts[s] else "player"))
        for s in range(4)
    ]).select("seat", "role", pl.exclude("seat", "role"))
    out.append(("Tricks per played hand by seat (players and ghosts), mean with 95% CI clustered by game", seats))
    gains = [g.with_columns(seat=pl.lit(s, pl.Int8), ghost_partner=pl.lit(p, pl.Int8))
             for g, (s, p) in zip(res[4:4 + len(pairs)], pairs, strict=True)]
    if gains:
        out.append(("Gain of a player's seat over its ghost partner: tricks per played hand (seat - partner), "
                    "mean with 95% CI clustered by game", pl.concat(gains).select("seat", "ghost_partner", pl.exclude(
                        "seat", "ghost_partner"))))
    out.append(("Point-card win rate of the calling team by caller seat (only players call), 95% Wilson clustered "
                "by game", res[-1]))
    return out


def headline_ghost(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
    """Lucky Ghost (F12) in words: the team's win rate and what each player gains over its ghost partner.

    With two players paired with ghosts (2 players: seats 0 and 1) the two gains are read together
    ("more" or "fewer" where an interval leaves 0 out), so their intervals hold at once: Bonferroni, each
    at level 0.05 / 2 (Student's t on the game clusters), as the seats' claims elsewhere."""
    parts = []
    n_games = int(collect(tables["games"].select(pl.len())).item())
    gains = [r for title, frame in summarize_ghost(tables, setup) if title.startswith("Gain")
             for r in frame.iter_rows(named=True) if N.finite(r["gain_mean"])]  # NaN: no hand played to the end
    k = len(gains)
    z = bonferroni_z(k, df=max(1, min(n_games, CLUSTERS) - 1))
    label = "95% CI" if k == 1 else f"simultaneous 95% CI over the {k} players"
    for r in gains:
        m = r["gain_mean"]
        lo, hi = (r["gain_lo"], r["gain_hi"]) if k == 1 else (m - z * r["gain_se"], m + z * r["gain_se"])
        more = "more" if m >= 0 else "fewer"
        if not (N.finite(lo) and N.finite(hi)):  # one game (one cluster): no spread to measure
            gain = f"{N.num(abs(m), 2)} tricks (95% CI none: an interval needs at least 2 games)"
        elif lo * hi > 0:
            gain = N.num_ci(abs(m), *sorted((abs(lo), abs(hi))), "tricks", label=label)
        else:
            gain = N.num_ci(m, lo, hi, "tricks", label=label)
        parts.append(f"seat {r['seat']} takes {gain} {more} a hand than its ghost partner")
    games = tables["games"].filter(pl.col("winner") >= 0).collect()
    t0 = rate_table(games.with_columns(x=pl.lit(0), win=pl.col("winner") == 0), ["x"], "win").row(0, named=True)
    who = f"{setup.players} player{'s' if setup.players > 1 else ''} and {4 - setup.players} ghost" + \
        ("s" if 4 - setup.players > 1 else "")
    return (f"With {who}, team 0 (seats 0+2) wins {pct(t0, 0.5)} of {N.many(t0['n'], 'game')}"
            + ("; " + "; ".join(parts) if parts else "") + ".")


def summarize_royal(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
    """Battle Royal, Solo, Full Deck (F13-F15): win rate per seat, ties, limbo, action cards."""
    nseat, ghosts = table_seats(setup.variant, setup.players)
    full = setup.variant == "full_deck"
    games = tables["games"]
    hands = tables["hands"]
    pts = [f"points_s{s}" for s in range(nseat)]
    fin = games.filter(~pl.col("unfinished")).with_columns(top=pl.max_horizontal(*pts))
    seat_q = fin.select(pl.len().alias("n"),
                        *((pl.col("winner") == s).cast(pl.Float64).sum().alias(f"sole{s}") for s in range(nseat)),
                        *((pl.col("tie") & (pl.col(f"points_s{s}") == pl.col("top"))).cast(pl.Float64).sum()
                          .alias(f"shared{s}") for s in range(nseat)))
    outcomes = _rates(games, "outcome", {"tie": pl.col("tie"), "unfinished": pl.col("unfinished"),
                                         **({"turtle_ended": pl.col("turtle")} if full else {})})
    played = hands.filter(pl.col("action_card").is_null() | (pl.col("action_card") != "Turtle"))
    per_hand = _rates(played, "per_hand", {"tie_for_most_tricks": pl.col("tie"), "no_winner": pl.col("winner") < 0,
                                           "limbo_not_empty_after": pl.col("limbo") > 0})
    quantities = [*[(f"points_s{s}", f"point cards, seat {s}") for s in range(nseat)],
                  ("hands", "hands per game"), ("limbo_left", "point cards left in limbo at the end"),
                  ("discarded", "point cards discarded")]
    fd_quantities = [("action_cards", "action cards revealed"), ("restarts", "Restart Game")]
    exact = _exact_counts(setup)
    queries = [seat_q, *outcomes, *per_hand, *_means(games, quantities, exact)]
    if full:
        revealed = hands.filter(pl.col("action_card").is_not_null())
        kinds = revealed.select(pl.col("action_card").unique())
        share = revealed.select("game", pl.col("action_card").alias("revealed")).join(kinds, how="cross")
        queries += [rate_query(share, ["action_card"], pl.col("revealed") == pl.col("action_card")),
                    rate_query(revealed.with_columns(revealer_won=pl.col("winner") == pl.col("revealer")),
                               ["action_card"], "revealer_won"),
                    *_means(games, fd_quantities, exact)]
    res = collect_all(queries)
    seats = res[0].row(0, named=True)
    k = 1 + len(outcomes) + len(per_hand)
    means = res[k:k + len(quantities)]
    wins = pl.DataFrame([{"seat": s, "role": "ghost" if ghosts[s] else "player", "n": int(seats["n"]),
                          "k": int(seats[f"sole{s}"] or 0), "tied_top": int(seats[f"shared{s}"] or 0)}
                         for s in range(nseat)]).with_columns(wilson_exprs(pl.col("k"), pl.col("n")))
    tie_rule = setup.knobs.get("tie_rule", "limbo")
    out = [
        ("Game win rate per seat (sole most point cards; ties are ties, counted in tied_top), 95% Wilson", wins),
        ("Games: ties for the most point cards and unfinished games, 95% Wilson",
         pl.concat(res[1:1 + len(outcomes)])),
        ("Hands: tie for most tricks, point card to limbo / nobody, 95% Wilson clustered by game (tie rule: "
         + tie_rule + ")", pl.concat(res[1 + len(outcomes):k])),
        ("Per game means with 95% CI", _mean_rows(means, quantities)),
    ]
    if full:
        by, after, *fd_means = res[k + len(quantities):]
        out += [("Full Deck: action cards revealed (share of reveals, 95% Wilson clustered by game)", by),
                ("Full Deck: the revealer's point-card win rate in the hand, by action card, 95% Wilson "
                 "clustered by game", after),
                ("Full Deck: action cards and restarts per game, mean with 95% CI", _mean_rows(fd_means, fd_quantities))]
    return out


def headline_royal(tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
    """Battle Royal, Solo, Full Deck (F13-F15) in words: sole wins by seat against the fair share, ties,
    and (Full Deck) how often the Turtle ends the game. The seats' rates are shown with Bonferroni
    intervals over the seats, and a seat is said to differ when its difference from the fair share
    (the mean of the seats' rates, estimated) has a Bonferroni interval off 0
    (:func:`sole_win_differences`)."""
    frames = dict(summarize_royal(tables, setup))
    wins = next(f for t, f in frames.items() if t.startswith("Game win rate"))
    outcomes = next(f for t, f in frames.items() if t.startswith("Games:"))
    tie = outcomes.filter(pl.col("outcome") == "tie").row(0, named=True)
    n = tie["n"]
    ties = f"{pct(tie)} of the {N.many(n, 'game')} end{'s' if n == 1 else ''} in a tie for the most point cards"
    turtle = ""
    if setup.variant == "full_deck":
        t = outcomes.filter(pl.col("outcome") == "turtle_ended").row(0, named=True)
        turtle = f" The Turtle ends {pct(t)} of games early." + action_card_answer(tables)
    rows = list(wins.iter_rows(named=True))
    if setup.variant == "solo":
        player = rows[0]
        ghosts = sorted(wilson_at(wins.slice(1), bonferroni_z(len(rows) - 1)).iter_rows(named=True),
                        key=lambda r: r["rate"])
        g = [N.pct_ci(r["rate"], r["sim_lo"], r["sim_hi"], label="") for r in (ghosts[0], ghosts[-1])]
        return (f"The solo player (seat 0) beats the three ghosts outright in {pct(player)} of {N.many(n, 'game')}; "
                f"a ghost wins alone in {g[0]} to {g[1]} (the lowest and highest of the {len(ghosts)} ghosts, 95% "
                f"intervals simultaneous over them), and {pct(tie)} end in a tie for the most point cards.")
    k = len(rows)
    fair = (1 - tie["rate"]) / k
    shown = list(wilson_at(wins, bonferroni_z(k)).iter_rows(named=True))
    diffs = sole_win_differences([r["k"] for r in rows], int(rows[0]["n"]))
    off = [(r, d) for r, d in zip(rows, diffs, strict=True) if d[1] > 0 or d[2] < 0]  # NaN (1 game): not off
    seats = ", ".join(f"seat {r['seat']} {N.pct_ci(r['rate'], r['sim_lo'], r['sim_hi'], label='', ref=fair)}"
                      for r in shown)
    verdict = (f"no seat is compared with the fair share of sole wins, {N.pct(fair)}: that needs at least 2 "
               f"games" if int(rows[0]["n"]) < 2 else
               f"no seat differs detectably from the fair share of sole wins, {N.pct(fair)}" if not off else
               "; ".join(f"seat {r['seat']} differs detectably from the fair share of sole wins, {N.pct(fair)}: "
                         f"{N.points_ci(*d, label='simultaneous 95% CI')}" for r, d in off))
    return (f"With {setup.players} players each for themselves, the sole winner by seat (95% intervals simultaneous "
            f"over the {k} seats): {seats} ({verdict}); {ties}.{turtle}")


def sole_win_differences(wins: list[float], n: int, alpha: float = 0.05) -> list[tuple[float, float, float]]:
    """Each seat's sole-win rate minus the fair share (the mean of every seat's: itself estimated, from
    the same games), with Bonferroni intervals over the seats: ``(difference, lo, hi)``, Student's t
    with n - 1 degrees of freedom at level ``alpha / seats``; every interval holds at once with chance
    at least ``1 - alpha``.

    A game has at most one sole winner, so seat s's difference in a game, ``x_s - mean_t x_t``, has
    its mean and variance in the sums alone: ``E[d_s^2] = p_s (1 - 2/k) + P/k^2`` (P: the share of games
    with a sole winner). No game is read again, and the fair share's own error is in the interval
    (testing each seat's Wilson interval against it, as the headline did, took it as known)."""
    k = len(wins)
    if n < 2 or k == 0:
        return [(math.nan, math.nan, math.nan)] * k
    p = [w / n for w in wins]
    total = sum(p)
    crit = bonferroni_z(k, n - 1, alpha)
    out = []
    for ps in p:
        d = ps - total / k
        var = max(ps * (1 - 2 / k) + total / k ** 2 - d * d, 0.0) * n / (n - 1)
        se = math.sqrt(var / n)
        out.append((d, d - crit * se, d + crit * se))
    return out


def revealer_table(tables: Mapping[str, pl.LazyFrame]) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Full Deck (F15): the revealer's point-card win rate in the hand, by action card (the summary's
    table), and the same rate over every reveal but the Turtle's (which ends the game unplayed)."""
    revealed = tables["hands"].filter(pl.col("action_card").is_not_null()).with_columns(
        revealer_won=pl.col("winner") == pl.col("revealer")).collect()
    by_card = rate_table(revealed, ["action_card"], "revealer_won")
    played = revealed.filter(pl.col("action_card") != "Turtle").with_columns(x=pl.lit(0))
    base = rate_table(played, ["x"], "revealer_won")
    if base.height == 0:  # only the Turtle revealed (a game or two it ended): row(0) was polars' OutOfBoundsError
        return by_card, {c: (0 if c in ("n", "k") else math.nan) for c in base.columns}
    return by_card, base.row(0, named=True)


def action_card_differences(tables: Mapping[str, pl.LazyFrame], alpha: float = 0.05) -> pl.DataFrame:
    """Full Deck (F15): per action card (the Turtle left out: it ends the game unplayed), the revealer's
    point-card win rate after it (``rate``, over ``n`` reveals) minus the rate after every other card
    (``rest_rate``): ``diff`` with its Bonferroni interval over the cards (``lo``, ``hi``: each at level
    ``alpha / cards``, so every one holds at once with chance at least ``1 - alpha``).

    The rest is estimated from the same games, and the hands of a game are correlated, so the interval
    is that of a difference of two ratio estimators clustered by game (:func:`cardsim.stats.rate_difference`,
    Student's t on the clusters less one; beyond ``stats.CLUSTERS`` games a cluster is a block of games). A
    card's pointwise Wilson interval against the pooled rate (its own reveals included, the rate taken
    as known), which the answer read before, named a card in 78% of runs where no card did anything."""
    revealed = tables["hands"].filter(pl.col("action_card").is_not_null() & (pl.col("action_card") != "Turtle"))
    per = collect(revealed.group_by(cluster_key(revealed), pl.col("action_card").cast(pl.String)).agg(
        pl.len().alias("n"), (pl.col("winner") == pl.col("revealer")).sum().alias("w")))
    schema = {"action_card": pl.String, "n": pl.Int64, "rate": pl.Float64, "rest_rate": pl.Float64,
              "diff": pl.Float64, "lo": pl.Float64, "hi": pl.Float64}
    if per.height == 0:
        return pl.DataFrame(schema=schema)
    order = {c: i for i, c in enumerate(cards.ACTION_NAMES)}
    names = sorted(per["action_card"].unique().to_list(), key=lambda c: (order.get(c, len(order)), c))
    games, gi = np.unique(per["game"].to_numpy(), return_inverse=True)
    ci = per["action_card"].replace_strict({c: i for i, c in enumerate(names)}, return_dtype=pl.Int64).to_numpy()
    n_in, w_in = np.zeros((len(names), games.size)), np.zeros((len(names), games.size))
    np.add.at(n_in, (ci, gi), per["n"].to_numpy().astype(np.float64))
    np.add.at(w_in, (ci, gi), per["w"].to_numpy().astype(np.float64))
    n_all, w_all = n_in.sum(axis=0), w_in.sum(axis=0)
    rows = []
    for j, card in enumerate(names):
        e = rate_difference(w_in[j], n_in[j], w_all, n_all, alpha=alpha / len(names), mover=True)
        n, rest = n_in[j].sum(), n_all.sum() - n_in[j].sum()
        rows.append({"action_card": card, "n": int(n), "rate": w_in[j].sum() / n if n else math.nan,
                     "rest_rate": (w_all.sum() - w_in[j].sum()) / rest if rest else math.nan,
                     "diff": e.value, "lo": e.lo, "hi": e.hi})
    return pl.DataFrame(rows, schema=schema)


def action_card_answer(tables: Mapping[str, pl.LazyFrame]) -> str:
    """Which action cards help (or hurt) their revealer win the hand's point card, in words: a card is
    named only when its difference from the other cards' reveals has a Bonferroni interval over the
    cards off 0 (:func:`action_card_differences`); otherwise the largest observed difference is given
    with that interval."""
    _by_card, base = revealer_table(tables)
    diffs = action_card_differences(tables).filter(pl.col("diff").is_finite() & pl.col("lo").is_finite())
    if diffs.height == 0 or not N.finite(base["rate"]):
        return ""
    label = f"simultaneous 95% CI over the {diffs.height} cards"
    above = diffs.filter(pl.col("lo") > 0).sort("diff", descending=True)
    below = diffs.filter(pl.col("hi") < 0).sort("diff")
    # the Turtle's reveals are left out (it ends the game unplayed), so the sentence says so: the summary's
    # table gives every card, the Turtle's too, and the pooled rate with them differs (21.4% against 22.2%)
    said = (f" After any action card other than the Turtle (which ends the game unplayed) its revealer wins the "
            f"hand's point card {pct(base)}")
    for frame, verb in ((above, "helps"), (below, "hurts")):
        if frame.height:
            r = frame.row(0, named=True)
            said += (f"; {r['action_card']} {verb} most, {N.points_ci(r['diff'], r['lo'], r['hi'], label=label)} "
                     f"against the other cards' reveals")
    if not above.height and not below.height:
        r = diffs.sort(pl.col("diff").abs(), descending=True).row(0, named=True)
        said += (f"; no card is detectably different from the other cards' reveals (the largest observed difference, "
                 f"{r['action_card']}: {N.points_ci(r['diff'], r['lo'], r['hi'], label=label)})")
    return said + "."


def figures_full_deck(tables: Mapping[str, pl.LazyFrame]) -> list[tuple[str, list, list]]:
    """Full Deck (F15): each action card's effect on its revealer's chance to win the hand's point card,
    as the answer reads it: the card's rate minus the other cards' reveals, with intervals that hold for
    every card at once (:func:`action_card_differences`; the figure showed pointwise intervals against the
    pooled rate before, which single out some card in most runs where none does anything)."""
    from cardsim.report import figures as F

    by_card, _ = revealer_table(tables)
    diffs = action_card_differences(tables)
    plot = diffs.filter(pl.col("diff").is_not_nan() & pl.col("lo").is_finite()).sort("diff")
    if plot.height == 0:
        return []
    k = diffs.height
    fig = F.forest(plot["action_card"].to_list(), plot["diff"].to_list(), plot["lo"].to_list(),
                   plot["hi"].to_list(), "Revealer's point-card win rate minus its rate after the other cards",
                   f"difference in the revealer's point-card win rate (simultaneous 95% intervals over the {k} "
                   f"cards, clustered by game)", percent=True)
    return [("Action cards",
             [(f"Which action cards help the player who reveals them win the hand's point card: each card's "
               f"rate against the rate after every other card (the Turtle ends the game unplayed); the "
               f"intervals hold for all {k} cards at once (Bonferroni), so a card whose interval misses 0 "
               f"differs detectably", fig)],
             [("Each card against the other cards: lift = rate minus rest_rate (the rate after every other "
               "card), with its simultaneous 95% interval over the cards",
               diffs.rename({"diff": "lift", "lo": "lo_simultaneous", "hi": "hi_simultaneous"})),
              ("The revealer's point-card win rate in the hand, by action card (pointwise 95% Wilson)",
               by_card)])]
