#!/usr/bin/env python3
"""The "observer": a background effect that sees every touch (no gestures), alongside the owners.
python3 observer.py [SOCKET]"""

from regions_example import run
from multitouchd_client import region

run("observer", lambda device: [region("fx", rect=[0, 0, 100, 60], mode="observer")])
