"""MicroPython firmware of the LED display, and the frame codec shared with the host."""
