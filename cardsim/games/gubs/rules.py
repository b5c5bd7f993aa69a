"""The Gubs kernel: whole games, turn by turn (G1-G5, docs/rules/gubs.md).

This is the game's kernel module: every jitted function that asks a policy (through
the ``decide_*`` dispatchers) lives here, so :func:`cardsim.policies.kernel_namespace`
can rebuild it for plug-in policies. The card effects and the set-up, which ask
nobody, are in ``engine.py``.

Seats sit clockwise in turn order: seat 0 starts (the sheet lets whoever suggested the
game choose), the next player and "the player on the left" of seat ``s`` is ``s + 1``.

Function arguments come in bundles (tuples of arrays):

- ``sb`` = (pub, hand, deck, priv, st): the game state (``engine.py``);
- ``rb`` = (kn, cnt): knob codes (int32[NKNOB]) and copies per card (int32[NK]);
- ``pb`` = (pids, params, prng, erng): per-seat policy ids, parameter rows, policy streams
  (uint64[6, 1]) and the effect stream (uint64[1]) for random placements in the deck;
- ``wb`` = (acts, reps, opts, ann, tmp, tmp2, keep, redraw): scratch buffers;
- ``ob`` = (ctl, ev, evn, err): game index and flags, the trace buffer and the error report.
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from cardsim.games.gubs.cards import (
    ACT_W,
    ALCHEMY,
    ANN_W,
    BLINDFOLD,
    CRICKET,
    CTX_EVENT,
    CTX_PLAGUE,
    CTX_PLAY,
    CURE,
    DECK_MAX,
    ELDER,
    EV_ANSWER,
    EV_ASK,
    EV_CANCEL,
    EV_DISCARD,
    EV_DRAW,
    EV_END,
    EV_EVENT,
    EV_FLOP,
    EV_KEEP,
    EV_LETTER,
    EV_PASS,
    EV_PLAY,
    EV_SAVE,
    EV_SCORE,
    EV_SKIP,
    EV_TO_DISCARD,
    EV_TURN,
    FEATHER,
    FLOOD,
    FLOPBOAT,
    FROM_PEND,
    G_DECK,
    G_ELDER,
    G_EVENTS,
    G_FINISHED,
    G_FLOPPED,
    G_HAND,
    G_INTERRUPTS,
    G_PLAYCAPS,
    G_SCORE,
    G_SKIPS,
    G_TB,
    G_TURNS,
    G_WINNER,
    G_WINNERS,
    GUB,
    HMASK,
    K_HAND_LIMIT,
    K_MAX_PLAYS,
    K_MAX_TURNS,
    LETTER_G,
    LURE,
    MAX_ACTS,
    MAX_GUBS,
    MAXS,
    MERCHANT,
    NK,
    OP_AS,
    OP_GUB,
    OP_RING,
    OP_STOP,
    OP_WINDOW,
    P_ASIDE,
    P_CUR,
    P_DECKN,
    P_DISC,
    P_ELDER,
    P_FLOPPED,
    P_HANDN,
    P_LETTERS,
    P_NP,
    P_OVER,
    P_SCORE,
    P_SIZE,
    P_SKIP,
    P_TURN,
    PICK_DISCARD,
    PICK_KEEP,
    PLAGUE,
    SUPERLURE,
    TB_UNFINISHED,
    V_DECK_VER,
    V_EVENTS,
    V_INTERRUPTS,
    V_PEND,
    V_PLAYCAPS,
    V_SCOUT_N,
    V_SCOUT_VER,
    V_SIZE,
    V_SKIPS,
    WASPS,
)
from cardsim.games.gubs.engine import (
    C_DEBUG,
    C_GAME,
    C_TRACE,
    D_DRAW,
    D_PICK,
    D_PLAY,
    D_RESPOND,
    E_POLICY,
    U,
    add,
    alchemy,
    check,
    deck_insert_random,
    draw_top,
    emit,
    final_result,
    flash_flood,
    hand_add,
    hand_mask,
    hand_take,
    is_event,
    legal_plays,
    merchant_apply,
    plague_apply,
    play_count,
    play_row,
    refresh,
    resolve,
    seat_at,
    setup_game,
    target_slot,
    wasps,
)
from cardsim.games.gubs.policies import (
    RANDOM,
    SIMPLE,
    STRONG,
    decide_draw,
    decide_pick,
    decide_play,
    decide_respond,
    leader,
    random_peek,
    random_take,
    simple_choose,
)
from cardsim.jit import DISABLED, njit
from cardsim.rng import DEAL, EFFECT, POLICY, seed_stream

#: ``one`` for a table that mixes policies or plays a plug-in: each decision dispatches on its seat's id
ANY = -1


@njit(_nrt=False, inline="always")
def pid_of(pids, s, one):
    """Seat ``s``'s dispatch id: ``one``, the built-in policy every seat plays (a literal the
    kernel is compiled for, see :func:`lean`), or with ANY ``pids[s]``."""
    return pids[s] if one == ANY else one


@njit(_nrt=False)
def fail(ob, seat, decision, value, nopts):
    """Report an illegal policy answer (the wrapper raises PolicyError from ``err``)."""
    ctl, err = ob[0], ob[3]
    err[0] = ctl[C_GAME]
    err[1] = seat
    err[2] = decision
    err[3] = value
    err[4] = E_POLICY
    err[5] = nopts
    raise ValueError("illegal Gubs policy action (see err)")


@njit(_nrt=False)
def ask(r, card, ctx, a, shown, ann, opts, nopt, pids, params, prng, pub, hand, st, ob, ctl, ev, evn, one):
    """G4: offer seat ``r`` the answers ``opts[1:nopt]`` (``opts[0]`` passes) to ``card``; the
    chosen card leaves its hand for the discard pile. Returns that card, or -1 for a pass."""
    emit(ctl, ev, evn, EV_ASK, r, card, ctx, a, shown, 0)
    j = decide_respond(pid_of(pids, r, one), r, ann, opts, nopt, pub, hand[r], params[r], prng[r])
    if j < 0 or j >= nopt:
        fail(ob, r, D_RESPOND, j, nopt)
    if j == 0:
        emit(ctl, ev, evn, EV_PASS, r, card, ctx, 0, 0, 0)
        return -1
    c = opts[j]
    hand_take(pub, hand, r, c)
    pub[U(P_DISC + c)] += 1
    st[U(r), U(c), 1] += 1
    return c


@njit(_nrt=False, inline="always")
def held_kinds(hand, s, opts):
    """``opts[:n]`` = the card kinds seat ``s`` holds, in card order; returns n. Each kind is
    written either way and kept when held (no branch; ``opts`` has NK + 1 places)."""
    n = 0
    for k in range(NK):
        opts[n] = k
        n += 1 if hand[U(s), U(k)] > 0 else 0
    return n


@njit(_nrt=False)
def check_state(sb, rb, wb, ob):
    """Check the state's invariants (:func:`check`) when the run is a debug run."""
    ctl = ob[0]
    if ctl[C_DEBUG] != 0:
        check(sb[0], sb[1], sb[2], sb[3], rb[1], wb[4], ctl, ob[3])


def debug_check(sb, rb, wb, ob):
    """:func:`check_state`; compiled, it is empty for a lean kernel (1-D ``ev`` placeholder in
    ``ob[1]``, see :func:`lean`), like ``emit``."""
    if ob[1].ndim == 2:
        check_state(sb, rb, wb, ob)


if not DISABLED:
    @overload(debug_check, jit_options={"_nrt": False})
    def _debug_check_jit(sb, rb, wb, ob):
        if ob.types[1].ndim != 2:
            return lambda sb, rb, wb, ob: None
        return lambda sb, rb, wb, ob: check_state(sb, rb, wb, ob)


@njit(_nrt=False, inline="always")
def answerable(ctx, a, ascard, hand, n):
    """G4: whether anyone :func:`window` would ask holds an answer to the card (the hand
    masks of the seats asked: every other seat, and for a drawn Event the drawer too). When
    nobody does the window asks nobody and changes nothing, so the caller skips it."""
    if ctx == CTX_PLAY:
        want = (1 << FEATHER) | (1 << CRICKET)
        if ascard == LURE or ascard == SUPERLURE:
            want |= 1 << BLINDFOLD
    else:
        want = (1 << FLOPBOAT) | (1 << CRICKET)
    held = 0
    for s in range(n):
        if s != a or ctx != CTX_PLAY:
            held |= hand[HMASK, U(s)]
    return held & want != 0


@njit(_nrt=False)
def window(ctx, a, op, card, ts, tsl, aux, ascard, sb, rb, pb, wb, ob, one):
    """G4: the card just played (``ctx`` = CTX_PLAY, a Hazard or Trap, maybe Cricket Song
    acting as one) or drawn (CTX_EVENT, an Event or Letter) may be answered by any player,
    asked in turn order from the acting player's left; for a drawn Event the drawer is asked
    last. Feather (or Cricket Song as Feather) answers a Hazard or Trap, Blindfold (or
    Cricket Song as Blindfold) a Lure or Super Lure, Flop Boat (or Cricket Song as Flop
    Boat) an Event. The first answer cancels the card and closes the window; an answer is
    not itself answered (no card cancels an Interrupt). Returns the answering seat or -1."""
    pub, hand, priv, st = sb[0], sb[1], sb[3], sb[4]
    pids, params, prng = pb[0], pb[1], pb[2]
    opts, ann = wb[2], wb[3]
    ctl, ev, evn = ob[0], ob[1], ob[2]
    n = pub[P_NP]
    ann[0] = ctx
    ann[1] = op
    ann[2] = card
    ann[3] = a
    ann[4] = ts
    ann[5] = tsl
    ann[6] = aux
    ann[7] = ascard
    last = n if ctx == CTX_EVENT else n - 1
    for d in range(1, last + 1):
        r = seat_at(a, d, n)
        nopt = 1
        opts[0] = -1
        if ctx == CTX_PLAY:
            if hand[U(r), FEATHER] > 0:
                opts[nopt] = FEATHER
                nopt += 1
            if (ascard == LURE or ascard == SUPERLURE) and hand[U(r), BLINDFOLD] > 0:
                opts[nopt] = BLINDFOLD
                nopt += 1
        elif hand[U(r), FLOPBOAT] > 0:
            opts[nopt] = FLOPBOAT
            nopt += 1
        if hand[U(r), CRICKET] > 0:
            opts[nopt] = CRICKET
            nopt += 1
        if nopt == 1:
            continue
        c = ask(r, card, ctx, a, ascard, ann, opts, nopt, pids, params, prng, pub, hand, st, ob, ctl, ev, evn, one)
        if c < 0:
            continue
        priv[V_INTERRUPTS] += 1
        asc = c
        if c == CRICKET:
            asc = FEATHER if ctx == CTX_PLAY else FLOPBOAT
        emit(ctl, ev, evn, EV_ANSWER, r, c, asc, card, a, ctx)
        debug_check(sb, rb, wb, ob)
        return r
    return -1


@njit(_nrt=False, inline="always")
def play_card(a, k, sb, rb, pb, wb, ob, one):
    """Seat ``a`` plays ``acts[k]``: the card leaves the hand (in transit), a Hazard or Trap
    opens an interrupt window (G4), then the effect is carried out unless cancelled. The
    trace's ``play`` names the slot the play acts on (:func:`engine.target_slot`), which no
    answer can change; the window's announcement keeps the row as the policy chose it."""
    pub, hand, deck, priv, st = sb
    kn = rb[0]
    acts = wb[0]
    ctl, ev, evn = ob[0], ob[1], ob[2]
    op = acts[U(k), 0]
    card = acts[U(k), 1]
    ts = acts[U(k), 2]
    tsl = acts[U(k), 3]
    aux = acts[U(k), 4]
    slot = target_slot(a, op, ts, tsl, aux, pub)
    hand_take(pub, hand, a, card)
    priv[U(V_PEND + card)] += 1
    st[U(a), U(card), 1] += 1
    ascard = OP_AS[op]
    if op == OP_GUB or op == OP_RING:  # the card itself
        ascard = card
    emit(ctl, ev, evn, EV_PLAY, a, op, card, ts, slot, aux)
    if OP_WINDOW[op] != 0 and answerable(CTX_PLAY, a, ascard, hand, pub[P_NP]):
        r = window(CTX_PLAY, a, op, card, ts, tsl, aux, ascard, sb, rb, pb, wb, ob, one)
        if r >= 0:
            priv[U(V_PEND + card)] -= 1
            pub[U(P_DISC + card)] += 1
            emit(ctl, ev, evn, EV_CANCEL, a, card, r, op, 0, 0)
            debug_check(sb, rb, wb, ob)
            return
    resolve(a, op, card, ts, slot, aux, pub, hand, deck, priv, kn, ctl, ev, evn)
    debug_check(sb, rb, wb, ob)


@njit(_nrt=False)
def plague(a, sb, rb, pb, wb, ob, one):
    """Gargok Plague (FAQ 9): each player holding an Age-Old Cure (or Cricket Song acting as
    one) may discard it to keep their hand, asked from the drawer's left, the drawer last;
    then ``engine.plague_apply``."""
    pub, hand, deck, priv, st = sb
    kn = rb[0]
    pids, params, prng, erng = pb
    opts, ann, keep, redraw = wb[2], wb[3], wb[6], wb[7]
    ctl, ev, evn = ob[0], ob[1], ob[2]
    n = pub[P_NP]
    ann[0] = CTX_PLAGUE
    ann[1] = OP_STOP
    ann[2] = PLAGUE
    ann[3] = a
    ann[4] = -1
    ann[5] = -1
    ann[6] = 0
    ann[7] = CURE
    for s in range(MAXS):
        keep[s] = 0
    for d in range(1, n + 1):
        r = seat_at(a, d, n)
        nopt = 1
        opts[0] = -1
        if hand[U(r), CURE] > 0:
            opts[nopt] = CURE
            nopt += 1
        if hand[U(r), CRICKET] > 0:
            opts[nopt] = CRICKET
            nopt += 1
        if nopt == 1:
            continue
        c = ask(r, PLAGUE, CTX_PLAGUE, a, CURE, ann, opts, nopt, pids, params, prng, pub, hand, st, ob, ctl, ev, evn,
                one)
        if c < 0:
            continue
        keep[r] = 1
        emit(ctl, ev, evn, EV_SAVE, r, c, CURE, 0, 0, 0)
    plague_apply(a, keep, redraw, kn, pub, hand, deck, priv, st, erng, ctl, ev, evn)


@njit(_nrt=False)
def merchant(a, sb, pb, wb, ob, one):
    """Traveling Merchant (assumed): each player, from the drawer on, picks the card to keep."""
    pub, hand = sb[0], sb[1]
    pids, params, prng = pb[0], pb[1], pb[2]
    opts, tmp2, keep = wb[2], wb[5], wb[6]
    ctl, ev, evn = ob[0], ob[1], ob[2]
    n = pub[P_NP]
    for s in range(MAXS):
        keep[s] = -1
    for d in range(n):
        s = seat_at(a, d, n)
        if pub[U(P_HANDN + s)] == 0:
            continue
        nopt = held_kinds(hand, s, opts)
        j = decide_pick(pid_of(pids, s, one), s, PICK_KEEP, opts, nopt, pub, hand[s], params[s], prng[s])
        if j < 0 or j >= nopt:
            fail(ob, s, D_PICK, j, nopt)
        keep[s] = opts[j]
        emit(ctl, ev, evn, EV_KEEP, s, opts[j], 0, 0, 0, 0)
    merchant_apply(keep, pub, hand, tmp2, ctl, ev, evn)


@njit(_nrt=False)
def drawn_event(a, c, sb, rb, pb, wb, ob, one):
    """G3/G4: a drawn Event acts at once, after its interrupt window (Flop Boat sends it back
    into the deck at random, a Letter too, even the last: FAQ 7). A Letter is set aside face
    up; the third ends the game at once (G1). Other Events go to the discard pile after acting."""
    pub, hand, deck, priv = sb[0], sb[1], sb[2], sb[3]
    erng = pb[3]
    ctl, ev, evn = ob[0], ob[1], ob[2]
    priv[U(V_PEND + c)] += 1
    r = -1
    if answerable(CTX_EVENT, a, c, hand, pub[P_NP]):
        r = window(CTX_EVENT, a, OP_STOP, c, -1, -1, 0, c, sb, rb, pb, wb, ob, one)
    if r >= 0:
        priv[U(V_PEND + c)] -= 1
        depth = deck_insert_random(deck, pub, priv, c, erng, ctl, ev, evn, FROM_PEND, a, -1)
        emit(ctl, ev, evn, EV_FLOP, r, c, depth, a, 0, 0)
        if c >= LETTER_G:
            pub[P_FLOPPED] += 1
        debug_check(sb, rb, wb, ob)
        return
    if c >= LETTER_G:
        priv[U(V_PEND + c)] -= 1
        pub[P_ASIDE + c - LETTER_G] += 1
        pub[P_LETTERS] += 1
        emit(ctl, ev, evn, EV_LETTER, a, c, pub[P_LETTERS], 0, 0, 0)
        if pub[P_LETTERS] >= 3:
            pub[P_OVER] = 1
        debug_check(sb, rb, wb, ob)
        return
    priv[V_EVENTS] += 1
    emit(ctl, ev, evn, EV_EVENT, a, c, 0, 0, 0, 0)
    if c == FLOOD:
        flash_flood(pub, hand, ctl, ev, evn)
    elif c == PLAGUE:
        plague(a, sb, rb, pb, wb, ob, one)
    elif c == ALCHEMY:
        alchemy(a, pub, hand, ctl, ev, evn)
    elif c == MERCHANT:
        merchant(a, sb, pb, wb, ob, one)
    elif c == WASPS:
        wasps(pub, hand, deck, priv, erng, ctl, ev, evn)
    priv[U(V_PEND + c)] -= 1
    pub[U(P_DISC + c)] += 1
    emit(ctl, ev, evn, EV_TO_DISCARD, a, c, 1, FROM_PEND, -1, 0)
    debug_check(sb, rb, wb, ob)


@njit(_nrt=False, inline="always")
def scout_peek(a, pub, deck, priv):
    """The top card when seat ``a`` saw it with a Scout and the deck was not reordered since."""
    sn = priv[U(V_SCOUT_N + a)]
    dn = pub[P_DECKN]
    if sn > 0 and priv[U(V_SCOUT_VER + a)] == priv[V_DECK_VER] and sn - 3 < dn <= sn and dn > 0:
        return deck[dn - 1]
    return -1


@njit(_nrt=False, inline="always")
def lean_random(one, ev):
    """Whether the kernel is the lean one of a table where every seat plays ``random`` (a
    compile-time constant: ``one`` is a literal, ``ev`` a 1-D placeholder in a lean kernel)."""
    return one == RANDOM and ev.ndim == 1


@njit(_nrt=False)
def play_turns(turn_cap, sb, rb, pb, wb, ob, one):
    """G3: turns from ``pub[P_CUR]`` until the game ends or ``pub[P_TURN]`` reaches
    ``turn_cap``. A turn: draw one card (optional, never two skips in a row, never after
    playing; a drawn Event acts at once), play any number of cards, discard down to the
    hand limit."""
    pub, hand, deck, priv, st = sb
    kn = rb[0]
    pids, params, prng = pb[0], pb[1], pb[2]
    acts, reps, opts = wb[0], wb[1], wb[2]
    ctl, ev, evn = ob[0], ob[1], ob[2]
    n = pub[P_NP]
    limit = kn[K_HAND_LIMIT]
    maxp = kn[K_MAX_PLAYS]
    # lean random: the acting seat's next random value, found before it is needed (random_peek)
    u = random_peek(prng[pub[P_CUR]]) if lean_random(one, ev) else np.uint64(0)
    while pub[P_OVER] == 0 and pub[P_TURN] < turn_cap:
        a = pub[P_CUR]
        pub[P_TURN] += 1
        emit(ctl, ev, evn, EV_TURN, a, pub[P_TURN], pub[P_LETTERS], pub[P_DECKN], 0, 0)
        if lean_random(one, ev):
            # random's draw or skip without a branch on either: asked only when skipping is legal
            # (a coin, randint(rng, 2); not asked, the stream does not move), the top card taken
            # or not by the answer
            dn = pub[P_DECKN]
            asked = (1 if dn > 0 else 0) & (1 if pub[U(P_SKIP + a)] == 0 else 0)
            coin, u = random_take(prng[a], u, 1 + asked)
            draw = coin if asked != 0 else (1 if dn > 0 else 0)
            c = deck[U(dn - 1 if dn > 0 else 0)]
            pub[P_DECKN] = dn - draw
            pub[U(P_SKIP + a)] = 1 - draw
            priv[V_SKIPS] += 1 - draw
            st[U(a), U(c), 0] += draw
            if draw & (1 if is_event(c) else 0) != 0:
                drawn_event(a, c, sb, rb, pb, wb, ob, one)
                if pub[P_OVER] != 0:
                    break
                u = random_peek(prng[a])  # the drawer may have been asked
            else:
                hand[U(a), U(c)] += draw
                pub[U(P_HANDN + a)] += draw
                hand[HMASK, U(a)] |= draw << c
        else:
            draw = 1
            if pub[P_DECKN] == 0:
                draw = 0
            elif pub[U(P_SKIP + a)] == 0:
                draw = decide_draw(pid_of(pids, a, one), a, scout_peek(a, pub, deck, priv), pub, hand[a], params[a], prng[a])
                if draw != 0 and draw != 1:
                    fail(ob, a, D_DRAW, draw, 2)
            if draw == 1:
                pub[U(P_SKIP + a)] = 0
                c = draw_top(deck, pub)
                st[U(a), U(c), 0] += 1
                emit(ctl, ev, evn, EV_DRAW, a, c, pub[P_DECKN], 0, 0, 0)
                if is_event(c):
                    drawn_event(a, c, sb, rb, pb, wb, ob, one)
                    if pub[P_OVER] != 0:
                        break
                else:
                    hand_add(pub, hand, a, c, 1)
                    debug_check(sb, rb, wb, ob)
            else:
                pub[U(P_SKIP + a)] = 1
                priv[V_SKIPS] += 1
                emit(ctl, ev, evn, EV_SKIP, a, 0, 0, 0, 0, 0)
        # FAQ 1, 4: play as many cards as you like, after an Event too (max_plays: a safety cap
        # against endless turns, e.g. two Age-Old Cures taking each other back forever)
        plays = 0
        while True:
            if plays >= maxp:
                priv[V_PLAYCAPS] += 1
                break
            if one == SIMPLE and hand[HMASK, U(a)] & ((1 << GUB) | (1 << ELDER)) != 0:
                # every seat plays simple, which plays a Gub held at once: its row (the Elder's 101,
                # a Gub's 100) is above every other simple_value (at most 99: Super Lure's 70 plus
                # the leader's Gubs, of at most MAX_GUBS = 30 Gub cards with one in this hand;
                # Haki Flute 93), so it is the row simple picks
                k = add(acts, 1, OP_GUB, ELDER if hand[HMASK, U(a)] & (1 << ELDER) != 0 else GUB, a, -1, 0) - 1
            elif lean_random(one, ev):
                # every seat plays random: count the list's rows (m), draw the row (none when m == 1),
                # write only that row (random_play's randint over the full list, same draws and rows)
                m, nrep = play_count(a, pub, hand, kn, acts, reps)
                k, u = random_take(prng[a], u, m)
                if k == 0:
                    break
                play_row(a, k, pub, hand, kn, acts, reps, nrep)
            else:
                # every seat plays simple: list only the plays it can choose, attacks on its leader
                ld = leader(pub, a) if one == SIMPLE else -1
                m = legal_plays(a, pub, hand, kn, acts, reps, ld)
                if m == 1:
                    break
                if one == SIMPLE:  # the leader found once a decision
                    k = simple_choose(a, ld, acts, m, pub)
                else:
                    k = decide_play(pid_of(pids, a, one), a, acts, m, pub, hand[a], params[a], prng[a])
                if k < 0 or k >= m:
                    fail(ob, a, D_PLAY, k, m)
                if k == 0:
                    break
            play_card(a, k, sb, rb, pb, wb, ob, one)
            plays += 1
        # discard down to the hand limit (never below it)
        while pub[U(P_HANDN + a)] > limit:
            nopt = held_kinds(hand, a, opts)
            j = decide_pick(pid_of(pids, a, one), a, PICK_DISCARD, opts, nopt, pub, hand[a], params[a], prng[a])
            if j < 0 or j >= nopt:
                fail(ob, a, D_PICK, j, nopt)
            q = opts[j]
            hand_take(pub, hand, a, q)
            pub[U(P_DISC + q)] += 1
            emit(ctl, ev, evn, EV_DISCARD, a, q, 0, 0, 0, 0)
            debug_check(sb, rb, wb, ob)
        pub[P_CUR] = seat_at(a, 1, n)
        if lean_random(one, ev):
            u = random_peek(prng[pub[P_CUR]])


@njit(_nrt=False)
def finish(i, sb, ob, gout, tbo):
    """G5: write game row ``gout[i]`` (and the score events) once play stopped."""
    pub, priv = sb[0], sb[3]
    ctl, ev, evn = ob[0], ob[1], ob[2]
    n = pub[P_NP]
    done = pub[P_OVER] != 0
    if done:
        final_result(pub, tbo)
    else:
        tbo[0] = -1
        tbo[1] = 0
        tbo[2] = TB_UNFINISHED
    gout[i, G_WINNER] = tbo[0]
    gout[i, G_WINNERS] = tbo[1]
    gout[i, G_TB] = tbo[2]
    gout[i, G_TURNS] = pub[P_TURN]
    gout[i, G_FLOPPED] = pub[P_FLOPPED]
    gout[i, G_SKIPS] = priv[V_SKIPS]
    gout[i, G_INTERRUPTS] = priv[V_INTERRUPTS]
    gout[i, G_EVENTS] = priv[V_EVENTS]
    gout[i, G_DECK] = pub[P_DECKN]
    gout[i, G_ELDER] = pub[P_ELDER]
    gout[i, G_FINISHED] = 1 if done else 0
    gout[i, G_PLAYCAPS] = priv[V_PLAYCAPS]
    for s in range(MAXS):
        gout[i, G_SCORE + s] = pub[U(P_SCORE + s)] if s < n else -1
        gout[i, G_HAND + s] = pub[U(P_HANDN + s)] if s < n else -1
        if s < n:
            emit(ctl, ev, evn, EV_SCORE, s, pub[U(P_SCORE + s)], pub[U(P_HANDN + s)],
                 1 if pub[P_ELDER] == s else 0, 0, 0)
    emit(ctl, ev, evn, EV_END, tbo[0], tbo[1], tbo[2], pub[P_TURN], pub[P_FLOPPED], 1 if done else 0)


@njit(_nrt=False)
def card_rows(g, n, st, cb, row):
    """Append game ``g``'s card-table rows from ``row`` on: one per seat and card the seat drew or
    played. ``cb`` = (game, seat, card, drawn, played) is the table's columns, each in its column's
    dtype (int64, int8, uint8: the card's Enum code, int16, int16), so the frame takes them as
    they are (written as rows of an int32 matrix, its strided columns cost more to convert than
    the kernel takes to write them). Returns the next free row."""
    cg, cs, cc, cd, cp = cb
    for s in range(n):
        for k in range(NK):
            # written either way, kept when the seat drew or played the card (no branch)
            dr = st[U(s), U(k), 0]
            pl = st[U(s), U(k), 1]
            cg[row] = g
            cs[row] = s
            cc[row] = k
            cd[row] = dr
            cp[row] = pl
            row += 1 if (dr | pl) != 0 else 0
    return row


@njit
def scratch():
    """Scratch buffers for one chunk (allocated once per chunk)."""
    acts = np.zeros((MAX_ACTS, ACT_W), np.int32)
    reps = np.zeros(MAX_GUBS, np.int32)
    opts = np.zeros(NK + 1, np.int32)
    ann = np.zeros(ANN_W, np.int32)
    tmp = np.zeros(max(DECK_MAX, P_SIZE), np.int32)
    tmp2 = np.zeros((MAXS, NK), np.int32)
    keep = np.zeros(MAXS, np.int32)
    redraw = np.zeros(MAXS, np.int32)
    return (acts, reps, opts, ann, tmp, tmp2, keep, redraw)


@njit(_nrt=False)
def seed_game(key, g, n, prng, drng, erng):
    seed_stream(drng, key, g, DEAL, 0)
    seed_stream(erng, key, g, EFFECT, 0)
    for s in range(n):
        seed_stream(prng[s], key, g, POLICY, s)


@njit(_nrt=False)
def play_games(key, start, count, n, stack, sb, rb, pb, wb, ob, drng, tbo, gout, cb, one):
    """The game loop of :func:`simulate` (no allocation, so no reference counting)."""
    pub, hand, deck, priv, st = sb
    kn, cnt = rb
    prng, erng = pb[2], pb[3]
    ctl, ev, evn = ob[0], ob[1], ob[2]
    cap = kn[K_MAX_TURNS]
    row = 0
    for i in range(count):
        g = start + i
        ctl[C_GAME] = g
        seed_game(key, g, n, prng, drng, erng)
        setup_game(n, cnt, kn, stack, pub, hand, deck, priv, st, drng, wb[4], ctl, ev, evn)
        debug_check(sb, rb, wb, ob)
        play_turns(cap, sb, rb, pb, wb, ob, one)
        finish(i, sb, ob, gout, tbo)
        row = card_rows(g, n, st, cb, row)
    return row


@njit
def simulate(key, start, count, n, pids, params, cnt, kn, stack, debug, trace, ev, evn, gout, cb, err):
    """Play games ``start .. start+count-1`` with ``n`` players.

    Writes one row per game into ``gout`` (int32[count, NG]) and one row per (game, seat,
    card) drawn or played into the columns ``cb`` (:func:`card_rows`, count * n * NK places
    each); returns the number of card rows. An illegal policy answer or (debug) a
    broken card count raises with ``err`` filled in. ``stack`` (int32, top first) replaces
    every game's shuffled deck when non-empty."""
    return simulate_games(key, start, count, n, pids, params, cnt, kn, stack, debug, trace, ev, evn, gout, cb,
                          err, ANY)


@njit
def simulate_games(key, start, count, n, pids, params, cnt, kn, stack, debug, trace, ev, evn, gout, cb, err, one):
    """:func:`simulate` for a table whose every seat plays built-in policy ``one`` (or ANY)."""
    sb = (np.zeros(P_SIZE, np.int32), np.zeros((MAXS + 1, NK), np.int32), np.zeros(DECK_MAX, np.int32),
          np.zeros(V_SIZE, np.int32), np.zeros((MAXS, NK, 2), np.int32))
    prng = np.empty((MAXS, 1), np.uint64)
    erng = np.empty(1, np.uint64)
    ctl = np.zeros(4, np.int64)
    ctl[C_TRACE] = 1 if trace else 0
    ctl[C_DEBUG] = 1 if debug else 0
    return play_games(key, start, count, n, stack, sb, (kn, cnt), (pids, params, prng, erng), scratch(),
                      (ctl, ev, evn, err), np.empty(1, np.uint64), np.zeros(3, np.int64), gout, cb, one)


def lean(one):
    """The simulation entry of :func:`simulate` without ``debug`` and ``trace`` for a table where
    every seat plays built-in policy ``one`` (ANY: a mixed table or a plug-in). The flags are
    literal ``False`` and ``one`` a literal, so every dispatcher folds to that policy's code
    (inlined). ``ev[0]`` (1-D) stands in for the trace buffer, so ``emit`` and
    :func:`debug_check` compile to nothing and the kernel carries no trace or check code.
    Each entry is compiled on first use and cached like any kernel."""
    @njit
    def games(key, start, count, n, pids, params, cnt, kn, stack, ev, evn, gout, cb, err):
        return simulate_games(key, start, count, n, pids, params, cnt, kn, stack, False, False, ev[0], evn, gout,
                              cb, err, one)

    return games


#: ``{policy id or ANY: simulation entry}`` (see :func:`lean`)
LEAN = {one: lean(one) for one in (ANY, RANDOM, SIMPLE, STRONG)}


@njit
def run_table(key, g, turn_cap, pids, params, kn, cnt, pub, hand, deck, priv, st, debug, ev, evn, err, gout):
    """Play on from a constructed table (the state arrays as given) until the game ends or
    ``pub[P_TURN]`` reaches ``turn_cap``; policy and effect streams are keyed by game ``g``.
    The state arrays are updated in place; ``gout[0]`` gets the game row when the game
    ended. Traces into ``ev`` when it has rows. Returns 1 when the game ended."""
    n = pub[P_NP]
    wb = scratch()
    prng = np.empty((MAXS, 1), np.uint64)
    drng = np.empty(1, np.uint64)
    erng = np.empty(1, np.uint64)
    seed_game(key, g, n, prng, drng, erng)
    ctl = np.zeros(4, np.int64)
    ctl[C_GAME] = g
    ctl[C_TRACE] = 1 if ev.shape[0] > 0 else 0
    ctl[C_DEBUG] = 1 if debug else 0
    sb = (pub, hand, deck, priv, st)
    rb = (kn, cnt)
    pb = (pids, params, prng, erng)
    ob = (ctl, ev, evn, err)
    refresh(pub)
    for s in range(MAXS):
        hand[HMASK, U(s)] = hand_mask(hand, s)
    debug_check(sb, rb, wb, ob)
    play_turns(turn_cap, sb, rb, pb, wb, ob, ANY)
    tbo = np.zeros(3, np.int64)
    if pub[P_OVER] != 0:
        finish(0, sb, ob, gout, tbo)
    return pub[P_OVER]
