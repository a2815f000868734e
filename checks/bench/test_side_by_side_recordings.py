#!/usr/bin/env python3
"""Checks checks/bench/side-by-side-recordings.py on the project's fixtures: the protocol-A rewrite
keeps every contact of every frame and leaves no slot or tracking id behind, the ten-finger overlay
doubles the fingers down at once on distinct slots with the second hand mirrored, and repeat keeps the
frames. Run: python3 checks/bench/test_side_by_side_recordings.py"""

import importlib.util
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
spec = importlib.util.spec_from_file_location("recordings", os.path.join(HERE, "side-by-side-recordings.py"))
recordings = importlib.util.module_from_spec(spec)
spec.loader.exec_module(recordings)

ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x39


def contacts_per_frame(frames):
    """Fingers down after each frame of a protocol-B recording: {slot: x}."""
    slot, down, out = 0, {}, []
    for _, events in frames:
        for type_, code, value in events:
            if type_ == 3 and code == ABS_MT_SLOT:
                slot = value
            elif type_ == 3 and code == ABS_MT_TRACKING_ID:
                if value < 0:
                    down.pop(slot, None)
                else:
                    down[slot] = None
            elif type_ == 3 and code == ABS_MT_POSITION_X and slot in down:
                down[slot] = value
        out.append(dict(down))
    return out


class RecordingsTest(unittest.TestCase):
    def build(self, *argv):
        out = os.path.join(self.tmp.name, "out.evemu")
        recordings.main(["side-by-side-recordings.py", argv[0], out] + list(argv[1:]))
        return recordings.parse([out])

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_protocol_a_keeps_every_contact_and_no_slots(self):
        source = os.path.join(FIXTURES, "touchpad-three-fingers-two-slots.evemu")
        _, original = recordings.parse([source])
        header, frames = self.build("protocol-a", source, source)
        self.assertEqual(len(frames), len(original))
        self.assertIsNone(recordings.abs_info(header, ABS_MT_SLOT))
        self.assertIsNone(recordings.abs_info(header, ABS_MT_TRACKING_ID))
        expected = contacts_per_frame(original)
        for (_, events), down in zip(frames, expected):
            codes = [(t, c) for t, c, _ in events]
            self.assertNotIn((3, ABS_MT_SLOT), codes)
            self.assertNotIn((3, ABS_MT_TRACKING_ID), codes)
            reports = codes.count((0, 2))
            self.assertEqual(reports, max(1, len(down)))
            xs = [v for t, c, v in events if (t, c) == (3, ABS_MT_POSITION_X)]
            self.assertEqual(sorted(xs), sorted(x for x in down.values() if x is not None))

    def test_ten_fingers_doubles_the_fingers_on_distinct_slots(self):
        source = os.path.join(FIXTURES, "touchscreen-pinch-rotate.evemu")
        header, original = recordings.parse([source])
        most = max(len(d) for d in contacts_per_frame(original))
        header, frames = self.build("ten-fingers", "1", source)
        self.assertEqual(recordings.abs_info(header, ABS_MT_SLOT)[1], 9)
        self.assertEqual(len(frames), len(original) + 4)
        per_frame = contacts_per_frame(frames)
        self.assertEqual(max(len(d) for d in per_frame), 2 * most)
        x_max = recordings.abs_info(header, ABS_MT_POSITION_X)[1]
        first = contacts_per_frame(original)
        for i, down in enumerate(per_frame[4 : len(original)]):
            mirrored = {slot - 5: x_max - x for slot, x in down.items() if slot >= 5 and x is not None}
            self.assertEqual(mirrored, {s: x for s, x in first[i].items() if x is not None})

    def test_repeat_keeps_the_frames(self):
        source = os.path.join(FIXTURES, "touchscreen-palm.evemu")
        _, original = recordings.parse([source])
        _, frames = self.build("repeat", "3", source)
        self.assertEqual(len(frames), 3 * len(original))
        self.assertEqual([e for _, e in frames[: len(original)]], [e for _, e in original])
        times = [t for t, _ in frames]
        self.assertEqual(times, sorted(times))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:])
