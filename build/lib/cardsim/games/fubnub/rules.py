"""The FUBNUB kernel: whole games, start to end (F1-F15).

This is the game's kernel module: every function here that calls a
``decide_*`` dispatcher is rebuilt for plug-in policies
(:func:`cardsim.policies.kernel_namespace`).

Seats sit clockwise; "left" of seat ``s`` is ``s + 1``. Team variants: four
seats, seats 0 and 2 are team 0, seats 1 and 3 team 1; :func:`play_team` plays
the traditional game and Lucky Ghost, where the seats past the players are
ghosts (F12). Individual variants (Battle Royal, Solo, Full
Deck) use :func:`play_royal`: ``nseat`` seats each for themselves (F13-F15).
"""

from __future__ import annotations

import numpy as np

from cardsim.events import emit, emit_list
from cardsim.games.fubnub import cards as C
from cardsim.games.fubnub.cards import effect_table, order_table, position_table
from cardsim.games.fubnub.policies import (
    POLICIES,
    card_reads_trick,
    decide_call,
    decide_card,
    decide_keep,
    decide_peek,
    decide_pick,
    decide_steal,
    decide_swap,
)
from cardsim.jit import DISABLED, njit
from cardsim.rng import DEAL, EFFECT, POLICY, SETUP, randint, seed_stream, shuffle

if DISABLED:  # interpreted kernels (bench): LLVM's count-trailing-zeros is not there
    def trailing_zeros(x):
        x = int(x)
        return (x & -x).bit_length() - 1
else:
    from numba.cpython.unsafe.numbers import trailing_zeros

POINTS = 5  # stream purpose: the point deck
REDEAL = 6  # stream purpose: a complete redeal inside a hand (Full Deck Shuffle / Restart Game), sub = hand
ACTIONS = 7  # stream purpose: the Full Deck action stack, sub = restarts
PLUGIN_BASE = 1000  # cardsim.policies.PLUGIN_BASE: dispatch ids of plug-in policies start here
ANY = -1  # the table mixes policies (or plays a plug-in): each decision dispatches on its seat's id
FX = effect_table()  # int64[31]: the Full Deck effect of each action code (F15)
NKINDS = len(C.POINT_KINDS)
N_ACTION = C.N_ACTION
POS = position_table()  # int64[kinds, 24]: card positions under each point card kind (F3)
ORDER = order_table()  # int64[kinds, 24]: the card at each position (the inverse of POS)

# hand table columns: rows of the int8 matrix ``hout`` (one column per hand, so each table column is
# one contiguous row that becomes a polars column without a conversion); the hand number goes to
# the int16 array ``hh``
H_DEALER, H_POINT, H_CALLER, H_T0, H_T1, H_T2, H_T3, H_WINNER = 0, 1, 2, 3, 4, 5, 6, 7
H_MISDEAL, H_SWEPT, H_FUBBED, H_ROUND, H_SWAPS, H_DOUBLE, H_SCORE0, H_SCORE1 = 8, 9, 10, 11, 12, 13, 14, 15
H_LIMBO, H_TIE, H_ACTION, H_REVEALER, H_TARGET, H_PS0 = 16, 17, 18, 19, 20, 21  # H_PS0..H_PS0+3: points per seat
NH = 25
# game table columns (int32 matrix ``gout``)
G_WINNER, G_HANDS, G_P0, G_P1, G_FIRST, G_MISDEALS, G_UNFINISHED = 0, 1, 2, 3, 4, 5, 6
G_PS0, G_TIE, G_LIMBO, G_DISC, G_TURTLE, G_RESTARTS, G_ACTIONS = 7, 11, 12, 13, 14, 15, 16
NG = 17
# variants
V_TRADITIONAL, V_LUCKY_GHOST, V_BATTLE_ROYAL, V_SOLO, V_FULL_DECK = 0, 1, 2, 3, 4
# Battle Royal tie for most tricks (F13)
TIE_LIMBO, TIE_DISCARD, TIE_LAST_TRICK = 0, 1, 2
# fub rule knob values (F10)
FUB_CALLER_LEFT, FUB_CALLER_RIGHT = 0, 1
# event kinds
EV_DRAW, EV_DEALER, EV_DEAL, EV_UNDEALT, EV_REVEAL, EV_CALL, EV_BACK, EV_MISDEAL = 1, 2, 3, 4, 5, 6, 7, 8
EV_SWAP, EV_PLAY, EV_TRICK, EV_HAND, EV_GAME = 9, 10, 11, 12, 13
EV_UNDEALTN, EV_ACTION, EV_LIMBO, EV_DISCARD, EV_CLAIM, EV_STEAL, EV_PICK, EV_ELIM = 14, 15, 16, 17, 18, 19, 20, 21
EV_KEEP, EV_REDEAL, EV_PASS, EV_REVERSE, EV_RESTART, EV_GHOST, EV_PEEK, EV_RAPID = 22, 23, 24, 25, 26, 27, 28, 29
EV_ADV, EV_RHAND, EV_SCORE, EV_RGAME, EV_POINTS = 30, 31, 32, 33, 34
# claim reasons (EV_CLAIM) and limbo reasons (EV_LIMBO)
CL_HAND, CL_CLEAN_UP, CL_TURTLE = 0, 1, 2
LB_TIE, LB_SKIP = 0, 1
# decisions (error reports)
D_CALL, D_SWAP, D_CARD, D_STEAL, D_PICK, D_KEEP, D_PEEK = 0, 1, 2, 3, 4, 5, 6
# game-state slots of ``st`` (individual variants)
S_PN, S_NLIMBO, S_NDISC, S_NAST, S_NREV, S_DIR, S_RESTARTS, S_OVER = 0, 1, 2, 3, 4, 5, 6, 7
# hand-state slots of ``hx`` (Full Deck effects on one hand)
X_GHOST, X_PEEK, X_RAPID, X_TARGET, X_POINT, X_ADV_SEAT, X_ADV_N, X_SWAPS, X_ACTION = 0, 1, 2, 3, 4, 5, 6, 7, 8
# kernel status
OK, FULL, ILLEGAL = 0, -1, -2




@njit(_nrt=False)
def check_numbers(hands, nh, nseat, undealt, nund, played, npl, seen):
    """Debug: every number card in exactly one place (a hand, the undealt cards, played)."""
    seen[:] = 0
    for s in range(nseat):
        for i in range(nh[s]):
            seen[hands[s, i]] += 1
    for i in range(nund):
        seen[undealt[i]] += 1
    for i in range(npl):
        seen[played[i]] += 1
    for c in range(24):
        if seen[c] != 1:
            raise AssertionError("number card conservation broken")


@njit(_nrt=False, inline="always")
def sort_hand(hand, pos, order):
    """Order the five cards ``hand`` highest first under ``pos`` (``order`` is its inverse): the
    form every decision gets (policies.py). A bit per position, read back lowest bit first;
    unrolled for the five cards every hand starts with (a loop over ``n`` cards compiled to a
    vector gather that cost about 4% of a Full Deck hand)."""
    one = np.int64(1)
    m = ((one << pos[hand[0]]) | (one << pos[hand[1]]) | (one << pos[hand[2]]) | (one << pos[hand[3]])
         | (one << pos[hand[4]]))
    hand[0] = order[trailing_zeros(m)]
    m &= m - 1
    hand[1] = order[trailing_zeros(m)]
    m &= m - 1
    hand[2] = order[trailing_zeros(m)]
    m &= m - 1
    hand[3] = order[trailing_zeros(m)]
    m &= m - 1
    hand[4] = order[trailing_zeros(m)]


@njit(_nrt=False)
def check_sorted(hand, n, pos):
    """Debug: ``hand[:n]`` is ordered highest first, as every decision expects."""
    for i in range(1, n):
        if pos[hand[i - 1]] >= pos[hand[i]]:
            raise AssertionError("a hand reached a decision out of order")


@njit(_nrt=False, inline="always")
def pid_of(pids, s, one):
    """Seat ``s``'s dispatch id. ``one`` is the id every seat plays, a literal the kernel is
    compiled for (see :func:`lean_team`), or ANY."""
    return pids[s] if one == ANY else one


@njit(_nrt=False, inline="always")
def take(hand, idx):
    """Remove and return ``hand[idx]`` from a hand (a row of five cards), keeping the others in
    order. A fixed five-way shift: which card a decision plays is noise to a branch predictor,
    and a shift loop whose length follows ``idx`` cost a tenth of a hand. The entries past the
    cards left are stale."""
    c = hand[np.uint64(idx)]  # idx >= 0 (checked by the caller): unsigned skips the wrap-around
    a0, a1, a2, a3, a4 = hand[0], hand[1], hand[2], hand[3], hand[4]
    hand[0] = a1 if idx <= 0 else a0
    hand[1] = a2 if idx <= 1 else a1
    hand[2] = a3 if idx <= 2 else a2
    hand[3] = a4 if idx <= 3 else a3
    return c


@njit(_nrt=False)
def fail(err, g, seat, decision, value):
    err[0] = g
    err[1] = seat
    err[2] = decision
    err[3] = value
    return ILLEGAL


@njit(_nrt=False)
def first_dealer(key, g, stack, deck, ev, evn, trace, srng, ghost, nseat):
    """F4: each seat draws one number card (seat 0 first); the highest in natural order deals.
    F12: ghosts do not draw (seat ``s`` draws the deck's card ``s`` all the same)."""
    seed_stream(srng, key, g, SETUP, 0)
    if stack.shape[0] > 0:
        for c in range(24):
            deck[c] = stack[0, c]
    else:
        for c in range(24):
            deck[c] = c
        shuffle(srng, deck, 24)
    best = 0
    for s in range(nseat):
        if ghost[s]:
            continue
        if trace:
            emit(ev, evn, g, EV_DRAW, s, deck[s], 0, 0, 0, 0)
        if deck[s] > deck[best]:
            best = s
    return best


@njit(_nrt=False, inline="always")
def shuffle_deck(key, g, h, stack, deck, drng):
    """F5: the 24 number cards of hand ``h`` of game ``g``, shuffled (``stack[h + 1]``, when
    given, fixes them: tests)."""
    if stack.shape[0] > h + 1:
        for c in range(24):
            deck[c] = stack[h + 1, c]
    else:
        seed_stream(drng, key, g, DEAL, h)
        for c in range(24):
            deck[c] = c
        shuffle(drng, deck, 24)


@njit(_nrt=False, inline="always")
def point_deck(key, g, kinds, k, pstack, tmp, pd, prng_pt):
    """F2, F11: game ``g``'s point deck, ``k`` cards of the deck ``kinds`` shuffled (``pstack``,
    when given, fixes the order: tests), into ``pd[:k]`` with its top at ``pd[k - 1]``."""
    seed_stream(prng_pt, key, g, POINTS, 0)
    nkinds = kinds.shape[0]
    if pstack.shape[0] > 0:
        for i in range(nkinds):
            tmp[i] = pstack[i]
    else:
        for i in range(nkinds):
            tmp[i] = kinds[i]
        shuffle(prng_pt, tmp, nkinds)
    for i in range(k):
        pd[i] = tmp[k - 1 - i]


@njit(_nrt=False, inline="always")
def apply_swaps(g, seat, nsw, hands, undealt, nund, swo, err, ev, evn, trace):
    """F7 / F10 mechanics: the swap decision ``swo`` of ``seat`` (up to ``nsw`` hand indices, -1 =
    none) applied, each swapped card trading with the next undealt card. Returns the swaps
    made, or ILLEGAL."""
    u = 0
    for i in range(2):
        idx = swo[i]
        if idx < -1 or idx >= 5 or (i >= nsw and idx != -1) or (idx >= 0 and u >= nund):
            return fail(err, g, seat, D_SWAP, idx)
        if idx >= 0:
            old = hands[seat, idx]
            hands[seat, idx] = undealt[u]
            undealt[u] = old
            if trace:
                emit(ev, evn, g, EV_SWAP, seat, old, hands[seat, idx], i, 0, 0)
            u += 1
    return u


@njit(_nrt=False, inline="always")
def is_ghost(ghost, s, lucky):
    """F12: seat ``s`` is a ghost (never in a traditional game: ``lucky`` False)."""
    return lucky and ghost[s] != 0


@njit(_nrt=False, inline="always")
def next_human(s, ghost, lucky):
    """F10, F12: the deal moves left, skipping ghosts (four seats)."""
    s = (s + 1) & 3
    while is_ghost(ghost, s, lucky):
        s = (s + 1) & 3
    return s


@njit(_nrt=False)
def play_team(start, count, key, pids, params, kinds, k, fub_rule, max_hands, stack, pstack, debug, trace,
              ev, evn, hg, hh, hout, gout, err, hands, nh, deck, undealt, played, pd, trick, tseat,
              tricks, swo, drng, prng, tmp, prng_pt, srng, seen, ghost, lucky, one):
    """Play team games ``start .. start+count-1`` to their end: traditional (F1-F11) or, with
    ``lucky``, Lucky Ghost (F12, ``ghost[s]`` marks the ghost seats). Their hands are columns of
    ``hout`` from column 0 (game index in ``hg``); game ``start + gi`` is ``gout[gi]``. Returns the
    rows written, or FULL / ILLEGAL. ``lucky`` is a literal (:func:`team_games`): the
    traditional kernel is compiled without the ghost tests, which cost it about 8%."""
    row = np.int64(0)
    for gi in range(count):  # one call a chunk: passing the arguments per game cost ~10%
        g = start + gi
        r0 = row
        need = (k + 1) // 2  # F11
        for s in range(4):
            seed_stream(prng[s], key, g, POLICY, s)
        point_deck(key, g, kinds, k, pstack, tmp, pd, prng_pt)
        pn = k
        dealer = first_dealer(key, g, stack, deck, ev, evn, trace, srng, ghost, 4)
        gout[gi, G_FIRST] = dealer
        double = False
        pts0 = 0
        pts1 = 0
        h = 0
        misdeals = 0
        while pts0 < need and pts1 < need:
            if h >= max_hands:
                break
            if row >= hout.shape[1]:
                return FULL
            if trace:
                emit(ev, evn, g, EV_DEALER, dealer, h, 2 if double else 1, 0, 0, 0)
            # F5: shuffle and deal five cards each, one at a time from the dealer's left
            shuffle_deck(key, g, h, stack, deck, drng)
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
                check_numbers(hands, nh, 4, undealt, 4, played, npl, seen)
            hh[row] = h
            hout[H_DEALER, row] = dealer
            hout[H_DOUBLE, row] = 1 if double else 0
            # (the individual-play columns H_LIMBO .. are left unwritten: game.hands_frame gives them as constants)
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
                order = ORDER[p]
                for s in range(4):
                    if not is_ghost(ghost, s, lucky):  # F12: a ghost's stack keeps its dealt order
                        sort_hand(hands[s], pos, order)
                for i in range(1, 5):
                    s = (dealer + i) % 4
                    if is_ghost(ghost, s, lucky):
                        v = 0  # F12: ghosts always pass
                    else:
                        v = decide_call(pid_of(pids, s, one), hands[s], pos, p, s, dealer, r, params[s], prng[s])
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
            hout[H_POINT, row] = p
            hout[H_CALLER, row] = caller
            hout[H_ROUND, row] = rnd
            if caller < 0:
                # F6: misdeal; F10: the deal moves left and a double advantage is lost
                misdeals += 1
                hout[H_WINNER, row] = -1
                hout[H_MISDEAL, row] = 1
                for j in (H_T0, H_T1, H_T2, H_T3, H_SWEPT, H_FUBBED, H_SWAPS):
                    hout[j, row] = 0
                hout[H_SCORE0, row] = pts0
                hout[H_SCORE1, row] = pts1
                if trace:
                    emit(ev, evn, g, EV_MISDEAL, dealer, p, h, 0, 0, 0)
                row += 1
                h += 1
                dealer = next_human(dealer, ghost, lucky)
                double = False
                continue
            pos = POS[p]
            # F7 / F10: the dealer advantage, one swap or two, each with the next undealt card
            nsw = 2 if double else 1
            swo[0] = -1
            swo[1] = -1
            decide_swap(pid_of(pids, dealer, one), hands[dealer], pos, p, nsw, params[dealer], prng[dealer], swo)
            u = apply_swaps(g, dealer, nsw, hands, undealt, 4, swo, err, ev, evn, trace)
            if u < 0:
                return u
            hout[H_SWAPS, row] = u
            if u > 0:
                sort_hand(hands[dealer], pos, ORDER[p])
            if debug:
                check_numbers(hands, nh, 4, undealt, 4, played, npl, seen)
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
                    if is_ghost(ghost, s, lucky):
                        idx = n - 1  # F12: the top card of the ghost's stack (the last card dealt to it)
                    else:
                        if debug:
                            check_sorted(hands[s], n, pos)
                        idx = decide_card(pid_of(pids, s, one), hands[s], n, pos, p, trick, tseat, i, wi, s, (s + 2) & 3, caller,
                                          tricks, params[s], prng[s], bestpos)
                        if idx < 0 or idx >= n:
                            return fail(err, g, s, D_CARD, idx)
                    c = take(hands[s], idx)
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
                        check_numbers(hands, nh, 4, undealt, 4, played, npl, seen)
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
                hout[H_T0 + s, row] = tricks[s]
            hout[H_WINNER, row] = win
            hout[H_MISDEAL, row] = 0
            hout[H_SWEPT, row] = 1 if swept else 0
            hout[H_FUBBED, row] = 1 if fubbed else 0
            hout[H_SCORE0, row] = pts0
            hout[H_SCORE1, row] = pts1
            # F10: who deals next
            if swept:
                dealer = caller
                double = True
            elif fubbed:
                nd = (caller + 1) % 4 if fub_rule == FUB_CALLER_LEFT else (caller + 3) % 4
                if is_ghost(ghost, nd, lucky):
                    nd = (nd + 2) & 3  # F12: the winning team's human deals
                if is_ghost(ghost, nd, lucky):
                    # F12 reading: a winning team of ghosts cannot deal; the deal moves left, single advantage
                    dealer = next_human(dealer, ghost, lucky)
                    double = False
                else:
                    dealer = nd
                    double = True
            else:
                dealer = next_human(dealer, ghost, lucky)
                double = False
            if trace:
                emit(ev, evn, g, EV_HAND, caller, win, t0, p, rnd, (1 if swept else 0) | (2 if fubbed else 0))
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
        for j in range(r0, row):
            hg[j] = g
    return row


@njit(_nrt=False)
def trick_card(trick, tseat, seat):
    for i in range(4):
        if tseat[i] == seat:
            return trick[i]
    return -1


# -- individual play: Battle Royal, Solo, Full Deck (F13-F15) ----------------------------------
@njit(_nrt=False, inline="always")
def step(s, dr, nseat):
    """The next seat in the play direction ``dr`` (+1 clockwise, -1 counter-clockwise)."""
    s += dr
    if s >= nseat:
        s -= nseat
    elif s < 0:
        s += nseat
    return s


@njit(_nrt=False)
def check_royal(hands, nh, nseat, undealt, nund, played, npl, seen, pd, pn, won, nwon, limbo, nlimbo, disc, ndisc,
                p, inplay, gkinds, k, seenk, ast, nast, arev, nrev, acts, seena):
    """Debug: every number card in exactly one place (hands, undealt, played); every point card of
    the game in exactly one place (point deck, earned piles, limbo, discarded, in play); every
    action card in the stack or revealed."""
    check_numbers(hands, nh, nseat, undealt, nund, played, npl, seen)
    seenk[:] = 0
    for i in range(k):
        seenk[gkinds[i]] += 1
    for i in range(pn):
        seenk[pd[i]] -= 1
    for s in range(nseat):
        for i in range(nwon[s]):
            seenk[won[s, i]] -= 1
    for i in range(nlimbo):
        seenk[limbo[i]] -= 1
    for i in range(ndisc):
        seenk[disc[i]] -= 1
    if inplay:
        seenk[p] -= 1
    for i in range(seenk.shape[0]):
        if seenk[i] != 0:
            raise AssertionError("point card conservation broken")
    seena[:] = 0
    for i in range(acts.shape[0]):
        seena[acts[i]] += 1
    for i in range(nast):
        seena[ast[i]] -= 1
    for i in range(nrev):
        seena[arev[i]] -= 1
    for i in range(seena.shape[0]):
        if seena[i] != 0:
            raise AssertionError("action card conservation broken")


@njit(_nrt=False, inline="always")
def deal_royal(deck, hands, nh, undealt, nseat, dealer, dr):
    """F5 / F13: five cards each, one at a time from the dealer's next seat in the play
    direction; the remaining 24 - 5 * nseat cards stay undealt. Returns the undealt count."""
    if nseat == 4:  # the common table: seat arithmetic with & 3 (two's complement for dr = -1)
        for i in range(20):
            hands[(dealer + dr * (1 + (i & 3))) & 3, i >> 2] = deck[i]
        i = 20
    else:
        i = 0
        for j in range(5):
            s = dealer
            for _ in range(nseat):
                s = step(s, dr, nseat)
                hands[s, j] = deck[i]
                i += 1
    nund = 24 - i
    for u in range(nund):
        undealt[u] = deck[i + u]
    for s in range(nseat):
        nh[s] = 5
    return nund


@njit(_nrt=False)
def trace_deal(ev, evn, g, hands, nseat, undealt, nund):
    """Trace: each seat's five cards in dealt order, then the undealt cards (one list event)."""
    for s in range(nseat):
        emit(ev, evn, g, EV_DEAL, s, hands[s, 0], hands[s, 1], hands[s, 2], hands[s, 3], hands[s, 4])
    emit_list(ev, evn, g, EV_UNDEALTN, -1, 0, undealt, nund, False)


@njit(_nrt=False)
def redeal(key, g, h, deck, hands, nh, undealt, nseat, dealer, dr, drng, ev, evn, trace):
    """A complete redeal of the number cards for this hand (F15: Shuffle, Restart Game)."""
    seed_stream(drng, key, g, REDEAL, h)
    for c in range(24):
        deck[c] = c
    shuffle(drng, deck, 24)
    nund = deal_royal(deck, hands, nh, undealt, nseat, dealer, dr)
    if trace:
        trace_deal(ev, evn, g, hands, nseat, undealt, nund)
    return nund


@njit(_nrt=False)
def rotate_rows(a, n, nseat, left, buf):
    """Row ``s`` of ``a`` (its first ``n[s]`` entries) moves to seat ``s + 1`` (left) or ``s - 1``."""
    if left:
        last = nseat - 1
        m = n[last]
        for i in range(m):
            buf[i] = a[last, i]
        for s in range(last, 0, -1):
            for i in range(n[s - 1]):
                a[s, i] = a[s - 1, i]
            n[s] = n[s - 1]
        for i in range(m):
            a[0, i] = buf[i]
        n[0] = m
    else:
        m = n[0]
        for i in range(m):
            buf[i] = a[0, i]
        for s in range(nseat - 1):
            for i in range(n[s + 1]):
                a[s, i] = a[s + 1, i]
            n[s] = n[s + 1]
        for i in range(m):
            a[nseat - 1, i] = buf[i]
        n[nseat - 1] = m


@njit(_nrt=False)
def choose_swaps(seat, hand, nsw, pids, params, prng, pos, p, swo, one):
    """The ``swap`` decision of ``seat`` on its five cards ``hand`` into ``swo`` (one call site,
    so the dispatcher is inlined once). ``hand`` is put in order first (policies.py)."""
    sort_hand(hand, pos, ORDER[p])
    swo[0] = -1
    swo[1] = -1
    decide_swap(pid_of(pids, seat, one), hand, pos, p, nsw, params[seat], prng[seat], swo)


@njit(_nrt=False, inline="always")
def ordered_copy(hand, buf):
    """``buf[:5]``, a copy of the five cards ``hand`` for a decision that must not reorder them
    (the copy is put in order by the caller or the decision's helper)."""
    copy = buf[:5]
    for i in range(5):
        copy[i] = hand[i]
    return copy


@njit(_nrt=False, inline="always")
def index_of(hand, c):
    """The index of card ``c`` in the five cards ``hand``."""
    for j in range(5):
        if hand[j] == c:
            return j
    return -1


@njit(_nrt=False, inline="always")  # once a hand in Full Deck
def advantage(g, seat, nsw, pids, params, prng, hands, undealt, nund, pos, p, swo, err, ev, evn, trace, blind, buf,
              one):
    """F7 / F10 mechanics: ``seat`` swaps up to ``nsw`` cards, each with the next undealt card.
    ``blind``: the seat plays its cards as a stack this hand (No Reveal), which must keep its
    order, so it decides on an ordered copy (``buf``) and the swaps go to the same cards.
    Returns the swaps made, or ILLEGAL (:func:`apply_swaps`)."""
    if blind:
        hand = ordered_copy(hands[seat], buf)
        choose_swaps(seat, hand, nsw, pids, params, prng, pos, p, swo, one)
        for i in range(2):
            if 0 <= swo[i] < 5:
                swo[i] = index_of(hands[seat], hand[swo[i]])
    else:
        choose_swaps(seat, hands[seat], nsw, pids, params, prng, pos, p, swo, one)
    return apply_swaps(g, seat, nsw, hands, undealt, nund, swo, err, ev, evn, trace)


@njit(_nrt=False)
def peek_card(g, s, pids, params, prng, hands, nh, n, pos, p, trick, tseat, i, wi, tricks, err):
    """The card of a player who revealed Peek (F15): the ``peek`` decision, which sees every hand
    (a plug-in without one plays its ``card`` decision: FubnubGame.optional_fallbacks)."""
    idx = decide_peek(pids[s], hands[s], n, pos, p, trick, tseat, i, wi, s, hands, nh, tricks, params[s], prng[s])
    if idx < 0 or idx >= n:
        return fail(err, g, s, D_PEEK, idx)
    return idx


@njit(_nrt=False, inline="always")  # once a hand: its 30 arguments cost more than its code
def royal_tricks(g, p, dealer, dr, nseat, ghost, gh, pk, rapid, pids, params, prng, hands, nh, trick, tseat,
                 tricks, lastwin, undealt, nund, played, seen, debug, trace, ev, evn, err, nxt, one, plain):
    """F8 / F13: five tricks among ``nseat`` seats in the play direction ``dr``; the dealer's next
    seat leads the first (Rapid Fire: seat ``rapid`` leads them all), the winner the next. Ghosts
    (and a No Reveal player ``gh``) play the top card of their stack; ``pk`` plays with Peek.
    Fills ``tricks`` and ``lastwin`` (last trick won per seat); returns the cards played or ILLEGAL.
    ``plain`` (a literal): no seat plays a stack or peeks, and the loop compiles without those
    tests and without keeping ``nh`` during play (1-5% of a Full Deck hand, by compilation).
    Every seat holds ``5 - t`` cards at trick ``t``. The seats that play a stack are bits of a
    scalar and Peek is tested only when ``pk`` is a seat: no per-seat table to load on a play
    (about 8% of a Battle Royal hand)."""
    pos = POS[p]
    npl = 0
    stacks = 0  # a bit per seat that plays a stack: a ghost or the No Reveal player
    for s in range(4):
        tricks[s] = 0
        lastwin[s] = -1
        tseat[s] = -1
        nxt[s] = step(s, dr, nseat)  # a table: no wrap-around branch per play
        if ghost[s] or s == gh:
            stacks |= 1 << s
        elif s < nseat:  # a stack (ghost, No Reveal) keeps its order
            sort_hand(hands[s], pos, ORDER[p])  # every seat holds five cards here
    # the trick's cards and seats, for the decisions that read them and the trace (about 2% of a
    # Full Deck hand when the table's one policy does not)
    rec = trace or debug or pk >= 0 or card_reads_trick(one)
    leader = rapid if rapid >= 0 else nxt[dealer]
    for t in range(5):
        bestpos = 99
        best = -1
        wi = -1
        s = leader
        n = 5 - t  # every seat plays one card a trick
        for i in range(nseat):
            if debug and (stacks >> s) & 1 == 0:
                check_sorted(hands[s], n, pos)
            if not plain and (stacks >> s) & 1:
                idx = n - 1  # F12 / No Reveal: the top card of the stack
            elif not plain and pk >= 0 and s == pk:
                idx = peek_card(g, s, pids, params, prng, hands, nh, n, pos, p, trick, tseat, i, wi, tricks, err)
                if idx < 0:
                    return idx
            else:
                idx = decide_card(pid_of(pids, s, one), hands[s], n, pos, p, trick, tseat, i, wi, s, -1, -1, tricks,
                                  params[s], prng[s], bestpos)
                if idx < 0 or idx >= n:
                    return fail(err, g, s, D_CARD, idx)
            c = take(hands[s], idx)
            if debug or not plain:  # read only by a Peek decision and the checks: set once after the tricks
                nh[s] = n - 1
            if rec:
                trick[i] = c
                tseat[i] = s
            cp = pos[np.uint64(c)]  # an unsigned index: no negative-index wrap-around on the play's path
            if cp < bestpos:
                bestpos = cp
                best = s
                wi = i
            if debug:
                played[npl] = c
                npl += 1
                check_numbers(hands, nh, nseat, undealt, nund, played, npl, seen)
            if trace:
                emit(ev, evn, g, EV_PLAY, s, c, t + 1, 0, 0, 0)
            s = (s + dr) & 3 if nseat == 4 else nxt[s]
        tricks[best] += 1
        lastwin[best] = t
        if rapid < 0:
            leader = best
        if trace:
            emit(ev, evn, g, EV_TRICK, best, t + 1, trick_card(trick, tseat, best), 0, 0, 0)
    for s in range(nseat):
        nh[s] = 0
    return npl


@njit(_nrt=False, inline="always")  # once a hand: its arguments would cost more than its code
def reveal_action(g, rev, gain, won, nwon, limbo, pd, st, hx, ast, arev, fd_base, ev, evn, trace):
    """F15: seat ``rev`` (last hand's point-card winner) reveals the top action card and its
    effects that set a flag of the hand (``hx``) or move a few point cards apply; returns the
    card's effect code (:func:`choice_effect`, :func:`hand_effect` and :func:`table_effect` apply
    the other 12 of the 31 cards). Each flag is one select on the card's effect (measured as fast
    as a branch per effect)."""
    st[S_NAST] -= 1
    a = ast[st[S_NAST]]
    arev[st[S_NREV]] = a
    st[S_NREV] += 1
    fx = FX[a]
    hx[X_ACTION] = a
    hx[X_ADV_SEAT] = rev
    # the advantage this hand: Double Dip / Recycle Bonus / Refund double it, No Trash / Partial Play
    # cancel it, Second Chance / Slow Down keep one whatever the knob (advantage = none: the card
    # grants it); every other card leaves the knob's base (Pick a Player moves it: choice_effect)
    hx[X_ADV_N] = 2 if fx == C.FX_DOUBLE else (0 if fx == C.FX_NO_ADVANTAGE else (
        1 if fx == C.FX_REDEAL_SELF else fd_base))
    hx[X_GHOST] = rev if fx == C.FX_NO_REVEAL else -1
    hx[X_PEEK] = rev if fx == C.FX_PEEK else -1
    hx[X_RAPID] = rev if fx == C.FX_RAPID_FIRE else -1
    if trace:
        emit(ev, evn, g, EV_ACTION, rev, a, fx, 0, 0, 0)
        if fx == C.FX_NO_REVEAL:
            emit(ev, evn, g, EV_GHOST, rev, 0, 0, 0, 0, 0)
        elif fx == C.FX_PEEK:
            emit(ev, evn, g, EV_PEEK, rev, 0, 0, 0, 0, 0)
        elif fx == C.FX_RAPID_FIRE:
            emit(ev, evn, g, EV_RAPID, rev, 0, 0, 0, 0, 0)
    if fx == C.FX_SKIP:
        # the point cards won last hand go to limbo, for the winner of the next hand
        for _ in range(gain):
            nwon[rev] -= 1
            limbo[st[S_NLIMBO]] = won[rev, nwon[rev]]
            st[S_NLIMBO] += 1
            if trace:
                emit(ev, evn, g, EV_LIMBO, rev, won[rev, nwon[rev]], st[S_NLIMBO], LB_SKIP, 0, 0)
    elif fx == C.FX_CLEAN_UP or fx == C.FX_TURTLE:
        # the player claims the point cards in limbo; Turtle also ends the game
        m = st[S_NLIMBO]
        for i in range(m):
            won[rev, nwon[rev]] = limbo[i]
            nwon[rev] += 1
        st[S_NLIMBO] = 0
        if fx == C.FX_TURTLE:
            st[S_OVER] = 1
            pd[st[S_PN]] = hx[X_POINT]  # this hand's point card is never played: it stays on the point deck
            st[S_PN] += 1
        if trace:
            emit(ev, evn, g, EV_CLAIM, rev, m, CL_TURTLE if fx == C.FX_TURTLE else CL_CLEAN_UP, 0, 0, 0)
    elif fx == C.FX_REVERSE:
        st[S_DIR] = -st[S_DIR]
        if trace:
            emit(ev, evn, g, EV_REVERSE, rev, st[S_DIR], 0, 0, 0, 0)
    return fx


# The effects of the action cards that decide, redeal or move hands (F15), in three calls by what
# they touch: a call costs about the size of its arguments (numba passes an array as seven words),
# so each gets only what its effects use (one call with every array cost about 1% of a hand).
@njit(_nrt=False)
def choice_effect(fx, g, rev, nseat, pids, params, prng, won, nwon, hx, err, ev, evn, trace):
    """Pick a Player and the steals (Never Happened, No Way, Shield): the revealer chooses a
    player. Returns OK or ILLEGAL."""
    if fx == C.FX_PICK:
        t = decide_pick(pids[rev], nwon, rev, nseat, params[rev], prng[rev])
        if t < 0 or t >= nseat or t == rev:
            return fail(err, g, rev, D_PICK, t)
        hx[X_ADV_SEAT] = t
        hx[X_ADV_N] = 1
        hx[X_TARGET] = t
        if trace:
            emit(ev, evn, g, EV_PICK, rev, t, 0, 0, 0, 0)
    elif fx == C.FX_STEAL:
        v = decide_steal(pids[rev], nwon, rev, nseat, params[rev], prng[rev])
        if v < -1 or v >= nseat or v == rev or (v >= 0 and nwon[v] == 0):
            return fail(err, g, rev, D_STEAL, v)
        hx[X_TARGET] = v
        if v >= 0:
            nwon[v] -= 1
            won[rev, nwon[rev]] = won[v, nwon[v]]
            nwon[rev] += 1
            if trace:
                emit(ev, evn, g, EV_STEAL, rev, v, won[v, nwon[v]], 0, 0, 0)
        elif trace:
            emit(ev, evn, g, EV_STEAL, rev, -1, -1, 0, 0, 0)
    return OK


@njit(_nrt=False)
def hand_effect(fx, g, key, h, rev, dealer, nseat, dr, p, pids, params, prng, hands, undealt, nund, swo, erng, buf,
                err, ev, evn, trace, one):
    """Eliminated, Do Over and the redeals of one hand (Second Chance, Slow Down): cards change
    hands. Returns OK or ILLEGAL."""
    pos = POS[p]
    if fx == C.FX_ELIMINATED or fx == C.FX_REDEAL_SELF:
        seed_stream(erng, key, g, EFFECT, h)  # the effect's own randomness (one effect a hand)
    if fx == C.FX_ELIMINATED:
        # every other player in turn may give a card of their choice for a blind one of the dealer's
        s = dealer
        for _ in range(nseat - 1):
            s = step(s, dr, nseat)
            choose_swaps(s, hands[s], 1, pids, params, prng, pos, p, swo, one)
            idx = swo[0]
            if idx < -1 or idx >= 5 or swo[1] != -1:
                return fail(err, g, s, D_SWAP, idx if idx < -1 or idx >= 5 else swo[1])
            if idx >= 0:
                j = randint(erng, 5)
                give = hands[s, idx]
                take = hands[dealer, j]
                hands[s, idx] = take
                hands[dealer, j] = give
                if trace:
                    emit(ev, evn, g, EV_ELIM, s, give, take, dealer, 0, 0)
            elif trace:
                emit(ev, evn, g, EV_ELIM, s, -1, -1, dealer, 0, 0)
    elif fx == C.FX_DO_OVER:
        # the decision sees the hand in order; the four cards given up go to the undealt stack in
        # the hand's dealt order (so the blind advantage swap that may follow draws one at random)
        hand = ordered_copy(hands[rev], buf)
        sort_hand(hand, pos, ORDER[p])
        kp = decide_keep(pids[rev], hand, pos, p, params[rev], prng[rev])
        if kp < 0 or kp >= 5 or nund < 4:
            return fail(err, g, rev, D_KEEP, kp)
        kp = index_of(hands[rev], hand[kp])
        u = 0
        for i in range(5):
            if i != kp:
                t = hands[rev, i]
                hands[rev, i] = undealt[u]
                undealt[u] = t
                u += 1
        if trace:
            emit(ev, evn, g, EV_KEEP, rev, hands[rev, kp], hands[rev, 0], hands[rev, 1], hands[rev, 2],
                 hands[rev, 3])
            emit(ev, evn, g, EV_DEAL, rev, hands[rev, 0], hands[rev, 1], hands[rev, 2], hands[rev, 3], hands[rev, 4])
            emit_list(ev, evn, g, EV_UNDEALTN, -1, 0, undealt, nund, False)
    elif fx == C.FX_REDEAL_SELF:
        # the hand and the undealt cards shuffled together; the player deals themself five
        for i in range(5):
            buf[i] = hands[rev, i]
        for u in range(nund):
            buf[5 + u] = undealt[u]
        shuffle(erng, buf, 5 + nund)
        for i in range(5):
            hands[rev, i] = buf[i]
        for u in range(nund):
            undealt[u] = buf[5 + u]
        if trace:
            emit(ev, evn, g, EV_REDEAL, rev, fx, 0, 0, 0, 0)
            emit(ev, evn, g, EV_DEAL, rev, hands[rev, 0], hands[rev, 1], hands[rev, 2], hands[rev, 3], hands[rev, 4])
            emit_list(ev, evn, g, EV_UNDEALTN, -1, 0, undealt, nund, False)
    return OK


@njit(_nrt=False)
def table_effect(fx, g, key, h, rev, dealer, nseat, hands, nh, undealt, nund, deck, pd, won, nwon, limbo, disc, st,
                 hx, ast, acts, move_pts, erng, drng, prng_pt, buf, ev, evn, trace):
    """Restart Game, Shuffle and the stack swaps: every hand changes. Returns the undealt count
    (it changes with a redeal)."""
    p = hx[X_POINT]
    dr = st[S_DIR]
    if fx == C.FX_RESTART or fx == C.FX_SHUFFLE:
        seed_stream(erng, key, g, EFFECT, h)  # the effect's own randomness (one effect a hand)
    if fx == C.FX_RESTART:
        st[S_RESTARTS] += 1
        if trace:
            emit(ev, evn, g, EV_RESTART, rev, 1 if move_pts else 0, 0, 0, 0, 0)
        # the action stack is rebuilt from every action card and reshuffled
        m = acts.shape[0]
        for i in range(m):
            ast[i] = acts[i]
        shuffle(erng, ast, m)
        st[S_NAST] = m
        st[S_NREV] = 0
        if move_pts:
            # optional rule: earned point cards move too: every point card back into the point deck
            n = st[S_PN]
            pd[n] = p
            n += 1
            for s in range(nseat):
                for i in range(nwon[s]):
                    pd[n] = won[s, i]
                    n += 1
                nwon[s] = 0
            for i in range(st[S_NLIMBO]):
                pd[n] = limbo[i]
                n += 1
            for i in range(st[S_NDISC]):
                pd[n] = disc[i]
                n += 1
            st[S_NLIMBO] = 0
            st[S_NDISC] = 0
            shuffle(prng_pt, pd, n)
            n -= 1
            p = pd[n]
            st[S_PN] = n
            hx[X_POINT] = p
            if trace:
                emit(ev, evn, g, EV_REVEAL, -1, p, 1, 0, 0, 0)
        nund = redeal(key, g, h, deck, hands, nh, undealt, nseat, dealer, dr, drng, ev, evn, trace)
    elif fx == C.FX_SHUFFLE:
        if trace:
            emit(ev, evn, g, EV_REDEAL, -1, fx, 0, 0, 0, 0)
        nund = redeal(key, g, h, deck, hands, nh, undealt, nseat, dealer, dr, drng, ev, evn, trace)
        if move_pts:
            # optional rule: the earned point cards are shuffled and dealt out again, one at a time
            n = 0
            for s in range(nseat):
                for i in range(nwon[s]):
                    buf[n] = won[s, i]
                    n += 1
                nwon[s] = 0
            shuffle(erng, buf, n)
            s = dealer
            for i in range(n):
                s = step(s, dr, nseat)
                won[s, nwon[s]] = buf[i]
                nwon[s] += 1
            if trace:
                for s in range(nseat):
                    emit_list(ev, evn, g, EV_POINTS, s, 0, won[s], nwon[s], False)
    elif fx == C.FX_SWAP_LEFT or fx == C.FX_SWAP_RIGHT:
        left = fx == C.FX_SWAP_LEFT
        rotate_rows(hands, nh, nseat, left, buf)
        if move_pts:
            rotate_rows(won, nwon, nseat, left, buf)
        if trace:
            emit(ev, evn, g, EV_PASS, -1, 1 if left else -1, 1 if move_pts else 0, 0, 0, 0)
            for s in range(nseat):
                emit(ev, evn, g, EV_DEAL, s, hands[s, 0], hands[s, 1], hands[s, 2], hands[s, 3], hands[s, 4])
    return nund


@njit(_nrt=False)
def play_royal(start, count, key, variant, fd, pids, params, kinds, k, nseat, ghost, tie_rule, limbo_next, fd_base, move_pts, acts,
               max_hands, stack, pstack, astack, debug, trace, ev, evn, hg, hh, hout, gout, err, hands, nh,
               deck, undealt, played, pd, trick, tseat, tricks, swo, drng, prng, tmp, prng_pt, srng, seen,
               won, nwon, limbo, disc, lastwin, ast, arev, erng, buf, st, hx, gkinds, seenk, seena, nxt, one):
    """Play individual games ``start .. start+count-1`` (Battle Royal F13, Solo F14, Full Deck
    F15) to their end: ``nseat`` seats, ``ghost[s]`` for Solo's ghosts. Tables and return value
    as :func:`play_team`."""
    row = np.int64(0)
    nghost = 0
    for s in range(4):
        nghost += ghost[s]
    for gi in range(count):  # one call a chunk: passing the arguments per game cost ~10%
        g = start + gi
        r0 = row
        for s in range(4):
            seed_stream(prng[s], key, g, POLICY, s)
            nwon[s] = 0
        point_deck(key, g, kinds, k, pstack, tmp, pd, prng_pt)  # the game uses them all (F13)
        for i in range(k):
            gkinds[i] = pd[i]
        st[S_PN] = k
        st[S_NLIMBO] = 0
        st[S_NDISC] = 0
        st[S_DIR] = 1
        st[S_RESTARTS] = 0
        st[S_OVER] = 0
        st[S_NREV] = 0
        # F15: the action cards form their own face-down stack (top is ast[nast - 1])
        m = acts.shape[0] if fd else 0
        if astack.shape[0] > 0:
            for i in range(m):
                ast[i] = astack[m - 1 - i]
        else:
            for i in range(m):
                ast[i] = acts[i]
            seed_stream(erng, key, g, ACTIONS, 0)
            shuffle(erng, ast, m)
        st[S_NAST] = m
        dealer = first_dealer(key, g, stack, deck, ev, evn, trace, srng, ghost, nseat)
        gout[gi, G_FIRST] = dealer
        rev = np.int64(-1)  # typed int64, not a literal: one compiled signature of each effect call
        gain = np.int64(0)
        nactions = 0
        h = np.int64(0)
        while st[S_PN] > 0 and st[S_OVER] == 0:  # F13: the game ends when the point deck is used up
            if h >= max_hands:
                break
            if row >= hout.shape[1]:
                return FULL
            dr = st[S_DIR] if fd else 1  # only Full Deck reverses the direction
            if trace:
                emit(ev, evn, g, EV_DEALER, dealer, h, 0, dr, 0, 0)
            shuffle_deck(key, g, h, stack, deck, drng)
            nund = deal_royal(deck, hands, nh, undealt, nseat, dealer, dr)
            npl = 0
            if trace:
                trace_deal(ev, evn, g, hands, nseat, undealt, nund)
            # F13: every revealed point card is in play (no decision cycle, no dealer swap)
            st[S_PN] -= 1
            p = pd[st[S_PN]]
            if trace:
                emit(ev, evn, g, EV_REVEAL, -1, p, 1, 0, 0, 0)
            hx[X_GHOST] = -1
            hx[X_PEEK] = -1
            hx[X_RAPID] = -1
            hx[X_TARGET] = -1
            hx[X_POINT] = p
            hx[X_ADV_SEAT] = -1
            hx[X_ADV_N] = 0
            hx[X_SWAPS] = 0
            hx[X_ACTION] = -1
            if debug:
                check_royal(hands, nh, nseat, undealt, nund, played, npl, seen, pd, st[S_PN], won, nwon, limbo,
                            st[S_NLIMBO], disc, st[S_NDISC], p, True, gkinds, k, seenk, ast, st[S_NAST], arev,
                            st[S_NREV], acts, seena)
            hh[row] = h
            hout[H_DEALER, row] = dealer
            hout[H_REVEALER, row] = -1
            # F15: last hand's point-card winner reveals an action card after the (Battle Royal: empty)
            # dealer advantage and before play
            if fd and rev >= 0 and st[S_NAST] > 0:
                hout[H_REVEALER, row] = rev
                nactions += 1
                fx = reveal_action(g, rev, gain, won, nwon, limbo, pd, st, hx, ast, arev, fd_base, ev, evn, trace)
                if fx == C.FX_STEAL or fx == C.FX_PICK:
                    if choice_effect(fx, g, rev, nseat, pids, params, prng, won, nwon, hx, err, ev, evn, trace) < 0:
                        return ILLEGAL
                elif fx == C.FX_ELIMINATED or fx == C.FX_DO_OVER or fx == C.FX_REDEAL_SELF:
                    if hand_effect(fx, g, key, h, rev, dealer, nseat, st[S_DIR], hx[X_POINT], pids, params, prng,
                                   hands, undealt, nund, swo, erng, buf, err, ev, evn, trace, one) < 0:
                        return ILLEGAL
                elif fx == C.FX_RESTART or fx == C.FX_SHUFFLE or fx == C.FX_SWAP_LEFT or fx == C.FX_SWAP_RIGHT:
                    nund = table_effect(fx, g, key, h, rev, dealer, nseat, hands, nh, undealt, nund, deck, pd, won,
                                        nwon, limbo, disc, st, hx, ast, acts, move_pts, erng, drng, prng_pt, buf, ev,
                                        evn, trace)
                # the dealer advantage this hand (F15 reading: the revealer's, unless the card says otherwise)
                if st[S_OVER] == 0 and hx[X_ADV_N] > 0:
                    if trace:
                        emit(ev, evn, g, EV_ADV, hx[X_ADV_SEAT], hx[X_ADV_N], 0, 0, 0, 0)
                    u = advantage(g, hx[X_ADV_SEAT], hx[X_ADV_N], pids, params, prng, hands, undealt, nund,
                                  POS[hx[X_POINT]], hx[X_POINT], swo, err, ev, evn, trace, hx[X_ADV_SEAT] == hx[X_GHOST],
                                  buf, one)
                    if u < 0:
                        return u
                    hx[X_SWAPS] = u
                p = hx[X_POINT]
                dr = st[S_DIR]
                if debug:
                    check_royal(hands, nh, nseat, undealt, nund, played, npl, seen, pd, st[S_PN], won, nwon, limbo,
                                st[S_NLIMBO], disc, st[S_NDISC], p, st[S_OVER] == 0, gkinds, k, seenk, ast,
                                st[S_NAST], arev, st[S_NREV], acts, seena)
            hout[H_POINT, row] = p
            hout[H_ACTION, row] = hx[X_ACTION]
            hout[H_TARGET, row] = hx[X_TARGET]
            hout[H_SWAPS, row] = hx[X_SWAPS]
            hout[H_DOUBLE, row] = 1 if hx[X_ADV_N] == 2 else 0
            for s in range(4):
                tricks[s] = 0
            w = -1
            tie = False
            if st[S_OVER] == 0:
                # the Peek player's decision is a call: the trick loop with it is compiled apart, as a
                # call in the loop slows every play (a Full Deck hand with greedy: 260 -> 218 ns)
                if fd and hx[X_PEEK] >= 0:
                    npl = royal_tricks(g, p, dealer, dr, nseat, ghost, hx[X_GHOST], hx[X_PEEK], hx[X_RAPID], pids,
                                       params, prng, hands, nh, trick, tseat, tricks, lastwin, undealt, nund, played,
                                       seen, debug, trace, ev, evn, err, nxt, one, False)
                elif nghost > 0 or (fd and hx[X_GHOST] >= 0):
                    npl = royal_tricks(g, p, dealer, dr, nseat, ghost, hx[X_GHOST] if fd else -1, -1,
                                       hx[X_RAPID] if fd else -1, pids, params, prng, hands, nh, trick, tseat, tricks,
                                       lastwin, undealt, nund, played, seen, debug, trace, ev, evn, err, nxt, one, False)
                else:  # the common hand: every seat decides, none peeks (its own copy of the loop)
                    npl = royal_tricks(g, p, dealer, dr, nseat, ghost, -1, -1, hx[X_RAPID] if fd else -1, pids, params,
                                       prng, hands, nh, trick, tseat, tricks, lastwin, undealt, nund, played, seen,
                                       debug, trace, ev, evn, err, nxt, one, True)
                if npl < 0:
                    return npl
                # F13: the player with the most tricks wins the point card (branch-free: the counts
                # are noise to a branch predictor)
                top = 0
                for s in range(nseat):
                    top = max(top, tricks[s])
                cnt = 0
                for s in range(nseat):
                    eq = tricks[s] == top
                    cnt += eq
                    w = s if eq else w
                tie = cnt > 1
                if tie:
                    if tie_rule == TIE_LAST_TRICK:
                        lt = -1
                        for s in range(nseat):
                            if tricks[s] == top and lastwin[s] > lt:
                                lt = lastwin[s]
                                w = s
                    else:
                        w = -1
                if w >= 0:
                    m = st[S_NLIMBO] if limbo_next else 0  # F13: limbo goes to the next hand's winner
                    won[w, nwon[w]] = p
                    nwon[w] += 1
                    for i in range(m):
                        won[w, nwon[w]] = limbo[i]
                        nwon[w] += 1
                    if limbo_next:
                        st[S_NLIMBO] = 0
                    gain = 1 + m
                    if trace and m > 0:
                        emit(ev, evn, g, EV_CLAIM, w, m, CL_HAND, 0, 0, 0)
                elif tie_rule == TIE_LIMBO:
                    limbo[st[S_NLIMBO]] = p
                    st[S_NLIMBO] += 1
                    gain = 0
                    if trace:
                        emit(ev, evn, g, EV_LIMBO, -1, p, st[S_NLIMBO], LB_TIE, 0, 0)
                else:
                    disc[st[S_NDISC]] = p
                    st[S_NDISC] += 1
                    gain = 0
                    if trace:
                        emit(ev, evn, g, EV_DISCARD, -1, p, 0, 0, 0, 0)
                rev = w
                if debug:
                    check_royal(hands, nh, nseat, undealt, nund, played, npl, seen, pd, st[S_PN], won, nwon, limbo,
                                st[S_NLIMBO], disc, st[S_NDISC], p, False, gkinds, k, seenk, ast, st[S_NAST], arev,
                                st[S_NREV], acts, seena)
            for s in range(4):
                hout[H_T0 + s, row] = tricks[s]
                hout[H_PS0 + s, row] = nwon[s] if s < nseat else 0
            hout[H_WINNER, row] = w
            hout[H_TIE, row] = 1 if tie else 0
            hout[H_LIMBO, row] = st[S_NLIMBO]
            if trace:
                emit(ev, evn, g, EV_RHAND, w, 1 if tie else 0, st[S_NLIMBO],
                     tricks[0] + 8 * tricks[1] + 64 * tricks[2] + 512 * tricks[3], p, nseat)
                emit(ev, evn, g, EV_SCORE, -1, nwon[0], nwon[1], nwon[2], nwon[3], nseat)
            row += 1
            h += 1
            # the deal moves on in the play direction; ghosts never deal (F12, F14)
            dealer = step(dealer, st[S_DIR], nseat)
            while ghost[dealer]:
                dealer = step(dealer, st[S_DIR], nseat)
        finished = st[S_OVER] == 1 or st[S_PN] == 0
        top = -1
        cnt = 0
        w = -1
        for s in range(nseat):
            gout[gi, G_PS0 + s] = nwon[s]
            if nwon[s] > top:
                top = nwon[s]
                cnt = 1
                w = s
            elif nwon[s] == top:
                cnt += 1
        gout[gi, G_WINNER] = w if finished and cnt == 1 else -1
        gout[gi, G_TIE] = 1 if finished and cnt > 1 else 0
        gout[gi, G_HANDS] = h
        gout[gi, G_UNFINISHED] = 0 if finished else 1
        gout[gi, G_LIMBO] = st[S_NLIMBO]
        gout[gi, G_DISC] = st[S_NDISC]
        gout[gi, G_TURTLE] = st[S_OVER]
        gout[gi, G_RESTARTS] = st[S_RESTARTS]
        gout[gi, G_ACTIONS] = nactions
        if trace:  # (the last hand's score event gave the final point cards)
            emit(ev, evn, g, EV_RGAME, gout[gi, G_WINNER], gout[gi, G_TIE], h, 0 if finished else 1, st[S_OVER],
                 st[S_NLIMBO])
        for j in range(r0, row):
            hg[j] = g
    return row


@njit
def simulate_team(key, start, count, variant, pids, params, kinds, k, fub_rule, max_hands, ghost, stack, pstack,
                  ev, evn, hg, hh, hout, gout, err, debug, trace):
    """Play team games ``start .. start+count-1`` (traditional, Lucky Ghost: F1-F12).

    ``pids`` (int64[4]) and ``params`` (float64[4, w]) are per seat (ghost seats unused);
    ``ghost`` (int64[4]) marks Lucky Ghost's ghost seats.
    Writes one column per hand into ``hout`` (int8[NH, cap]) with its game index in
    ``hg`` (int64[cap]) and its hand number in ``hh`` (int16[cap]), and one row per game into ``gout`` (int32[count, NG]).
    Returns the number of hand rows, FULL when ``hout`` is too small, or ILLEGAL
    (``err`` = game, seat, decision, value) when a policy chose an illegal action.

    This entry serves traces and debug runs; simulations run the leaner :data:`LEAN_TEAM`.
    """
    return team_games(key, start, count, variant, pids, params, kinds, k, fub_rule, max_hands, ghost, stack, pstack,
                      debug, trace, ev, evn, hg, hh, hout, gout, err, ANY)


@njit
def team_games(key, start, count, variant, pids, params, kinds, k, fub_rule, max_hands, ghost, stack, pstack,
               debug, trace, ev, evn, hg, hh, hout, gout, err, one):
    """:func:`simulate_team`'s loop over the games."""
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
    if variant == V_LUCKY_GHOST:  # literal flags: one compiled version each (play_team)
        return play_team(start, count, key, pids, params, kinds, k, fub_rule, max_hands, stack, pstack, debug, trace,
                         ev, evn, hg, hh, hout, gout, err, hands, nh, deck, undealt, played, pd, trick, tseat, tricks,
                         swo, drng, prng, tmp, prng_pt, srng, seen, ghost, True, one)
    return play_team(start, count, key, pids, params, kinds, k, fub_rule, max_hands, stack, pstack, debug, trace,
                     ev, evn, hg, hh, hout, gout, err, hands, nh, deck, undealt, played, pd, trick, tseat, tricks,
                     swo, drng, prng, tmp, prng_pt, srng, seen, ghost, False, one)


@njit
def simulate_royal(key, start, count, variant, pids, params, kinds, k, max_hands, nseat, ghost, tie_rule, limbo_next,
                   fd_base, move_pts, acts, stack, pstack, astack, ev, evn, hg, hh, hout, gout, err, debug, trace):
    """Play individual games ``start .. start+count-1`` of ``variant`` (Battle Royal, Solo, Full
    Deck: F13-F15) with ``nseat`` seats at the table (``ghost`` marks Solo's ghosts), the tie
    rule ``tie_rule`` (TIE_*), ``limbo_next`` (limbo goes to the next hand's winner; else it waits
    for Clean Up or the Turtle), Full Deck's base advantage ``fd_base`` (1: the revealer's single
    swap, 0: none), its optional rule ``move_pts`` and action stack ``acts`` (action codes).
    Tables and return value as :func:`simulate_team`; simulations run :data:`LEAN_ROYAL`.
    """
    return royal_games(key, start, count, variant, variant == V_FULL_DECK, pids, params, kinds, k, max_hands, nseat,
                       ghost, tie_rule, limbo_next, fd_base, move_pts, acts, stack, pstack, astack, debug, trace, ev,
                       evn, hg, hh, hout, gout, err, ANY)


@njit
def royal_games(key, start, count, variant, fd, pids, params, kinds, k, max_hands, nseat, ghost, tie_rule, limbo_next,
                fd_base, move_pts, acts, stack, pstack, astack, debug, trace, ev, evn, hg, hh, hout, gout, err, one):
    """:func:`simulate_royal`'s loop over the games."""
    nk = kinds.shape[0]
    hands = np.empty((4, 5), np.int64)
    nh = np.zeros(4, np.int64)
    deck = np.empty(24, np.int64)
    undealt = np.empty(24, np.int64)
    played = np.empty(24, np.int64)
    pd = np.empty(nk + 1, np.int64)
    trick = np.zeros(4, np.int64)
    tseat = np.zeros(4, np.int64)
    tricks = np.zeros(4, np.int64)
    swo = np.empty(2, np.int64)
    drng = np.empty(1, np.uint64)
    prng = np.empty((4, 1), np.uint64)
    tmp = np.empty(nk, np.int64)
    prng_pt = np.empty(1, np.uint64)
    srng = np.empty(1, np.uint64)
    seen = np.zeros(24, np.int64)
    won = np.empty((4, nk + 1), np.int64)
    nwon = np.zeros(4, np.int64)
    limbo = np.empty(nk + 1, np.int64)
    disc = np.empty(nk + 1, np.int64)
    lastwin = np.zeros(4, np.int64)
    ast = np.empty(N_ACTION + 1, np.int64)
    arev = np.empty(N_ACTION + 1, np.int64)
    erng = np.empty(1, np.uint64)
    buf = np.empty(nk + 32, np.int64)
    st = np.zeros(8, np.int64)
    hx = np.zeros(9, np.int64)
    gkinds = np.empty(nk + 1, np.int64)
    seenk = np.zeros(NKINDS, np.int64)
    seena = np.zeros(N_ACTION, np.int64)
    nxt = np.zeros(4, np.int64)
    return play_royal(start, count, key, variant, fd, pids, params, kinds, k, nseat, ghost, tie_rule, limbo_next, fd_base,
                      move_pts, acts, max_hands, stack, pstack, astack, debug, trace, ev, evn, hg, hh, hout, gout, err,
                      hands, nh, deck, undealt, played, pd, trick, tseat, tricks, swo, drng, prng, tmp, prng_pt, srng,
                      seen, won, nwon, limbo, disc, lastwin, ast, arev, erng, buf, st, hx, gkinds, seenk, seena, nxt,
                      one)


def lean_team(one):
    """The simulation entry of :func:`simulate_team` (its arguments but the last two, ``debug``
    and ``trace``) for a table where every player's seat plays built-in policy ``one`` (ANY: a
    mixed table or a plug-in).

    Specialisations make it lean: the flags are literal ``False``, which compiles the trace and
    debug code out, and ``one`` is a literal, which folds every dispatcher to that policy's
    code. Each entry is compiled on first use and cached like any kernel.
    """
    @njit
    def team(key, start, count, variant, pids, params, kinds, k, fub_rule, max_hands, ghost, stack, pstack, ev, evn,
             hg, hh, hout, gout, err):
        return team_games(key, start, count, variant, pids, params, kinds, k, fub_rule, max_hands, ghost, stack,
                          pstack, False, False, ev, evn, hg, hh, hout, gout, err, one)

    return team


def lean_royal(one, nseat, fd):
    """The simulation entry of :func:`simulate_royal` (its arguments but ``nseat`` and the last two)
    for ``nseat`` seats, Full Deck (``fd``) or not, specialised as :func:`lean_team`. ``nseat``
    and ``fd`` are literals too: the loops over the seats unroll, and Battle Royal and Solo are
    compiled without Full Deck's effects on the play."""
    @njit
    def royal(key, start, count, variant, pids, params, kinds, k, max_hands, ghost, tie_rule, limbo_next, fd_base,
              move_pts, acts, stack, pstack, astack, ev, evn, hg, hh, hout, gout, err):
        return royal_games(key, start, count, variant, fd, pids, params, kinds, k, max_hands, nseat, ghost, tie_rule,
                           limbo_next, fd_base, move_pts, acts, stack, pstack, astack, False, False, ev, evn, hg, hh, hout,
                           gout, err, one)

    return royal


_ONES = (ANY, *(spec.pid for spec in POLICIES))
#: ``{policy id or ANY: team entry}`` and ``{(policy id or ANY, seats, Full Deck): individual-play entry}``
LEAN_TEAM = {one: lean_team(one) for one in _ONES}
LEAN_ROYAL = {(one, nseat, fd): lean_royal(one, nseat, fd) for one in _ONES for nseat in (2, 3, 4)
              for fd in (False, True)}


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

