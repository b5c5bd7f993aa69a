"""Bad, Bad, Turtle cards as plain data (T1, T2); no numba, no side effects.

Card codes (small ints inside, names outside, STYLE habit 3):

- ``0..23``: the FUBNUB number cards, ``code = colour * 6 + (rank - 1)``
  with colours Gold, Green, Purple, Red (so ``Gold 1`` is 0, ``Red 6`` 23).
  In this game they have no effect when revealed.
- ``24..54``: the 31 action cards, ``code = ACTION_BASE + action code``,
  where the action code is the index in :data:`ACTION_CARDS` (T2 order).

The action-card catalogue is shared with FUBNUB's Full Deck mode (F15)::

    from cardsim.games.turtle.cards import ACTION_CARDS, ACTION_NAMES, action_code
    ACTION_CARDS[action_code("Turtle")]   # ("Turtle", "sheet")

Importing this module never imports numba or compiles anything.
"""

from __future__ import annotations

COLOURS = ("Gold", "Green", "Purple", "Red")
RANKS = (1, 2, 3, 4, 5, 6)
N_NUMBER = 24
ACTION_BASE = 24

#: The 31 action cards, one each (T2), in T2 order; the index is the
#: stable action code. ``source``: where the card's name and text come from.
ACTION_CARDS: tuple[tuple[str, str], ...] = (
    ("Clean Up", "sheet"),
    ("Dance", "sheet"),
    ("Do Over", "sheet"),
    ("Double Dip", "sheet"),
    ("Eliminated", "sheet"),  # the gecko (T2, T5)
    ("Never Happened", "sheet"),
    ("No Reveal", "sheet"),
    ("No Trash", "sheet"),
    ("No Way", "sheet"),
    ("Partial Play", "sheet"),
    ("Peek", "sheet"),
    ("Pick a Player", "sheet"),
    ("Rapid Fire", "sheet"),
    ("Recycle Bonus", "sheet"),
    ("Refund", "sheet"),
    ("Restart Game", "sheet"),
    ("Reverse Direction", "sheet"),
    ("Rhyme", "sheet"),
    ("Talk Funny", "sheet"),
    ("Tell A Joke", "sheet"),
    ("Tell a Story", "sheet"),
    ("Second Chance", "sheet"),
    ("Share an Opinion", "sheet"),
    ("Shield", "sheet"),
    ("Shuffle", "sheet"),
    ("Sing Something", "sheet"),
    ("Skip", "sheet"),
    ("Slow Down", "sheet"),
    ("Stack Swap Left", "sheet"),
    ("Stack Swap Right", "sheet"),
    ("Turtle", "sheet"),
)
#: one copy of each action card: T2 (the sheet says "thirty-one (31) action cards")
ACTION_COUNT_SOURCE = "reference (T2)"
ACTION_NAMES: tuple[str, ...] = tuple(n for n, _ in ACTION_CARDS)
N_ACTION = len(ACTION_CARDS)
N_CARDS = N_NUMBER + N_ACTION  # 55 (T1)

(CLEAN_UP, DANCE, DO_OVER, DOUBLE_DIP, ELIMINATED, NEVER_HAPPENED, NO_REVEAL, NO_TRASH, NO_WAY,
 PARTIAL_PLAY, PEEK, PICK_A_PLAYER, RAPID_FIRE, RECYCLE_BONUS, REFUND, RESTART_GAME, REVERSE_DIRECTION,
 RHYME, TALK_FUNNY, TELL_A_JOKE, TELL_A_STORY, SECOND_CHANCE, SHARE_AN_OPINION, SHIELD, SHUFFLE,
 SING_SOMETHING, SKIP, SLOW_DOWN, STACK_SWAP_LEFT, STACK_SWAP_RIGHT, TURTLE) = range(N_ACTION)
GECKO = ELIMINATED

#: the seven performance cards (T7): the next player performs or skips their turn
PERFORMANCE: tuple[str, ...] = ("Dance", "Rhyme", "Talk Funny", "Tell A Joke", "Tell a Story",
                                "Share an Opinion", "Sing Something")
#: the three held cards (T8): set aside by whoever reveals them, played later by policy
HELD: tuple[str, ...] = ("Never Happened", "No Way", "Shield")

#: what each card does to whom (used by the trace and the docs)
ACTION_KIND: dict[str, str] = {
    **{n: "performance" for n in PERFORMANCE},
    **{n: "held" for n in HELD},
    "Clean Up": "self", "Do Over": "self", "Double Dip": "self", "Peek": "self", "Pick a Player": "self",
    "Recycle Bonus": "self", "Refund": "self", "Second Chance": "self",
    "No Reveal": "next", "No Trash": "next", "Partial Play": "next", "Rapid Fire": "next", "Skip": "next",
    "Slow Down": "next",
    "Restart Game": "table", "Reverse Direction": "table", "Shuffle": "table", "Stack Swap Left": "table",
    "Stack Swap Right": "table",
    "Eliminated": "gecko", "Turtle": "turtle",
}

#: the sheet's text of each action card (seed 000), for docs and traces
ACTION_TEXT: dict[str, str] = {
    "Clean Up": "Player who reveals this card puts all their revealed cards (except for this one) into their "
                "discard pile.",
    "Dance": "Next player must do a little dance or a wiggle. If they choose not to dance, they must skip their turn.",
    "Do Over": "Player who reveals this card puts all their revealed cards (except for this one) back into their "
               "stack. Player then reshuffles their stack.",
    "Double Dip": "Player who reveals this card also reveals a second card from their stack.",
    "Eliminated": "Oh no! Player who reveals this card is eliminated from the game!",
    "Never Happened": "Put this card to the side. Play at any time after a reveal action to overrule any action "
                      "card played. This card can not overrule the reveal of the turtle card.",
    "No Reveal": "Next player skips the reveal step on their turn. They only perform the discard step.",
    "No Trash": "Next player reveals the top card on their discard stack. The player does not perform any other "
                "actions this turn.",
    "No Way": "Put this card to the side. Play at any time to force a discard of any revealed card (including the "
              "Turtle!). When played, the card is placed on the reveal pile of the player it's used against.",
    "Partial Play": "Next player only discards one card during the discard action. Then does their reveal action.",
    "Peek": "Player who reveals this card can look through their unrevealed stack until their next turn. Do not "
            "change the order of any cards in the unrevealed stack.",
    "Pick a Player": "Player who reveals this card picks who gets the next turn. Play continues around the table "
                     "from that player.",
    "Rapid Fire": "Next player skips the discard action this turn. They only perform the reveal action.",
    "Recycle Bonus": "Player who reveals this card also reveals the last card they discarded.",
    "Refund": "Player who reveals this card also puts the last card they discarded back into their stack.",
    "Restart Game": "All cards, including all revealed cards, are shuffled and redealt. Rats! This is an entire "
                    "game reset!",
    "Reverse Direction": "Game play should reverse direction around the table. If game play was going clockwise it "
                         "will now go counter-clockwise.",
    "Rhyme": "Next player must say a rhyme before they play. If they can not think of a rhyme, they must skip "
             "their turn this time.",
    "Talk Funny": "Next player should say something with a funny accent. If they don't want to try an accent, "
                  "they must skip their turn.",
    "Tell A Joke": "Next player must tell a joke. If they don't want to tell a joke, they must skip their turn.",
    "Tell a Story": "Next player must tell a quick short story. If they don't want to tell a story, they must "
                    "skip their turn.",
    "Second Chance": "Player who reveals this card takes a second turn right now.",
    "Share an Opinion": "Next player must share a friendly opinion on something. If they don't want to share an "
                        "opinion, they must skip their turn.",
    "Shield": "Put this card to the side. Play at any time to force any revealed action card on to the player of "
              "your choice. Play continues around the table from that player.",
    "Shuffle": "All unrevealed cards in stacks and discard piles are shuffled and redealt to all players.",
    "Sing Something": "Next player should sing something short. If they don't want to sing, they must skip their "
                      "turn.",
    "Skip": "Next player is skipped.",
    "Slow Down": "Next player should shuffle their reveal pile into their stack. After shuffling, they should "
                 "take their regular turn.",
    "Stack Swap Left": "All players give their unrevealed stack to the player to their left.",
    "Stack Swap Right": "All players give their unrevealed stack to the player to their right.",
    "Turtle": "No need to hide in your shell anymore. The player who reveals this card has just WON THE GAME!",
}

#: cards a scenario may remove (rules.remove); the Turtle must stay, or no game could be won by it
REMOVABLE: tuple[str, ...] = tuple(n for n in ACTION_NAMES if n != "Turtle")

PERFORMANCE_CODES = tuple(ACTION_NAMES.index(n) for n in PERFORMANCE)
HELD_CODES = (NEVER_HAPPENED, NO_WAY, SHIELD)


def action_code(name: str) -> int:
    """The action code (0..30) of an action card name as the sheet writes it."""
    return ACTION_NAMES.index(name)


def card_name(code: int) -> str:
    """The name of card ``code`` (0..54): ``"Gold 6"`` or an action card name."""
    code = int(code)
    if 0 <= code < N_NUMBER:
        return f"{COLOURS[code // 6]} {code % 6 + 1}"
    if ACTION_BASE <= code < N_CARDS:
        return ACTION_NAMES[code - ACTION_BASE]
    raise ValueError(f"no Bad, Bad, Turtle card has code {code}")


CARD_NAMES: tuple[str, ...] = tuple(card_name(c) for c in range(N_CARDS))


def card_code(name: str) -> int:
    """The card code of a card name (``"Red 3"``, ``"Turtle"``)."""
    try:
        return CARD_NAMES.index(name)
    except ValueError:
        raise ValueError(f"unknown Bad, Bad, Turtle card {name!r}") from None


def deck_codes(removed: tuple[str, ...] = ()) -> list[int]:
    """The card codes in play (T1), without the removed action cards, in code order."""
    gone = {ACTION_BASE + action_code(n) for n in removed}
    return [c for c in range(N_CARDS) if c not in gone]


# -- the policy observation (``obs``, int64[OBS_LEN]) --------------------------------
# Every decision function gets ``obs``: what the deciding seat may see. Seats
# are numbered clockwise; "left" of seat s is s + 1 (mod players).
OBS_PLAYERS = 0       # seats at the table
OBS_SEAT = 1          # the deciding seat
OBS_CUR = 2           # seat whose turn it is
OBS_DIR = 3           # +1 clockwise (to the left), -1 counter-clockwise
OBS_CARD = 4          # action code in question (respond: the revealed card; pick: Pick a Player; perform: the card)
OBS_REVEALER = 5      # seat that revealed it
OBS_VICTIM = 6        # seat the revealed card currently acts on (moved by Shield)
OBS_LAST = 7          # respond: held card last played on it (NEVER_HAPPENED/NO_WAY/SHIELD code) or -1
OBS_LAST_BY = 8       # ... and who played it (-1)
OBS_STATUS = 9        # respond: 0 the card is in force, 1 overruled by Never Happened, 2 discarded by No Way
OBS_GECKO_LIVE = 10   # 1 if the gecko is in a stack or discard pile (can still be revealed)
OBS_UNREVEALED = 11   # cards in all stacks and discard piles
OBS_NEXT = 12         # the next seat still in the game after the deciding seat, in the play direction
OBS_ALIVE = 13        # players still in the game
OBS_TURN = 14         # turn number (1-based)
OBS_DECISION = 15     # 0 pick, 1 respond, 2 perform
OBS_SEATS = 16        # per seat s: OBS_SEATS + OBS_SEAT_W * s + (0 alive, 1 stack, 2 discards, 3 reveals, 4 held)
OBS_SEAT_W = 5        # held: bit 0 Never Happened, bit 1 No Way, bit 2 Shield (held cards lie face up: public)
OBS_KNOWN = 56        # how many top cards of the deciding seat's own stack it knows (Peek), else 0
OBS_STACK = 57        # the deciding seat's stack, top first: card codes for the first OBS_KNOWN, else -1
OBS_LIVE = 121        # per action code a: 1 if card a is in a stack or discard pile (card counting)
OBS_LEN = 152
SEAT_ALIVE, SEAT_STACK, SEAT_DISCARDS, SEAT_REVEALS, SEAT_HELD = 0, 1, 2, 3, 4

# -- decision actions (``legal`` is int64[LEGAL_LEN], 1 where an action is legal) ----
LEGAL_LEN = 16
# respond: what to do after a revealed action card (T8)
PASS = 0
NH_CARD = 1      # Never Happened: overrule the revealed card
NH_HELD = 2      # Never Happened: overrule the No Way or Shield last played on it
NO_WAY_PLAY = 3  # No Way: the revealed card goes to its player's discard pile
SHIELD_BASE = 4  # Shield: SHIELD_BASE + t forces the card onto seat t
# pick: the seat that gets the next turn; perform: 0 skip the turn, 1 perform
SKIP_TURN, PERFORM = 0, 1
DECISION_NAMES = ("pick", "respond", "perform")
