"""Loom: two 4×4 cloths and drafted dice. Engine, observer and pictures."""
