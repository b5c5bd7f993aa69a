"""FOURBID: official rules (official rule sheet; rules reference docs/rules/fourbid.md, B1-B14)."""
