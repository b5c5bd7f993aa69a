"""The bench baseline (``Game.minimal_chunk``): shuffle, deal and resolve hands with no policy calls.

Each hand is shuffled and dealt as in the full kernel (B2) and then resolved
by the same rule mechanics with hard-wired answers instead of decisions:
once an Indicator is down every turn opens with the forced bid of 1 and
everyone else passes (B4), so the opener completes the turn and pays
1 x its Indicator (B5); the turn's player draws the top of the deck (B12
reshuffle included), plays the next Indicator while holding 4+ of a set
(wilds count; the 4 only then, B8; the first costs 4, B6; B7 forces
Indicator 1), and otherwise discards its lowest card of its smallest set.
The 4 ends the hand (+24); Earned, Spent and Net are counted (B10, B11).
The turn cap cuts a hand (B14). No policy calls, no validation, no trace,
no debug checks, no tables. Hands are about as long as collector hands,
so both hands/s and turns/s compare with the full kernel.
"""

from __future__ import annotations

import numpy as np

from cardsim.games.fourbid.cards import DEALT, WIDTH
from cardsim.jit import njit
from cardsim.rng import DEAL, seed_stream, shuffle

RESHUFFLE = 11


@njit
def minimal(key, start, count, cset, cval, nsets, turn_cap, out):
    """Play ``count`` hands; ``out`` (int64[2]) gets (hands, turns). Returns the sum of Net Points."""
    ncards = cset.shape[0]
    hands = np.zeros((4, WIDTH), np.int64)
    nhand = np.zeros(4, np.int64)
    cnt = np.zeros((4, nsets + 1), np.int64)
    ind = np.zeros(4, np.int64)
    spent = np.zeros(4, np.int64)
    deck = np.zeros(ncards, np.int64)
    pile = np.zeros(ncards, np.int64)
    rng = np.zeros(1, np.uint64)
    total = 0
    turns = 0
    for u in range(count):
        g = start + u
        for i in range(ncards):
            deck[i] = i
        seed_stream(rng, key, g, DEAL, 0)
        shuffle(rng, deck, ncards)
        nd = ncards
        npile = 0
        for s in range(4):
            nhand[s] = 0
            ind[s] = 0
            spent[s] = 0
            for k in range(nsets + 1):
                cnt[s, k] = 0
        dealer = g % 4
        for i in range(4 * DEALT):
            s = (dealer + 1 + i) % 4
            nd -= 1
            c = deck[nd]
            hands[s, nhand[s]] = c
            nhand[s] += 1
            cnt[s, cset[c] if cset[c] >= 0 else nsets] += 1
        last = dealer
        anyind = False
        two = False
        out_seat = -1
        t = 0
        nr = 0
        while t < turn_cap:
            p = (last + 1) % 4
            if anyind:
                spent[p] += ind[p]  # forced opening 1, all others pass
            nd -= 1
            c = deck[nd]
            hands[p, nhand[p]] = c
            nhand[p] += 1
            cnt[p, cset[c] if cset[c] >= 0 else nsets] += 1
            if nd == 0:
                top = pile[npile - 1]
                for i in range(npile - 1):
                    deck[i] = pile[i]
                seed_stream(rng, key, g, RESHUFFLE, nr)
                nr += 1
                shuffle(rng, deck, npile - 1)
                nd = npile - 1
                pile[0] = top
                npile = 1
            t += 1
            last = p
            best = 0
            small = -1
            for k in range(nsets):
                if cnt[p, k] > cnt[p, best]:
                    best = k
                if cnt[p, k] > 0 and (small < 0 or cnt[p, k] < cnt[p, small]):
                    small = k
            if cnt[p, best] + cnt[p, nsets] >= 4 or (two and ind[p] == 0):
                ind[p] += 1
                if not anyind:
                    spent[p] += 4
                    anyind = True
                if ind[p] == 2:
                    two = True
                if ind[p] == 4:
                    out_seat = p
                    break
                continue
            j = -1
            for i in range(nhand[p]):
                c = hands[p, i]
                if cset[c] == small and (j < 0 or cval[c] < cval[hands[p, j]]):
                    j = i
            c = hands[p, j]
            hands[p, j] = hands[p, nhand[p] - 1]
            nhand[p] -= 1
            cnt[p, small] -= 1
            pile[npile] = c
            npile += 1
        turns += t
        if out_seat < 0:
            continue
        for s in range(4):
            m = 0
            for k in range(nsets):
                v = 0
                for i in range(nhand[s]):
                    if cset[hands[s, i]] == k:
                        v += cval[hands[s, i]]
                if v > m:
                    m = v
            net = m + (24 if s == out_seat else 0) - spent[s]
            total += net if net > 0 else 0
    out[0] = count
    out[1] = turns
    return total
