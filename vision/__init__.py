"""Vision: camera sources, settle detection, the dice reader, calibration and bench tools."""
