"""FOURBID: official rules (rule sheet seed 004, RULES.md B1-B14)."""
