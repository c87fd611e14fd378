"""Train the reader's leaning check, a die weighed against another die of the same picture, and
export it to ONNX.

    .venv/bin/python -m training.train_lean_pair [--scenes 1000] [--steps 3000] [--seed 0]
        [--frames DIR ...] [--crops DIR ...] [--width 16]

A die leaning on the rail or on another die has no face up, so its roll is not read (the issue's
``no_read``). Seen from above it shows part of a side face. But under a camera off the vertical
every flat die shows a side face too, and that picture is the one a cocked die gives a camera
straight above: one crop cannot tell them apart. Two dice of one picture share the camera, so a
flat die looks like the other flat dice of its frame and a cocked one does not. The network reads
two 40x40 crops (``vision.reader.geometry.crop_die``) stacked into six channels, the die and a
reference die of the same picture, turned alike, and gives one logit: the first die is cocked.
The reader asks it of each die against every other die of the frame and keeps the lowest answer,
and of a lone die against itself (``vision.reader.leaning``);
``vision/models/dice_leaning_pair.onnx``.

Data, as groups of dice of one picture, each die cocked or flat:

- scenes drawn by ``vision.scenes.render``, a die leaning in half of them (17 to 32 degrees
  against the rail, or anywhere in the cage), a die lying flat against the rail in every fourth;
- the dice of the *tune* photos of ``../shared/datasets`` (never the held-out runs), all flat;
- ``--frames``: frames path-traced by ``training/render`` (their ``meta.jsonl``);
- ``--crops``: its die crops (``crops_meta.jsonl``), the crops of one render (one seed, one
  camera) making a group.

A rendered die cocked as the reader must refuse it (tilted more than 8 degrees, or resting on the
rail or on another die) leans; one within ``train_lean.FLAT_DEG`` of flat does not (between the two it is
left out); each at least half in view. A pair is a cocked die against a flat one of its group
(leans), or a flat die against any other (does not); ``SELF_SHARE`` of them are a die against
itself, labelled by its own lie, for a frame where one die is found.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from training.train_lean import Die, add_common_arguments, box_die, drawn_dice, fit, lie_of, report_and_export, seeded
from training.train_reader import cbr, colour_aug, load_real
from vision.benchtool.targets import half_in_view, load_meta
from vision.reader import geometry as G
from vision.reader.leaning import pair_blob
from vision.reader.model_dir import LEANING

ROOT = Path(__file__).resolve().parents[1]

#: Dice of one picture: (image, die, 1 when it leans else 0).
Group = list[tuple[np.ndarray, Die, int]]

#: Share of pairs that are a die against itself.
SELF_SHARE = 0.1
#: Where each side of a batch comes from, where there is such data (renders: frames and crops).
LEANING_FROM = {"rendered": 0.6, "drawn": 0.4}
FLAT_FROM = {"rendered": 0.45, "drawn": 0.25, "photos": 0.3}


class PairLeanNet(nn.Module):
    """Two 40x40 crops stacked (six channels) -> one logit, the first die leans. Four small
    convolutions: the cue, a side face unlike the reference's, is coarse."""

    def __init__(self, width: int = 16):
        super().__init__()
        w = width
        self.net = nn.Sequential(
            *cbr(6, w), nn.MaxPool2d(2), *cbr(w, 2 * w), nn.MaxPool2d(2), *cbr(2 * w, 4 * w), nn.MaxPool2d(2),
            *cbr(4 * w, 4 * w), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * w, 1),
        )

    def forward(self, x):
        return self.net(x)


def drawn(rng: np.random.Generator, count: int) -> list[Group]:
    """``count`` drawn scenes (``train_lean.drawn_dice``), a group each."""
    return [[(image, die, int(leans)) for die, leans in dice] for image, dice in drawn_dice(rng, count)]


def photographed(photos) -> list[Group]:
    """The tune photos' dice, a group per photo, all flat."""
    return [[(img, (cx, cy, s), 0) for cx, cy, s, _ in dice] for img, dice in photos]


def rendered(folders: list[Path], crop_folders: list[Path] = ()) -> list[Group]:
    """Groups of rendered dice: a frame's (``meta.jsonl``), or the crops of one render
    (``crops_meta.jsonl``, by seed). Cocked dice lean, flat ones do not, the rest is left out."""
    groups: list[Group] = []
    for folder in folders:
        for path, rec in load_meta(folder).items():
            keep = [d for d in rec["dice"] if half_in_view(d) and lie_of(d) is not None]
            image = cv2.imread(str(path), cv2.IMREAD_COLOR) if keep else None
            if image is not None:
                groups.append([(image, box_die(d["box"]), lie_of(d)) for d in keep])  # type: ignore[misc]
        print(f"  {folder.name}: {len(groups)} rendered groups so far", flush=True)
    for folder in crop_folders:
        by_seed: dict[object, Group] = defaultdict(list)
        for line in (folder / "crops_meta.jsonl").read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            lie = lie_of(d)
            image = cv2.imread(str(folder / d["image"]), cv2.IMREAD_COLOR) if half_in_view(d) and lie is not None else None
            if image is not None:
                by_seed[d["seed"]].append((image, box_die(d["box"]), lie))  # type: ignore[arg-type]
        groups += by_seed.values()
        print(f"  {folder.name}: {len(groups)} rendered groups so far", flush=True)
    return groups


def pair_crops(rng: np.random.Generator, first: tuple[np.ndarray, Die], second: tuple[np.ndarray, Die]
               ) -> tuple[np.ndarray, np.ndarray]:
    """Both dice as the reader crops them, each with a real detector's centre and size errors,
    turned by one angle and given one colour change (the camera is one for both)."""
    angle = rng.uniform(0, 360)
    crops = []
    for image, (cx, cy, s) in (first, second):
        x, y = cx + rng.normal(0, 0.06) * s, cy + rng.normal(0, 0.06) * s
        crops.append(G.crop_die(image, x, y, s * float(np.exp(rng.normal(0, 0.1))), angle))
    both = colour_aug(rng, np.hstack(crops))
    return both[:, :G.CLS_SIZE], both[:, G.CLS_SIZE:]


def pick_pair(rng: np.random.Generator, groups: list[Group], leans: bool) -> tuple[int, int, Group] | None:
    """A pair of one group: a cocked die against a flat one (``leans``), or a flat die against any
    other die; a die against itself in ``SELF_SHARE`` of them. None when the groups have no such pair."""
    for _ in range(50):
        group = groups[int(rng.integers(len(groups)))]
        firsts = [i for i, (_, _, lie) in enumerate(group) if lie == leans]
        if not firsts:
            continue
        i = firsts[int(rng.integers(len(firsts)))]
        if rng.random() < SELF_SHARE:
            return i, i, group
        refs = [j for j, (_, _, lie) in enumerate(group) if j != i and (lie == 0 or not leans)]
        if refs:
            return i, refs[int(rng.integers(len(refs)))], group
    return None


def sample(rng: np.random.Generator, sources: dict[str, list[Group]], batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Half pairs that lean, half that do not, each side from the sources in its shares
    (``LEANING_FROM``, ``FLAT_FROM``) among those given."""
    firsts, seconds, labels = [], [], []
    while len(labels) < batch:
        leans = len(labels) % 2 == 0
        shares = {k: v for k, v in (LEANING_FROM if leans else FLAT_FROM).items() if sources.get(k)}
        kind = rng.choice(list(shares), p=np.array(list(shares.values())) / sum(shares.values()))
        picked = pick_pair(rng, sources[kind], leans)
        if picked is None:
            continue
        i, j, group = picked
        a, b = pair_crops(rng, group[i][:2], group[j][:2])
        firsts.append(a)
        seconds.append(b)
        labels.append(float(leans))
    return torch.from_numpy(pair_blob(G.to_blob(firsts), G.to_blob(seconds))), torch.tensor(labels)[:, None]


def leaning_rates(net: nn.Module, groups: list[Group]) -> tuple[float, float]:
    """As the reader asks (each die against every other of its picture, the lowest kept): the share
    of leaning dice flagged, and of flat ones."""
    from vision.reader.leaning import lowest_against_others

    flagged: dict[int, list[bool]] = {0: [], 1: []}
    for group in groups:
        blob = G.to_blob([G.crop_die(img, *die) for img, die, _ in group])

        def run(pairs: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                return torch.sigmoid(net(torch.from_numpy(pairs)))[:, 0].numpy()

        for (_, _, lie), p in zip(group, lowest_against_others(blob, run)):
            flagged[lie].append(bool(p >= 0.5))
    return tuple(float(np.mean(flagged[k])) if flagged[k] else float("nan") for k in (1, 0))  # type: ignore[return-value]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(ap, scenes=1000)
    ap.add_argument("--width", type=int, default=16, help="channels of the first convolution")
    ap.add_argument("--crops", type=Path, action="append", default=[],
                    help="a folder of training/render die crops (crops_meta.jsonl)")
    args = ap.parse_args(argv)

    rng = seeded(args.seed)
    photos = photographed(load_real(sorted(p for p in args.datasets.iterdir() if p.is_dir()), "tune"))
    print(f"drawing {args.scenes} scenes", flush=True)
    sources = {"drawn": drawn(rng, args.scenes), "photos": photos, "rendered": rendered(args.frames, args.crops)}
    check = drawn(np.random.default_rng(args.seed + 1000), 200)  # other scenes, for the report only

    net = PairLeanNet(args.width)
    fit(net, lambda: sample(rng, sources, 128), args.steps, args.lr)
    report_and_export(net, (*leaning_rates(net, check), leaning_rates(net, photos)[1]), args.out / LEANING, channels=6)
    return 0


if __name__ == "__main__":
    sys.exit(main())
