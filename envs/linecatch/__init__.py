"""Linecatch: blacken squares, catch lines. Engine, observer, pictures and exact solver."""
