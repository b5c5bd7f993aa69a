"""Gubs state machine pieces that never ask a policy: set-up, legal plays, card effects.

The game state is a handful of small int arrays (``cards.py`` has the layouts):

- ``pub`` int32[P_SIZE]: everything public (the table: Gub slots, Barricades, Traps,
  Rings; the discard pile; hand sizes; Letters out; deck size; per-seat summaries, counts
  and slot masks);
- ``hand`` int32[6, NK]: copies of each card in each hand;
- ``deck`` int32[DECK_MAX]: card codes, bottom first; the top card is ``deck[n - 1]``;
- ``priv`` int32[V_SIZE]: cards in transit (played, waiting on an interrupt window),
  Scout knowledge, counters;
- ``st`` int32[6, NK, 2]: per seat and card, copies drawn and played (the card table);
- ``ctl`` int64[4]: (game index, trace flag, debug flag, unused).

Functions that ask a policy (interrupt windows, Gargok Plague, Traveling Merchant,
the turn loop) live in ``rules.py``.
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from cardsim.events import emit as append_event
from cardsim.games.gubs.cards import (
    BEETLE,
    CARD_TYPE,
    CARDS_PER_ROW,
    CRICKET,
    CURE,
    CYCLONE,
    DECK_MAX,
    ELDER,
    EV_CARDS,
    EV_DEAL,
    EV_DECK,
    EV_FREED,
    EV_GUB_IN,
    EV_MOVE,
    EV_PROTECTED,
    EV_REDEAL,
    EV_RING_IN,
    EV_SEEN,
    EV_SHUFFLE,
    EV_START,
    EV_TO_DECK,
    EV_TO_DISCARD,
    EV_TO_HAND,
    EV_TRAPPED,
    FLOOD,
    FLUTE,
    FROM_DECK,
    FROM_DISCARD,
    FROM_HAND,
    FROM_PEND,
    FROM_PLAY,
    GUB,
    HMASK,
    K_CURE_ANY,
    K_HAND_SIZE,
    K_LETTERS,
    K_LHAND,
    K_PSHUFFLE,
    K_REDRAW,
    K_RING_EXACT,
    K_STACK,
    K_STOLEN,
    K_THIEF_ANY,
    K_THIEF_TO,
    K_TOAD,
    LETTER_G,
    LETTERS_THIRDS,
    LIGHTNING,
    LURE,
    MAX_GUBS,
    MAX_RINGS,
    MAXS,
    MOTH,
    MUSHROOM,
    NK,
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
    OP_STOP,
    OP_THIEF,
    OP_UNBAR,
    OP_UNMUSH,
    P_ASIDE,
    P_BAR_ALL,
    P_BARS,
    P_BM,
    P_BT,
    P_BV,
    P_CUR,
    P_DECKN,
    P_DISC,
    P_ELD,
    P_ELDER,
    P_ELDER_SLOT,
    P_FREE,
    P_FREE_ALL,
    P_FREE_SLOTS,
    P_HANDN,
    P_HI,
    P_LETTERS,
    P_MUSH,
    P_MUSH_ALL,
    P_MUSHGUBS,
    P_NP,
    P_NRINGS,
    P_PROT,
    P_PROT_ALL,
    P_PROT_SLOTS,
    P_RINGED,
    P_RINGED_ALL,
    P_RINGS_ON,
    P_RKIND,
    P_RN,
    P_RSIDE,
    P_SCORE,
    P_SIDE,
    P_SIZE,
    P_SPOUT_ALL,
    P_SPOUT_SLOTS,
    P_SPOUTED,
    P_TOADGUBS,
    P_TRAP,
    P_TURN,
    REDRAW_NONE,
    REDRAW_SAME,
    RETREAT,
    RING1,
    RING2,
    RING3,
    SCOUT,
    SPEAR,
    SPOUT,
    STOLEN_DISCARD,
    STOLEN_RETURN,
    SUPERLURE,
    T_EVENT,
    T_LETTER,
    THIEF,
    TOAD,
    TRAP_RING0,
    TRAP_SPOUT,
    V_DECK_VER,
    V_PEND,
    V_SCOUT_N,
    V_SCOUT_VER,
    V_SIZE,
)
from cardsim.jit import DISABLED, njit
from cardsim.rng import DEAL, EFFECT, GOLDEN, bounded, mix64, randint, seed_stream, shuffle

C_GAME, C_TRACE, C_DEBUG = 0, 1, 2
#: err[3] marks which failure stopped a chunk (the wrapper raises on it)
E_POLICY, E_CONSERVE = 1, 2
D_DRAW, D_PLAY, D_RESPOND, D_PICK = 0, 1, 2, 3
#: card-kind masks for :func:`legal_plays` (bit k: card code k)
BAR_BITS = (1 << MUSHROOM) | (1 << TOAD) | (1 << MOTH)
RING_BITS = (1 << RING1) | (1 << RING2) | (1 << RING3)
#: unsigned index: ``pub[U(P_FREE + s)]`` skips the wrap-around code numba emits for a
#: signed index it cannot prove non-negative (convert the whole index: uint64 + int64 is float64);
#: interpreted (NUMBA_DISABLE_JIT=1) it is a plain int, as a numpy call per index costs 2x there
U = int if DISABLED else np.uint64
HT_BITS = ((1 << (CURE + 1)) - 1) ^ ((1 << LURE) - 1)  # the Hazards and Tools, LURE..CURE
REP_BITS = (1 << MUSHROOM) | (1 << TOAD) | (1 << THIEF) | (1 << SPEAR) | (1 << CRICKET)
#: the kinds whose plays :func:`play_count` counts from more than the opponents' Free Gubs
RARE_BITS = ((1 << SUPERLURE) | (1 << CYCLONE) | (1 << LIGHTNING) | (1 << THIEF) | (1 << SPEAR) | (1 << SCOUT)
             | (1 << CRICKET) | (1 << RING2) | (1 << RING3))

if DISABLED:  # interpreted kernels: LLVM's count-trailing-zeros is not there
    def lowest_bit(x):
        """The index of the lowest set bit of ``x`` > 0."""
        return int(x & -x).bit_length() - 1
else:
    from numba.cpython.unsafe.numbers import trailing_zeros as lowest_bit
DECISION_NAMES = ("draw", "play", "respond", "pick")


# -- trace ------------------------------------------------------------------------------
@njit(_nrt=False)
def trace_row(ctl, ev, evn, kind, seat, a, b, c, d, e):
    """Append one trace row (game, kind, seat, a..e) to ``ev`` (int64[cap, 8]) when tracing
    (:func:`cardsim.events.emit`: rows past the capacity are counted)."""
    if ctl[C_TRACE] != 0:
        append_event(ev, evn, ctl[C_GAME], kind, seat, a, b, c, d, e)


def emit(ctl, ev, evn, kind, seat, a, b, c, d, e):
    """:func:`trace_row`, where ``ev`` is the trace buffer or a 1-D placeholder in the lean
    kernels (:func:`cardsim.games.gubs.rules.lean`), for which the compiled ``emit`` is empty:
    the lean kernels then carry no trace code at all (smaller, with fewer spills; measured in
    ``docs/speed.md``). Interpreted (``NUMBA_DISABLE_JIT=1``) this function runs as written."""
    if ev.ndim == 2:
        trace_row(ctl, ev, evn, kind, seat, a, b, c, d, e)


if not DISABLED:
    # Not ``inline="always"``: numba's IR inlining of this overload broke games (a debug run
    # failed its conservation check and lean games changed); LLVM inlines the small body anyway.
    @overload(emit, jit_options={"_nrt": False})
    def _emit_jit(ctl, ev, evn, kind, seat, a, b, c, d, e):
        if ev.ndim != 2:
            return lambda ctl, ev, evn, kind, seat, a, b, c, d, e: None
        return lambda ctl, ev, evn, kind, seat, a, b, c, d, e: trace_row(ctl, ev, evn, kind, seat, a, b, c, d, e)


@njit(_nrt=False)
def deck_card(deck, n, j):
    """The ``j``-th card from the top of a deck of ``n`` cards (-1 past the bottom)."""
    return deck[n - 1 - j] if j < n else -1


@njit(_nrt=False)
def emit_deck(ctl, ev, evn, kind, deck, n):
    """Trace the whole deck: a ``kind`` row (EV_DECK after set-up, EV_SHUFFLE after a shuffle)
    with its size, then EV_CARDS rows of CARDS_PER_ROW cards each, top first (-1 pads the last)."""
    if ctl[C_TRACE] == 0:
        return
    emit(ctl, ev, evn, kind, -1, n, 0, 0, 0, 0)
    for j in range(0, n, CARDS_PER_ROW):
        emit(ctl, ev, evn, EV_CARDS, -1, deck_card(deck, n, j), deck_card(deck, n, j + 1),
             deck_card(deck, n, j + 2), deck_card(deck, n, j + 3), deck_card(deck, n, j + 4))


@njit(_nrt=False, inline="always")
def seat_at(a, d, n):
    """Seat ``d`` places after ``a`` (0 <= d < n): ``seat_at(a, d, n)`` without a division."""
    o = a + d
    return o - n if o >= n else o


@njit(_nrt=False, inline="always")
def is_event(card):
    t = CARD_TYPE[card]
    return t == T_EVENT or t == T_LETTER


# -- summaries --------------------------------------------------------------------------
@njit(_nrt=False)
def refresh(pub):
    """Recompute the per-seat summaries of ``pub`` from the slot and ring tables."""
    for s in range(MAXS):
        pub[U(P_SCORE + s)] = 0
        pub[U(P_FREE + s)] = 0
        pub[U(P_PROT + s)] = 0
        pub[U(P_SPOUTED + s)] = 0
        pub[U(P_RINGED + s)] = 0
        pub[U(P_BARS + s)] = 0
        pub[U(P_MUSH + s)] = 0
        pub[U(P_MUSHGUBS + s)] = 0
        pub[U(P_TOADGUBS + s)] = 0
        pub[U(P_RINGS_ON + s)] = 0
        pub[U(P_FREE_SLOTS + s)] = 0
        pub[U(P_SPOUT_SLOTS + s)] = 0
        pub[U(P_PROT_SLOTS + s)] = 0
    pub[P_ELDER] = -1
    pub[P_ELDER_SLOT] = -1
    hi = 0
    for i in range(pub[P_HI]):
        s = pub[U(P_SIDE + i)]
        if s < 0:
            continue
        hi = i + 1
        if pub[U(P_ELD + i)] != 0:
            pub[P_ELDER] = s
            pub[P_ELDER_SLOT] = i
            pub[U(P_SCORE + s)] += 1
            continue
        tr = pub[U(P_TRAP + i)]
        if tr == 0:
            pub[U(P_SCORE + s)] += 1
            m = pub[U(P_BM + i)]
            t = pub[U(P_BT + i)]
            b = m + t + pub[U(P_BV + i)]
            if b == 0:
                pub[U(P_FREE + s)] += 1
                pub[U(P_FREE_SLOTS + s)] |= 1 << i
            else:
                pub[U(P_PROT + s)] += 1
                pub[U(P_PROT_SLOTS + s)] |= 1 << i
                pub[U(P_BARS + s)] += b
                pub[U(P_MUSH + s)] += m
                if m > 0:
                    pub[U(P_MUSHGUBS + s)] += 1
                if t > 0:
                    pub[U(P_TOADGUBS + s)] += 1
        elif tr == TRAP_SPOUT:
            pub[U(P_SPOUTED + s)] += 1
            pub[U(P_SPOUT_SLOTS + s)] |= 1 << i
        else:
            pub[U(P_RINGED + s)] += 1
    pub[P_HI] = hi
    nr = 0
    for r in range(MAX_RINGS):
        s = pub[U(P_RSIDE + r)]
        if s >= 0:
            pub[U(P_RINGS_ON + s)] += 1
            nr += 1
    pub[P_NRINGS] = nr
    ma = 0
    ba = 0
    pa = 0
    sa = 0
    fa = 0
    ra = 0
    for s in range(MAXS):
        ma += pub[U(P_MUSH + s)]
        ba += pub[U(P_BARS + s)]
        pa += pub[U(P_PROT + s)]
        sa += pub[U(P_SPOUTED + s)]
        fa += pub[U(P_FREE + s)]
        ra += pub[U(P_RINGED + s)]
    pub[P_MUSH_ALL] = ma
    pub[P_BAR_ALL] = ba
    pub[P_PROT_ALL] = pa
    pub[P_SPOUT_ALL] = sa
    pub[P_FREE_ALL] = fa
    pub[P_RINGED_ALL] = ra


@njit(_nrt=False, inline="always")
def mask_delta(pub, off, bit, d):
    """Set (``d`` = 1) or clear (``d`` = -1) ``bit`` of the slot mask ``pub[off]``."""
    pub[off] = pub[off] | bit if d > 0 else pub[off] & ~bit


@njit(_nrt=False, inline="always")
def slot_delta(pub, i, d):
    """Add (``d`` = 1) or take away (``d`` = -1) slot ``i``'s part of the per-seat summaries
    (the counts, and the masks of Free, Sud Spout and Protected Gub slots), as :func:`refresh`
    counts it. Every change to a slot is bracketed by the two, so the
    summaries stay current without a full refresh after each play."""
    s = pub[U(P_SIDE + i)]
    if s < 0:
        return
    if pub[U(P_ELD + i)] != 0:
        pub[U(P_SCORE + s)] += d
        pub[P_ELDER] = s if d > 0 else -1
        pub[P_ELDER_SLOT] = i if d > 0 else -1
        return
    tr = pub[U(P_TRAP + i)]
    if tr == 0:
        pub[U(P_SCORE + s)] += d
        m = pub[U(P_BM + i)]
        t = pub[U(P_BT + i)]
        b = m + t + pub[U(P_BV + i)]
        if b == 0:
            pub[U(P_FREE + s)] += d
            pub[P_FREE_ALL] += d
            mask_delta(pub, U(P_FREE_SLOTS + s), 1 << i, d)
        else:
            pub[U(P_PROT + s)] += d
            pub[P_PROT_ALL] += d
            mask_delta(pub, U(P_PROT_SLOTS + s), 1 << i, d)
            pub[U(P_BARS + s)] += d * b
            pub[P_BAR_ALL] += d * b
            pub[U(P_MUSH + s)] += d * m
            pub[P_MUSH_ALL] += d * m
            if m > 0:
                pub[U(P_MUSHGUBS + s)] += d
            if t > 0:
                pub[U(P_TOADGUBS + s)] += d
    elif tr == TRAP_SPOUT:
        pub[U(P_SPOUTED + s)] += d
        pub[P_SPOUT_ALL] += d
        mask_delta(pub, U(P_SPOUT_SLOTS + s), 1 << i, d)
    else:
        pub[U(P_RINGED + s)] += d
        pub[P_RINGED_ALL] += d


@njit(_nrt=False, inline="always")
def ring_delta(pub, r, d):
    """:func:`slot_delta` for Ring ``r``."""
    s = pub[U(P_RSIDE + r)]
    if s >= 0:
        pub[U(P_RINGS_ON + s)] += d
        pub[P_NRINGS] += d


@njit(_nrt=False)
def summaries_ok(pub, tmp):
    """Debug: the summaries kept by :func:`slot_delta` equal a full :func:`refresh`, and the slot
    masks give :func:`find_slot` and :func:`protected_reps` the slots a walk of the table finds
    (``tmp``: int32 scratch of P_SIZE or more)."""
    t = tmp[:P_SIZE]
    for k in range(P_SIZE):
        t[k] = pub[k]
    refresh(t)
    for k in range(P_SIZE):
        if t[k] != pub[k]:
            return False
    for side in range(pub[P_NP]):
        for cls in range(2):
            if find_slot(pub, side, cls) != find_slot_scan(pub, side, cls):
                return False
    a = tmp[:MAX_GUBS]
    b = tmp[MAX_GUBS:2 * MAX_GUBS]
    for ld in range(-1, pub[P_NP]):
        k = protected_reps(pub, a, ld)
        if k != protected_reps_scan(pub, b, ld):
            return False
        for j in range(k):
            if a[j] != b[j]:
                return False
    return True


@njit(_nrt=False)
def conserve(pub, hand, deck, priv, cnt, tmp):
    """Debug (DESIGN "Correctness"): count every card in every place; 0 when each card
    of ``cnt`` is in exactly one place and the hand/deck counters agree, else the first
    card code whose count is off plus 1 (or -1 for a counter mismatch). ``tmp``: int32
    scratch of NK or more."""
    for k in range(NK):
        tmp[k] = 0
    n = pub[P_NP]
    for i in range(pub[P_DECKN]):
        tmp[deck[i]] += 1
    for s in range(MAXS):
        tot = 0
        for k in range(NK):
            if hand[U(s), U(k)] < 0:
                return -1
            tot += hand[U(s), U(k)]
            tmp[k] += hand[U(s), U(k)]
        if tot != pub[U(P_HANDN + s)] or (s >= n and tot != 0) or hand[HMASK, U(s)] != hand_mask(hand, s):
            return -1
    for k in range(NK):
        tmp[k] += pub[U(P_DISC + k)] + priv[U(V_PEND + k)]
    for j in range(3):
        tmp[LETTER_G + j] += pub[U(P_ASIDE + j)]
    for i in range(MAX_GUBS):
        if pub[U(P_SIDE + i)] < 0:
            continue
        tmp[ELDER if pub[U(P_ELD + i)] != 0 else GUB] += 1
        tmp[MUSHROOM] += pub[U(P_BM + i)]
        tmp[TOAD] += pub[U(P_BT + i)]
        tmp[MOTH] += pub[U(P_BV + i)]
        tr = pub[U(P_TRAP + i)]
        if tr == TRAP_SPOUT:
            tmp[SPOUT] += 1
        elif tr >= TRAP_RING0:
            r = tr - TRAP_RING0
            if pub[U(P_RSIDE + r)] != pub[U(P_SIDE + i)]:
                return -1
    for r in range(MAX_RINGS):
        if pub[U(P_RSIDE + r)] >= 0:
            tmp[pub[U(P_RKIND + r)]] += 1
    for k in range(NK):
        if tmp[k] != cnt[k]:
            return k + 1
    return 0


@njit(_nrt=False)
def check(pub, hand, deck, priv, cnt, tmp, ctl, err):
    """Debug mode: raise when a card is lost or duplicated (err = game, code, -1, E_CONSERVE)."""
    if ctl[C_DEBUG] == 0:
        return
    code = conserve(pub, hand, deck, priv, cnt, tmp)
    if code == 0 and not summaries_ok(pub, tmp):
        code = -2
    if code != 0:
        err[0] = ctl[C_GAME]
        err[1] = code
        err[2] = -1
        err[3] = E_CONSERVE
        raise AssertionError("Gubs card conservation broken (see err)")


# -- small moves --------------------------------------------------------------------------
@njit(_nrt=False, inline="always")
def hand_add(pub, hand, s, card, k):
    """``k`` >= 1 copies of ``card`` into seat ``s``'s hand."""
    hand[U(s), U(card)] += k
    pub[U(P_HANDN + s)] += k
    hand[HMASK, U(s)] |= 1 << card


@njit(_nrt=False, inline="always")
def hand_take(pub, hand, s, card):
    """One copy of ``card`` leaves seat ``s``'s hand."""
    v = hand[U(s), U(card)] - 1
    hand[U(s), U(card)] = v
    pub[U(P_HANDN + s)] -= 1
    if v == 0:
        hand[HMASK, U(s)] &= ~(1 << card)


@njit(_nrt=False, inline="always")
def hand_mask(hand, s):
    """Seat ``s``'s mask of the card kinds it holds, counted afresh (bit k: ``hand[s, k] > 0``)."""
    m = 0
    for k in range(NK):
        if hand[U(s), U(k)] > 0:
            m |= 1 << k
    return m


@njit(_nrt=False)
def slot_new(pub, side, elder):
    """A Gub enters play on ``side`` in the lowest free slot (a Free Gub, or the Elder); returns
    the slot. The summaries are not updated (:func:`slot_delta`, or a :func:`refresh` after set-up)."""
    for i in range(MAX_GUBS):
        if pub[U(P_SIDE + i)] < 0:
            if i >= pub[P_HI]:
                pub[P_HI] = i + 1
            pub[U(P_SIDE + i)] = side
            pub[U(P_ELD + i)] = 1 if elder else 0
            pub[U(P_TRAP + i)] = 0
            pub[U(P_BM + i)] = 0
            pub[U(P_BT + i)] = 0
            pub[U(P_BV + i)] = 0
            return i
    raise AssertionError("Gubs slot table full")


@njit(_nrt=False, inline="always")
def slot_reset(pub, i):
    pub[U(P_SIDE + i)] = -1
    pub[U(P_ELD + i)] = 0
    pub[U(P_TRAP + i)] = 0
    pub[U(P_BM + i)] = 0
    pub[U(P_BT + i)] = 0
    pub[U(P_BV + i)] = 0


@njit(_nrt=False, inline="always")
def slot_clear(pub, i):
    """Slot ``i`` leaves play (whatever sat on it has already gone)."""
    slot_delta(pub, i, -1)
    slot_reset(pub, i)
    hi = pub[P_HI]
    while hi > 0 and pub[P_SIDE + hi - 1] < 0:
        hi -= 1
    pub[P_HI] = hi


@njit(_nrt=False, inline="always")
def slot_set(pub, off, i, v):
    """Set field ``off`` (P_TRAP, P_BM, P_BT, P_BV, P_SIDE) of slot ``i`` to ``v``, keeping the summaries."""
    slot_delta(pub, i, -1)
    pub[off + i] = v
    slot_delta(pub, i, 1)


@njit(_nrt=False)
def ring_clear(pub, r):
    """Ring ``r`` leaves play (its Gubs are no longer beneath it)."""
    ring_delta(pub, r, -1)
    pub[U(P_RSIDE + r)] = -1
    pub[U(P_RN + r)] = 0


@njit(_nrt=False, inline="always")
def find_slot(pub, side, cls):
    """First slot on ``side`` of class ``cls``: 0 a Free Gub, 1 a Gub under a Sud Spout; -1
    when there is none. The lowest bit of the seat's slot mask, which :func:`slot_delta` keeps
    (:func:`find_slot_scan` walks the table for the same answer)."""
    m = pub[U((P_FREE_SLOTS if cls == 0 else P_SPOUT_SLOTS) + side)]
    return lowest_bit(m) if m != 0 else -1


@njit(_nrt=False)
def find_slot_scan(pub, side, cls):
    """:func:`find_slot` by walking the slot table (the tests check the two agree)."""
    for i in range(pub[P_HI]):
        if pub[U(P_SIDE + i)] != side or pub[U(P_ELD + i)] != 0:
            continue
        tr = pub[U(P_TRAP + i)]
        if cls == 0:
            if tr == 0 and pub[U(P_BM + i)] + pub[U(P_BT + i)] + pub[U(P_BV + i)] == 0:
                return i
        elif tr == TRAP_SPOUT:
            return i
    return -1


@njit(_nrt=False)
def bar_index(card):
    return P_BM if card == MUSHROOM else (P_BT if card == TOAD else P_BV)


@njit(_nrt=False)
def bars_away(pub, hand, i, dest, seat, ctl, ev, evn):
    """Barricades of slot ``i`` leave it: to the discard pile (dest 0) or to ``seat``'s hand (dest 1)."""
    side = pub[U(P_SIDE + i)]
    if pub[U(P_BM + i)] + pub[U(P_BT + i)] + pub[U(P_BV + i)] == 0:
        return
    slot_delta(pub, i, -1)
    for card in (MUSHROOM, TOAD, MOTH):
        off = bar_index(card) + i
        k = pub[off]
        if k == 0:
            continue
        pub[off] = 0
        if dest == 0:
            pub[U(P_DISC + card)] += k
            emit(ctl, ev, evn, EV_TO_DISCARD, side, card, k, FROM_PLAY, i, 0)
        else:
            hand_add(pub, hand, seat, card, k)
            emit(ctl, ev, evn, EV_TO_HAND, seat, card, k, FROM_PLAY, side, i)
    slot_delta(pub, i, 1)


@njit(_nrt=False)
def gub_to_discard(pub, hand, i, ctl, ev, evn):
    """Slot ``i`` leaves play: its Gub, Barricades and Sud Spout go to the discard pile."""
    side = pub[U(P_SIDE + i)]
    bars_away(pub, hand, i, 0, -1, ctl, ev, evn)
    if pub[U(P_TRAP + i)] == TRAP_SPOUT:
        pub[P_DISC + SPOUT] += 1
        emit(ctl, ev, evn, EV_TO_DISCARD, side, SPOUT, 1, FROM_PLAY, i, 0)
    card = ELDER if pub[U(P_ELD + i)] != 0 else GUB
    pub[U(P_DISC + card)] += 1
    emit(ctl, ev, evn, EV_TO_DISCARD, side, card, 1, FROM_PLAY, i, 0)
    slot_clear(pub, i)


@njit(_nrt=False)
def deck_insert(deck, pub, priv, card, pos):
    """Put ``card`` into the deck at index ``pos`` (0 = bottom, n = top)."""
    n = pub[P_DECKN]
    for i in range(n, pos, -1):
        deck[i] = deck[i - 1]
    deck[pos] = card
    pub[P_DECKN] = n + 1
    priv[V_DECK_VER] += 1


@njit(_nrt=False)
def deck_insert_random(deck, pub, priv, card, rng, ctl, ev, evn, src, seat, place):
    """Put ``card`` back into the deck at a uniform position ("randomly", G2); returns its
    depth. ``src``: from seat ``seat``'s hand, the card in transit ``seat`` drew, the Gub slot
    ``place`` on seat ``seat``'s side, or the top of the deck (an Event dealt to ``seat``)."""
    n = pub[P_DECKN]
    pos = randint(rng, n + 1)
    deck_insert(deck, pub, priv, card, pos)
    emit(ctl, ev, evn, EV_TO_DECK, seat, card, n - pos, src, place, 0)
    return n - pos


@njit(_nrt=False, inline="always")
def draw_top(deck, pub):
    n = pub[P_DECKN] - 1
    pub[P_DECKN] = n
    return deck[n]


@njit(_nrt=False)
def draw_nonevent(s, deck, pub, priv, hand, st, rng, ctl, ev, evn, kind):
    """G2: draw into ``s``'s hand; an Event goes back into the deck at random and is replaced.
    Returns the card, or -1 when the deck holds no card but Events."""
    n = pub[P_DECKN]
    ok = False
    for i in range(n):
        if not is_event(deck[i]):
            ok = True
            break
    if not ok:
        return -1
    while True:
        c = draw_top(deck, pub)
        if is_event(c):
            depth = deck_insert_random(deck, pub, priv, c, rng, ctl, ev, evn, FROM_DECK, s, -1)
            emit(ctl, ev, evn, EV_REDEAL, s, c, depth, 0, 0, 0)
            continue
        st[U(s), U(c), 0] += 1
        hand_add(pub, hand, s, c, 1)
        emit(ctl, ev, evn, kind, s, c, 0, 0, 0, 0)
        return c


# -- set-up (G2) ----------------------------------------------------------------------------
@njit(_nrt=False)
def clear_state(n, pub, hand, priv, st):
    for i in range(P_SIZE):
        pub[i] = 0
    for i in range(V_SIZE):
        priv[i] = 0
    for s in range(MAXS):
        hand[HMASK, U(s)] = 0
        for k in range(NK):
            hand[U(s), U(k)] = 0
        for k in range(NK):
            st[U(s), U(k), 0] = 0
            st[U(s), U(k), 1] = 0
    for i in range(MAX_GUBS):  # slot_reset of every slot, on a pub already cleared
        pub[U(P_SIDE + i)] = -1
    for r in range(MAX_RINGS):
        pub[U(P_RSIDE + r)] = -1
    pub[P_NP] = n


@njit(_nrt=False, inline="always")
def shuffle_local(state, arr, n):
    """:func:`cardsim.rng.shuffle` (the same draws, the same order) with the stream's state kept
    in a local for the loop."""
    z = state[0]
    for i in range(n - 1, 0, -1):
        z = z + GOLDEN
        j = bounded(mix64(z), i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
    state[0] = z


@njit(_nrt=False)
def build_deck(n, cnt, kn, deck, drng, scr):
    """G2: the deck without the starting Gubs: Letters out, shuffle, Letters back in one in
    each third (``letter_placement = "thirds"``: the non-Letter cards split into three parts as
    equal as possible, top part first, each Letter at a uniform place in its part; the three
    Letters in random order) or shuffled anywhere. Writes ``deck`` (bottom first); returns
    its size."""
    d = 0
    for k in range(LETTER_G):
        c = cnt[k] - (n if k == GUB else 0)
        # eight places written at once (one vector store), c of them kept: a deck holds at most
        # DECK_MAX - 10 cards, so scr (DECK_MAX places or more) has room for the spare ones
        for t in range(8):
            scr[U(d + t)] = k
        for t in range(8, c):
            scr[U(d + t)] = k
        d += c
    if kn[K_LETTERS] != LETTERS_THIRDS:
        for j in range(3):
            scr[d] = LETTER_G + j
            d += 1
        shuffle_local(drng, scr, d)
        for i in range(d):
            deck[i] = scr[d - 1 - i]
        return d
    shuffle_local(drng, scr, d)
    lt = scr[d:d + 3]
    for j in range(3):
        lt[j] = LETTER_G + j
    shuffle(drng, lt, 3)
    tot = d + 3
    pos = tot - 1  # deck[tot - 1] is the top
    start = 0
    for j in range(3):
        size = d // 3 + (1 if j < d % 3 else 0)
        at = randint(drng, size + 1)
        # deck[pos - q], q = 0 .. size: the part's cards with the Letter at q = at
        for q in range(at):
            deck[U(pos - q)] = scr[U(start + q)]
        deck[U(pos - at)] = lt[j]
        for q in range(at + 1, size + 1):
            deck[U(pos - q)] = scr[U(start + q - 1)]
        pos -= size + 1
        start += size
    return tot


@njit(_nrt=False)
def setup_game(n, cnt, kn, stack, pub, hand, deck, priv, st, drng, scr, ctl, ev, evn):
    """G2: one Gub per player in play (never the Elder); the deck built by :func:`build_deck`;
    ``hand_size`` cards dealt to each player, one at a time from seat 0, a dealt Event
    (Letters included) put back into the deck at a random place and replaced.

    ``stack`` (int32, top first) replaces the built deck when non-empty (a stacked deck: the
    cards left after the starting Gubs are taken out, Letters included)."""
    clear_state(n, pub, hand, priv, st)
    for s in range(n):
        i = slot_new(pub, s, False)
        emit(ctl, ev, evn, EV_START, s, GUB, i, 0, 0, 0)
    if stack.shape[0] > 0:
        m = stack.shape[0]
        for i in range(m):
            deck[m - 1 - i] = stack[i]
        pub[P_DECKN] = m
    else:
        pub[P_DECKN] = build_deck(n, cnt, kn, deck, drng, scr)
    emit_deck(ctl, ev, evn, EV_DECK, deck, pub[P_DECKN])
    for _ in range(kn[K_HAND_SIZE]):
        for s in range(n):
            draw_nonevent(s, deck, pub, priv, hand, st, drng, ctl, ev, evn, EV_DEAL)
    refresh(pub)
    pub[P_CUR] = 0
    pub[P_TURN] = 0


# -- legal plays ----------------------------------------------------------------------------
@njit(_nrt=False, inline="always")
def addc(acts, n, cond, op, card, tseat, tslot, aux):
    """Append row (op, card, tseat, tslot, aux) when ``cond``: the row is written at ``acts[n]``
    either way (``acts`` has room for one row past any list) and ``n`` moves on only when
    ``cond`` holds, without a branch. Returns the new n."""
    acts[U(n), 0] = op
    acts[U(n), 1] = card
    acts[U(n), 2] = tseat
    acts[U(n), 3] = tslot
    acts[U(n), 4] = aux
    return n + (1 if cond else 0)


@njit(_nrt=False, inline="always")
def add(acts, n, op, card, tseat, tslot, aux):
    """Append row (op, card, tseat, tslot, aux) to ``acts[:n]``; returns n + 1."""
    return addc(acts, n, True, op, card, tseat, tslot, aux)


@njit(_nrt=False, inline="always")
def protected_reps(pub, reps, ld):
    """reps[:k] = one slot per distinct Protected Gub (same side and same Barricades are alike:
    the first such slot), in slot order; with ``ld`` >= 0 only those on seat ``ld``'s side (the
    order and the choice of slot are the same as in the full list, which they are a part of).
    The Protected Gubs are the bits of the seats' slot masks (:func:`slot_delta` keeps them);
    each is written at ``reps[k]`` and kept when unlike those kept before it, without a branch."""
    if ld >= 0:
        left = pub[U(P_PROT_SLOTS + ld)]
    else:
        left = 0
        for s in range(pub[P_NP]):
            left |= pub[U(P_PROT_SLOTS + s)]
    k = 0
    while left != 0:
        i = lowest_bit(left)
        left &= left - 1
        s = pub[U(P_SIDE + i)]
        m = pub[U(P_BM + i)]
        t = pub[U(P_BT + i)]
        v = pub[U(P_BV + i)]
        keep = True
        for j in range(k):
            q = reps[j]
            keep &= ((pub[U(P_SIDE + q)] != s) | (pub[U(P_BM + q)] != m) | (pub[U(P_BT + q)] != t)
                     | (pub[U(P_BV + q)] != v))
        reps[k] = i
        k += 1 if keep else 0
    return k


@njit(_nrt=False)
def protected_reps_scan(pub, reps, ld):
    """:func:`protected_reps` by walking the slot table (the tests check the two agree)."""
    k = 0
    for i in range(pub[P_HI]):
        s = pub[U(P_SIDE + i)]
        if s < 0 or pub[U(P_TRAP + i)] != 0 or pub[U(P_ELD + i)] != 0 or (ld >= 0 and s != ld):
            continue
        m = pub[U(P_BM + i)]
        t = pub[U(P_BT + i)]
        v = pub[U(P_BV + i)]
        if m + t + v == 0:
            continue
        dup = False
        for j in range(k):
            q = reps[j]
            if pub[U(P_SIDE + q)] == s and pub[U(P_BM + q)] == m and pub[U(P_BT + q)] == t and pub[U(P_BV + q)] == v:
                dup = True
                break
        if not dup:
            reps[k] = i
            k += 1
    return k


@njit(_nrt=False, inline="always")
def ring_fits(pub, aux, n):
    for s in range(n):
        if ((aux >> (2 * s)) & 3) > pub[U(P_FREE + s)]:
            return False
    return True


@njit(_nrt=False, inline="always")
def ht_plays(k, c, a, n, np_, nrep, pub, kn, acts, reps, ld, d0, d1):
    """Append the plays of Hazard or Tool ``k`` (LURE..CURE) played as card ``c`` (``k`` itself
    or Cricket Song acting as it, FAQ 3) by seat ``a`` to ``acts[:n]``; returns the new n.
    Opponents are the seats ``d0 .. d1 - 1`` places after ``a``; ``ld`` >= 0: only the plays
    ``simple`` can choose (:func:`legal_plays`)."""
    if k == LURE:
        for d in range(d0, d1):
            o = seat_at(a, d, np_)
            n = addc(acts, n, pub[U(P_FREE + o)] > 0, OP_LURE, c, o, -1, 0)
    elif k == SUPERLURE:
        for d in range(d0, d1):
            o = seat_at(a, d, np_)
            n = addc(acts, n, pub[U(P_FREE + o)] + pub[U(P_PROT + o)] > 0, OP_SLURE, c, o, -1, 0)
    elif k == CYCLONE:
        for d in range(d0, d1):
            o = seat_at(a, d, np_)
            n = addc(acts, n, pub[U(P_BARS + o)] > 0, OP_CYCLONE, c, o, -1, 0)
    elif k == LIGHTNING:
        e = pub[P_ELDER]
        n = addc(acts, n, e >= 0 and e != a and (ld < 0 or e == ld), OP_LIGHT_ELDER, c, e, pub[P_ELDER_SLOT], 0)
        if kn[K_LHAND] != 0:
            for d in range(d0, d1):
                o = seat_at(a, d, np_)
                n = addc(acts, n, pub[U(P_HANDN + o)] > 0, OP_LIGHT_HAND, c, o, -1, 0)
    elif k == THIEF:
        for d in range(d0, d1):
            o = seat_at(a, d, np_)
            n = addc(acts, n, pub[U(P_FREE + o)] > 0, OP_THIEF, c, o, -1, 0)
            n = addc(acts, n, pub[U(P_SPOUTED + o)] > 0, OP_THIEF, c, o, -1, 1)
            if kn[K_THIEF_ANY] != 0:
                for j in range(nrep):
                    i = reps[j]
                    n = addc(acts, n, pub[U(P_SIDE + i)] == o, OP_THIEF, c, o, i, 2)
    elif k == BEETLE:
        n = addc(acts, n, pub[P_MUSH_ALL] > 0, OP_BEETLE, c, -1, -1, 0)
    elif k == SPEAR:
        if pub[P_SPOUT_ALL] > 0:
            for s in range(np_):
                # simple frees only its own
                n = addc(acts, n, pub[U(P_SPOUTED + s)] > 0 and (ld < 0 or s == a), OP_SPEAR_SPOUT, c, s, -1, 0)
        for j in range(nrep):
            i = reps[j]
            for b in (MUSHROOM, TOAD, MOTH):
                n = addc(acts, n, pub[bar_index(b) + i] > 0, OP_SPEAR_BAR, c, pub[U(P_SIDE + i)], i, b)
    elif k == FLUTE:
        if pub[P_NRINGS] > 0:
            for r in range(MAX_RINGS):
                # simple: Rings holding Gubs
                n = addc(acts, n, pub[U(P_RSIDE + r)] >= 0 and (ld < 0 or pub[U(P_RN + r)] > 0), OP_FLUTE, c,
                         pub[U(P_RSIDE + r)], -1, r)
    elif ld >= 0 and (k == SCOUT or k == RETREAT):  # simple keeps them
        pass
    elif k == SCOUT:
        n = addc(acts, n, pub[P_DECKN] > 0, OP_SCOUT_DECK, c, -1, -1, 0)
        for d in range(1, np_):
            o = seat_at(a, d, np_)
            n = addc(acts, n, pub[U(P_HANDN + o)] > 0, OP_SCOUT_HAND, c, o, -1, 0)
    elif k == RETREAT:
        n = addc(acts, n, (pub[U(P_FREE + a)] + pub[U(P_PROT + a)] + pub[U(P_SPOUTED + a)] + pub[U(P_RINGED + a)]
                           + pub[U(P_RINGS_ON + a)]) > 0, OP_RETREAT, c, a, -1, 0)
    elif k == CURE:  # any card of the discard pile but the Elder (FAQ 5) and Events
        if kn[K_CURE_ANY] == 0 or ld >= 0:  # simple takes back only a Gub
            n = addc(acts, n, pub[P_DISC + GUB] > 0, OP_CURE, c, -1, -1, GUB)
        else:
            for q in range(FLOOD):  # the card codes below Flash Flood are the cards that are not Events
                n = addc(acts, n, pub[U(P_DISC + q)] > 0 and q != ELDER, OP_CURE, c, -1, -1, q)
    return n


@njit(_nrt=False, inline="always")
def bar_plays(a, n, hm, stack, nrep, pub, kn, acts, reps):
    """Append the Barricades' plays of seat ``a`` (hand mask ``hm``) to ``acts[:n]``; returns the
    new n: protect your Free Gub (never the Elder, FAQ 5) or, ``stack``, a Protected Gub of your
    own (``reps[:nrep]``), then Mushroom and Toad Rider destroying a Barricade."""
    for b in (MUSHROOM, TOAD, MOTH):
        if hm & (1 << b) == 0:
            continue
        n = addc(acts, n, pub[U(P_FREE + a)] > 0, OP_PROTECT, b, a, -1, 0)
        if stack:
            for j in range(nrep):
                i = reps[j]
                n = addc(acts, n, pub[U(P_SIDE + i)] == a, OP_PROTECT, b, a, i, 0)
    if hm & (1 << MUSHROOM):
        for j in range(nrep):
            i = reps[j]
            n = addc(acts, n, pub[U(P_BM + i)] > 0, OP_UNMUSH, MUSHROOM, pub[U(P_SIDE + i)], i, MUSHROOM)
    if hm & (1 << TOAD) and kn[K_TOAD] != 0:
        for j in range(nrep):
            i = reps[j]
            for b in (MUSHROOM, TOAD, MOTH):
                n = addc(acts, n, pub[bar_index(b) + i] > 0, OP_UNBAR, TOAD, pub[U(P_SIDE + i)], i, b)
    return n


@njit(_nrt=False, inline="always")
def legal_plays(a, pub, hand, kn, acts, reps, ld):
    """Fill ``acts[:n]`` (int32[MAX_ACTS, 5] rows op, card, tseat, tslot, aux) with seat ``a``'s
    legal plays, ``acts[0]`` = stop; return n. Copies of a card are one play; Free Gubs of one
    side are alike (``tslot = -1``: the effect takes the first such Gub); Protected Gubs alike
    in side and Barricades are one target. Hazards and Traps that pick a player or a Gub pick
    an opponent (the sheet: they attack opponents).

    The order of the rows is part of the game (``random`` draws an index): stop, Gubs, the
    Barricades' plays, Sud Spout, Rings, then each Hazard and Tool held in card order, then
    each again as Cricket Song. Only the kinds held are visited (``hand[HMASK, a]``).

    ``ld`` = -1 lists every legal play. ``ld`` >= 0 (the kernel where every seat plays
    ``simple``; ``ld`` its leader) lists only the plays whose ``policies.simple_value`` can be
    above stop's, in the same order: attacks on the leader only, no Cricket Song, Scout,
    Retreat or stacked Barricade, Flute on a Ring holding Gubs, Spear on one's own Sud Spout,
    Age-Old Cure on a Gub. ``simple`` takes the first best row, so it makes the same choice
    from either list (``test_gubs_game``: the lean ``simple`` kernel plays the games of the
    general one, whose list is full)."""
    n = add(acts, 0, OP_STOP, -1, -1, -1, 0)
    hm = hand[HMASK, U(a)]
    np_ = pub[P_NP]
    n = addc(acts, n, hm & (1 << GUB) != 0, OP_GUB, GUB, a, -1, 0)
    n = addc(acts, n, hm & (1 << ELDER) != 0, OP_GUB, ELDER, a, -1, 0)
    stack = kn[K_STACK] != 0 and ld < 0  # simple never stacks a Barricade (its value 0)
    d0 = 1  # the opponents attacked: d0 .. d1 - 1 places after a (simple: its leader only)
    d1 = np_
    if ld >= 0:
        hm &= ~(1 << CRICKET)  # simple keeps Cricket Song for interrupts
        d0 = ld - a if ld > a else ld - a + np_
        d1 = d0 + 1
    nrep = 0
    if (pub[P_PROT_ALL] > 0 and (ld < 0 or pub[U(P_PROT + ld)] > 0)  # simple: reps on its leader's side only
            and (hm & REP_BITS or (stack and hm & (1 << MOTH)))):
        nrep = protected_reps(pub, reps, ld)
    if hm & BAR_BITS:
        n = bar_plays(a, n, hm, stack, nrep, pub, kn, acts, reps)
    # Traps
    if hm & (1 << SPOUT):
        for d in range(d0, d1):
            o = seat_at(a, d, np_)
            n = addc(acts, n, pub[U(P_FREE + o)] > 0, OP_SPOUT, SPOUT, o, -1, 0)
    if hm & RING_BITS and pub[P_FREE_ALL] > pub[U(P_FREE + a)] and (ld < 0 or pub[U(P_FREE + ld)] > 0):
        n = ring_plays(a, n, hm, np_, pub, kn, acts, ld)
    # Hazards and Tools: the cards themselves, then Cricket Song acting as each (FAQ 3)
    ht = hm & HT_BITS
    while ht != 0:
        k = lowest_bit(ht)
        ht &= ht - 1
        n = ht_plays(k, k, a, n, np_, nrep, pub, kn, acts, reps, ld, d0, d1)
    if hm & (1 << CRICKET):
        for k in range(LURE, CURE + 1):
            n = ht_plays(k, CRICKET, a, n, np_, nrep, pub, kn, acts, reps, ld, d0, d1)
    return n


@njit(_nrt=False, inline="always")
def play_count(a, pub, hand, kn, acts, reps):
    """The number of rows :func:`legal_plays` lists for seat ``a`` (every play, ``ld`` = -1),
    counted without writing them: each kind's rows are counted from the per-seat summaries
    and taken or not by its bit of the hand mask, without a branch (``random`` picks a row
    uniformly, and which kinds a hand holds is as random: the branches of a listing that
    visits the kinds held are mispredicted). The Protected Gub representatives (needed for
    a kind that acts on them), the Rings' rows (listed into ``acts`` as scratch), the Age-Old
    Cure's and Cricket Song's rows are found only when the hand holds such a card.
    ``reps[:nrep]`` is left as :func:`legal_plays` fills it. Returns (m, nrep)."""
    hm = hand[HMASK, U(a)]
    np_ = pub[P_NP]
    stack = 1 if kn[K_STACK] != 0 else 0
    # opponents with a Free Gub, a Free or Protected Gub, a Barricade, a card, a Sud Spout, 2 and 3 Free Gubs
    nfree = 0
    nfp = 0
    nbars = 0
    nhand = 0
    nspout = 0
    f2 = 0
    f3 = 0
    s2 = 0
    s3 = 0
    if np_ == 2:  # one opponent (the same in every game of a run: a branch always predicted)
        o = 1 - a
        fo = pub[U(P_FREE + o)]
        nfree = 1 if fo > 0 else 0
        nfp = 1 if fo + pub[U(P_PROT + o)] > 0 else 0
        nbars = 1 if pub[U(P_BARS + o)] > 0 else 0
        nhand = 1 if pub[U(P_HANDN + o)] > 0 else 0
        nspout = 1 if pub[U(P_SPOUTED + o)] > 0 else 0
        # with one opponent, its Free Gubs taken two or three at a time: fo >= 2 and fo >= 3 from
        # the sign bit (as compares LLVM made them a branch, mispredicted)
        s2 = ((np.int64(1) - fo) >> 63) & 1
        s3 = ((np.int64(2) - fo) >> 63) & 1
    else:
        for d in range(1, np_):
            nfree += 1 if pub[U(P_FREE + seat_at(a, d, np_))] > 0 else 0
        if hm & RARE_BITS:  # the other counts only for the kinds that need them, seldom held
            for d in range(1, np_):
                o = seat_at(a, d, np_)
                fo = pub[U(P_FREE + o)]
                nfp += 1 if fo + pub[U(P_PROT + o)] > 0 else 0
                nbars += 1 if pub[U(P_BARS + o)] > 0 else 0
                nhand += 1 if pub[U(P_HANDN + o)] > 0 else 0
                nspout += 1 if pub[U(P_SPOUTED + o)] > 0 else 0
                f2 += 1 if fo >= 2 else 0
                f3 += 1 if fo >= 3 else 0
            # the Rings' ways to take 2 or 3 opponents' Free Gubs (ring_plays: counts per seat): the
            # multisets of 2 or 3 opponents that fit: of distinct opponents (nfree of them), one
            # twice (f2), one three times (f3)
            s2 = (nfree * (nfree - 1)) // 2 + f2
            s3 = (nfree * (nfree - 1) * (nfree - 2)) // 6 + f2 * (nfree - 1) + f3
    nrep = 0
    ra = 0  # representatives on a's side, with a Mushroom, and their Barricade kinds
    rm = 0
    rbk = 0
    if (pub[P_PROT_ALL] > 0) & (hm & (REP_BITS | (stack << MOTH)) != 0):
        nrep = protected_reps(pub, reps, -1)
        for j in range(nrep):
            i = reps[j]
            ra += 1 if pub[U(P_SIDE + i)] == a else 0
            bm = 1 if pub[U(P_BM + i)] > 0 else 0
            rm += bm
            rbk += bm + (1 if pub[U(P_BT + i)] > 0 else 0) + (1 if pub[U(P_BV + i)] > 0 else 0)
    nb = ((hm >> MUSHROOM) & 1) + ((hm >> TOAD) & 1) + ((hm >> MOTH) & 1)
    m = 1 + ((hm >> GUB) & 1) + ((hm >> ELDER) & 1) + nb * ((1 if pub[U(P_FREE + a)] > 0 else 0) + stack * ra)
    m += rm if hm & (1 << MUSHROOM) else 0
    m += rbk if hm & ((1 if kn[K_TOAD] != 0 else 0) << TOAD) else 0
    m += nfree if hm & (1 << SPOUT) else 0
    # the Rings (ring_plays): one way per opponent with a Free Gub to take one, s2 and s3 ways to take
    # two and three; ring_exact = false adds the smaller numbers
    lo = 0 if kn[K_RING_EXACT] != 0 else 1
    m += nfree if hm & (1 << RING1) else 0
    m += s2 + lo * nfree if hm & (1 << RING2) else 0
    m += s3 + lo * (s2 + nfree) if hm & (1 << RING3) else 0
    # the Hazards and Tools (ht_plays, ld = -1, every opponent)
    e = pub[P_ELDER]
    c_light = (1 if (e >= 0) & (e != a) else 0) + (nhand if kn[K_LHAND] != 0 else 0)
    c_thief = nfree + nspout + (nrep - ra if kn[K_THIEF_ANY] != 0 else 0)
    c_beetle = 1 if pub[P_MUSH_ALL] > 0 else 0
    c_spear = nspout + (1 if pub[U(P_SPOUTED + a)] > 0 else 0) + rbk
    c_flute = pub[P_NRINGS]
    c_scout = (1 if pub[P_DECKN] > 0 else 0) + nhand
    c_retreat = 1 if (pub[U(P_FREE + a)] + pub[U(P_PROT + a)] + pub[U(P_SPOUTED + a)] + pub[U(P_RINGED + a)]
                      + pub[U(P_RINGS_ON + a)]) > 0 else 0
    m += nfree if hm & (1 << LURE) else 0
    m += nfp if hm & (1 << SUPERLURE) else 0
    m += nbars if hm & (1 << CYCLONE) else 0
    m += c_light if hm & (1 << LIGHTNING) else 0
    m += c_thief if hm & (1 << THIEF) else 0
    m += c_beetle if hm & (1 << BEETLE) else 0
    m += c_spear if hm & (1 << SPEAR) else 0
    m += c_flute if hm & (1 << FLUTE) else 0
    m += c_scout if hm & (1 << SCOUT) else 0
    m += c_retreat if hm & (1 << RETREAT) else 0
    if hm & ((1 << CURE) | (1 << CRICKET)):  # two and one copies: seldom held
        if kn[K_CURE_ANY] == 0:
            c_cure = 1 if pub[P_DISC + GUB] > 0 else 0
        else:
            c_cure = 0
            for q in range(FLOOD):  # the cards that are not Events, the Elder excepted
                c_cure += 1 if pub[U(P_DISC + q)] > 0 and q != ELDER else 0
        m += c_cure if hm & (1 << CURE) else 0
        if hm & (1 << CRICKET):  # Cricket Song as each Hazard and Tool
            m += (nfree + nfp + nbars + c_light + c_thief + c_beetle + c_spear + c_flute + c_scout + c_retreat
                  + c_cure)
    return m, nrep


@njit(_nrt=False, inline="always")
def play_row(a, k, pub, hand, kn, acts, reps, nrep):
    """Write row ``k`` (1 <= k < m) of seat ``a``'s full :func:`legal_plays` list at ``acts[k]``,
    after :func:`play_count` (its ``reps[:nrep]``): the list as :func:`legal_plays` writes it,
    stopped after the kind whose rows hold row ``k``."""
    hm = hand[HMASK, U(a)]
    np_ = pub[P_NP]
    n = add(acts, 1, OP_GUB, GUB, a, -1, 0) if hm & (1 << GUB) else 1
    n = add(acts, n, OP_GUB, ELDER, a, -1, 0) if hm & (1 << ELDER) else n
    if n > k:
        return
    stack = kn[K_STACK] != 0
    if hm & BAR_BITS:
        n = bar_plays(a, n, hm, stack, nrep, pub, kn, acts, reps)
        if n > k:
            return
    if hm & (1 << SPOUT):
        for d in range(1, np_):
            o = seat_at(a, d, np_)
            n = addc(acts, n, pub[U(P_FREE + o)] > 0, OP_SPOUT, SPOUT, o, -1, 0)
        if n > k:
            return
    if hm & RING_BITS and pub[P_FREE_ALL] > pub[U(P_FREE + a)]:
        n = ring_plays(a, n, hm, np_, pub, kn, acts, -1)
        if n > k:
            return
    # the Hazards and Tools held, then Cricket Song as each: one ht_plays call, a kind at a time
    ht = hm & HT_BITS
    q = LURE
    c = GUB
    for _ in range(2 * (CURE + 1 - LURE)):
        if ht != 0:
            q = lowest_bit(ht)
            ht &= ht - 1
            c = q
        else:
            q = LURE if c != CRICKET else q + 1
            c = CRICKET
        n = ht_plays(q, c, a, n, np_, nrep, pub, kn, acts, reps, -1, 1, np_)
        if n > k:
            return


@njit(_nrt=False, inline="always")
def ring_row(acts, n, pub, ring, aux, np_, ld):
    """The row of ``ring`` taking ``aux`` (Free Gubs a seat, two bits each) when they are there
    to take and, for ``simple`` (``ld`` >= 0), one of them is its leader's."""
    return addc(acts, n, ring_fits(pub, aux, np_) and (ld < 0 or (aux >> (2 * ld)) & 3 != 0), OP_RING, ring,
                -1, -1, aux)


@njit(_nrt=False)
def ring_plays(a, n, hm, np_, pub, kn, acts, ld):
    """The Rings' plays of :func:`legal_plays` (each Ring held: every way to pick exactly its
    number of opponents' Free Gubs, as counts per seat; ``ring_exact = false``: up to it).
    ``ld`` >= 0: only those that take a Gub of ``simple``'s leader ``ld``."""
    for ring in range(RING1, RING3 + 1):
        if hm & (1 << ring) == 0:
            continue
        k = ring - RING1 + 1
        lo = k if kn[K_RING_EXACT] != 0 else 1
        for size in range(lo, k + 1):
            if size == 1:
                for d1 in range(1, np_):
                    aux = 1 << (2 * seat_at(a, d1, np_))
                    n = ring_row(acts, n, pub, ring, aux, np_, ld)
            elif size == 2:
                for d1 in range(1, np_):
                    for d2 in range(d1, np_):
                        aux = (1 << (2 * seat_at(a, d1, np_))) + (1 << (2 * seat_at(a, d2, np_)))
                        n = ring_row(acts, n, pub, ring, aux, np_, ld)
            else:
                for d1 in range(1, np_):
                    for d2 in range(d1, np_):
                        for d3 in range(d2, np_):
                            aux = ((1 << (2 * seat_at(a, d1, np_))) + (1 << (2 * seat_at(a, d2, np_)))
                                   + (1 << (2 * seat_at(a, d3, np_))))
                            n = ring_row(acts, n, pub, ring, aux, np_, ld)
    return n


# -- effects --------------------------------------------------------------------------------
@njit(_nrt=False)
def move_gub(pub, i, to, op, ctl, ev, evn):
    emit(ctl, ev, evn, EV_MOVE, pub[U(P_SIDE + i)], i, to, op, 0, 0)
    slot_set(pub, P_SIDE, i, to)


@njit(_nrt=False)
def stolen_bars(pub, hand, i, victim, kn, ctl, ev, evn):
    """Barricades of a Gub taken by Super Lure or Smahl Thief (knob stolen_barricades)."""
    mode = kn[K_STOLEN]
    if mode == STOLEN_RETURN:
        bars_away(pub, hand, i, 1, victim, ctl, ev, evn)
    elif mode == STOLEN_DISCARD:
        bars_away(pub, hand, i, 0, -1, ctl, ev, evn)


@njit(_nrt=False, inline="always")
def target_slot(a, op, ts, tsl, aux, pub):
    """The slot a play of seat ``a`` acts on: ``tsl`` when its row names one, else for a play
    on one Gub of a side (``tslot = -1``: such Gubs are alike) the first such Gub: a Free Gub
    of ``a`` (a Barricade) or of ``ts`` (Sud Spout, Lure, Smahl Thief with aux 0), or a Gub of
    ``ts`` under a Sud Spout (Smahl Thief with aux 1); -1 for plays on no single Gub."""
    if tsl >= 0:
        return tsl
    if op == OP_PROTECT:
        return find_slot(pub, a, 0)
    if op == OP_SPOUT or op == OP_LURE:
        return find_slot(pub, ts, 0)
    if op == OP_THIEF:
        return find_slot(pub, ts, aux)
    return -1


@njit(_nrt=False, inline="always")
def resolve(a, op, card, ts, tsl, aux, pub, hand, deck, priv, kn, ctl, ev, evn):
    """Carry out a play of seat ``a`` whose card is in transit (``priv[V_PEND + card]``) and
    was not cancelled; ``tsl`` is the play's :func:`target_slot`. The card goes where its type
    sends it: Gubs, Barricades and Traps into play, everything else (Cricket Song included) to
    the discard pile after use. The two commonest plays (a Gub, a Barricade on one's own Gub:
    about half of all plays) are done here, inlined into the turn loop; the others in
    :func:`resolve_other` (a call passing ~70 words of arguments)."""
    if op == OP_GUB:  # G1: a Gub enters play Free on its owner's side
        priv[U(V_PEND + card)] -= 1
        i = slot_new(pub, a, card == ELDER)
        slot_delta(pub, i, 1)
        emit(ctl, ev, evn, EV_GUB_IN, a, card, i, 0, 0, 0)
    elif op == OP_PROTECT:  # a Barricade on your Free (or, stacking, Protected) Gub
        priv[U(V_PEND + card)] -= 1
        off = bar_index(card)
        slot_set(pub, off, tsl, pub[off + tsl] + 1)
        emit(ctl, ev, evn, EV_PROTECTED, a, tsl, card, 0, 0, 0)
    else:
        resolve_other(a, op, card, ts, tsl, aux, pub, hand, deck, priv, kn, ctl, ev, evn)


@njit(_nrt=False)
def resolve_other(a, op, card, ts, tsl, aux, pub, hand, deck, priv, kn, ctl, ev, evn):
    """:func:`resolve` for every play but a Gub and a Barricade on one's own Gub."""
    priv[U(V_PEND + card)] -= 1
    if op == OP_SPOUT:  # trap a Free Gub where it sits
        slot_set(pub, P_TRAP, tsl, TRAP_SPOUT)
        emit(ctl, ev, evn, EV_TRAPPED, ts, tsl, SPOUT, -1, 0, 0)
        return
    if op == OP_RING:  # trap k Free Gubs beneath the Ring on your side (seed 003)
        r = 0
        while pub[U(P_RSIDE + r)] >= 0:
            r += 1
        pub[U(P_RSIDE + r)] = a
        pub[U(P_RKIND + r)] = card
        ring_delta(pub, r, 1)
        emit(ctl, ev, evn, EV_RING_IN, a, card, r, 0, 0, 0)
        k = 0
        for s in range(pub[P_NP]):
            c = (aux >> (2 * s)) & 3
            for _ in range(c):
                i = find_slot(pub, s, 0)
                slot_set(pub, P_TRAP, i, TRAP_RING0 + r)
                emit(ctl, ev, evn, EV_TRAPPED, s, i, card, r, a, 0)
                move_gub(pub, i, a, op, ctl, ev, evn)
                k += 1
        pub[U(P_RN + r)] = k
        return
    pub[U(P_DISC + card)] += 1  # the rest are discarded after use
    if op == OP_UNMUSH:  # force a Mushroom in play to be discarded
        slot_set(pub, P_BM, tsl, pub[U(P_BM + tsl)] - 1)
        pub[P_DISC + MUSHROOM] += 1
        emit(ctl, ev, evn, EV_TO_DISCARD, ts, MUSHROOM, 1, FROM_PLAY, tsl, 0)
    elif op == OP_UNBAR or op == OP_SPEAR_BAR:  # destroy one Barricade
        off = bar_index(aux)
        slot_set(pub, off, tsl, pub[off + tsl] - 1)
        pub[U(P_DISC + aux)] += 1
        emit(ctl, ev, evn, EV_TO_DISCARD, ts, aux, 1, FROM_PLAY, tsl, 0)
    elif op == OP_LURE:  # assumed: one Free Gub of the opponent comes to your side
        move_gub(pub, tsl, a, op, ctl, ev, evn)
    elif op == OP_SLURE:  # assumed: all Free and Protected Gubs of one opponent
        for i in range(pub[P_HI]):
            if pub[U(P_SIDE + i)] == ts and pub[U(P_ELD + i)] == 0 and pub[U(P_TRAP + i)] == 0:
                stolen_bars(pub, hand, i, ts, kn, ctl, ev, evn)
                move_gub(pub, i, a, op, ctl, ev, evn)
    elif op == OP_CYCLONE:  # target player's Barricades destroyed, Gubs stay
        for i in range(pub[P_HI]):
            if pub[U(P_SIDE + i)] == ts:
                bars_away(pub, hand, i, 0, -1, ctl, ev, evn)
    elif op == OP_LIGHT_ELDER:  # Lightning destroys the Elder (FAQ 5)
        gub_to_discard(pub, hand, tsl, ctl, ev, evn)
    elif op == OP_LIGHT_HAND:  # assumed: discard an opponent's hand
        for k in range(NK):
            c = hand[U(ts), U(k)]
            if c > 0:
                hand[U(ts), U(k)] = 0
                pub[U(P_DISC + k)] += c
                emit(ctl, ev, evn, EV_TO_DISCARD, ts, k, c, FROM_HAND, 0, 0)
        pub[U(P_HANDN + ts)] = 0
        hand[HMASK, U(ts)] = 0
    elif op == OP_THIEF:  # steal an opponent's Gub; from a Sud Spout, the Spout is discarded (FAQ 8)
        i = tsl
        if pub[U(P_TRAP + i)] == TRAP_SPOUT:
            slot_set(pub, P_TRAP, i, 0)
            pub[P_DISC + SPOUT] += 1
            emit(ctl, ev, evn, EV_TO_DISCARD, ts, SPOUT, 1, FROM_PLAY, i, 0)
        stolen_bars(pub, hand, i, ts, kn, ctl, ev, evn)
        if kn[K_THIEF_TO] == 0:
            move_gub(pub, i, a, op, ctl, ev, evn)
        else:
            bars_away(pub, hand, i, 1, a, ctl, ev, evn)  # stolen_barricades = move: they come along
            slot_clear(pub, i)
            hand_add(pub, hand, a, GUB, 1)
            emit(ctl, ev, evn, EV_TO_HAND, a, GUB, 1, FROM_PLAY, ts, i)
    elif op == OP_BEETLE:  # every Mushroom in play discarded with the Gub behind it
        for i in range(pub[P_HI]):
            if pub[U(P_SIDE + i)] >= 0 and pub[U(P_BM + i)] > 0:
                gub_to_discard(pub, hand, i, ctl, ev, evn)
    elif op == OP_SPEAR_SPOUT:  # the Gub stays where it sits, Free (FAQ 6)
        i = find_slot(pub, ts, 1)
        slot_set(pub, P_TRAP, i, 0)
        pub[P_DISC + SPOUT] += 1
        emit(ctl, ev, evn, EV_FREED, ts, i, SPOUT, -1, 0, 0)
        emit(ctl, ev, evn, EV_TO_DISCARD, ts, SPOUT, 1, FROM_PLAY, i, 0)
    elif op == OP_FLUTE:  # shatter a Ring: its Gubs come into play on your side
        r = aux
        for i in range(pub[P_HI]):
            if pub[U(P_SIDE + i)] >= 0 and pub[U(P_TRAP + i)] == TRAP_RING0 + r:
                slot_set(pub, P_TRAP, i, 0)
                emit(ctl, ev, evn, EV_FREED, pub[U(P_SIDE + i)], i, pub[U(P_RKIND + r)], r, 0, 0)
                if pub[U(P_SIDE + i)] != a:
                    move_gub(pub, i, a, op, ctl, ev, evn)
        pub[P_DISC + pub[U(P_RKIND + r)]] += 1
        emit(ctl, ev, evn, EV_TO_DISCARD, pub[U(P_RSIDE + r)], pub[U(P_RKIND + r)], 1, FROM_PLAY, r, 0)
        ring_clear(pub, r)
    elif op == OP_SCOUT_DECK:  # assumed: look at the top 3 cards
        dn = pub[P_DECKN]
        priv[U(V_SCOUT_N + a)] = dn
        priv[U(V_SCOUT_VER + a)] = priv[V_DECK_VER]
        for j in range(min(3, dn)):
            emit(ctl, ev, evn, EV_SEEN, a, deck[dn - 1 - j], j, -1, 0, 0)
    elif op == OP_SCOUT_HAND:  # assumed: look at one hand
        for k in range(NK):
            if hand[U(ts), U(k)] > 0:
                emit(ctl, ev, evn, EV_SEEN, a, k, hand[U(ts), U(k)], ts, 0, 0)
    elif op == OP_RETREAT:  # every card on your side back to your hand, the Elder excepted (FAQ 10)
        for i in range(pub[P_HI]):
            if pub[U(P_SIDE + i)] != a or pub[U(P_ELD + i)] != 0:
                continue
            bars_away(pub, hand, i, 1, a, ctl, ev, evn)
            if pub[U(P_TRAP + i)] == TRAP_SPOUT:
                hand_add(pub, hand, a, SPOUT, 1)
                emit(ctl, ev, evn, EV_TO_HAND, a, SPOUT, 1, FROM_PLAY, a, i)
            hand_add(pub, hand, a, GUB, 1)
            emit(ctl, ev, evn, EV_TO_HAND, a, GUB, 1, FROM_PLAY, a, i)
            slot_clear(pub, i)
        for r in range(MAX_RINGS):
            if pub[U(P_RSIDE + r)] == a:
                hand_add(pub, hand, a, pub[U(P_RKIND + r)], 1)
                emit(ctl, ev, evn, EV_TO_HAND, a, pub[U(P_RKIND + r)], 1, FROM_PLAY, a, r)
                ring_clear(pub, r)
    elif op == OP_CURE:  # take a card from the discard pile (never the Elder, FAQ 5)
        pub[U(P_DISC + aux)] -= 1
        hand_add(pub, hand, a, aux, 1)
        emit(ctl, ev, evn, EV_TO_HAND, a, aux, 1, FROM_DISCARD, -1, -1)
    emit(ctl, ev, evn, EV_TO_DISCARD, a, card, 1, FROM_PEND, -1, 0)  # the card itself, after use


# -- Events that ask nobody -------------------------------------------------------------------
@njit(_nrt=False)
def flash_flood(pub, hand, ctl, ev, evn):
    """Flash Flood: every Free Gub in play is discarded (the Elder is immune, FAQ 5)."""
    for i in range(pub[P_HI]):
        if (pub[U(P_SIDE + i)] >= 0 and pub[U(P_ELD + i)] == 0 and pub[U(P_TRAP + i)] == 0
                and pub[U(P_BM + i)] + pub[U(P_BT + i)] + pub[U(P_BV + i)] == 0):
            gub_to_discard(pub, hand, i, ctl, ev, evn)


@njit(_nrt=False)
def alchemy(a, pub, hand, ctl, ev, evn):
    """Dangerous Alchemy (assumed, GUBS_agent): the drawer's side is discarded, the Elder excepted."""
    for i in range(pub[P_HI]):
        if pub[U(P_SIDE + i)] == a and pub[U(P_ELD + i)] == 0:
            gub_to_discard(pub, hand, i, ctl, ev, evn)
    for r in range(MAX_RINGS):
        if pub[U(P_RSIDE + r)] == a:
            pub[P_DISC + pub[U(P_RKIND + r)]] += 1
            emit(ctl, ev, evn, EV_TO_DISCARD, a, pub[U(P_RKIND + r)], 1, FROM_PLAY, r, 0)
            ring_clear(pub, r)


@njit(_nrt=False)
def wasps(pub, hand, deck, priv, rng, ctl, ev, evn):
    """Rumor of Wasps (assumed, GUBS_agent): every Toad Rider in play and the Gub behind it go
    into the deck at random; other Barricades on that Gub are discarded."""
    for i in range(pub[P_HI]):
        if pub[U(P_SIDE + i)] < 0 or pub[U(P_BT + i)] == 0:
            continue
        t = pub[U(P_BT + i)]
        slot_set(pub, P_BT, i, 0)
        bars_away(pub, hand, i, 0, -1, ctl, ev, evn)
        s = pub[U(P_SIDE + i)]
        for _ in range(t):
            deck_insert_random(deck, pub, priv, TOAD, rng, ctl, ev, evn, FROM_PLAY, s, i)
        deck_insert_random(deck, pub, priv, GUB, rng, ctl, ev, evn, FROM_PLAY, s, i)
        slot_clear(pub, i)


@njit(_nrt=False)
def plague_apply(a, saved, redraw, kn, pub, hand, deck, priv, st, rng, ctl, ev, evn):
    """Gargok Plague after the saves: unsaved hands go into the deck (each card at a random
    place, or the whole deck shuffled: knob plague_shuffle), then each unsaved player from
    the drawer on draws a new hand (knob plague_redraw; drawn Events are replaced as in G2)."""
    n = pub[P_NP]
    for d in range(n):
        s = seat_at(a, d, n)
        redraw[s] = 0
        if saved[s] != 0:
            continue
        redraw[s] = pub[U(P_HANDN + s)]
        for k in range(NK):
            c = hand[U(s), U(k)]
            for _ in range(c):
                if kn[K_PSHUFFLE] != 0:
                    deck[pub[P_DECKN]] = k
                    pub[P_DECKN] += 1
                    emit(ctl, ev, evn, EV_TO_DECK, s, k, 0, FROM_HAND, -1, 0)
                else:
                    deck_insert_random(deck, pub, priv, k, rng, ctl, ev, evn, FROM_HAND, s, -1)
            hand[U(s), U(k)] = 0
        pub[U(P_HANDN + s)] = 0
        hand[HMASK, U(s)] = 0
    if kn[K_PSHUFFLE] != 0:
        shuffle(rng, deck, pub[P_DECKN])
        priv[V_DECK_VER] += 1
        emit_deck(ctl, ev, evn, EV_SHUFFLE, deck, pub[P_DECKN])
    mode = kn[K_REDRAW]
    for d in range(n):
        s = seat_at(a, d, n)
        if saved[s] != 0:
            continue
        m = redraw[s] if mode == REDRAW_SAME else (0 if mode == REDRAW_NONE else 3)
        for _ in range(m):
            if draw_nonevent(s, deck, pub, priv, hand, st, rng, ctl, ev, evn, EV_DEAL) < 0:
                break


@njit(_nrt=False)
def merchant_apply(keep, pub, hand, tmp2, ctl, ev, evn):
    """Traveling Merchant (assumed, GUBS_agent): each player keeps ``keep[s]`` and passes the
    rest of their hand to the next player in turn order (all at once)."""
    n = pub[P_NP]
    for s in range(n):
        for k in range(NK):
            tmp2[U(s), U(k)] = hand[U(s), U(k)]
        if keep[s] >= 0:
            tmp2[s, keep[s]] -= 1
    for s in range(n):
        p = (s + n - 1) % n
        tot = 0
        for k in range(NK):
            v = tmp2[U(p), U(k)] + (1 if keep[s] == k else 0)
            hand[U(s), U(k)] = v
            tot += v
            if tmp2[U(p), U(k)] > 0:
                emit(ctl, ev, evn, EV_TO_HAND, s, k, tmp2[U(p), U(k)], FROM_HAND, p, 0)
        pub[U(P_HANDN + s)] = tot
        hand[HMASK, U(s)] = hand_mask(hand, s)


# -- the end (G5) -----------------------------------------------------------------------------
@njit(_nrt=False)
def final_result(pub, out):
    """G5: score = Free + Protected Gubs in play; ties go to the Elder's side, then to the
    fewest cards in hand, else the tied players share the win. Writes out = (winner or -1,
    winners bitmask, tie-break code) and returns the winner."""
    n = pub[P_NP]
    best = -1
    for s in range(n):
        if pub[U(P_SCORE + s)] > best:
            best = pub[U(P_SCORE + s)]
    mask = 0
    k = 0
    for s in range(n):
        if pub[U(P_SCORE + s)] == best:
            mask |= 1 << s
            k += 1
    tb = 0
    if k > 1:
        e = pub[P_ELDER]
        if e >= 0 and (mask >> e) & 1:
            mask = 1 << e
            k = 1
            tb = 1
        else:
            fewest = 1 << 20
            for s in range(n):
                if (mask >> s) & 1 and pub[U(P_HANDN + s)] < fewest:
                    fewest = pub[U(P_HANDN + s)]
            m2 = 0
            k = 0
            for s in range(n):
                if (mask >> s) & 1 and pub[U(P_HANDN + s)] == fewest:
                    m2 |= 1 << s
                    k += 1
            mask = m2
            tb = 2 if k == 1 else 3
    w = -1
    if k == 1:
        for s in range(n):
            if (mask >> s) & 1:
                w = s
    out[0] = w
    out[1] = mask
    out[2] = tb
    return w


# -- the bench baseline --------------------------------------------------------------------------
@njit
def minimal_games(key, start, count, n, cnt, kn):
    """Bench baseline (no policy calls, no legal-play lists): set up and deal as G2, then every
    turn draw; drawn Gubs go straight into play, Letters are set aside, Flash Flood discards
    Free Gubs, other cards stay in hand; score at the third Letter. Returns the sum of the
    winners' scores so the work cannot be optimised away."""
    pub = np.zeros(P_SIZE, np.int32)
    hand = np.zeros((MAXS + 1, NK), np.int32)
    deck = np.zeros(DECK_MAX, np.int32)
    priv = np.zeros(V_SIZE, np.int32)
    st = np.zeros((MAXS, NK, 2), np.int32)
    scr = np.zeros(DECK_MAX, np.int32)
    drng = np.empty(1, np.uint64)
    erng = np.empty(1, np.uint64)
    ctl = np.zeros(4, np.int64)
    ev = np.zeros((1, 8), np.int64)
    evn = np.zeros(1, np.int64)
    stack = np.zeros(0, np.int32)
    out = np.zeros(3, np.int64)
    total = 0
    for gi in range(count):
        g = start + gi
        seed_stream(drng, key, g, DEAL, 0)
        seed_stream(erng, key, g, EFFECT, 0)
        setup_game(n, cnt, kn, stack, pub, hand, deck, priv, st, drng, scr, ctl, ev, evn)
        a = 0
        while pub[P_DECKN] > 0:
            c = draw_top(deck, pub)
            if c >= LETTER_G:
                pub[P_ASIDE + c - LETTER_G] += 1
                pub[P_LETTERS] += 1
                if pub[P_LETTERS] >= 3:
                    break
            elif c == GUB or c == ELDER:
                slot_new(pub, a, c == ELDER)
            elif c == FLOOD:  # every Free Gub to the discard pile
                for i in range(pub[P_HI]):
                    if (pub[U(P_SIDE + i)] >= 0 and pub[U(P_ELD + i)] == 0 and pub[U(P_TRAP + i)] == 0
                            and pub[U(P_BM + i)] + pub[U(P_BT + i)] + pub[U(P_BV + i)] == 0):
                        pub[P_DISC + GUB] += 1
                        slot_reset(pub, i)
                pub[U(P_DISC + c)] += 1
            elif is_event(c):
                pub[U(P_DISC + c)] += 1
            else:
                hand[U(a), U(c)] += 1
                pub[U(P_HANDN + a)] += 1
            a = (a + 1) % n
        refresh(pub)
        final_result(pub, out)
        for s in range(n):
            if (out[1] >> s) & 1:
                total += pub[U(P_SCORE + s)]
    return total

