"""Gubs: A Game of Wit and Luck (G1-G5)."""
