"""The FUBNUB kernel: whole games, start to end (RULES.md F1-F11).

This is the game's kernel module: every function here that calls a
``decide_*`` dispatcher is rebuilt for plug-in policies
(:func:`cardsim.policies.kernel_namespace`).

Seats 0-3 sit clockwise; seats 0 and 2 are team 0, seats 1 and 3 team 1.
"Left" of seat ``s`` is ``s + 1``.
"""

from __future__ import annotations

import numpy as np

from cardsim.games.fubnub.cards import position_table
from cardsim.games.fubnub.policies import decide_call, decide_card, decide_swap
from cardsim.jit import njit
from cardsim.rng import DEAL, POLICY, SETUP, seed_stream, shuffle

POINTS = 5  # stream purpose: the point deck
POS = position_table()  # int64[kinds, 24]: card positions under each point card kind (F3)

# hand table columns (int16 matrix ``hout``)
H_HAND, H_DEALER, H_POINT, H_CALLER, H_T0, H_T1, H_T2, H_T3, H_WINNER = 0, 1, 2, 3, 4, 5, 6, 7, 8
H_MISDEAL, H_SWEPT, H_FUBBED, H_ROUND, H_SWAPS, H_DOUBLE, H_SCORE0, H_SCORE1 = 9, 10, 11, 12, 13, 14, 15, 16
NH = 17
# game table columns (int32 matrix ``gout``)
G_WINNER, G_HANDS, G_P0, G_P1, G_FIRST, G_MISDEALS, G_UNFINISHED = 0, 1, 2, 3, 4, 5, 6
NG = 7
# fub rule knob values (F10)
FUB_CALLER_LEFT, FUB_CALLER_RIGHT = 0, 1
# event kinds
EV_DRAW, EV_DEALER, EV_DEAL, EV_UNDEALT, EV_REVEAL, EV_CALL, EV_BACK, EV_MISDEAL = 1, 2, 3, 4, 5, 6, 7, 8
EV_SWAP, EV_PLAY, EV_TRICK, EV_HAND, EV_GAME = 9, 10, 11, 12, 13
# decisions (error reports)
D_CALL, D_SWAP, D_CARD = 0, 1, 2
# kernel status
OK, FULL, ILLEGAL = 0, -1, -2


@njit(_nrt=False)
def emit(ev, evn, g, kind, seat, a, b, c, d, e):
    """Append one event row; count past the capacity so the wrapper can grow the buffer."""
    i = evn[0]
    if i < ev.shape[0]:
        ev[i, 0] = g
        ev[i, 1] = kind
        ev[i, 2] = seat
        ev[i, 3] = a
        ev[i, 4] = b
        ev[i, 5] = c
        ev[i, 6] = d
        ev[i, 7] = e
    evn[0] = i + 1


@njit(_nrt=False)
def check_cards(hands, nh, undealt, played, npl, seen):
    """Debug: every number card is in exactly one place (a hand, the undealt stack, played)."""
    seen[:] = 0
    for s in range(4):
        for i in range(nh[s]):
            seen[hands[s, i]] += 1
    for i in range(4):
        seen[undealt[i]] += 1
    for i in range(npl):
        seen[played[i]] += 1
    for c in range(24):
        if seen[c] != 1:
            raise AssertionError("card conservation broken")


@njit(_nrt=False)
def fail(err, g, seat, decision, value):
    err[0] = g
    err[1] = seat
    err[2] = decision
    err[3] = value
    return ILLEGAL


@njit(_nrt=False)
def first_dealer(key, g, stack, deck, ev, evn, trace, srng):
    """F4: each seat draws one number card (seat 0 first); the highest in natural order deals."""
    seed_stream(srng, key, g, SETUP, 0)
    if stack.shape[0] > 0:
        for c in range(24):
            deck[c] = stack[0, c]
    else:
        for c in range(24):
            deck[c] = c
        shuffle(srng, deck, 24)
    best = 0
    for s in range(4):
        if trace:
            emit(ev, evn, g, EV_DRAW, s, deck[s], 0, 0, 0, 0)
        if deck[s] > deck[best]:
            best = s
    return best


@njit(_nrt=False)
def play_game(g, key, pids, params, kinds, k, fub_rule, max_hands, stack, pstack, debug, trace,
              ev, evn, hg, hout, row, gout, gi, err, hands, nh, deck, undealt, played, pd, trick, tseat,
              tricks, swo, drng, prng, tmp, prng_pt, srng, seen):
    """Play game ``g`` to its end; write its hands from row ``row`` of ``hout`` and its
    summary to ``gout[gi]``. Returns the next free row, or FULL / ILLEGAL."""
    need = (k + 1) // 2  # F11
    for s in range(4):
        seed_stream(prng[s], key, g, POLICY, s)
    # the game's point deck (F2, F11): k cards of the deck, shuffled
    seed_stream(prng_pt, key, g, POINTS, 0)
    nkinds = kinds.shape[0]
    if pstack.shape[0] > 0:
        for i in range(nkinds):
            tmp[i] = pstack[i]
    else:
        for i in range(nkinds):
            tmp[i] = kinds[i]
        shuffle(prng_pt, tmp, nkinds)
    pn = k
    for i in range(k):  # top of the deck is pd[pn - 1]
        pd[i] = tmp[k - 1 - i]
    dealer = first_dealer(key, g, stack, deck, ev, evn, trace, srng)
    gout[gi, G_FIRST] = dealer
    double = False
    pts0 = 0
    pts1 = 0
    h = 0
    misdeals = 0
    while pts0 < need and pts1 < need:
        if h >= max_hands:
            break
        if row >= hout.shape[0]:
            return FULL
        if trace:
            emit(ev, evn, g, EV_DEALER, dealer, h, 2 if double else 1, 0, 0, 0)
        # F5: shuffle and deal five cards each, one at a time from the dealer's left
        if stack.shape[0] > h + 1:
            for c in range(24):
                deck[c] = stack[h + 1, c]
        else:
            seed_stream(drng, key, g, DEAL, h)
            for c in range(24):
                deck[c] = c
            shuffle(drng, deck, 24)
        for i in range(20):
            hands[(dealer + 1 + i) & 3, i >> 2] = deck[i]
        for i in range(4):
            undealt[i] = deck[20 + i]
            nh[i] = 5
        npl = 0
        if trace:
            for s in range(4):
                emit(ev, evn, g, EV_DEAL, s, hands[s, 0], hands[s, 1], hands[s, 2], hands[s, 3], hands[s, 4])
            emit(ev, evn, g, EV_UNDEALT, -1, undealt[0], undealt[1], undealt[2], undealt[3], 0)
        if debug:
            check_cards(hands, nh, undealt, played, npl, seen)
        hout[row, H_HAND] = h
        hout[row, H_DEALER] = dealer
        hout[row, H_DOUBLE] = 1 if double else 0
        # F6: the decision cycle, two rounds at most
        caller = -1
        rnd = 0
        p = -1
        for r in range(1, 3):
            pn -= 1
            p = pd[pn]
            if trace:
                emit(ev, evn, g, EV_REVEAL, -1, p, r, 0, 0, 0)
            pos = POS[p]
            for i in range(1, 5):
                s = (dealer + i) % 4
                v = decide_call(pids[s], hands[s], pos, p, s, dealer, r, params[s], prng[s])
                if v != 0 and v != 1:
                    return fail(err, g, s, D_CALL, v)
                if trace:
                    emit(ev, evn, g, EV_CALL, s, v, r, p, 0, 0)
                if v == 1:
                    caller = s
                    break
            if caller >= 0:
                rnd = r
                break
            # all passed: the card goes back and the deck is shuffled
            pd[pn] = p
            pn += 1
            shuffle(prng_pt, pd, pn)
            if trace:
                emit(ev, evn, g, EV_BACK, -1, p, r, 0, 0, 0)
        hout[row, H_POINT] = p
        hout[row, H_CALLER] = caller
        hout[row, H_ROUND] = rnd
        if caller < 0:
            # F6: misdeal; F10: the deal moves left and a double advantage is lost
            misdeals += 1
            hout[row, H_WINNER] = -1
            hout[row, H_MISDEAL] = 1
            for j in (H_T0, H_T1, H_T2, H_T3, H_SWEPT, H_FUBBED, H_SWAPS):
                hout[row, j] = 0
            hout[row, H_SCORE0] = pts0
            hout[row, H_SCORE1] = pts1
            if trace:
                emit(ev, evn, g, EV_MISDEAL, dealer, p, 0, 0, 0, 0)
            row += 1
            h += 1
            dealer = (dealer + 1) % 4
            double = False
            continue
        pos = POS[p]
        # F7 / F10: the dealer advantage, one swap or two, each with the next undealt card
        nsw = 2 if double else 1
        swo[0] = -1
        swo[1] = -1
        decide_swap(pids[dealer], hands[dealer], pos, p, nsw, params[dealer], prng[dealer], swo)
        u = 0
        for i in range(2):
            idx = swo[i]
            if idx < -1 or idx >= 5 or (i >= nsw and idx != -1):
                return fail(err, g, dealer, D_SWAP, idx)
            if idx >= 0:
                old = hands[dealer, idx]
                hands[dealer, idx] = undealt[u]
                undealt[u] = old
                if trace:
                    emit(ev, evn, g, EV_SWAP, dealer, old, hands[dealer, idx], i, 0, 0)
                u += 1
        hout[row, H_SWAPS] = u
        if debug:
            check_cards(hands, nh, undealt, played, npl, seen)
        # F8: five tricks, the dealer's left leads the first, the winner the next
        leader = (dealer + 1) % 4
        for s in range(4):
            tricks[s] = 0
        for t in range(5):
            bestpos = 99
            best = -1
            wi = -1
            for i in range(4):
                s = (leader + i) & 3  # seats are non-negative: & 3 is % 4
                n = nh[s]
                idx = decide_card(pids[s], hands[s], n, pos, p, trick, tseat, i, wi, s, (s + 2) & 3, caller,
                                  tricks, params[s], prng[s])
                if idx < 0 or idx >= n:
                    return fail(err, g, s, D_CARD, idx)
                c = hands[s, idx]
                hands[s, idx] = hands[s, n - 1]
                hands[s, n - 1] = c
                nh[s] = n - 1
                trick[i] = c
                tseat[i] = s
                if debug:
                    played[npl] = c
                    npl += 1
                if pos[c] < bestpos:
                    bestpos = pos[c]
                    best = s
                    wi = i
                if trace:
                    emit(ev, evn, g, EV_PLAY, s, c, t + 1, 0, 0, 0)
                if debug:
                    check_cards(hands, nh, undealt, played, npl, seen)
            tricks[best] += 1
            leader = best
            if trace:
                emit(ev, evn, g, EV_TRICK, best, t + 1, trick_card(trick, tseat, best), 0, 0, 0)
        # F9: the team with more tricks wins the point card
        t0 = tricks[0] + tricks[2]
        win = 0 if t0 >= 3 else 1
        if win == 0:
            pts0 += 1
        else:
            pts1 += 1
        ct = caller % 2
        swept = (t0 == 5 and ct == 0) or (t0 == 0 and ct == 1)
        fubbed = win != ct
        for s in range(4):
            hout[row, H_T0 + s] = tricks[s]
        hout[row, H_WINNER] = win
        hout[row, H_MISDEAL] = 0
        hout[row, H_SWEPT] = 1 if swept else 0
        hout[row, H_FUBBED] = 1 if fubbed else 0
        hout[row, H_SCORE0] = pts0
        hout[row, H_SCORE1] = pts1
        # F10: who deals next
        if swept:
            dealer = caller
            double = True
        elif fubbed:
            dealer = (caller + 1) % 4 if fub_rule == FUB_CALLER_LEFT else (caller + 3) % 4
            double = True
        else:
            dealer = (dealer + 1) % 4
            double = False
        if trace:
            emit(ev, evn, g, EV_HAND, caller, win, t0, 5 - t0, 1 if swept else 0, 1 if fubbed else 0)
        row += 1
        h += 1
    finished = pts0 >= need or pts1 >= need
    gout[gi, G_WINNER] = (0 if pts0 >= need else 1) if finished else -1
    gout[gi, G_HANDS] = h
    gout[gi, G_P0] = pts0
    gout[gi, G_P1] = pts1
    gout[gi, G_MISDEALS] = misdeals
    gout[gi, G_UNFINISHED] = 0 if finished else 1
    if trace:
        emit(ev, evn, g, EV_GAME, -1, gout[gi, G_WINNER], pts0, pts1, h, 0)
    return row


@njit(_nrt=False)
def trick_card(trick, tseat, seat):
    for i in range(4):
        if tseat[i] == seat:
            return trick[i]
    return -1


@njit
def simulate(key, start, count, pids, params, kinds, k, fub_rule, max_hands, stack, pstack, debug, trace,
             ev, evn, hg, hout, gout, err):
    """Play games ``start .. start+count-1``.

    Writes one row per hand into ``hout`` (int16[cap, NH]) with its game index in
    ``hg`` (int64[cap]) and one row per game into ``gout`` (int32[count, NG]).
    Returns the number of hand rows, FULL when ``hout`` is too small, or ILLEGAL
    (``err`` = game, seat, decision, value) when a policy chose an illegal action.
    """
    hands = np.empty((4, 5), np.int64)
    nh = np.empty(4, np.int64)
    deck = np.empty(24, np.int64)
    undealt = np.empty(4, np.int64)
    played = np.empty(20, np.int64)
    pd = np.empty(kinds.shape[0] + 1, np.int64)
    trick = np.zeros(4, np.int64)
    tseat = np.zeros(4, np.int64)
    tricks = np.zeros(4, np.int64)
    swo = np.empty(2, np.int64)
    drng = np.empty(1, np.uint64)
    prng = np.empty((4, 1), np.uint64)
    tmp = np.empty(kinds.shape[0], np.int64)
    prng_pt = np.empty(1, np.uint64)
    srng = np.empty(1, np.uint64)
    seen = np.zeros(24, np.int64)
    row = 0
    for i in range(count):
        g = start + i
        r0 = row
        row = play_game(g, key, pids, params, kinds, k, fub_rule, max_hands, stack, pstack, debug, trace,
                        ev, evn, hg, hout, row, gout, i, err, hands, nh, deck, undealt, played, pd, trick,
                        tseat, tricks, swo, drng, prng, tmp, prng_pt, srng, seen)
        if row < 0:
            return row
        for j in range(r0, row):
            hg[j] = g
    return row


@njit
def top_card(hand, n, pos):
    """Index of the highest card of ``hand[:n]`` (the minimal kernel's own copy, left to
    LLVM to inline, which is this kernel's fastest form)."""
    best = 0
    bp = pos[hand[0]]
    for i in range(1, n):
        p = pos[hand[i]]
        if p < bp:
            bp = p
            best = i
    return best


@njit
def minimal(key, start, count):
    """Bench baseline: shuffle, deal and play five tricks by highest card (natural order),
    with no decision cycle and no policy calls. Returns team 0's hand wins (so the
    work cannot be optimised away); the hands played are ``count``."""
    deck = np.empty(24, np.int64)
    hands = np.empty((4, 5), np.int64)
    drng = np.empty(1, np.uint64)
    pos = POS[12]
    total = 0
    for i in range(count):
        g = start + i
        seed_stream(drng, key, g, DEAL, 0)
        for c in range(24):
            deck[c] = c
        shuffle(drng, deck, 24)
        for j in range(20):
            hands[j & 3, j >> 2] = deck[j]
        leader = 1
        t0 = 0
        for t in range(5):
            best = -1
            bestpos = 99
            for j in range(4):
                s = (leader + j) & 3
                idx = top_card(hands[s], 5 - t, pos)
                c = hands[s, idx]
                hands[s, idx] = hands[s, 4 - t]
                if pos[c] < bestpos:
                    bestpos = pos[c]
                    best = s
            leader = best
            if best % 2 == 0:
                t0 += 1
        total += 1 if t0 >= 3 else 0
    return total

