"""The FOURBID kernel (B1-B14): deal, turns, bidding, going out, challenge, scoring.

This is the game's *kernel module*: every jitted function that calls a
policy dispatcher (``decide_*``), directly or not, lives here, so plug-in
policies can rebuild it (``cardsim.policies.kernel_namespace``).

State of a hand (all int64, allocated once per chunk):

- ``hands[4, WIDTH]`` / ``nhand[4]``: each seat's OceanLife card codes;
- ``cnt[4, nsets + 1]`` / ``pts[4, nsets + 1]``: per seat, cards and point
  total of each set (``cnt[s, nsets]`` counts wilds), kept in step with ``hands``;
- ``deck[ncards]`` (top = ``deck[ndeck - 1]``), ``pile[ncards]`` (top =
  ``pile[npile - 1]``);
- ``pub[NPUB]``: the public state (``state.py``), Indicators per seat among it.

A seat is a position at the table (A = seat 0 deals the first hand of a
game, B13); ``pmap[seat]`` is the player (policy index) sitting there.
"""

from __future__ import annotations

import numpy as np

from cardsim.events import emit, emit_list
from cardsim.games.fourbid import state as S
from cardsim.games.fourbid.cards import DEALT, WIDTH
from cardsim.games.fourbid.policies import (
    best_with_wilds,
    decide_acquire,
    decide_bid,
    decide_challenge,
    decide_discard,
    earned,
    indicator_legal,
)
from cardsim.jit import njit
from cardsim.rng import DEAL, POLICY, seed_stream, shuffle

RESHUFFLE = 11  # stream purpose of B12 reshuffles




@njit(_nrt=False, inline="always")
def add_card(s, c, hands, nhand, cnt, pts, cset, cval, nsets):
    hands[s, nhand[s]] = c
    nhand[s] += 1
    k = cset[c]
    if k < 0:
        cnt[s, nsets] += 1
    else:
        cnt[s, k] += 1
        pts[s, k] += cval[c]


@njit(_nrt=False, inline="always")
def remove_card(s, c, hands, nhand, cnt, pts, cset, cval, nsets):
    """Take card ``c`` out of seat ``s``'s hand; False when it is not there."""
    n = nhand[s]
    for i in range(n):
        if hands[s, i] == c:
            hands[s, i] = hands[s, n - 1]
            nhand[s] = n - 1
            k = cset[c]
            if k < 0:
                cnt[s, nsets] -= 1
            else:
                cnt[s, k] -= 1
                pts[s, k] -= cval[c]
            return True
    return False


@njit(_nrt=False)
def recount(hands, nhand, cnt, pts, cset, cval, nsets):
    """Rebuild ``cnt``/``pts`` from ``hands`` (constructed states)."""
    for s in range(4):
        for k in range(nsets + 1):
            cnt[s, k] = 0
            pts[s, k] = 0
        for i in range(nhand[s]):
            c = hands[s, i]
            k = cset[c]
            if k < 0:
                cnt[s, nsets] += 1
            else:
                cnt[s, k] += 1
                pts[s, k] += cval[c]


@njit(_nrt=False)
def conserved(pub, hands, nhand, cnt, pts, deck, pile, cset, cval, seen, holder):
    """Debug check: every OceanLife card in exactly one place; hands at 8 cards (9 for ``holder``,
    between acquire and discard) counting unplayed Indicators; ``cnt``/``pts``/top consistent."""
    ncards = cset.shape[0]
    nsets = pub[S.P_NSETS]
    for c in range(ncards):
        seen[c] = 0
    for s in range(4):
        ind = pub[S.P_IND + s]
        if ind < 0 or ind > 4:
            return False
        if nhand[s] + 4 - ind != 8 + (1 if s == holder else 0):
            return False
        for k in range(nsets + 1):
            m = 0
            p = 0
            for i in range(nhand[s]):
                c = hands[s, i]
                if (cset[c] < 0 and k == nsets) or cset[c] == k:
                    m += 1
                    if k < nsets:
                        p += cval[c]
            if m != cnt[s, k] or (k < nsets and p != pts[s, k]):
                return False
        for i in range(nhand[s]):
            seen[hands[s, i]] += 1
    for i in range(pub[S.P_NDECK]):
        seen[deck[i]] += 1
    npile = pub[S.P_NPILE]
    for i in range(npile):
        seen[pile[i]] += 1
    for c in range(ncards):
        if seen[c] != 1:
            return False
    top = pile[npile - 1] if npile > 0 else -1
    return pub[S.P_TOP] == top


@njit(_nrt=False)
def illegal(err, g, seat, player, decision, value, pub, hands, nhand, cnt):
    """Record an illegal policy answer (the wrapper raises PolicyError from it)."""
    err[0] = S.E_ILLEGAL
    err[1] = seat
    err[2] = decision
    err[3] = value
    err[4] = player
    err[5] = g
    err[6] = pub[S.P_NPILE]
    err[7] = pub[S.P_FORCED]
    err[8] = pub[S.P_IND + seat] + 1 if indicator_legal(seat, cnt[seat], pub) else 0
    n = nhand[seat]
    err[9] = n
    for i in range(min(n, S.NERR - 10)):
        err[10 + i] = hands[seat, i]


@njit(_nrt=False)
def conservation_error(err, g, where):
    err[0] = S.E_CONSERVATION
    err[5] = g
    err[3] = where


@njit(_nrt=False)
def reshuffle(g, key, handseq, pub, deck, pile, drng, ev, nev, tr):
    """B12: all discards but the top one become the new deck, shuffled."""
    npile = pub[S.P_NPILE]
    if npile <= 1:
        return
    top = pile[npile - 1]
    n = npile - 1
    for i in range(n):
        deck[i] = pile[i]
    r = pub[S.P_RESHUF]
    seed_stream(drng, key, g, RESHUFFLE, handseq * 4096 + r)
    shuffle(drng, deck, n)
    pile[0] = top
    pub[S.P_NPILE] = 1
    pub[S.P_NDECK] = n
    pub[S.P_RESHUF] = r + 1
    if tr:
        emit_list(ev, nev, g, S.EV_RESHUFFLE, -1, top, deck, n, True)


@njit(_nrt=False)
def deal_hand(g, key, handseq, dealer, pub, hands, nhand, cnt, pts, deck, pile, drng, cset, cval, stack,
              ev, nev, tr):
    """B2: shuffle (or take row ``handseq`` of ``stack``, top card first), reset the hand's public
    state and deal 4 OceanLife cards to each seat, one at a time from the dealer's left."""
    ncards = cset.shape[0]
    nsets = pub[S.P_NSETS]
    if handseq < stack.shape[0]:
        for i in range(ncards):
            deck[ncards - 1 - i] = stack[handseq, i]
    else:
        for i in range(ncards):
            deck[i] = i
        seed_stream(drng, key, g, DEAL, handseq)
        shuffle(drng, deck, ncards)
    for s in range(4):
        nhand[s] = 0
        for k in range(nsets + 1):
            cnt[s, k] = 0
            pts[s, k] = 0
        pub[S.P_IND + s] = 0
        pub[S.P_SPENT + s] = 0
        pub[S.P_CHAL + s] = 0
    pub[S.P_TOP] = -1
    pub[S.P_NPILE] = 0
    pub[S.P_DEALER] = dealer
    pub[S.P_LAST] = dealer  # B2: play starts left of the dealer
    pub[S.P_ANYIND] = 0
    pub[S.P_TWO] = 0
    pub[S.P_FIRST] = -1
    pub[S.P_TURNS] = 0
    pub[S.P_BIDS] = 0
    pub[S.P_OUT] = -1
    pub[S.P_OPENER] = -1
    pub[S.P_HIGH] = -1
    pub[S.P_BID] = 0
    pub[S.P_FORCED] = 0
    pub[S.P_FIRST_TURN] = -1
    pub[S.P_RESHUF] = 0
    pub[S.P_PHASE] = 0
    if tr:
        emit(ev, nev, g, S.EV_HAND, dealer, pub[S.P_HAND], pub[S.P_TGAME], handseq, 0, 0)
    nd = ncards
    for i in range(4 * DEALT):
        nd -= 1
        add_card((dealer + 1 + i) % 4, deck[nd], hands, nhand, cnt, pts, cset, cval, nsets)
    pub[S.P_NDECK] = nd
    if tr:
        for s in range(4):
            emit(ev, nev, g, S.EV_DEAL, s, hands[s, 0], hands[s, 1], hands[s, 2], hands[s, 3], 0)
        emit_list(ev, nev, g, S.EV_DECK, -1, 0, deck, nd, True)


@njit(_nrt=False, inline="always")
def bidding(g, pub, hands, nhand, cnt, pts, pmap, pids, params, prng, cset, cval, ev, nev, tr, err):
    """B4/B5: one bidding round; returns the seat that wins the right to complete the turn (-2 on error).

    The last completer L may not bid; L+1 opens with a forced 1; L+2 and L+3 in turn raise by one or
    pass; if both raised (bid 3) the opener decides 4 or pass. The first pass ends the round and the
    last bidder wins; the winner pays bid x its Indicator showing (B5)."""
    last = pub[S.P_LAST]
    o = (last + 1) & 3
    pub[S.P_OPENER] = o
    pub[S.P_HIGH] = o
    pub[S.P_BID] = 1
    if tr:
        emit(ev, nev, g, S.EV_BID, o, 1, 1, 0, 0, 0)
    winner = o
    bid = 1
    for step in range(3):  # asked: L+2 (to 2), L+3 (to 3), the opener (to 4)
        s = (last + 2 + step) & 3 if step < 2 else o
        pl = pmap[s]
        r = decide_bid(pids[pl], s, bid, hands[s], nhand[s], cnt[s], pts[s], pub, cset, cval, params[pl], prng[pl])
        if r != 0 and r != 1:
            illegal(err, g, s, pl, S.D_BID, r, pub, hands, nhand, cnt)
            return -2
        if r == 0:
            if tr:
                emit(ev, nev, g, S.EV_PASS, s, bid, 0, 0, 0, 0)
            break
        bid += 1
        winner = s
        pub[S.P_HIGH] = s
        pub[S.P_BID] = bid
        if tr:
            emit(ev, nev, g, S.EV_BID, s, bid, 0, 0, 0, 0)
    ind = pub[S.P_IND + winner]
    cost = bid * ind  # B5
    pub[S.P_SPENT + winner] += cost
    pub[S.P_BIDS] += 1
    pub[S.P_BID] = 0
    pub[S.P_HIGH] = -1
    pub[S.P_OPENER] = -1
    if tr:
        emit(ev, nev, g, S.EV_WIN, winner, bid, cost, ind, 0, 0)
    return winner


@njit(_nrt=False)
def play_turns(g, key, handseq, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids, params, prng, drng,
               cset, cval, kn, ev, nev, tr, err, debug, seen):
    """Play turns from the current state until someone goes out (returns that seat), the turn cap
    cuts the hand (B14, returns -1) or a policy acts illegally / debug finds a lost card (-2)."""
    nsets = pub[S.P_NSETS]
    ncards = cset.shape[0]
    while True:
        if pub[S.P_TURNS] >= kn[S.K_TURN_CAP]:
            if tr:
                emit(ev, nev, g, S.EV_CUT, -1, pub[S.P_TURNS], 0, 0, 0, 0)
            return -1
        if pub[S.P_ANYIND] == 0:
            p = (pub[S.P_LAST] + 1) & 3  # no bidding before any Indicator (B4)
        else:
            p = bidding(g, pub, hands, nhand, cnt, pts, pmap, pids, params, prng, cset, cval, ev, nev, tr, err)
            if p < 0:
                return -2
        pl = pmap[p]
        # -- acquire (B3) --
        src = decide_acquire(pids[pl], p, hands[p], nhand[p], cnt[p], pts[p], pub, cset, cval, params[pl],
                             prng[pl])
        if src == S.SRC_PILE and pub[S.P_NPILE] > 0:
            npile = pub[S.P_NPILE] - 1
            c = pile[npile]
            pub[S.P_NPILE] = npile
            pub[S.P_TOP] = pile[npile - 1] if npile > 0 else -1
        elif src == S.SRC_DECK and pub[S.P_NDECK] > 0:
            nd = pub[S.P_NDECK] - 1
            c = deck[nd]
            pub[S.P_NDECK] = nd
        else:
            illegal(err, g, p, pl, S.D_ACQUIRE, src, pub, hands, nhand, cnt)
            return -2
        add_card(p, c, hands, nhand, cnt, pts, cset, cval, nsets)
        if tr:
            emit(ev, nev, g, S.EV_ACQUIRE, p, src, c, pub[S.P_NDECK], pub[S.P_NPILE], 0)
        if src == S.SRC_DECK and pub[S.P_NDECK] == 0:
            reshuffle(g, key, handseq, pub, deck, pile, drng, ev, nev, tr)  # B12: at once
        if debug and not conserved(pub, hands, nhand, cnt, pts, deck, pile, cset, cval, seen, p):
            conservation_error(err, g, 1)
            return -2
        # -- discard (B3, B6, B7, B8) --
        forced = kn[S.K_RULE2] == 1 and pub[S.P_TWO] == 1 and pub[S.P_IND + p] == 0
        pub[S.P_FORCED] = 1 if forced else 0
        d = decide_discard(pids[pl], p, hands[p], nhand[p], cnt[p], pts[p], pub, cset, cval, params[pl],
                           prng[pl])
        out = False
        if d == S.INDICATOR and indicator_legal(p, cnt[p], pub):
            k = pub[S.P_IND + p] + 1
            pub[S.P_IND + p] = k
            cost = 0
            if pub[S.P_ANYIND] == 0:  # B6: the first Indicator of the hand costs 4
                cost = pub[S.P_RULE1]
                pub[S.P_SPENT + p] += cost
                pub[S.P_ANYIND] = 1
                pub[S.P_FIRST] = p
                pub[S.P_FIRST_TURN] = pub[S.P_TURNS]
            starts = 0
            if k == 2 and pub[S.P_TWO] == 0:  # B7 from now on
                pub[S.P_TWO] = 1
                starts = 1
            if tr:
                emit(ev, nev, g, S.EV_INDICATOR, p, k, cost, 1 if forced else 0, starts, 0)
            out = k == 4  # B8
        elif d >= 0 and d < ncards and not forced and remove_card(p, d, hands, nhand, cnt, pts, cset, cval, nsets):
            npile = pub[S.P_NPILE]
            pile[npile] = d
            pub[S.P_NPILE] = npile + 1
            pub[S.P_TOP] = d
            if tr:
                emit(ev, nev, g, S.EV_DISCARD, p, d, 0, 0, 0, 0)
        else:
            illegal(err, g, p, pl, S.D_DISCARD, d, pub, hands, nhand, cnt)
            pub[S.P_FORCED] = 0
            return -2
        pub[S.P_FORCED] = 0
        pub[S.P_TURNS] += 1
        pub[S.P_LAST] = p
        if debug and not conserved(pub, hands, nhand, cnt, pts, deck, pile, cset, cval, seen, -1):
            conservation_error(err, g, 2)
            return -2
        if out:
            pub[S.P_OUT] = p
            if tr:
                emit(ev, nev, g, S.EV_OUT, p, earned(pts[p], nsets), best_with_wilds(cnt[p], nsets), 0, 0, 0)
            return p


@njit(_nrt=False)
def finish_hand(g, out, pub, hands, nhand, cnt, pts, pmap, pids, params, prng, cset, cval, kn, res,
                ev, nev, tr, err):
    """B9-B11 after a hand: the Bid-Four Challenge from the out player's left, Earned / Bonus /
    Spent / Net per seat into ``res`` (rows: earned, bonus, spent, net, challenged) and the
    running scores (a negative Net counts 0). A void hand (``out < 0``, B14) scores nothing.
    Returns 0, or -2 on an illegal challenge answer."""
    nsets = pub[S.P_NSETS]
    for r in range(5):
        for s in range(4):
            res[r, s] = 0
    if out < 0:
        return 0
    pub[S.P_PHASE] = 1
    for i in range(1, 4):
        s = (out + i) % 4
        pl = pmap[s]
        r = decide_challenge(pids[pl], s, hands[s], nhand[s], cnt[s], pts[s], pub, cset, cval, params[pl],
                             prng[pl])
        if r != 0 and r != 1:
            illegal(err, g, s, pl, S.D_CHALLENGE, r, pub, hands, nhand, cnt)
            return -2
        cost = 0
        if r == 1:
            cost = kn[S.K_CH_COST]
            pub[S.P_SPENT + s] += cost
            pub[S.P_CHAL + s] = 1
        if tr:
            emit(ev, nev, g, S.EV_CHALLENGE, s, r, cost, 0, 0, 0)
    pub[S.P_PHASE] = 0
    for s in range(4):
        res[0, s] = earned(pts[s], nsets)  # B10
    res[1, out] = kn[S.K_OUT_BONUS]  # B8
    for i in range(1, 4):
        s = (out + i) % 4
        if pub[S.P_CHAL + s] == 1:
            bonus = 0
            if res[0, s] > res[0, out]:
                bonus = kn[S.K_CH_WIN]
            elif res[0, s] == res[0, out]:
                bonus = kn[S.K_CH_TIE]
            res[1, s] += bonus
            if tr:
                emit(ev, nev, g, S.EV_RESULT, s, res[0, s], res[0, out], bonus, 0, 0)
    for s in range(4):
        res[2, s] = pub[S.P_SPENT + s]
        net = res[0, s] + res[1, s] - res[2, s]  # B11
        res[3, s] = net
        res[4, s] = pub[S.P_CHAL + s]
        if net > 0:
            pub[S.P_SCORE + s] += net  # B11: a negative Net counts 0
        if tr:
            emit(ev, nev, g, S.EV_SCORE, s, res[0, s], res[1, s], res[2, s], net, pub[S.P_SCORE + s])
    return 0


@njit(_nrt=False)
def hand_and_row(g, key, tgame, handno, handseq, dealer, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids,
                 params, prng, drng, cset, cval, kn, stack, res, hout, ctr, ev, nev, tr, err, debug, seen):
    """Deal, play and score one hand and write its ``hands`` row. Returns the out seat, -1 for a
    hand cut at the turn cap (B14), -2 on an error or a full row buffer (``err[0]`` says which)."""
    row = ctr[1]
    if row >= hout.shape[0]:
        err[0] = S.E_FULL
        return -2
    pub[S.P_HAND] = handno
    pub[S.P_TGAME] = tgame
    deal_hand(g, key, handseq, dealer, pub, hands, nhand, cnt, pts, deck, pile, drng, cset, cval, stack,
              ev, nev, tr)
    if debug and not conserved(pub, hands, nhand, cnt, pts, deck, pile, cset, cval, seen, -1):
        conservation_error(err, g, 0)
        return -2
    out = play_turns(g, key, handseq, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids, params, prng, drng,
                     cset, cval, kn, ev, nev, tr, err, debug, seen)
    if out == -2:
        return -2
    if finish_hand(g, out, pub, hands, nhand, cnt, pts, pmap, pids, params, prng, cset, cval, kn, res,
                   ev, nev, tr, err) < 0:
        return -2
    hout[row, S.H_GAME] = g
    hout[row, S.H_TGAME] = tgame
    hout[row, S.H_HAND] = handno
    hout[row, S.H_DEALER] = dealer
    hout[row, S.H_OUT] = out
    hout[row, S.H_FIRST] = pub[S.P_FIRST]
    hout[row, S.H_FIRST_TURN] = pub[S.P_FIRST_TURN]
    hout[row, S.H_BIDS] = pub[S.P_BIDS]
    hout[row, S.H_TURNS] = pub[S.P_TURNS]
    hout[row, S.H_RESHUF] = pub[S.P_RESHUF]
    for s in range(4):
        hout[row, S.H_EARNED + s] = res[0, s]
        hout[row, S.H_BONUS + s] = res[1, s]
        hout[row, S.H_SPENT + s] = res[2, s]
        hout[row, S.H_NET + s] = res[3, s]
        hout[row, S.H_CHAL + s] = res[4, s]
        hout[row, S.H_IND + s] = pub[S.P_IND + s]
        hout[row, S.H_SCORE + s] = pub[S.P_SCORE + s]
    ctr[1] = row + 1
    return out


@njit(_nrt=False)
def play_game(g, key, tgame, handseq, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids, params, prng, drng,
              cset, cval, kn, stack, res, hout, gout, ctr, gres, ev, nev, tr, err, debug, seen):
    """B13: hands from position A's deal until one player alone leads with the target reached
    (``>=``, or ``>`` with surpass); cut at ``max_hands``. Writes the ``games`` row; ``gres`` gets
    (winner seat or -1, hands played). Returns 0 or -2."""
    if ctr[2] >= gout.shape[0]:
        err[0] = S.E_FULL
        return -2
    for s in range(4):
        pub[S.P_SCORE + s] = 0
    target = kn[S.K_TARGET]
    pub[S.P_TARGET] = target
    dealer = 0  # B13: position A deals the first hand of every game
    h = 0
    voids = 0
    winner = -1
    while h < kn[S.K_MAX_HANDS]:
        out = hand_and_row(g, key, tgame, h, handseq + h, dealer, pub, hands, nhand, cnt, pts, deck, pile, pmap,
                           pids, params, prng, drng, cset, cval, kn, stack, res, hout, ctr, ev, nev, tr, err,
                           debug, seen)
        if out == -2:
            return -2
        if out == -1:
            voids += 1
        h += 1
        top = pub[S.P_SCORE]
        lead = 0
        for s in range(1, 4):
            if pub[S.P_SCORE + s] > top:
                top = pub[S.P_SCORE + s]
                lead = s
        ntop = 0
        for s in range(4):
            if pub[S.P_SCORE + s] == top:
                ntop += 1
        reached = top > target if kn[S.K_SURPASS] == 1 else top >= target
        if ntop == 1 and reached:
            winner = lead
            break
        dealer = (dealer + 1) % 4  # B2: the deal moves left (also after a void hand, B14)
    row = ctr[2]
    gout[row, S.G_GAME] = g
    gout[row, S.G_TGAME] = tgame
    gout[row, S.G_WINNER] = winner
    gout[row, S.G_WPLAYER] = pmap[winner] if winner >= 0 else -1
    gout[row, S.G_HANDS] = h
    gout[row, S.G_VOID] = voids
    gout[row, S.G_FINISHED] = 1 if winner >= 0 else 0
    for s in range(4):
        gout[row, S.G_FINAL + s] = pub[S.P_SCORE + s]
        gout[row, S.G_PLAYER + s] = pmap[s]
        gout[row, S.G_FINAL_P + pmap[s]] = pub[S.P_SCORE + s]
    ctr[2] = row + 1
    gres[0] = winner
    gres[1] = h
    if tr:
        emit(ev, nev, g, S.EV_GAME, winner, pmap[winner] if winner >= 0 else -1, h, tgame,
             1 if winner >= 0 else 0, 0)
    return 0


@njit(_nrt=False)
def play_tournament(g, key, posmap, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids, params, prng, drng,
                    cset, cval, kn, stack, res, hout, gout, tout, ctr, gres, wins, ev, nev, tr, err, debug, seen):
    """B13 tournament: games until a player has won ``wins`` of them (cut at ``max_games``); each
    game re-seats the players by the Player Position Map row (game mod 12). Returns 0 or -2."""
    if ctr[3] >= tout.shape[0]:
        err[0] = S.E_FULL
        return -2
    for p in range(4):
        wins[p] = 0
    champion = -1
    hs = 0
    tg = 0
    while tg < kn[S.K_MAX_GAMES]:
        row = tg % posmap.shape[0]
        for j in range(4):
            pmap[j] = posmap[row, j]
        if tr:
            emit(ev, nev, g, S.EV_SEATING, -1, pmap[0], pmap[1], pmap[2], pmap[3], tg)
        if play_game(g, key, tg, hs, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids, params, prng, drng,
                     cset, cval, kn, stack, res, hout, gout, ctr, gres, ev, nev, tr, err, debug, seen) < 0:
            return -2
        hs += gres[1]
        tg += 1
        w = gres[0]
        if w >= 0:
            wp = pmap[w]
            wins[wp] += 1
            if wins[wp] >= kn[S.K_WINS]:
                champion = wp
                break
    row = ctr[3]
    tout[row, S.T_GAME] = g
    tout[row, S.T_WINNER] = champion
    tout[row, S.T_GAMES] = tg
    tout[row, S.T_HANDS] = hs
    tout[row, S.T_FINISHED] = 1 if champion >= 0 else 0
    for p in range(4):
        tout[row, S.T_WINS + p] = wins[p]
    ctr[3] = row + 1
    if tr:
        emit(ev, nev, g, S.EV_TOURNAMENT, champion, tg, hs, 0, 0, 0)
    return 0


@njit
def run_chunk(key, start, count, pids, params, kn, cset, cval, nsets, posmap, stack, debug, tr, ev, nev,
              hout, gout, tout, ctr, err):
    """Play units ``start + ctr[0] .. start + count - 1`` (a unit is a hand, a game or a tournament,
    by ``kn[K_VARIANT]``), appending rows to ``hout`` (int32[cap, NH]), ``gout`` (int32[cap, NG]) and
    ``tout`` (int32[cap, NT]) at ``ctr[1..3]``. Returns when done, on an error, or when a buffer is
    full (``err[0] == E_FULL``; ``ctr`` then points at the unfinished unit, so the caller grows the
    buffers and calls again)."""
    ncards = cset.shape[0]
    hands = np.zeros((4, WIDTH), np.int64)
    nhand = np.zeros(4, np.int64)
    cnt = np.zeros((4, nsets + 1), np.int64)
    pts = np.zeros((4, nsets + 1), np.int64)
    deck = np.zeros(ncards, np.int64)
    pile = np.zeros(ncards, np.int64)
    pub = np.zeros(S.NPUB, np.int64)
    prng = np.zeros((4, 1), np.uint64)
    drng = np.zeros(1, np.uint64)
    res = np.zeros((5, 4), np.int64)
    seen = np.zeros(ncards, np.int64)
    pmap = np.arange(4)
    wins = np.zeros(4, np.int64)
    gres = np.zeros(2, np.int64)
    variant = kn[S.K_VARIANT]
    u = ctr[0]
    while u < count:
        g = start + u
        h0 = ctr[1]
        g0 = ctr[2]
        t0 = ctr[3]
        e0 = nev[0]
        for p in range(4):
            seed_stream(prng[p], key, g, POLICY, p)
            pmap[p] = p
        for i in range(S.NPUB):
            pub[i] = 0
        pub[S.P_NSETS] = nsets
        pub[S.P_RULE1] = kn[S.K_RULE1]
        if variant == S.V_HAND:
            dealer = g % 4 if kn[S.K_ROTATE] == 1 else 0
            rc = hand_and_row(g, key, 0, 0, 0, dealer, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids,
                              params, prng, drng, cset, cval, kn, stack, res, hout, ctr, ev, nev, tr, err,
                              debug, seen)
            rc = -2 if rc == -2 else 0
        elif variant == S.V_GAME:
            rc = play_game(g, key, 0, 0, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids, params, prng, drng,
                           cset, cval, kn, stack, res, hout, gout, ctr, gres, ev, nev, tr, err, debug, seen)
        else:
            rc = play_tournament(g, key, posmap, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids, params,
                                 prng, drng, cset, cval, kn, stack, res, hout, gout, tout, ctr, gres, wins,
                                 ev, nev, tr, err, debug, seen)
        if rc < 0:
            if err[0] == S.E_FULL:  # the caller grows the buffers and replays this unit
                ctr[1] = h0
                ctr[2] = g0
                ctr[3] = t0
                nev[0] = e0
            return
        u += 1
        ctr[0] = u


@njit
def play_state(key, g, pids, params, kn, cset, cval, pub, hands, nhand, deck, pile, debug, ev, nev, err, res):
    """Play a constructed hand state to its end (tests and examples): ``pub``, ``hands``/``nhand``,
    ``deck``/``pile`` as the caller set them (``pub[P_NDECK]``, ``pub[P_NPILE]``, ``pub[P_TOP]``
    included). Runs the challenge and scoring into ``res`` and returns the out seat, -1 when cut
    at the turn cap, or -2 on an error."""
    nsets = pub[S.P_NSETS]
    ncards = cset.shape[0]
    cnt = np.zeros((4, nsets + 1), np.int64)
    pts = np.zeros((4, nsets + 1), np.int64)
    recount(hands, nhand, cnt, pts, cset, cval, nsets)
    prng = np.zeros((4, 1), np.uint64)
    for p in range(4):
        seed_stream(prng[p], key, g, POLICY, p)
    drng = np.zeros(1, np.uint64)
    seen = np.zeros(ncards, np.int64)
    pmap = np.arange(4)
    tr = ev.shape[0] > 0
    if debug and not conserved(pub, hands, nhand, cnt, pts, deck, pile, cset, cval, seen, -1):
        conservation_error(err, g, 0)
        return -2
    out = play_turns(g, key, 0, pub, hands, nhand, cnt, pts, deck, pile, pmap, pids, params, prng, drng, cset,
                     cval, kn, ev, nev, tr, err, debug, seen)
    if out == -2:
        return -2
    if finish_hand(g, out, pub, hands, nhand, cnt, pts, pmap, pids, params, prng, cset, cval, kn, res,
                   ev, nev, tr, err) < 0:
        return -2
    return out
