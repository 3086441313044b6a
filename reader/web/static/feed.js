// The table feed: a WebSocket that reconnects by itself, with backoff.
// OBS often loads the overlay before the server is up, and the server may restart mid-match:
// the page keeps trying (0.25 s, doubling, at most 3 s) and re-renders from the full snapshot
// the server sends on every (re)connect. ?ws=ws://host:port/ws points a page opened from a file.
"use strict";
function openFeed(onSnapshot, onConnected) {
  const params = new URLSearchParams(location.search);
  const url = params.get("ws") ||
    ((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  const MIN = 250, MAX = 3000;
  let delay = MIN;
  function connect() {
    let ws, retried = false, seen = -1;
    const retry = () => {
      if (retried) return;
      retried = true;
      onConnected(false);
      setTimeout(connect, delay + Math.random() * delay * 0.2);
      delay = Math.min(delay * 2, MAX);
    };
    try { ws = new WebSocket(url); } catch (e) { retry(); return; }
    ws.onopen = () => { delay = MIN; onConnected(true); };
    ws.onmessage = (m) => {
      let msg;
      try { msg = JSON.parse(m.data); } catch (e) { return; }
      // versions only go up on one connection; a late older one is dropped
      if (msg.kind !== "snapshot" || msg.state.version < seen) return;
      seen = msg.state.version;
      onSnapshot(msg.state, msg.sent_ms);
    };
    ws.onclose = retry;
    ws.onerror = () => { try { ws.close(); } catch (e) {} retry(); };
  }
  connect();
}

function el(tag, attrs, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") n.className = v; else if (k === "text") n.textContent = v;
    else if (k.startsWith("on")) n.addEventListener(k.slice(2), v); else n.setAttribute(k, v);
  }
  for (const c of children) if (c != null) n.append(c);
  return n;
}
