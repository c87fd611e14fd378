"""Train the reader's single-crop leaning check and export it to ONNX (the check that weighs a die
against the frame's other dice is ``train_lean_pair.py``).

    .venv/bin/python -m training.train_lean [--scenes 1500] [--steps 3000] [--seed 0]

A die leaning on the rail or on another die has no face up, so its roll is
not read (the issue's ``no_read``). Seen from above it shows part of a side
face, as a die lying flat does not. This network reads the same 40x40 crop
as the classifiers (``vision.reader.geometry.crop_die``) and gives one
logit: leaning or not (``vision/models/dice_leaning.onnx``). The reader doubts a die this check
or the pair check doubts (``vision.reader.leaning``).

Data: scenes drawn by ``vision.scenes.render`` with a die leaning in half of
them (the renderer tips it 17 to 32 degrees against the rail, or anywhere in
the cage; its label says which die), and as dice that do not lean: the other
dice of those scenes (some seen by a camera tilted back, which shows a
little of every side face; some lying flat against the rail, some under the
cage's wire) and the dice of the *tune* photos of
``../shared/datasets`` (never the held-out runs). Nothing else has
leaning dice with labels, so what it learns of leaning comes from drawn
dice and renders only.

With ``--frames``, frames path-traced by ``training/render`` (their ``meta.jsonl``) join both
sides: a die cocked as the reader must refuse it (tilted more than 8 degrees, or resting on the
rail or on another die) leans, one within 2 degrees of flat does not (between the two it is left
out), each at least half in view. Translucent casino dice show their sides through their bodies
and a tilted camera shows every die's side faces: only such frames show the check what a
cocked casino die looks like beside a flat one. ``--start-onnx`` goes on from an exported check
(e.g. ``vision/models``) instead of starting anew.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from training.train_reader import cbr, colour_aug, export, freeze_norms, from_onnx, load_real, optimise
from vision.benchtool.targets import cocked, half_in_view, load_meta
from vision.reader import geometry as G
from vision.reader.model_dir import LEANING_ALONE
from vision.scenes.render import render_scene
from vision.scenes.table import DICE_SHOWN

ROOT = Path(__file__).resolve().parents[1]

Die = tuple[float, float, float]  # centre x, centre y, bounding-box side (pixels)


class LeanNet(nn.Module):
    """One 40x40 crop -> one logit, leaning. Four small convolutions (~14 k
    weights): the cue, a side face with its edge and pips, is coarse."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            *cbr(3, 8), nn.MaxPool2d(2), *cbr(8, 16), nn.MaxPool2d(2), *cbr(16, 32), nn.MaxPool2d(2),
            *cbr(32, 32), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 1),
        )

    def forward(self, x):
        return self.net(x)


def drawn_dice(rng: np.random.Generator, count: int) -> list[tuple[np.ndarray, list[tuple[Die, bool]]]]:
    """``count`` drawn scenes, each its image and its dice (and whether each leans). A die leans
    in every other scene; in every fourth a die lies flat against the rail, where the leaning
    ones are (else the rail itself would pass for the cue). Both leaning checks learn from these."""
    out = []
    for i in range(count):
        setting = "cage" if rng.random() < 0.35 else "rail"
        n = DICE_SHOWN[setting]
        image, label = render_scene(rng, setting=setting, touching=bool(rng.random() < 0.1),
                                    leaning=int(rng.integers(n)) if i % 2 == 0 else None,
                                    at_rail=int(rng.integers(n)) if i % 4 == 1 else None)
        out.append((image, [(box_die(d.box), bool(d.leaning)) for d in label.dice]))
    return out


def drawn(rng: np.random.Generator, count: int) -> list[tuple[np.ndarray, list[Die], list[Die]]]:
    """``count`` drawn scenes (``drawn_dice``): (image, leaning dice, flat dice)."""
    return [(image, [d for d, leans in dice if leans], [d for d, leans in dice if not leans])
            for image, dice in drawn_dice(rng, count)]


#: A rendered die within this many degrees of flat lies flat (one cocked is the bench's rule,
#: ``vision.benchtool.targets.cocked``).
FLAT_DEG = 2.0
#: Share of each side of a batch taken from rendered frames, where they are given.
FRAME_SHARE = 0.3


def box_die(box: list[float] | tuple[float, ...]) -> Die:
    """A labelled box (x, y, w, h) as the die the reader crops: its centre and its larger side."""
    x, y, w, h = box
    return (x + w / 2, y + h / 2, float(max(w, h)))


def lie_of(die: dict) -> int | None:
    """How a rendered die lies for both leaning checks: 1 cocked, 0 flat, None in between (left out)."""
    return 1 if cocked(die) else 0 if die["tilt_deg"] <= FLAT_DEG else None


def rendered(folders: list[Path]) -> tuple[list, list]:
    """(image, die) pairs of rendered frames: cocked dice, flat dice (see the module docstring)."""
    lean: list = []
    flat: list = []
    for folder in folders:
        for path, rec in load_meta(folder).items():
            keep = [d for d in rec["dice"] if half_in_view(d)]
            if not keep:
                continue
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                continue
            for d in keep:
                lies = lie_of(d)
                if lies is not None:
                    (lean if lies else flat).append((image, box_die(d["box"])))
        print(f"  {folder.name}: {len(lean)} cocked and {len(flat)} flat rendered dice so far", flush=True)
    return lean, flat


def crop(rng: np.random.Generator, image: np.ndarray, die: Die) -> np.ndarray:
    """The die as the reader crops it, with a real detector's centre and size errors, turned anyhow."""
    cx, cy, s = die
    x, y = cx + rng.normal(0, 0.06) * s, cy + rng.normal(0, 0.06) * s
    return colour_aug(rng, G.crop_die(image, x, y, s * float(np.exp(rng.normal(0, 0.1))), rng.uniform(0, 360)))


def pools(scenes, photos) -> tuple[list, list, list]:
    """(image, die) pairs: leaning drawn dice, flat drawn dice, photo dice."""
    return ([(img, d) for img, lean, _ in scenes for d in lean],
            [(img, d) for img, _, flat in scenes for d in flat],
            [(img, (cx, cy, s)) for img, dice in photos for cx, cy, s, _ in dice])


def sample(rng, leaning, flat_drawn, flat_photo, batch: int, lean_rendered=(), flat_rendered=()
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """Half leaning dice; half flat ones, from the drawn scenes and the photos alike, and
    ``FRAME_SHARE`` of each half from rendered frames where there are any."""
    crops, labels = [], []
    for k in range(batch):
        framed = rng.random() < FRAME_SHARE
        if k % 2 == 0:
            pool = lean_rendered if framed and lean_rendered else leaning
        else:
            pool = (flat_rendered if framed and flat_rendered
                    else flat_drawn if rng.random() < 0.5 else flat_photo)
        img, die = pool[int(rng.integers(len(pool)))]
        crops.append(crop(rng, img, die))
        labels.append(float(k % 2 == 0))
    return torch.from_numpy(G.to_blob(crops)), torch.tensor(labels)[:, None]


def recall_and_false_alarms(net, scenes, photos) -> tuple[float, float, float]:
    """Plain crops: share of leaning dice flagged, of flat drawn dice flagged, of photo dice flagged."""
    def flagged(items):
        with torch.no_grad():
            x = torch.from_numpy(G.to_blob([G.crop_die(img, *die) for img, die in items]))
            return float((net(x)[:, 0] > 0).float().mean())
    return tuple(flagged(p) for p in pools(scenes, photos))


def add_common_arguments(ap: argparse.ArgumentParser, scenes: int) -> None:
    """The options both leaning checks' training takes (``train_lean_pair.py`` too)."""
    ap.add_argument("--datasets", type=Path, default=ROOT.parent / "shared" / "datasets")
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "models")
    ap.add_argument("--scenes", type=int, default=scenes, help="drawn scenes to learn from")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (lower when going on from a trained network)")
    ap.add_argument("--frames", type=Path, action="append", default=[],
                    help="a folder of training/render frames (never its held-out sets)")


def seeded(seed: int) -> np.random.Generator:
    """One thread and one seed for torch, OpenCV and the batches' generator."""
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    cv2.setNumThreads(1)
    return np.random.default_rng(seed)


def fit(net: nn.Module, batch: Callable[[], tuple[torch.Tensor, torch.Tensor]], steps: int, lr: float) -> None:
    """Train ``net`` on ``steps`` batches, one logit against a 0/1 label (AdamW, one-cycle rate),
    printing the loss and the batch's accuracy every 200 steps; leaves it in eval mode."""
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    lossf = nn.BCEWithLogitsLoss()
    t0 = time.time()
    for step in range(steps):
        x, y = batch()
        out = net(x)
        loss = lossf(out, y)
        optimise(opt, sched, loss)
        if step % 200 == 0 or step == steps - 1:
            acc = ((out > 0).float() == y).float().mean().item()
            print(f"  lean {step:5d} loss {loss.item():.3f} acc {acc:.3f} ({time.time() - t0:.0f}s)", flush=True)
    net.eval()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_arguments(ap, scenes=1500)
    ap.add_argument("--start-onnx", type=Path, default=None,
                    help=f"go on from this folder's {LEANING_ALONE} (e.g. vision/models)")
    args = ap.parse_args(argv)

    rng = seeded(args.seed)
    photos = load_real(sorted(p for p in args.datasets.iterdir() if p.is_dir()), "tune")
    print(f"drawing {args.scenes} scenes", flush=True)
    scenes = drawn(rng, args.scenes)
    check = drawn(np.random.default_rng(args.seed + 1000), 200)  # other scenes, for the report only

    lean_rendered, flat_rendered = rendered(args.frames)

    net = freeze_norms(from_onnx(LeanNet, args.start_onnx / LEANING_ALONE)) if args.start_onnx else LeanNet()
    leaning, flat_drawn, flat_photo = pools(scenes, photos)
    fit(net, lambda: sample(rng, leaning, flat_drawn, flat_photo, 128, lean_rendered, flat_rendered), args.steps, args.lr)
    report_and_export(net, recall_and_false_alarms(net, check, photos), args.out / LEANING_ALONE, channels=3)
    return 0


def report_and_export(net: nn.Module, rates: tuple[float, float, float], path: Path, channels: int) -> None:
    """Print the check's rates on drawn scenes it did not learn from and on the tune photos
    (leaning dice flagged, flat ones flagged, photo dice flagged), and export it to ``path``."""
    hit, drawn_alarm, photo_alarm = rates
    print(f"  other drawn scenes: {hit:.3f} of leaning dice flagged, {drawn_alarm:.3f} of flat ones; "
          f"tune photos: {photo_alarm:.4f} of their dice flagged", flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    export(net, torch.zeros(1, channels, G.CLS_SIZE, G.CLS_SIZE), path, {"input": {0: "n"}, "output": {0: "n"}})


if __name__ == "__main__":
    sys.exit(main())
