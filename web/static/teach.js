// "Teach the camera your dice": pick an army, Look (the server finds the dice on the newest camera
// frame), tap the face each die shows; every tap teaches the table profile at once.  The token is
// the one the game page keeps (host link or paired tablet); without one the page is read-only.
"use strict";

const $ = (sel) => document.querySelector(sel);
const page = { armies: [], chosen: [], look: null, canChange: false, lastTaught: null, anyway: false };

function say(text, bad) {
  const m = $("#message");
  m.textContent = text;
  m.className = "message" + (bad ? " bad" : "");
}

function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k) e.append(k);
  return e;
}

const short = (name) => String(name).split("/").pop();

function roster() {
  const id = $("#army").value;
  if (id === "custom") return page.chosen;
  const a = page.armies.find((x) => x.id === id);
  return a ? a.dice : [];
}

function drawKnown(known) {
  if (!known) { $("#army-known").textContent = ""; $("#per-die").replaceChildren(); return; }
  $("#army-known").textContent = `${known.known} of ${known.total} faces known`;
  $("#per-die").replaceChildren(...known.dice.map((d) =>
    el("span", { "data-die": d.die }, el("b", { text: short(d.die) }), ` ${d.known}/${d.total}`)));
}

async function refreshKnown() {
  const dice = roster();
  if (!dice.length) { drawKnown(null); return; }
  const q = dice.map((d) => "dice=" + encodeURIComponent(d)).join("&");
  try {
    const r = await json("GET", "/api/teach?" + q);
    drawKnown(r.roster);
  } catch (e) { say(e.message, true); }
}

function drawPicker() {
  const sel = $("#army");
  const opts = page.armies.map((a) => el("option", { value: a.id, text: `${a.label} (${a.dice.length} dice)` }));
  opts.push(el("option", { value: "custom", text: "Dice chosen from the catalogue" }));
  sel.replaceChildren(...opts);
  if (!page.armies.length) sel.value = "custom";
  drawCustom();
}

function drawCustom() {
  $("#custom").hidden = $("#army").value !== "custom";
  $("#chosen").replaceChildren(...page.chosen.map((name) => el("button", {
    type: "button", title: "remove", text: short(name) + " ✕",
    onclick: () => { page.chosen = page.chosen.filter((n) => n !== name); drawCustom(); refreshKnown(); },
  })));
}

let searchTimer = null;
function search() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(async () => {
    const q = $("#search").value.trim();
    if (!q) { $("#hits").replaceChildren(); return; }
    try {
      const r = await json("GET", "/api/catalogue?limit=8&q=" + encodeURIComponent(q));
      const list = r.dice || r.results || r;
      $("#hits").replaceChildren(...(Array.isArray(list) ? list : []).map((d) => el("button", {
        type: "button", text: d.name,
        onclick: () => {
          if (!page.chosen.includes(d.name)) page.chosen.push(d.name);
          drawCustom(); refreshKnown();
        },
      })));
    } catch (e) { say(e.message, true); }
  }, 200);
}

function readsText(read) {
  if (read.cocked) return ["cocked: lay it flat", "unread"];
  if (read.unreadable) return ["unread: tap its face", "unread"];
  return [read.die ? `reads ${short(read.die)}: ${read.face}` : `reads ${read.face}`, "ok"];
}

// a die left unread: the known faces nearest its crop, nearest first (the server's ``likely``), each
// with the candidate dice showing it; marked for the tap, never picked
function likelyRank(d, die, face) {
  return (d.taught ? [] : d.likely || []).findIndex((l) => l.face === face && l.dice.includes(die));
}

function likelyNote(d) {
  const likely = d.taught ? [] : d.likely || [];
  if (!likely.length) return null;
  const names = likely.map((l) => (l.dice.length === 1 ? `${short(l.dice[0])} ${l.face}` : l.face));
  return el("div", { class: "hint likelynote", text: `not read · nearest known: ${names.join(", ")}` });
}

function drawDie(d) {
  const [text, cls] = readsText(d.read);
  const card = el("article", { class: "die" + (d.read.unreadable ? " unread" : "") + (d.taught ? " taught" : ""),
                               "data-index": String(d.index), "data-box": d.box.join(",") });
  const what = el("div", { class: "what" },
    el("div", { class: "reads " + cls, text }),
    likelyNote(d),
    d.taught ? el("div", { class: "hint", text: `taught: ${short(d.taught.die)} ${d.taught.face}` }) : null,
    d.taught && page.lastTaught === d.index && page.canChange
      ? el("button", { type: "button", class: "undo", text: "Undo this tap", onclick: () => undo(d.index) }) : null);
  card.append(el("div", { class: "top" }, el("img", { src: d.crop, alt: `die ${d.index + 1} as the camera sees it` }), what));
  for (const opt of d.options) {
    card.append(el("h4", { text: short(opt.die) }));
    const row = el("div", { class: "faces" });
    for (const f of opt.faces) {
      const picked = d.taught && d.taught.die === opt.die && d.taught.face === f.face;
      const rank = likelyRank(d, opt.die, f.face);
      row.append(el("button", {
        type: "button", text: f.face,
        class: (f.known ? "known" : "") + (picked ? " picked" : "") + (rank >= 0 ? " likely" + (rank === 0 ? " nearest" : "") : ""),
        "data-die": opt.die, "data-face": f.face,
        title: rank >= 0 ? `not read: ${rank === 0 ? "the nearest" : "a near"} face the camera knows; tap it if the die shows it`
          : f.known ? "known face" : "not learnt yet",
        ...(page.canChange && !d.taught ? {} : { disabled: "" }),
        onclick: () => label(d.index, opt.die, f.face),
      }));
    }
    card.append(row);
  }
  return card;
}

function drawLook() {
  const look = page.look;
  if (!look) { $("#found").replaceChildren(); return; }
  $("#found").replaceChildren(...look.dice.map(drawDie));
  drawKnown(look.known);
}

async function doLook() {
  const dice = roster();
  if (!dice.length) { say("Pick an army or add dice first.", true); return; }
  $("#look").disabled = true;
  say("Looking…");
  try {
    page.look = await json("POST", "/api/teach/look", { dice });
    page.lastTaught = null;
    drawTurned();
    const unread = page.look.dice.filter((d) => d.read.unreadable).length;
    say(`${page.look.dice.length} dice found, ${unread} unread. Tap the face each die shows.`
      + (page.look.note ? ` Note: ${page.look.note}.` : ""));
    drawLook();
  } catch (e) { say(e.message, true); }
  $("#look").disabled = !page.canChange;
}

// While the camera's turn check finds this look's frames turned, the server refuses taps (a die taught
// turned is learnt turned); the player turns the picture and looks again, or says the camera is right.
function drawTurned() {
  const t = page.look && page.look.turn_suggested;
  page.anyway = false;
  $("#turned").hidden = t === null || t === undefined;
  $("#turned-text").textContent = $("#turned").hidden ? "" :
    `The camera's picture seems turned: dice taught now would be learnt the wrong way round. ` +
    `Turn the picture to ${t}° (Pairing page on the host's tablet) and press Look again.`;
}

async function label(index, die, face) {
  const look = page.look;
  try {
    const body = { look: look.look, index, die, face };
    if (page.anyway) body.anyway = true;
    const r = await json("POST", "/api/teach/label", body);
    look.dice = look.dice.map((d) => (d.index === index ? r.die : d));
    look.known = r.known;
    page.lastTaught = index;
    say(`Learnt: ${short(die)} ${face}. ${r.known.known} of ${r.known.total} faces known.`);
    drawLook();
  } catch (e) { say(e.message, true); }
}

async function undo(index) {
  const look = page.look;
  try {
    const r = await json("POST", "/api/teach/undo", { look: look.look, index });
    look.dice = look.dice.map((d) => (d.index === index ? r.die : d));
    look.known = r.known;
    page.lastTaught = null;
    say(`Taken back. ${r.known.known} of ${r.known.total} faces known; tap the right face.`);
    drawLook();
  } catch (e) { say(e.message, true); }
}

function teachAnyway() {
  page.anyway = true;
  $("#turned").hidden = true;
  say("Taps teach from these frames as they are.");
}

async function start() {
  const url = new URL(location.href);
  const host = url.searchParams.get("token");
  if (host) {
    localStorage.setItem(TOKEN_KEY, host);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search);
  }
  try {
    const r = await json("GET", "/api/teach");
    page.armies = r.armies;
    page.canChange = r.role === "host" || r.role === "tablet";
    $("#role").textContent = page.canChange ? r.role : "read-only";
    $("#role").className = "pill" + (page.canChange ? " ok" : "");
    $("#readonly").hidden = page.canChange;
    $("#look").disabled = !page.canChange;
    drawPicker();
    await refreshKnown();
  } catch (e) { say(e.status ? e.message : "The server cannot be reached: " + e.message, true); }
}

$("#army").addEventListener("change", () => { drawCustom(); page.look = null; drawLook(); refreshKnown(); });
$("#search").addEventListener("input", search);
$("#look").addEventListener("click", doLook);
$("#anyway").addEventListener("click", teachAnyway);
start();
