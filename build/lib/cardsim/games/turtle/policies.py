"""Bad, Bad, Turtle built-in policies and their dispatchers (docs/rules, "Reference policies").

The turn itself (T4) leaves no choice; the cards do. Decision points (also
the plug-in interface, see ``cardsim games turtle``), each
``f(seat, obs, legal, params, rng) -> int64 action``:

- ``pick``: Pick a Player; the action is the seat that gets the next turn.
- ``respond``: after an action card is revealed (and after each held card
  played on it), a seat holding Never Happened, No Way or Shield may play
  one (T8): ``PASS`` 0, ``NH_CARD`` 1 (Never Happened overrules the card),
  ``NH_HELD`` 2 (Never Happened overrules the No Way or Shield last played
  on it), ``NO_WAY_PLAY`` 3 (No Way: the card goes to its player's discard
  pile), ``SHIELD_BASE + t`` (Shield forces the card onto seat ``t``).
- ``perform``: a performance card asks this seat to perform (T7) and it is
  able to (probability knob ``p_perform``); ``PERFORM`` 1 or ``SKIP_TURN`` 0.

``obs`` (int64[OBS_LEN]) is what the seat may see, laid out by the
``OBS_*`` constants of :mod:`cardsim.games.turtle.cards`: public counts per
seat, held cards (they lie face up), which action cards are still
unrevealed, and its own stack top-first only as far as a Peek lets it know.
``legal`` (int64[16]) is 1 at each legal action. ``rng`` is the seat's own
stream (``cardsim.rng``), ``params`` its parameter vector.
"""

from __future__ import annotations

from cardsim.games.base import COUNT, FLAG, PolicySpec
from cardsim.games.turtle.cards import (
    ACTION_BASE,
    ELIMINATED,
    LEGAL_LEN,
    NH_CARD,
    NH_HELD,
    NO_WAY,
    NO_WAY_PLAY,
    OBS_ALIVE,
    OBS_CARD,
    OBS_GECKO_LIVE,
    OBS_KNOWN,
    OBS_LAST,
    OBS_NEXT,
    OBS_PLAYERS,
    OBS_SEAT,
    OBS_SEAT_W,
    OBS_SEATS,
    OBS_STACK,
    OBS_STATUS,
    OBS_VICTIM,
    PASS,
    PERFORM,
    RESTART_GAME,
    SEAT_ALIVE,
    SEAT_HELD,
    SEAT_STACK,
    SHIELD,
    SHIELD_BASE,
    SHUFFLE,
    SKIP_TURN,
    STACK_SWAP_LEFT,
    STACK_SWAP_RIGHT,
    TURTLE,
)
from cardsim.jit import njit
from cardsim.rng import randint

kjit = njit(_nrt=False)  # nothing here allocates; see rules.py
ijit = njit(_nrt=False, inline="always")  # the dispatchers: inlined where the kernel asks (no array passing)

RANDOM, EAGER, CUNNING = 0, 1, 2
TURTLE_CARD = ACTION_BASE + TURTLE
GECKO_CARD = ACTION_BASE + ELIMINATED

POLICIES = (
    PolicySpec("random", RANDOM, "uniform over the legal actions at every decision (held cards included)"),
    PolicySpec(
        "eager", EAGER,
        "reference policy (docs/rules): Pick a Player and Shield's target go to the next player still in the game; "
        "Never Happened overrules an Eliminated about to hit the holder, else Shield forces it onto the next "
        "player; No Way discards a Turtle revealed by another player; always performs",
    ),
    PolicySpec(
        "cunning", CUNNING,
        "parametric: No Way stops any other player's Turtle; an Eliminated about to hit it is answered with "
        "Shield first when shield_first = 1 (onto a No Way holder when target_threat = 1), else Never "
        "Happened, else No Way when no_way_self = 1; counter = 1 overrules with Never Happened a No Way on its "
        "Turtle or a Shield that pushed the gecko onto it; Pick a Player picks itself while at least "
        "pick_self_players remain or the gecko is gone; use_peek = 1 uses a Peek: picks itself onto a known "
        "Turtle, skips a performance over a known gecko, and guards a known Turtle against Shuffle, Restart "
        "and stack swaps with Never Happened",
        (("shield_first", 1.0), ("target_threat", 1.0), ("no_way_self", 1.0), ("counter", 1.0),
         ("pick_self_players", 3.0), ("use_peek", 1.0)),
        # switches read as on when > 0.5; pick_self_players counts players still in the game
        (("shield_first", FLAG), ("target_threat", FLAG), ("no_way_self", FLAG), ("counter", FLAG),
         ("pick_self_players", COUNT), ("use_peek", FLAG)),
    ),
)


# -- helpers ------------------------------------------------------------------------
@kjit
def random_legal(legal, rng):
    """A uniformly random legal action (``legal`` has at least one 1)."""
    n = 0
    for i in range(LEGAL_LEN):
        n += legal[i]
    k = randint(rng, n)
    for i in range(LEGAL_LEN):
        if legal[i] == 1:
            if k == 0:
                return i
            k -= 1
    return 0


@kjit
def seat_held(obs, s):
    """Held-card bits of seat ``s`` (bit 0 Never Happened, 1 No Way, 2 Shield)."""
    return obs[OBS_SEATS + OBS_SEAT_W * s + SEAT_HELD]


@kjit
def known_reveal(obs):
    """The card the deciding seat will reveal on a plain turn (T4: the third from the top, or the
    last of a short stack), if a Peek lets it know; else -1."""
    seat = obs[OBS_SEAT]
    n = obs[OBS_SEATS + OBS_SEAT_W * seat + SEAT_STACK]
    if n <= 0:
        return -1
    r = 2 if n > 2 else n - 1
    if obs[OBS_KNOWN] > r:
        return obs[OBS_STACK + r]
    return -1


@kjit
def threat_target(obs, seat):
    """Another seat still in the game holding No Way (then Never Happened), else the next player."""
    p = obs[OBS_PLAYERS]
    for bit in (2, 1):
        for s in range(p):
            if s != seat and obs[OBS_SEATS + OBS_SEAT_W * s + SEAT_ALIVE] == 1 and seat_held(obs, s) & bit:
                return s
    return obs[OBS_NEXT]


# -- eager (the rules reference) ------------------------------------------------------------------
@kjit
def eager_respond(seat, obs, legal):
    """Reads ``obs[OBS_CARD]``, ``obs[OBS_VICTIM]`` and ``obs[OBS_NEXT]`` only: the kernel fills no
    more of ``obs`` for an eager seat (``rules.lean``), so a change here that reads more must change
    that too."""
    card = obs[OBS_CARD]
    victim = obs[OBS_VICTIM]
    if card == ELIMINATED and victim == seat:
        if legal[NH_CARD] == 1:
            return NH_CARD
        t = obs[OBS_NEXT]
        if legal[SHIELD_BASE + t] == 1:
            return SHIELD_BASE + t
    if card == TURTLE and victim != seat and legal[NO_WAY_PLAY] == 1:
        return NO_WAY_PLAY
    return PASS


# -- cunning ---------------------------------------------------------------------------
@kjit
def cunning_respond(seat, obs, legal, params):
    card = obs[OBS_CARD]
    victim = obs[OBS_VICTIM]
    status = obs[OBS_STATUS]
    last = obs[OBS_LAST]
    if card == TURTLE:
        if victim != seat and legal[NO_WAY_PLAY] == 1:
            return NO_WAY_PLAY
        if victim == seat and status == 2 and last == NO_WAY and params[3] > 0.5 and legal[NH_HELD] == 1:
            return NH_HELD
        return PASS
    if card == ELIMINATED and victim == seat and status == 0:
        if params[3] > 0.5 and last == SHIELD and legal[NH_HELD] == 1:
            return NH_HELD  # the gecko goes back to the seat it was pushed from
        t = threat_target(obs, seat) if params[1] > 0.5 else obs[OBS_NEXT]
        if params[0] > 0.5 and legal[SHIELD_BASE + t] == 1:
            return SHIELD_BASE + t
        if legal[NH_CARD] == 1:
            return NH_CARD
        if legal[SHIELD_BASE + t] == 1:
            return SHIELD_BASE + t
        if params[2] > 0.5 and legal[NO_WAY_PLAY] == 1:
            return NO_WAY_PLAY
        return PASS
    if params[5] > 0.5 and status == 0 and legal[NH_CARD] == 1 and known_reveal(obs) == TURTLE_CARD:
        if card == SHUFFLE or card == RESTART_GAME or card == STACK_SWAP_LEFT or card == STACK_SWAP_RIGHT:
            return NH_CARD
    return PASS


@kjit
def cunning_pick(seat, obs, legal, params):
    nxt = obs[OBS_NEXT]
    if params[5] > 0.5:
        c = known_reveal(obs)
        if c == TURTLE_CARD and legal[seat] == 1:
            return seat
        if c == GECKO_CARD and legal[nxt] == 1:
            return nxt
    if legal[seat] == 1 and (obs[OBS_GECKO_LIVE] == 0 or obs[OBS_ALIVE] >= params[4]):
        return seat
    return nxt


@kjit
def cunning_perform(obs, params):
    if params[5] > 0.5 and known_reveal(obs) == GECKO_CARD:
        return SKIP_TURN
    return PERFORM


# -- dispatchers (one per decision point) ---------------------------------------------------
@ijit
def decide_pick(pid, seat, obs, legal, params, rng):
    if pid == EAGER:
        return obs[OBS_NEXT]
    if pid == CUNNING:
        return cunning_pick(seat, obs, legal, params)
    return random_legal(legal, rng)


@ijit
def decide_respond(pid, seat, obs, legal, params, rng):
    if pid == EAGER:
        return eager_respond(seat, obs, legal)
    if pid == CUNNING:
        return cunning_respond(seat, obs, legal, params)
    return random_legal(legal, rng)


@ijit
def decide_perform(pid, seat, obs, legal, params, rng):
    if pid == EAGER:
        return PERFORM
    if pid == CUNNING:
        return cunning_perform(obs, params)
    return random_legal(legal, rng)
