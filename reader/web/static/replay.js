// Replay: the recorded rolls of a match, frame by frame, with the readings and decisions.
// Every file comes from /rec/ROLL/..., which the server serves only from the recordings folder.
"use strict";
const $ = (id) => document.getElementById(id);
let roll = null, index = 0, timer = null;

function fail(msg) { $("err").textContent = msg; }

async function getJSON(path) {
  const r = await fetch(path, { cache: "no-store" });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
  return data;
}

function decisionText(d) {
  switch (d.result) {
    case "banish": return "Banished #" + d.position + " " + d.card + (d.value != null ? " (" + String(d.die).toUpperCase() + " " + d.value + ")" : "");
    case "reroll": return d.value + " names no card: roll again";
    case "roll-again": return (d.player ? d.player + ": " : "") + (d.reason || "unreadable") + ": roll again";
    case "done": return "Done: " + (d.banished || []).map((b) => "#" + b.position + " " + b.card).join(", ");
    case "rolled": return d.player + ": " + (d.dice || []).join(" + ") + " = " + d.total;
    case "tie": return "Tie at " + d.total + ": roll again";
    case "first": return d.player + " goes first";
    default: return d.result || JSON.stringify(d);
  }
}

async function loadList() {
  try {
    const data = await getJSON("/api/rolls");
    $("summary").textContent = data.rolls.length + " rolls";
    $("rollList").replaceChildren(...data.rolls.map((r) => el("li", { "data-roll": r.name, onclick: () => openRoll(r.name) },
      r.name, el("small", { text: (r.created || "").replace("T", " ").slice(0, 19) }))));
    $("partials").textContent = data.partials.length ? "unfinished, not valid rolls: " + data.partials.join(", ") : "";
    const want = decodeURIComponent(location.hash.slice(1)).split("/");
    if (want[0]) openRoll(want[0], want[1] ? Number(want[1]) : undefined);
    else if (data.rolls.length) openRoll(data.rolls[data.rolls.length - 1].name);
  } catch (e) { fail("cannot list the rolls: " + e.message); }
}

async function openRoll(name, at) {
  try {
    roll = await getJSON("/api/rolls/" + encodeURIComponent(name));
    fail("");
  } catch (e) { fail(name + ": " + e.message); return; }
  for (const li of document.querySelectorAll("#rollList li")) li.classList.toggle("active", li.dataset.roll === name);
  $("rollTitle").textContent = name;
  $("slider").max = Math.max(0, roll.frames.length - 1);
  $("decisions").replaceChildren(...roll.events.filter((e) => e.type === "decision")
    .map((d) => el("li", { class: d.result, text: decisionText(d) })));
  $("setUp").textContent = roll.set_up ? "Camera set-up: " + roll.set_up : "";
  const settled = roll.events.find((e) => e.type === "reading") || roll.events.find((e) => e.type === "settled");
  show(at != null ? at : (settled ? frameSlot(settled.frame) : 0));
}

function frameSlot(frameIndex) {
  const i = roll.frames.findIndex((f) => f.index === frameIndex);
  return i < 0 ? 0 : i;
}

function show(i) {
  if (!roll || !roll.frames.length) { $("noFrame").textContent = "no frames in this roll"; return; }
  index = Math.max(0, Math.min(roll.frames.length - 1, i));
  const f = roll.frames[index];
  $("slider").value = index;
  $("frameInfo").textContent = "frame " + f.index + " · t = " + Number(f.t).toFixed(2) + " s · " + (index + 1) + "/" + roll.frames.length;
  $("noFrame").classList.add("hidden");
  $("frame").onload = drawBoxes;
  $("frame").src = "/rec/" + encodeURIComponent(roll.name) + "/" + f.file;
  history.replaceState(null, "", "#" + roll.name + "/" + index);
  const readings = roll.events.filter((e) => e.type === "reading" && e.frame === f.index);
  const dice = readings.length ? readings[readings.length - 1].dice : [];
  $("reading").querySelector("tbody").replaceChildren(...(dice.length ? dice.map((d, k) => el("tr", {},
    el("td", { text: String(k + 1) }), el("td", { text: String(d.die).toUpperCase() }),
    el("td", { class: "value", text: d.value == null ? "—" : String(d.value) }), el("td", { text: d.state }),
    el("td", { text: d.confidence == null ? "" : Math.round(d.confidence * 100) + "%" })))
    : [el("tr", {}, el("td", { text: "no reading at this frame" }))]));
  $("events").replaceChildren(...roll.events.filter((e) => e.type !== "frame").map((e) => {
    const here = e.frame === f.index || e.index === f.index;
    let text = e.t.toFixed(2) + "  " + e.type;
    if (e.type === "decision") text += ": " + decisionText(e);
    else if (e.type === "reading") text += " @" + e.frame + ": " + (e.dice || []).map((d) => String(d.die).toUpperCase() + " " + (d.value ?? d.state)).join(", ");
    else if (e.type === "note") text += ": " + e.text;
    else if (e.frame != null) text += " @" + e.frame;
    return el("li", { class: here ? "now" : (e.t > f.t ? "future" : "") , text });
  }));
  drawBoxes();
}

function drawBoxes() {
  const img = $("frame"), c = $("boxes");
  if (!roll || !img.naturalWidth) return;
  const f = roll.frames[index];
  c.width = img.clientWidth; c.height = img.clientHeight;
  c.style.left = img.offsetLeft + "px"; c.style.top = img.offsetTop + "px";
  const s = img.clientWidth / img.naturalWidth, g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const draw = (list, color, dash) => {
    for (const d of list) {
      if (!d.box) continue;
      const [x0, y0, x1, y1] = d.box.map((v) => v * s);
      g.setLineDash(dash); g.strokeStyle = color; g.lineWidth = 2; g.strokeRect(x0, y0, x1 - x0, y1 - y0);
      g.setLineDash([]); g.fillStyle = color; g.font = "bold 14px sans-serif";
      g.fillText(String(d.die).toUpperCase() + " " + (d.value ?? d.state), x0 + 2, Math.max(12, y0 - 4));
    }
  };
  for (const e of roll.events) {
    if (e.type === "truth" && e.frame === f.index) draw(e.dice || [], "#74c0fc", [6, 4]);
    if (e.type === "reading" && e.frame === f.index) draw(e.dice || [], "#8ce99a", []);
  }
}

$("prev").onclick = () => show(index - 1);
$("next").onclick = () => show(index + 1);
$("first").onclick = () => show(0);
$("slider").oninput = () => show(Number($("slider").value));
$("settled").onclick = () => {
  const r = roll && (roll.events.find((e) => e.type === "reading") || roll.events.find((e) => e.type === "settled"));
  if (r) show(frameSlot(r.frame));
};
$("play").onclick = () => {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶"; return; }
  $("play").textContent = "⏸";
  timer = setInterval(() => { if (!roll || index >= roll.frames.length - 1) $("play").click(); else show(index + 1); }, 120);
};
document.addEventListener("keydown", (ev) => {
  if (ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
  if (ev.key === "ArrowLeft") show(index - 1);
  else if (ev.key === "ArrowRight") show(index + 1);
  else if (ev.key === "Home") show(0);
  else if (ev.key === " ") { ev.preventDefault(); $("play").click(); }
});
window.addEventListener("resize", drawBoxes);
loadList();
