"""Board pictures as SVG text for front ends that click on them (the web page).

A game's ``svg`` module (``envs/<game>/svg.py``) draws a position from one viewer's seats with
:class:`Picture` and names its **elements**: the parts of the board a player clicks (a square,
a cell of a cloth, a market slot, a button such as "end"), each a transparent rectangle on top
of the drawing, ``<rect class="el" id="el-NAME" data-el="NAME">``. Its ``element(game,
action)`` says which element an action of the player to act belongs to, so that a front end
knows no game's rules: it asks which actions are legal and attaches each to its element.

Element names are lower-case letters, digits and ``-`` (safe in ids and CSS selectors). All
text is escaped; colours are presentation attributes (no ``style`` attributes), so the picture
is a self-contained file and a strict Content-Security-Policy allows it.
"""

from __future__ import annotations

import math
import re
from contextlib import contextmanager
from html import escape
from typing import Any, Iterator, Sequence

from envs.core.render import GRID, INK, PAPER, SEAT_COLOURS, pale

Colour = tuple[int, int, int] | str
ELEMENT_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"


def colour(value: Colour) -> str:
    """``(r, g, b)`` as ``#rrggbb``; a string is kept (``"none"``, ``"#fff"``)."""
    if isinstance(value, str):
        return value
    r, g, b = value
    return f"#{int(r):02x}{int(g):02x}{int(b):02x}"


def _number(value: float) -> str:
    if isinstance(value, int):
        return str(value)
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def _attributes(attrs: dict[str, Any]) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = "class" if key == "cls" else key.rstrip("_").replace("_", "-")
        if isinstance(value, tuple) and len(value) == 3:
            value = colour(value)
        elif isinstance(value, float):
            value = _number(value)
        parts.append(f' {name}="{escape(str(value), quote=True)}"')
    return "".join(parts)


class Picture:
    """An SVG document built piece by piece; :meth:`text` returns it.

    Drawing calls take presentation attributes as keyword arguments (``stroke_width=2`` is
    ``stroke-width="2"``, ``cls=`` is ``class=``); colours may be ``(r, g, b)`` tuples.
    :meth:`element` records a clickable element; the elements are written last, on top of
    everything, in the order they were added."""

    def __init__(self, width: float, height: float, title: str = ""):
        self.width, self.height = width, height
        self.title = title
        self.parts: list[str] = []
        self.elements: list[str] = []
        self.names: set[str] = set()

    # ----- shapes ------------------------------------------------------------------------------
    def add(self, tag: str, text: str | None = None, **attrs: Any) -> None:
        if text is None:
            self.parts.append(f"<{tag}{_attributes(attrs)}/>")
        else:
            self.parts.append(f"<{tag}{_attributes(attrs)}>{escape(text, quote=False)}</{tag}>")

    def rect(self, x: float, y: float, w: float, h: float, fill: Colour = "none", **attrs: Any) -> None:
        self.add("rect", x=float(x), y=float(y), width=float(w), height=float(h), fill=colour(fill), **attrs)

    def circle(self, cx: float, cy: float, r: float, fill: Colour = "none", **attrs: Any) -> None:
        self.add("circle", cx=float(cx), cy=float(cy), r=float(r), fill=colour(fill), **attrs)

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: Colour = INK, **attrs: Any) -> None:
        self.add("line", x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), stroke=colour(stroke), **attrs)

    def polyline(self, points: Sequence[tuple[float, float]], stroke: Colour = INK, fill: Colour = "none",
                 **attrs: Any) -> None:
        self.add("polyline", points=_points(points), stroke=colour(stroke), fill=colour(fill), **attrs)

    def polygon(self, points: Sequence[tuple[float, float]], fill: Colour = INK, **attrs: Any) -> None:
        self.add("polygon", points=_points(points), fill=colour(fill), **attrs)

    def path(self, d: str, stroke: Colour = INK, fill: Colour = "none", **attrs: Any) -> None:
        self.add("path", d=d, stroke=colour(stroke), fill=colour(fill), **attrs)

    def text(self, x: float, y: float, words: str, size: float = 14, fill: Colour = INK, anchor: str = "start",
             weight: str | None = None, **attrs: Any) -> None:
        """Text whose baseline's ``anchor`` point (start, middle, end) is at ``(x, y)``."""
        self.add("text", str(words), x=float(x), y=float(y), font_size=float(size), fill=colour(fill),
                 text_anchor=anchor if anchor != "start" else None, font_weight=weight, **attrs)

    def centred_text(self, x: float, y: float, words: str, size: float = 14, fill: Colour = INK, **attrs: Any) -> None:
        """Text centred on ``(x, y)`` both ways."""
        self.text(x, y + size * 0.35, words, size=size, fill=fill, anchor="middle", **attrs)

    @contextmanager
    def group(self, **attrs: Any) -> Iterator[None]:
        self.parts.append(f"<g{_attributes(attrs)}>")
        yield
        self.parts.append("</g>")

    def button(self, name: str, x: float, y: float, w: float, h: float, label: str, fill: Colour = (250, 248, 240),
               ink: Colour = INK) -> None:
        """A drawn button (a rounded box with its label) that is also the element ``name``."""
        self.rect(x, y, w, h, fill=fill, stroke=colour(ink), stroke_width=1.5, rx=6)
        self.centred_text(x + w / 2, y + h / 2, label, size=14, fill=ink)
        self.element(name, x, y, w, h, label)

    # ----- elements ----------------------------------------------------------------------------
    def element(self, name: str, x: float, y: float, w: float, h: float, label: str) -> None:
        """A clickable element: a transparent rectangle over ``(x, y, w, h)`` on top of the
        drawing, ``label`` its tooltip and accessible name (its ``<title>``)."""
        if not ELEMENT_NAME.match(name):
            raise ValueError(f"element name {name!r}: lower-case letters, digits and '-' only")
        if name in self.names:
            raise ValueError(f"element {name!r} is drawn twice")
        self.names.add(name)
        attrs = _attributes({"cls": "el", "id": f"el-{name}", "data-el": name, "x": float(x), "y": float(y),
                             "width": float(w), "height": float(h), "fill": "#000", "fill-opacity": 0})
        self.elements.append(f"<rect{attrs}><title>{escape(label, quote=False)}</title></rect>")

    # ----- the document -------------------------------------------------------------------------
    def document(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_number(self.width)} {_number(self.height)}" '
                f'width="{_number(self.width)}" height="{_number(self.height)}" font-family="{escape(FONT)}" '
                f'role="img" aria-label="{escape(self.title, quote=True)}">')
        return "".join([head, f'<rect width="100%" height="100%" fill="{colour(PAPER)}"/>', *self.parts,
                        '<g class="els">', *self.elements, "</g></svg>"])


def _points(points: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{_number(float(x))},{_number(float(y))}" for x, y in points)


def smooth_path(points: Sequence[tuple[float, float]]) -> str:
    """A path ``d`` through ``points`` as straight segments (enough for fine point lists)."""
    head, *rest = points
    return f"M{_number(float(head[0]))},{_number(float(head[1]))}" + "".join(
        f"L{_number(float(x))},{_number(float(y))}" for x, y in rest)


def star_points(cx: float, cy: float, outer: float, inner: float, tips: int = 5) -> list[tuple[float, float]]:
    return [(cx + math.cos(-math.pi / 2 + i * math.pi / tips) * (outer if i % 2 == 0 else inner),
             cy + math.sin(-math.pi / 2 + i * math.pi / tips) * (outer if i % 2 == 0 else inner))
            for i in range(2 * tips)]


def seat_key(picture: Picture, x: float, y: float, seat: int, words: str, to_act: bool, size: float = 15) -> None:
    """A seat's swatch and words; the seat to act is marked with an arrow and bold words."""
    tint = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    if to_act:
        picture.polygon([(x, y - 11), (x + 9, y - 5), (x, y + 1)], fill=tint)
    picture.rect(x + 13, y - 12, 14, 14, fill=tint, stroke=colour(INK), stroke_width=1)
    picture.text(x + 33, y, words, size=size, fill=INK, weight="bold" if to_act else None)


def coordinates(picture: Picture, left: float, top: float, cell: float, rows: int, cols: int, size: float = 13,
                both_sides: bool = True, ink: Colour = INK) -> None:
    """Column letters above (and below) and row numbers left (and right) of a grid, as the
    notation writes cells (``a1`` top left)."""
    from envs.core.notation import column_name

    for c in range(cols):
        x = left + c * cell + cell / 2
        picture.centred_text(x, top - size * 0.9, column_name(c), size=size, fill=ink)
        if both_sides:
            picture.centred_text(x, top + rows * cell + size * 0.9, column_name(c), size=size, fill=ink)
    for r in range(rows):
        y = top + r * cell + cell / 2
        picture.centred_text(left - size * 1.1, y, str(r + 1), size=size, fill=ink)
        if both_sides:
            picture.centred_text(left + cols * cell + size * 1.1, y, str(r + 1), size=size, fill=ink)


def wrap_words(words: str, width: int, indent_once: bool = False) -> list[str]:
    """Words wrapped at ``width`` characters for a panel's short texts (SVG text does not wrap);
    a continuation line starts indented by two spaces (with ``indent_once``, only while it
    holds one word: Fill's panel)."""
    lines, line = [], ""
    for word in words.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = "  " + word
        elif not line:
            line = word
        else:
            line = f"{line} {word}".strip() if indent_once else f"{line} {word}"
    return lines + [line]


def legal_now(game: Any, seats: tuple[int, ...]) -> frozenset[int]:
    """The legal actions when one of ``seats`` is to act (the buttons a picture draws for its
    viewer), else none: a picture never shows what another seat may do."""
    if game.is_terminal() or game.current_player() not in seats:
        return frozenset()
    return frozenset(game.legal_actions())


__all__ = ["FONT", "GRID", "INK", "PAPER", "SEAT_COLOURS", "Picture", "colour", "coordinates", "legal_now", "pale",
           "seat_key", "smooth_path", "star_points", "wrap_words"]
