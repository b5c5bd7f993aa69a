"""Array layouts shared by the kernel, the policies and the face.

``pub`` (int64[NPUB]) is the public state of the hand: everything in it is
visible to every player at the table (boards, Points Spent trackers,
running scores, the top discard, the bidding). Policies receive it
read-only. ``kn`` (int64[NK]) carries the knob values into the kernel.
"""

from __future__ import annotations

# -- pub: public state of the hand ---------------------------------------------------
P_IND = 0  # + seat: Indicators played (0-4); the one showing is this number (B5)
P_SPENT = 4  # + seat: Points Spent this hand (B5, B6, B9)
P_SCORE = 8  # + seat: running score of the game before this hand (B11)
P_CHAL = 12  # + seat: 1 if the seat has challenged (B9; filled during the challenge round)
P_TOP = 16  # top discard card code, -1 when the pile is empty
P_NDECK = 17  # cards in the deck
P_NPILE = 18  # cards in the discard pile
P_DEALER = 19
P_LAST = 20  # seat that completed the last turn (the dealer before the first turn)
P_ANYIND = 21  # 1 once any Indicator is down this hand (B4)
P_TWO = 22  # 1 once any "2" is down this hand (B7)
P_FIRST = 23  # seat that played the first Indicator (-1 none)
P_TURNS = 24  # completed turns this hand
P_BIDS = 25  # turns that began with bidding
P_OUT = 26  # seat that went out (-1 none)
P_OPENER = 27  # bidding: the opener of the current round
P_HIGH = 28  # bidding: the current high bidder
P_BID = 29  # bidding: the standing bid (0 outside bidding)
P_HAND = 30  # hand number in the game (0-based)
P_TARGET = 31  # the game's target (0: single hand)
P_FORCED = 32  # 1 while the deciding seat must discard Indicator 1 (B7)
P_FIRST_TURN = 33  # turn index at which the first Indicator went down (-1)
P_RESHUF = 34  # reshuffles this hand (B12)
P_TGAME = 35  # game number in the tournament (0 otherwise)
P_NSETS = 36  # OceanLife sets in the catalogue (cnt has NSETS + 1 entries: wilds last)
P_RULE1 = 37  # cost of the first Indicator of the hand (B6)
P_PHASE = 38  # 0 play, 1 challenge round
NPUB = 40

# -- kn: knob vector -----------------------------------------------------------------
K_VARIANT = 0  # V_HAND / V_GAME / V_TOURNAMENT
K_TURN_CAP = 1  # B14
K_TARGET = 2  # B13
K_SURPASS = 3  # B13: 0 reach (>=), 1 surpass (>)
K_MAX_HANDS = 4
K_WINS = 5  # tournament: games to win
K_MAX_GAMES = 6  # tournament: games after which it is cut
K_ROTATE = 7  # hand variant: 1 dealer = unit index mod 4, 0 position A deals
K_RULE1 = 8  # B6 cost
K_RULE2 = 9  # B7 on/off
K_OUT_BONUS = 10  # B8
K_CH_COST = 11  # B9
K_CH_WIN = 12
K_CH_TIE = 13
NK = 16

V_HAND, V_GAME, V_TOURNAMENT = 0, 1, 2

# -- decisions (error codes) ---------------------------------------------------------
D_ACQUIRE, D_DISCARD, D_BID, D_CHALLENGE = 0, 1, 2, 3
DECISION_NAMES = ("acquire", "discard", "bid", "challenge")
SRC_DECK, SRC_PILE = 0, 1
INDICATOR = -1  # discard action: the next Indicator

# -- err -----------------------------------------------------------------------------
E_NONE, E_ILLEGAL, E_CONSERVATION, E_FULL = 0, 1, 2, 3
NERR = 24

# -- trace events: rows (game, kind, seat, a, b, c, d, e) ------------------------------
EV_HAND = 0  # seat = dealer; a hand, b tgame, c handseq
EV_DEAL = 1  # seat; a..d the 4 cards dealt
EV_ACQUIRE = 2  # seat; a source, b card, c deck size after, d pile size after
EV_DISCARD = 3  # seat; a card
EV_INDICATOR = 4  # seat; a number, b cost (B6), c forced (B7), d starts B7
EV_BID = 5  # seat; a bid, b 1 if the forced opening 1
EV_PASS = 6  # seat; a the standing bid
EV_WIN = 7  # seat; a bid, b cost, c Indicator showing
EV_RESHUFFLE = 8  # list event (cardsim.events.emit_list): a top discard kept, the new deck top first
EV_OUT = 9  # seat; a Earned Points, b bonus
EV_CHALLENGE = 10  # seat; a 1 challenge / 0 decline, b cost
EV_RESULT = 11  # seat; a challenger's Earned, b out player's Earned, c bonus
EV_SCORE = 12  # seat; a earned, b bonus, c spent, d net, e running score
EV_CUT = 13  # a turns (B14)
EV_GAME = 14  # seat = winner seat (-1); a winner player, b hands, c tgame, d finished
EV_SEATING = 15  # a..d player at positions A..D; b.. ; e tgame
EV_TOURNAMENT = 16  # seat = winner player (-1); a games, b hands
EV_DECK = 17  # list event: the deck after the deal, top first
EV_NAMES = ("hand", "deal", "acquire", "discard", "indicator", "bid", "pass", "win_bid", "reshuffle",
            "go_out", "challenge", "challenge_result", "score", "hand_cut", "game_end", "seating",
            "tournament_end", "deck")
LIST_EVENTS = (EV_RESHUFFLE, EV_DECK)

# -- hands table rows ----------------------------------------------------------------
H_GAME = 0
H_TGAME = 1
H_HAND = 2
H_DEALER = 3
H_OUT = 4
H_FIRST = 5
H_FIRST_TURN = 6
H_BIDS = 7
H_TURNS = 8
H_RESHUF = 9
H_EARNED = 10
H_BONUS = 14
H_SPENT = 18
H_NET = 22
H_CHAL = 26
H_IND = 30
H_SCORE = 34
NH = 38

# -- games table rows ----------------------------------------------------------------
G_GAME = 0
G_TGAME = 1
G_WINNER = 2
G_WPLAYER = 3
G_HANDS = 4
G_VOID = 5
G_FINISHED = 6
G_FINAL = 7  # + seat
G_PLAYER = 11  # + seat: player seated there
G_FINAL_P = 15  # + player
NG = 19

# -- tournaments table rows ----------------------------------------------------------
T_GAME = 0
T_WINNER = 1
T_GAMES = 2
T_HANDS = 3
T_FINISHED = 4
T_WINS = 5  # + player
NT = 9
