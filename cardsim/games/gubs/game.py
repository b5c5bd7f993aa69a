"""Gubs' face: variants, knobs, tables, trace decoding and summaries (G1-G5)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from cardsim.errors import PolicyError, ScenarioError
from cardsim.frames import column, const, pick
from cardsim.games.base import Game, Knob, Setup, Variant
from cardsim.games.gubs import cards as C
from cardsim.games.gubs import engine as E
from cardsim.games.gubs import rules as R
from cardsim.games.gubs.policies import POLICIES
from cardsim.policies import kernel_namespace
from cardsim.report import numbers as N
from cardsim.stats import (
    Estimate,
    cluster_layout,
    collect_all,
    effective_size,
    mean_exprs,
    rate_difference,
    wilson_exprs,
)
from cardsim.windows import game_windows, kept_for_frames

DECISIONS = {
    "draw": "seat, peek, pub, hand, params, rng",
    "play": "seat, acts, nacts, pub, hand, params, rng",
    "respond": "seat, ann, opts, nopts, pub, hand, params, rng",
    "pick": "seat, purpose, opts, nopts, pub, hand, params, rng",
}

GAME_COLUMNS = {
    "game": "global game index",
    "players": "players in the game (2-6)",
    "finished": "the third Letter was drawn (false: cut at max_turns)",
    "winner": "winning seat (-1: a shared win or an unfinished game)",
    "winners": "bitmask of the winning seats (bit s = seat s; 0 when unfinished)",
    "shared": "the win is shared by tied players (G5: same score, no Elder, same hand size)",
    "tie_break": "G5 tie-break that decided: none, elder, hand (fewest cards), shared, unfinished",
    "turns": "player turns taken (a round is `players` turns)",
    **{f"score_s{s}": f"Free + Protected Gubs of seat {s} at the end (null: no seat {s})" for s in range(C.MAXS)},
    **{f"hand_s{s}": f"cards in seat {s}'s hand at the end (null: no seat {s})" for s in range(C.MAXS)},
    "letters_flopped": "Letters sent back into the deck by Flop Boat (or Cricket Song as one)",
    "interrupts": "interrupt cards played (Feather, Blindfold, Flop Boat, Cricket Song as one)",
    "events": "Events (not Letters) that acted",
    "skips": "draws skipped (G3)",
    "deck_left": "cards left in the deck at the end",
    "elder_seat": "seat with the Esteemed Elder in play at the end (-1: none)",
    "play_caps": "turns whose play phase was cut at max_plays (0 for every built-in policy in practice)",
}
CARD_COLUMNS = {
    "game": "global game index",
    "seat": "seat",
    "card": "card name as the sheet writes it",
    "drawn": "copies the seat took from the deck (opening hand, draws, Plague redraws; drawn Events too)",
    "played": "copies the seat played (as its own play, as an interrupt answer or to save its hand)",
}

CHOICES = {
    "stolen_barricades": ("return", "discard", "move"),
    "thief_to": ("play", "hand"),
    "thief_targets": ("any", "unprotected"),
    "cure_takes": ("any", "gub"),
    "plague_redraw": ("same", "three", "none"),
    "plague_shuffle": ("insert", "shuffle"),
    "letter_placement": ("thirds", "shuffled"),
}


class Gubs(Game):
    name = "gubs"
    title = "Gubs: A Game of Wit and Luck"
    rules_version = 1
    unit = "game"
    unit_table = "games"
    variants = (Variant("standard", "the 70-card game, 2-6 players, seat 0 starts", 2, 6, 2),)
    knobs = (
        Knob("remove_cards", (), "cards to take out of the deck: each entry removes one copy "
             "(list a name twice to remove two); e.g. an assumed card you do not own",
             kind="names", choices=C.COUNTABLE),
        Knob("add_cards", (), "cards to add to the deck: each entry adds one copy", kind="names",
             choices=C.COUNTABLE),
        Knob("assumed_events", True, "include the three Events whose effects are assumed (Dangerous "
             "Alchemy, Traveling Merchant, Rumor of Wasps)", kind="bool"),
        Knob("barricade_stack", True, "a Barricade may go on an already Protected Gub (seed 001: "
             "Barricades stack); false: only on a Free Gub", kind="bool"),
        Knob("toad_rider_destroys", True, "assumed: a Toad Rider may instead destroy any Barricade "
             "in play", kind="bool"),
        Knob("lightning_hand", True, "assumed: Lightning may instead discard an opponent's hand",
             kind="bool"),
        Knob("stolen_barricades", "return", "Barricades on a Gub taken by Super Lure or Smahl Thief: "
             "return to the victim's hand (GUBS_agent), discard, or move with the Gub",
             kind="choice", choices=CHOICES["stolen_barricades"]),
        Knob("thief_to", "play", "where a Gub stolen by Smahl Thief goes: into play on the thief's "
             "side, or into the thief's hand (GUBS_agent)", kind="choice", choices=CHOICES["thief_to"]),
        Knob("thief_targets", "any", "Gubs Smahl Thief may steal: any (Free, Protected, under a Sud "
             "Spout) or unprotected (Free or under a Sud Spout)", kind="choice",
             choices=CHOICES["thief_targets"]),
        Knob("ring_exact", True, "a Ring traps exactly its number of Free Gubs (the Single Ring text "
             "says exactly one); false: up to that number", kind="bool"),
        Knob("cure_takes", "any", "what Age-Old Cure takes from the discard pile: any card but the "
             "Elder and Events (the rules reference), or only a Gub (GUBS_agent)", kind="choice",
             choices=CHOICES["cure_takes"]),
        Knob("plague_redraw", "same", "new hands after the Gargok Plague: as many cards as the hand "
             "had, three, or none (GUBS_agent)", kind="choice", choices=CHOICES["plague_redraw"]),
        Knob("plague_shuffle", "insert", "how Plague hands go into the deck: each card at a random "
             "place (Letters keep their thirds), or the whole deck shuffled", kind="choice",
             choices=CHOICES["plague_shuffle"]),
        Knob("letter_placement", "thirds", "G2: one Letter in each third of the deck, or shuffled "
             "anywhere", kind="choice", choices=CHOICES["letter_placement"]),
        Knob("hand_limit", 8, "cards a hand may hold at the end of its turn (G3)", lo=1, hi=60),
        Knob("hand_size", 3, "cards dealt to each player (G2)", lo=1, hi=10),
        Knob("max_turns", 2000, "player turns after which a game is cut and counted unfinished",
             lo=1, hi=1_000_000),
        Knob("max_plays", 200, "plays after which a turn's play phase is cut (a safety against endless "
             "turns, e.g. two Age-Old Cures taking each other back; counted in play_caps)", lo=1, hi=100_000),
    )
    policies = POLICIES
    decisions = DECISIONS
    dispatchers = {"draw": "decide_draw", "play": "decide_play", "respond": "decide_respond",
                   "pick": "decide_pick"}
    columns = {"games": GAME_COLUMNS, "cards": CARD_COLUMNS}
    default_chunk = 20000
    kernel_module = "cardsim.games.gubs.rules"
    default_policy = "simple"
    bench_count = 20000
    minimal_scale = 4
    trace_batch = 20  # a game traces about a thousand events

    # -- set-up --------------------------------------------------------------------------
    def counts(self, setup: Setup) -> np.ndarray:
        """int32[NK]: copies of each card in the game after the count knobs."""
        return C.deck_counts(tuple(setup.knob("remove_cards")), tuple(setup.knob("add_cards")),
                             bool(setup.knob("assumed_events")))

    def check_setup(self, setup: Setup) -> None:
        cnt = self.counts(setup)
        for k, name in enumerate(C.CARD_NAMES):
            if cnt[k] < 0:
                raise ScenarioError(f"rules.remove_cards removes more copies of {name!r} than the deck has "
                                    f"({C.STANDARD_COUNTS[k]}, after assumed_events)")
            if cnt[k] > C.MAX_COPIES:
                raise ScenarioError(f"rules.add_cards: at most {C.MAX_COPIES} copies of {name!r} are allowed")
        n = setup.players
        if cnt[C.GUB] < n:
            raise ScenarioError(f"rules.remove_cards leaves {cnt[C.GUB]} Gubs; G2 needs one per player ({n})")
        if cnt[C.ELDER] > 1:
            raise ScenarioError("rules.add_cards: there is one Esteemed Elder (G1)")
        if cnt[C.GUB] + cnt[C.ELDER] > C.MAX_GUBS:
            raise ScenarioError(f"rules.add_cards: at most {C.MAX_GUBS} Gub cards in all")
        if cnt[C.RING1] + cnt[C.RING2] + cnt[C.RING3] > C.MAX_RINGS:
            raise ScenarioError(f"rules.add_cards: at most {C.MAX_RINGS} Ring cards in all")
        if int(cnt.sum()) > C.DECK_MAX - 10:
            raise ScenarioError(f"rules.add_cards: at most {C.DECK_MAX - 10} cards in all")
        dealable = int(sum(cnt[k] for k in range(C.NK) if C.CARD_TYPE[k] < C.T_EVENT)) - n
        if dealable < n * setup.knob("hand_size"):
            raise ScenarioError(f"rules.hand_size = {setup.knob('hand_size')}: the deck holds only {dealable} "
                                f"cards that are not Events to deal to {n} players")

    def knob_array(self, setup: Setup) -> np.ndarray:
        """int32[NKNOB]: the knob values as the kernel reads them."""
        k = setup.knob
        kn = np.zeros(C.NKNOB, np.int32)
        kn[C.K_STACK] = int(k("barricade_stack"))
        kn[C.K_TOAD] = int(k("toad_rider_destroys"))
        kn[C.K_LHAND] = int(k("lightning_hand"))
        kn[C.K_STOLEN] = CHOICES["stolen_barricades"].index(k("stolen_barricades"))
        kn[C.K_THIEF_TO] = CHOICES["thief_to"].index(k("thief_to"))
        kn[C.K_THIEF_ANY] = int(k("thief_targets") == "any")
        kn[C.K_RING_EXACT] = int(k("ring_exact"))
        kn[C.K_CURE_ANY] = int(k("cure_takes") == "any")
        kn[C.K_REDRAW] = CHOICES["plague_redraw"].index(k("plague_redraw"))
        kn[C.K_PSHUFFLE] = int(k("plague_shuffle") == "shuffle")
        kn[C.K_HAND_LIMIT] = int(k("hand_limit"))
        kn[C.K_HAND_SIZE] = int(k("hand_size"))
        kn[C.K_MAX_TURNS] = int(k("max_turns"))
        kn[C.K_LETTERS] = CHOICES["letter_placement"].index(k("letter_placement"))
        kn[C.K_MAX_PLAYS] = int(k("max_plays"))
        return kn

    # -- the kernel call -----------------------------------------------------------------
    def _run(self, setup: Setup, key: int, start: int, count: int, debug: bool, trace: bool,
             stack: np.ndarray | None = None):
        ns = kernel_namespace(self, setup.plugins)
        n = setup.players
        cnt = self.counts(setup)
        kn = self.knob_array(setup)
        stack = np.zeros(0, np.int32) if stack is None else self._check_stack(np.asarray(stack, np.int32), cnt, n)
        evcap = max(1, count * 2000) if trace else 1
        while True:
            ev = np.zeros((evcap, 8), np.int64)
            evn = np.zeros(1, np.int64)
            gout = np.zeros((count, C.NG), np.int32)
            cap = max(1, count * n * C.NK)  # the card table's columns (rules.card_rows)
            cb = (np.empty(cap, np.int64), np.empty(cap, np.int8), np.empty(cap, np.uint8), np.empty(cap, np.int16),
                  np.empty(cap, np.int16))
            err = np.zeros(6, np.int64)
            args = (np.uint64(key), start, count, n, setup.pids(), setup.params(), cnt, kn, stack)
            try:
                if debug or trace:
                    rows = ns["simulate"](*args, debug, trace, ev, evn, gout, cb, err)
                else:
                    rows = ns["LEAN"][self._one(setup)](*args, ev, evn, gout, cb, err)
            except (ValueError, AssertionError):
                raise_kernel_error(setup, err)
                raise
            if trace and evn[0] > evcap:
                evcap = int(evn[0])
                continue
            return gout, tuple(c[:rows] for c in cb), ev[: evn[0]]

    @staticmethod
    def _one(setup: Setup) -> int:
        """The built-in policy every seat plays (the kernel compiled for it, rules.lean), or ANY."""
        shared = set(setup.pids())
        one = int(shared.pop()) if len(shared) == 1 else R.ANY
        return one if one in R.LEAN else R.ANY

    @staticmethod
    def _check_stack(stack: np.ndarray, cnt: np.ndarray, n: int) -> np.ndarray:
        want = cnt.copy()
        want[C.GUB] -= n
        got = np.bincount(stack, minlength=C.NK) if stack.size else np.zeros(C.NK, np.int64)
        if stack.size and (stack.min() < 0 or stack.max() >= C.NK or not np.array_equal(got, want)):
            raise ScenarioError("a stacked deck must hold every card of the game once, minus one Gub per player")
        return stack

    def simulate_chunk(self, setup: Setup, key: int, start: int, count: int,
                       debug: bool = False) -> dict[str, pl.DataFrame]:
        gout, cb, _ = self._run(setup, key, start, count, debug, False)
        return {"games": games_frame(start, setup.players, gout), "cards": cards_frame(cb)}

    def bench_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        self._run(setup, key, start, count, False, False)
        return count

    def minimal_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        E.minimal_games(np.uint64(key), start, count, setup.players, self.counts(setup), self.knob_array(setup))
        return count

    # -- trace ---------------------------------------------------------------------------
    def trace(self, setup: Setup, key: int, start: int, count: int,
              stack: np.ndarray | None = None) -> list[dict[str, Any]]:
        *_, ev = self._run(setup, key, start, count, True, True, stack)
        return decode_events(ev)

    def describe_event(self, event: Mapping[str, Any]) -> str:
        return describe(event)

    # -- analysis ------------------------------------------------------------------------
    def outcomes(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> pl.LazyFrame:
        return outcomes(tables["games"], setup.players)

    def summarize(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
        return summarize(tables, setup.players)

    def length_unit(self, setup: Setup) -> str:
        return "turns"

    def headline(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
        first = starting_seat(tables["games"], setup.players)
        if first is None:
            return f"With {setup.players} players no game finished: nothing to say about seats or cards."
        fair = 1 / setup.players
        edge = ("no detectable edge over" if first["lo"] <= fair <= first["hi"] else
                f"{N.points(abs(first['rate'] - fair), sign=False)} {'above' if first['rate'] > fair else 'below'}")
        seats = (f"With {setup.players} players the starting seat wins "
                 f"{N.pct_ci(first['rate'], first['lo'], first['hi'], ref=fair)} "
                 f"of {first['n']:,} finished games: {edge} the fair share of {N.pct(fair)}.")
        sums = impact_sums(tables, setup.players)
        # a card every seat drew (Gub, in a short run) has no seats without it to compare with: lift NaN
        impact = impact_table(sums).filter(pl.col("n_drew") >= 30, pl.col("lift").is_finite()).sort(
            "lift", descending=True)
        if not impact.height:  # a small run: no card was drawn by 30 seats of finished games
            return seats + (" Too few games to compare cards (a card is compared once 30 seats of finished games "
                            "drew it and some did not).")
        # the largest gain and loss are picked from the k cards compared: Bonferroni intervals over them
        k = impact.height
        top, low = (sums.lift(impact.row(i, named=True)["card"], 0.05 / k, mover=True) for i in (0, k - 1))
        label = f"simultaneous 95% CI over the {k} cards"
        return (f"{seats} Seats that draw {impact['card'][0]} win {N.points_ci(top.value, top.lo, top.hi, label=label)} "
                f"against seats that do not (the largest observed gain), seats that draw {impact['card'][-1]} win "
                f"{N.points_ci(low.value, low.lo, low.hi, label=label)} (the largest observed loss); a card's "
                f"association with winning, not its isolated effect.")

    def figures(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, list, list]]:
        from cardsim.report import figures as F

        sums = impact_sums(tables, setup.players)
        t = impact_table(sums).filter(pl.col("n_drew") > 0, pl.col("lift").is_finite()).sort("lift")
        # a figure of k cards is read as a ranking: intervals that hold for every card at once (Bonferroni,
        # Wilson combined by MOVER as the answer's), so a card off 0 is not one of the k by chance
        k = t.height
        sim = [sums.lift(c, 0.05 / k, mover=True) for c in t["card"].to_list()]
        fig = F.forest(t["card"].to_list(), t["lift"].to_list(), [e.lo for e in sim], [e.hi for e in sim],
                       "Card impact: win rate of seats that drew it minus the rest",
                       f"difference in win rate (simultaneous 95% intervals over the {k} cards, clustered by game)",
                       percent=True)
        return [("Card power ranking",
                 [("Win rate of seats that drew each card minus seats that did not (a card's association "
                   f"with winning, not its isolated effect); the intervals hold for all {k} cards at once", fig)],
                 [("Card impact (pointwise 95% intervals: each for its own row)", t.sort("lift", descending=True))])]


def raise_kernel_error(setup: Setup, err: np.ndarray) -> None:
    """Turn the kernel's error report into PolicyError / AssertionError (no return when set)."""
    g, a, d, value, kind, nopts = (int(x) for x in err)
    if kind == E.E_POLICY:
        legal = {E.D_DRAW: "1 (draw) or 0 (skip)", E.D_PLAY: f"an index into acts[:{nopts}] (0 = stop)",
                 E.D_RESPOND: f"an index into opts[:{nopts}] (0 = pass)",
                 E.D_PICK: f"an index into opts[:{nopts}]"}[d]
        who = setup.seats[a].plugin or setup.seats[a].name if a < len(setup.seats) else "?"
        raise PolicyError(f"seat {a} ({who}) returned {value} at decision '{E.DECISION_NAMES[d]}' in game {g}; "
                          f"legal: {legal}")
    if kind == E.E_CONSERVE:
        what = ({-1: "a hand or deck counter", -2: "a per-seat summary of the table"}[a] if a < 0
                else f"card {C.card_name(a - 1)!r}")
        raise AssertionError(f"Gubs card conservation broken in game {g}: {what} is off")


# -- frames -----------------------------------------------------------------------------
def games_frame(start: int, n: int, g: np.ndarray) -> pl.DataFrame:
    count = g.shape[0]
    fin = g[:, C.G_FINISHED] == 1
    winners = g[:, C.G_WINNERS]
    nwin = np.zeros(count, np.int64)
    for s in range(n):
        nwin += (winners >> s) & 1
    cols: dict[str, pl.Series] = {
        "game": pl.Series(np.arange(start, start + count), dtype=pl.Int64),
        "players": pl.Series(np.full(count, n), dtype=pl.Int8),
        "finished": pl.Series(fin),
        "winner": column(g[:, C.G_WINNER], pl.Int8),
        "winners": column(winners, pl.Int16),
        "shared": pl.Series(fin & (nwin > 1)),
        "tie_break": pick(_TIE_BREAKS, g[:, C.G_TB]),
        "turns": column(g[:, C.G_TURNS], pl.Int32),
    }
    for s in range(C.MAXS):
        v = g[:, C.G_SCORE + s]
        cols[f"score_s{s}"] = column(v, pl.Int16) if s < n else const(count, None, pl.Int16)
    for s in range(C.MAXS):
        v = g[:, C.G_HAND + s]
        cols[f"hand_s{s}"] = column(v, pl.Int16) if s < n else const(count, None, pl.Int16)
    cols |= {
        "letters_flopped": column(g[:, C.G_FLOPPED], pl.Int16),
        "interrupts": column(g[:, C.G_INTERRUPTS], pl.Int16),
        "events": column(g[:, C.G_EVENTS], pl.Int16),
        "skips": column(g[:, C.G_SKIPS], pl.Int16),
        "deck_left": column(g[:, C.G_DECK], pl.Int16),
        "elder_seat": column(g[:, C.G_ELDER], pl.Int8),
        "play_caps": column(g[:, C.G_PLAYCAPS], pl.Int16),
    }
    return pl.DataFrame(cols)


_NAMES = pl.Series("card", C.CARD_NAMES, dtype=pl.Enum(list(C.CARD_NAMES)))
_TIE_BREAKS = pl.Series("tie_break", C.TB_NAMES, dtype=pl.String)


def cards_frame(cb: tuple[np.ndarray, ...]) -> pl.DataFrame:
    """The card table from the kernel's columns (``rules.card_rows``: already in the columns' dtypes)."""
    game, seat, card, drawn, played = cb
    return pl.DataFrame({
        "game": pl.Series(game),
        "seat": pl.Series(seat),
        "card": pick(_NAMES, card),
        "drawn": pl.Series(drawn),
        "played": pl.Series(played),
    })


# -- analysis ----------------------------------------------------------------------------
def starting_seat(games: pl.LazyFrame, n: int) -> dict | None:
    """Seat 0's win rate over the finished games (``rate``, ``lo``, ``hi``, ``n``; None when none finished),
    its interval the balance table's first-player advantage's plus the fair share: a finished game's win
    shares sum to 1, so the advantage is the rate less 1/n, game by game. The answer once gave Wilson's
    interval of the rate here, and at the edge it and the table's disagreed (33.5-46.9% against a fair
    33.3%, the table's advantage -0.1 to +13.7 points)."""
    from cardsim.metrics import advantage_range, advantage_row

    w = outcomes(games, n).filter(pl.col("seat") == 0, pl.col("win").is_not_null()).select("win").collect()
    if not w.height:
        return None
    x = w["win"].to_numpy() - 1 / n
    row = advantage_row("first-player advantage", x, "", advantage_range(np.ones(1), np.full(1, n)))
    return {"rate": row["value"] + 1 / n, "lo": row["lo"] + 1 / n, "hi": row["hi"] + 1 / n, "n": row["n"]}


def outcomes(games: pl.LazyFrame, n: int) -> pl.LazyFrame:
    seats = pl.LazyFrame({"seat": list(range(n))}, schema={"seat": pl.Int8})
    nwin = sum(((pl.col("winners") // (1 << s)) % 2) for s in range(n))
    mine = (pl.col("winners") // (2 ** pl.col("seat").cast(pl.Int64))) % 2
    return games.select("game", "finished", "winners", "turns").join(seats, how="cross").select(
        "game", "seat",
        pl.when(~pl.col("finished")).then(None).otherwise(mine.cast(pl.Float64) / nwin).alias("win"),
        pl.col("turns").alias("length"),
        (pl.col("seat") == 0).alias("first"),  # seat 0 takes the first turn
    )


def summarize(tables: Mapping[str, pl.LazyFrame], n: int) -> list[tuple[str, pl.DataFrame]]:
    games = tables["games"]
    oc = outcomes(games, n).filter(pl.col("win").is_not_null())
    fin = games.filter(pl.col("finished"))
    # every one a count (rounds: turns / players): at least Garwood's interval at the effective count, never
    # 0-0 where no game showed one (skipped draws under `simple` still count a draw from an empty deck)
    lengths = [fin.select(pl.lit(name).alias("per_game"), *mean_exprs(col, count=True)) for name, col in (
        ("turns", "turns"), ("letters_flopped", "letters_flopped"), ("interrupts", "interrupts"),
        ("skipped_draws", "skips"))]
    scores = [fin.select(pl.lit(s).alias("seat").cast(pl.Int8), *mean_exprs(f"score_s{s}", "", count=True))
              for s in range(n)]
    # lazy queries collected at once on the streaming engine: the games table is not read whole
    seat, unfinished, tb, *rest = collect_all([
        oc.group_by("seat").agg(pl.len().alias("n"), pl.col("win").sum().alias("wins"))
        .sort("seat").with_columns(wilson_exprs(pl.col("wins"), pl.col("n"))),
        games.select(pl.len().alias("n"), (~pl.col("finished")).sum().alias("unfinished")),
        games.group_by("tie_break").agg(pl.len().alias("k")),
        *lengths, *scores,
    ])
    out: list[tuple[str, pl.DataFrame]] = []
    out.append(("Win rate by seat (seat 0 starts; a win shared by k counts 1/k), 95% Wilson", seat))
    per_game = rest[:len(lengths)]
    rounds = per_game[0].with_columns(pl.lit("rounds").alias("per_game"), *(pl.col(c) / n for c in ("mean", "se", "lo", "hi")))
    out.append((f"Game length and events per finished game (mean, se, 95% CI; {int(unfinished['unfinished'][0]):,} "
                "unfinished games left out)", pl.concat([per_game[0], rounds, *per_game[1:]])))
    tb = (tb.with_columns(pl.lit(int(unfinished["n"][0])).alias("n"))
          .sort("tie_break").with_columns(wilson_exprs(pl.col("k"), pl.col("n"))))
    out.append(("How games were decided (G5 tie-breaks), 95% Wilson", tb))
    out.append(("Final score (Free + Protected Gubs) by seat, mean and 95% CI", pl.concat(rest[len(lengths):])))
    out.append(("Card impact (an association, not a causal effect): draws, plays, win rate of seats that drew the "
                "card vs not (95% Wilson), and their difference (lift) with a 95% interval clustered by game",
                card_impact(tables, n)))
    return out


#: games a window of :func:`card_impact` (~40 card rows a game at 2 players): a summary of a 3M-game run
#: peaked at 0.3 GiB with it, 0.5 GiB with 65,536
IMPACT_WINDOW = 1 << 14


def card_impact(tables: Mapping[str, pl.LazyFrame], n: int) -> pl.DataFrame:
    """:func:`impact_table` of :func:`impact_sums`."""
    return impact_table(impact_sums(tables, n))


@dataclass(frozen=True)
class ImpactSums:
    """What :func:`card_impact` reads from a run: per card, times drawn and played and rows in the
    cards table; per cluster (a game, or a block of games) the finished seats and their wins, in all
    (``n_all``, ``w_all``) and among the seats that drew each card (``n_in``, ``w_in``: cards x clusters)."""

    drawn: np.ndarray
    played: np.ndarray
    rows_of: np.ndarray
    n_all: np.ndarray
    w_all: np.ndarray
    n_in: np.ndarray
    w_in: np.ndarray

    def lift(self, card: str, alpha: float = 0.05, mover: bool = False) -> Estimate:
        """The card's lift (drew minus not) with its interval clustered by game at level ``alpha``
        (``0.05 / k``: Bonferroni over k cards; there ``mover``, Wilson intervals combined, which keep
        a far level's skew: :func:`cardsim.stats.rate_difference`)."""
        k = C.CARD_NAMES.index(card)
        keep = self.n_all > 0  # the clusters with a finished game
        return rate_difference(self.w_in[k, keep], self.n_in[k, keep], self.w_all[keep], self.n_all[keep],
                               alpha=alpha, mover=mover)


@kept_for_frames  # a report's answer, figure and summary ask for the same sums (about 1 s per 500,000 games)
def impact_sums(tables: Mapping[str, pl.LazyFrame], n: int) -> ImpactSums:
    """Per card: times drawn and played (all games) and, over finished games, the win rate
    of seats that drew it vs seats that did not (shared wins count 1/k), and their difference
    (``lift``) with its interval clustered by game (the seats of a game share it; ``lift_deff``
    is the design effect against two independent binomial rates). Beyond ``stats.CLUSTERS``
    games a cluster is a block of consecutive games (``stats.cluster_block``).

    The games and cards tables are read a window of whole games at a time
    (:func:`cardsim.windows.game_windows`): a window's seats' outcomes are laid in an array by
    (game, seat), each card row of a seat that drew it looks its win up there (no join over the
    run), and the sums a cluster and card (seats, wins) are added into arrays of cards x clusters.
    Memory: a window and those arrays, whatever the run's size. The summary names cards as text
    (the table stores them as an Enum, cheap to build and to write)."""
    nk = len(C.CARD_NAMES)
    block, nc = cluster_layout(tables["games"], "game")
    drawn, played = np.zeros(nk, np.int64), np.zeros(nk, np.int64)
    rows_of = np.zeros(nk, np.int64)  # a card's rows in the cards table: the cards a run never saw are left out
    n_all, w_all = np.zeros(nc), np.zeros(nc)  # finished seats and their wins, a cluster
    n_in, w_in = np.zeros(nk * nc), np.zeros(nk * nc)  # the same for seats that drew a card, a card and cluster
    cols = {"games": ["finished", "winners", "turns"], "cards": ["seat", "card", "drawn", "played"]}
    for w in game_windows(tables, ["games", "cards"], cols, rows=IMPACT_WINDOW):
        g0 = int(w["games"]["game"][0])
        span = int(w["games"]["game"][-1]) - g0 + 1
        oc = outcomes(w["games"].lazy(), n).filter(pl.col("win").is_not_null()).collect()
        og, win = oc["game"].to_numpy(), oc["win"].to_numpy()
        cl = og // block
        n_all += np.bincount(cl, minlength=nc)
        w_all += np.bincount(cl, win, minlength=nc)
        seat_win = np.full(span * n, np.nan)  # a seat's share of its game's win (NaN: not finished)
        seat_win[(og - g0) * n + oc["seat"].to_numpy()] = win
        c = w["cards"]
        card = c["card"].to_physical().to_numpy().astype(np.int64)
        rows_of += np.bincount(card, minlength=nk)
        drawn += np.bincount(card, c["drawn"].to_numpy(), minlength=nk).astype(np.int64)
        played += np.bincount(card, c["played"].to_numpy(), minlength=nk).astype(np.int64)
        cg = c["game"].to_numpy()
        cw = seat_win[(cg - g0) * n + c["seat"].to_numpy()]
        drew = (c["drawn"].to_numpy() > 0) & ~np.isnan(cw)
        key = card[drew] * nc + cg[drew] // block
        n_in += np.bincount(key, minlength=nk * nc)
        w_in += np.bincount(key, cw[drew], minlength=nk * nc)
    arrays = (drawn, played, rows_of, n_all, w_all, n_in.reshape(nk, nc), w_in.reshape(nk, nc))
    for a in arrays:  # kept for the next call (kept_for_frames): nobody may change them
        a.flags.writeable = False
    return ImpactSums(*arrays)


def impact_table(sums: ImpactSums) -> pl.DataFrame:
    """:func:`card_impact`'s table from its sums: one row per card the run saw."""
    drawn, played, rows_of, n_all, w_all, n_in, w_in = (
        sums.drawn, sums.played, sums.rows_of, sums.n_all, sums.w_all, sums.n_in, sums.w_in)
    n_drew, wins_drew = n_in.sum(axis=1), w_in.sum(axis=1)
    big_n, big_w = n_all.sum(), w_all.sum()
    seen = rows_of > 0
    neff_drew = np.array([effective_size(n_in[k], w_in[k]) for k in np.flatnonzero(seen)])
    neff_not = np.array([effective_size(n_all - n_in[k], w_all - w_in[k]) for k in np.flatnonzero(seen)])
    t = pl.DataFrame({"card": list(C.CARD_NAMES), "drawn": drawn, "played": played,
                      "n_drew": n_drew.astype(np.int64), "wins_drew": wins_drew}).filter(rows_of > 0).with_columns(
        (pl.lit(int(big_n)) - pl.col("n_drew")).alias("n_not"),
        (pl.lit(float(big_w)) - pl.col("wins_drew")).alias("wins_not"),
    ).with_columns(
        # the seats of a game are one cluster: Wilson at the effective size (clustered design effect)
        pl.Series("_neff_drew", neff_drew), pl.Series("_neff_not", neff_not),
    ).with_columns(
        wilson_exprs(pl.col("wins_drew") / pl.col("n_drew") * pl.col("_neff_drew"), pl.col("_neff_drew"), "drew_"),
    ).with_columns(
        wilson_exprs(pl.col("wins_not") / pl.col("n_not") * pl.col("_neff_not"), pl.col("_neff_not"), "not_"),
    ).drop("_neff_drew", "_neff_not").with_columns((pl.col("drew_rate") - pl.col("not_rate")).alias("lift"))
    rows = []
    for k in np.flatnonzero(n_drew > 0):
        e = sums.lift(C.CARD_NAMES[k], mover=True)  # Wilson by MOVER: a t interval shrank where a side had no win
        rows.append({"card": C.CARD_NAMES[k], "lift_lo": e.lo, "lift_hi": e.hi, "lift_deff": e.deff})
    intervals = pl.DataFrame(rows, schema={"card": pl.String, "lift_lo": pl.Float64, "lift_hi": pl.Float64,
                                           "lift_deff": pl.Float64})
    return t.join(intervals, on="card", how="left", maintain_order="left")


# -- trace events --------------------------------------------------------------------------
EVENT_NAMES = {
    C.EV_START: "start_gub", C.EV_DEAL: "deal", C.EV_REDEAL: "event_dealt_back", C.EV_TURN: "turn",
    C.EV_DRAW: "draw", C.EV_SKIP: "skip_draw", C.EV_ASK: "interrupt_asked", C.EV_ANSWER: "interrupt",
    C.EV_PASS: "interrupt_pass", C.EV_CANCEL: "cancelled", C.EV_FLOP: "flop_boat", C.EV_EVENT: "event",
    C.EV_LETTER: "letter", C.EV_PLAY: "play", C.EV_MOVE: "gub_moved", C.EV_TO_DISCARD: "to_discard",
    C.EV_TO_HAND: "to_hand", C.EV_TO_DECK: "to_deck", C.EV_TRAPPED: "trapped", C.EV_FREED: "freed",
    C.EV_SAVE: "plague_save", C.EV_KEEP: "merchant_keep", C.EV_SEEN: "scout_seen", C.EV_DISCARD: "discard",
    C.EV_SCORE: "score", C.EV_END: "game_end", C.EV_SHUFFLE: "deck_shuffled", C.EV_PROTECTED: "protected",
    C.EV_DECK: "deck", C.EV_GUB_IN: "gub_in_play", C.EV_RING_IN: "ring_in_play",
}
_RINGS = (C.RING1, C.RING2, C.RING3)


def _ring_targets(aux: int) -> dict[str, int]:
    return {f"seat{s}": (aux >> (2 * s)) & 3 for s in range(C.MAXS) if (aux >> (2 * s)) & 3}


def _place(out: dict[str, Any], card: int, where: int, place: int) -> None:
    """A card that left play says where it sat: its Gub slot, or the ring id of a Ring card."""
    if where == C.FROM_PLAY and place >= 0:
        out["ring" if card in _RINGS else "slot"] = place


def decode_events(rows: np.ndarray) -> list[dict[str, Any]]:
    """Trace rows as events (:func:`decode_event`); the EV_CARDS rows after a ``deck`` or
    ``deck_shuffled`` row fill its ``cards`` (top first)."""
    out: list[dict[str, Any]] = []
    for row in rows:
        if int(row[1]) == C.EV_CARDS:
            out[-1]["cards"].extend(C.card_name(int(k)) for k in row[3:] if k >= 0)
        else:
            out.append(decode_event(row))
    return out


def decode_event(row: np.ndarray) -> dict[str, Any]:
    """One trace row as a dict: ``event`` names the kind, cards are named as the sheet writes
    them; the fields of every event are documented in ``trace_schema.EVENTS``."""
    g, kind, seat, a, b, c, d, e = (int(x) for x in row)
    cn = C.card_name
    out: dict[str, Any] = {"event": EVENT_NAMES.get(kind, f"?{kind}"), "game": g}
    if kind in (C.EV_START, C.EV_GUB_IN):
        out |= {"seat": seat, "card": cn(a), "slot": b}
    elif kind == C.EV_RING_IN:
        out |= {"seat": seat, "card": cn(a), "ring": b}
    elif kind == C.EV_DECK:
        out["cards"] = []
    elif kind in (C.EV_DEAL, C.EV_DRAW):
        out |= {"seat": seat, "card": cn(a)}
        if kind == C.EV_DRAW:
            out["deck_left"] = b
    elif kind == C.EV_REDEAL:
        out |= {"seat": seat, "card": cn(a), "depth": b}
    elif kind == C.EV_TURN:
        out |= {"seat": seat, "turn": a, "letters": b, "deck": c}
    elif kind == C.EV_SKIP:
        out |= {"seat": seat}
    elif kind == C.EV_ASK:
        out |= {"seat": seat, "card": cn(a), "context": C.CTX_NAMES[b], "actor": c, "as": cn(d)}
    elif kind == C.EV_ANSWER:
        out |= {"seat": seat, "card": cn(a), "as": cn(b), "answers": cn(c), "actor": d, "context": C.CTX_NAMES[e]}
    elif kind == C.EV_PASS:
        out |= {"seat": seat, "card": cn(a), "context": C.CTX_NAMES[b]}
    elif kind == C.EV_CANCEL:
        out |= {"seat": seat, "card": cn(a), "by": b, "op": C.OP_NAMES[c]}
    elif kind == C.EV_FLOP:
        out |= {"seat": seat, "card": cn(a), "depth": b, "drawer": c}
    elif kind == C.EV_EVENT:
        out |= {"seat": seat, "card": cn(a)}
    elif kind == C.EV_LETTER:
        out |= {"seat": seat, "card": cn(a), "letters": b}
    elif kind == C.EV_PLAY:
        op = a
        out |= {"seat": seat, "op": C.OP_NAMES[op], "card": cn(b)}
        if b == C.CRICKET and op != C.OP_STOP:
            out["as"] = cn(int(C.OP_AS[op]))
        if op == C.OP_RING:
            out["targets"] = _ring_targets(e)
        else:
            if c >= 0:
                out["target_seat"] = c
            if d >= 0:
                out["target_slot"] = d
            if op in (C.OP_UNMUSH, C.OP_UNBAR, C.OP_SPEAR_BAR, C.OP_CURE):
                out["target_card"] = cn(e)
            elif op == C.OP_FLUTE:
                out["ring"] = e
            elif op == C.OP_THIEF:
                out["target_state"] = ("free", "sud_spout", "protected")[e]
    elif kind == C.EV_MOVE:
        out |= {"from_seat": seat, "slot": a, "to_seat": b, "by": C.OP_NAMES[c]}
    elif kind == C.EV_TO_DISCARD:
        out |= {"seat": seat, "card": cn(a), "copies": b, "from": C.FROM_NAMES[c]}
        _place(out, a, c, d)
    elif kind == C.EV_TO_HAND:
        out |= {"seat": seat, "card": cn(a), "copies": b, "from": C.FROM_NAMES[c]}
        if c != C.FROM_DISCARD:
            out["from_seat"] = d
        _place(out, a, c, e)
    elif kind == C.EV_TO_DECK:
        out |= {"seat": seat, "card": cn(a), "depth": b, "from": C.FROM_NAMES[c]}
        _place(out, a, c, d)
    elif kind == C.EV_TRAPPED:
        out |= {"seat": seat, "slot": a, "trap": cn(b)}
        if c >= 0:
            out |= {"ring": c, "ring_side": d}
    elif kind == C.EV_FREED:
        out |= {"seat": seat, "slot": a, "trap": cn(b)}
        if c >= 0:
            out["ring"] = c
    elif kind == C.EV_PROTECTED:
        out |= {"seat": seat, "slot": a, "card": cn(b)}
    elif kind == C.EV_SAVE:
        out |= {"seat": seat, "card": cn(a), "as": cn(b)}
    elif kind == C.EV_KEEP:
        out |= {"seat": seat, "card": cn(a)}
    elif kind == C.EV_SEEN:
        out |= {"seat": seat, "card": cn(a)}
        out |= {"position": b, "where": "deck"} if c < 0 else {"copies": b, "where": f"hand of seat {c}"}
    elif kind == C.EV_DISCARD:
        out |= {"seat": seat, "card": cn(a)}
    elif kind == C.EV_SCORE:
        out |= {"seat": seat, "score": a, "hand": b, "elder": bool(c)}
    elif kind == C.EV_END:
        out |= {"winner": seat, "winners": [s for s in range(C.MAXS) if (a >> s) & 1],
                "tie_break": C.TB_NAMES[b], "turns": c, "letters_flopped": d, "finished": bool(e)}
    elif kind == C.EV_SHUFFLE:
        out |= {"deck": a, "cards": []}
    return out


def describe(e: Mapping[str, Any]) -> str:
    k = e["event"]
    s = e.get("seat")
    if k == "start_gub":
        return f"seat {s} starts with a Gub in play (slot {e['slot']})"
    if k == "deck":
        return f"the deck, top first: {', '.join(e['cards'])}"
    if k == "gub_in_play":
        return f"  {e['card']} enters play on seat {s}'s side (slot {e['slot']})"
    if k == "ring_in_play":
        return f"  {e['card']} (ring {e['ring']}) is placed on seat {s}'s side"
    if k == "deal":
        return f"seat {s} gets {e['card']}"
    if k == "event_dealt_back":
        return f"seat {s} was dealt {e['card']}: back into the deck at depth {e['depth']}"
    if k == "turn":
        return f"-- turn {e['turn']}: seat {s} (Letters out {e['letters']}, deck {e['deck']})"
    if k == "draw":
        return f"seat {s} draws {e['card']}"
    if k == "skip_draw":
        return f"seat {s} does not draw"
    if k == "interrupt_asked":
        return f"  seat {s} may answer {e['card']} ({e['context']})"
    if k == "interrupt":
        how = e["card"] if e["card"] == e["as"] else f"{e['card']} as {e['as']}"
        return f"  seat {s} answers {e['answers']} with {how}"
    if k == "interrupt_pass":
        return f"  seat {s} lets {e['card']} stand"
    if k == "cancelled":
        return f"  {e['card']} of seat {s} is cancelled"
    if k == "flop_boat":
        return f"  {e['card']} goes back into the deck at depth {e['depth']}"
    if k == "event":
        return f"EVENT {e['card']} (drawn by seat {s})"
    if k == "letter":
        return f"LETTER {e['card']} set aside ({e['letters']} of 3)"
    if k == "play":
        card = e["card"] + (f" as {e['as']}" if "as" in e else "")
        tgt = []
        if "targets" in e:
            tgt.append("on " + ", ".join(f"{v} of {k2}" for k2, v in e["targets"].items()))
        if "target_seat" in e:
            tgt.append(f"at seat {e['target_seat']}")
        if "target_slot" in e:
            tgt.append(f"slot {e['target_slot']}")
        if "target_card" in e:
            tgt.append(f"({e['target_card']})")
        if "ring" in e:
            tgt.append(f"ring {e['ring']}")
        return " ".join([f"seat {s} plays {card}: {e['op']}", *tgt])
    if k == "gub_moved":
        return f"  Gub in slot {e['slot']} moves from seat {e['from_seat']} to seat {e['to_seat']}"
    if k in ("to_discard", "to_hand", "to_deck"):
        src = e["from"] + (f", slot {e['slot']}" if "slot" in e else "") + (f", ring {e['ring']}" if "ring" in e else "")
        if k == "to_discard":
            return f"  {e['copies']} x {e['card']} of seat {s} to the discard pile (from {src})"
        if k == "to_hand":
            return f"  {e['copies']} x {e['card']} into seat {s}'s hand (from {src})"
        return f"  {e['card']} of seat {s} into the deck at depth {e['depth']} (from {src})"
    if k == "trapped":
        return f"  Gub in slot {e['slot']} (seat {s}) trapped by {e['trap']}"
    if k == "freed":
        return f"  Gub in slot {e['slot']} (seat {s}) freed from {e['trap']}" + (
            f" (ring {e['ring']})" if "ring" in e else "")
    if k == "protected":
        return f"  {e['card']} protects the Gub in slot {e['slot']} (seat {s})"
    if k == "plague_save":
        return f"  seat {s} discards {e['card']} and keeps its hand"
    if k == "merchant_keep":
        return f"  seat {s} keeps {e['card']}"
    if k == "scout_seen":
        return f"  seat {s} sees {e['card']} ({e['where']})"
    if k == "discard":
        return f"seat {s} discards {e['card']} (hand limit)"
    if k == "score":
        return f"seat {s}: {e['score']} Gubs, {e['hand']} cards in hand" + (", the Elder" if e["elder"] else "")
    if k == "game_end":
        if not e["finished"]:
            return f"== game {e['game']} unfinished after {e['turns']} turns"
        who = f"seat {e['winner']} wins" if e["winner"] >= 0 else f"seats {e['winners']} share the win"
        return f"== game {e['game']}: {who} (tie-break {e['tie_break']}) after {e['turns']} turns"
    if k == "deck_shuffled":
        return f"  the deck is shuffled ({e['deck']} cards), top first: {', '.join(e['cards'])}"
    return str(dict(e))


GAME = Gubs()
