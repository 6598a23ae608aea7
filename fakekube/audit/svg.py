"""An SVG swim-lane chart of a timeline: one lane per actor, time left to right, 409s in red.

Plain SVG text (no dependencies), deterministic for a given timeline so it can be committed to docs.
Each request is a marker coloured like the table (green 2xx, amber expected 4xx, red 409/5xx); a stale
overwrite gets an orange ring; hovering shows the step (``<title>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from fakekube.audit.codes import color
from fakekube.audit.rows import Row

FILL = {"🟢": "#2e9e44", "🟡": "#e0a800", "🔴": "#d62728", "": "#888888"}


def swimlanes(rows: Sequence[Row], *, width: int = 960, lane_height: int = 34, label_width: int = 210,
              title: str | None = None, label_steps: bool = True) -> str:
    actors: list[str] = []
    for row in rows:
        actor = row.actor or "?"
        if actor not in actors:
            actors.append(actor)
    times = [row.time or 0.0 for row in rows]
    t0 = min(times) if times else 0.0
    t1 = max(times) if times else 1.0
    span = (t1 - t0) or 1.0
    top = 40 if title else 14
    plot_w = width - label_width - 20
    height = top + lane_height * max(1, len(actors)) + 36
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>']
    if title:
        out.append(f'<text x="10" y="24" font-size="15" font-weight="bold">{escape(title)}</text>')
    for i, actor in enumerate(actors):
        y = top + i * lane_height
        shade = "#f4f6f8" if i % 2 == 0 else "#ffffff"
        out.append(f'<rect x="0" y="{y}" width="{width}" height="{lane_height}" fill="{shade}"/>')
        out.append(f'<text x="8" y="{y + lane_height / 2 + 4:.1f}">{escape(actor)}</text>')
        out.append(f'<line x1="{label_width}" y1="{y + lane_height / 2:.1f}" x2="{width - 10}" '
                   f'y2="{y + lane_height / 2:.1f}" stroke="#c8ccd0"/>')
    axis_y = top + lane_height * len(actors) + 14
    for k in range(6):
        x = label_width + plot_w * k / 5
        label = (t0 + span * k / 5) * 1000
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{axis_y - 8}" stroke="#e3e6e9"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y + 6}" text-anchor="middle" fill="#555">{label:.0f} ms</text>')
    for row in rows:
        lane = actors.index(row.actor or "?")
        x = label_width + plot_w * (((row.time or 0.0) - t0) / span)
        y = top + lane * lane_height + lane_height / 2
        fill = FILL[color(row.code)]
        stale = any(n.startswith("stale overwrite") for n in row.notes)
        tip = escape(f"{row.step}. {row.describe()}")
        radius = 7 if fill == FILL["🔴"] else 5
        ring = ' stroke="#ff7f0e" stroke-width="3"' if stale else ' stroke="white" stroke-width="1"'
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}" fill="{fill}"{ring}><title>{tip}</title></circle>')
        if label_steps:
            out.append(f'<text x="{x:.1f}" y="{y - 9:.1f}" text-anchor="middle" font-size="9" fill="#333">'
                       f"{row.step}</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
