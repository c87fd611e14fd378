"""Hardware: gpiozero devices (cage motor, bet-lock lights, dealer buttons) and the display link."""
