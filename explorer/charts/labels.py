"""Where a chart's arrow labels go (the roofline's: explorer/charts/idea.py): of every choice of a place for each
label, the one whose labels leave the plot, cover another mark, meet each other or cross arrows least often,
laid out on a model of the chart's plot area in px. A projector's chart and a phone's get a model each (`WIDE`,
`PHONE`); the phone's layout rides in the figure, and the page puts it on a chart narrower than NARROW_BELOW px
(explorer/plot.js). Panels side by side get a phone's layout here too (`panels_on_a_phone`)."""
from __future__ import annotations

import math
from itertools import combinations
from typing import NamedTuple

import numpy as np

Spot = tuple[int, int, str]  # (ax, ay) in px from the point (ay down), and the label's xanchor

# Where a label may go. "left": it hangs to the right of its arrow. In order of preference: below the roof first,
# where nothing else is drawn, above it last.
SPOTS: tuple[Spot, ...] = (
    (30, 50, "left"), (-30, 50, "right"), (30, 25, "left"), (-30, 25, "right"), (0, 60, "center"),
    (30, 105, "left"), (-30, 105, "right"), (0, 115, "center"), (30, 160, "left"), (-30, 160, "right"),
    (-30, -50, "right"), (30, -50, "left"))
MEET = 2  # two labels that meet, arrows that cross, a label above or below the plot: against one out at a side (1)


class Geometry(NamedTuple):
    """A chart's plot area and its labels' font, as `label_spots` lays labels out on it."""
    plot_px: tuple[int, int]  # width and height of the plot area
    char_px: float  # a character's width, and a line's height, as the font is drawn
    line_px: float
    side: int  # what a label out at a side costs
    gap: float  # the px two labels keep between them
    spots: tuple[Spot, ...]
    right_room: float = 0  # px past the plot's right edge a label may reach: the chart's own right margin


# A 560 px chart's plot: labels that clear there clear wider, so one out at a side costs less (a wider chart may
# still hold it). An 18 px font, as drawn.
WIDE = Geometry((470, 210), 10.5, 22, 1, 0, SPOTS)

# A phone's chart (a 390 px screen: 358 px of chart) is NARROW_HEIGHT px tall (a phone held upright holds it), its
# labels and legend in a 14 px font. Its plot area, measured in Chromium with the legend in four rows: 263 × 300 px.
# A 14 px line is drawn 18.3 px tall. The arrows are half as long sideways and 0.7 as long down (the plot is half
# as wide, as tall), and one more place, straight above, suits a mark low in a plot this narrow. No wider chart
# holds a label out at a side, so it costs as much as two that meet, but for 20 px on the right: the chart's own
# margin there is 24 px (explorer/charts/style.py), where on the left the ticks stand. Two labels keep 4 px apart.
NARROW_BELOW, NARROW_FONT, NARROW_HEIGHT = 420, 14, 520
# Every chart's title and legend on a phone (`phone_layout`). A title wraps at 38 characters (explorer/charts/style.py,
# for two charts side by side at 1280), and 38 of its 21 px bold ran 20 px past a phone's chart; in 18 px they fit.
# A legend's names in 17 px took a row each there: six of them took half the chart (lesson 14's measured masks,
# lesson 11's reads); in 14 px two or three short ones share a row. A phone's screen: at most PHONE_SCREEN px wide,
# where Streamlit stacks columns (measured in 1.67: side by side from 641 px). A chart as narrow beside another, at
# 1280 px with the sidebar open (372 px), keeps the type a projector's back row reads.
NARROW_TITLE, PHONE_SCREEN = 18, 640
PHONE = Geometry((263, 300), 10.5 * NARROW_FONT / 18, 18.5, MEET, 4,
                 tuple((round(ax / 2), round(ay * 0.7), anchor) for ax, ay, anchor in SPOTS)
                 + ((0, -50, "center"),), right_room=20)


def crosses(a, b) -> bool:
    """Whether segments a and b, each ((x, y), (x, y)), cross."""
    def side(seg, r) -> float:  # which side of seg the point r is on
        (p, q) = seg
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b[0]) * side(a, b[1]) < 0 and side(b, a[0]) * side(b, a[1]) < 0


def box(at: tuple[float, float], text: str, spot: Spot, geometry: Geometry) -> tuple[float, float, float, float]:
    """The label's box in the model's px (y up), for a point `at` and a label of `text` ("<br>" between lines)."""
    lines = text.split("<br>")
    (ax, ay, anchor), w, h = spot, geometry.char_px * max(map(len, lines)) + 8, geometry.line_px * len(lines) + 6
    x0 = at[0] + ax - {"left": 0, "center": w / 2, "right": w}[anchor]
    return x0, at[1] - ay - h / 2, x0 + w, at[1] - ay + h / 2


def meet(a, b, gap: float) -> bool:
    """Whether boxes a and b come closer than `gap`."""
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def label_spots(marks, x_range, y_range, geometry: Geometry = WIDE, avoid=()) -> list[Spot]:
    """(ax, ay, xanchor) for each mark's label (marks: x, y and label columns, log axes spanning x_range and y_range
    in decades): of every choice of the geometry's spots, the one whose labels leave the plot, cover another mark,
    meet each other or cross arrows least often, then the most preferred. A label out at a side costs
    `geometry.side`; two labels that meet, two arrows that cross, or a label above or below the plot (over the
    legend or the axis) cost MEET. With every cost 1, on the H200 with its measured points (a wider span of
    intensity) flash's label and the matmuls' covered each other. `avoid`: other points, (x, y) in data, that a
    label covers at the cost of a mark (the H200's measured kernel)."""
    (width, height), choices = geometry.plot_px, geometry.spots
    sx, sy = width / (x_range[1] - x_range[0]), height / (y_range[1] - y_range[0])

    def px(x: float, y: float) -> tuple[float, float]:  # y up
        return sx * (math.log10(x) - x_range[0]), sy * (math.log10(y) - y_range[0])
    at = [px(x, y) for x, y in zip(marks["x"], marks["y"])]
    others = at + [px(x, y) for x, y in avoid]
    labels = [str(text) for text in marks["label"]]

    def with_arrow(k: int, b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        (x, y), r = at[k], 10  # the arrow reaches its point, less the standoff
        return min(b[0], x + r), min(b[1], y + r), max(b[2], x - r), max(b[3], y - r)
    boxes = [[box(at[k], labels[k], spot, geometry) for spot in choices] for k in range(len(at))]
    drawn = [[with_arrow(k, b) for b in boxes[k]] for k in range(len(at))]  # label and arrow
    arrows = [[(at[k], (at[k][0] + ax, at[k][1] - ay)) for ax, ay, _ in choices] for k in range(len(at))]
    # per mark and spot: what its leaving the plot costs, plus the other marks (and points to avoid) it covers
    right = width + geometry.right_room
    alone = [[(MEET if not (b[1] >= 0 and b[3] <= height) else geometry.side * int(not (b[0] >= 0 and b[2] <= right)))
              + sum(b[0] - 12 < x < b[2] + 12 and b[1] - 12 < y < b[3] + 12
                    for j, (x, y) in enumerate(others) if j != k)
              for b in boxes[k]] for k in range(len(at))]

    # The cost of every choice at once: one axis per mark, its spots along it (C order is product()'s
    # order, so argmin's first minimum is the choice min() over product() took).
    spots, marks_n = len(choices), len(at)
    bad = np.zeros((spots,) * marks_n, dtype=np.int64)
    for k in range(marks_n):
        bad += np.asarray(alone[k]).reshape([spots if axis == k else 1 for axis in range(marks_n)])
    for j, k in combinations(range(marks_n), 2):
        pair = np.array([[MEET * (meet(a, b, geometry.gap) + crosses(arrows[j][i], arrows[k][m]))
                          for m, b in enumerate(drawn[k])] for i, a in enumerate(drawn[j])], dtype=np.int64)
        bad += pair.reshape([spots if axis in (j, k) else 1 for axis in range(marks_n)])
    index_sum = sum(np.arange(spots).reshape([spots if axis == k else 1 for axis in range(marks_n)])
                    for k in range(marks_n))
    best = np.unravel_index(np.argmin(bad * (spots * marks_n + 1) + index_sum), bad.shape) if marks_n else ()
    return [choices[int(i)] for i in best]


PHONE_PANEL_HEIGHT = 260  # px a row of two panels takes on a phone


def panels_on_a_phone(count: int) -> dict:
    """A row of `count` panels (make_subplots' 1 × count) laid out on a phone's chart (explorer/plot.js puts it on
    a chart narrower than NARROW_BELOW px) in rows of two: four in a row were 65 px each there, their titles over
    one another and their axes' titles run into one line. Each panel's domain, its title over it in 14 px (the first
    row's under the top of the plot area, which plotly.js pushes down to the legend's foot and no further), the key
    axis named under the bottom-left panel only and the query axis beside the top-left one."""
    rows, gap_x, gap_y, head = math.ceil(count / 2), 0.08, 0.1, 0.07
    tall = (1 - head - (rows - 1) * gap_y) / rows
    layout: dict = {"height": 140 + rows * PHONE_PANEL_HEIGHT}
    titles = []
    for k in range(count):
        row, col = divmod(k, 2)
        x0 = col * (1 + gap_x) / 2
        top = 1 - head - row * (tall + gap_y)
        name = "" if k == 0 else str(k + 1)
        layout[f"xaxis{name}"] = {"domain": [x0, x0 + (1 - gap_x) / 2],
                                  **({} if k == (rows - 1) * 2 else {"title": {"text": ""}})}
        layout[f"yaxis{name}"] = {"domain": [top - tall, top]}
        titles.append({"x": x0 + (1 - gap_x) / 4, "y": top, "font": {"size": 14}})
    return {"layout": layout, "annotations": titles}


def phone_layout() -> dict:
    """The layout every chart takes on a phone's screen (layout.meta.phone: explorer/plot.js puts it on a chart on a
    screen at most `screen` px wide): its title and legend in smaller type."""
    return {"screen": PHONE_SCREEN, "layout": {"title": {"font": {"size": NARROW_TITLE}},
                                               "legend": {"font": {"size": NARROW_FONT}}}}


def phone_names(short: dict[int, str]) -> dict:
    """A chart's legend on a phone, its traces (by index) named short. plotly.js gives a horizontal legend the plot
    area's width (240-260 px there) and, once its names take more than a row, lays them out in columns as wide as
    the widest name and its symbol (40 px): six names of up to 35 characters took six rows, half the chart; names
    under about 75 px of 14 px type (a dozen characters) set two to a row."""
    return {"data": {str(k): {"name": name} for k, name in short.items()}}
