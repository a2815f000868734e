#!/usr/bin/env python3
"""The PIN pad (docs/KIOSK.md): an exclusive region, secure input. Its touches reach this program
only, from `began` on: no other program's regions or observers, no whole-device stream, no TUIO, no
statistics see them. It prints how many digits it got (taps), never which."""

from kiosk_program import PIN_PAD, Program, arguments, region


class PinPad(Program):
    def __init__(self, args):
        super().__init__("pin", args)
        self.digits = 0

    def take(self, message):
        if message["type"] == "tap" and message.get("region") == "pin":
            self.digits += 1
        super().take(message)

    def close(self):
        super().close()
        print("pin: %d digits" % self.digits, flush=True)


def main():
    program = PinPad(arguments(__doc__.splitlines()[0]))
    program.declare([region("pin", rect=PIN_PAD, z=20, exclusive=True)])
    program.client.subscribe(streams=["touches", "gestures", "devices"])
    program.run()


if __name__ == "__main__":
    main()
