"""A second opinion on a die's value that shares nothing with the network: count the pips.

The classifier is accurate but can be confidently wrong on something it never
saw; this counter uses plain image morphology, so its mistakes are of another
kind. When both agree the networks need less confidence to settle the die;
when a clear count disagrees they need much more (the policy's ``sure_doubted``): the
counter is often wrong where the networks are right (side pips seen at an
angle, translucent dice), so it raises the bar rather than vetoing.

Pips are small round blobs that differ from the face around them, darker on
a light die or lighter on a dark or translucent one; a long streak (glare on
a translucent die) is not a pip. Both polarities are tried on the centre of
the crop, each cut at one level or several (``_Grid.levels``); the cut with
the most blobs alike in size wins. One level does not serve every die: low,
the close pips of a 5 or 6 run together into long blobs that are not pips;
high, a faint pip of an unevenly lit face drops out.

The pips of one die are painted alike, so they also look alike in colour. A
lamp's highlight on a glossy or translucent die is round enough and bright
enough to pass for a pip, and it sits near the middle of the face where it
turns a 2 into a 3 or a 4 into a 5, for this counter and for the networks
alike; but it is tinted by the body under it (or brighter than the pips),
so it stands apart in colour. A highlight is lighter than the face, so it
can only pass for a light pip, and the pip it forges is the centre one:
``PipCount.highlight`` says that a light blob near the middle of the face
looks unlike the other counted blobs; the judge then asks the networks for
the same near-certainty as against a disagreeing count.
(Off the middle, real photos show pips of one die differing as much, from
uneven light, and a spot there does not turn one face into another.)

The count is taken twice, on two crops of the die: the networks' 40 px crop
and one twice as fine (``FINE_CROP``), where a die larger than about 31 px
is not shrunk and the pips of a 5 or 6 stay apart. The fine count is right
more often but errs elsewhere, so it only ever speaks for the networks, never
against them (``agreed_count``), and it alone is cut at several levels: the
coarse count, which may speak against them, is cut at one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from vision.reader import geometry as G
from vision.reader.policy import DEFAULT_POLICY, ReadPolicy


@dataclass(frozen=True)
class _Grid:
    """What the counter needs of one crop size, made once: the black-hat /
    top-hat element (wider than a pip, with room for a die whose box is a
    third smaller than it is), the die's side, the disc of the face where pips
    are looked for and its pixels as indices into a flattened crop (taking
    them is faster than masking), a pip's area, the crop's centre (px) and
    the levels at which a response is cut, as fractions of its strongest
    (99.5th percentile) on the face."""

    kernel: np.ndarray
    side: float
    face: np.ndarray
    face_at: np.ndarray
    pip_area: float
    centre: float
    levels: tuple[float, ...]


def _grid(size: int, kernel: int, levels: tuple[float, ...]) -> _Grid:
    side = size / G.CROP_FACTOR
    face = cv2.circle(np.zeros((size, size), np.uint8), (size // 2, size // 2), int(side * 0.42), 255, -1) > 0
    return _Grid(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel, kernel)), side, face,
                 np.flatnonzero(face), float(np.pi * (side * 0.085) ** 2), (size - 1) / 2, levels)


#: The fine crop's size: twice the networks' (``G.CLS_SIZE``).
FINE_CROP = 2 * G.CLS_SIZE
#: The levels each count cuts its response at, as fractions of its strongest (the
#: module's docstring says why the coarse count has one).
ONE_LEVEL = (0.45,)
FINE_LEVELS = (0.4, 0.5, 0.6, 0.7, 0.8)
#: The grid of each crop size the counter reads (morphology element 11 and 15 px).
_GRIDS = {G.CLS_SIZE: _grid(G.CLS_SIZE, 11, ONE_LEVEL), FINE_CROP: _grid(FINE_CROP, 15, FINE_LEVELS)}


class PipCount(NamedTuple):
    """The counter's opinion: ``count`` 1..6 (0 = no clear count) and whether a
    light blob in the middle of the face looks unlike the others (a highlight?)."""

    count: int  # type: ignore[assignment]  # the field hides tuple.count, which nothing here calls
    highlight: bool = False


class _Blob(NamedTuple):
    """A counted blob: its area, its distance from the crop's centre, and where
    its pixels lie (the slice of its box and the mask within it)."""

    area: float
    off: float
    box: tuple[slice, slice]
    inside: np.ndarray


def _cuts(response: np.ndarray, grid: _Grid) -> list[np.ndarray]:
    """One polarity's ``response`` inside the face cut at each of the grid's
    levels, as binary images (none where the face holds nothing strong enough
    to be a pip)."""
    vals = response.take(grid.face_at)
    if vals.max() < 25:
        return []
    top = _percentile(vals, 99.5)
    return [((response >= max(20.0, level * top)) & grid.face).view(np.uint8) for level in grid.levels]


def _blobs(binary: np.ndarray, grid: _Grid, beat: int) -> list[_Blob]:
    """The round blobs of pip size in one cut; none when it cannot hold more
    than ``beat`` of them (the most another cut has given).

    Size and box shape are tested on all components at once, and the shape
    of a blob (``_elongation``) only where the cut can still win: there are
    ten cuts of a die's fine crop."""
    _, labels, stats, centres = cv2.connectedComponentsWithStats(binary, connectivity=8)
    _, _, w, h, a = stats[1:].T
    fit = ((a >= 0.25 * grid.pip_area) & (a <= 3.0 * grid.pip_area)
           & (np.maximum(w, h) <= 2.2 * np.minimum(w, h)) & (a >= 0.45 * w * h))
    if np.count_nonzero(fit) <= beat:
        return []
    offs = np.hypot(centres[:, 0] - grid.centre, centres[:, 1] - grid.centre).tolist()
    blobs = []
    for i in (np.flatnonzero(fit) + 1).tolist():
        bx, by, bw, bh, area = stats[i].tolist()
        box = (slice(by, by + bh), slice(bx, bx + bw))
        inside = labels[box] == i
        if _elongation(inside) <= 2.0:
            blobs.append(_Blob(float(area), offs[i], box, inside))
    return blobs


def _percentile(vals: np.ndarray, q: float) -> float:
    """``np.percentile(vals, q)`` (linear), by partial sort: ten times faster on a face's few hundred values."""
    pos = q / 100 * (vals.size - 1)
    k = int(pos)
    k1 = min(k + 1, vals.size - 1)
    part = np.partition(vals, (k, k1))
    return float(part[k]) + (float(part[k1]) - float(part[k])) * (pos - k)


def _elongation(blob: np.ndarray) -> float:
    """Ratio of a blob's long axis to its short one (1 for a disc): a streak of
    glare lying diagonally fills its bounding box like a pip does, but is long."""
    m = cv2.moments(blob.view(np.uint8), binaryImage=True)
    if m["m00"] < 3:
        return 1.0
    a, b, c = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
    root = math.sqrt(max((a - b) ** 2 + 4 * c * c, 0.0))
    big, small = (a + b + root) / 2, (a + b - root) / 2
    return math.sqrt(max(big, 1e-6) / max(small, 1e-6))


def _odd_one_in_the_middle(blobs: list[_Blob], crop: np.ndarray, side: float, policy: ReadPolicy) -> bool:
    """Whether a blob near the middle (``policy.highlight_middle``) differs in colour from the
    others by more than ``policy.highlight_colour``: a highlight forging a centre pip."""
    colours = [crop[b.box][b.inside].mean(axis=0) for b in blobs]
    median = np.median(np.stack(colours), axis=0)
    return any(b.off < policy.highlight_middle * side and float(np.linalg.norm(c - median)) > policy.highlight_colour
               for b, c in zip(blobs, colours))


def count_pips(crop: np.ndarray, policy: ReadPolicy = DEFAULT_POLICY) -> PipCount:
    """Pips seen on a BGR crop centred on a die, of the networks' size
    (``G.CLS_SIZE``) or ``FINE_CROP`` (count 0 when no clear count)."""
    grid = _GRIDS.get(crop.shape[0]) if crop.shape[0] == crop.shape[1] else None
    if grid is None:
        raise ValueError(f"the pip counter reads square crops of {' or '.join(map(str, _GRIDS))} px, "
                         f"not {crop.shape[1]}x{crop.shape[0]}")
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (3, 3), 0)
    best: list[_Blob] = []
    light_pips = False
    for light, op in ((False, cv2.MORPH_BLACKHAT), (True, cv2.MORPH_TOPHAT)):
        for binary in _cuts(cv2.morphologyEx(gray, op, grid.kernel), grid):
            blobs = _blobs(binary, grid, len(best))
            if not blobs:
                continue
            areas = [b.area for b in blobs]
            spread = (max(areas) - min(areas)) / max(areas)
            if spread <= 0.6 and len(blobs) > len(best):
                best, light_pips = blobs, light
    if not 1 <= len(best) <= 6:
        return PipCount(0)
    # A highlight is lighter than the face: it can pass for a pip only among light pips.
    return PipCount(len(best), light_pips and _odd_one_in_the_middle(best, crop, grid.side, policy))


def count_pips_fine(frame: np.ndarray, cx: float, cy: float, side: float,
                    policy: ReadPolicy = DEFAULT_POLICY) -> PipCount:
    """Pips of the die at (cx, cy), ``side`` px wide, in a BGR frame, counted on a ``FINE_CROP`` crop."""
    return count_pips(G.crop_die(frame, cx, cy, side, size=FINE_CROP), policy)


def agreed_count(coarse: PipCount, fine: PipCount, value: int) -> PipCount:
    """The count the judge weighs for a die the networks read as ``value``,
    from the counts on the networks' crop (``coarse``) and on the fine one.

    The coarse count stands, but for two cases where the fine one names the
    networks' value: with no clear coarse count, the fine one is the
    agreement; against a coarse count that disagrees, the two counters cancel
    out and there is no clear count. So the fine count can lower the bar to
    the policy's ``sure_with_pips`` only where the coarse one had nothing to say,
    and a coarse count against the networks is never turned into agreement;
    it only loses its weight. The highlight is the coarse count's, as before.
    """
    if fine.count != value or coarse.count == value:
        return coarse
    return PipCount(value if coarse.count == 0 else 0, coarse.highlight)
