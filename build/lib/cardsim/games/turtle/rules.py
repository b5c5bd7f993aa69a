"""The Bad, Bad, Turtle kernel: whole games, start to end (T1-T10).

This is the game's kernel module: every function here that calls a
``decide_*`` dispatcher (directly or not) is rebuilt for plug-in policies
(:func:`cardsim.policies.kernel_namespace`), so the dispatchers are named
by their global names only.

Seats ``0..P-1`` sit clockwise; seat 0 deals, seat 1 plays first (T3).
"Left" of seat ``s`` is ``s + 1``. The whole state of a game lives in one
int64 array ``S`` (layout below: piles, per-seat values, game scalars and
knobs, the policy observation, scratch space, counters and error report),
because numba reference-counts every array passed to a function: one
array instead of twenty keeps a turn cheap. Beside it: ``F`` float64
(``F[0]`` the performance probability, seat ``s``'s parameters at
``F[FP + s * S[G_PW]]``), ``RS`` uint64 (random streams: ``RS[0]``
shuffles (``DEAL``), ``RS[1]`` performance draws (``EFFECT``), ``RS[2 + s]``
seat ``s``'s policy; ``RS[RS_KEY]`` the stream key), ``EV`` int64[cap, 8]
trace rows and ``RV`` int64[cap, NRV] reveal-table rows.

Piles: pile ``q = 3 * s + STK`` is seat ``s``'s stack, ``+ DIS`` its
discard pile, ``+ REV`` its reveal pile; card ``i`` of pile ``q`` is
``S[PL + q * CAP + i]`` and ``i = S[PN + q] - 1`` is the top. Every card is
in exactly one place: a pile, or held by a seat (``S[G_HOLD + k]``);
``check_cards`` verifies it in debug mode.
"""

from __future__ import annotations

import numpy as np
from numba import types as nt

from cardsim.events import write_event
from cardsim.games.turtle.cards import (
    ACTION_BASE,
    CLEAN_UP,
    DO_OVER,
    DOUBLE_DIP,
    ELIMINATED,
    LEGAL_LEN,
    N_ACTION,
    N_CARDS,
    NEVER_HAPPENED,
    NH_CARD,
    NH_HELD,
    NO_REVEAL,
    NO_TRASH,
    NO_WAY,
    NO_WAY_PLAY,
    OBS_ALIVE,
    OBS_CARD,
    OBS_CUR,
    OBS_DECISION,
    OBS_DIR,
    OBS_GECKO_LIVE,
    OBS_KNOWN,
    OBS_LAST,
    OBS_LAST_BY,
    OBS_LIVE,
    OBS_NEXT,
    OBS_PLAYERS,
    OBS_REVEALER,
    OBS_SEAT,
    OBS_SEAT_W,
    OBS_SEATS,
    OBS_STACK,
    OBS_STATUS,
    OBS_TURN,
    OBS_UNREVEALED,
    OBS_VICTIM,
    PARTIAL_PLAY,
    PASS,
    PEEK,
    PICK_A_PLAYER,
    RAPID_FIRE,
    RECYCLE_BONUS,
    REFUND,
    RESTART_GAME,
    REVERSE_DIRECTION,
    SECOND_CHANCE,
    SHIELD,
    SHIELD_BASE,
    SHUFFLE,
    SKIP,
    SKIP_TURN,
    SLOW_DOWN,
    STACK_SWAP_LEFT,
    STACK_SWAP_RIGHT,
    TURTLE,
)
from cardsim.games.turtle.policies import EAGER, decide_perform, decide_pick, decide_respond
from cardsim.jit import njit
from cardsim.jit import typed as jit_typed
from cardsim.rng import DEAL, EFFECT, GOLDEN, POLICY, mix64, seed_stream, shuffle, uniform

# The kernels below allocate nothing (all state is in S), so they run without numba's reference
# counting (``_nrt=False``): with it, every array handed to a helper costs two atomic operations,
# which made a turn several times slower.
kjit = njit(_nrt=False)
# the per-turn and per-reveal steps, inlined into their callers: a call passes each of S, F, RS, EV and
# RV as seven words, which cost more than many a step's work
ijit = njit(_nrt=False, inline="always")

I64, BOOL = nt.int64, nt.boolean
# ``S[U(i)]``: an index known to be non-negative, given as unsigned so numba leaves out the wrap-around
# of negative indices (three instructions an access on the hot paths)
U = np.uint64
S32 = np.uint64(32)
SA, EA, RA = nt.int64[::1], nt.int64[:, ::1], nt.uint64[::1]  # S, EV / RV, RS


def typed(sig):
    """:data:`kjit` with one explicit signature, closed to other specialisations
    (:func:`cardsim.jit.typed`: numba would otherwise compile a helper once per combination of
    constant arguments it is called with, ``emit`` alone some 40 times), compiled on first use
    rather than at import. Only for helpers that call no policy dispatcher."""
    return jit_typed(sig, _nrt=False)


MAXP = 8
CAP = 64
STK, DIS, REV = 0, 1, 2
HELD_CARDS = (NEVER_HAPPENED, NO_WAY, SHIELD)
OBS_CAP = 160

# -- the layout of S ---------------------------------------------------------------------------
SV_ALIVE, SV_KNOWN, SV_OUT, SV_NREV = 0, 1, 2, 3  # per seat: in the game, Peek knowledge, out order, reveals
NSV = 4
PL = 0                       # piles (3 * MAXP of CAP cards)
PN = PL + 3 * MAXP * CAP     # pile sizes
SV = PN + 3 * MAXP           # per-seat values: SV + NSV * s + SV_*
GS = SV + NSV * MAXP         # game scalars and knobs (G_*)
NGS = 64
G_GAME, G_PLAYERS, G_CUR, G_DIR, G_REF, G_OVERRIDE, G_EXTRA = (GS + i for i in range(7))
G_SKIP, G_NOREVEAL, G_NOTRASH, G_PARTIAL, G_RAPID, G_SLOW, G_NPERF = (GS + i for i in range(7, 14))
G_PERF = GS + 14             # .. + 6: the performance cards pending on the next turn
G_TURN, G_RESTARTS, G_REDEALS, G_SHUFFLES, G_NSHUF, G_ELIM = (GS + i for i in range(21, 27))
G_WINNER, G_ENDED, G_OVER, G_CHAIN_SEAT, G_CHAIN_SRC, G_TURN_OVER, G_NALIVE = (GS + i for i in range(27, 34))
G_HOLD = GS + 34             # .. + 2: seat holding Never Happened, No Way, Shield (-1: nobody)
G_IS_EXTRA = GS + 37
G_OBS_DIRTY = GS + 38        # entries of the observation's stack zone holding cards (the rest are -1)
G_LIVE = GS + 39             # bit a: action card a is in a stack or discard pile (kept by push)
KNOBS = GS + 40              # the knobs and chunk constants, set by the wrapper (game.py ``_state``)
G_MAX_TURNS, G_YOUNG, G_PICK_SELF, G_SHIELD_TARGET, G_SHIELD_TURTLE, G_NH_HELD = (KNOBS + i for i in range(6))
G_REFUND_BOTTOM, G_REVIVE, G_DEBUG, G_TRACE, G_PW, G_START = (KNOBS + i for i in range(6, 12))
OB = GS + NGS                # the policy observation (cards.OBS_*)
LG = OB + OBS_CAP            # legal actions
POOL = LG + LEGAL_LEN        # scratch: cards being redealt
SWAP = POOL + CAP            # scratch: stacks during a swap
LENS = SWAP + MAXP * CAP
GOT = LENS + MAXP
INUSE = GOT + MAXP           # 1 for each card in play
SEEN = INUSE + CAP           # scratch: card counts for check_cards
CNT = SEEN + CAP             # CNT: trace rows, CNT + 1: reveal rows (both counted past capacity), CNT + 2: policy calls
ERR = CNT + 4                # error report (ERR: kind, then game, seat/card, decision/count, value; legal)
PIDS = ERR + 32              # the seats' policy ids
NS = PIDS + MAXP
FP = 8                       # seat parameters in F
RS_KEY = 2 + MAXP            # the stream key in RS
NRS = RS_KEY + 1

# game outcome (out_g columns)
OG_WINNER, OG_TURNS, OG_ELIM, OG_RESTARTS, OG_REDEALS, OG_SHUFFLES, OG_ENDED = 0, 1, 2, 3, 4, 5, 6
NOG = 7
ENDED_TURTLE, ENDED_LAST, ENDED_CAP = 0, 1, 2
# reveal table rows (RV int32 columns): one per action card revealed (full variant); RV_GAME counts from
# the chunk's first game (``S[G_START]``)
RV_GAME, RV_CARD, RV_SEAT, RV_TURN, RV_APPLIED = 0, 1, 2, 3, 4
NRV = 5

# redeal reasons
R_INITIAL, R_GECKO, R_EMPTY, R_SHUFFLE, R_RESTART = 0, 1, 2, 3, 4
# skip reasons
SK_SKIP, SK_DECLINED, SK_UNABLE = 0, 1, 2
# decisions (error reports)
D_PICK, D_RESPOND, D_PERFORM = 0, 1, 2

# event kinds: rows (game, kind, seat, a, b, c, d, e); action cards by action code
EV_START = 0     # seat: dealer; a players, b cards in the deck
EV_DEAL = 1      # seat; a cards dealt to it, b reason (R_*)
EV_TURN = 2      # seat; a turn number, b stack size, c 1 if a Second Chance turn, d direction
EV_SKIP = 3      # seat; a reason (SK_*)
EV_PERFORM = 4   # seat; a performance card, b able, c performed
EV_DISCARD = 5   # seat; a card code, b stack size after
EV_REVEAL = 6    # seat; a card code, b source (0 stack, 1 discard pile)
EV_EFFECT = 7    # seat the card acts on; a action card; b, c details (see game.decode_event)
EV_NEXT = 8      # seat; a action card whose "next player" effect now applies, b detail
EV_HOLD = 9      # seat; a held card set aside
EV_PLAY = 10     # seat; a held card played, b answer (NH_CARD..), c card answered, d seat it acted on, e target
EV_CANCEL = 11   # seat (the card's player); a card, b 1 overruled by Never Happened / 2 discarded by No Way
EV_ELIM = 12     # seat; a elimination order
EV_REDEAL = 13   # a reason, b cards, c first seat dealt
EV_WIN = 14      # seat; a 0 turtle / 1 last player standing
EV_CAP = 15      # a turns played
EV_END = 16      # seat winner (-1); a ended code, b turns
EV_PASS = 17     # seat asked in a held-card window that passed; a action card, b seat it acts on, c legal mask
# continuation rows, decoded into the event before them (game.decode_events):
EV_CARDS = 18    # seat; a..e: the next cards of a pile, top first, 8 a field (byte k: card code + 1, 0 none)
EV_OPTIONS = 19  # seat; a: the legal mask of the held-card answer just given (bit i: answer i of cards.PASS..)
CARDS_PER_ROW = 40

TURTLE_CARD = ACTION_BASE + TURTLE
GECKO_CARD = ACTION_BASE + ELIMINATED
ILLEGAL, BROKEN = 1, 2


# -- small helpers ------------------------------------------------------------------------------
@typed(nt.void(SA, EA, I64, I64, I64, I64, I64, I64, I64))
def emit(S, EV, kind, seat, a, b, c, d, e):
    """Append one trace row when tracing; counts past the capacity so the wrapper can grow it."""
    if S[G_TRACE] == 0:
        return
    write_event(EV, S[CNT], S[G_GAME], kind, seat, a, b, c, d, e)
    S[CNT] += 1


@typed(I64(SA, I64, I64, I64))
def pack8(S, b, n, i0):
    """Cards ``i0 .. i0 + 7`` from the top of the pile at ``S[b:b + n]`` (top at ``b + n - 1``), one byte
    each (card code + 1; 0 past the bottom)."""
    x = 0
    for k in range(8):
        i = i0 + k
        if i < n:
            x |= (S[b + n - 1 - i] + 1) << (8 * k)
    return x


@typed(nt.void(SA, EA, I64, I64))
def emit_pile(S, EV, q, seat):
    """When tracing, name pile ``q``'s cards top first in EV_CARDS rows after the event just written."""
    if S[G_TRACE] == 0:
        return
    b = PL + q * CAP
    n = S[PN + q]
    for i0 in range(0, n, CARDS_PER_ROW):
        emit(S, EV, EV_CARDS, seat, pack8(S, b, n, i0), pack8(S, b, n, i0 + 8), pack8(S, b, n, i0 + 16),
             pack8(S, b, n, i0 + 24), pack8(S, b, n, i0 + 32))


@typed(I64(SA))
def legal_mask(S):
    """The legal actions in ``S[LG:]`` as bits (bit i: action i)."""
    m = 0
    for i in range(LEGAL_LEN):
        m |= S[LG + i] << i
    return m


@typed(nt.uint64(I64, I64))
def sv(s, k):
    """Index of per-seat value ``k`` of seat ``s`` in S (unsigned: see ``U``)."""
    return U(SV + NSV * s + k)


@typed(nt.void(SA, I64, I64))
def push(S, q, card):
    """Put ``card`` on top of pile ``q`` (a stack or discard pile: an action card there is live)."""
    n = S[U(PN + q)]
    S[U(PL + q * CAP + n)] = card
    S[U(PN + q)] = n + 1
    S[G_LIVE] |= (1 << card) >> ACTION_BASE  # bit card - ACTION_BASE for an action card, else nothing


@typed(nt.void(SA, I64, I64))
def push_rev(S, q, card):
    """Put ``card`` on top of reveal pile ``q``: an action card there is no longer live."""
    n = S[U(PN + q)]
    S[U(PL + q * CAP + n)] = card
    S[U(PN + q)] = n + 1
    S[G_LIVE] &= ~((1 << card) >> ACTION_BASE)


@typed(I64(SA, I64))
def pop(S, q):
    """Take the top card of pile ``q``."""
    n = S[U(PN + q)] - 1
    S[U(PN + q)] = n
    return S[U(PL + q * CAP + n)]


@typed(I64(SA, I64))
def pop_stack(S, s):
    """Take the top card of seat ``s``'s stack; a Peek's knowledge shrinks with it."""
    k = U(SV + NSV * s + SV_KNOWN)
    if S[k] > 0:
        S[k] -= 1
    return pop(S, 3 * s + STK)


@typed(I64(I64, I64, I64))
def step(t, d, p):
    """The seat after ``t`` in direction ``d`` (+1 or -1) around ``p`` seats (no division)."""
    t += d
    if t >= p:
        return 0
    if t < 0:
        return p - 1
    return t


@typed(I64(SA, I64, I64))
def next_alive(S, s, d):
    """The next seat still in the game after ``s`` in direction ``d`` (+1 or -1; -1 if none)."""
    p = S[G_PLAYERS]
    t = s
    for _ in range(p):
        t = step(t, d, p)
        if S[U(SV + NSV * t + SV_ALIVE)] == 1:
            return t
    return -1


@typed(nt.UniTuple(I64, 2)(SA))
def who_next(S):
    """(seat, is_extra) of the next turn: a Second Chance turn, else a picked player, else the next
    seat in the play direction from the reference seat (the player whose turn it was, or a Shield's
    target)."""
    e = S[G_EXTRA]
    if e >= 0 and S[sv(e, SV_ALIVE)] == 1:
        return e, 1
    o = S[G_OVERRIDE]
    if o >= 0 and S[sv(o, SV_ALIVE)] == 1:
        return o, 0
    return next_alive(S, S[G_REF], S[G_DIR]), 0


@typed(nt.void(SA))
def check_cards(S):
    """Debug: every card of the deck is in exactly one place (a pile or held); raise otherwise."""
    for c in range(N_CARDS):
        S[SEEN + c] = 0
    for q in range(3 * S[G_PLAYERS]):
        for i in range(S[PN + q]):
            S[SEEN + S[PL + q * CAP + i]] += 1
    for k in range(3):
        if S[G_HOLD + k] >= 0:
            S[SEEN + ACTION_BASE + HELD_CARDS[k]] += 1
    live = 0
    for q in range(3 * S[G_PLAYERS]):
        if q % 3 != REV:
            for i in range(S[PN + q]):
                c = S[PL + q * CAP + i]
                if c >= ACTION_BASE:
                    live |= 1 << (c - ACTION_BASE)
    if live != S[G_LIVE]:
        S[ERR] = BROKEN
        S[ERR + 1] = S[G_GAME]
        S[ERR + 2] = -1
        S[ERR + 4] = S[G_TURN]
        raise AssertionError("Bad, Bad, Turtle: live-card mask out of step")
    for c in range(N_CARDS):
        seen = S[SEEN + c]
        if seen != S[INUSE + c]:
            S[ERR] = BROKEN
            S[ERR + 1] = S[G_GAME]
            S[ERR + 2] = c
            S[ERR + 3] = seen
            S[ERR + 4] = S[G_TURN]
            raise AssertionError("Bad, Bad, Turtle: card conservation broken")


@typed(nt.void(SA, EA, I64, I64, I64))
def deal_out(S, EV, n, first, reason):
    """Deal ``S[POOL:POOL + n]`` one card at a time onto the stacks of the seats still in the game,
    clockwise from ``first`` (T3, T5); each card goes on top of its stack."""
    p = S[G_PLAYERS]
    m = 0
    s = first
    for _ in range(p):  # the seats still in the game, clockwise from first
        if S[sv(s, SV_ALIVE)] == 1:
            S[GOT + m] = s
            m += 1
        S[sv(s, SV_KNOWN)] = 0
        s = s + 1 if s + 1 < p else 0
    live = 0
    for j in range(m):  # the j-th seat dealt to gets pool cards j, j + m, j + 2m, ..., each on top
        q = 3 * S[GOT + j] + STK
        b = PL + q * CAP
        k = S[U(PN + q)]
        for i in range(j, n, m):
            c = S[U(POOL + i)]
            S[U(b + k)] = c
            k += 1
            live |= 1 << c
        S[U(PN + q)] = k
    S[G_LIVE] |= live >> ACTION_BASE
    if S[G_TRACE] == 1:
        for j in range(m):
            s = S[GOT + j]
            emit(S, EV, EV_DEAL, s, n // m + (1 if j < n % m else 0), reason, 0, 0, 0)
            emit_pile(S, EV, 3 * s + STK, s)


@typed(I64(SA, I64, BOOL))
def collect(S, n, reveals):
    """Move every stack and discard pile (and reveal pile when ``reveals``) into ``S[POOL + n:]``;
    returns the new pool size."""
    for s in range(S[G_PLAYERS]):
        for k in range(3):
            if k == REV and not reveals:
                continue
            q = 3 * s + k
            b = PL + q * CAP
            for i in range(S[U(PN + q)]):
                S[U(POOL + n + i)] = S[U(b + i)]
            n += S[U(PN + q)]
            S[U(PN + q)] = 0
    return n


@typed(nt.void(SA, RA, I64, I64))
def shuffle_range(S, RS, lo, n):
    """Shuffle ``S[lo:lo + n]`` with the game's next shuffle stream (DEAL, sub = shuffle counter):
    ``cardsim.rng.shuffle``'s Fisher-Yates with its draws (``randint`` over ``next_u64``), the stream's
    state kept in a register."""
    st = RS[0:1]
    seed_stream(st, RS[RS_KEY], S[G_GAME], DEAL, S[G_NSHUF])
    S[G_NSHUF] += 1
    z = st[0]
    for i in range(n - 1, 0, -1):
        z += GOLDEN
        j = np.int64(((mix64(z) >> S32) * U(i + 1)) >> S32)
        a = U(lo + i)
        b = U(lo + j)
        t = S[a]
        S[a] = S[b]
        S[b] = t
    st[0] = z


@typed(nt.void(SA, RA, EA, I64, I64, I64))
def redeal(S, RS, EV, n, reason, first):
    """Shuffle the pool ``S[POOL:POOL + n]`` and deal it from ``first``, who plays next (T5, T6)."""
    shuffle_range(S, RS, POOL, n)
    emit(S, EV, EV_REDEAL, -1, reason, n, first, 0, 0)
    deal_out(S, EV, n, first, reason)


@typed(nt.void(SA, EA, I64, I64))
def win(S, EV, s, how):
    S[G_WINNER] = s
    S[G_ENDED] = how
    S[G_OVER] = 1
    emit(S, EV, EV_WIN, s, how, 0, 0, 0, 0)


@typed(nt.void(SA, RA, EA, I64))
def eliminate(S, RS, EV, v):
    """T5: seat ``v`` revealed the gecko (on top of its reveal pile) and is out. The gecko, every
    stack and every discard pile are shuffled and redealt; revealed and held cards stay."""
    S[sv(v, SV_ALIVE)] = 0
    S[G_NALIVE] -= 1
    S[G_ELIM] += 1
    S[sv(v, SV_OUT)] = S[G_ELIM]
    S[G_TURN_OVER] = 1
    emit(S, EV, EV_ELIM, v, S[G_ELIM], 0, 0, 0, 0)
    if S[G_NALIVE] == 1:
        win(S, EV, next_alive(S, v, 1), ENDED_LAST)
        return
    S[POOL] = pop(S, 3 * v + REV)
    n = collect(S, 1, False)
    S[G_REDEALS] += 1
    redeal(S, RS, EV, n, R_GECKO, who_next(S)[0])


@typed(nt.void(SA, I64))
def swap_stacks(S, d):
    """Every seat still in the game gives its stack to the next one in direction ``d``
    (+1: to the left, Stack Swap Left; -1: to the right)."""
    p = S[G_PLAYERS]
    for s in range(p):
        q = 3 * s + STK
        S[LENS + s] = S[PN + q]
        for i in range(S[PN + q]):
            S[SWAP + s * CAP + i] = S[PL + q * CAP + i]
    for s in range(p):
        S[sv(s, SV_KNOWN)] = 0
        if S[sv(s, SV_ALIVE)] == 1:
            q = 3 * next_alive(S, s, d) + STK
            S[PN + q] = S[LENS + s]
            for i in range(S[LENS + s]):
                S[PL + q * CAP + i] = S[SWAP + s * CAP + i]


# -- decisions ---------------------------------------------------------------------------------
@typed(nt.void(SA, I64, I64, I64, I64, I64, I64, I64))
def fill_public(S, decision, a, revealer, victim, last, last_by, status):
    """Write the part of the observation every seat may see into ``S[OB:]`` (cards.OBS_*)."""
    p = S[G_PLAYERS]
    S[OB + OBS_PLAYERS] = p
    S[OB + OBS_CUR] = S[G_CUR]
    S[OB + OBS_DIR] = S[G_DIR]
    S[OB + OBS_CARD] = a
    S[OB + OBS_REVEALER] = revealer
    S[OB + OBS_VICTIM] = victim
    S[OB + OBS_LAST] = last
    S[OB + OBS_LAST_BY] = last_by
    S[OB + OBS_STATUS] = status
    S[OB + OBS_ALIVE] = S[G_NALIVE]
    S[OB + OBS_TURN] = S[G_TURN]
    S[OB + OBS_DECISION] = decision
    unrevealed = 0
    for s in range(MAXP):
        b = OB + OBS_SEATS + OBS_SEAT_W * s
        if s < p:
            q = PN + 3 * s
            S[b] = S[sv(s, SV_ALIVE)]
            S[b + 1] = S[q + STK]
            S[b + 2] = S[q + DIS]
            S[b + 3] = S[q + REV]
            unrevealed += S[q + STK] + S[q + DIS]
        else:
            S[b] = 0
            S[b + 1] = 0
            S[b + 2] = 0
            S[b + 3] = 0
        S[b + 4] = 0
    for k in range(3):
        h = S[G_HOLD + k]
        if h >= 0:
            S[OB + OBS_SEATS + OBS_SEAT_W * h + 4] |= 1 << k
    S[OB + OBS_UNREVEALED] = unrevealed
    live = S[G_LIVE]
    for k in range(N_ACTION):
        S[OB + OBS_LIVE + k] = (live >> k) & 1
    S[OB + OBS_GECKO_LIVE] = S[OB + OBS_LIVE + ELIMINATED]


@typed(nt.void(SA, I64, BOOL))
def fill_seat(S, seat, stack):
    """Write the deciding seat's own part of the observation: who it is, its next player, and (when
    ``stack``) its stack as far as a Peek lets it know it."""
    S[OB + OBS_SEAT] = seat
    S[OB + OBS_NEXT] = next_alive(S, seat, S[G_DIR])
    if not stack:
        return
    q = PL + (3 * seat + STK) * CAP
    n = S[PN + 3 * seat + STK]
    known = min(S[sv(seat, SV_KNOWN)], n)
    S[OB + OBS_KNOWN] = known
    for i in range(known):
        S[OB + OBS_STACK + i] = S[q + n - 1 - i]
    for i in range(known, S[G_OBS_DIRTY]):  # the rest of the zone stays -1
        S[OB + OBS_STACK + i] = -1
    S[G_OBS_DIRTY] = known


@typed(nt.void(SA, I64, I64, I64, I64, I64, I64, I64, I64))
def fill_obs(S, seat, decision, a, revealer, victim, last, last_by, status):
    """Write what ``seat`` may see into ``S[OB:]`` (layout: cards.OBS_*); every entry is rewritten."""
    fill_public(S, decision, a, revealer, victim, last, last_by, status)
    fill_seat(S, seat, True)


@typed(BOOL(SA, I64))
def lean(S, seat):
    """Seat ``seat`` plays ``eager``, which reads only ``obs[OBS_CARD]``, ``obs[OBS_VICTIM]`` and
    ``obs[OBS_NEXT]`` (``policies.eager_respond``, ``decide_pick``; nothing to perform): the kernel
    writes only these for it, and ``OBS_SEAT``. Debug mode writes every entry, so the tests that
    compare debug and fast games would catch an eager policy reading more."""
    return S[U(PIDS + seat)] == EAGER and S[G_DEBUG] == 0


@ijit
def ask(S, F, RS, decision, seat):
    """Call seat ``seat``'s policy at ``decision`` (observation and legal actions already in S) and
    validate the answer; an illegal one is reported in ``S[ERR:]`` and raised."""
    S[CNT + 2] += 1
    pid = S[PIDS + seat]
    obs = S[OB:OB + OBS_CAP]
    legal = S[LG:LG + LEGAL_LEN]
    w = S[G_PW]
    params = F[FP + seat * w:FP + (seat + 1) * w]
    rng = RS[2 + seat:3 + seat]
    if decision == D_PICK:
        act = decide_pick(pid, seat, obs, legal, params, rng)
    elif decision == D_RESPOND:
        act = decide_respond(pid, seat, obs, legal, params, rng)
    else:
        act = decide_perform(pid, seat, obs, legal, params, rng)
    act = np.int64(act)
    if act < 0 or act >= LEGAL_LEN or S[LG + act] == 0:
        S[ERR] = ILLEGAL
        S[ERR + 1] = S[G_GAME]
        S[ERR + 2] = seat
        S[ERR + 3] = decision
        S[ERR + 4] = act
        for i in range(LEGAL_LEN):
            S[ERR + 8 + i] = S[LG + i]
        raise ValueError("Bad, Bad, Turtle: illegal policy action")
    return act


@typed(I64(SA, I64, I64, I64, I64, I64))
def respond_legal(S, s, a, v, status, last):
    """Legal answers of seat ``s`` to action card ``a`` acting on seat ``v`` (T8), in ``S[LG:]``;
    returns how many there are besides passing."""
    for i in range(LEGAL_LEN):
        S[LG + i] = 0
    S[LG + PASS] = 1
    n = 0
    if S[G_HOLD] == s:
        if status == 0 and a != TURTLE:
            S[LG + NH_CARD] = 1
            n += 1
        if S[G_NH_HELD] == 1 and ((last == NO_WAY and status == 2) or (last == SHIELD and status == 0)):
            S[LG + NH_HELD] = 1
            n += 1
    if S[G_HOLD + 1] == s and status == 0:
        S[LG + NO_WAY_PLAY] = 1
        n += 1
    if S[G_HOLD + 2] == s and status == 0 and (a != TURTLE or S[G_SHIELD_TURTLE] == 1):
        for t in range(S[G_PLAYERS]):
            if t != v and S[sv(t, SV_ALIVE)] == 1:
                S[LG + SHIELD_BASE + t] = 1
                n += 1
    return n


@kjit
def window(S, F, RS, EV, a, revealer):
    """T8: after action card ``a`` is revealed by ``revealer`` (it lies on top of their reveal pile),
    players holding Never Happened, No Way or Shield may play them, asked from the seat the card acts
    on onwards in the play direction, round after round until a round passes with no play. Returns
    the seat the card finally acts on, or -1 when it was overruled or discarded."""
    p = S[G_PLAYERS]
    d = S[G_DIR]
    code = ACTION_BASE + a
    v = revealer
    prev_v = -1
    status = 0
    last = -1
    last_by = -1
    shield_t = -1
    prev_shield_t = -1
    public = False  # the public part of the observation is up to date
    while True:
        played = False
        s = v
        for i in range(p):
            if i > 0:
                s = step(s, d, p)
            if S[G_HOLD] != s and S[G_HOLD + 1] != s and S[G_HOLD + 2] != s:
                continue
            if S[sv(s, SV_ALIVE)] == 0 or respond_legal(S, s, a, v, status, last) == 0:
                continue
            full = not lean(S, s)
            if not full:
                S[OB + OBS_CARD] = a
                S[OB + OBS_VICTIM] = v
            elif not public:
                fill_public(S, D_RESPOND, a, revealer, v, last, last_by, status)
                public = True
            fill_seat(S, s, full)
            act = ask(S, F, RS, D_RESPOND, s)
            if act == PASS:
                if S[G_TRACE] == 1:
                    emit(S, EV, EV_PASS, s, a, v, legal_mask(S), 0, 0)
                continue
            mask = legal_mask(S) if S[G_TRACE] == 1 else 0
            played = True
            if act == NH_CARD:
                S[G_HOLD] = -1
                push_rev(S, 3 * s + REV, ACTION_BASE + NEVER_HAPPENED)
                status = 1
                emit(S, EV, EV_PLAY, s, NEVER_HAPPENED, NH_CARD, a, v, -1)
                emit(S, EV, EV_OPTIONS, s, mask, 0, 0, 0, 0)
                last = NEVER_HAPPENED
            elif act == NH_HELD:
                S[G_HOLD] = -1
                emit(S, EV, EV_PLAY, s, NEVER_HAPPENED, NH_HELD, last, v, last_by)
                emit(S, EV, EV_OPTIONS, s, mask, 0, 0, 0, 0)
                if last == NO_WAY:  # the card comes back from the discard pile and stays in force
                    pop(S, 3 * v + DIS)
                    push_rev(S, 3 * s + REV, ACTION_BASE + NEVER_HAPPENED)
                    push_rev(S, 3 * v + REV, code)
                    status = 0
                else:  # the Shield is undone: the card goes back to the seat it was forced from
                    pop(S, 3 * v + REV)
                    push_rev(S, 3 * s + REV, ACTION_BASE + NEVER_HAPPENED)
                    push_rev(S, 3 * prev_v + REV, code)
                    v = prev_v
                    shield_t = prev_shield_t
                last = NEVER_HAPPENED
            elif act == NO_WAY_PLAY:
                S[G_HOLD + 1] = -1
                pop(S, 3 * v + REV)
                push(S, 3 * v + DIS, code)
                push_rev(S, 3 * v + REV, ACTION_BASE + NO_WAY)
                status = 2
                emit(S, EV, EV_PLAY, s, NO_WAY, NO_WAY_PLAY, a, v, -1)
                emit(S, EV, EV_OPTIONS, s, mask, 0, 0, 0, 0)
                last = NO_WAY
            else:
                t = act - SHIELD_BASE
                S[G_HOLD + 2] = -1
                pop(S, 3 * v + REV)
                push_rev(S, 3 * s + REV, ACTION_BASE + SHIELD)
                push_rev(S, 3 * t + REV, code)
                emit(S, EV, EV_PLAY, s, SHIELD, act, a, v, t)
                emit(S, EV, EV_OPTIONS, s, mask, 0, 0, 0, 0)
                prev_v = v
                v = t
                prev_shield_t = shield_t
                shield_t = t
                last = SHIELD
            last_by = s
            public = False
            if S[G_DEBUG] == 1:
                check_cards(S)
            break
        if not played:
            break
    if shield_t >= 0:  # "Play continues around the table from that player"
        S[G_REF] = shield_t
        if S[G_SHIELD_TARGET] == 1:
            S[G_OVERRIDE] = shield_t
    if status != 0:
        emit(S, EV, EV_CANCEL, v, a, status, 0, 0, 0)
        return -1
    return v


# -- revealing and the action cards ---------------------------------------------------------------
@kjit
def apply_action(S, F, RS, EV, a, v):
    """Carry out action card ``a`` (on top of seat ``v``'s reveal pile) for seat ``v``."""
    p = S[G_PLAYERS]
    stk = 3 * v + STK
    dis = 3 * v + DIS
    rev = 3 * v + REV
    if a == TURTLE:
        win(S, EV, v, ENDED_TURTLE)
    elif a == ELIMINATED:
        eliminate(S, RS, EV, v)
    elif a == NEVER_HAPPENED or a == NO_WAY or a == SHIELD:
        pop(S, rev)
        k = 0 if a == NEVER_HAPPENED else (1 if a == NO_WAY else 2)
        S[G_HOLD + k] = v
        S[G_LIVE] &= ~(1 << a)
        emit(S, EV, EV_HOLD, v, a, 0, 0, 0, 0)
    elif a == CLEAN_UP:
        # the rest of the reveal pile, turned over as a packet, goes onto the discard pile
        n = S[PN + rev] - 1
        for i in range(n - 1, -1, -1):
            push(S, dis, S[PL + rev * CAP + i])
        S[PL + rev * CAP] = ACTION_BASE + CLEAN_UP
        S[PN + rev] = 1
        emit(S, EV, EV_EFFECT, v, a, n, 0, 0, 0)
    elif a == DO_OVER:
        n = S[PN + rev] - 1
        for i in range(n):
            push(S, stk, S[PL + rev * CAP + i])
        S[PL + rev * CAP] = ACTION_BASE + DO_OVER
        S[PN + rev] = 1
        shuffle_range(S, RS, PL + stk * CAP, S[PN + stk])
        S[sv(v, SV_KNOWN)] = 0
        emit(S, EV, EV_EFFECT, v, a, n, S[PN + stk], 0, 0)
        emit_pile(S, EV, stk, v)
    elif a == DOUBLE_DIP:
        more = 1 if S[PN + stk] > 0 else 0
        if more == 1:
            S[G_CHAIN_SEAT] = v
            S[G_CHAIN_SRC] = STK
        emit(S, EV, EV_EFFECT, v, a, more, 0, 0, 0)
    elif a == RECYCLE_BONUS:
        more = 1 if S[PN + dis] > 0 else 0
        if more == 1:
            S[G_CHAIN_SEAT] = v
            S[G_CHAIN_SRC] = DIS
        emit(S, EV, EV_EFFECT, v, a, more, 0, 0, 0)
    elif a == REFUND:
        c = -1
        if S[PN + dis] > 0:
            c = pop(S, dis)
            if S[G_REFUND_BOTTOM] == 1:
                b = PL + stk * CAP
                for i in range(S[PN + stk], 0, -1):
                    S[b + i] = S[b + i - 1]
                S[b] = c
                S[PN + stk] += 1
            else:
                push(S, stk, c)
                S[sv(v, SV_KNOWN)] = 0
        emit(S, EV, EV_EFFECT, v, a, c, S[G_REFUND_BOTTOM], 0, 0)
    elif a == PEEK:
        S[sv(v, SV_KNOWN)] = S[PN + stk]
        emit(S, EV, EV_EFFECT, v, a, S[PN + stk], 0, 0, 0)
    elif a == PICK_A_PLAYER:
        for t in range(LEGAL_LEN):
            S[LG + t] = 0
        for t in range(p):
            if S[sv(t, SV_ALIVE)] == 1 and (t != v or S[G_PICK_SELF] == 1):
                S[LG + t] = 1
        if lean(S, v):
            fill_seat(S, v, False)
        else:
            fill_obs(S, v, D_PICK, a, v, v, -1, -1, 0)
        t = ask(S, F, RS, D_PICK, v)
        S[G_OVERRIDE] = t
        emit(S, EV, EV_EFFECT, v, a, t, 0, 0, 0)
    elif a == RESTART_GAME:
        emit(S, EV, EV_EFFECT, v, a, 0, 0, 0, 0)
        n = collect(S, 0, True)
        for k in range(3):
            if S[G_HOLD + k] >= 0:
                S[POOL + n] = ACTION_BASE + HELD_CARDS[k]
                n += 1
                S[G_HOLD + k] = -1
        if S[G_REVIVE] == 1:
            for s in range(p):
                S[sv(s, SV_ALIVE)] = 1
                S[sv(s, SV_OUT)] = 0
            S[G_NALIVE] = p
            S[G_ELIM] = 0
        S[G_RESTARTS] += 1
        redeal(S, RS, EV, n, R_RESTART, who_next(S)[0])
    elif a == REVERSE_DIRECTION:
        S[G_DIR] = -S[G_DIR]
        emit(S, EV, EV_EFFECT, v, a, S[G_DIR], 0, 0, 0)
    elif a == SHUFFLE:
        emit(S, EV, EV_EFFECT, v, a, 0, 0, 0, 0)
        n = collect(S, 0, False)
        S[G_SHUFFLES] += 1
        redeal(S, RS, EV, n, R_SHUFFLE, who_next(S)[0])
    elif a == STACK_SWAP_LEFT or a == STACK_SWAP_RIGHT:
        d = 1 if a == STACK_SWAP_LEFT else -1
        swap_stacks(S, d)
        emit(S, EV, EV_EFFECT, v, a, d, 0, 0, 0)
    elif a == SECOND_CHANCE:
        S[G_EXTRA] = v
        emit(S, EV, EV_EFFECT, v, a, 0, 0, 0, 0)
    else:
        if a == SKIP:
            S[G_SKIP] = 1
        elif a == NO_REVEAL:
            S[G_NOREVEAL] = 1
        elif a == NO_TRASH:
            S[G_NOTRASH] = 1
        elif a == PARTIAL_PLAY:
            S[G_PARTIAL] = 1
        elif a == RAPID_FIRE:
            S[G_RAPID] = 1
        elif a == SLOW_DOWN:
            S[G_SLOW] = 1
        else:  # the seven performance cards (T7)
            S[G_PERF + S[G_NPERF]] = a
            S[G_NPERF] += 1
        emit(S, EV, EV_EFFECT, v, a, 0, 0, 0, 0)


@ijit
def act_on(S, F, RS, EV, RV, s, a):
    """Action card ``a`` was just revealed by seat ``s``: record it, let held cards answer (T8)
    and carry it out (T10: in the young variant only the turtle and the gecko act)."""
    if S[G_YOUNG] == 1:
        if a == TURTLE:
            win(S, EV, s, ENDED_TURTLE)
        elif a == ELIMINATED:
            eliminate(S, RS, EV, s)
        return
    row = S[CNT + 1]
    S[CNT + 1] = row + 1
    v = s
    if S[G_HOLD] >= 0 or S[G_HOLD + 1] >= 0 or S[G_HOLD + 2] >= 0:
        v = window(S, F, RS, EV, a, s)
    if row < RV.shape[0]:
        RV[row, RV_GAME] = S[G_GAME] - S[G_START]
        RV[row, RV_CARD] = a
        RV[row, RV_SEAT] = s
        RV[row, RV_TURN] = S[G_TURN]
        RV[row, RV_APPLIED] = v
    if v >= 0:
        apply_action(S, F, RS, EV, a, v)


@ijit
def reveal(S, F, RS, EV, RV, s, src):
    """Seat ``s`` reveals the top card of its stack (``src`` STK) or discard pile (DIS) onto its
    reveal pile; an action card acts, and a Double Dip or Recycle Bonus chains one more reveal."""
    while True:
        card = pop_stack(S, s) if src == STK else pop(S, 3 * s + DIS)
        push_rev(S, 3 * s + REV, card)
        S[sv(s, SV_NREV)] += 1
        emit(S, EV, EV_REVEAL, s, card, 0 if src == STK else 1, 0, 0, 0)
        if card < ACTION_BASE:
            return
        act_on(S, F, RS, EV, RV, s, card - ACTION_BASE)
        s = S[G_CHAIN_SEAT]
        if s < 0 or S[G_OVER] == 1 or S[G_TURN_OVER] == 1:
            S[G_CHAIN_SEAT] = -1
            return
        src = S[G_CHAIN_SRC]
        S[G_CHAIN_SEAT] = -1
        if S[G_DEBUG] == 1:
            check_cards(S)


@kjit
def start_turn(S, F, RS, EV, s):
    """The start of seat ``s``'s turn: the effects pending on it (T7 performances, Skip); returns 1
    when the turn is skipped, else the pending discard/reveal effects as bits (1 Slow Down, 2 No
    Trash, 4 No Reveal, 8 Partial Play, 16 Rapid Fire) shifted left by one."""
    bits = 0
    if S[G_SLOW] == 1:
        bits |= 2
    if S[G_NOTRASH] == 1:
        bits |= 4
    if S[G_NOREVEAL] == 1:
        bits |= 8
    if S[G_PARTIAL] == 1:
        bits |= 16
    if S[G_RAPID] == 1:
        bits |= 32
    skip = S[G_SKIP]
    nperf = S[G_NPERF]
    for i in range(G_SKIP, G_NPERF + 1):
        S[i] = 0
    if skip == 1:
        emit(S, EV, EV_SKIP, s, SK_SKIP, 0, 0, 0, 0)
        return 1
    for k in range(nperf):  # T7: perform (if able and willing) or skip the turn
        c = S[G_PERF + k]
        able = 1 if uniform(RS[1:2]) < F[0] else 0
        did = 0
        if able == 1:
            for i in range(LEGAL_LEN):
                S[LG + i] = 0
            S[LG + SKIP_TURN] = 1
            S[LG + 1] = 1
            if not lean(S, s):
                fill_obs(S, s, D_PERFORM, c, -1, s, -1, -1, 0)
            did = ask(S, F, RS, D_PERFORM, s)
        emit(S, EV, EV_PERFORM, s, c, able, did, 0, 0)
        if did == 0:
            emit(S, EV, EV_SKIP, s, SK_DECLINED if able == 1 else SK_UNABLE, 0, 0, 0, 0)
            return 1
    return bits


@ijit
def play_turn(S, F, RS, EV, RV, s, extra):
    """One turn of seat ``s`` (T4), with the effects pending on it from the last turn."""
    S[G_TURN] += 1
    S[G_CUR] = s
    S[G_REF] = s
    S[G_TURN_OVER] = 0
    emit(S, EV, EV_TURN, s, S[G_TURN], S[PN + 3 * s + STK], extra, S[G_DIR], 0)
    bits = 0
    # "next player" effects wait for the next turn that is not a Second Chance turn
    if extra == 0 and (S[G_SKIP] | S[G_NPERF] | S[G_SLOW] | S[G_NOTRASH] | S[G_NOREVEAL] | S[G_PARTIAL]
                       | S[G_RAPID]) != 0:
        bits = start_turn(S, F, RS, EV, s)
    S[sv(s, SV_KNOWN)] = 0  # a Peek lasts until this seat's next turn
    if bits == 1:
        return
    stk = 3 * s + STK
    if bits != 0:
        special_turn(S, F, RS, EV, RV, s, bits)
        return
    # T4: discard two (fewer on a short stack, keeping one to reveal), then reveal the top card
    n = S[PN + stk]
    nd = 2 if n > 2 else n - 1
    for _ in range(nd):
        c = pop(S, stk)
        push(S, 3 * s + DIS, c)
        emit(S, EV, EV_DISCARD, s, c, S[PN + stk], 0, 0, 0)
    if n > 0:
        reveal(S, F, RS, EV, RV, s, STK)


@kjit
def special_turn(S, F, RS, EV, RV, s, bits):
    """A turn changed by Slow Down, No Trash, No Reveal, Partial Play or Rapid Fire (``bits`` from
    :func:`start_turn`)."""
    stk = 3 * s + STK
    if bits & 2:  # Slow Down: the reveal pile is shuffled into the stack first
        rev = 3 * s + REV
        n = S[PN + rev]
        for i in range(n):
            push(S, stk, S[PL + rev * CAP + i])
        S[PN + rev] = 0
        shuffle_range(S, RS, PL + stk * CAP, S[PN + stk])
        emit(S, EV, EV_NEXT, s, SLOW_DOWN, n, 0, 0, 0)
        emit_pile(S, EV, stk, s)
    if bits & 4:  # No Trash: reveal the top of the discard pile, nothing else
        emit(S, EV, EV_NEXT, s, NO_TRASH, S[PN + 3 * s + DIS], 0, 0, 0)
        if S[PN + 3 * s + DIS] > 0:
            reveal(S, F, RS, EV, RV, s, DIS)
        return
    nd = 2
    if bits & 16:
        nd = 1
        emit(S, EV, EV_NEXT, s, PARTIAL_PLAY, 0, 0, 0, 0)
    if bits & 32:
        nd = 0
        emit(S, EV, EV_NEXT, s, RAPID_FIRE, 0, 0, 0, 0)
    keep = 1
    if bits & 8:
        keep = 0
        emit(S, EV, EV_NEXT, s, NO_REVEAL, 0, 0, 0, 0)
    nd = min(nd, S[PN + stk] - keep)
    for _ in range(nd):
        c = pop_stack(S, s)
        push(S, 3 * s + DIS, c)
        emit(S, EV, EV_DISCARD, s, c, S[PN + stk], 0, 0, 0)
    if keep == 1 and S[PN + stk] > 0:
        reveal(S, F, RS, EV, RV, s, STK)


@kjit
def game_loop(S, F, RS, EV, RV):
    """Play turns from the state in S until a win or the turn cap (T9)."""
    cur = S[G_CUR]
    extra = S[G_IS_EXTRA]
    debug = S[G_DEBUG] == 1
    p = S[G_PLAYERS]
    while S[G_OVER] == 0:
        if S[G_TURN] >= S[G_MAX_TURNS]:  # T9: cut, counted unfinished
            S[G_ENDED] = ENDED_CAP
            S[G_OVER] = 1
            S[G_CUR] = cur
            S[G_IS_EXTRA] = extra
            emit(S, EV, EV_CAP, -1, S[G_TURN], 0, 0, 0, 0)
            break
        play_turn(S, F, RS, EV, RV, cur, extra)
        if debug:
            check_cards(S)
        if S[G_OVER] == 1:
            break
        nxt, extra = who_next(S)
        S[G_EXTRA] = -1
        # a picked or Shield-targeted player's turn is the next one; a Second Chance turn of that very
        # player is it (shield_continue = target: the target's Second Chance turn, then play goes on
        # from the target), so the marker is used up either way
        if extra == 0 or S[G_OVERRIDE] == nxt:
            S[G_OVERRIDE] = -1
        # T6: a stack emptied during the turn: everything unrevealed is redealt when the turn ends
        for s in range(p):
            if S[U(PN + 3 * s + STK)] == 0 and S[U(SV + NSV * s + SV_ALIVE)] == 1:
                n = collect(S, 0, False)
                S[G_REDEALS] += 1
                redeal(S, RS, EV, n, R_EMPTY, nxt)
                if debug:
                    check_cards(S)
                break
        cur = nxt
        S[G_CUR] = cur
        S[G_IS_EXTRA] = extra
    emit(S, EV, EV_END, S[G_WINNER], S[G_ENDED], S[G_TURN], 0, 0, 0)


@kjit
def new_game(S, RS, EV, g, deck, stacked):
    """Reset the state for game ``g`` and deal (T3): the shuffled deck (or ``stacked`` when given)
    one card at a time clockwise from seat 1, each card on top of its stack."""
    p = S[G_PLAYERS]
    dirty = S[G_OBS_DIRTY]
    for i in range(GS, KNOBS):
        S[i] = 0
    S[G_OBS_DIRTY] = dirty
    S[G_GAME] = g
    S[G_PLAYERS] = p
    S[G_DIR] = 1
    S[G_OVERRIDE] = -1
    S[G_EXTRA] = -1
    S[G_WINNER] = -1
    S[G_ENDED] = -1
    S[G_CHAIN_SEAT] = -1
    S[G_HOLD] = -1
    S[G_HOLD + 1] = -1
    S[G_HOLD + 2] = -1
    S[G_NALIVE] = p
    S[G_CUR] = 1 % p
    for q in range(3 * p):
        S[PN + q] = 0
    for s in range(p):
        S[sv(s, SV_ALIVE)] = 1
        S[sv(s, SV_KNOWN)] = 0
        S[sv(s, SV_OUT)] = 0
        S[sv(s, SV_NREV)] = 0
    key = RS[RS_KEY]
    if S[G_YOUNG] == 0:
        seed_stream(RS[1:2], key, g, EFFECT, 0)
        for s in range(p):
            seed_stream(RS[2 + s:3 + s], key, g, POLICY, s)
    n = deck.shape[0]
    if stacked.shape[0] > 0:
        for i in range(n):
            S[POOL + i] = stacked[i]
        S[G_NSHUF] = 1
    else:
        for i in range(n):
            S[POOL + i] = deck[i]
        shuffle_range(S, RS, POOL, n)
    emit(S, EV, EV_START, 0, p, n, 0, 0, 0)
    deal_out(S, EV, n, 1 % p, R_INITIAL)


@kjit
def simulate(S, F, RS, start, count, deck, stacked, out_g, out_s, EV, RV):
    """Play games ``start .. start+count-1``.

    ``S`` int64[NS] holds the players (``S[G_PLAYERS]``), the knobs (from ``KNOBS``), the seats'
    policy ids (``PIDS``) and the cards in play (``INUSE``); ``F``, ``RS`` as in the module doc;
    ``deck`` int64[n] the cards in play; ``stacked`` int64[n] (or empty) a fixed deck order for
    every game. Writes ``out_g`` int64[count, NOG], ``out_s`` int64[count, 16] (elimination order
    per seat, then cards revealed per seat), rows of ``RV`` (``S[CNT + 1]`` counts them, past the
    capacity too; int32, game counted from ``start``) and, when tracing, rows of ``EV`` (``S[CNT]``).
    """
    p = S[G_PLAYERS]
    S[G_START] = start
    for i in range(count):
        g = start + i
        new_game(S, RS, EV, g, deck, stacked)
        if S[G_DEBUG] == 1:
            check_cards(S)
        game_loop(S, F, RS, EV, RV)
        out_g[i, OG_WINNER] = S[G_WINNER]
        out_g[i, OG_TURNS] = S[G_TURN]
        out_g[i, OG_ELIM] = S[G_ELIM]
        out_g[i, OG_RESTARTS] = S[G_RESTARTS]
        out_g[i, OG_REDEALS] = S[G_REDEALS]
        out_g[i, OG_SHUFFLES] = S[G_SHUFFLES]
        out_g[i, OG_ENDED] = S[G_ENDED]
        for s in range(p):
            out_s[i, s] = S[sv(s, SV_OUT)] if S[sv(s, SV_OUT)] > 0 else -1
            out_s[i, 8 + s] = S[sv(s, SV_NREV)]
    return count


@kjit
def play_state(S, F, RS, EV, RV):
    """Play on from a constructed state in S (tests): streams are seeded as in a game."""
    key = RS[RS_KEY]
    g = S[G_GAME]
    seed_stream(RS[1:2], key, g, EFFECT, 0)
    for s in range(S[G_PLAYERS]):
        seed_stream(RS[2 + s:3 + s], key, g, POLICY, s)
    S[G_LIVE] = 0
    for q in range(3 * S[G_PLAYERS]):
        if q % 3 != REV:
            for i in range(S[PN + q]):
                c = S[PL + q * CAP + i]
                if c >= ACTION_BASE:
                    S[G_LIVE] |= 1 << (c - ACTION_BASE)
    if S[G_DEBUG] == 1:
        check_cards(S)
    game_loop(S, F, RS, EV, RV)


@njit
def minimal(key, start, count, players, deck):
    """The bench baseline: shuffle, deal and resolve with the turtle and the gecko only (T3-T6,
    T10), no events, no policy calls. Returns the sum of winners (so nothing is optimised away)."""
    stk = np.zeros((MAXP, CAP), np.int64)
    sn = np.zeros(MAXP, np.int64)
    dis = np.zeros((MAXP, CAP), np.int64)
    dn = np.zeros(MAXP, np.int64)
    alive = np.zeros(MAXP, np.int64)
    pool = np.zeros(CAP, np.int64)
    rng = np.zeros(1, np.uint64)
    ndeck = deck.shape[0]
    total = 0
    for i in range(count):
        g = start + i
        for s in range(players):
            sn[s] = 0
            dn[s] = 0
            alive[s] = 1
        nalive = players
        for j in range(ndeck):
            pool[j] = deck[j]
        seed_stream(rng, key, g, DEAL, 0)
        shuffle(rng, pool, ndeck)
        s = 1 % players
        for j in range(ndeck):
            stk[s, sn[s]] = pool[j]
            sn[s] += 1
            s = (s + 1) % players
        nshuf = 1
        cur = 1 % players
        winner = -1
        while winner < 0:
            nd = min(2, sn[cur] - 1)
            for _ in range(nd):
                sn[cur] -= 1
                dis[cur, dn[cur]] = stk[cur, sn[cur]]
                dn[cur] += 1
            nxt = (cur + 1) % players
            while alive[nxt] == 0:
                nxt = (nxt + 1) % players
            redo = False
            n = 0
            if sn[cur] > 0:
                sn[cur] -= 1
                c = stk[cur, sn[cur]]
                if c == TURTLE_CARD:
                    winner = cur
                    break
                if c == GECKO_CARD:
                    alive[cur] = 0
                    nalive -= 1
                    if nalive == 1:
                        winner = nxt
                        break
                    pool[0] = c
                    n = 1
                    redo = True
            if not redo:
                for t in range(players):
                    if alive[t] == 1 and sn[t] == 0:
                        redo = True
            if redo:
                for t in range(players):
                    for j in range(sn[t]):
                        pool[n] = stk[t, j]
                        n += 1
                    for j in range(dn[t]):
                        pool[n] = dis[t, j]
                        n += 1
                    sn[t] = 0
                    dn[t] = 0
                seed_stream(rng, key, g, DEAL, nshuf)
                nshuf += 1
                shuffle(rng, pool, n)
                t = nxt
                for j in range(n):
                    stk[t, sn[t]] = pool[j]
                    sn[t] += 1
                    t = (t + 1) % players
                    while alive[t] == 0:
                        t = (t + 1) % players
            cur = nxt
        total += winner
    return total

