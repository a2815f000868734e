#!/usr/bin/env python3
"""The "map": one opaque region over the whole screen, below the toolbar. python3 map.py [SOCKET]"""

from regions_example import run
from multitouchd_client import region

run("map", lambda device: [region("map", rect=[0, 0, 100, 60], z=1)])
