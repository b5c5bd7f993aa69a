"""Gubs built-in policies and their dispatchers.

Decision points (also the plug-in interface, ``cardsim games gubs``); every one gets
the seat's own hand ``hand`` (int32[NK], copies per card code), the public state
``pub`` (int32[P_SIZE], layout in ``cards.py``), its parameter vector and its own
random stream ``rng``. A policy never sees other hands or the deck order.

- ``draw(seat, peek, pub, hand, params, rng) -> 1 draw / 0 skip``: asked only when
  skipping is legal (G3: never two skips in a row). ``peek`` is the top card when the
  seat knows it from a Scout, else -1.
- ``play(seat, acts, nacts, pub, hand, params, rng) -> index in [0, nacts)``: ``acts``
  rows are (op, card, tseat, tslot, aux) (``cards.OP_*``); row 0 is "stop playing".
- ``respond(seat, ann, opts, nopts, pub, hand, params, rng) -> index in [0, nopts)``:
  an interrupt window or the Gargok Plague save. ``ann`` = (ctx, op, card, actor,
  tseat, tslot, aux, as_card) describes the card announced; ``opts[0] = -1`` is pass,
  the other entries are the card codes the seat may answer with.
- ``pick(seat, purpose, opts, nopts, pub, hand, params, rng) -> index in [0, nopts)``:
  a card of the hand to discard (hand limit, G3) or to keep (Traveling Merchant);
  ``opts`` holds the card codes in hand.
"""

from __future__ import annotations

import numpy as np

from cardsim.games.base import COUNT, FLAG, Domain, PolicySpec
from cardsim.games.gubs.cards import (
    ALCHEMY,
    BLINDFOLD,
    CRICKET,
    CTX_PLAGUE,
    CTX_PLAY,
    CURE,
    ELDER,
    FEATHER,
    FLOOD,
    FLOPBOAT,
    GUB,
    LETTER_G,
    MOTH,
    MUSHROOM,
    OP_BEETLE,
    OP_CURE,
    OP_CYCLONE,
    OP_FLUTE,
    OP_GUB,
    OP_LIGHT_ELDER,
    OP_LIGHT_HAND,
    OP_LURE,
    OP_PROTECT,
    OP_RETREAT,
    OP_RING,
    OP_SCOUT_DECK,
    OP_SCOUT_HAND,
    OP_SLURE,
    OP_SPEAR_BAR,
    OP_SPEAR_SPOUT,
    OP_SPOUT,
    OP_THIEF,
    OP_UNBAR,
    OP_UNMUSH,
    P_BARS,
    P_BM,
    P_BT,
    P_BV,
    P_ELDER,
    P_FREE,
    P_HANDN,
    P_LETTERS,
    P_MUSHGUBS,
    P_NP,
    P_PROT,
    P_RINGED,
    P_RN,
    P_SCORE,
    P_SPOUTED,
    P_TOADGUBS,
    PICK_DISCARD,
    RING1,
    SUPERLURE,
    WASPS,
)
from cardsim.games.gubs.engine import U, seat_at
from cardsim.jit import njit
from cardsim.rng import GOLDEN, bounded, mix64, randint

RANDOM, SIMPLE, STRONG = 0, 1, 2
SCRIPT = 900  # tests only: replays a scripted list of decisions (not a scenario policy)
WILD = -99  # script wildcard

POLICIES = (
    PolicySpec("random", RANDOM,
               "uniform over the legal actions at every decision: draw or skip (when skipping is "
               "legal), every legal play and 'stop', pass or each interrupt card held, each card "
               "kind held to discard or keep"),
    PolicySpec("simple", SIMPLE,
               "documented simple heuristic: always draws; plays every Gub at once; protects its own "
               "Free Gubs (Velvet Moth, then Mushroom, then Toad Rider); frees its own Gubs (Haki "
               "Flute on any Ring holding Gubs, Spear on its Sud Spouts); takes a Gub back with "
               "Age-Old Cure; attacks only the leader (the opponent with the highest score, ties to "
               "the first from its left): Super Lure, Lightning on the Elder, Lure, Smahl Thief, Rings, "
               "Sud Spout, Cyclone, Barricade removal, Lightning on the hand; Omen Beetle when "
               "opponents lose more Gubs than it does; keeps Cricket Song, Scout and Retreat. "
               "Answers every Hazard or Trap aimed at its own Gubs or hand (Blindfold, then "
               "Feather, then Cricket Song), Flop Boats a Flash Flood that hits its Free Gubs, "
               "Dangerous Alchemy on itself, Rumor of Wasps on its Toad Riders and the final Letter "
               "when it is not winning; saves its hand from the Plague when it holds another card; discards its "
               "lowest-valued card (fixed card values)"),
    PolicySpec("strong", STRONG,
               "parametric heuristic: values plays by the Gub swing they cause (weighting the "
               "target opponent by `target`: 0 leader, 1 any (largest swing), 2 next seat); keeps "
               "`hide_gubs` Gubs hidden in hand until `reveal_letters` Letters are out; spends "
               "Cricket Song on its turn only for a swing of `cricket_min` Gubs; answers an attack "
               "only when it would lose at least `interrupt_min` Gubs; Flop Boats the final Letter "
               "when not winning (`flop_letter`); saves its hand from the Plague when it holds "
               "`save_min` other cards; a Scout's knowledge of the top card (`peek` = 1) decides draw "
               "or skip (skip a final Letter it would lose on, a Flash Flood or Dangerous Alchemy that "
               "would hurt it); with `tempo` = 1 it also skips whenever legal when behind with two "
               "Letters out (measured: this loses). Defaults are the best measured against `simple`",
               (("hide_gubs", 0.0), ("reveal_letters", 2.0), ("interrupt_min", 1.0), ("target", 0.0),
                ("cricket_min", 3.0), ("flop_letter", 1.0), ("save_min", 2.0), ("tempo", 0.0),
                ("peek", 1.0)),
               # counts of Gubs, Letters and cards; target one of three; flags read as on when > 0.5;
               # interrupt_min and cricket_min compare Gub swings (a non-target opponent's weighs 0.5)
               (("hide_gubs", COUNT), ("reveal_letters", COUNT), ("target", Domain(values=(0, 1, 2))),
                ("flop_letter", FLAG), ("save_min", COUNT), ("tempo", FLAG), ("peek", FLAG))),
)

# A card's worth in hand for the fixed-value choices (discard the lowest, keep the highest).
_VALUES = np.array([100, 110, 45, 46, 44, 34, 35, 36, 37, 58, 65, 30, 32, 57, 25, 40, 38, 10, 12, 42,
                    60, 50, 55, 70, 0, 0, 0, 0, 0, 0, 0, 0], dtype=np.int32)


@njit(_nrt=False)
def card_value(k):
    return _VALUES[k]


# -- shared helpers ------------------------------------------------------------------
@njit(_nrt=False, inline="always")
def leader(pub, seat):
    """The opponent with the highest score; ties to the first from ``seat``'s left."""
    n = pub[P_NP]
    best = -1
    who = seat_at(seat, 1, n)  # not (seat + 1) % n: a division at every play
    for d in range(1, n):
        o = seat_at(seat, d, n)
        if pub[U(P_SCORE + o)] > best:
            best = pub[U(P_SCORE + o)]
            who = o
    return who


@njit(_nrt=False)
def best_opp_score(pub, seat):
    n = pub[P_NP]
    best = -1
    for d in range(1, n):
        v = pub[P_SCORE + seat_at(seat, d, n)]
        if v > best:
            best = v
    return best


@njit(_nrt=False)
def wins_now(pub, seat):
    """1 when ``seat`` would be the sole winner if the game ended now (G5)."""
    n = pub[P_NP]
    me = pub[U(P_SCORE + seat)]
    for d in range(1, n):
        o = seat_at(seat, d, n)
        s = pub[U(P_SCORE + o)]
        if s > me:
            return 0
        if s == me:
            if pub[P_ELDER] == seat:
                continue
            if pub[P_ELDER] == o:
                return 0
            if pub[U(P_HANDN + o)] <= pub[U(P_HANDN + seat)]:
                return 0
    return 1


@njit(_nrt=False)
def digit(aux, s):
    return (aux >> (2 * s)) & 3


@njit(_nrt=False)
def lowest_value(opts, nopts):
    best = 0
    for i in range(1, nopts):
        if card_value(opts[i]) < card_value(opts[best]):
            best = i
    return best


@njit(_nrt=False)
def highest_value(opts, nopts):
    best = 0
    for i in range(1, nopts):
        if card_value(opts[i]) > card_value(opts[best]):
            best = i
    return best


@njit(_nrt=False)
def cheapest_answer(opts, nopts):
    """Blindfold before Feather before Flop Boat / Age-Old Cure before Cricket Song."""
    for want in (BLINDFOLD, FEATHER, FLOPBOAT, CURE, CRICKET):
        for i in range(1, nopts):
            if opts[i] == want:
                return i
    return 1


@njit(_nrt=False)
def my_loss(seat, ann, pub):
    """Gubs ``seat`` would lose from the announced card (a Lightning on its hand counts a
    third of the hand, Cyclone half a Gub per Barricade)."""
    op = ann[1]
    ts = ann[4]
    if op == OP_RING:
        return float(digit(ann[6], seat))
    if op == OP_BEETLE:
        return float(pub[U(P_MUSHGUBS + seat)])
    if ts != seat:
        return 0.0
    if op == OP_LURE or op == OP_THIEF or op == OP_SPOUT or op == OP_LIGHT_ELDER:
        return 1.0
    if op == OP_SLURE:
        return float(pub[U(P_FREE + seat)] + pub[U(P_PROT + seat)])
    if op == OP_LIGHT_HAND:
        return pub[U(P_HANDN + seat)] / 3.0
    if op == OP_CYCLONE:
        return 0.5 * pub[U(P_BARS + seat)]
    return 0.0


# -- random --------------------------------------------------------------------------
@njit(_nrt=False, inline="always")
def random_draw(seat, peek, pub, hand, params, rng):
    return randint(rng, 2)


@njit(_nrt=False, inline="always")
def random_play(seat, acts, nacts, pub, hand, params, rng):
    return randint(rng, nacts)


@njit(_nrt=False, inline="always")
def random_peek(rng):
    """The value the stream's next draw will use (:func:`cardsim.rng.next_u64` without moving
    the stream), so that it can be ready before the number of options is known."""
    return mix64(rng[0] + GOLDEN)


@njit(_nrt=False, inline="always")
def random_take(rng, u, n):
    """``randint(rng, n)`` for ``n`` > 1 from ``u`` = ``random_peek(rng)``; for ``n`` == 1 the 0 a
    decision with one option takes without drawing (the stream does not move), without a
    branch. Returns (the choice, ``random_peek(rng)`` after it)."""
    s = rng[0]
    t = s + GOLDEN
    after = mix64(t + GOLDEN)
    rng[0] = t if n > 1 else s
    return bounded(u, n), (after if n > 1 else u)


@njit(_nrt=False, inline="always")
def random_respond(seat, ann, opts, nopts, pub, hand, params, rng):
    return randint(rng, nopts)


@njit(_nrt=False, inline="always")
def random_pick(seat, purpose, opts, nopts, pub, hand, params, rng):
    return randint(rng, nopts)


# -- simple ----------------------------------------------------------------------------
@njit(_nrt=False, inline="always")
def simple_value(seat, ld, op, card, ts, tsl, aux, pub):
    """Priority of one play for ``simple`` (0: never)."""
    if card == CRICKET:
        return 0
    if op == OP_GUB:
        return 101 if card == ELDER else 100
    if op == OP_FLUTE:
        return 90 + pub[U(P_RN + aux)] if pub[U(P_RN + aux)] > 0 else 0
    if op == OP_SPEAR_SPOUT:
        return 85 if ts == seat else 0
    if op == OP_PROTECT:
        if tsl >= 0:
            return 0
        return 80 + (3 if card == MOTH else (2 if card == MUSHROOM else 1))
    if op == OP_CURE:
        return 75 if aux == GUB else 0
    if op == OP_SLURE:
        return 70 + pub[U(P_FREE + ts)] + pub[U(P_PROT + ts)] if ts == ld else 0
    if op == OP_LIGHT_ELDER:
        return 69 if ts == ld else 0
    if op == OP_LURE:
        return 68 if ts == ld else 0
    if op == OP_THIEF:
        return 67 - aux if ts == ld else 0
    if op == OP_RING:
        m = digit(aux, ld)
        if m == 0:
            return 0
        return 60 + 2 * m + (card - RING1)
    if op == OP_SPOUT:
        return 59 if ts == ld else 0
    if op == OP_CYCLONE:
        return 55 if ts == ld else 0
    if op == OP_UNMUSH or op == OP_UNBAR or op == OP_SPEAR_BAR:
        return 50 if ts == ld else 0
    if op == OP_BEETLE:
        n = pub[P_NP]
        opp = 0
        for d in range(1, n):
            opp += pub[P_MUSHGUBS + seat_at(seat, d, n)]
        return 50 if opp > pub[U(P_MUSHGUBS + seat)] else 0
    if op == OP_LIGHT_HAND:
        return 40 if ts == ld else 0
    return 0


@njit(_nrt=False, inline="always")
def simple_play(seat, acts, nacts, pub, hand, params, rng):
    return simple_choose(seat, leader(pub, seat), acts, nacts, pub)


@njit(_nrt=False, inline="always")
def simple_choose(seat, ld, acts, nacts, pub):
    """:func:`simple_play` with its leader ``ld`` already found: the first row of the highest
    :func:`simple_value`, 0 (stop) when none is above 0."""
    best = 0
    bestv = 0
    for i in range(1, nacts):
        v = simple_value(seat, ld, acts[U(i), 0], acts[U(i), 1], acts[U(i), 2], acts[U(i), 3], acts[U(i), 4], pub)
        if v > bestv:
            bestv = v
            best = i
    return best


@njit(_nrt=False)
def simple_respond(seat, ann, opts, nopts, pub, hand, params, rng):
    ctx = ann[0]
    if ctx == CTX_PLAGUE:
        return cheapest_answer(opts, nopts) if pub[U(P_HANDN + seat)] > 1 else 0
    if ctx == CTX_PLAY:
        return cheapest_answer(opts, nopts) if my_loss(seat, ann, pub) > 0.0 else 0
    c = ann[2]
    hit = False
    if c == FLOOD:
        hit = pub[U(P_FREE + seat)] > 0
    elif c == ALCHEMY:
        hit = ann[3] == seat and pub[U(P_SCORE + seat)] > 0
    elif c == WASPS:
        hit = pub[U(P_TOADGUBS + seat)] > 0
    elif c >= LETTER_G:
        hit = pub[P_LETTERS] == 2 and wins_now(pub, seat) == 0
    return cheapest_answer(opts, nopts) if hit else 0


@njit(_nrt=False)
def simple_pick(seat, purpose, opts, nopts, pub, hand, params, rng):
    if purpose == PICK_DISCARD:
        return lowest_value(opts, nopts)
    return highest_value(opts, nopts)


# -- strong ------------------------------------------------------------------------------
@njit(_nrt=False)
def weight(seat, o, ld, pub, params):
    """How much an attack on opponent ``o`` counts (param ``target``)."""
    mode = params[3]
    if mode < 0.5:
        return 1.0 if o == ld else 0.5
    if mode < 1.5:
        return 1.0
    return 1.0 if o == (seat + 1) % pub[P_NP] else 0.5


@njit(_nrt=False)
def swing(seat, op, ts, tsl, aux, pub):
    """Gubs moved in ``seat``'s favour by a play (what Cricket Song must be worth)."""
    if op == OP_LURE or op == OP_THIEF:
        return 2
    if op == OP_SLURE:
        return 2 * (pub[U(P_FREE + ts)] + pub[U(P_PROT + ts)])
    if op == OP_RING:
        return digit(aux, 0) + digit(aux, 1) + digit(aux, 2) + digit(aux, 3) + digit(aux, 4) + digit(aux, 5)
    if op == OP_SPOUT or op == OP_LIGHT_ELDER:
        return 1
    if op == OP_FLUTE:
        return pub[U(P_RN + aux)]
    if op == OP_SPEAR_SPOUT:
        return 1 if ts == seat else 0
    return 0


@njit(_nrt=False)
def strong_value(seat, ld, op, card, ts, tsl, aux, pub, hand, params):
    late = pub[P_LETTERS] >= params[1]
    if card == CRICKET and swing(seat, op, ts, tsl, aux, pub) < params[4]:
        return 0.0
    v = 0.0
    w = weight(seat, ts, ld, pub, params) if ts >= 0 and ts != seat else 1.0
    if op == OP_GUB:
        if card == ELDER:
            v = 100.0
        elif late or hand[GUB] > params[0]:
            v = 95.0
    elif op == OP_FLUTE:
        rn = pub[U(P_RN + aux)]
        v = 60.0 + 10.0 * rn if rn > 0 else 0.0
    elif op == OP_SPEAR_SPOUT:
        v = 85.0 if ts == seat else 0.0
    elif op == OP_RETREAT:
        x = pub[U(P_SPOUTED + seat)] + pub[U(P_RINGED + seat)]
        v = 50.0 + 10.0 * x if x > 0 else 0.0
    elif op == OP_PROTECT:
        if tsl < 0:
            v = 80.0 + (3.0 if card == MOTH else (2.0 if card == MUSHROOM else 1.0))
    elif op == OP_CURE:
        if aux == GUB:
            v = 75.0
        elif aux == FEATHER or aux == BLINDFOLD or aux == FLOPBOAT or aux == CRICKET or aux == SUPERLURE:
            v = 40.0
    elif op == OP_LURE:
        v = 60.0 + 20.0 * w
    elif op == OP_SLURE:
        v = 55.0 + 20.0 * w * (pub[U(P_FREE + ts)] + pub[U(P_PROT + ts)])
    elif op == OP_THIEF:
        v = 60.0 + 20.0 * w + (2.0 if aux == 2 else 0.0)
    elif op == OP_RING:
        n = pub[P_NP]
        tot = 0.0
        for d in range(1, n):
            o = seat_at(seat, d, n)
            tot += digit(aux, o) * weight(seat, o, ld, pub, params)
        v = 50.0 + 10.0 * tot
    elif op == OP_SPOUT:
        v = 50.0 + 10.0 * w
    elif op == OP_LIGHT_ELDER:
        v = 60.0 + 15.0 * w
    elif op == OP_CYCLONE:
        b = pub[U(P_BARS + ts)]
        v = 30.0 + 5.0 * b * w if b >= 2 else 0.0
    elif op == OP_BEETLE:
        n = pub[P_NP]
        net = -2 * pub[U(P_MUSHGUBS + seat)]
        for d in range(1, n):
            net += pub[P_MUSHGUBS + seat_at(seat, d, n)]
        v = 40.0 + 10.0 * net if net > 0 else 0.0
    elif op == OP_UNMUSH or op == OP_UNBAR or op == OP_SPEAR_BAR:
        if ts != seat and pub[U(P_BM + tsl)] + pub[U(P_BT + tsl)] + pub[U(P_BV + tsl)] == 1:
            v = 30.0 + 10.0 * w  # exposes an opponent's Gub
    elif op == OP_LIGHT_HAND:
        hn = pub[U(P_HANDN + ts)]
        v = 25.0 + 3.0 * hn * w if hn >= 3 else 0.0
    elif op == OP_SCOUT_DECK:
        v = 20.0 if params[8] > 0.5 and pub[P_LETTERS] >= 1 else 5.0
    elif op == OP_SCOUT_HAND:
        v = 3.0
    if card == CRICKET and v > 0.0:
        v -= 1.0  # the card itself first
    return v


@njit(_nrt=False)
def strong_play(seat, acts, nacts, pub, hand, params, rng):
    ld = leader(pub, seat)
    best = 0
    bestv = 0.0
    for i in range(1, nacts):
        v = strong_value(seat, ld, acts[U(i), 0], acts[U(i), 1], acts[U(i), 2], acts[U(i), 3], acts[U(i), 4], pub, hand, params)
        if v > bestv:
            bestv = v
            best = i
    return best


@njit(_nrt=False)
def strong_draw(seat, peek, pub, hand, params, rng):
    final = pub[P_LETTERS] == 2
    if params[8] > 0.5 and peek >= 0:
        if peek >= LETTER_G:
            if final:
                return wins_now(pub, seat)
            return 1
        if peek == FLOOD and pub[U(P_FREE + seat)] >= 2:
            return 0
        if peek == ALCHEMY and pub[U(P_SCORE + seat)] >= 1:
            return 0
        return 1
    if params[7] > 0.5 and final and pub[U(P_SCORE + seat)] < best_opp_score(pub, seat):
        return 0
    return 1


@njit(_nrt=False)
def strong_respond(seat, ann, opts, nopts, pub, hand, params, rng):
    ctx = ann[0]
    if ctx == CTX_PLAGUE:
        return cheapest_answer(opts, nopts) if pub[U(P_HANDN + seat)] - 1 >= params[6] else 0
    if ctx == CTX_PLAY:
        return cheapest_answer(opts, nopts) if my_loss(seat, ann, pub) >= params[2] else 0
    c = ann[2]
    n = pub[P_NP]
    loss = 0.0
    if c == FLOOD or c == WASPS:
        off = P_FREE if c == FLOOD else P_TOADGUBS
        most = 0
        for d in range(1, n):
            most = max(most, pub[off + seat_at(seat, d, n)])
        loss = float(pub[off + seat] - most)
    elif c == ALCHEMY:
        loss = float(pub[U(P_SCORE + seat)]) if ann[3] == seat else 0.0
    elif c >= LETTER_G:
        if pub[P_LETTERS] == 2 and params[5] > 0.5 and wins_now(pub, seat) == 0:
            return cheapest_answer(opts, nopts)
        return 0
    return cheapest_answer(opts, nopts) if loss >= params[2] and loss > 0.0 else 0


@njit(_nrt=False)
def strong_pick(seat, purpose, opts, nopts, pub, hand, params, rng):
    if purpose == PICK_DISCARD:
        return lowest_value(opts, nopts)
    return highest_value(opts, nopts)


# -- script (tests) -------------------------------------------------------------------------
# params = [cursor, then entries of 6 floats: decision (0 draw, 1 play, 2 respond, 3 pick),
# then the values]: draw (1/0); play (op, card, tseat, tslot, aux), WILD matching anything;
# respond (card code, -1 pass); pick (card code). An entry is used by the first decision of
# its kind; when the next entry is of another kind the seat acts by default: draw, stop,
# pass, the first option.
@njit(_nrt=False)
def script_next(params, kind):
    cur = int(params[0])
    at = 1 + 6 * cur
    if at + 6 <= params.shape[0] and int(params[at]) == kind:
        params[0] = cur + 1
        return at + 1
    return -1


@njit(_nrt=False)
def script_draw(seat, peek, pub, hand, params, rng):
    at = script_next(params, 0)
    return 1 if at < 0 else int(params[at])


@njit(_nrt=False)
def script_play(seat, acts, nacts, pub, hand, params, rng):
    at = script_next(params, 1)
    if at < 0:
        return 0
    for i in range(nacts):
        ok = True
        for j in range(5):
            want = int(params[at + j])
            if want != WILD and acts[U(i), U(j)] != want:
                ok = False
                break
        if ok:
            return i
    return -1


@njit(_nrt=False)
def script_choice(params, kind, opts, nopts):
    at = script_next(params, kind)
    if at < 0:
        return 0
    want = int(params[at])
    for i in range(nopts):
        if opts[i] == want:
            return i
    return -1


@njit(_nrt=False)
def script_respond(seat, ann, opts, nopts, pub, hand, params, rng):
    return script_choice(params, 2, opts, nopts)


@njit(_nrt=False)
def script_pick(seat, purpose, opts, nopts, pub, hand, params, rng):
    return script_choice(params, 3, opts, nopts)


# -- dispatchers (one per decision point) -------------------------------------------------------
@njit(_nrt=False, inline="always")
def decide_draw(pid, seat, peek, pub, hand, params, rng):
    if pid == SIMPLE:
        return 1
    if pid == STRONG:
        return strong_draw(seat, peek, pub, hand, params, rng)
    if pid == SCRIPT:
        return script_draw(seat, peek, pub, hand, params, rng)
    return random_draw(seat, peek, pub, hand, params, rng)


@njit(_nrt=False, inline="always")
def decide_play(pid, seat, acts, nacts, pub, hand, params, rng):
    if pid == SIMPLE:
        return simple_play(seat, acts, nacts, pub, hand, params, rng)
    if pid == STRONG:
        return strong_play(seat, acts, nacts, pub, hand, params, rng)
    if pid == SCRIPT:
        return script_play(seat, acts, nacts, pub, hand, params, rng)
    return random_play(seat, acts, nacts, pub, hand, params, rng)


@njit(_nrt=False, inline="always")
def decide_respond(pid, seat, ann, opts, nopts, pub, hand, params, rng):
    if pid == SIMPLE:
        return simple_respond(seat, ann, opts, nopts, pub, hand, params, rng)
    if pid == STRONG:
        return strong_respond(seat, ann, opts, nopts, pub, hand, params, rng)
    if pid == SCRIPT:
        return script_respond(seat, ann, opts, nopts, pub, hand, params, rng)
    return random_respond(seat, ann, opts, nopts, pub, hand, params, rng)


@njit(_nrt=False, inline="always")
def decide_pick(pid, seat, purpose, opts, nopts, pub, hand, params, rng):
    if pid == SIMPLE:
        return simple_pick(seat, purpose, opts, nopts, pub, hand, params, rng)
    if pid == STRONG:
        return strong_pick(seat, purpose, opts, nopts, pub, hand, params, rng)
    if pid == SCRIPT:
        return script_pick(seat, purpose, opts, nopts, pub, hand, params, rng)
    return random_pick(seat, purpose, opts, nopts, pub, hand, params, rng)
