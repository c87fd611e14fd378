"""``dicetable learn``: fine-tune the reader on labelled frames of one table, and keep it only if it is better.

Input: any folders ``dicetable bench`` reads (a ``manifest.csv`` of ``image,values``, YOLO labels
with ``classes.txt``, or both, as ``dicetable journal frames`` writes them). A fixed, seeded share
of the frames (``HOLDOUT``) is held back; the rest trains:

- where a frame has boxes, each die is where its label says, and the detector is fine-tuned too;
- where it has only values, the base model's read places the dice, and a die's value is known
  where the labelled values leave one choice (the read's values equal the labels' as multisets,
  or differ in one die: that die is the one value left). Other frames are not trained on.

Classifier A is fine-tuned from the base model's (read back from its ONNX file); classifier B
and the leaning check are kept as the base's. The reader settles a value only where A and B name
it and their average clears the bar, so a value A has learned from a few dozen frames of this
table settles only where the base's B, which knows every table the base was trained on, agrees
and is sure of it too: a table's frames teach one view their look, the other keeps the judgement
they cannot teach. The policy is chosen on the training frames (``training.thresholds``) among
bars as strict as the base's or stricter: a laxer bar that the training frames allow is not shown
safe on frames the model has not seen. The held-out frames are then read with the new model and
with the base, both sets of figures are printed, and MODEL_DIR is written only when the new model settles
none of them wrongly and settles at least as many: exit 0 when written, 1 when the gate refuses
(nothing is written), 2 on an error. The policy's provenance records the command, the frames and
both sets of figures.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.benchtool.labels import LabelError, LabelledImage, load_labelled
from vision.benchtool.score import score
from vision.model import DiceRead, ReadStatus
from vision.reader import ReaderModel, load_model, read_dice
from vision.reader.model_dir import CLASSIFIER, DETECTOR, LEANING, LEANING_ALONE, SECOND_CLASSIFIER
from vision.reader.nets import ModelMissing
from vision.reader.policy import POLICY_FILE, save_policy
from vision.sources.folder import decode_image_file

#: The share of the frames held back to judge the new model against the base.
HOLDOUT = 0.3
#: Training steps: the detector's (only with boxes) and each classifier's, and their batches.
DETECTOR_STEPS = 400
CLASSIFIER_STEPS = 800
CLASSIFIER_BATCH = 64
#: Fine-tuning learning rate: low, the base already knows dice.
LEARNING_RATE = 5e-4
#: Share of the classifier's crops taken where the detector places each die (as the reader crops).
PLACED_SHARE = 0.5


class LearnError(Exception):
    """Nothing can be learned from what was given (no labelled frame, no training library)."""


@dataclass(frozen=True)
class Frame:
    """A labelled frame: its labels and, once decoded, its picture."""

    item: LabelledImage
    image: np.ndarray


@dataclass(frozen=True)
class Figures:
    """How a model reads the held-out frames."""

    rolls: int
    ok: int
    silent: int
    dice: int
    right: int

    def line(self) -> str:
        acc = f"{100 * self.right / self.dice:.1f}%" if self.dice else "-"
        return (f"{self.rolls} rolls: {self.ok} ok, {self.silent} silent misreads; "
                f"dice right {acc} of {self.dice}")

    def to_json(self) -> dict[str, int]:
        return {"rolls": self.rolls, "ok": self.ok, "silent_misreads": self.silent, "dice": self.dice,
                "dice_right": self.right}


def split(frames: list[Frame], seed: int) -> tuple[list[Frame], list[Frame]]:
    """The training frames and the held-out ones: a seeded shuffle of the frames in name order,
    ``HOLDOUT`` of them (at least one) held back, so the same folders and seed always split alike."""
    ordered = sorted(frames, key=lambda f: str(f.item.path))
    order = np.random.default_rng(seed).permutation(len(ordered))
    n_held = max(1, round(HOLDOUT * len(ordered))) if len(ordered) > 1 else 0
    held = {int(i) for i in order[:n_held]}
    return ([f for i, f in enumerate(ordered) if i not in held], [f for i, f in enumerate(ordered) if i in held])


def load_frames(folders: list[Path]) -> list[Frame]:
    frames = []
    for folder in folders:
        try:
            found = load_labelled(folder)
        except (LabelError, OSError) as exc:
            raise LearnError(f"{folder}: {exc}") from exc
        for item in found.images:
            image, _ = decode_image_file(item.path)
            if image is not None and item.dice:
                frames.append(Frame(item, image))
    if not frames:
        raise LearnError(f"no labelled frame with dice in {', '.join(map(str, folders))}")
    return frames


def placed_dice(frame: Frame, read: DiceRead) -> list[tuple[float, float, float, int]]:
    """The frame's dice as (cx, cy, side, value) in pixels: from its boxes, or where the base read
    placed them when the labelled values leave one value for each (else none)."""
    h, w = frame.image.shape[:2]
    item = frame.item
    if item.positional and all(d.cx is not None for d in item.dice):
        return [(d.cx * w, d.cy * h, max(d.w * w, d.h * h), d.value) for d in item.dice  # type: ignore[operator]
                if d.w is not None and d.h is not None]
    if len(read.dice) != len(item.dice):
        return []
    want, got = Counter(d.value for d in item.dice), Counter(read.values)
    missing, extra = want - got, got - want
    if sum(missing.values()) > 1:
        return []
    fix = {next(iter(extra)): next(iter(missing))} if missing else {}
    out = []
    for die in read.dice:
        x, y, bw, bh = die.box
        out.append((x + bw / 2, y + bh / 2, float(max(bw, bh)), fix.get(die.value, die.value)))
    return out


def figures(model: ReaderModel, frames: list[Frame]) -> Figures:
    rolls = ok = silent = dice = right = 0
    for frame in frames:
        read = read_dice(frame.image, expect=len(frame.item.dice), model=model)
        h, w = frame.image.shape[:2]
        s = score(frame.item, read, w, h)
        refused = bool(frame.item.not_to_settle) and read.status is ReadStatus.OK
        rolls += 1
        ok += read.status is ReadStatus.OK
        silent += s.silent or refused
        dice += s.labelled
        right += s.correct
    return Figures(rolls, ok, silent, dice, right)


@dataclass(frozen=True)
class Steps:
    """How long each network trains (a test trains for a few steps only)."""

    detector: int = DETECTOR_STEPS
    classifier: int = CLASSIFIER_STEPS


def _train(base: ReaderModel, frames: list[Frame], out: Path, seed: int, log, steps: Steps) -> None:
    """Fine-tune the base model's networks on ``frames`` and write them into ``out``."""
    try:
        import torch

        from training import train_reader as T
    except ImportError as exc:
        raise LearnError(f"the training library is not installed ({exc.name}): pip install -e '.[learn]' "
                         "(make install does)") from exc
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    data = []
    boxed = []
    for frame in frames:
        read = read_dice(frame.image, expect=len(frame.item.dice), model=base)
        dice = placed_dice(frame, read)
        if dice:
            data.append((frame.image, dice))
            if frame.item.positional:
                boxed.append((frame.image, dice))
    if not data:
        raise LearnError("no training frame could be labelled die by die (give boxes, or frames whose values the "
                         "base model places)")
    log(f"training on {len(data)} frames ({sum(len(d) for _, d in data)} dice), {len(boxed)} with boxes")
    det = T.from_onnx(T.Detector, base.folder / DETECTOR)
    if boxed:
        det = T.train_detector(rng, boxed, steps.detector, batch=16, lr=LEARNING_RATE, exported=det)
        T.export(det, torch.zeros(1, 3, 160, 160), out / DETECTOR, {"input": {2: "h", 3: "w"},
                                                                  "output": {2: "gh", 3: "gw"}})
    else:
        shutil.copy(base.folder / DETECTOR, out / DETECTOR)
    mined = T.mine(det.eval(), data)
    cls = T.from_onnx(T.Classifier, base.folder / CLASSIFIER)
    cls = T.train_classifier(rng, data, steps.classifier, mined, batch=CLASSIFIER_BATCH, lr=LEARNING_RATE,
                             placed_share=PLACED_SHARE, exported=cls)
    T.export(cls, torch.zeros(1, 3, 40, 40), out / CLASSIFIER, {"input": {0: "n"}, "output": {0: "n"}})
    for kept in (SECOND_CLASSIFIER, LEANING, LEANING_ALONE):  # the base's judgement (see the module docstring)
        shutil.copy(base.folder / kept, out / kept)


def _choose_policy(candidate: ReaderModel, frames: list[Frame]):
    """The policy chosen on the training frames, its bars no laxer than the base's (which the
    candidate carries until then)."""
    from training.thresholds import choose, collect, no_laxer_than

    cases = collect((("train", f.item, f.image) for f in frames), candidate.nets, candidate.policy)
    return choose(cases, candidate.policy, no_laxer_than(candidate.policy))[0]


def _install(staged: Path, out: Path) -> None:
    """Put the staged model folder at ``out``, replacing a model folder there in one rename."""
    if out.exists():
        aside = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, aside)
        os.replace(staged, out)
        shutil.rmtree(aside, ignore_errors=True)
    else:
        os.replace(staged, out)


def learn(folders: list[Path], out: Path, base_dir: Path | None = None, seed: int = 0, threads: int = 2,
          log=print, steps: Steps | None = None) -> int:
    """Fine-tune, judge and maybe write (see the module docstring); the exit status."""
    started = time.monotonic()
    steps = steps or Steps()
    cv2.setNumThreads(1)
    try:
        import torch

        torch.set_num_threads(max(1, threads))
    except ImportError:
        pass
    if out.exists() and not out.is_dir():
        raise LearnError(f"--out {out}: a file is there, not a model folder")
    if out.is_dir() and any(out.iterdir()) and not (out / POLICY_FILE).is_file():
        raise LearnError(f"--out {out}: a folder that is not a model folder; name a new or a model folder")
    try:
        base = load_model(base_dir)
    except ModelMissing as exc:
        raise LearnError(f"--base: {exc}") from exc
    frames = load_frames(folders)
    train, held = split(frames, seed)
    if not train or not held:
        raise LearnError(f"{len(frames)} labelled frame(s): too few to learn from and judge (give a session's frames)")
    log(f"{len(frames)} labelled frames: {len(train)} to train on, {len(held)} held out (seed {seed})")
    out.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        _train(base, train, staged, seed, log, steps)
        save_policy(base.policy, staged / POLICY_FILE)
        policy = _choose_policy(load_model(staged), train)
        save_policy(policy, staged / POLICY_FILE)
        candidate = load_model(staged)
        base_fig, new_fig = figures(base, held), figures(candidate, held)
        log(f"held out, base model {base.digest}: {base_fig.line()}")
        log(f"held out, new model: {new_fig.line()}")
        if new_fig.silent or new_fig.ok < base_fig.ok:
            why = "it settles a held-out roll wrongly" if new_fig.silent else "it settles fewer held-out rolls"
            log(f"not written: {why}")
            return 1
        provenance = _provenance(folders, base, seed, len(train), len(held), base_fig, new_fig, started)
        save_policy(policy.with_provenance(provenance), staged / POLICY_FILE)
        _install(staged, out)
        log(f"wrote {out} (model {load_model(out).digest})")
        return 0
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def _provenance(folders: list[Path], base: ReaderModel, seed: int, n_train: int, n_held: int,
                base_fig: Figures, new_fig: Figures, started: float) -> dict[str, Any]:
    names = hashlib.sha256("\n".join(sorted(str(f.resolve()) for f in folders)).encode()).hexdigest()[:16]
    return {
        "chosen_by": "dicetable learn " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "dicetable learn",
        "when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "data": [str(f) for f in folders],
        "data_digest": names,
        "base": {"folder": str(base.folder), "digest": base.digest},
        "seed": seed,
        "frames": {"train": n_train, "held_out": n_held},
        "held_out_figures": {"base": base_fig.to_json(), "new": new_fig.to_json()},
        "minutes": round((time.monotonic() - started) / 60, 1),
    }
