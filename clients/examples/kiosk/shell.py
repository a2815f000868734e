#!/usr/bin/env python3
"""The shell (docs/KIOSK.md): an observer region over the whole screen, above everyone. With the
`observe` right (its user is in the group kiosk-shell) it sees every touch the other programs' regions
own, for an idle timer or a gesture to go home, except the PIN pad's: an exclusive region's touches
exist for their owner only."""

from kiosk_program import SCREEN, Program, arguments, region


def main():
    program = Program("shell", arguments(__doc__.splitlines()[0]))
    program.declare([region("shell", rect=SCREEN, z=100, mode="observer")])
    program.client.subscribe(streams=["touches", "devices"])
    program.run()


if __name__ == "__main__":
    main()
