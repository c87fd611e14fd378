"""Train the dice reader's two small networks and export them to ONNX.

    .venv/bin/python -m training.train_reader [--datasets ../shared/datasets] [--seed 0]

* the detector: a fully convolutional net that marks the centre of every die
  on a grid four times coarser than its input, with the die's size and the
  centre's sub-cell offset (``vision/models/dice_detector.onnx``);
* the classifier: reads one die crop (``vision.reader.geometry.crop_die``) as
  "not a die" or a face 1..6 (``vision/models/dice_classifier.onnx``).

Data: the *tune* part of every labelled folder under ``--datasets`` (the
held-out runs of ``vision.benchtool.split`` are never loaded here) plus
generated scenes (``training/synth.py``). Photos are read from where they
lie and never copied. Seeded, CPU only, one thread (it is faster than two on a busy machine);
``--resume`` continues from the weights of the last run. Needs the ``learn``
extra (torch and onnx, ``make install`` installs it); the table never imports this file.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
import torch
from torch import nn

from training.synth import scene
from vision.benchtool.labels import load_folder
from vision.benchtool.split import select
from vision.benchtool.targets import cocked
from vision.reader import geometry as G
from vision.reader.detect import peaks
from vision.reader.nets import load_net
from vision.reader.policy import DEFAULT_POLICY

ROOT = Path(__file__).resolve().parents[1]

#: Folders whose boxes hold only the pip pattern (see their README): the die's
#: bounding box is about the pattern's side divided by this.
PIP_BOX_FOLDERS = {"matteop65-wood-webcam": 0.55}


# ---------------------------------------------------------------- data
def load_real(folders: list[Path], split: str) -> list[tuple[np.ndarray, list[tuple[float, float, float, int]]]]:
    """Images of the chosen split with dice as (cx, cy, bbox side, value) in pixels."""
    out = []
    for folder in folders:
        pip_ratio = PIP_BOX_FOLDERS.get(folder.name)
        for item in select(load_folder(folder), split):
            img = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
            if img is None:
                continue
            h, w = img.shape[:2]
            dice, sides = [], []
            for d in item.dice:
                side = max(d.w * w, d.h * h)
                if pip_ratio:
                    side = side / pip_ratio if d.value > 1 else float("nan")
                dice.append([d.cx * w, d.cy * h, side, d.value])
                sides.append(side)
            known = [s for s in sides if s == s]
            fallback = float(np.median(known)) if known else 0.085 * max(h, w)
            for d in dice:
                if d[2] != d[2]:
                    d[2] = fallback
            out.append((img, [tuple(d) for d in dice]))
        print(f"  {folder.name}: {len(out)} images so far", flush=True)
    return out


def load_crops(folders: list[Path]) -> list[tuple[np.ndarray, list[tuple[float, float, float, int]]]]:
    """Die crops of ``training/render`` (``crops_meta.jsonl``): each an image with its one die
    (cx, cy, box side, value), kept where the die lies flat and in view (a cocked die's "top"
    face is no value the reader may give). The dice around it are not labelled, so these crops
    only ever teach a die's value, never what is not a die."""
    out = []
    for folder in folders:
        for line in (folder / "crops_meta.jsonl").read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if cocked(rec) or rec["visible"] < 0.8 or not rec["in_frame"]:
                continue
            img = cv2.imread(str(folder / rec["image"]), cv2.IMREAD_COLOR)
            if img is None:
                continue
            x, y, w, h = rec["box"]
            out.append((img, [(x + w / 2, y + h / 2, max(w, h), int(rec["value"]))]))
        print(f"  {folder.name}: {len(out)} crops so far", flush=True)
    return out


def colour_aug(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Colour changes that keep pips pips: channel order, inversion, grey, light, blur, noise."""
    img = img[..., rng.permutation(3)] if rng.random() < 0.5 else img
    f = img.astype(np.float32)
    if rng.random() < 0.15:
        f = 255 - f
    if rng.random() < 0.15:
        f[:] = f.mean(axis=2, keepdims=True)
    f = (f - 128) * rng.uniform(0.6, 1.4) + 128 + rng.uniform(-40, 40)
    f *= rng.uniform(0.85, 1.15, 3)
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.2))
    f += rng.normal(0, rng.uniform(0, 6), f.shape)
    return np.clip(f, 0, 255).astype(np.uint8)


#: Photos are shown to the detector zoomed by a random factor in this range
#: (log-uniform) around the reader's guessed scale (``--det-zoom``).
DET_ZOOM = (0.6, 1.8)


def det_sample(rng, img, dice, size=160, zoom=DET_ZOOM):
    """A random detector window: input image, heat target, size/offset targets, mask."""
    h, w = img.shape[:2]
    if max(h, w) <= 400:  # generated scene, already at a random scale
        scale = rng.uniform(0.4, 0.7)
    else:
        scale = G.DET_LONG_SIDE / max(h, w) * float(np.exp(rng.uniform(np.log(zoom[0]), np.log(zoom[1]))))
    small = cv2.resize(img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    if sh < size or sw < size:
        small = cv2.copyMakeBorder(small, 0, max(0, size - sh), 0, max(0, size - sw), cv2.BORDER_REFLECT)
    y0 = int(rng.integers(0, small.shape[0] - size + 1))
    x0 = int(rng.integers(0, small.shape[1] - size + 1))
    win = small[y0:y0 + size, x0:x0 + size]
    pts = [((cx * scale - x0), (cy * scale - y0), s * scale) for cx, cy, s, _ in dice]
    k = int(rng.integers(4))
    flip = rng.random() < 0.5
    win = np.rot90(win, k)
    for _ in range(k):  # rot90 counter-clockwise: (x, y) -> (y, size-1-x)
        pts = [(y, size - 1 - x, s) for x, y, s in pts]
    if flip:
        win = win[:, ::-1]
        pts = [(size - 1 - x, y, s) for x, y, s in pts]
    win = colour_aug(rng, np.ascontiguousarray(win))
    g = size // G.DET_STRIDE
    heat = np.zeros((g, g), np.float32)
    reg = np.zeros((3, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g]
    for x, y, s in pts:
        gx, gy = (x + 0.5) / G.DET_STRIDE - 0.5, (y + 0.5) / G.DET_STRIDE - 0.5
        if not (-0.5 <= gx < g - 0.5 and -0.5 <= gy < g - 0.5):
            continue
        sigma = max(0.6, s / G.DET_STRIDE / 6)
        heat = np.maximum(heat, np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2)))
        ix, iy = int(round(gx)), int(round(gy))
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = (np.log(s / 16.0), gx - ix, gy - iy)
        mask[iy, ix] = 1.0
    return win, heat, reg, mask


#: A detector peak this close to a labelled die's centre (in die sides) is that
#: die as the reader crops it; farther than ``NEGATIVE_OFF`` it is no die at all.
PLACED_OFF = 0.3
NEGATIVE_OFF = 0.45


class Mined(NamedTuple):
    """Per image, where the kept detector puts its peaks.

    ``negatives`` are peaks on no labelled die (x, y, side): the classifier must
    call exactly these "not a die" (hard negatives). ``placed`` are peaks on a
    die (x, y, side, value): the crop the reader will really take of that die,
    with the detector's centre and size rather than the label's, which differ
    most on oblique close-ups where the box takes in the side faces.
    """

    negatives: list[list[tuple[float, float, float]]]
    placed: list[list[tuple[float, float, float, int]]]


def mine(det: "Detector", data, min_peak: float = DEFAULT_POLICY.faint_peak) -> Mined:
    negatives, placed = [], []
    with torch.no_grad():
        for img, dice in data:
            scale = G.detector_scale(img.shape, None) if max(img.shape[:2]) > 400 else 0.5
            small = G.detector_input(img, scale)
            o = det(torch.from_numpy(G.to_blob([small])))[0].numpy()
            spots, on_dice = [], []
            for c in peaks(o, scale, min_peak):
                cx, cy, side = c.cx, c.cy, c.side
                off, value = min(((np.hypot(cx - a, cy - b) / sb, v) for a, b, sb, v in dice), default=(np.inf, 0))
                if off > NEGATIVE_OFF:
                    spots.append((cx, cy, side))
                elif off <= PLACED_OFF:
                    on_dice.append((cx, cy, side, value))
            negatives.append(spots)
            placed.append(on_dice)
    print(f"  mined {sum(map(len, negatives))} hard negatives, {sum(map(len, placed))} placed dice", flush=True)
    return Mined(negatives, placed)


#: Share of the classifier's crops made another shape with ``--cls-stretch``.
STRETCH_SHARE = 0.5


def crop(rng, img, x, y, side, stretch=1.0):
    """A die crop at a random angle; with ``stretch`` S > 1, in ``STRETCH_SHARE``
    of the crops the die is made 1/S to S times as wide as it is high
    (log-uniform), as a photo resized to another shape shows it.

    Crops only ever stretch what they hold: a die made wider is the crop
    stretched across; one made narrower is a crop of a wider span stretched
    down, which keeps its sides in the frame instead of smearing its border."""
    angle = rng.uniform(0, 360)
    if stretch <= 1.0 or rng.random() >= STRETCH_SHARE:
        return G.crop_die(img, x, y, side, angle)
    a = float(np.exp(rng.uniform(-np.log(stretch), np.log(stretch))))
    wide = a >= 1.0
    out = G.crop_die(img, x, y, side if wide else side / a, angle)
    sx, sy = (a, 1.0) if wide else (1.0, 1.0 / a)
    c = (G.CLS_SIZE - 1) / 2
    m = np.float32([[sx, 0, c * (1 - sx)], [0, sy, c * (1 - sy)]])
    return cv2.warpAffine(out, m, (G.CLS_SIZE, G.CLS_SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def cls_sample(rng, img, dice, negatives=(), placed=(), placed_share=0.0, stretch=1.0, alone=False):
    """One classifier crop and its class (0 = not a die, else the face value).

    With ``placed_share``, that share of the crops is a die where the detector
    placed it (``Mined.placed``), with a little jitter. ``stretch``: see ``crop``.
    ``alone``: ``img`` is a rendered die crop whose neighbours are not labelled: only its die."""
    h, w = img.shape[:2]
    cx, cy, s, v = dice[int(rng.integers(len(dice)))]
    r = 0.0 if alone else rng.random()
    if negatives and rng.random() < 0.2:  # where the detector was fooled
        x, y, s = negatives[int(rng.integers(len(negatives)))]
        return colour_aug(rng, crop(rng, img, x, y, s * float(np.exp(rng.normal(0, 0.1))), stretch)), 0
    if placed_share and placed and rng.random() < placed_share:
        x, y, s, v = placed[int(rng.integers(len(placed)))]
        x, y = x + rng.normal(0, 0.03) * s, y + rng.normal(0, 0.03) * s
        return colour_aug(rng, crop(rng, img, x, y, s * float(np.exp(rng.normal(0, 0.05))), stretch)), v
    if r < 0.7:  # a die, with the centre and size errors of a real detector
        x = cx + rng.normal(0, 0.06) * s
        y = cy + rng.normal(0, 0.06) * s
        label = v
    elif r < 0.85:  # half a die: the detector's centre is well off
        a = rng.uniform(0, 2 * np.pi)
        d = rng.uniform(0.5, 0.95) * s
        x, y, label = cx + d * np.cos(a), cy + d * np.sin(a), 0
    else:  # somewhere else
        for _ in range(10):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            if all(np.hypot(x - a, y - b) > 0.8 * sb for a, b, sb, _ in dice):
                break
        label = 0
    return colour_aug(rng, crop(rng, img, x, y, s * float(np.exp(rng.normal(0, 0.1))), stretch)), label


# ---------------------------------------------------------------- networks
def cbr(i, o, stride=1, k=3):
    return [nn.Conv2d(i, o, k, stride, k // 2, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]


#: Channels of the detector's six 3x3 convolutions, and of the classifier's six.
DET_WIDTHS = (16, 24, 32, 32, 32, 32)
CLS_WIDTHS = (16, 32, 32, 64, 64, 96)


class Detector(nn.Module):
    """Stride-4 centre heat map, log size and sub-cell offset of every die.

    A stem brings the frame to a quarter of its size; a context branch looks
    wider at an eighth (about 55 px around a place, enough to tell a die from
    one of its pips), and is put back beside the stem's map, where a 1x1
    convolution joins the two; the head looks at 3x3 cells of that, enough
    to place a centre within its cell. (Dilated convolutions at a quarter
    would widen the view too, but OpenCV's DNN runs them at a third of a
    plain one's speed.)
    """

    def __init__(self, widths=DET_WIDTHS):
        super().__init__()
        a, b, c, d, e, f = widths
        self.body = nn.Sequential(*cbr(3, a, 2), *cbr(a, b, 2), *cbr(b, c))
        self.context = nn.Sequential(*cbr(c, d, 2), *cbr(d, e), *cbr(e, f), nn.Upsample(scale_factor=2))
        self.merge = nn.Sequential(*cbr(c + f, f, k=1))
        self.head = nn.Conv2d(f, 4, 3, padding=1)

    def forward(self, x):
        stem = self.body(x)
        return self.head(self.merge(torch.cat([stem, self.context(stem)], 1)))


class Classifier(nn.Module):
    """One 40x40 crop -> logits of (not a die, 1, 2, 3, 4, 5, 6).

    Two convolutions at 20x20 and at 10x10, where a pip is a few pixels: the
    one-convolution-per-scale net before it could not fit even its own
    training photos (88% of byler's tune dice). About 0.8 ms per crop in
    OpenCV's DNN on one x86 core at ``CLS_WIDTHS``.
    """

    def __init__(self, widths=CLS_WIDTHS):
        super().__init__()
        a, b, c, d, e, f = widths
        self.net = nn.Sequential(
            *cbr(3, a), nn.MaxPool2d(2), *cbr(a, b), *cbr(b, c), nn.MaxPool2d(2),
            *cbr(c, d), *cbr(d, e), nn.MaxPool2d(2),
            *cbr(e, f), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(f, 7),
        )

    def forward(self, x):
        return self.net(x)


def widths_of(state: dict) -> tuple[int, ...]:
    """The channels of every 3x3 convolution in a saved network but the head, in order."""
    return tuple(int(v.shape[0]) for k, v in state.items() if v.ndim == 4 and v.shape[-1] == 3
                 and not k.startswith("head."))


def load(kind, path: Path, widths=None) -> nn.Module:
    """A saved network, narrowed to ``widths`` where they are given and smaller
    than the saved ones (see ``slim``)."""
    state = torch.load(path)
    net = kind(widths_of(state))
    net.load_state_dict(state)
    if widths and tuple(widths) != widths_of(state):
        net = slim(net, kind(widths))
        print(f"  narrowed {path} from {widths_of(state)} to {tuple(widths)} channels", flush=True)
    return net


def start(kind, init: Path | None, widths=None) -> nn.Module:
    """The network a run trains: the one saved at ``init`` (at its own widths,
    or narrowed to ``widths`` where given), or a new one (at ``widths`` where
    given, else the kind's own)."""
    if init and init.is_file():
        print(f"  starting from {init}", flush=True)
        return load(kind, init, widths)
    return kind(widths) if widths else kind()


@torch.no_grad()
def from_onnx(kind, path: Path) -> nn.Module:
    """A network of ``kind`` with the weights of its exported ONNX file (``--start-onnx``).

    The export folds each batch norm into the convolution before it, so the
    norm is given back as the identity carrying the folded bias; ``freeze_norms``
    keeps it so while training goes on (its running statistics would otherwise
    move away from what the weights were folded with). Checked against OpenCV's
    run of the file, as the reader runs it."""
    exported = onnx_layers(path, ("Conv", "Gemm"))
    widths = tuple(int(w.shape[0]) for w, _ in exported if w.ndim == 4 and w.shape[-1] == 3)
    # the detector's last 3x3 is its head; a network of fixed channels (the leaning check) takes none
    net = kind(widths[:-1]) if kind is Detector else kind(widths) if kind is Classifier else kind()
    layers = [m for m in net.modules() if isinstance(m, (nn.Conv2d, nn.BatchNorm2d, nn.Linear))]
    mods = [m for m in layers if not isinstance(m, nn.BatchNorm2d)]
    if len(mods) != len(exported):
        raise ValueError(f"{path} has {len(exported)} weighted layers, a {kind.__name__} {len(mods)}")
    for (weight, bias), mod in zip(exported, mods):
        following = layers[layers.index(mod) + 1] if mod is not layers[-1] else None
        unfold(mod, following if isinstance(following, nn.BatchNorm2d) else None, weight, bias)
    net.eval()
    x = torch.rand(1, 3, 96, 128) if kind is Detector else torch.rand(2, 3, G.CLS_SIZE, G.CLS_SIZE)
    ref = load_net(path)
    ref.setInput(x.numpy())
    gap = float(np.abs(net(x).numpy() - ref.forward()).max())
    if gap > 1e-3:
        raise ValueError(f"{path} read into a {kind.__name__} answers otherwise than OpenCV (by {gap:.2g})")
    print(f"  starting from {path} (within {gap:.1g} of OpenCV's run)", flush=True)
    return net


def onnx_layers(path: Path, ops: tuple[str, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Weight and bias of each node of these ``ops`` in an exported network, in graph order."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return [(weights[n.input[1]], weights[n.input[2]]) for n in model.graph.node if n.op_type in ops]


@torch.no_grad()
def unfold(layer: nn.Module, norm: nn.BatchNorm2d | None, weight: np.ndarray, bias: np.ndarray) -> None:
    """Give ``layer`` an exported layer's weights. Where the export folded a
    batch norm into it, ``norm`` gets the bias and is otherwise the identity."""
    layer.weight.copy_(torch.tensor(weight))
    if norm is None:
        layer.bias.copy_(torch.tensor(bias))
        return
    norm.weight.fill_(1.0)
    norm.bias.copy_(torch.tensor(bias))
    norm.running_mean.zero_()
    norm.running_var.fill_(1.0 - norm.eps)


def freeze_norms(net: nn.Module) -> nn.Module:
    """``net`` in training mode but for its batch norms, which keep their statistics."""
    net.train()
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
    return net


def training_mode(exported: nn.Module | None):
    """How a network is put back to training: ``freeze_norms`` for one read
    back from its exported file (``exported``, see ``from_onnx``), else ``nn.Module.train``."""
    return freeze_norms if exported is not None else nn.Module.train


@torch.no_grad()
def slim(wide: nn.Module, narrow: nn.Module) -> nn.Module:
    """``narrow`` with the weights of ``wide``'s strongest channels.

    Network slimming (Liu et al., 2017): a channel whose batch-norm scale is
    small contributes little, so each convolution keeps the channels with the
    largest |scale| and the next layer keeps only their inputs. What is lost
    is won back by training on from there, much faster than from scratch.
    """
    layers = [m for m in wide.modules() if isinstance(m, (nn.Conv2d, nn.BatchNorm2d, nn.Linear))]
    convs = [m for m in layers if isinstance(m, nn.Conv2d)]
    if any(b.in_channels != a.out_channels for a, b in zip(convs, convs[1:])):
        raise ValueError("only a chain of convolutions can be narrowed (the detector's branches are not one)")
    targets = [m for m in narrow.modules() if isinstance(m, (nn.Conv2d, nn.BatchNorm2d, nn.Linear))]
    keep_in = torch.arange(3)
    for i, (src, dst) in enumerate(zip(layers, targets)):
        if isinstance(src, nn.Conv2d):
            bn = layers[i + 1] if i + 1 < len(layers) and isinstance(layers[i + 1], nn.BatchNorm2d) else None
            keep = (torch.sort(torch.argsort(bn.weight.abs(), descending=True)[:dst.out_channels]).values
                    if bn is not None else torch.arange(src.out_channels))
            dst.weight.copy_(src.weight[keep][:, keep_in])
            if src.bias is not None:
                dst.bias.copy_(src.bias[keep])
            keep_in = keep
        elif isinstance(src, nn.BatchNorm2d):
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(dst, name).copy_(getattr(src, name)[keep_in])
        else:
            dst.weight.copy_(src.weight[:, keep_in])
            dst.bias.copy_(src.bias)
    return narrow


def focal(logit, target):
    """CenterNet's penalty-reduced focal loss on the heat map."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_loss = -(torch.log(1 - p) * p**2 * (1 - target) ** 4 * neg).sum()
    return (pos_loss + neg_loss) / pos.sum().clamp(min=1)


def optimise(opt, sched, loss) -> None:
    """One step of the optimiser, and of its learning-rate schedule, down ``loss``."""
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()


class DetectorTeacher:
    """A detector's ONNX file, run through OpenCV as the reader runs it, whose
    outputs a new detector learns (``--det-teacher``)."""

    def __init__(self, path: Path):
        self.path = path
        self.net = load_net(path)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        self.net.setInput(x.numpy())
        return torch.from_numpy(self.net.forward().copy())

    @torch.no_grad()
    def graft_stem(self, net: "Detector") -> None:
        """Give ``net`` the teacher's first three convolutions (batch norm folded
        into them, as the export leaves it) and keep them: the stem is the
        same shape in both, so the new detector only has to learn what it
        does with the stem's map."""
        convs = onnx_layers(self.path, ("Conv",))[:3]
        layers = [m for m in net.body if isinstance(m, (nn.Conv2d, nn.BatchNorm2d))]
        for (weight, bias), conv, bn in zip(convs, layers[0::2], layers[1::2]):
            unfold(conv, bn, weight, bias)
        net.body.requires_grad_(False)
        net.body.eval()


def distil_detector(out, taught):
    """How far a detector's outputs are from the teacher's: its heat as a soft
    target everywhere, and size and offset wherever the reader would look at
    the teacher's peaks (heat of at least the policy's ``faint_peak``)."""
    soft = torch.sigmoid(taught[:, 0])
    heat = nn.functional.binary_cross_entropy_with_logits(out[:, 0], soft)
    where = (soft >= DEFAULT_POLICY.faint_peak).float()
    reg = (torch.abs(out[:, 1:] - taught[:, 1:]) * where[:, None]).sum() / where.sum().clamp(min=1)
    return 10.0 * heat + reg


def train_detector(rng, data, steps, batch=16, init: Path | None = None, widths=None, lr=3e-3, zoom=DET_ZOOM,
                   teacher: DetectorTeacher | None = None, exported: nn.Module | None = None):
    """With a ``teacher``, the detector takes the teacher's stem and also learns
    its outputs (``distil_detector``), not only the labels. ``exported``: as
    for ``train_classifier``."""
    net = exported if exported is not None else start(Detector, init, widths)
    training_mode(exported)(net)
    if teacher is not None:
        teacher.graft_stem(net)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    t0 = time.time()
    for step in range(steps):
        samples = [det_sample(rng, *data[int(rng.integers(len(data)))], zoom=zoom) for _ in range(batch)]
        x = torch.from_numpy(G.to_blob([s[0] for s in samples]))
        heat = torch.from_numpy(np.stack([s[1] for s in samples]))
        reg = torch.from_numpy(np.stack([s[2] for s in samples]))
        mask = torch.from_numpy(np.stack([s[3] for s in samples]))
        out = net(x)
        l_heat = focal(out[:, 0], heat)
        l_reg = (torch.abs(out[:, 1:] - reg) * mask[:, None]).sum() / mask.sum().clamp(min=1)
        loss = l_heat + l_reg
        l_taught = distil_detector(out, teacher(x)) if teacher is not None else torch.zeros(())
        optimise(opt, sched, loss + l_taught)
        if step % 100 == 0 or step == steps - 1:
            print(f"  det {step:5d} heat {l_heat.item():.3f} reg {l_reg.item():.3f} taught {l_taught.item():.3f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
    return net.eval()


def face_accuracy(net, data) -> float:
    """Share of the labelled dice whose plain crop (no augmentation) the classifier reads right."""
    crops, values = [], []
    for img, dice in data:
        for cx, cy, s, v in dice:
            crops.append(G.crop_die(img, cx, cy, s))
            values.append(v)
    with torch.no_grad():
        pred = torch.cat([net(torch.from_numpy(G.to_blob(crops[i:i + 256]))).argmax(1)
                          for i in range(0, len(crops), 256)])
    return float((pred.numpy() == np.array(values)).mean())


def train_classifier(rng, data, steps, mined: Mined, batch=128, init: Path | None = None, every=None, lr=3e-3,
                     widths=None, teacher: nn.Module | None = None, placed_share: float = 0.0,
                     exported: nn.Module | None = None, stretch: float = 1.0, crops=(), crop_share: float = 0.0):
    """With a ``teacher``, the classifier also learns to give the teacher's
    probabilities (``distil``), not only the labels. ``exported``: a network
    read back from its ONNX file (``from_onnx``) to go on from, its norms kept.
    ``crops`` (``load_crops``) make ``crop_share`` of each batch."""
    net = exported if exported is not None else start(Classifier, init, widths)
    training = training_mode(exported)
    training(net)
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.02)
    # every die as likely as any other: by image, the webcam set's one to three
    # dice per frame would outweigh the tray photos' many dice of every kind
    weight = np.array([len(dice) for _, dice in data], np.float64)
    weight /= weight.sum()
    t0 = time.time()
    for step in range(steps):
        n_crops = int(rng.binomial(batch, crop_share)) if crops else 0
        picks = rng.choice(len(data), size=batch - n_crops, p=weight)
        samples = [cls_sample(rng, *data[i], mined.negatives[i], mined.placed[i], placed_share, stretch)
                   for i in picks]
        samples += [cls_sample(rng, *crops[int(i)], stretch=stretch, alone=True)
                    for i in rng.integers(len(crops), size=n_crops)] if n_crops else []
        x = torch.from_numpy(G.to_blob([s[0] for s in samples]))
        y = torch.tensor([s[1] for s in samples])
        out = net(x)
        loss = lossf(out, y)
        if teacher is not None:
            with torch.no_grad():
                taught = teacher(x)
            loss = loss + distil(out, taught)
        optimise(opt, sched, loss)
        if step % 100 == 0 or step == steps - 1:
            acc = (out.argmax(1) == y).float().mean().item()
            print(f"  cls {step:5d} loss {loss.item():.3f} acc {acc:.3f} ({time.time() - t0:.0f}s)", flush=True)
        if every and (step + 1) % every[0] == 0 and step + 1 < steps:
            every[1](net.eval(), step + 1)
            training(net)
    return net.eval()


def distil(out, taught, temperature: float = 2.0):
    """Knowledge distillation (Hinton et al., 2015): the KL divergence from the
    teacher's softened probabilities. A narrowed classifier learns from them
    how unlike each face a crop is, which the labels alone do not say."""
    t = temperature
    return nn.functional.kl_div(nn.functional.log_softmax(out / t, 1), nn.functional.softmax(taught / t, 1),
                                reduction="batchmean") * t * t


def export(net, example, path: Path, dynamic: dict):
    torch.onnx.export(net, example, str(path), input_names=["input"], output_names=["output"],
                      dynamic_axes=dynamic, opset_version=13, dynamo=False)
    print(f"  wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")


def _widths(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(","))


def _zoom(text: str) -> tuple[float, float]:
    lo, hi = (float(x) for x in text.split(","))
    if not 0 < lo <= hi:
        raise argparse.ArgumentTypeError(f"expected LO,HI with 0 < LO <= HI, got {text}")
    return lo, hi


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=Path, default=ROOT.parent / "shared" / "datasets")
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "models")
    ap.add_argument("--extra", type=Path, action="append", default=[],
                    help="a labelled folder used whole, e.g. scenes from `python -m vision.benchtool.dataset`")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--det-steps", type=int, default=2500)
    ap.add_argument("--cls-steps", type=int, default=2500)
    ap.add_argument("--synth", type=int, default=500, help="generated scenes added to the photos")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cls-name", default="dice_classifier.onnx",
                    help="file name of the exported classifier (dice_classifier_b.onnx for the second one)")
    ap.add_argument("--cls-lr", type=float, default=3e-3, help="the classifier's peak learning rate (lower to go on from --resume)")
    ap.add_argument("--det-widths", type=_widths, default=None,
                    help="the detector's channels, e.g. 16,24,24,24,24 (with --resume, the saved one is narrowed)")
    ap.add_argument("--cls-widths", type=_widths, default=None,
                    help="the classifier's channels, e.g. 16,24,24,48,48,64 (with --resume, the saved one is narrowed)")
    ap.add_argument("--teacher", type=Path, default=None,
                    help="saved classifier weights to distil from (e.g. the wider one a --cls-widths run narrows)")
    ap.add_argument("--det-teacher", type=Path, default=None,
                    help="a detector's ONNX file (e.g. the committed one) whose stem the new detector takes and "
                         "keeps, and whose outputs it learns besides the labels")
    ap.add_argument("--det-lr", type=float, default=3e-3, help="the detector's peak learning rate")
    ap.add_argument("--det-zoom", type=_zoom, default=DET_ZOOM,
                    help="range of the random zoom of photos around the guessed scale, e.g. 0.6,1.8")
    ap.add_argument("--placed", type=float, default=0.0,
                    help="share of the crops taken of a die where the kept detector places it (its centre "
                         "and size, not the label's); 0 keeps the crops of the runs before this option")
    ap.add_argument("--save-every", type=int, default=0,
                    help="also export the classifier every N steps (as NAME.stepN.onnx), to follow a long run")
    ap.add_argument("--ckpt", type=Path, default=ROOT.parent / ".cache" / "dicetable-train",
                    help="where the PyTorch weights are kept between runs (outside the repository)")
    ap.add_argument("--resume", action="store_true", help="start from the weights in --ckpt")
    ap.add_argument("--start-onnx", type=Path, default=None,
                    help="start from the exported networks in this folder (e.g. vision/models) instead of --ckpt: "
                         "dice_detector.onnx and the classifier --cls-name train on (the weights such a run "
                         "leaves in --ckpt go on only this way again, from the files it exports)")
    ap.add_argument("--cls-stretch", type=float, default=1.0,
                    help="make the dice of half the classifier's crops up to this many times wider or narrower "
                         "than high, as photos resized to another shape show them (1 keeps them as they are)")
    ap.add_argument("--crops", type=Path, action="append", default=[],
                    help="a folder of rendered die crops (training/render crops), for the classifier only")
    ap.add_argument("--crop-share", type=float, default=0.25, help="share of each classifier batch taken from --crops")
    args = ap.parse_args(argv)
    if args.start_onnx and args.resume:
        ap.error("--start-onnx and --resume start from different weights: give one of them")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    print("loading the tune split of", args.datasets, flush=True)
    real = load_real(sorted(p for p in args.datasets.iterdir() if p.is_dir()), "tune")
    real += load_real(args.extra, "all")
    print(f"generating {args.synth} scenes", flush=True)
    synth = [scene(rng) for _ in range(args.synth)]
    synth = [s for s in synth if s[1]]
    # photos twice as often as drawings: they are what the table looks like
    data = real * 2 + synth
    print(f"{len(real)} photos, {len(synth)} scenes", flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    args.ckpt.mkdir(parents=True, exist_ok=True)
    det_pt, cls_pt = args.ckpt / "detector.pt", args.ckpt / "classifier.pt"

    def exported(kind, name: str) -> nn.Module | None:
        return from_onnx(kind, args.start_onnx / name) if args.start_onnx else None

    if args.det_steps > 0:
        det = train_detector(rng, data, args.det_steps, init=det_pt if args.resume else None,
                             widths=args.det_widths, lr=args.det_lr, zoom=args.det_zoom,
                             teacher=DetectorTeacher(args.det_teacher) if args.det_teacher else None,
                             exported=exported(Detector, "dice_detector.onnx"))
        torch.save(det.state_dict(), det_pt)
    else:  # classifier only: mine with the kept detector
        det = exported(Detector, "dice_detector.onnx")
        if det is None:
            det = load(Detector, det_pt).eval()
    export(det, torch.zeros(1, 3, 160, 160), args.out / "dice_detector.onnx",
           {"input": {2: "h", 3: "w"}, "output": {2: "gh", 3: "gw"}})
    if args.cls_steps <= 0:
        return 0
    mined = mine(det, data)
    cls_shape = torch.zeros(1, 3, G.CLS_SIZE, G.CLS_SIZE)
    cls_axes = {"input": {0: "n"}, "output": {0: "n"}}

    def checkpoint(net, step):
        print(f"  step {step}: {face_accuracy(net, real):.4f} of the labelled dice read right", flush=True)
        torch.save(net.state_dict(), cls_pt)
        export(net, cls_shape, args.out / f"{Path(args.cls_name).stem}.step{step}.onnx", cls_axes)

    every = (args.save_every, checkpoint) if args.save_every else None
    cls = train_classifier(rng, data, args.cls_steps, mined, init=cls_pt if args.resume else None,
                           every=every, lr=args.cls_lr, widths=args.cls_widths,
                           teacher=load(Classifier, args.teacher).eval() if args.teacher else None,
                           placed_share=args.placed, stretch=args.cls_stretch,
                           exported=exported(Classifier, args.cls_name),
                           crops=load_crops(args.crops), crop_share=args.crop_share)
    torch.save(cls.state_dict(), cls_pt)
    print(f"  final: {face_accuracy(cls, real):.4f} of the labelled dice read right", flush=True)
    export(cls, cls_shape, args.out / args.cls_name, cls_axes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
