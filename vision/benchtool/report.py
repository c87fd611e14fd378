"""The bench report: a text summary for the terminal and an HTML page with every miss drawn.

The HTML report is one folder: ``index.html`` with the figures and a contact
sheet (a grid of thumbnails) of every image whose read was not exactly right,
silent misreads first; each thumbnail shows the labels (thin, blue) and the
read (green when right, red when wrong, with the value) and links to the
full-size annotated image in ``misses/``.
"""
from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import quote

import cv2
import numpy as np

from vision.benchtool.machine import summary_line
from vision.benchtool.run import ImageResult, display_path, misses, settled_but_should_not_be
from vision.benchtool.targets import text as target_lines
from vision.sources.folder import decode_image_file

_ROWS = [
    ("per-die accuracy", "per_die_accuracy", "pct"),
    ("per-roll accuracy", "per_roll_accuracy", "pct"),
    ("rolls ok", "ok_rate", "pct"),
    ("rolls uncertain", "uncertain_rate", "pct"),
    ("rolls no_read", "no_read_rate", "pct"),
    ("ok rolls that are right", "ok_roll_accuracy", "pct"),
    ("silent misreads (images)", "silent_misread_images", "int"),
    ("silent misreads (% of images)", "silent_misread_image_rate", "pct"),
    ("silent misreads (dice)", "silent_misread_dice", "int"),
    ("silent misreads (% of dice)", "silent_misread_die_rate", "pct"),
    ("dice wrong / missed / extra", None, "wme"),
    ("rolls not to settle (touching, leaning) read ok", None, "nts"),
    ("latency median (ms)", "ms_median", "ms"),
    ("latency p95 (ms)", "ms_p95", "ms"),
    ("processor time per read, median (ms)", "cpu_ms_median", "ms"),
]


def _fmt(summary: dict, key: str | None, kind: str) -> str:
    if kind == "wme":
        return f"{summary['dice_wrong']} / {summary['dice_missed']} / {summary['dice_extra']}"
    if kind == "nts":
        n = summary["rolls_not_to_settle"]
        return f"{summary['rolls_not_to_settle_read_ok']} of {n}" if n else "- (none labelled)"
    v = summary[key]
    if v is None:
        return "-"
    if kind == "pct":
        return f"{100 * v:.2f}%"
    if kind == "ms":
        return f"{v:.1f}"
    return str(v)


def text(summary: dict, title: str, notes: list[str] | tuple[str, ...] = ()) -> str:
    """The figures for a terminal; ``notes`` say what the labels were read as and what was left out."""
    lines = [f"{title}: {summary['images']} images, {summary['dice']} dice"]
    lines += [f"  {note}" for note in notes]
    if "model" in summary:
        lines.append(f"  model: {summary['model']['digest']} ({summary['model']['folder']})")
    lines += [f"  {name:<32} {_fmt(summary, key, kind)}" for name, key, kind in _ROWS]
    if "targets" in summary:
        lines += [f"  {line}" for line in target_lines(summary["targets"])]
    lines.append(f"  {summary_line(summary['machine'])}")
    if summary["reasons"]:
        lines.append("  reasons for uncertain / no_read:")
        lines += [f"    {n:5d}  {reason}" for reason, n in summary["reasons"].items()]
    return "\n".join(lines)


def annotate(frame: np.ndarray, result: ImageResult) -> np.ndarray:
    """The frame with labels (blue) and read dice (green right / red wrong) drawn on it."""
    img = frame.copy()
    w, h = result.size
    item, read = result.item, result.read
    right_reads = {ri for li, ri in result.score.pairs if item.dice[li].value == read.dice[ri].value}
    t = max(1, round(max(w, h) / 500))
    if item.positional:
        for d in item.dice:
            cx, cy, dw, dh = d.box
            x0, y0 = int((cx - dw / 2) * w), int((cy - dh / 2) * h)
            x1, y1 = int((cx + dw / 2) * w), int((cy + dh / 2) * h)
            cv2.rectangle(img, (x0, y0), (x1, y1), (255, 128, 0), t)
            cv2.putText(img, str(d.value), (x0, max(0, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * t, (255, 128, 0), t)
    for ri, die in enumerate(read.dice):
        x, y, bw, bh = die.box
        col = (0, 200, 0) if (ri in right_reads or not item.positional) else (0, 0, 255)
        cv2.rectangle(img, (x, y), (x + bw, y + bh), col, t + 1)
        cv2.putText(img, f"{die.value} {die.confidence:.2f}", (x, y + bh + 12 * t), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45 * t, col, t + 1)
    banner = f"{read.status.value}: {read.reason or ''}  read {list(read.values)} truth {list(item.values)}"
    cv2.rectangle(img, (0, 0), (w, 18 * t), (0, 0, 0), -1)
    cv2.putText(img, banner, (4, 13 * t), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * t, (255, 255, 255), t)
    return img


def prepare(out_dir: Path) -> None:
    """Make the report folder ready before a run, so that one it cannot be written to fails
    before the images are read, not after; the misses of an earlier report there are removed
    (they would otherwise sit beside this run's)."""
    misses_dir = out_dir / "misses"
    misses_dir.mkdir(parents=True, exist_ok=True)
    for old in misses_dir.glob("[0-9][0-9][0-9][0-9]_*.jpg"):
        old.unlink()
    probe = out_dir / ".writable"
    probe.write_text("")
    probe.unlink()


def write_html(out_dir: Path, summary: dict, results: list[ImageResult], root: Path, title: str,
               notes: list[str] | tuple[str, ...] = ()) -> Path:
    """Write ``out_dir/index.html`` and the annotated misses (into a folder :func:`prepare` made
    ready); returns the page's path."""
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    cells = []
    for i, r in enumerate(misses(results)):
        frame, _ = decode_image_file(r.item.path)  # the reason is the read's, already in the caption
        name = f"misses/{i:04d}_{r.item.path.stem}.jpg"
        if frame is not None:
            cv2.imwrite(str(out_dir / name), annotate(frame, r))
        link = html.escape(quote(name), quote=True)  # a name may hold '#', '?', '%' or '"'
        kind = "silent" if r.score.silent else r.read.status.value
        why = f"ok, but {' and '.join(r.item.not_to_settle)}: must not be settled" \
            if settled_but_should_not_be(r) else (r.read.reason or "")
        caption = html.escape(f"{display_path(r.item.path, root)} - {kind}: read {list(r.read.values)} "
                              f"truth {list(r.item.values)} {why}")
        img = f'<a href="{link}"><img src="{link}" loading="lazy"></a>' if frame is not None else "(unreadable)"
        cells.append(f'<figure class="{kind}">{img}<figcaption>{caption}</figcaption></figure>')
    rows = "".join(f"<tr><th>{html.escape(n)}</th><td>{_fmt(summary, k, kind)}</td></tr>" for n, k, kind in _ROWS)
    reasons = "".join(f"<li>{n} &times; {html.escape(r)}</li>" for r, n in summary["reasons"].items())
    where = f"<p>{html.escape(summary_line(summary['machine']))}.</p>"
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:1em}} table td{{text-align:right;padding:0 1em}}
.sheet{{display:flex;flex-wrap:wrap;gap:6px}} figure{{margin:0;width:240px;font-size:11px;border:3px solid #999}}
figure.silent{{border-color:#d00}} figure.uncertain{{border-color:#e90}} figure img{{width:100%}}</style></head>
<body><h1>{html.escape(title)}</h1><p>{summary['images']} images, {summary['dice']} dice.</p>
{''.join(f"<p>{html.escape(note)}</p>" for note in notes)}
<table>{rows}</table>{where}<h2>Reasons</h2><ul>{reasons}</ul>
<h2>Every miss ({len(cells)}): red border = silent misread (ok but wrong)</h2>
<p>Blue: labels. Green: read right. Red: read wrong.</p>
<div class="sheet">{''.join(cells)}</div></body></html>"""
    page_path = out_dir / "index.html"
    page_path.write_text(page)
    return page_path
