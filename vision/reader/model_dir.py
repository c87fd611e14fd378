"""A model folder (MODEL_DIR): the reader's five networks and the policy that goes with them.

The bundled model is ``vision/models``; ``dicetable learn`` writes others, one per table, and
``dicetable read --model``, ``dicetable bench --model`` and ``[camera] model`` use them. The
networks and the thresholds travel together because thresholds are chosen for the networks they
judge: a table's fine-tuned classifiers with the bundled thresholds would be unproven.

The journal records :attr:`ReaderModel.digest` with every read: a hash of the model's files, so
a disputed read names the very model that made it.
"""
from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path

from vision.reader.nets import DiceNets, ModelMissing
from vision.reader.policy import DEFAULT_POLICY, POLICY_FILE, PolicyError, ReadPolicy, load_policy

#: The bundled model folder.
BUNDLED_MODEL = Path(__file__).resolve().parents[1] / "models"
DETECTOR = "dice_detector.onnx"
CLASSIFIER = "dice_classifier.onnx"
#: The second classifier, trained apart: it reads each die turned by 45 degrees and must agree.
SECOND_CLASSIFIER = "dice_classifier_b.onnx"
#: The leaning check: one logit per pair of crops (a die, another die of its frame) that the
#: first leans (``vision.reader.leaning``).
LEANING = "dice_leaning_pair.onnx"
#: The second leaning check, of one crop alone: either check may doubt a die (``judge.py``).
LEANING_ALONE = "dice_leaning.onnx"
NETWORK_FILES = (DETECTOR, CLASSIFIER, SECOND_CLASSIFIER, LEANING, LEANING_ALONE)
#: Every file that makes a model (what its digest covers); a README beside them is not part of it.
MODEL_FILES = (*NETWORK_FILES, POLICY_FILE)
#: Hex digits of the digest kept (64 bits: no two models of one casino collide by chance).
DIGEST_CHARS = 16


_NO_PAIR_CHECK = (f" (a folder with only the single-crop leaning check, {LEANING_ALONE}: copy {LEANING} from the "
                  f"bundled model, vision/models, or run dicetable learn again)")


@dataclass(frozen=True)
class ReaderModel:
    """Loaded networks, their policy, where they came from and the digest of their files."""

    nets: DiceNets
    policy: ReadPolicy
    folder: Path
    digest: str


def model_problems(folder: Path) -> list[str]:
    """What keeps ``folder`` from being a model folder (empty when nothing does), without
    loading the networks: a configuration check names these before the table starts."""
    if not folder.is_dir():
        return [f"no such model folder: {folder}"]
    problems = [f"{folder / name}: missing" + (_NO_PAIR_CHECK if name == LEANING and (folder / LEANING_ALONE).is_file() else "")
                for name in MODEL_FILES if not (folder / name).is_file()]
    if (folder / POLICY_FILE).is_file():
        try:
            load_policy(folder / POLICY_FILE)
        except PolicyError as exc:
            problems.append(str(exc))
    return problems


def model_digest(folder: Path) -> str:
    """A hash of the model's files, names and contents, in a fixed order."""
    h = hashlib.sha256()
    for name in MODEL_FILES:
        path = folder / name
        h.update(name.encode() + b"\0")
        h.update(path.read_bytes() if path.is_file() else b"(missing)")
        h.update(b"\0")
    return h.hexdigest()[:DIGEST_CHARS]


def load_model(folder: Path | str | None = None) -> ReaderModel:
    """The model in ``folder`` (the bundled one when None), loaded once per process and kept.

    Raises :class:`ModelMissing` for a folder that is not a model (a file missing, a policy that
    cannot be read). Loaded again when its files change, so a table pointed at a newly written
    model does not read with the old one."""
    path = Path(folder).resolve() if folder is not None else BUNDLED_MODEL
    problems = model_problems(path)
    if problems:
        raise ModelMissing("; ".join(problems))
    digest = model_digest(path)
    with _LOCK:
        cached = _LOADED.get(path)
        if cached is not None and cached.digest == digest:
            return cached
        try:
            policy = load_policy(path / POLICY_FILE)
        except PolicyError as exc:
            raise ModelMissing(str(exc)) from exc
        nets = DiceNets(path / DETECTOR, path / CLASSIFIER, path / SECOND_CLASSIFIER, path / LEANING,
                        path / LEANING_ALONE)
        model = ReaderModel(nets, policy, path, digest)
        _LOADED[path] = model
        return model


def bundled_policy() -> ReadPolicy:
    """The bundled model's policy (the defaults when its file cannot be read, which
    :func:`load_model` reports)."""
    try:
        return load_policy(BUNDLED_MODEL / POLICY_FILE)
    except PolicyError:
        return DEFAULT_POLICY


_LOCK = threading.Lock()
_LOADED: dict[Path, ReaderModel] = {}
