"""The local web app: overlay, judge and replay pages, a WebSocket feed and a small JSON API.

aiohttp serves it: one dependency that gives an HTTP server, WebSockets and a client, runs on the
standard asyncio loop (so the camera loop can stay in its own thread and `Hub.publish` into it),
and is mature and widely deployed.

Safety, because this runs next to a tournament table:
- it binds to 127.0.0.1 unless told otherwise (`serve --host`);
- every judge action (override, call a roll again, the live frame, the log) needs the token printed
  at start, in an `X-Judge-Token` header or a `token` query parameter; without it: 401/403;
- the overlay's WebSocket is read-only: whatever a page sends is ignored;
- recordings are served only from inside the recordings folder (resolved paths, symlinks
  included, are checked); anything else is refused.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import secrets
import threading
from functools import partial
from pathlib import Path
from typing import Callable

from aiohttp import WSMsgType, web

from reader.errors import DiceReaderError
from reader.rolllog import RollLog
from reader.web.hub import Hub
from reader.web.state import set_up_text

STATIC = Path(__file__).with_name("static")
PAGES = {"/overlay": "overlay.html", "/judge": "judge.html", "/replay": "replay.html"}
SERVED_SUFFIXES = {".jpg", ".jpeg", ".png", ".json", ".jsonl"}
ROLL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
TOKEN_HEADER = "X-Judge-Token"

HUB = web.AppKey("hub", Hub)
LOG = web.AppKey("log", RollLog)
TOKEN = web.AppKey("token", str)
ROOT = web.AppKey("recordings", Path)
ON_REROLL = web.AppKey("on_reroll", object)
ON_OVERRIDE = web.AppKey("on_override", object)
SOCKETS = web.AppKey("sockets", set)


LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def _host_check(allowed: set[str] | None):
    @web.middleware
    async def check(request: web.Request, handler):
        if allowed is not None:
            host = (request.host or "").lower()
            name = host[1:host.index("]")] if host.startswith("[") and "]" in host else host.rsplit(":", 1)[0]
            if name not in allowed:
                return _error(403, f"refused: this server answers to {', '.join(sorted(allowed))} only")
        return await handler(request)

    return check


def new_token() -> str:
    return secrets.token_urlsafe(18)


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _judge_only(handler):
    """Refuse a request without the judge's token (401) or with a wrong one (403)."""

    async def wrapped(request: web.Request):
        given = request.headers.get(TOKEN_HEADER) or request.query.get("token")
        if not given:
            return _error(401, "judge token required (X-Judge-Token header or ?token=)")
        if not hmac.compare_digest(given.encode(), request.app[TOKEN].encode()):
            return _error(403, "wrong judge token")
        return await handler(request)

    return wrapped


# -- pages and the feed ------------------------------------------------------------------------

async def page(name: str, request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})


async def asset(request: web.Request) -> web.StreamResponse:
    """The pages' scripts and styles, by plain name (so a page opened from a file finds them too)."""
    target = STATIC / request.match_info["name"]
    if not target.is_file():
        return _error(404, "no such asset")
    return web.FileResponse(target, headers={"Cache-Control": "no-store"})


async def no_icon(request: web.Request) -> web.Response:
    return web.Response(status=204)


async def index(request: web.Request) -> web.Response:
    raise web.HTTPFound("/overlay")


async def feed(request: web.Request) -> web.WebSocketResponse:
    """Push the table view to a page: a snapshot at once, then one per change. Read-only."""
    ws = web.WebSocketResponse(heartbeat=10.0)
    await ws.prepare(request)
    hub = request.app[HUB]
    request.app[SOCKETS].add(ws)
    queue = hub.subscribe()
    await ws.send_str(hub.snapshot_message())

    async def pump():
        while True:
            await ws.send_str(await queue.get())

    sender = asyncio.ensure_future(pump())
    try:
        async for msg in ws:  # anything a page sends is ignored: the feed cannot change anything
            if msg.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                break
    finally:
        sender.cancel()
        hub.unsubscribe(queue)
        request.app[SOCKETS].discard(ws)
    return ws


async def state(request: web.Request) -> web.Response:
    return web.json_response(request.app[HUB].snapshot())


# -- judge actions -----------------------------------------------------------------------------

async def _json_body(request: web.Request) -> dict:
    try:
        body = await request.json()
    except (ValueError, UnicodeDecodeError):
        raise web.HTTPBadRequest(text=json.dumps({"error": "the body must be JSON"}),
                                 content_type="application/json")
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text=json.dumps({"error": "the body must be a JSON object"}),
                                 content_type="application/json")
    return body


@_judge_only
async def override(request: web.Request) -> web.Response:
    body = await _json_body(request)
    try:
        of = int(body["of"])
        die = int(body["die"])
        value = body.get("value")
        value = None if value in (None, "") else int(value)
    except (KeyError, TypeError, ValueError):
        return _error(400, "an override needs 'of' (roll entry), 'die' (index) and 'value'")
    reason = str(body.get("reason") or "").strip()
    if not reason:
        return _error(400, "an override needs a reason")
    state_ = str(body.get("state") or "flat")
    by = str(body.get("by") or "judge")[:80]
    log = request.app[LOG]
    loop = asyncio.get_running_loop()
    try:
        entry = await loop.run_in_executor(
            None, partial(log.append_override, of, die, value, reason, by=by, state=state_))
    except DiceReaderError as exc:
        return _error(400, str(exc))
    request.app[HUB].publish({"type": "override", "seq": entry.seq, "of": of, "roll": entry.roll,
                              "die": die, "value": entry.payload["value"], "state": state_,
                              "reason": reason, "by": by})
    callback = request.app[ON_OVERRIDE]
    redecided = None
    if callable(callback):  # the rules decide the roll again with the judge's reading
        redecided = await loop.run_in_executor(None, callback, entry)
    return web.json_response({"seq": entry.seq, "hash": entry.hash, "redecided": redecided})


@_judge_only
async def reroll(request: web.Request) -> web.Response:
    body = await _json_body(request)
    reason = str(body.get("reason") or "").strip()
    hub = request.app[HUB]
    roll = (hub.snapshot().get("roll") or {}).get("name")
    loop = asyncio.get_running_loop()
    try:
        entry = await loop.run_in_executor(None, partial(
            request.app[LOG].append, "reroll", {"reason": reason, "by": "judge"}, roll=roll))
    except DiceReaderError as exc:
        return _error(500, str(exc))
    hub.publish({"type": "judge_reroll", "seq": entry.seq, "roll": roll, "reason": reason})
    callback = request.app[ON_REROLL]
    if callable(callback):  # the rules take the roll back
        await loop.run_in_executor(None, callback, roll, reason)
    return web.json_response({"seq": entry.seq, "hash": entry.hash})


@_judge_only
async def frame(request: web.Request) -> web.Response:
    loop = asyncio.get_running_loop()
    jpeg = await loop.run_in_executor(None, request.app[HUB].frame_jpeg)
    if jpeg is None:
        return _error(503, "no camera frame yet")
    return web.Response(body=jpeg[1], content_type="image/jpeg",
                        headers={"Cache-Control": "no-store", "X-Frame-Index": str(jpeg[0])})


@_judge_only
async def log_tail(request: web.Request) -> web.Response:
    try:
        limit = max(1, min(500, int(request.query.get("limit", "30"))))
    except ValueError:
        return _error(400, "limit must be a number")
    log = request.app[LOG]
    loop = asyncio.get_running_loop()
    entries = await loop.run_in_executor(None, log.tail, limit)
    seq, head = log.head()
    return web.json_response({"entries": [e.to_json() for e in entries], "count": seq, "head": head})


# -- replay ------------------------------------------------------------------------------------

def _roll_dir(request: web.Request, name: str) -> Path:
    root: Path = request.app[ROOT]
    if not ROLL_NAME.match(name):
        raise web.HTTPForbidden(text=f"refused: {name!r} is not a roll name")
    p = (root / name).resolve()
    if p.parent != root:
        raise web.HTTPForbidden(text="refused: outside the recordings folder")
    return p


async def rolls(request: web.Request) -> web.Response:
    from reader.recording import find_partials, list_rolls

    root: Path = request.app[ROOT]
    out = []
    for p in list_rolls(root):
        try:
            manifest = json.loads((p / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            manifest = {}
        out.append({"name": p.name, "created": manifest.get("created"), "kind": manifest.get("kind"),
                    "rules": manifest.get("rules")})
    partials = [p.name for p in find_partials(root)]
    return web.json_response({"rolls": out, "partials": partials})


async def roll(request: web.Request) -> web.Response:
    from reader.recording import RecordingReader

    p = _roll_dir(request, request.match_info["name"])
    loop = asyncio.get_running_loop()
    try:
        rec = await loop.run_in_executor(None, RecordingReader, p)
    except DiceReaderError as exc:
        return _error(404, str(exc))
    frames = [{"index": e.get("index"), "t": e.get("t"), "file": e.get("file")}
              for e in rec.events if e.get("type") == "frame"]
    set_up = set_up_text(rec.manifest.get("camera"))  # in the judge page's words
    return web.json_response({"name": p.name, "manifest": rec.manifest, "events": rec.events,
                              "frames": frames, "set_up": set_up})


async def recording_file(request: web.Request) -> web.StreamResponse:
    """A file of a recording (frame, manifest, events), only from inside the recordings folder."""
    root: Path = request.app[ROOT]
    roll_dir = _roll_dir(request, request.match_info["name"])
    rel = request.match_info["path"]
    target = (roll_dir / rel).resolve()
    try:
        target.relative_to(roll_dir)
        target.relative_to(root)
    except ValueError:
        return _error(403, "refused: outside the recordings folder")
    if target.suffix.lower() not in SERVED_SUFFIXES:
        return _error(403, "refused: not a recording file")
    if not target.is_file():
        return _error(404, "no such file in the recording")
    return web.FileResponse(target)


# -- the app -----------------------------------------------------------------------------------

def make_app(hub: Hub, log: RollLog, token: str, recordings: str | Path,
             on_reroll: Callable[[str | None, str], None] | None = None,
             on_override: Callable[[object], object] | None = None,
             allowed_hosts: set[str] | None = LOCAL_HOSTS) -> web.Application:
    """`allowed_hosts`: names the Host header may carry (None: any, for a server on the network).
    The default, this machine's names only, stops a web page on another site from reaching the
    local server through DNS rebinding."""
    app = web.Application(client_max_size=64 * 1024, middlewares=[_host_check(allowed_hosts)])
    app[HUB] = hub
    app[LOG] = log
    app[TOKEN] = token
    app[ROOT] = Path(recordings).resolve()
    app[ON_REROLL] = on_reroll
    app[ON_OVERRIDE] = on_override
    app[SOCKETS] = set()
    app.router.add_get("/", index)
    app.router.add_get("/favicon.ico", no_icon)
    for path, name in PAGES.items():
        app.router.add_get(path, partial(page, name))
    app.router.add_get(r"/{name:[a-z_]+\.(?:js|css)}", asset)
    app.router.add_get("/ws", feed)
    app.router.add_get("/api/state", state)
    app.router.add_post("/api/override", override)
    app.router.add_post("/api/reroll", reroll)
    app.router.add_get("/api/frame.jpg", frame)
    app.router.add_get("/api/log", log_tail)
    app.router.add_get("/api/rolls", rolls)
    app.router.add_get("/api/rolls/{name}", roll)
    app.router.add_get("/rec/{name}/{path:.+}", recording_file)

    async def close_sockets(app: web.Application) -> None:
        for ws in list(app[SOCKETS]):
            await ws.close(code=1001, message=b"server stopping")

    app.on_shutdown.append(close_sockets)
    return app


class WebServer:
    """Runs the app on its own thread and asyncio loop, so the caller's thread stays free."""

    def __init__(self, app: web.Application, host: str = "127.0.0.1", port: int = 8765) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> "WebServer":
        self._thread = threading.Thread(target=self._run, name="dice-reader-web", daemon=True)
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise DiceReaderError(f"cannot serve on {self.host}:{self.port}: {self._error}")
        return self

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            self._runner = web.AppRunner(self.app, handle_signals=False, shutdown_timeout=2.0)
            loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
            loop.run_until_complete(site.start())
            if self.port == 0:
                self.port = site._server.sockets[0].getsockname()[1]
        except BaseException as exc:  # port taken, bad host: reported by start()
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._runner.cleanup())
            loop.close()

    def stop(self) -> None:
        if self._loop is None or self._thread is None or not self._thread.is_alive():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(15)

    def __enter__(self) -> "WebServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
