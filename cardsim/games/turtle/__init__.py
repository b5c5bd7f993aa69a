"""Bad, Bad, Turtle: the second game of rule sheet seed 000 (RULES.md T1-T10)."""
