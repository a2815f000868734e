#!/usr/bin/env python3
"""The "toolbar": an opaque strip along the top, drawn over the map. python3 toolbar.py [SOCKET]"""

from regions_example import run
from multitouchd_client import region

run("toolbar", lambda device: [region("toolbar", rect=[0, 0, 100, 10], z=2)])
