"""Uzor: motif-and-colour tiles laid next to matching tiles, patterns from the Map."""
