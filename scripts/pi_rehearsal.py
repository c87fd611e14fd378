"""The host's side of ``make pi-rehearsal`` (``scripts/pi-rehearsal.sh``), three subcommands:

- ``install-script DOCS CLONE_FROM``: the Raspberry Pi install steps of ``docs/install.md`` as a
  shell script for the emulated root, each step run as the page gives it or with what only
  Raspberry Pi OS has named and replaced (``PLAN``). The page is read, not copied, so that a
  changed instruction is rehearsed as changed, and one the plan no longer fits stops the run.
- ``frames INPUTS --datasets DIR``: the frames both machines read: the drawn scenes of
  docs/vision.md's folder ``G`` (written anew to ``INPUTS/drawn``) and the held-out photos of each
  set in ``DIR``, listed by absolute path in ``INPUTS/groups/N.txt`` by the count of dice they
  show (the root sees both folders at the same paths, so the reads name the same images).
- ``compare HOST PI --model DIR``: the Pi's reads (``dicetable read --json`` lines) against the
  PC's: statuses and values equal, confidences within ``TOLERANCE``; a frame whose PC confidence
  lies within ``TOLERANCE`` of one of the policy's bars is listed, not counted (``compare_reads``).

``install-script`` needs Python's standard library only (it runs before any venv exists); the
other two import the project, from the host's reference venv.
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# ---------------------------------------------------------------- the install steps

#: The heading of the section of docs/install.md the rehearsal follows.
SECTION = "## Raspberry Pi install"


@dataclass(frozen=True)
class Edit:
    """A change to a step's commands for the emulated root, and why a Pi needs none."""

    old: str
    new: str
    why: str


@dataclass(frozen=True)
class StepPlan:
    """How the rehearsal takes one numbered step: ``marker`` is text the step holds (so a
    renumbered page is noticed); ``skip`` says why the step is not run, else its commands run
    with ``edits`` applied. The placeholder ``{clone_from}`` in an edit is the local checkout."""

    marker: str
    skip: str | None = None
    edits: tuple[Edit, ...] = field(default_factory=tuple)


PLAN: dict[int, StepPlan] = {
    1: StepPlan("python3-picamera2", edits=(
        Edit(" python3-picamera2 python3-lgpio", " python3-numpy",
             "python3-picamera2 and python3-lgpio are Raspberry Pi OS's own packages. Stand-ins: Debian's "
             "python3-numpy (the system's NumPy 1.x, which python3-picamera2 brings on a Pi) and lgpio "
             "built from its PyPI source with its C library inside, installed for the system's Python "
             "before these steps"),)),
    2: StepPlan("--system-site-packages", edits=(
        Edit("<this repository>", "{clone_from}", "the local checkout's commit, pushed into the root"),
        Edit("import picamera2, ", "import ", "no Picamera2 outside Raspberry Pi OS (step 1); the other "
             "modules are checked"),
    )),
    3: StepPlan("raspi-config", skip="the serial port is Raspberry Pi OS's raspi-config and the Pi's boot "
                "files (/boot/firmware): the root has neither, nor a UART"),
    4: StepPlan("systemd/install.sh", skip="systemd/install.sh enables and starts a unit: the root runs no "
                "systemd (its check, dicetable run --check, needs the configuration that script writes)"),
    5: StepPlan("dicetable calibrate", skip="calibration films the table with its camera: there is none"),
}


class PlanError(ValueError):
    """docs/install.md and ``PLAN`` no longer fit: a step added, removed, renumbered or changed."""


@dataclass(frozen=True)
class InstallStep:
    """A numbered step of the section: its text (code included) and its ``sh`` code blocks, dedented."""

    number: int
    text: str
    blocks: tuple[str, ...]


def install_steps(markdown: str) -> list[InstallStep]:
    """The numbered steps of the ``SECTION`` of ``markdown``, in order."""
    lines = markdown.splitlines()
    try:
        start = lines.index(SECTION) + 1
    except ValueError:
        raise PlanError(f"no section {SECTION!r}") from None
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    steps: list[tuple[int, list[str], list[str]]] = []
    fence: str | None = None  # the indentation of the open code block, if one is open
    block: list[str] = []
    for line in lines[start:end]:
        if fence is not None:
            steps[-1][1].append(line)
            if line.strip() == "```":
                steps[-1][2].append("\n".join(block) + "\n")
                fence, block = None, []
            else:
                block.append(line[len(fence):] if line.startswith(fence) else line.lstrip())
            continue
        numbered = re.match(r"^(\d+)\. ", line)
        if numbered:
            steps.append((int(numbered.group(1)), [], []))
        if not steps:
            continue
        steps[-1][1].append(line)
        opening = re.match(r"^(\s*)```(\w*)\s*$", line)
        if opening and opening.group(2) in ("sh", "bash"):
            fence = opening.group(1)
    if fence is not None:
        raise PlanError("a code block is not closed")
    return [InstallStep(n, "\n".join(text), tuple(blocks)) for n, text, blocks in steps]


def install_script(markdown: str, clone_from: str, source: str = "docs/install.md") -> str:
    """A ``sh`` script running the section's steps in the emulated root as ``PLAN`` says: each
    step announced, each edit and skip with its reason, the commands traced as they run.

    Raises :class:`PlanError` where the page and the plan disagree: a step the plan does not
    know or misses, a marker a step no longer holds, an edit whose text is gone."""
    steps = install_steps(markdown)
    numbers = [s.number for s in steps]
    if numbers != sorted(PLAN):
        raise PlanError(f"{source}: steps {numbers}, the rehearsal plans for {sorted(PLAN)}: "
                        "say in scripts/pi_rehearsal.py (PLAN) how to rehearse the page as it is now")
    out = ["set -eu"]
    for step in steps:
        plan = PLAN[step.number]
        if plan.marker not in step.text:
            raise PlanError(f"{source}, step {step.number}: no longer mentions {plan.marker!r} (renumbered?)")
        if plan.skip:
            out.append(_echo(f"step {step.number}: skipped: {plan.skip}"))
            continue
        commands = "".join(step.blocks)
        if not commands:
            raise PlanError(f"{source}, step {step.number}: no commands to run")
        out.append(_echo(f"step {step.number}: as {source} gives it"))
        for edit in plan.edits:
            if edit.old not in commands:
                raise PlanError(f"{source}, step {step.number}: no longer holds {edit.old!r}: "
                                "scripts/pi_rehearsal.py (PLAN) needs its edit updated")
            new = edit.new.replace("{clone_from}", clone_from)
            commands = commands.replace(edit.old, new)
            out.append(_echo(f"  instead of {edit.old.strip()!r}: {new.strip() or 'nothing'} ({edit.why})"))
        out += ["set -x", commands.rstrip("\n"), "set +x"]
    return "\n".join(out) + "\n"


def _echo(text: str) -> str:
    return f"echo {shlex.quote('pi-rehearsal: install ' + text)}"


# ---------------------------------------------------------------- the frames

#: The drawn scenes read: docs/vision.md's folder G (``python -m vision.benchtool.dataset G
#: --count 120 --seed 13``), the one its figures and size table use.
DRAWN_COUNT = 120
DRAWN_SEED = 13


def write_frames(inputs: Path, datasets: Path) -> list[str]:
    """Write the drawn scenes to ``inputs/drawn`` and list every frame to read in
    ``inputs/groups/N.txt`` (N dice shown; one absolute path a line): the drawn scenes and the
    held-out photos of each set in ``datasets``. Returns notes on what was found and what was
    left out, and why."""
    from vision.benchtool.dataset import write_dataset
    from vision.benchtool.labels import LabelError, load_folder
    from vision.benchtool.split import select

    inputs = inputs.resolve()
    for old in ("drawn", "groups"):
        shutil.rmtree(inputs / old, ignore_errors=True)
    write_dataset(inputs / "drawn", DRAWN_COUNT, seed=DRAWN_SEED)
    groups: dict[int, list[str]] = {}
    drawn = load_folder(inputs / "drawn")
    for item in drawn:
        groups.setdefault(len(item.dice), []).append(str(item.path.resolve()))
    notes = [f"{len(drawn)} drawn scenes (python -m vision.benchtool.dataset --count {DRAWN_COUNT} "
             f"--seed {DRAWN_SEED})"]
    if not datasets.is_dir():
        notes.append(f"no photos read: the datasets folder {datasets} is missing")
    else:
        for photo_set in sorted(p for p in datasets.iterdir() if p.is_dir()):
            try:
                held_out = select(load_folder(photo_set), "heldout")
            except LabelError as exc:
                notes.append(f"{photo_set.name}: left out, its labels cannot be read: {exc}")
                continue
            if not held_out:
                notes.append(f"{photo_set.name}: left out, no labelled held-out photo")
                continue
            for item in held_out:
                groups.setdefault(len(item.dice), []).append(str(item.path.resolve()))
            notes.append(f"{photo_set.name}: {len(held_out)} held-out photos (dicetable bench --split heldout)")
    (inputs / "groups").mkdir()
    for count, paths in sorted(groups.items()):
        (inputs / "groups" / f"{count}.txt").write_text("".join(p + "\n" for p in paths))
    return notes


# ---------------------------------------------------------------- the comparison

#: How far a Pi's confidence may lie from the PC's, and how close to a bar a PC confidence
#: must lie for its frame to be listed rather than counted.
TOLERANCE = 1e-3
#: The policy's thresholds a die's confidence is judged against (``vision.reader.judge.is_sure``).
BARS = ("sure_alone", "sure_with_pips", "sure_doubted", "sure_doubted_second_look")
#: The JSON's confidences have four decimals: a difference of exactly the tolerance is within it.
_ROUNDING = 1e-9


@dataclass(frozen=True)
class Comparison:
    """What two machines' reads of the same frames make: the frames both read, the differences
    counted (one line per frame), and the frames near a bar (listed with any difference)."""

    compared: int
    differences: list[str]
    near_bar: list[str]


def compare_reads(pc_lines: Iterable[str], pi_lines: Iterable[str], bars: Sequence[float],
                  tolerance: float = TOLERANCE) -> Comparison:
    """Compare ``dicetable read --json`` lines of the PC (the reference) and of a Pi, by image.

    A frame differs when its status, or its values in order, are not the same, or a die's
    confidence is more than ``tolerance`` from the PC's, or only one side read it. A frame where
    a PC confidence lies within ``tolerance`` of one of ``bars`` may fall on either side of that
    bar on another processor: it is listed in ``near_bar`` (with its difference, if any) and
    not counted."""
    pc, pi = _by_image(pc_lines, "the PC"), _by_image(pi_lines, "the Pi")
    differences = [f"{image}: read on the PC only" for image in pc if image not in pi]
    differences += [f"{image}: read on the Pi only" for image in pi if image not in pc]
    near_bar: list[str] = []
    compared = 0
    for image, here in pc.items():
        there = pi.get(image)
        if there is None:
            continue
        compared += 1
        found = _differences(here, there, tolerance)
        confidences = [float(d["confidence"]) for d in here.get("dice", [])]
        near = sorted({bar for bar in bars for c in confidences if abs(c - bar) <= tolerance + _ROUNDING})
        if near:
            near_bar.append(f"{image}: a confidence within {tolerance:g} of {', '.join(f'{b:g}' for b in near)}"
                            + (f": {'; '.join(found)}" if found else ", read alike"))
        elif found:
            differences.append(f"{image}: {'; '.join(found)}")
    return Comparison(compared, differences, near_bar)


def _by_image(lines: Iterable[str], side: str) -> dict[str, dict]:
    reads: dict[str, dict] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            read = json.loads(line)
            image = read["image"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{side}'s reads, line {number}: not a read: {exc}") from None
        if image in reads:
            raise ValueError(f"{side}'s reads, line {number}: {image} read twice")
        reads[image] = read
    return reads


def _differences(here: dict, there: dict, tolerance: float) -> list[str]:
    if here.get("status") != there.get("status"):
        return [f"status {here.get('status')} on the PC ({here.get('reason', 'ok')}), "
                f"{there.get('status')} on the Pi ({there.get('reason', 'ok')})"]
    values_here = [d["value"] for d in here.get("dice", [])]
    values_there = [d["value"] for d in there.get("dice", [])]
    if values_here != values_there:
        return [f"values {values_here} on the PC, {values_there} on the Pi"]
    return [f"die {i + 1} ({a['value']}): confidence {a['confidence']} on the PC, {b['confidence']} on the Pi"
            for i, (a, b) in enumerate(zip(here["dice"], there["dice"]))
            if abs(float(a["confidence"]) - float(b["confidence"])) > tolerance + _ROUNDING]


def policy_bars(model_dir: Path) -> tuple[float, ...]:
    """The ``BARS`` of the policy in ``model_dir``."""
    from vision.reader.policy import POLICY_FILE, load_policy

    policy = load_policy(model_dir / POLICY_FILE)
    return tuple(float(getattr(policy, name)) for name in BARS)


def compare_report(comparison: Comparison, label: str) -> list[str]:
    """The lines ``compare`` prints: a summary, then every difference and every frame near a bar."""
    lines = [f"{label}: {comparison.compared} frames compared, {len(comparison.differences)} differ, "
             f"{len(comparison.near_bar)} near a bar"]
    lines += [f"  differs: {d}" for d in comparison.differences]
    lines += [f"  near a bar (listed, not counted): {n}" for n in comparison.near_bar]
    return lines


# ---------------------------------------------------------------- the command

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    steps = sub.add_parser("install-script", help="docs/install.md's Raspberry Pi steps as the root runs them")
    steps.add_argument("docs", type=Path)
    steps.add_argument("clone_from", help="what stands for <this repository>")
    frames = sub.add_parser("frames", help="write the drawn scenes and list the frames to read")
    frames.add_argument("inputs", type=Path, help="where the drawn scenes and the lists go")
    frames.add_argument("--datasets", type=Path, required=True, help="the folder of photo sets")
    compare = sub.add_parser("compare", help="compare a Pi's reads with the PC's; exit 1 on a difference")
    compare.add_argument("pc", type=Path)
    compare.add_argument("pi", type=Path)
    compare.add_argument("--model", type=Path, required=True, help="the model folder both read with")
    compare.add_argument("--label", default="the Pi", help="what the Pi's reads are called in the report")
    args = ap.parse_args(argv)
    if args.command == "install-script":
        try:
            print(install_script(args.docs.read_text(encoding="utf-8"), args.clone_from), end="")
        except PlanError as exc:
            print(f"pi-rehearsal: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.command == "frames":
        for note in write_frames(args.inputs, args.datasets):
            print(f"pi-rehearsal: frames: {note}")
        return 0
    with open(args.pc, encoding="utf-8") as pc, open(args.pi, encoding="utf-8") as pi:
        comparison = compare_reads(pc, pi, policy_bars(args.model))
    print("\n".join(compare_report(comparison, args.label)))
    return 1 if comparison.differences else 0


if __name__ == "__main__":
    sys.exit(main())
