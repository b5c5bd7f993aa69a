"""Gubs: A Game of Wit and Luck (RULES.md G1-G5)."""
