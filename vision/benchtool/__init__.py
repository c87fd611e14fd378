"""Bench tools: score the dice reader on labelled folders (``dicetable bench``).

``labels`` reads the truth (YOLO files or ``manifest.csv``), ``split`` says
which runs of images are held out from tuning, ``score`` compares one read
with its labels, ``run`` reads a folder and sums up, ``report`` writes the
text and the HTML report, ``progress`` draws the bar on stderr, ``machine``
says where the bench ran and how fast that machine was meanwhile.
"""
