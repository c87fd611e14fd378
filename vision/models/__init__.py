"""The reader's ONNX networks (data only; see README.md here for what they are and how they were made).

A package so that a non-editable install (a wheel on the Pi) carries the
``*.onnx`` files as package data next to the code that loads them.
"""
