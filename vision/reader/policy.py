"""The reader's policy: every threshold that turns evidence into ``ok`` / ``uncertain`` / ``no_read``.

One frozen object, so a threshold is changed in one place and a learned model carries its own:
``policy.json`` lies in the model folder beside the networks (``vision.reader.model_dir``) and
holds these values and their provenance, the output of the script that chose them (the command,
the data, the figures measured with them). The defaults below are those of the bundled model.

The thresholds are chosen for safety first: on the data they were chosen on, no ``ok`` read was
wrong; when unsure, the policy asks the dealer. ``training/learn.py`` writes a table's policy and
``training/sweep_thresholds.py`` replays the judge over other values.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

#: The file a model folder keeps its policy in.
POLICY_FILE = "policy.json"
#: The layout of that file this code reads.
POLICY_FORMAT = 1


class PolicyError(ValueError):
    """A policy file that cannot be read, or a threshold out of its range; names the file and key."""


@dataclass(frozen=True)
class ReadPolicy:
    """The thresholds of the reader, grouped by the step that uses them."""

    # -- finding dice (detector heat, classifier "not a die" probability)
    #: a place whose detector peak reaches this is counted as a die ...
    die_peak: float = 0.2
    #: ... and between this and ``die_peak`` it leaves a doubt that a die is there.
    faint_peak: float = 0.1
    #: a place the classifier calls "not a die" with this probability is dropped.
    not_a_die: float = 0.5
    #: a faint place the classifier takes for a die with more than this probability is a doubt.
    doubt: float = 0.6
    #: the second classifier reads only places whose "not a die" probability is below this.
    second_view: float = 0.7

    # -- placing dice (distances in die sides, centre to centre)
    #: two places closer than this are one die seen twice; the weaker is dropped ...
    same_die: float = 0.6
    #: ... unless it is at least this fraction of the stronger: then the top face is in doubt.
    same_die_clear: float = 0.7
    #: detector boxes closer than this are dice touching or stacked (a box of a die turned 45
    #: degrees is 1.4 top faces wide, so dice flush and square to the camera pass this rule) ...
    touching: float = 0.9
    #: ... and, with a calibrated top-face size, centres closer than this many top faces.
    touching_top_faces: float = 1.12
    #: dice whose centres are closer than this many of the larger box's side may touch (two dice
    #: turned by 45 degrees meeting corner to corner are a box apart; a corner on a face, less;
    #: and a found box is often a little smaller than the die, most under the cage's wire):
    #: ``uncertain``. Rolls this close are not among those a reader must settle unaided.
    close: float = 1.15
    #: a roll whose biggest die looks this many times the smallest may hold a leaning or stacked die.
    size_ratio: float = 1.5

    # -- how sure a value must be (probability of the value, views averaged)
    #: with no clear pip count;
    sure_alone: float = 0.9
    #: with the pip counter agreeing (the two views must still agree on the value; the counter
    #: shares no weights with them, but a die seen from the side shows a side face's pips to all
    #: three, which the leaning check and the top-face rules guard);
    sure_with_pips: float = 0.85
    #: with a cue against the value (a disagreeing count, a highlight, another look's other value);
    sure_doubted: float = 0.95
    #: the same after the second look (eight views averaged give a steadier probability; never higher).
    sure_doubted_second_look: float = 0.92
    #: a die boxed smaller than this (px) shows pips of two or three pixels: never sure.
    min_sure_side_px: float = 24.0

    # -- which face is up
    #: a die the leaning check (against the frame's other dice) gives at least this probability
    #: has no face up: ``no_read`` ...
    leaning: float = 0.7
    #: ... and at least this one, it may lean: ``uncertain``.
    leaning_doubt: float = 0.3
    #: a die the single-crop check gives at least this probability may lean too: the two checks
    #: miss different dice, and a die either doubts is not settled.
    leaning_alone_doubt: float = 0.7
    #: a camera further than this off the vertical (calibrated tilt, degrees) sees side faces
    #: large enough to be read for the top one: its reads are never ``ok``.
    max_view_tilt_deg: float = 25.0
    #: under a tilted camera, two places of one die this many sides apart along the direction side
    #: faces show in are its top face (the far one) and the side face turned to the camera.
    side_face_apart: float = 0.2
    #: uncalibrated, where every die's outline fits a cube seen this many degrees off the vertical ...
    side_face_deg: float = 12.0
    #: ... its side faces showing within this many degrees of down the frame, the camera is off the
    #: vertical: the dice are read from their top faces (``oblique.py``) ...
    side_face_axis_deg: float = 30.0
    #: ... unless they are seen at angles further apart than this (a cocked die among flat ones).
    side_face_spread_deg: float = 12.0

    # -- the scale the detector sees an uncalibrated frame at (side of a die at its input, px)
    #: dice found outside this band are looked for again at another scale ...
    die_px_band: tuple[float, float] = (14.0, 36.0)
    #: ... the one that shows them this big.
    rescaled_die_px: float = 21.0

    # -- a close-up (dice of a fifth of the frame or more), looked at with the frame shrunk
    #: 1s inside a close-up die this many times their size may be its pips ...
    pips_inside: float = 3.5
    #: ... when that die's "not a die" probability is at most this.
    pips_holder_not_a_die: float = 0.05
    #: a die of the standard scale at least this fraction of a close-up die's size is seen whole.
    whole_share: float = 0.5
    #: two such dice whose centres lie within this fraction of a side are one die seen by both scales.
    same_place: float = 0.1
    #: a close-up 1's pip lies in the square of this fraction of its side around its centre.
    pip_zone: float = 0.6
    #: a box whose face differs from the ground beyond its corners by less than this (Delta E) is
    #: ground through and through: under 1 two colours look the same to the eye.
    ground_like: float = 1.0

    # -- the pip counter's highlight cue
    #: a counted blob whose mean colour lies farther than this (BGR distance, 0..441) from the
    #: blobs' median colour looks unlike the other pips ...
    highlight_colour: float = 18.0
    #: ... and is a forged centre pip when it lies within this fraction of the side from the centre.
    highlight_middle: float = 0.15

    #: where these values come from: the chooser's output (command, data, figures); not a threshold.
    provenance: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def thresholds(self) -> dict[str, Any]:
        """The threshold values by name, as the policy file holds them."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items() if k != "provenance"}

    def with_provenance(self, provenance: dict[str, Any]) -> ReadPolicy:
        return replace(self, provenance=dict(provenance))


#: The bundled model's policy when no file says otherwise.
DEFAULT_POLICY = ReadPolicy()


def _problem(name: str, value: Any) -> str | None:
    """What is wrong with ``value`` for the threshold ``name``, or None."""
    default = getattr(DEFAULT_POLICY, name)
    if isinstance(default, tuple):
        ok = (isinstance(value, list) and len(value) == len(default)
              and all(_is_number(v) and v > 0 for v in value) and value == sorted(value))
        return None if ok else f"must be a list of {len(default)} rising numbers > 0 (got {value!r})"
    if not _is_number(value) or value < 0:
        return f"must be a number >= 0 (got {value!r})"
    return None


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def policy_from_dict(data: Any, source: str = "<policy>") -> ReadPolicy:
    """A policy from a policy file's content. Thresholds it does not name keep the defaults (a
    model folder written before a threshold existed reads as it did); a name this code does not
    know, or a value out of range, is an error naming it."""
    if not isinstance(data, dict):
        raise PolicyError(f"{source}: must hold a JSON object")
    if data.get("format") != POLICY_FORMAT:
        raise PolicyError(f"{source}: format: must be {POLICY_FORMAT} (got {data.get('format')!r})")
    values = data.get("thresholds", {})
    if not isinstance(values, dict):
        raise PolicyError(f"{source}: thresholds: must be an object of name: value")
    known = {f.name for f in fields(ReadPolicy)} - {"provenance"}
    problems = [f"thresholds.{k}: unknown threshold" for k in values if k not in known]
    problems += [f"thresholds.{k}: {p}" for k, v in values.items() if k in known and (p := _problem(k, v))]
    if problems:
        raise PolicyError("\n".join(f"{source}: {p}" for p in problems))
    provenance = data.get("provenance", {})
    if not isinstance(provenance, dict):
        raise PolicyError(f"{source}: provenance: must be an object")
    typed: dict[str, Any] = {k: (tuple(float(x) for x in v) if isinstance(v, list) else v) for k, v in values.items()}
    return replace(DEFAULT_POLICY, **typed, provenance=provenance)


def policy_to_dict(policy: ReadPolicy) -> dict[str, Any]:
    return {"format": POLICY_FORMAT, "thresholds": policy.thresholds(), "provenance": policy.provenance}


def load_policy(path: Path) -> ReadPolicy:
    """The policy in ``path`` (a ``policy.json``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"{path}: cannot be read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise PolicyError(f"{path}: not JSON: {exc}") from exc
    return policy_from_dict(data, str(path))


def save_policy(policy: ReadPolicy, path: Path) -> None:
    path.write_text(json.dumps(policy_to_dict(policy), indent=2, sort_keys=False) + "\n", encoding="utf-8")
