"""dice-reader: reads physical dice in a tray and applies Grand Archive's random-selection rules."""

__version__ = "0.1.0"
