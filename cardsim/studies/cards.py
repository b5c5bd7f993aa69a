"""Card effects: what a card *does* to the game, not only what it goes with (``cardsim cards SCENARIO``).

The summaries of Bad, Bad, Turtle, Gubs and FUBNUB Full Deck tell which
cards go with winning: the revealer's win rate, "drew it vs did not". That
is an association: a player who reveals more cards has simply stayed in the
game longer, and a card drawn late is drawn in long games. The causal
question is "what changes if the card is not in the deck": this study plays
the base scenario and, for each card, the same scenario with that card
removed (or its count changed), on the same seeds (game ``g`` uses the same
random streams in every arm; with a card fewer the deals differ, but the
pairing still removes much of the variance), and compares them game by game.

``[cards]`` keys:

- ``cards``: the cards to test (default: every card the game lets a scenario
  remove: Turtle ``remove``, Gubs ``remove_cards`` / ``add_cards``, FUBNUB
  Full Deck ``remove_actions``);
- ``change``: ``remove`` (every copy; Turtle and Full Deck) or, for Gubs,
  ``one_less`` (default) / ``one_more`` copy;
- ``focus`` (seat, default 0) and ``rotate`` (default false): with rotate,
  every arm is played in each rotation of the seats, so the focus seat's
  policy visits every seat;
- ``correction``: ``holm`` (family-wise error, default) or ``bh``
  (Benjamini-Hochberg false discovery rate) across the cards.

Each card's effect is measured on what stays meaningful when every seat
plays the same policy: the game's **length** (turns or hands) and the
**first-player advantage** (the win rate of the seat that moves first minus
the mean seat win rate); and, when the seats play different policies, the
**focus seat's win rate**. Each effect is a paired difference (changed deck
minus full deck) with its 95% interval, a Bonferroni-simultaneous interval
across the cards, and an adjusted p-value. The association from the base
run is printed beside it, labelled as such.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError, allowed_list, did_you_mean, first_repeat
from cardsim.metrics import length_is_count
from cardsim.output import Output
from cardsim.report.numbers import many
from cardsim.stats import UNBOUNDED, holm, mean_ci, paired_difference, t_quantile, within
from cardsim.studies import derive
from cardsim.studies.compare import mean_text, span, span_digits

KEYS = ("cards", "change", "focus", "rotate", "correction")
#: game (and variant) -> (knob that removes, knob that adds, changes allowed)
KNOBS = {"turtle": ("remove", None, ("remove",)), "fubnub": ("remove_actions", None, ("remove",)),
         "gubs": ("remove_cards", "add_cards", ("one_less", "one_more", "remove"))}
UNITS = {"fubnub": "hands", "fourbid": "hands", "turtle": "turns", "gubs": "turns"}


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    cards: list[str]
    change: str
    focus: int
    correction: str
    runs: dict[str, list[sc.Scenario]]  # "" (the full deck) and each card -> one scenario per rotation
    mixed: bool  # the seats play different policies


def _catalogue(base: sc.Scenario) -> tuple[str, str | None, tuple[str, ...], tuple[str, ...]]:
    game = base.game
    if game not in KNOBS or (game == "fubnub" and base.setup.variant != "full_deck"):
        raise ScenarioError(f"[cards] needs a game with a card catalogue: turtle, gubs or fubnub with variant "
                            f"full_deck ({base.name} is {game}, variant {base.setup.variant})")
    remove, add, changes = KNOBS[game]
    from cardsim.games import get_game

    knob = next(k for k in get_game(game).knobs if k.name == remove)
    return remove, add, changes, tuple(knob.choices)


def plan(base: sc.Scenario) -> Plan:
    cfg = base.raw.get("cards")
    if cfg is None:
        raise derive.no_section(base, "cards", "cards whose effect to measure")
    for k in cfg:
        if k not in KEYS:
            raise ScenarioError(f"unknown key cards.{k}{did_you_mean(k, KEYS)}; allowed: {allowed_list(KEYS)}")
    remove, add, changes, names = _catalogue(base)
    change = cfg.get("change", "one_less" if base.game == "gubs" else "remove")
    if change not in changes:
        raise ScenarioError(f"cards.change = {change!r}; allowed for {base.game}: {allowed_list(changes)}")
    cards = cfg.get("cards", list(names))
    if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
        raise ScenarioError("cards.cards must be a non-empty list of card names")
    for c in cards:
        if c not in names:
            raise ScenarioError(f"cards.cards: unknown card {c!r}{did_you_mean(c, names)}; allowed: {allowed_list(names)}")
    if (twice := first_repeat(cards)) is not None:
        raise ScenarioError(f"cards.cards names {cards[twice[1]]!r} twice; list each card once")
    players = base.setup.players
    focus = cfg.get("focus", 0)
    if isinstance(focus, bool) or not isinstance(focus, int) or not 0 <= focus < players:
        raise ScenarioError(f"cards.focus = {focus!r} must be a seat 0-{players - 1}")
    rotate = cfg.get("rotate", False)
    if not isinstance(rotate, bool):
        raise ScenarioError(f"cards.rotate = {rotate!r} must be true or false")
    correction = cfg.get("correction", "holm")
    if correction not in ("holm", "bh"):
        raise ScenarioError(f"cards.correction = {correction!r}; allowed: holm, bh")
    raw0 = derive.base_raw(base)
    seats = derive.seat_list(raw0, players)
    runs: dict[str, list[sc.Scenario]] = {}
    for card in ["", *cards]:
        runs[card] = []
        for r in range(players) if rotate else range(1):
            raw = derive.base_raw(base)
            derive.set_policies(raw, derive.rotate(list(seats), r))
            if card:
                if change == "one_more":
                    raw["rules"][add] = [*raw["rules"].get(add, []), card]
                else:
                    from cardsim.games.gubs import cards as gubs_cards

                    copies = 1
                    if base.game == "gubs" and change == "remove":
                        copies = int(gubs_cards.STANDARD_COUNTS[gubs_cards.CARD_NAMES.index(card)])
                    already = list(raw["rules"].get(remove, []))
                    if base.game != "gubs" and card in already:
                        raise ScenarioError(f"cards.cards: {card!r} is already removed in [rules] {remove}")
                    raw["rules"][remove] = already + [card] * copies
            tag = (card or "full deck").replace(" ", "_")
            try:
                runs[card].append(derive.build(base, raw, f"{base.name}-{change}-{tag}-r{r}"))
            except ScenarioError as exc:
                raise ScenarioError(f"cards.cards: {card!r} ({change}): {exc}") from None
    mixed = len({repr(s) for s in seats}) > 1
    return Plan(base, list(cards), change, focus, correction, runs, mixed)


def measures(results: list[Any], focus: int, players: int, mixed: bool) -> dict[str, np.ndarray]:
    """Per game (in game order), averaged over the seat rotations: length, first-player advantage and
    (seats with different policies) the focus seat's win; NaN where a game was unfinished."""
    acc: dict[str, list[np.ndarray]] = {}
    for r, res in enumerate(results):
        out = res.outcomes().collect().sort("game", "seat")
        n = out["game"].n_unique()
        length = out.group_by("game", maintain_order=True).agg(pl.col("length").first())["length"]
        acc.setdefault("length", []).append(length.cast(pl.Float64).to_numpy())
        win = out.pivot(on="seat", index="game", values="win", aggregate_function="first").sort("game")
        w = win.drop("game").cast(pl.Float64).fill_null(np.nan).to_numpy()
        if "first" in out.columns:
            first = out.filter(pl.col("first")).sort("game")
            fw = np.full(n, np.nan)
            fw[np.searchsorted(win["game"].to_numpy(), first["game"].to_numpy())] = \
                first["win"].cast(pl.Float64).fill_null(np.nan).to_numpy()
            with np.errstate(invalid="ignore"), warnings.catch_warnings():  # a game nobody won: NaN, no warning
                warnings.simplefilter("ignore", RuntimeWarning)
                acc.setdefault("first-player advantage", []).append(fw - np.nanmean(w, axis=1))
        if mixed:
            seat = (focus + r) % players
            acc.setdefault("focus seat win rate", []).append(w[:, list(win.columns[1:]).index(str(seat))]
                                                             if str(seat) in win.columns[1:] else np.full(n, np.nan))
    return {k: np.mean(np.vstack(v), axis=0) for k, v in acc.items()}


@dataclass
class CardsResult:
    plan: Plan
    games: int
    effects: pl.DataFrame
    association: tuple[str, pl.DataFrame] | None = None
    notes: list[str] = field(default_factory=list)
    heldout: pl.DataFrame | None = None  # the cards the answer names, re-played on fresh seeds


def bounds(p: Plan, measure: str) -> tuple[float, float]:
    """Where a game's difference of ``measure`` lies: a length has no bound; a seat's win lies in [0, 1],
    so the focus seat's difference in [-1, 1]; the first player's edge (its win minus the mean of the n
    seats' wins) in [-(n-1)/n, (n-1)/n], so a difference of two in twice that."""
    if measure == "focus seat win rate":
        return (-1.0, 1.0)
    if measure == "first-player advantage":
        n = p.base.setup.players if p.base is not None else 2
        return (-2 * (n - 1) / n, 2 * (n - 1) / n)
    return UNBOUNDED


def effects_table(p: Plan, values: dict[str, dict[str, np.ndarray]]) -> pl.DataFrame:
    """One row per (measure, card): full-deck mean, changed-deck mean, the paired effect with its 95%
    interval, the Bonferroni-simultaneous interval across cards and the adjusted p-value."""
    rows = []
    k = len(p.cards)
    for measure in values[""]:
        fam = []
        edge = bounds(p, measure)
        arm = (0.0, 1.0) if measure == "focus seat win rate" else (edge[0] / 2, edge[1] / 2)  # one deck's mean
        def count(card: str, measure: str = measure) -> bool:  # a length the deck's rules do not fix
            runs = p.runs.get(card)
            return measure == "length" and (not runs or any(map(length_is_count, runs)))

        for card in p.cards:
            a, b = values[""][measure], values[card][measure]
            e = paired_difference(a, b, bounds=edge)
            # the pointwise interval's kind at level 0.05 / k: for a bounded measure the same interval
            # (Clopper-Pearson at the effective size), for a length Student's t with the pointwise
            # interval's degrees of freedom (a normal Bonferroni interval came out narrower than the
            # pointwise one at a few games, and p < 0.05 beside an interval across 0); none without spread
            df = e.clusters - 1
            if math.isfinite(edge[0]):
                s = paired_difference(a, b, bounds=edge, z=t_quantile(1 - 0.05 / (2 * k), 10_000))
                lo_s, hi_s = s.lo, s.hi
            elif e.se > 0:
                z_sim = t_quantile(1 - 0.05 / (2 * k), df)
                lo_s, hi_s = within(e.value - z_sim * e.se, edge), within(e.value + z_sim * e.se, edge)
            else:
                lo_s = hi_s = math.nan
            ok = np.isfinite(a) & np.isfinite(b)
            # each deck's mean with its own 95% interval (the same seeds in both: for the effect read
            # the paired interval, not these two)
            # (a length is a count, at least 0, as a compared arm's: its interval is cut at 0, never below)
            fa, fb = (mean_ci(x[ok], bounds=arm, count=count(c)) if ok.sum() > 1 else None
                      for x, c in ((a, ""), (b, card)))
            fam.append({"measure": measure, "card": card, "full_deck": float(a[ok].mean()) if ok.any() else math.nan,
                        "full_deck_lo": fa.lo if fa else math.nan, "full_deck_hi": fa.hi if fa else math.nan,
                        "changed": float(b[ok].mean()) if ok.any() else math.nan,
                        "changed_lo": fb.lo if fb else math.nan, "changed_hi": fb.hi if fb else math.nan,
                        "effect": e.value, "lo": e.lo, "hi": e.hi, "lo_simultaneous": lo_s, "hi_simultaneous": hi_s,
                        "p": e.p, "games": e.n})
        adj = holm([r["p"] for r in fam], "holm" if p.correction == "holm" else "fdr_bh")
        for r, q in zip(fam, adj, strict=True):
            r["p_adjusted"] = float(q)
        rows += fam
    return pl.DataFrame(rows)


def association(base: sc.Scenario, result: Any) -> tuple[str, pl.DataFrame] | None:
    """The base run's association table (what goes with winning), labelled as such."""
    tables, setup = result.tables, base.setup
    if base.game == "turtle" and setup.variant == "full":
        from cardsim.games.turtle.game import baseline_text, card_section

        b, table = card_section(tables, setup.players)
        return (f"Association, not a causal effect: the revealing seat's win rate by card (lift over {baseline_text(b)}, "
                "the win rate behind a revealed number card, with the 95% interval of that difference clustered by game)",
                table)
    if base.game == "gubs":
        from cardsim.games.gubs.game import card_impact

        return ("Association, not a causal effect: win rate of seats that drew the card minus seats that did not "
                "(lift, with its 95% interval clustered by game)",
                card_impact(tables, setup.players))
    if base.game == "fubnub":
        from cardsim.stats import rate_table

        after = tables["hands"].filter(pl.col("action_card").is_not_null()).with_columns(
            revealer_won=pl.col("winner") == pl.col("revealer"))
        return ("Association, not a causal effect: the revealer's point-card win rate in the hand, by action card",
                rate_table(after, ["action_card"], "revealer_won"))
    return None


def run(base: sc.Scenario, runner: Callable[[sc.Scenario], Any], games: int | None = None) -> CardsResult:
    """Play the full deck and each changed deck (every rotation) on the same seeds; compare game by game."""
    p = plan(base)
    n = base.games if games is None else games
    players = base.setup.players
    values, first = {}, None
    for card, scens in p.runs.items():
        results = [runner(s.with_options(games=n)) for s in scens]
        first = first or results[0]
        values[card] = measures(results, p.focus, players, p.mixed)
    notes = [f"effect = the changed deck minus the full deck, game by game on the same seeds ({many(n, 'game')}"
             + (f" in each of {players} seat rotations" if len(p.runs['']) > 1 else "") + "); lo/hi: 95% interval; "
             f"lo_simultaneous/hi_simultaneous: Bonferroni over the {many(len(p.cards), 'card')}; p_adjusted: "
             + ("Holm" if p.correction == "holm" else "Benjamini-Hochberg") + " across the cards."]
    effects = effects_table(p, values)
    return CardsResult(p, n, effects, association(base, first), notes, heldout(p, effects, runner, n))


def picks(p: Plan, effects: pl.DataFrame) -> list[tuple[str, dict]]:
    """The (measure, row) pairs the answer names: the card that changes the length most, and the
    card that moves the first player's edge (the focus seat's win rate) most among those beyond
    chance (adjusted p < 0.05)."""
    out = []
    length = effects.filter(pl.col("measure") == "length")
    if length.height:
        out.append(("length", max(length.iter_rows(named=True), key=lambda x: abs(x["effect"]))))
    for measure in ("first-player advantage", "focus seat win rate"):
        m = effects.filter((pl.col("measure") == measure) & (pl.col("p_adjusted") < 0.05))
        if m.height:
            out.append((measure, max(m.iter_rows(named=True), key=lambda x: abs(x["effect"]))))
    return out


def heldout(p: Plan, effects: pl.DataFrame, runner: Callable[[sc.Scenario], Any], games: int) -> pl.DataFrame | None:
    """The answer picks its cards from the data (the largest effect of many), so each is played again,
    with the full deck, on ``games`` seeds the study never used (:func:`cardsim.studies.sweep.heldout_seed`,
    every rotation): its paired effect there, with its 95% interval, beside the study's."""
    from cardsim.studies.sweep import heldout_seed

    chosen = picks(p, effects)
    if not chosen:
        return None
    seed = heldout_seed(p.base.seed)
    players = p.base.setup.players
    values = {card: measures([runner(s.with_options(games=games, seed=seed)) for s in p.runs[card]], p.focus,
                             players, p.mixed)
              for card in dict.fromkeys(["", *(r["card"] for _, r in chosen)])}
    rows = []
    for measure, r in chosen:
        e = paired_difference(values[""][measure], values[r["card"]][measure], bounds=bounds(p, measure))
        rows.append({"measure": measure, "card": r["card"], "seed": seed, "games": e.n, "effect": e.value,
                     "lo": e.lo, "hi": e.hi, "in_study": r["effect"]})
    return pl.DataFrame(rows)


def _verb(p: Plan) -> str:
    return {"remove": "removing", "one_less": "one copy fewer of", "one_more": "one copy more of"}[p.change]


def headline(res: CardsResult) -> str:
    p = res.plan
    unit = UNITS.get(p.base.game, "turns")
    e = res.effects
    parts = []
    chosen = dict(picks(p, e))
    again = {} if res.heldout is None else {r["measure"]: r for r in res.heldout.iter_rows(named=True)}
    length = e.filter(pl.col("measure") == "length")
    if "length" in chosen:
        r = chosen["length"]
        decks = (f"{mean_text(r['full_deck'], r['full_deck_lo'], r['full_deck_hi'])} -> "
                 f"{mean_text(r['changed'], r['changed_lo'], r['changed_hi'])} {unit}")
        d = span_digits(r["lo"], r["hi"], 1, 0.0)
        sure = r["p_adjusted"] < 0.05
        if sure:
            verb = "shortens" if r["effect"] < 0 else "lengthens"
            head = (f"{_verb(p)} {r['card']} has the largest estimated effect on the length: it {verb} games by "
                    f"{abs(r['effect']):.{d}f} {unit}")
        else:  # the largest of many estimates, not beyond chance: no verb that claims a direction
            head = (f"no card changes the length beyond chance; the largest estimate is {_verb(p)} "
                    f"{r['card']}, {r['effect']:+.{d}f} {unit}")
        parts.append(f"{head} ({decks}; the difference's 95% CI "
                     f"{span(r['lo'], r['hi'], 1, unit, signed=not sure, n=r['games'], what='games')})"
                     + _again(again.get("length"), 1, unit, verb=sure) + _next(length, r, 1, unit))
        sig = length.filter(pl.col("p_adjusted") < 0.05)
        parts.append(f"{sig.height} of {length.height} card{'s change' if length.height != 1 else ' changes'} the "
                     f"length beyond chance "
                     f"({'Holm' if p.correction == 'holm' else 'BH'}-adjusted p < 0.05)")
    for measure, label in (("first-player advantage", "the first player's edge"), ("focus seat win rate",
                                                                                   "the focus seat's win rate")):
        if e.filter(pl.col("measure") == measure).height:
            if measure in chosen:
                r = chosen[measure]
                d = span_digits(r["lo"], r["hi"], 100, 0.0)
                parts.append(f"{_verb(p)} {r['card']} moves {label} most of the cards beyond chance: "
                             f"{100 * r['effect']:+.{d}f} points "
                             f"(95% CI {span(r['lo'], r['hi'], 100, 'points', signed=True, n=r['games'], what='games')})"
                             + _again(again.get(measure), 100, "points")
                             + _next(e.filter((pl.col("measure") == measure) & (pl.col("p_adjusted") < 0.05)), r,
                                     100, "points"))
            elif not e.filter((pl.col("measure") == measure) & (pl.col("games") > 0)).height:
                # every game cut at a cap has no winner: "no card moves the first player's edge beyond
                # chance" read as if it had been measured
                parts.append(f"{label} is not measured: no game finished in both decks")
            else:
                parts.append(f"no card moves {label} beyond chance")
    text = "; ".join(parts) + f" (the same {many(res.games, 'seed')} in every deck)."
    return text[0].upper() + text[1:]


def _next(rows: pl.DataFrame, top: dict, scale: float, unit: str) -> str:
    """The runner-up to the named card, when the named card's estimate lies inside the runner-up's
    interval: the order at the top is then not a finding (said so, not tested)."""
    rest = sorted((x for x in rows.iter_rows(named=True) if x["card"] != top["card"] and math.isfinite(x["effect"])),
                  key=lambda x: -abs(x["effect"]))
    if not rest or not rest[0]["lo"] <= top["effect"] <= rest[0]["hi"]:
        return ""
    x = rest[0]
    d = span_digits(x["lo"], x["hi"], scale, 0.0)
    return (f"; the next, {x['card']} ({scale * x['effect']:+.{d}f} {unit}, 95% CI "
            f"{span(x['lo'], x['hi'], scale, unit, signed=True, n=x['games'], what='games')}), holds that figure in "
            f"its interval, so which of the two changes it most is not settled")


def _again(r: dict | None, scale: float, unit: str, verb: bool = False) -> str:
    """A named card's held-out effect, in words: a signed number and signed ends, or with ``verb``
    (the study's own figure was said as "shortens games by 8.3 turns") the same form: a verb that
    carries the sign, then the size and the size range."""
    if r is None:
        return ""
    v, d = scale * r["effect"], span_digits(r["lo"], r["hi"], scale, 0.0)
    where = f"; re-played on {many(r['games'], 'fresh seed')}: "
    if not math.isfinite(v):
        return where + "no game finished in both decks"
    # the verb only where the re-play's own interval shows the sign ("shortens them by 0.3 hands (95% CI
    # -1.4 to +0.6 hands)" once claimed a direction its interval did not): else signed numbers
    verb = verb and (r["lo"] > 0 or r["hi"] < 0)
    ci = span(r["lo"], r["hi"], scale, unit, signed=not verb, n=r["games"], what="games")
    if verb:
        return where + f"{'shortens' if v < 0 else 'lengthens'} them by {abs(v):.{d}f} {unit} (95% CI {ci})"
    return where + f"{v:+.{d}f} {unit} (95% CI {ci})"


def output(res: CardsResult) -> Output:
    """What ``cardsim cards`` prints."""
    tables = [("Causal effect of each card (changed deck minus full deck, paired)", res.effects)]
    if res.association is not None:
        tables.append(res.association)
    if res.heldout is not None:
        tables.append(("Held-out: the cards the answer names, with the full deck, on fresh seeds", res.heldout))
    return Output(headline(res), tables, notes=[*res.notes, multiplicity(res)])


def multiplicity(res: CardsResult) -> str:
    """How the card study's intervals handle multiplicity (under its tables, and as its report's Intervals
    paragraph, :func:`intervals`): the effects'
    lo/hi for their own card, lo_simultaneous/hi_simultaneous over every card, the answer's counts of cards on
    adjusted p-values, its named cards re-played; the association table, pointwise, says so."""
    k = len(res.plan.cards)
    adjust = "Holm" if res.plan.correction == "holm" else "Benjamini-Hochberg"
    text = ("Each card's lo/hi is a 95% interval for its own card (pointwise); lo_simultaneous/hi_simultaneous hold "
            + ("for the one card" if k == 1 else f"for all {k} cards at once (Bonferroni)")
            + f", and the answer counts the cards beyond chance by {adjust}-adjusted p-values and re-plays the cards "
            "it names on fresh seeds.")
    if res.association is not None:
        text += (" The association table's intervals are each for their own card (pointwise, no adjustment over "
                 "the cards): about one card in twenty misses its truth by chance, so its highest and lowest cards "
                 "are not findings on their own.")
    return text


def intervals(res: CardsResult) -> str:
    """The report's Intervals paragraph: :func:`multiplicity`."""
    return multiplicity(res)
