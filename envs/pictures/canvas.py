"""A tiny vector canvas drawn once and output twice: SVG for the browser, an RGB array for
``render()``.

The games' picture modules (``envs/pictures/<game>.py``) describe a picture as a list of
shapes on a :class:`Canvas`; :meth:`Canvas.to_svg` writes them as an SVG document and
:meth:`Canvas.to_rgb` rasterises the very same shapes with Pillow, so the two agree.  The
raster uses Pillow's built-in font, which covers ASCII and Latin-1 only: keep labels to those
(write "->", not an arrow sign).  SVG texts do not take clicks (``pointer-events="none"``),
so a label drawn on a clickable shape does not hide it from the mouse.

Coordinates are pixels, origin top-left.  Colours are ``"#rrggbb"`` strings.  A text's
``y`` is its baseline, as in SVG.  A shape drawn with ``action=N`` is clickable in the SVG:
it carries ``class="cz-action" data-action="N"`` for the web pages to find; the raster
ignores it.  ``title`` becomes an SVG tooltip (``<title>``); it is part of the picture's
text, so it must never name something the viewer is not allowed to see.
"""
from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}   # SVG text-anchor -> Pillow anchor
FONT_FAMILY = "Helvetica, Arial, sans-serif"   # close to Pillow's built-in Aileron


def _colour(value, name, optional=True):
    if value is None and optional:
        return None
    if not isinstance(value, str) or not _COLOUR.match(value):
        raise ValueError(f"{name} must be a colour '#rrggbb'{' or None' if optional else ''}, got {value!r}")
    return value.lower()


def _number(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def _action(value):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"action must be None or a non-negative integer, got {value!r}")
    return int(value)


def _escape(s) -> str:
    return (str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}".rstrip("0").rstrip(".")


def _rgb(colour):
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


@lru_cache(maxsize=None)
def font(size: int):
    """Pillow's built-in scalable font at ``size`` pixels (Pillow >= 10.1); the fixed bitmap
    font on an older Pillow."""
    from PIL import ImageFont
    try:
        return ImageFont.load_default(size=size)
    except TypeError:   # Pillow < 10.1: no sizes
        return ImageFont.load_default()


@lru_cache(maxsize=1 << 14)   # pictures measure the same labels again and again
def text_width(s: str, size: int = 12) -> float:
    """Approximate width in pixels of ``s`` at font ``size`` (measured with the raster font;
    browsers' sans-serif fonts come within a few percent)."""
    return float(font(int(size)).getlength(str(s)))


def wrap_text(s: str, max_width, size: int = 12) -> list:
    """``s`` cut at spaces into lines no wider than ``max_width`` pixels at font ``size``
    (a single word wider than that keeps a line of its own)."""
    lines, cur = [], ""
    for word in str(s).split(" "):
        trial = word if not cur else cur + " " + word
        if cur and text_width(trial, size) > max_width:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    return lines + [cur] if cur else lines


def put_behind(canvas, start, behind) -> None:
    """Insert the shapes of canvas ``behind`` under those drawn on ``canvas`` since its shape
    number ``start`` (``len(canvas.shapes)`` taken before): a box whose size is known only
    once its content is laid out."""
    canvas.shapes[start:start] = behind.shapes


def hex_colour(rgb) -> str:
    """``(r, g, b)`` (0-255) as ``"#rrggbb"``."""
    return "#%02x%02x%02x" % tuple(int(v) for v in rgb)


def contrast(fill) -> str:
    """Black or white, whichever reads better on ``fill`` (``"#rrggbb"``)."""
    r, g, b = _rgb(_colour(fill, "fill", optional=False))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


# One colour per seat, shared by every game's picture so seat k looks the same everywhere.
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2")
INK, MUTED, PAPER, HIGHLIGHT = "#202020", "#6b6b6b", "#fbf8f0", "#ffd54a"


class Canvas:
    """A list of shapes on a ``width`` x ``height`` pixel area; see the module docstring."""

    def __init__(self, width, height, background="#ffffff"):
        self.width = int(_number(width, "width"))
        self.height = int(_number(height, "height"))
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"width and height must be positive, got {width!r} x {height!r}")
        self.background = _colour(background, "background")
        self.shapes = []   # (kind, dict of parameters)

    # ------------------------------------------------------------------ shapes
    def rect(self, x, y, w, h, fill=None, stroke=None, stroke_width=1, rx=0, action=None, title=None):
        self.shapes.append(("rect", dict(
            x=_number(x, "x"), y=_number(y, "y"), w=max(0.0, _number(w, "w")), h=max(0.0, _number(h, "h")),
            fill=_colour(fill, "fill"), stroke=_colour(stroke, "stroke"),
            stroke_width=_number(stroke_width, "stroke_width"), rx=_number(rx, "rx"),
            action=_action(action), title=None if title is None else str(title))))

    def circle(self, cx, cy, r, fill=None, stroke=None, stroke_width=1, action=None, title=None):
        self.shapes.append(("circle", dict(
            cx=_number(cx, "cx"), cy=_number(cy, "cy"), r=max(0.0, _number(r, "r")),
            fill=_colour(fill, "fill"), stroke=_colour(stroke, "stroke"),
            stroke_width=_number(stroke_width, "stroke_width"),
            action=_action(action), title=None if title is None else str(title))))

    def line(self, x1, y1, x2, y2, stroke, width=1):
        self.shapes.append(("line", dict(
            x1=_number(x1, "x1"), y1=_number(y1, "y1"), x2=_number(x2, "x2"), y2=_number(y2, "y2"),
            stroke=_colour(stroke, "stroke", optional=False), width=_number(width, "width"))))

    def polygon(self, points, fill=None, stroke=None, action=None, title=None):
        pts = [(_number(p[0], "points"), _number(p[1], "points")) for p in points]
        if len(pts) < 3:
            raise ValueError(f"points must hold at least 3 (x, y) pairs, got {len(pts)}")
        self.shapes.append(("polygon", dict(
            points=pts, fill=_colour(fill, "fill"), stroke=_colour(stroke, "stroke"),
            action=_action(action), title=None if title is None else str(title))))

    def text(self, x, y, s, size=12, fill="#000000", anchor="start", bold=False):
        if anchor not in _ANCHORS:
            raise ValueError(f"anchor must be one of {sorted(_ANCHORS)}, got {anchor!r}")
        self.shapes.append(("text", dict(
            x=_number(x, "x"), y=_number(y, "y"), s=str(s), size=int(_number(size, "size")),
            fill=_colour(fill, "fill", optional=False), anchor=anchor, bold=bool(bold))))

    # ------------------------------------------------------------- composites
    def fit_text(self, x, y, s, max_width, size=12, fill="#000000", anchor="start", bold=False,
                 min_size=8):
        """:meth:`text` shrunk (down to ``min_size``) and then cut with an ellipsis to fit
        ``max_width`` pixels.  Returns the size used."""
        s = str(s)
        while size > min_size and text_width(s, size) > max_width:
            size -= 1
        while len(s) > 1 and text_width(s, size) > max_width:
            s = s[:-4] + "..."
        self.text(x, y, s, size=size, fill=fill, anchor=anchor, bold=bold)
        return size

    def legend(self, x, y, entries, max_width, size=12, swatch=14, gap=14):
        """Colour keys ``[(colour, label), ...]`` left to right from ``(x, y)`` (top), wrapping
        within ``max_width``.  Returns the y below the last row."""
        cx, row_h = x, swatch + 6
        for colour, label in entries:
            w = swatch + 4 + text_width(label, size) + gap
            if cx > x and cx + w - gap > x + max_width:
                cx, y = x, y + row_h
            self.rect(cx, y, swatch, swatch, fill=colour, stroke=INK, rx=2)
            self.text(cx + swatch + 4, y + swatch - 2, label, size=size, fill=INK)
            cx += w
        return y + row_h

    def button(self, x, y, w, h, label, action=None, fill="#e8e8e8", size=12):
        """A labelled rounded box (a move that is not a piece on the table, e.g. "pass")."""
        self.rect(x, y, w, h, fill=fill, stroke=INK, rx=5, action=action, title=label)
        self.fit_text(x + w / 2, y + h / 2 + size * 0.35, label, w - 6, size=size, fill=contrast(fill),
                      anchor="middle")

    # ------------------------------------------------------------ inspection
    def texts(self):
        """Every string the picture shows: its texts and its tooltips (for tests)."""
        out = [p["s"] for k, p in self.shapes if k == "text"]
        return out + [p["title"] for k, p in self.shapes if p.get("title")]

    def actions(self):
        """The action ids of the clickable shapes, in drawing order."""
        return [p["action"] for _, p in self.shapes if p.get("action") is not None]

    # ------------------------------------------------------------------- SVG
    def to_svg(self) -> str:
        """The picture as one complete SVG document (a string)."""
        w, h = self.width, self.height
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
               f'viewBox="0 0 {w} {h}" font-family="{_escape(FONT_FAMILY)}">']
        if self.background:
            out.append(f'<rect x="0" y="0" width="{w}" height="{h}" fill="{self.background}"/>')
        for kind, p in self.shapes:
            out.append(getattr(self, f"_svg_{kind}")(p))
        out.append("</svg>")
        return "\n".join(out)

    @staticmethod
    def _paint(p):
        attrs = f' fill="{p["fill"] or "none"}"'
        if p.get("stroke"):
            attrs += f' stroke="{p["stroke"]}" stroke-width="{_fmt(p["stroke_width"])}"'
        return attrs

    @staticmethod
    def _close(tag, attrs, p):
        if p.get("action") is not None:
            attrs += f' class="cz-action" data-action="{p["action"]}" style="cursor:pointer"'
            if not p.get("fill"):   # an outline marks a click target: its inside must take clicks too
                attrs += ' pointer-events="all"'
        if p.get("title"):
            return f'<{tag}{attrs}><title>{_escape(p["title"])}</title></{tag}>'
        return f"<{tag}{attrs}/>"

    def _svg_rect(self, p):
        attrs = (f' x="{_fmt(p["x"])}" y="{_fmt(p["y"])}" width="{_fmt(p["w"])}" height="{_fmt(p["h"])}"'
                 + (f' rx="{_fmt(p["rx"])}"' if p["rx"] else "") + self._paint(p))
        return self._close("rect", attrs, p)

    def _svg_circle(self, p):
        attrs = f' cx="{_fmt(p["cx"])}" cy="{_fmt(p["cy"])}" r="{_fmt(p["r"])}"' + self._paint(p)
        return self._close("circle", attrs, p)

    def _svg_line(self, p):
        return (f'<line x1="{_fmt(p["x1"])}" y1="{_fmt(p["y1"])}" x2="{_fmt(p["x2"])}" y2="{_fmt(p["y2"])}" '
                f'stroke="{p["stroke"]}" stroke-width="{_fmt(p["width"])}"/>')

    def _svg_polygon(self, p):
        pts = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in p["points"])
        attrs = f' points="{pts}"' + self._paint(dict(p, stroke_width=1))
        return self._close("polygon", attrs, p)

    @staticmethod
    def _svg_text(p):
        weight = ' font-weight="bold"' if p["bold"] else ""
        return (f'<text x="{_fmt(p["x"])}" y="{_fmt(p["y"])}" font-size="{p["size"]}" fill="{p["fill"]}" '
                f'text-anchor="{p["anchor"]}"{weight} pointer-events="none" xml:space="preserve">'
                f'{_escape(p["s"])}</text>')

    # ---------------------------------------------------------------- raster
    def to_rgb(self, scale=1) -> np.ndarray:
        """The same picture rasterised with Pillow: ``H x W x 3`` ``uint8`` (times ``scale``,
        a positive integer, for a sharper picture)."""
        from PIL import Image, ImageDraw
        if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)) or scale < 1:
            raise ValueError(f"scale must be a positive integer, got {scale!r}")
        s = int(scale)
        img = Image.new("RGB", (self.width * s, self.height * s), _rgb(self.background or "#ffffff"))
        d = ImageDraw.Draw(img)
        for kind, p in self.shapes:
            if kind == "rect":
                if p["w"] <= 0 or p["h"] <= 0:
                    continue
                box = [p["x"] * s, p["y"] * s, (p["x"] + p["w"]) * s - 1, (p["y"] + p["h"]) * s - 1]
                kw = dict(fill=p["fill"] and _rgb(p["fill"]), outline=p["stroke"] and _rgb(p["stroke"]),
                          width=max(1, round(p["stroke_width"] * s)))
                if p["rx"] > 0:
                    d.rounded_rectangle(box, radius=p["rx"] * s, **kw)
                else:
                    d.rectangle(box, **kw)
            elif kind == "circle":
                if p["r"] <= 0:
                    continue
                box = [(p["cx"] - p["r"]) * s, (p["cy"] - p["r"]) * s,
                       (p["cx"] + p["r"]) * s, (p["cy"] + p["r"]) * s]
                d.ellipse(box, fill=p["fill"] and _rgb(p["fill"]), outline=p["stroke"] and _rgb(p["stroke"]),
                          width=max(1, round(p["stroke_width"] * s)))
            elif kind == "line":
                d.line([p["x1"] * s, p["y1"] * s, p["x2"] * s, p["y2"] * s], fill=_rgb(p["stroke"]),
                       width=max(1, round(p["width"] * s)))
            elif kind == "polygon":
                d.polygon([(x * s, y * s) for x, y in p["points"]], fill=p["fill"] and _rgb(p["fill"]),
                          outline=p["stroke"] and _rgb(p["stroke"]))
            elif kind == "text":
                f = font(p["size"] * s)
                kw = dict(fill=_rgb(p["fill"]), font=f, anchor=_ANCHORS[p["anchor"]])
                try:
                    d.text((p["x"] * s, p["y"] * s), p["s"], **kw)
                    if p["bold"]:   # the built-in font has no bold face: overstrike
                        d.text((p["x"] * s + max(1, s // 2), p["y"] * s), p["s"], **kw)
                except ValueError:   # the bitmap font of an old Pillow takes no anchor
                    kw.pop("anchor")
                    d.text((p["x"] * s, (p["y"] - p["size"]) * s), p["s"], **kw)
        return np.asarray(img, dtype=np.uint8).copy()
