"""What a command-line program built on the client needs around its main function."""

import os
import sys


def run(main):
    """Call main() the way a Unix filter should end: Ctrl-C ends it quietly (status 130), and a reader
    that goes away (`... | head -1`) ends it quietly with status 0 instead of a BrokenPipeError
    traceback. Returns nothing; exits with main's return value."""
    try:
        status = main()
        sys.stdout.flush()
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # Python would flush stdout again at exit and fail the same way: point it at /dev/null first
        # (the recipe in the Python documentation of signal/SIGPIPE).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
    sys.exit(status or 0)
