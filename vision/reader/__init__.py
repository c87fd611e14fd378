"""The dice reader: one still frame in, the dice and how far to trust them out.

Public interface (what the table controller calls)::

    read_dice(frame: np.ndarray, expect: int | None = None,
              calibration: Calibration | None = None, model: ReaderModel | None = None,
              finding: np.ndarray | None = None) -> DiceRead

- ``frame``: a BGR uint8 image (H x W x 3), any size; a still frame of the
  landing area or of the bottom of the hazard cage.
- ``expect``: how many dice were thrown (2 for craps and bang, 3 for hazard),
  or ``None`` to report every die found.
- ``calibration``: the table's ``vision.model.Calibration``; its
  ``landing_mask`` rejects dice outside the landing area and its
  die size fixes the scale (without it the frame's long side is
  taken as about 16 dice wide, and the frame is
  looked at again, resized, when the dice found come out too small or too
  big: ``detect.py``; a frame it cannot read, or reads as nothing but 1s,
  is also looked at as a close-up: ``closeup.py``) and lets the judge tell dice
  lying flush against each other from dice apart; its camera tilt makes the
  reader read each die's top face only (``topface.py``).
- ``model``: a model folder loaded by ``model_dir.load_model`` (networks and
  policy); the bundled one (``vision/models``) when None.
- ``finding``: a smaller picture of the same view (a camera's low-resolution
  stream): the dice are found on it and read from ``frame``.

It never raises on a bad frame: a frame that is not an image, too small, or
cannot be processed gives ``no_read`` with a ``reason``. The status is
``ok`` only when every die is found, apart from the others, inside the view
and read with agreeing cues; ``uncertain`` when a value is in doubt (the
dealer confirms); ``no_read`` for a wrong count, touching or stacked dice, a
die cut by the edge or outside the landing area, a die leaning (see ``judge.py``).
A die seen at an angle is never settled by the face turned to the camera.
``DiceRead.ms`` is the time spent in the call.

How it works: a small fully convolutional network marks die centres
(``detect.py``), a small classifier reads each die crop and a second one,
trained apart, reads it turned by 45 degrees, and both read a doubtful die at
three more angles (``look.py``); two leaning checks, small networks too, say
whether a die leans, one weighing its crop against another die's of the
frame and the other reading it alone (``leaning.py``); a classical pip
counter gives an independent opinion (``pips.py``), and ``judge.py`` decides
with the thresholds of the model's policy (``policy.py``). The networks are ONNX files in a model folder run
through OpenCV's DNN module; ``training/`` rebuilds them and ``dicetable learn``
fine-tunes them for one table.
"""
from vision.reader.model_dir import ReaderModel, load_model
from vision.reader.read import read_dice

__all__ = ["ReaderModel", "load_model", "read_dice"]
