"""Ronda: the Spanish-deck capture game (rules in seeds/ronda.md); reference engine and kernel."""
