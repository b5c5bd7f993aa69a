"""FUBNUB: the traditional game and its modes (rule sheet seed 000, RULES.md F1-F15)."""
