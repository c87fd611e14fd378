"""The bench's own tools: the held-out split of exported file names, and the progress bar."""
from __future__ import annotations

import io
from pathlib import Path

from vision.benchtool.progress import Progress
from vision.benchtool.split import GROUP, group_keys, source_name


def test_an_exports_renamed_copies_of_one_photo_fall_in_one_run():
    """Roboflow names each augmented copy ``<photo>_jpg.rf.<hash>``: read as separate photos, the
    copies of one photo straddled the split (one held out, another tuned on)."""
    photos = [f"IMG_{1000 + i}" for i in range(3 * GROUP)]
    paths = [Path(f"train/{p}_jpg.rf.{h:032x}.jpg") for p in photos for h in (i * 7 + 1 for i in range(3))]
    assert {source_name(p) for p in paths} == set(photos)
    keys = group_keys(paths)
    for photo in photos:
        assert len({keys[p] for p in paths if p.name.startswith(photo + "_")}) == 1
    assert len(set(keys.values())) == 3  # runs of GROUP photos, not of GROUP files


def test_names_without_an_exports_suffix_are_kept():
    assert source_name(Path("six_3.jpg")) == "six_3"
    assert source_name(Path("IMG_20191208_111246.jpg")) == "IMG_20191208_111246"
    assert source_name(Path("roll.rf.jpg")) == "roll.rf"  # no hash: not an export's suffix


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_is_drawn_on_a_terminal_only():
    """In a log or a pipe its carriage-return frames are garbage (`bench --json 2>&1 | jq`)."""
    for stream, drawn in ((Terminal(), True), (io.StringIO(), False)):
        with Progress(3, label="bench x", stream=stream) as bar:
            for _ in range(3):
                bar.step()
        assert ("3/3" in stream.getvalue()) is drawn
        assert (stream.getvalue() == "") is not drawn
