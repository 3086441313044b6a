"""Helpers for the browser tests: find Chromium, pick a free port, serve one table."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium",
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Table:
    """One served table: hub, roll log, recordings folder and a server that can be restarted."""

    def __init__(self, tmp: Path, port: int) -> None:
        from reader.rolllog import RollLog
        from reader.web.evidence import RollLogger
        from reader.web.hub import Hub

        self.token = "judge-secret-token"
        self.port = port
        self.recordings = tmp / "rolls"
        self.recordings.mkdir()
        self.log = RollLog(tmp / "rolls.db")
        self.hub = Hub()
        self.logger = RollLogger(self.log, self.hub.publish, self.recordings)
        self.hub.listen(self.logger)
        self.server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, hub=None) -> None:
        from reader.web.server import WebServer, make_app

        if hub is not None:
            self.hub = hub
        self.server = WebServer(make_app(self.hub, self.log, self.token, self.recordings),
                                "127.0.0.1", self.port).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
