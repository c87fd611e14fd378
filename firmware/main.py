"""Entry point on the Pico: binds machine.UART and machine.SPI, loops forever.

MicroPython runs ``main.py`` at boot as ``__main__``. Everything with logic in
it lives in the pure modules beside this one; only the pin numbers and the
loop are here. On the host this module imports without ``machine`` (it is
imported inside ``main()``), so the package's import check passes.

Pins (see firmware/README.md): UART0 TX=GP0, RX=GP1 at 115200 baud to the
Raspberry Pi; SPI0 SCK=GP18, MOSI=GP19, CS=GP17 to the MAX7219 chain.
"""

BAUDRATE = 115200
UART_ID, UART_TX, UART_RX = 0, 0, 1
SPI_ID, SPI_SCK, SPI_MOSI, SPI_CS = 0, 18, 19, 17
MODULES = 3
WATCHDOG_MS = 5000  # a hung loop reboots the Pico; it then shows "no link"


class TicksClock:
    """Milliseconds that never wrap: ``time.ticks_ms`` wraps after ~12 days."""

    def __init__(self, time_module):
        self._time = time_module
        self._last = time_module.ticks_ms()
        self._total = 0

    def now_ms(self):
        tick = self._time.ticks_ms()
        self._total += self._time.ticks_diff(tick, self._last)
        self._last = tick
        return self._total


def main():
    import time

    import machine

    from firmware.app import DisplayApp
    from firmware.max7219 import Max7219Chain

    uart = machine.UART(
        UART_ID, baudrate=BAUDRATE, tx=machine.Pin(UART_TX), rx=machine.Pin(UART_RX), rxbuf=1024
    )
    spi = machine.SPI(
        SPI_ID, baudrate=1000000, polarity=0, phase=0, sck=machine.Pin(SPI_SCK), mosi=machine.Pin(SPI_MOSI)
    )
    cs = machine.Pin(SPI_CS, machine.Pin.OUT, value=1)
    panel = Max7219Chain(spi, cs, modules=MODULES)
    panel.init()
    app = DisplayApp(uart, panel)
    clock = TicksClock(time)
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    while True:
        app.poll(clock.now_ms())
        watchdog.feed()
        time.sleep_ms(2)


if __name__ == "__main__":
    main()
