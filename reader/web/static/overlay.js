// Overlay: the dice of the last roll, the decision, and the value table while a banish is on.
"use strict";
window.__overlay = { renders: [], version: -1 };

function dieTile(d, i) {
  const shown = d.state === "flat" && d.value != null ? String(d.value)
    : (d.state === "cocked" ? "COCKED" : "UNREAD");
  const tile = el("div", { class: "die " + (d.state || "flat") + (d.overridden ? " overridden" : "") + (shown.length === 2 ? " two" : ""),
                           "data-die": d.die, "data-index": String(i) },
    el("div", { class: "kind", text: String(d.die).toUpperCase() }),
    el("div", { class: "value", text: shown }));
  if (d.confidence != null && !d.overridden && d.state === "flat" && d.confidence < 0.9)
    tile.append(el("div", { class: "conf", text: Math.round(d.confidence * 100) + "%" }));
  return tile;
}

function renderScores(match, box) {
  const scores = match.scores || [];
  box.replaceChildren(el("h2", { text: match.first ? match.first + " goes first" : "Who goes first?" }));
  for (const p of match.players || []) {
    const s = scores.find((x) => x.player === p);
    box.append(el("div", { class: "row" + (match.first === p ? " winner" : "") },
      el("span", { class: "card", text: p }),
      el("span", { class: "dice2", text: s ? s.dice.join(" + ") : "" }),
      el("span", { class: "vals", text: s ? String(s.total) : "–" })));
  }
  if (scores.length && scores.every((x) => x.tie)) box.append(el("div", { class: "sub", text: "tie: both roll again" }));
  box.classList.remove("hidden");
}

function renderTable(match) {
  const box = document.getElementById("table");
  if (match && match.procedure === "first-player") { renderScores(match, box); return; }
  const next = match && match.next;
  const table = next && next.table;
  if (!match || match.procedure !== "banish" || match.done || !next) { box.classList.add("hidden"); return; }
  box.replaceChildren();
  const left = (match.count || 0) - (match.banished || []).length;
  if (next.procedure === "shuffle") {
    box.append(el("h2", { text: "Banish: shuffle, opponent picks" }),
               el("div", { class: "sub", text: next.cards + " cards, no dice" }));
  } else if (table) {
    box.append(el("h2", { text: "Roll a " + String(table.die).toUpperCase() }),
               el("div", { class: "sub", text: left + " to banish · " + (table.cards || []).length + " cards in memory" }));
    for (const row of table.cards || [])
      box.append(el("div", { class: "row" }, el("span", { class: "vals", text: row.label }),
                    el("span", { class: "pos", text: "#" + row.position }),
                    el("span", { class: "card", text: row.card || "" })));
    if ((table.reroll || []).length) {
      const r = table.reroll, label = r.length > 1 ? r[0] + "–" + r[r.length - 1] : String(r[0]);
      box.append(el("div", { class: "row again" }, el("span", { class: "vals", text: label }),
                    el("span", { class: "pos", text: "" }), el("span", { class: "card", text: "roll again" })));
    }
  } else { box.classList.add("hidden"); return; }
  box.classList.remove("hidden");
}

function render(state) {
  const roll = state.roll;
  const rollBox = document.getElementById("roll");
  if (roll) {
    document.getElementById("dice").replaceChildren(...roll.dice.map(dieTile));
    const dec = document.getElementById("decision");
    const rolling = !roll.dice.length && !roll.decision_text;
    dec.replaceChildren(rolling ? "Rolling…" : (roll.decision_text || ""));
    if (roll.judge_reason) dec.append(el("span", { class: "why", text: roll.judge_reason }));
    const last = roll.decisions.length ? roll.decisions[roll.decisions.length - 1].result : "";
    dec.className = "panel " + (rolling ? "rolling" : roll.decision_text.startsWith("Judge") ? "judge" : (last || ""));
    rollBox.dataset.roll = roll.name || "";
    rollBox.classList.remove("hidden");
  } else rollBox.classList.add("hidden");
  renderTable(state.match);
  const st = document.getElementById("status");
  const lost = Object.entries(state.status || {}).filter(([k, v]) => v === "lost").map(([k]) => k);
  st.textContent = lost.map((k) => k.toUpperCase() + " LOST").join(" · ");
  st.classList.toggle("hidden", lost.length === 0);
  window.__overlay.version = state.version;
  window.__overlay.renders.push({ roll: roll && roll.name, version: state.version,
    reading_ms: roll && roll.reading_ms, rendered_ms: Date.now() });
  if (window.__overlay.renders.length > 50) window.__overlay.renders.shift();
}

openFeed(render, (up) => { document.body.dataset.connected = up ? "yes" : "no"; });
