"""The same checks against a real tower: set DICE_READER_TOWER=/dev/ttyUSB0 (or any serial URL).
Skipped otherwise (CI has no hardware; the simulator covers the protocol there)."""

from __future__ import annotations

import os
import time

import pytest

from reader.tower.port import TowerPort
from reader.tower.protocol import PROTOCOL_VERSION, Heartbeat, Hello, Problem

URL = os.environ.get("DICE_READER_TOWER")
pytestmark = pytest.mark.skipif(not URL, reason="no tower attached (set DICE_READER_TOWER to its port)")


def test_real_tower_says_hello_and_beats():
    with TowerPort(URL) as port:
        events = []
        end = time.monotonic() + 4
        while time.monotonic() < end and not any(isinstance(e, Heartbeat) for e in events):
            events += port.wait(0.1)
    hello = [e for e in events if isinstance(e, Hello)]
    assert hello and hello[0].version == PROTOCOL_VERSION  # answered our HELLO request
    assert any(isinstance(e, Heartbeat) for e in events)
    assert not [e for e in events if isinstance(e, Problem)]  # a clean line
