"""The optional dice tower: protocol (pure framing), port (pyserial adapter), sim (simulator)."""
