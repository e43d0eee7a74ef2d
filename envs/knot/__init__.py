"""Knot: strands, ribbons, capture and closing on a woven Celtic knot (``envs.knot_v0``)."""
