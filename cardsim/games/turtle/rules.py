"""The Bad, Bad, Turtle kernel: whole games, start to end (RULES.md T1-T10).

This is the game's kernel module: every function here that calls a
``decide_*`` dispatcher (directly or not) is rebuilt for plug-in policies
(:func:`cardsim.policies.kernel_namespace`), so the dispatchers are named
by their global names only.

Seats ``0..P-1`` sit clockwise; seat 0 deals, seat 1 plays first (T3).
"Left" of seat ``s`` is ``s + 1``. State lives in a few small int arrays,
allocated once per chunk:

- ``piles`` int64[3*8, 64], ``pn`` int64[24]: pile ``3*s + STK`` is seat
  ``s``'s stack, ``3*s + DIS`` its discard pile, ``3*s + REV`` its reveal
  pile; index ``pn[p] - 1`` is the top of a pile.
- ``sv`` int64[8, NSV]: per seat: in the game, how many top cards of its
  stack it knows (Peek), elimination order, cards revealed.
- ``gs`` int64[NGS]: the game's scalars (turn, direction, pending effects
  on the next turn, holders of the held cards, counters) and the rule knobs.
- ``rs`` uint64[10, 1]: random streams: row 0 shuffles (``DEAL``), row 1
  performance draws (``EFFECT``), row ``2 + s`` seat ``s``'s policy.

Every card is in exactly one place: a pile, or held by a seat
(``gs[G_HOLD + k]``); ``check_cards`` verifies it in debug mode.
"""

from __future__ import annotations

import numpy as np

from cardsim.games.turtle.cards import (
    ACTION_BASE,
    CLEAN_UP,
    DO_OVER,
    DOUBLE_DIP,
    ELIMINATED,
    LEGAL_LEN,
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
from cardsim.games.turtle.policies import decide_perform, decide_pick, decide_respond
from cardsim.jit import njit
from cardsim.rng import DEAL, EFFECT, POLICY, seed_stream, shuffle, uniform

MAXP = 8
CAP = 64
STK, DIS, REV = 0, 1, 2
HELD_CARDS = (NEVER_HAPPENED, NO_WAY, SHIELD)

# per-seat values (sv columns)
SV_ALIVE, SV_KNOWN, SV_OUT, SV_NREV = 0, 1, 2, 3
NSV = 4

# game scalars (gs); 0..39 play state, 40.. knobs
G_GAME, G_PLAYERS, G_CUR, G_DIR, G_REF, G_OVERRIDE, G_EXTRA = 0, 1, 2, 3, 4, 5, 6
G_SKIP, G_NOREVEAL, G_NOTRASH, G_PARTIAL, G_RAPID, G_SLOW, G_NPERF = 7, 8, 9, 10, 11, 12, 13
G_PERF = 14  # 14..20: the performance cards pending on the next turn
G_TURN, G_RESTARTS, G_REDEALS, G_SHUFFLES, G_NSHUF, G_ELIM = 21, 22, 23, 24, 25, 26
G_WINNER, G_ENDED, G_OVER, G_CHAIN_SEAT, G_CHAIN_SRC, G_TURN_OVER, G_NALIVE = 27, 28, 29, 30, 31, 32, 33
G_HOLD = 34  # 34, 35, 36: seat holding Never Happened, No Way, Shield (-1: nobody)
G_IS_EXTRA = 37
G_MAX_TURNS, G_YOUNG, G_PICK_SELF, G_SHIELD_TARGET, G_SHIELD_TURTLE, G_NH_HELD = 40, 41, 42, 43, 44, 45
G_REFUND_BOTTOM, G_REVIVE, G_DEBUG, G_TRACE, G_NCARDS = 46, 47, 48, 49, 50
NGS = 64
PF_PERFORM = 0  # pf[0]: probability that a seat asked to perform is able to (T7)

# game outcome (out_g columns)
OG_WINNER, OG_TURNS, OG_ELIM, OG_RESTARTS, OG_REDEALS, OG_SHUFFLES, OG_ENDED = 0, 1, 2, 3, 4, 5, 6
NOG = 7
ENDED_TURTLE, ENDED_LAST, ENDED_CAP = 0, 1, 2
# reveal table rows (rv columns): one per action card revealed
RV_GAME, RV_CARD, RV_SEAT, RV_TURN, RV_APPLIED = 0, 1, 2, 3, 4
NRV = 5

# redeal reasons
R_INITIAL, R_GECKO, R_EMPTY, R_SHUFFLE, R_RESTART = 0, 1, 2, 3, 4
# skip reasons
SK_SKIP, SK_DECLINED, SK_UNABLE = 0, 1, 2
# decisions (error reports)
D_PICK, D_RESPOND, D_PERFORM = 0, 1, 2

# event kinds: rows (game, kind, seat, a, b, c, d, e)
EV_START = 0     # seat: dealer; a players, b cards in the deck
EV_DEAL = 1      # seat; a cards dealt to it, b reason (R_*)
EV_TURN = 2      # seat; a turn number, b stack size, c 1 if a Second Chance turn, d direction
EV_SKIP = 3      # seat; a reason (SK_*)
EV_PERFORM = 4   # seat; a performance card (action code), b able, c performed
EV_DISCARD = 5   # seat; a card, b stack size after
EV_REVEAL = 6    # seat; a card, b source (0 stack, 1 discard pile)
EV_EFFECT = 7    # seat the card acts on; a card; b, c details (see game.decode_event)
EV_NEXT = 8      # seat; a card (action code) whose "next player" effect now applies, b detail
EV_HOLD = 9      # seat; a held card set aside
EV_PLAY = 10     # seat; a held card played, b response (NH_CARD..), c card answered, d seat it acted on, e target
EV_CANCEL = 11   # seat (its player); a card, b 1 overruled by Never Happened / 2 discarded by No Way
EV_ELIM = 12     # seat; a elimination order
EV_REDEAL = 13   # a reason, b cards, c first seat dealt
EV_WIN = 14      # seat; a 0 turtle / 1 last player standing
EV_CAP = 15      # a turns played
EV_END = 16      # seat winner (-1); a ended code, b turns

TURTLE_CARD = ACTION_BASE + TURTLE
GECKO_CARD = ACTION_BASE + ELIMINATED
ILLEGAL, BROKEN = 1, 2


# -- small helpers --------------------------------------------------------------------
@njit
def emit(gs, ev, cnt, kind, seat, a, b, c, d, e):
    """Append one trace row when tracing; counts past the capacity so the wrapper can grow it."""
    if gs[G_TRACE] == 0:
        return
    i = cnt[0]
    if i < ev.shape[0]:
        ev[i, 0] = gs[G_GAME]
        ev[i, 1] = kind
        ev[i, 2] = seat
        ev[i, 3] = a
        ev[i, 4] = b
        ev[i, 5] = c
        ev[i, 6] = d
        ev[i, 7] = e
    cnt[0] = i + 1


@njit
def push(piles, pn, p, card):
    piles[p, pn[p]] = card
    pn[p] += 1


@njit
def pop(piles, pn, p):
    pn[p] -= 1
    return piles[p, pn[p]]


@njit
def pop_stack(piles, pn, sv, s):
    """Take the top card of seat ``s``'s stack; a Peek's knowledge shrinks with it."""
    if sv[s, SV_KNOWN] > 0:
        sv[s, SV_KNOWN] -= 1
    return pop(piles, pn, 3 * s + STK)


@njit
def next_alive(sv, players, s, d):
    """The next seat still in the game after ``s`` in direction ``d`` (-1 if none)."""
    t = s
    for _ in range(players):
        t = (t + d + players) % players
        if sv[t, SV_ALIVE] == 1:
            return t
    return -1


@njit
def who_next(gs, sv):
    """(seat, is_extra) of the next turn: a Second Chance turn, else a picked player, else the next
    seat in the play direction from the reference seat (the player whose turn it was, or a Shield's
    target)."""
    e = gs[G_EXTRA]
    if e >= 0 and sv[e, SV_ALIVE] == 1:
        return e, 1
    o = gs[G_OVERRIDE]
    if o >= 0 and sv[o, SV_ALIVE] == 1:
        return o, 0
    return next_alive(sv, gs[G_PLAYERS], gs[G_REF], gs[G_DIR]), 0


@njit
def check_cards(piles, pn, gs, inuse, err):
    """Debug: every card of the deck is in exactly one place (a pile or held); raise otherwise."""
    seen = np.zeros(N_CARDS, np.int64)
    for p in range(3 * gs[G_PLAYERS]):
        for i in range(pn[p]):
            seen[piles[p, i]] += 1
    for k in range(3):
        if gs[G_HOLD + k] >= 0:
            seen[ACTION_BASE + HELD_CARDS[k]] += 1
    for c in range(N_CARDS):
        if seen[c] != inuse[c]:
            err[0] = BROKEN
            err[1] = gs[G_GAME]
            err[2] = c
            err[3] = seen[c]
            err[4] = gs[G_TURN]
            raise AssertionError("Bad, Bad, Turtle: card conservation broken")


@njit
def deal_out(piles, pn, sv, gs, ev, cnt, pool, n, first, reason):
    """Deal ``pool[:n]`` one card at a time onto the stacks of the seats still in the game,
    clockwise from ``first`` (T3, T5); each card goes on top of its stack."""
    p = gs[G_PLAYERS]
    s = first
    got = np.zeros(MAXP, np.int64)
    for i in range(n):
        push(piles, pn, 3 * s + STK, pool[i])
        got[s] += 1
        if i < n - 1:
            s = next_alive(sv, p, s, 1)
    for s in range(p):
        sv[s, SV_KNOWN] = 0
        if sv[s, SV_ALIVE] == 1:
            emit(gs, ev, cnt, EV_DEAL, s, got[s], reason, 0, 0, 0)


@njit
def collect(piles, pn, gs, pool, n, reveals):
    """Move every stack and discard pile (and reveal pile when ``reveals``) into ``pool[n:]``."""
    for s in range(gs[G_PLAYERS]):
        for k in range(3):
            if k == REV and not reveals:
                continue
            p = 3 * s + k
            for i in range(pn[p]):
                pool[n] = piles[p, i]
                n += 1
            pn[p] = 0
    return n


@njit
def shuffle_stream(rs, gs, key):
    """Seed the shuffle stream for the next shuffle of this game (DEAL, sub = shuffle counter)."""
    seed_stream(rs[0], key, gs[G_GAME], DEAL, gs[G_NSHUF])
    gs[G_NSHUF] += 1


@njit
def redeal(piles, pn, sv, gs, rs, ev, cnt, tmp, key, pool_n, reason, first):
    """Shuffle ``tmp[8, :pool_n]`` and deal it from ``first``, the player who plays next (T5, T6)."""
    pool = tmp[8]
    shuffle_stream(rs, gs, key)
    shuffle(rs[0], pool, pool_n)
    emit(gs, ev, cnt, EV_REDEAL, -1, reason, pool_n, first, 0, 0)
    deal_out(piles, pn, sv, gs, ev, cnt, pool, pool_n, first, reason)


@njit
def win(gs, ev, cnt, s, how):
    gs[G_WINNER] = s
    gs[G_ENDED] = how
    gs[G_OVER] = 1
    emit(gs, ev, cnt, EV_WIN, s, how, 0, 0, 0, 0)


@njit
def eliminate(piles, pn, sv, gs, rs, ev, cnt, tmp, key, v):
    """T5: seat ``v`` revealed the gecko (on top of its reveal pile) and is out. The gecko, every
    stack and every discard pile are shuffled and redealt; revealed and held cards stay."""
    sv[v, SV_ALIVE] = 0
    gs[G_NALIVE] -= 1
    gs[G_ELIM] += 1
    sv[v, SV_OUT] = gs[G_ELIM]
    gs[G_TURN_OVER] = 1
    emit(gs, ev, cnt, EV_ELIM, v, gs[G_ELIM], 0, 0, 0, 0)
    if gs[G_NALIVE] == 1:
        win(gs, ev, cnt, next_alive(sv, gs[G_PLAYERS], v, 1), ENDED_LAST)
        return
    pool = tmp[8]
    pool[0] = pop(piles, pn, 3 * v + REV)
    n = collect(piles, pn, gs, pool, 1, False)
    gs[G_REDEALS] += 1
    redeal(piles, pn, sv, gs, rs, ev, cnt, tmp, key, n, R_GECKO, who_next(gs, sv)[0])


@njit
def swap_stacks(piles, pn, sv, gs, tmp, d):
    """Every seat still in the game gives its stack to the next one in direction ``d``
    (+1: to the left, Stack Swap Left; -1: to the right)."""
    p = gs[G_PLAYERS]
    lens = tmp[9]
    for s in range(p):
        q = 3 * s + STK
        lens[s] = pn[q]
        for i in range(pn[q]):
            tmp[s, i] = piles[q, i]
    for s in range(p):
        if sv[s, SV_ALIVE] == 1:
            t = next_alive(sv, p, s, d)
            q = 3 * t + STK
            pn[q] = lens[s]
            for i in range(lens[s]):
                piles[q, i] = tmp[s, i]
        sv[s, SV_KNOWN] = 0


@njit
def shuffle_pile(piles, pn, rs, gs, key, p):
    shuffle_stream(rs, gs, key)
    shuffle(rs[0], piles[p], pn[p])


# -- decisions ----------------------------------------------------------------------------
@njit
def fill_obs(piles, pn, sv, gs, obs, seat, decision, a, revealer, victim, last, last_by, status):
    """Write what ``seat`` may see into ``obs`` (layout: cards.OBS_*)."""
    p = gs[G_PLAYERS]
    obs[:] = 0
    obs[OBS_PLAYERS] = p
    obs[OBS_SEAT] = seat
    obs[OBS_CUR] = gs[G_CUR]
    obs[OBS_DIR] = gs[G_DIR]
    obs[OBS_CARD] = a
    obs[OBS_REVEALER] = revealer
    obs[OBS_VICTIM] = victim
    obs[OBS_LAST] = last
    obs[OBS_LAST_BY] = last_by
    obs[OBS_STATUS] = status
    obs[OBS_NEXT] = next_alive(sv, p, seat, gs[G_DIR])
    obs[OBS_ALIVE] = gs[G_NALIVE]
    obs[OBS_TURN] = gs[G_TURN]
    obs[OBS_DECISION] = decision
    unrevealed = 0
    for s in range(p):
        b = OBS_SEATS + OBS_SEAT_W * s
        obs[b] = sv[s, SV_ALIVE]
        obs[b + 1] = pn[3 * s + STK]
        obs[b + 2] = pn[3 * s + DIS]
        obs[b + 3] = pn[3 * s + REV]
        for k in range(2):
            q = 3 * s + k
            unrevealed += pn[q]
            for i in range(pn[q]):
                c = piles[q, i]
                if c >= ACTION_BASE:
                    obs[OBS_LIVE + c - ACTION_BASE] = 1
    for k in range(3):
        h = gs[G_HOLD + k]
        if h >= 0:
            obs[OBS_SEATS + OBS_SEAT_W * h + 4] |= 1 << k
    obs[OBS_UNREVEALED] = unrevealed
    obs[OBS_GECKO_LIVE] = obs[OBS_LIVE + ELIMINATED]
    q = 3 * seat + STK
    n = pn[q]
    known = min(sv[seat, SV_KNOWN], n)
    obs[OBS_KNOWN] = known
    for i in range(64):
        obs[OBS_STACK + i] = piles[q, n - 1 - i] if i < known else -1


@njit
def ask(decision, gs, pids, params, rs, obs, legal, err, seat):
    """Call seat ``seat``'s policy at ``decision`` and validate the answer (raise when illegal)."""
    pid = pids[seat]
    if decision == D_PICK:
        act = decide_pick(pid, seat, obs, legal, params[seat], rs[2 + seat])
    elif decision == D_RESPOND:
        act = decide_respond(pid, seat, obs, legal, params[seat], rs[2 + seat])
    else:
        act = decide_perform(pid, seat, obs, legal, params[seat], rs[2 + seat])
    act = np.int64(act)
    if act < 0 or act >= LEGAL_LEN or legal[act] == 0:
        err[0] = ILLEGAL
        err[1] = gs[G_GAME]
        err[2] = seat
        err[3] = decision
        err[4] = act
        for i in range(LEGAL_LEN):
            err[8 + i] = legal[i]
        raise ValueError("Bad, Bad, Turtle: illegal policy action")
    return act


@njit
def respond_legal(sv, gs, legal, s, a, v, status, last):
    """Legal answers of seat ``s`` to action card ``a`` acting on seat ``v`` (T8); returns how many
    besides passing."""
    legal[:] = 0
    legal[PASS] = 1
    n = 0
    if gs[G_HOLD] == s:
        if status == 0 and a != TURTLE:
            legal[NH_CARD] = 1
            n += 1
        if gs[G_NH_HELD] == 1 and ((last == NO_WAY and status == 2) or (last == SHIELD and status == 0)):
            legal[NH_HELD] = 1
            n += 1
    if gs[G_HOLD + 1] == s and status == 0:
        legal[NO_WAY_PLAY] = 1
        n += 1
    if gs[G_HOLD + 2] == s and status == 0 and (a != TURTLE or gs[G_SHIELD_TURTLE] == 1):
        for t in range(gs[G_PLAYERS]):
            if t != v and sv[t, SV_ALIVE] == 1:
                legal[SHIELD_BASE + t] = 1
                n += 1
    return n


@njit
def window(piles, pn, sv, gs, rs, pids, params, obs, legal, ev, cnt, err, a, revealer):
    """T8: after action card ``a`` is revealed by ``revealer`` (it lies on top of their reveal pile),
    players holding Never Happened, No Way or Shield may play them, asked from the seat the card acts
    on onwards in the play direction, round after round until a round passes with no play. Returns
    the seat the card finally acts on, or -1 when it was overruled or discarded."""
    alive_holder = False
    for k in range(3):
        h = gs[G_HOLD + k]
        if h >= 0 and sv[h, SV_ALIVE] == 1:
            alive_holder = True
    if not alive_holder:
        return revealer
    p = gs[G_PLAYERS]
    d = gs[G_DIR]
    code = ACTION_BASE + a
    v = revealer
    prev_v = -1
    status = 0
    last = -1
    last_by = -1
    shield_t = -1
    prev_shield_t = -1
    while True:
        played = False
        s = v
        for i in range(p):
            if i > 0:
                s = (s + d + p) % p
            if sv[s, SV_ALIVE] == 0:
                continue
            if respond_legal(sv, gs, legal, s, a, v, status, last) == 0:
                continue
            fill_obs(piles, pn, sv, gs, obs, s, D_RESPOND, a, revealer, v, last, last_by, status)
            act = ask(D_RESPOND, gs, pids, params, rs, obs, legal, err, s)
            if act == PASS:
                continue
            played = True
            if act == NH_CARD:
                gs[G_HOLD] = -1
                push(piles, pn, 3 * s + REV, ACTION_BASE + NEVER_HAPPENED)
                status = 1
                emit(gs, ev, cnt, EV_PLAY, s, NEVER_HAPPENED, NH_CARD, a, v, -1)
                last = NEVER_HAPPENED
            elif act == NH_HELD:
                gs[G_HOLD] = -1
                emit(gs, ev, cnt, EV_PLAY, s, NEVER_HAPPENED, NH_HELD, last, v, last_by)
                if last == NO_WAY:  # the card comes back from the discard pile and stays in force
                    pop(piles, pn, 3 * v + DIS)
                    push(piles, pn, 3 * s + REV, ACTION_BASE + NEVER_HAPPENED)
                    push(piles, pn, 3 * v + REV, code)
                    status = 0
                else:  # the Shield is undone: the card goes back to the seat it was forced from
                    pop(piles, pn, 3 * v + REV)
                    push(piles, pn, 3 * s + REV, ACTION_BASE + NEVER_HAPPENED)
                    push(piles, pn, 3 * prev_v + REV, code)
                    v = prev_v
                    shield_t = prev_shield_t
                last = NEVER_HAPPENED
            elif act == NO_WAY_PLAY:
                gs[G_HOLD + 1] = -1
                pop(piles, pn, 3 * v + REV)
                push(piles, pn, 3 * v + DIS, code)
                push(piles, pn, 3 * v + REV, ACTION_BASE + NO_WAY)
                status = 2
                emit(gs, ev, cnt, EV_PLAY, s, NO_WAY, NO_WAY_PLAY, a, v, -1)
                last = NO_WAY
            else:
                t = act - SHIELD_BASE
                gs[G_HOLD + 2] = -1
                pop(piles, pn, 3 * v + REV)
                push(piles, pn, 3 * s + REV, ACTION_BASE + SHIELD)
                push(piles, pn, 3 * t + REV, code)
                emit(gs, ev, cnt, EV_PLAY, s, SHIELD, act, a, v, t)
                prev_v = v
                v = t
                prev_shield_t = shield_t
                shield_t = t
                last = SHIELD
            last_by = s
            break
        if not played:
            break
    if shield_t >= 0:  # "Play continues around the table from that player"
        gs[G_REF] = shield_t
        if gs[G_SHIELD_TARGET] == 1:
            gs[G_OVERRIDE] = shield_t
    if status != 0:
        emit(gs, ev, cnt, EV_CANCEL, v, a, status, 0, 0, 0)
        return -1
    return v


# -- revealing and the action cards ------------------------------------------------------------
@njit
def apply_action(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, cnt, err, key, a, v):
    """Carry out action card ``a`` (on top of seat ``v``'s reveal pile) for seat ``v``."""
    p = gs[G_PLAYERS]
    stk = 3 * v + STK
    dis = 3 * v + DIS
    rev = 3 * v + REV
    if a == TURTLE:
        win(gs, ev, cnt, v, ENDED_TURTLE)
    elif a == ELIMINATED:
        eliminate(piles, pn, sv, gs, rs, ev, cnt, tmp, key, v)
    elif a == NEVER_HAPPENED or a == NO_WAY or a == SHIELD:
        pop(piles, pn, rev)
        k = 0 if a == NEVER_HAPPENED else (1 if a == NO_WAY else 2)
        gs[G_HOLD + k] = v
        emit(gs, ev, cnt, EV_HOLD, v, a, 0, 0, 0, 0)
    elif a == CLEAN_UP:
        # the rest of the reveal pile, turned over as a packet, goes onto the discard pile
        n = pn[rev] - 1
        for i in range(n - 1, -1, -1):
            push(piles, pn, dis, piles[rev, i])
        piles[rev, 0] = ACTION_BASE + CLEAN_UP
        pn[rev] = 1
        emit(gs, ev, cnt, EV_EFFECT, v, a, n, 0, 0, 0)
    elif a == DO_OVER:
        n = pn[rev] - 1
        for i in range(n):
            push(piles, pn, stk, piles[rev, i])
        piles[rev, 0] = ACTION_BASE + DO_OVER
        pn[rev] = 1
        shuffle_pile(piles, pn, rs, gs, key, stk)
        sv[v, SV_KNOWN] = 0
        emit(gs, ev, cnt, EV_EFFECT, v, a, n, pn[stk], 0, 0)
    elif a == DOUBLE_DIP:
        if pn[stk] > 0:
            gs[G_CHAIN_SEAT] = v
            gs[G_CHAIN_SRC] = STK
        emit(gs, ev, cnt, EV_EFFECT, v, a, 1 if pn[stk] > 0 else 0, 0, 0, 0)
    elif a == RECYCLE_BONUS:
        if pn[dis] > 0:
            gs[G_CHAIN_SEAT] = v
            gs[G_CHAIN_SRC] = DIS
        emit(gs, ev, cnt, EV_EFFECT, v, a, 1 if pn[dis] > 0 else 0, 0, 0, 0)
    elif a == REFUND:
        c = -1
        if pn[dis] > 0:
            c = pop(piles, pn, dis)
            if gs[G_REFUND_BOTTOM] == 1:
                for i in range(pn[stk], 0, -1):
                    piles[stk, i] = piles[stk, i - 1]
                piles[stk, 0] = c
                pn[stk] += 1
            else:
                push(piles, pn, stk, c)
                sv[v, SV_KNOWN] = 0
        emit(gs, ev, cnt, EV_EFFECT, v, a, c, gs[G_REFUND_BOTTOM], 0, 0)
    elif a == PEEK:
        sv[v, SV_KNOWN] = pn[stk]
        emit(gs, ev, cnt, EV_EFFECT, v, a, pn[stk], 0, 0, 0)
    elif a == PICK_A_PLAYER:
        legal[:] = 0
        for t in range(p):
            if sv[t, SV_ALIVE] == 1 and (t != v or gs[G_PICK_SELF] == 1):
                legal[t] = 1
        fill_obs(piles, pn, sv, gs, obs, v, D_PICK, a, v, v, -1, -1, 0)
        t = ask(D_PICK, gs, pids, params, rs, obs, legal, err, v)
        gs[G_OVERRIDE] = t
        emit(gs, ev, cnt, EV_EFFECT, v, a, t, 0, 0, 0)
    elif a == RESTART_GAME:
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
        pool = tmp[8]
        n = collect(piles, pn, gs, pool, 0, True)
        for k in range(3):
            if gs[G_HOLD + k] >= 0:
                pool[n] = ACTION_BASE + HELD_CARDS[k]
                n += 1
                gs[G_HOLD + k] = -1
        if gs[G_REVIVE] == 1:
            for s in range(p):
                sv[s, SV_ALIVE] = 1
                sv[s, SV_OUT] = 0
            gs[G_NALIVE] = p
            gs[G_ELIM] = 0
        gs[G_RESTARTS] += 1
        gs[G_CHAIN_SEAT] = -1
        redeal(piles, pn, sv, gs, rs, ev, cnt, tmp, key, n, R_RESTART, who_next(gs, sv)[0])
    elif a == REVERSE_DIRECTION:
        gs[G_DIR] = -gs[G_DIR]
        emit(gs, ev, cnt, EV_EFFECT, v, a, gs[G_DIR], 0, 0, 0)
    elif a == SHUFFLE:
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
        n = collect(piles, pn, gs, tmp[8], 0, False)
        gs[G_SHUFFLES] += 1
        redeal(piles, pn, sv, gs, rs, ev, cnt, tmp, key, n, R_SHUFFLE, who_next(gs, sv)[0])
    elif a == STACK_SWAP_LEFT or a == STACK_SWAP_RIGHT:
        d = 1 if a == STACK_SWAP_LEFT else -1
        swap_stacks(piles, pn, sv, gs, tmp, d)
        emit(gs, ev, cnt, EV_EFFECT, v, a, d, 0, 0, 0)
    elif a == SECOND_CHANCE:
        gs[G_EXTRA] = v
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
    elif a == SKIP:
        gs[G_SKIP] += 1
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
    elif a == NO_REVEAL:
        gs[G_NOREVEAL] = 1
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
    elif a == NO_TRASH:
        gs[G_NOTRASH] = 1
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
    elif a == PARTIAL_PLAY:
        gs[G_PARTIAL] = 1
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
    elif a == RAPID_FIRE:
        gs[G_RAPID] = 1
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
    elif a == SLOW_DOWN:
        gs[G_SLOW] = 1
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)
    else:  # the seven performance cards (T7)
        gs[G_PERF + gs[G_NPERF]] = a
        gs[G_NPERF] += 1
        emit(gs, ev, cnt, EV_EFFECT, v, a, 0, 0, 0, 0)


@njit
def resolve(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, s, src):
    """Seat ``s`` reveals the top card of its stack (``src`` STK) or discard pile (DIS): the card goes
    on its reveal pile and, if an action card, acts (T5, T8, T10)."""
    if src == STK:
        card = pop_stack(piles, pn, sv, s)
    else:
        card = pop(piles, pn, 3 * s + DIS)
    push(piles, pn, 3 * s + REV, card)
    sv[s, SV_NREV] += 1
    emit(gs, ev, cnt, EV_REVEAL, s, card, 0 if src == STK else 1, 0, 0, 0)
    if card < ACTION_BASE:
        return
    a = card - ACTION_BASE
    if gs[G_YOUNG] == 1:  # T10: only the turtle and the gecko act
        if a == TURTLE:
            win(gs, ev, cnt, s, ENDED_TURTLE)
        elif a == ELIMINATED:
            eliminate(piles, pn, sv, gs, rs, ev, cnt, tmp, key, s)
        return
    row = cnt[1]
    if row < rv.shape[0]:
        rv[row, RV_GAME] = gs[G_GAME]
        rv[row, RV_CARD] = a
        rv[row, RV_SEAT] = s
        rv[row, RV_TURN] = gs[G_TURN]
        rv[row, RV_APPLIED] = s
    cnt[1] = row + 1
    v = window(piles, pn, sv, gs, rs, pids, params, obs, legal, ev, cnt, err, a, s)
    if row < rv.shape[0]:
        rv[row, RV_APPLIED] = v
    if v >= 0:
        apply_action(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, cnt, err, key, a, v)


@njit
def reveal(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, inuse, s, src):
    """A reveal and the extra reveals it chains (Double Dip, Recycle Bonus)."""
    resolve(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, s, src)
    while gs[G_CHAIN_SEAT] >= 0 and gs[G_OVER] == 0 and gs[G_TURN_OVER] == 0:
        cs = gs[G_CHAIN_SEAT]
        csrc = gs[G_CHAIN_SRC]
        gs[G_CHAIN_SEAT] = -1
        if gs[G_DEBUG] == 1:
            check_cards(piles, pn, gs, inuse, err)
        if pn[3 * cs + csrc] > 0:
            resolve(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, cs, csrc)
    gs[G_CHAIN_SEAT] = -1


@njit
def play_turn(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, inuse, s, extra):
    """One turn of seat ``s`` (T4), with the effects pending on it from the last turn."""
    gs[G_TURN] += 1
    gs[G_CUR] = s
    gs[G_REF] = s
    gs[G_TURN_OVER] = 0
    emit(gs, ev, cnt, EV_TURN, s, gs[G_TURN], pn[3 * s + STK], extra, gs[G_DIR], 0)
    skip = 0
    slow = 0
    notrash = 0
    noreveal = 0
    partial = 0
    rapid = 0
    if extra == 0:  # "next player" effects apply to the next turn that is not a Second Chance turn
        skip = gs[G_SKIP]
        slow = gs[G_SLOW]
        notrash = gs[G_NOTRASH]
        noreveal = gs[G_NOREVEAL]
        partial = gs[G_PARTIAL]
        rapid = gs[G_RAPID]
        nperf = gs[G_NPERF]
        gs[G_SKIP] = 0
        gs[G_SLOW] = 0
        gs[G_NOTRASH] = 0
        gs[G_NOREVEAL] = 0
        gs[G_PARTIAL] = 0
        gs[G_RAPID] = 0
        gs[G_NPERF] = 0
        if skip > 0:
            emit(gs, ev, cnt, EV_SKIP, s, SK_SKIP, 0, 0, 0, 0)
        else:
            for k in range(nperf):  # T7: perform (if able and willing) or skip the turn
                c = gs[G_PERF + k]
                able = 1 if uniform(rs[1]) < pf[PF_PERFORM] else 0
                did = 0
                if able == 1:
                    legal[:] = 0
                    legal[SKIP_TURN] = 1
                    legal[1] = 1
                    fill_obs(piles, pn, sv, gs, obs, s, D_PERFORM, c, -1, s, -1, -1, 0)
                    did = ask(D_PERFORM, gs, pids, params, rs, obs, legal, err, s)
                emit(gs, ev, cnt, EV_PERFORM, s, c, able, did, 0, 0)
                if did == 0:
                    skip = 1
                    emit(gs, ev, cnt, EV_SKIP, s, SK_DECLINED if able == 1 else SK_UNABLE, 0, 0, 0, 0)
                    break
    sv[s, SV_KNOWN] = 0  # a Peek lasts until this seat's next turn
    if skip > 0:
        return
    stk = 3 * s + STK
    if slow == 1:  # Slow Down: the reveal pile is shuffled into the stack first
        rev = 3 * s + REV
        n = pn[rev]
        for i in range(n):
            push(piles, pn, stk, piles[rev, i])
        pn[rev] = 0
        shuffle_pile(piles, pn, rs, gs, key, stk)
        emit(gs, ev, cnt, EV_NEXT, s, SLOW_DOWN, n, 0, 0, 0)
    if notrash == 1:  # No Trash: reveal the top of the discard pile, nothing else
        emit(gs, ev, cnt, EV_NEXT, s, NO_TRASH, pn[3 * s + DIS], 0, 0, 0)
        if pn[3 * s + DIS] > 0:
            reveal(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, inuse, s, DIS)
        return
    nd = 2
    if partial == 1:
        nd = 1
        emit(gs, ev, cnt, EV_NEXT, s, PARTIAL_PLAY, 0, 0, 0, 0)
    if rapid == 1:
        nd = 0
        emit(gs, ev, cnt, EV_NEXT, s, RAPID_FIRE, 0, 0, 0, 0)
    if noreveal == 1:
        emit(gs, ev, cnt, EV_NEXT, s, NO_REVEAL, 0, 0, 0, 0)
    # T4: discard two (fewer on a short stack, keeping one to reveal), then reveal the top card
    keep = 0 if noreveal == 1 else 1
    nd = min(nd, pn[stk] - keep)
    for _ in range(nd):
        c = pop_stack(piles, pn, sv, s)
        push(piles, pn, 3 * s + DIS, c)
        emit(gs, ev, cnt, EV_DISCARD, s, c, pn[stk], 0, 0, 0)
    if noreveal == 0 and pn[stk] > 0:
        reveal(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, inuse, s, STK)


@njit
def game_loop(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, inuse):
    """Play turns from the state given until a win or the turn cap (T9)."""
    cur = gs[G_CUR]
    extra = gs[G_IS_EXTRA]
    debug = gs[G_DEBUG] == 1
    p = gs[G_PLAYERS]
    while gs[G_OVER] == 0:
        if gs[G_TURN] >= gs[G_MAX_TURNS]:  # T9: cut, counted unfinished
            gs[G_ENDED] = ENDED_CAP
            gs[G_OVER] = 1
            gs[G_CUR] = cur
            gs[G_IS_EXTRA] = extra
            emit(gs, ev, cnt, EV_CAP, -1, gs[G_TURN], 0, 0, 0, 0)
            break
        play_turn(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, inuse,
                  cur, extra)
        if debug:
            check_cards(piles, pn, gs, inuse, err)
        if gs[G_OVER] == 1:
            break
        nxt, extra = who_next(gs, sv)
        gs[G_EXTRA] = -1
        if extra == 0:
            gs[G_OVERRIDE] = -1
        # T6: a stack emptied during the turn: everything unrevealed is redealt when the turn ends
        empty = False
        for s in range(p):
            if sv[s, SV_ALIVE] == 1 and pn[3 * s + STK] == 0:
                empty = True
        if empty:
            n = collect(piles, pn, gs, tmp[8], 0, False)
            gs[G_REDEALS] += 1
            redeal(piles, pn, sv, gs, rs, ev, cnt, tmp, key, n, R_EMPTY, nxt)
            if debug:
                check_cards(piles, pn, gs, inuse, err)
        cur = nxt
        gs[G_CUR] = cur
        gs[G_IS_EXTRA] = extra
    emit(gs, ev, cnt, EV_END, gs[G_WINNER], gs[G_ENDED], gs[G_TURN], 0, 0, 0)


@njit
def new_game(piles, pn, sv, gs, rs, ev, cnt, tmp, key, g, deck, ndeck, stacked):
    """Reset the state for game ``g`` and deal (T3): the shuffled deck (or ``stacked`` when given)
    one card at a time clockwise from seat 1, each card on top of its stack."""
    p = gs[G_PLAYERS]
    gs[G_GAME] = g
    for i in range(G_MAX_TURNS):
        if i != G_PLAYERS and i != G_GAME:
            gs[i] = 0
    gs[G_DIR] = 1
    gs[G_OVERRIDE] = -1
    gs[G_EXTRA] = -1
    gs[G_WINNER] = -1
    gs[G_ENDED] = -1
    gs[G_CHAIN_SEAT] = -1
    gs[G_HOLD] = -1
    gs[G_HOLD + 1] = -1
    gs[G_HOLD + 2] = -1
    gs[G_NALIVE] = p
    gs[G_CUR] = 1 % p
    gs[G_REF] = 0
    pn[:] = 0
    for s in range(MAXP):
        sv[s, SV_ALIVE] = 1 if s < p else 0
        sv[s, SV_KNOWN] = 0
        sv[s, SV_OUT] = 0
        sv[s, SV_NREV] = 0
    seed_stream(rs[1], key, g, EFFECT, 0)
    for s in range(p):
        seed_stream(rs[2 + s], key, g, POLICY, s)
    pool = tmp[8]
    if stacked.shape[0] > 0:
        for i in range(ndeck):
            pool[i] = stacked[i]
        gs[G_NSHUF] = 1
    else:
        for i in range(ndeck):
            pool[i] = deck[i]
        shuffle_stream(rs, gs, key)
        shuffle(rs[0], pool, ndeck)
    emit(gs, ev, cnt, EV_START, 0, p, ndeck, 0, 0, 0)
    deal_out(piles, pn, sv, gs, ev, cnt, pool, ndeck, 1 % p, R_INITIAL)


@njit
def simulate(key, start, count, players, knobs, pf, deck, stacked, pids, params, out_g, out_s, rv, ev, cnt,
             err):
    """Play games ``start .. start+count-1``.

    ``knobs`` int64[NGS - G_MAX_TURNS] are copied to ``gs[G_MAX_TURNS:]``; ``deck`` int64[n] the
    cards in play; ``stacked`` int64[n] (or empty) a fixed deck order for every game. Writes
    ``out_g`` int64[count, NOG], ``out_s`` int64[count, 16] (elimination order per seat, then
    cards revealed per seat), rows of ``rv`` int64[cap, NRV] (``cnt[1]`` counts them, past the
    capacity too) and, when tracing, rows of ``ev`` int64[cap, 8] (``cnt[0]``).
    """
    piles = np.zeros((3 * MAXP, CAP), np.int64)
    pn = np.zeros(3 * MAXP, np.int64)
    sv = np.zeros((MAXP, NSV), np.int64)
    gs = np.zeros(NGS, np.int64)
    rs = np.zeros((2 + MAXP, 1), np.uint64)
    obs = np.zeros(160, np.int64)
    legal = np.zeros(LEGAL_LEN, np.int64)
    tmp = np.zeros((10, CAP), np.int64)
    inuse = np.zeros(N_CARDS, np.int64)
    ndeck = deck.shape[0]
    for i in range(ndeck):
        inuse[deck[i]] = 1
    gs[G_PLAYERS] = players
    for i in range(knobs.shape[0]):
        gs[G_MAX_TURNS + i] = knobs[i]
    for i in range(count):
        g = start + i
        new_game(piles, pn, sv, gs, rs, ev, cnt, tmp, key, g, deck, ndeck, stacked)
        if gs[G_DEBUG] == 1:
            check_cards(piles, pn, gs, inuse, err)
        game_loop(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, inuse)
        out_g[i, OG_WINNER] = gs[G_WINNER]
        out_g[i, OG_TURNS] = gs[G_TURN]
        out_g[i, OG_ELIM] = gs[G_ELIM]
        out_g[i, OG_RESTARTS] = gs[G_RESTARTS]
        out_g[i, OG_REDEALS] = gs[G_REDEALS]
        out_g[i, OG_SHUFFLES] = gs[G_SHUFFLES]
        out_g[i, OG_ENDED] = gs[G_ENDED]
        for s in range(players):
            out_s[i, s] = sv[s, SV_OUT] if sv[s, SV_OUT] > 0 else -1
            out_s[i, 8 + s] = sv[s, SV_NREV]
    return count


@njit
def play_state(key, knobs, pf, inuse, pids, params, piles, pn, sv, gs, ev, rv, cnt, err):
    """Play on from a constructed state (tests): ``gs[G_PLAYERS]``, ``gs[G_GAME]`` and the play
    state must be set; ``gs[G_MAX_TURNS]`` turns in all. Streams are seeded as in a game."""
    rs = np.zeros((2 + MAXP, 1), np.uint64)
    obs = np.zeros(160, np.int64)
    legal = np.zeros(LEGAL_LEN, np.int64)
    tmp = np.zeros((10, CAP), np.int64)
    for i in range(knobs.shape[0]):
        gs[G_MAX_TURNS + i] = knobs[i]
    g = gs[G_GAME]
    seed_stream(rs[1], key, g, EFFECT, 0)
    for s in range(gs[G_PLAYERS]):
        seed_stream(rs[2 + s], key, g, POLICY, s)
    if gs[G_DEBUG] == 1:
        check_cards(piles, pn, gs, inuse, err)
    game_loop(piles, pn, sv, gs, pf, rs, pids, params, obs, legal, tmp, ev, rv, cnt, err, key, inuse)


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

