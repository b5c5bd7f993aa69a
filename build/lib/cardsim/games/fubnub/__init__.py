"""FUBNUB: the traditional game and its modes (rules reference docs/rules/fubnub.md, F1-F15)."""
