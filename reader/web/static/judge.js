// Judge's view: live frame with boxes, the last roll with confidences, match state, and the
// judge's actions (override a reading with a reason, call a roll again). Every action needs the
// token printed by `dice-reader serve`; the server refuses it otherwise.
"use strict";
const params = new URLSearchParams(location.search);
let token = params.get("token") || sessionStorage.getItem("judgeToken") || "";
if (params.get("token")) sessionStorage.setItem("judgeToken", token);
let current = null;      // last snapshot
let overrideIndex = null;
let logVersion = -1;

const $ = (id) => document.getElementById(id);
const base = params.get("server") || "";

function headers() { return { "X-Judge-Token": token, "Content-Type": "application/json" }; }

function showTokenState(text, ok) {
  const s = $("tokenState");
  s.textContent = text; s.className = "chip " + (ok ? "ok" : "bad");
  $("tokenForm").classList.toggle("hidden", ok);
}
if (!token) showTokenState("no judge token", false);
$("tokenForm").addEventListener("submit", (ev) => {
  ev.preventDefault();
  token = $("tokenInput").value.trim();
  sessionStorage.setItem("judgeToken", token);
  refreshLog(true);
});

function say(text, ok) { const m = $("actionMsg"); m.textContent = text; m.className = "msg " + (ok ? "ok" : "err"); }

async function post(path, body) {
  const r = await fetch(base + path, { method: "POST", headers: headers(), body: JSON.stringify(body) });
  let data = {};
  try { data = await r.json(); } catch (e) {}
  if (r.status === 401 || r.status === 403) showTokenState("token refused", false);
  if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
  return data;
}

// -- live frame: a fresh JPEG a few times a second (only while the tab is visible) --
let frameUrl = null, framePending = false;
async function pollFrame() {
  if (framePending || document.hidden || !token) return;
  framePending = true;
  try {
    const r = await fetch(base + "/api/frame.jpg", { headers: { "X-Judge-Token": token }, cache: "no-store" });
    if (r.status === 401 || r.status === 403) { showTokenState("token refused", false); return; }
    if (!r.ok) { $("noFrame").classList.remove("hidden"); return; }
    const blob = await r.blob();
    const url = URL.createObjectURL(blob);
    $("frame").src = url;
    if (frameUrl) URL.revokeObjectURL(frameUrl);
    frameUrl = url;
    $("noFrame").classList.add("hidden");
    $("frameInfo").textContent = "frame " + (r.headers.get("X-Frame-Index") || "?");
  } catch (e) {
  } finally { framePending = false; }
}
setInterval(pollFrame, 250);

// -- roll log tail --
async function refreshLog(force) {
  if (!token || (!force && current && current.version === logVersion)) return;
  logVersion = current ? current.version : -1;
  try {
    const r = await fetch(base + "/api/log?limit=20", { headers: { "X-Judge-Token": token } });
    if (r.status === 401 || r.status === 403) { showTokenState("token refused", false); return; }
    const data = await r.json();
    showTokenState("judge token ok", true);
    $("logHead").textContent = data.count + " entries · head " + String(data.head).slice(0, 12) + "…";
    $("log").replaceChildren(...data.entries.reverse().map((e) => {
      const p = e.payload || {};
      let what = "";
      if (e.kind === "roll") what = (p.dice || []).map((d) => d.die.toUpperCase() + " " + (d.value ?? d.state)).join(", ")
        + ((p.decisions || []).length ? " → " + p.decisions.map((d) => d.result + (d.card ? " " + d.card : "")).join(", ") : "");
      else if (e.kind === "override") what = "entry " + p.of + " die " + (p.die + 1) + ": " + (p.was && p.was.value) + " → " + (p.value ?? p.state) + " — " + p.reason;
      else if (e.kind === "reroll") what = "roll called again" + (p.reason ? " — " + p.reason : "");
      else if (e.kind === "match") {
        const r = p.rules || p;
        what = (r.procedure || "no rules") + (r.cards ? ": " + r.cards.length + " cards" : "")
          + (r.count ? ", " + r.count + " to banish" : "") + (r.players ? ": " + r.players.join(" vs ") : "")
          + (p.source ? " · source " + p.source : "");
      }
      else what = JSON.stringify(p).slice(0, 90);
      const rec = e.recording && !e.recording.startsWith("/")
        ? el("a", { href: base + "/replay#" + encodeURIComponent(e.recording), target: "_blank", text: "[" + e.roll + "]" })
        : (e.roll ? "[" + e.roll + "]" : "");
      return el("li", { class: e.kind, "data-seq": String(e.seq) }, el("span", { class: "seq", text: "#" + e.seq }),
                el("span", { class: "kind", text: e.kind }), rec, " " + what);
    }));
  } catch (e) {}
}

// -- rendering --
function renderRoll(roll) {
  $("rollName").textContent = roll ? (roll.name || "") + (roll.log_seq ? " · log #" + roll.log_seq : " · not logged yet") : "";
  $("decision").textContent = roll ? roll.decision_text + (roll.judge_reason ? " — " + roll.judge_reason : "") : "no roll yet";
  $("setUp").textContent = roll && roll.set_up ? "Camera set-up: " + roll.set_up : "";
  const body = $("dice").querySelector("tbody");
  body.replaceChildren(...(roll ? roll.dice : []).map((d, i) => {
    const conf = d.confidence == null ? "" : Math.round(d.confidence * 100) + "%";
    const btn = el("button", { type: "button", text: "Override", onclick: () => openOverride(i, d) });
    if (!roll.log_seq) btn.disabled = true;
    return el("tr", { class: (d.overridden ? "overridden " : "") + (d.confidence != null && d.confidence < 0.9 ? "low" : "") },
      el("td", { text: String(i + 1) }), el("td", { text: String(d.die).toUpperCase() }),
      el("td", { class: "value", text: d.value == null ? "—" : String(d.value) }),
      el("td", { text: d.state + (d.reason ? " (" + d.reason + ")" : "") + (d.overridden ? ", read " + (d.was ?? "none") : "") }),
      el("td", { class: "conf", text: conf }), el("td", {}, btn));
  }), ...(roll && roll.unmoved ? roll.unmoved : []).map((d) => el("tr", { class: "unmoved" },
    el("td", { text: "–" }), el("td", { text: String(d.die).toUpperCase() }),
    el("td", { class: "value", text: d.value == null ? "—" : String(d.value) }),
    el("td", { text: "in the tray before the throw: not counted" }), el("td", {}), el("td", {}))));
}

function renderMatch(state) {
  const m = state.match || {};
  const rows = [];
  const add = (k, v) => { if (v != null && v !== "") rows.push(el("dt", { text: k }), el("dd", { text: v })); };
  add("Procedure", (m.procedure || "—") + (m.done ? " (done)" : ""));
  add("Players", (m.players || []).join(" vs "));
  if (m.procedure === "banish") {
    const rem = m.remaining || m.cards || [];
    rows.push(el("dt", { text: "Cards in memory" }), el("dd", { class: "cards" },
      ...(rem.length ? rem.map((c, i) => el("span", { class: "cardchip", text: (i + 1) + ". " + c })) : ["none"])));
    add("Still to banish", String((m.count || 0) - (m.banished || []).length));
    add("Banished", (m.banished || []).map((b) => "#" + b.position + " " + b.card).join(", ") || "none yet");
    if (m.next && m.next.table) add("Die", String(m.next.table.die).toUpperCase() + " (allowed: " + (m.next.allowed || []).join(", ") + ")");
  }
  if (m.procedure === "first-player") {
    add("This round", (m.scores || []).map((x) => x.player + " " + x.dice.join("+") + " = " + x.total).join(", ") || "no roll yet");
    if (m.next) add("Next", m.next.player + " rolls two D6");
  }
  if (m.first) add("First player", m.first);
  add("Camera", state.status && state.status.camera);
  add("Tower", state.status && state.status.tower);
  $("match").replaceChildren(...rows);
  $("devices").replaceChildren(...Object.entries(state.status || {}).filter(([k, v]) => v)
    .map(([k, v]) => el("span", { class: "chip " + (v === "lost" ? "bad" : "ok"), text: k + " " + v })));
}

function openOverride(i, d) {
  overrideIndex = i;
  $("ovDie").textContent = (i + 1) + " (" + String(d.die).toUpperCase() + ", read " + (d.value ?? d.state) + ")";
  $("ovValue").max = { d4: 4, d6: 6, d8: 8, d10: 10, d12: 12, d20: 20 }[d.die] || 20;
  $("ovValue").value = ""; $("ovReason").value = ""; $("ovState").value = "flat";
  $("overrideForm").classList.remove("hidden");
  $("ovValue").focus();
}
$("ovCancel").addEventListener("click", () => $("overrideForm").classList.add("hidden"));
$("ovState").addEventListener("change", () => { $("ovValue").required = $("ovState").value === "flat"; });
$("overrideForm").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const reason = $("ovReason").value.trim();
  if (!reason) { say("an override needs a reason", false); return; }
  try {
    const res = await post("/api/override", { of: current.roll.log_seq, die: overrideIndex,
      value: $("ovState").value === "flat" ? Number($("ovValue").value) : null, state: $("ovState").value, reason });
    say("override logged as entry #" + res.seq, true);
    $("overrideForm").classList.add("hidden");
    refreshLog(true);
  } catch (e) { say("refused: " + e.message, false); }
});
$("rerollForm").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    const res = await post("/api/reroll", { reason: $("rerollReason").value.trim() });
    say("roll called again, entry #" + res.seq, true);
    $("rerollReason").value = "";
    refreshLog(true);
  } catch (e) { say("refused: " + e.message, false); }
});

function render(state) {
  current = state;
  renderRoll(state.roll);
  renderMatch(state);
  $("history").replaceChildren(...(state.history || []).slice().reverse().map((h) =>
    el("li", { class: h.result === "note" ? "note" : "" , text: (h.roll ? "[" + h.roll + "] " : "") + h.text })));
  refreshLog(false);
  window.__judge = { version: state.version };
}

openFeed(render, (up) => {
  document.body.dataset.connected = up ? "yes" : "no";
  $("conn").textContent = up ? "live" : "reconnecting…";
  $("conn").className = "chip " + (up ? "ok" : "bad");
});
