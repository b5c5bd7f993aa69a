"""FUBNUB built-in policies and their dispatchers (docs/rules, "Reference policies").

Decision points and their arguments (also the plug-in interface, see
``cardsim games fubnub``):

- ``call(hand, pos, point, seat, dealer, rnd, params, rng) -> 1 play / 0 pass``
- ``swap(hand, pos, point, nswaps, params, rng, out) -> None``: write up to
  ``nswaps`` hand indices into ``out`` (``-1`` = no swap); swap ``i`` trades
  ``hand[out[i]]`` for the next undealt card, blind (F7, F10).
- ``card(hand, n, pos, point, trick, tseat, nplayed, winner, seat, partner,
  caller, tricks, params, rng) -> index in hand[:n]`` of the card to play (F8).

Decisions of Full Deck (F15), optional for a plug-in (one that leaves them
out steals, picks and keeps by the greedy rule and plays Peek hands with its
own ``card`` decision):

- ``steal(points, seat, nplayers, params, rng) -> seat or -1``: Full Deck
  Never Happened / No Way / Shield: the player to steal an earned point
  card from (one with ``points > 0``, not ``seat``), or -1 not to steal.
- ``pick(points, seat, nplayers, params, rng) -> seat``: Full Deck Pick a
  Player: the other player who gets the dealer advantage this hand.
- ``keep(hand, pos, point, params, rng) -> index 0-4``: Full Deck Do Over:
  the one card kept; the other four are replaced by the undealt cards.
- ``peek(hand, n, pos, point, trick, tseat, nplayed, winner, seat, hands,
  nh, tricks, params, rng) -> index in hand[:n]``: the card decision of
  a player who revealed Peek (Full Deck): ``hands[s, :nh[s]]`` are every
  seat's cards, which that player has seen.
- ``swap`` also answers the Full Deck Eliminated pick (``nswaps = 1``):
  the card to give the dealer for a blind card from the dealer's hand.

``points`` holds each seat's earned point cards (``nplayers`` seats at the
table; ghosts are seats too). ``hand`` holds card codes (``cards.py``); ``pos[c]`` is card ``c``'s
position under this hand's point card (0 = highest, F3), so "top k" is
``pos[c] < k``. The kernel hands every decision the seat's own cards **ordered highest
first** under that ranking (``pos[hand[0]] < pos[hand[1]] < ...``): ``hand[0]`` is the
highest card, ``hand[n - 1]`` the lowest, and "k of the top t" is ``pos[hand[k - 1]] < t``.
The built-in policies rely on it, which makes their hot decisions O(1); ``hands`` in
``peek`` (the other seats' cards) comes in no particular order. ``trick``/``tseat`` hold the ``nplayed`` cards played so
far in this trick and their seats, ``winner`` indexes the card winning it
so far (-1 before the lead); ``partner`` is the partner's seat
(-1 in individual play); ``tricks`` the tricks won per seat this hand.
``rng`` is the seat's own stream (``cardsim.rng``), ``params`` its vector.
"""

from __future__ import annotations

import numpy as np

from cardsim.games.base import COUNT, FLAG, PolicySpec
from cardsim.jit import njit
from cardsim.rng import randint, uniform

RANDOM, GREEDY, PARTNER, TACTICIAN = 0, 1, 2, 3

POLICIES = (
    PolicySpec("random", RANDOM, "uniform over the legal actions at every decision"),
    PolicySpec(
        "greedy", GREEDY,
        "reference policy (docs/rules): play with 2+ of the top 8; dealer swaps the lowest card(s) not in the "
        "top 12; always plays its highest card. Modes: steals from the player with most point cards, "
        "picks the player with fewest, keeps its highest card on Do Over",
    ),
    PolicySpec(
        "partner", PARTNER,
        "reference policy (docs/rules): as greedy, but plays its lowest card when the partner is winning the "
        "trick or when no card in hand beats the winning card (modes: as greedy)",
    ),
    PolicySpec(
        "tactician", TACTICIAN,
        "parametric: calls with call_need of the top call_top (round2_need in the second round), "
        "swaps cards outside the top swap_top, ducks under a partner whose winning card is in the "
        "top trust_pos (or when playing last), and wins a trick with its cheapest winning card "
        "when cheap = 1; with Peek plays its cheapest sure winner, else its lowest card",
        (("call_top", 8.0), ("call_need", 2.0), ("round2_need", 2.0), ("swap_top", 12.0),
         ("trust_pos", 6.0), ("cheap", 1.0)),
        # positions in the card ranking and counts of cards in hand; cheap is read as on when > 0.5
        (("call_top", COUNT), ("call_need", COUNT), ("round2_need", COUNT), ("swap_top", COUNT),
         ("trust_pos", COUNT), ("cheap", FLAG)),
    ),
)


# -- helpers (``hand`` is ordered highest first, see above) ----------------------------------
@njit(_nrt=False, inline="always")
def count_top(hand, n, pos, k):
    """How many of ``hand[:n]`` are in the top ``k`` cards of the hand's ranking."""
    m = 0
    for i in range(n):
        m += pos[hand[i]] < k
    return m


@njit(_nrt=False, inline="always")
def cheapest_winner(hand, n, pos, target_pos):
    """Index of the lowest card beating a card at ``target_pos`` (-1 if none): the cards
    beating it are a prefix of the ordered hand, and this is its last."""
    i = -1
    while i + 1 < n and pos[hand[i + 1]] < target_pos:
        i += 1
    return i


@njit(_nrt=False, inline="always")
def swap_lowest(hand, pos, nswaps, top, out):
    """Greedy swap (reference greedy): the lowest (index 4), then the second lowest card
    (index 3) of the dealt hand, each swapped when it is not in the top ``top``."""
    out[0] = -1
    out[1] = -1
    if pos[hand[4]] >= top:
        out[0] = 4
        if nswaps > 1 and pos[hand[3]] >= top:
            out[1] = 3


@njit(_nrt=False, inline="always")
def partner_card(hand, n, pos, tseat, winner, partner, wpos):
    """The reference partner: the lowest card when the partner is winning the trick or when
    no card in hand beats the winning card (at position ``wpos``, 99 before the lead); otherwise
    the highest. Without a partner (individual play) it is branch-free: the choice is then noise
    to a branch predictor (a Battle Royal hand 242 -> 223 ns), and the card code indexes ``pos``
    unsigned (no negative-index wrap-around); in team play the branch is faster."""
    if partner < 0:
        return (n - 1) * np.int64(pos[np.uint64(hand[0])] > wpos)
    if winner >= 0 and (tseat[winner] == partner or pos[hand[0]] > wpos):
        return n - 1
    return 0


# -- random -------------------------------------------------------------------
@njit(_nrt=False, inline="always")
def random_call(rng):
    return 1 if uniform(rng) < 0.5 else 0


@njit(_nrt=False, inline="always")
def random_swap(nswaps, rng, out):
    out[0] = -1
    out[1] = -1
    for i in range(nswaps):
        out[i] = randint(rng, 6) - 1  # no swap, or any of the 5 cards


# -- tactician ------------------------------------------------------------------
@njit(_nrt=False, inline="always")
def tactician_card(hand, n, pos, trick, tseat, nplayed, w, partner, params):
    if nplayed == 0:
        return 0
    wpos = pos[trick[w]]
    last = nplayed == 3
    if partner >= 0 and tseat[w] == partner and (last or wpos < params[4]):
        return n - 1
    beat = cheapest_winner(hand, n, pos, wpos)
    if beat < 0:
        return n - 1
    if params[5] > 0.5:
        return beat
    return 0


# -- dispatchers (one per decision point) -----------------------------------------
@njit(_nrt=False, inline="always")
def decide_call(pid, hand, pos, point, seat, dealer, rnd, params, rng):
    if pid == GREEDY or pid == PARTNER:
        return 1 if pos[hand[1]] < 8 else 0  # 2+ of the top 8
    if pid == TACTICIAN:
        need = params[1] if rnd == 1 else params[2]
        return 1 if count_top(hand, 5, pos, params[0]) >= need else 0
    return random_call(rng)


@njit(_nrt=False, inline="always")
def decide_swap(pid, hand, pos, point, nswaps, params, rng, out):
    if pid == GREEDY or pid == PARTNER:
        swap_lowest(hand, pos, nswaps, 12, out)
    elif pid == TACTICIAN:
        swap_lowest(hand, pos, nswaps, params[3], out)
    else:
        random_swap(nswaps, rng, out)


@njit(_nrt=False, inline="always")
def decide_card(pid, hand, n, pos, point, trick, tseat, nplayed, winner, seat, partner, caller, tricks, params, rng,
                wpos):
    if pid == GREEDY:
        return 0
    if pid == PARTNER:
        return partner_card(hand, n, pos, tseat, winner, partner, wpos)
    if pid == TACTICIAN:
        return tactician_card(hand, n, pos, trick, tseat, nplayed, winner, partner, params)
    return randint(rng, n)


@njit(_nrt=False, inline="always")
def card_reads_trick(pid):
    """Whether the ``card`` decision of policy ``pid`` in individual play (no partner) reads the
    trick's cards and seats: only ``tactician``'s, and any plug-in's (a mixed table, ANY, too).
    The kernel compiled for one of the others skips recording them (two stores a play)."""
    return not (pid == RANDOM or pid == GREEDY or pid == PARTNER)


# -- the modes' decisions (Full Deck, F15; at most once a hand: not inlined, to keep compiles short)
@njit(_nrt=False)
def leader_seat(points, seat, nplayers, most):
    """The other seat with the most (``most``) or fewest point cards, ties to the nearest on
    ``seat``'s left; with ``most`` only seats holding a card count (-1 if none)."""
    best = -1
    bp = 0
    for i in range(1, nplayers):
        s = seat + i
        if s >= nplayers:
            s -= nplayers
        p = points[s]
        if most:
            if p > 0 and (best < 0 or p > bp):
                best = s
                bp = p
        elif best < 0 or p < bp:
            best = s
            bp = p
    return best


@njit(_nrt=False)
def decide_steal(pid, points, seat, nplayers, params, rng):
    if pid == RANDOM:
        # uniform over "no steal" and every other player holding a point card
        m = 0
        for s in range(nplayers):
            if s != seat and points[s] > 0:
                m += 1
        r = randint(rng, m + 1)
        if r == m:
            return -1
        for s in range(nplayers):
            if s != seat and points[s] > 0:
                if r == 0:
                    return s
                r -= 1
        return -1
    return leader_seat(points, seat, nplayers, True)


@njit(_nrt=False)
def decide_pick(pid, points, seat, nplayers, params, rng):
    if pid == RANDOM:
        r = randint(rng, nplayers - 1)
        return r + 1 if r >= seat else r
    return leader_seat(points, seat, nplayers, False)


@njit(_nrt=False)
def decide_keep(pid, hand, pos, point, params, rng):
    if pid == RANDOM:
        return randint(rng, 5)
    return 0  # the highest card


@njit(_nrt=False)
def tactician_peek(hand, n, pos, trick, tseat, nplayed, winner, seat, hands, nh):
    """Full information (Peek): the cheapest card beating the winning card and every card of
    the players still to play; the lowest card when none does."""
    target = pos[trick[winner]] if winner >= 0 else 99
    for s in range(hands.shape[0]):
        if s == seat:
            continue
        done = False
        for i in range(nplayed):
            done = done or tseat[i] == s
        if done:
            continue
        for j in range(nh[s]):
            p = pos[hands[s, j]]
            if p < target:
                target = p
    beat = cheapest_winner(hand, n, pos, target)
    return n - 1 if beat < 0 else beat


@njit(_nrt=False)
def decide_peek(pid, hand, n, pos, point, trick, tseat, nplayed, winner, seat, hands, nh, tricks, params, rng):
    if pid == GREEDY:
        return 0
    if pid == PARTNER:
        return partner_card(hand, n, pos, tseat, winner, -1, pos[trick[winner]] if winner >= 0 else 99)
    if pid == TACTICIAN:
        return tactician_peek(hand, n, pos, trick, tseat, nplayed, winner, seat, hands, nh)
    return randint(rng, n)
