"""Bad, Bad, Turtle: the second game of the FUBNUB rule sheet (docs/rules/turtle.md, T1-T10)."""
