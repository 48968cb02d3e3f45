// Dragon Dice companion: the tablet page.  No framework, no CDN: plain DOM and fetch.
// State comes from GET /api/state; the live stream (GET /api/events, server-sent events) says when
// it changed.  Changes are POSTed with the tablet's token in the X-Companion-Token header.
"use strict";

const TOKEN_KEY = "companion.token";
const PHASES = [
  ["setup", "Set-up"], ["expire_effects", "Expire"], ["eighth_face", "8th face"],
  ["dragon_attack", "Dragons"], ["species_abilities", "Species"], ["first_march", "March 1"],
  ["second_march", "March 2"], ["reserves", "Reserves"],
];
const PLAYER_COLORS = ["var(--p0)", "var(--p1)", "var(--p2)", "var(--p3)"];
const ELEMENT_COLORS = { Air: "var(--air)", Death: "var(--death)", Earth: "var(--earth)",
  Fire: "var(--fire)", Water: "var(--water)" };

const app = {
  state: null, view: document.body.dataset.view || "table", picked: {}, lastRender: null,
  es: null, loading: false, dirty: false, dispute: null, odds: null, builder: null, renders: [],
  ownRevs: {}, confirming: false,
};
window.companion = app;

// -- tiny DOM helper -------------------------------------------------------------------------
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "style") Object.assign(el.style, v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}
const $ = (sel) => document.querySelector(sel);
function fill(el, ...kids) { el.replaceChildren(...kids.flat().filter((k) => k !== null && k !== undefined && k !== false)); }

// -- token, pairing -----------------------------------------------------------------------------
function token() { return localStorage.getItem(TOKEN_KEY) || ""; }
function setToken(t) { if (t) localStorage.setItem(TOKEN_KEY, t); else localStorage.removeItem(TOKEN_KEY); }

async function takeTokensFromUrl() {
  const url = new URL(location.href);
  const host = url.searchParams.get("token");
  if (host) {
    setToken(host);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search);
  }
  const m = location.hash.match(/pair=([A-Za-z0-9]+)/);
  if (m) {
    history.replaceState(null, "", location.pathname + location.search);
    try {
      const r = await api("POST", "/api/pair", { code: m[1], name: deviceName() });
      setToken(r.token);
      toast("This tablet is paired: it can change the game.", "info");
    } catch (e) { /* toast shown by api() */ }
  }
}
function deviceName() {
  const ua = navigator.userAgent;
  return /iPad|Tablet/.test(ua) ? "tablet" : /Mobile/.test(ua) ? "phone" : "browser";
}

// -- HTTP ----------------------------------------------------------------------------------------
async function api(method, path, body) {
  const opts = { method, headers: { Accept: "application/json" } };
  if (token()) opts.headers["X-Companion-Token"] = token();
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let resp;
  try { resp = await fetch(path, opts); } catch (e) {
    toast("The server cannot be reached; retrying…");
    throw e;
  }
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) {
    const msg = data.message || `${resp.status} ${resp.statusText}`;
    toast(data.rule ? `${msg} (${data.rule})` : msg);
    const err = new Error(msg); err.status = resp.status; err.data = data;
    throw err;
  }
  return data;
}

let toastTimer = null;
function toast(msg, kind) {
  const t = $("#toast");
  t.textContent = msg; t.className = "toast" + (kind ? " " + kind : ""); t.hidden = false;
  clearTimeout(toastTimer);
  if (kind === "sticky") return;  // stays until the next message: it says what to do
  toastTimer = setTimeout(() => { t.hidden = true; }, kind === "info" ? 2500 : 5000);
}

// -- state and live stream -------------------------------------------------------------------------
async function refresh() {
  if (app.loading) { app.dirty = true; return; }
  app.loading = true;
  try {
    do {
      app.dirty = false;
      app.state = await api("GET", "/api/state");
      noticeRestartAndToken(app.state);
      render(true);
      // a new roll is about to be made: its odds are fetched for the Roll and Odds pages
      const p = app.state.pending;
      // (or the decision names the army it is about: odds_army, from the engine)
      const key = p && (p.kind === "roll" || p.odds_army) ? `${app.state.game_id}|${app.state.seq}` : null;
      if (key && key !== app.oddsKey && (!app.oddsParams || app.oddsParams.auto) && (app.view === "roll" || app.view === "odds")) {
        app.oddsKey = key;
        app.oddsParams = null;
        loadOdds().then(() => render(true));
      }
    } while (app.dirty);
    app.offline = false;
  } catch (e) {
    // the server cannot be reached: the page (from the service worker's cache) still shows its shell
    if (!app.state) { app.offline = true; render(true); }
  } finally { app.loading = false; }
}

// A restarted server has a new boot_id: the page starts over from its state.  A token that no
// longer gives a role comes with the server's advice (old host token: open the host URL again;
// tablet: pair again), shown until it is followed.
function noticeRestartAndToken(st) {
  if (app.bootId && st.boot_id !== app.bootId) {
    app.pairing = null; app.odds = null; app.oddsKey = null;
    toast("The server restarted; this page shows the game as it is now.", "info");
  }
  app.bootId = st.boot_id;
  document.body.dataset.boot = st.boot_id || "";
  if (st.token_advice && app.warnedToken !== st.token_advice) {
    app.warnedToken = st.token_advice;
    toast(st.token_advice, "sticky");
  } else if (!st.token_advice) app.warnedToken = null;
}

function connect() {
  const st = app.state;
  const since = st && st.game_id ? `?since=${encodeURIComponent(st.game_id + ":" + st.seq)}` : "";
  const es = new EventSource("/api/events" + since);
  app.es = es;
  const link = $("#link");
  es.onopen = () => {
    link.className = "pill ok"; link.textContent = "live";
    if (app.streamWasOpen || app.offline) refresh();  // reconnected (perhaps to a restarted server): look again
    app.streamWasOpen = true;
  };
  es.onerror = () => { link.className = "pill bad"; link.textContent = "reconnecting"; };
  es.addEventListener("game", (ev) => {
    const e = JSON.parse(ev.data);
    app.lastEvent = { seq: e.seq, at: Date.now() };
    refresh();
  });
  es.addEventListener("reset", () => refresh());
  es.addEventListener("hello", (ev) => {  // a restarted server has a new boot id: look at everything again
    if (app.bootId && JSON.parse(ev.data).boot_id !== app.bootId) refresh();
  });
  es.addEventListener("notice", (ev) => {
    const n = JSON.parse(ev.data);
    if (n.kind === "paired") app.pairing = null;  // the host's list of tablets is out of date
    if (window.gamesNotice && /^(game_|new_game)/.test(n.kind)) gamesNotice(n);  // games.js
    if (n.kind === "reading") {
      if (app.state) { app.state.reading = n.data.reading; app.picked = {}; render(true); }
    } else refresh();
  });
}

// -- rendering -----------------------------------------------------------------------------------
function playerName(pid) {
  const p = (app.state?.state?.players || []).find((x) => x.id === pid);
  return p ? p.name : pid;
}
function playerColor(pid) {
  const i = (app.state?.state?.players || []).findIndex((x) => x.id === pid);
  return PLAYER_COLORS[(i < 0 ? 0 : i) % PLAYER_COLORS.length];
}
function terrainName(tid) {
  if (tid === "reserve") return "Reserve Area";
  const t = (app.state?.state?.terrains || []).find((x) => x.id === tid);
  return t ? t.name : tid;
}
function canChange() { return app.state && (app.state.role === "host" || app.state.role === "tablet"); }

// fromServer: redrawn because the game changed (not by this user's own tap).
function render(fromServer) {
  const st = app.state;
  renderTopbar(st);
  renderPrompt(st);
  announceRoll(st);
  keepAwake();
  for (const v of ["table", "roll", "odds", "dispute", "new", "host"]) {
    $(`#view-${v}`).classList.toggle("active", v === app.view);
  }
  document.querySelectorAll(".rail a").forEach((a) => a.classList.toggle("active", a.dataset.view === app.view));
  // Someone typing in this page's form keeps their text: the view is redrawn when they leave it.
  const active = document.activeElement;
  const typing = fromServer === true && active && ["INPUT", "SELECT", "TEXTAREA"].includes(active.tagName)
    && active.closest(`#view-${app.view}`);
  if (typing) {
    app.viewDirty = true;
  } else {
    app.viewDirty = false;
    ({ table: renderTable, roll: renderRoll, odds: renderOdds, dispute: renderDispute,
      new: renderNew, host: renderHost })[app.view]();
  }
  app.lastRender = { seq: st ? st.seq : 0, at: Date.now() };
  app.renders.push(app.lastRender);  // when each event reached the screen (bench/web.py reads it)
  if (app.renders.length > 500) app.renders.shift();
  document.body.dataset.seq = st ? st.seq : 0;
}

function phaseLabel(id) {
  const found = PHASES.find(([k]) => k === id);
  return found ? found[1] : String(id || "").replace(/_/g, " ");
}
function renderTopbar(st) {
  const role = $("#role");
  role.className = "pill role " + (st?.role || "");
  role.textContent = { host: "host", tablet: "paired", viewer: "read-only" }[st?.role] || "read-only";
  for (const s of st?.sources || []) {
    const el = $(s.kind === "camera" ? "#src-camera" : "#src-serial");
    if (!el) continue;
    el.className = "pill " + ({ connected: "ok", lost: "bad", connecting: "", off: "off" }[s.state] || "");
    el.textContent = `${s.kind === "camera" ? "camera" : "dice"}: ${s.state}`;
    el.title = s.message || s.state;
    if (s.kind === "camera" && s.turn_advice) {  // the turn check: the frames are the wrong way round
      el.className = "pill bad";
      el.textContent = "camera: turned?";
      el.title = s.turn_advice;
    }
    // A frame on screen that came with the roll's reading (not from a connected camera) is said so.
    if (s.kind === "camera" && s.state !== "connected" && st?.reading?.frame) {
      el.className = "pill ok";
      el.textContent = `camera: ${st.reading.source === "camera" ? "frame read" : "frame shown"}`;
      el.title = `no live camera (${s.state}); the frame shown came with this roll's reading`;
    }
  }
  const now = $("#phasenow");
  const bar = $("#phasebar");
  const g = st?.state;
  const rules = st?.rules;
  const rulesEl = rules ? h("span", { class: "rulesdoc", id: "rules-doc", title: rules.title }, `Rules: ${rules.document}`) : null;
  if (!g) {
    fill(now, h("b", { class: "muted", id: app.offline ? "offline" : null }, st ? "No game yet" : app.offline ? "Server unreachable: retrying" : "Loading…"));
    fill(bar, st ? h("span", { class: "muted small" }, "Start one on New game") : null);
    return;
  }
  if (rules && rules.view === "battle_dice") {  // the board the engine names for this game
    const over = g.winner ? `Battle over: ${playerName(g.winner)} wins` : `Battle Dice · turn ${g.turn}`;
    fill(now, h("b", { class: "phasename", id: "phase-now" }, String(g.phase || "").replace(/_/g, " ")),
      h("span", { class: "turninfo" }, over, rulesEl ? " · " : "", rulesEl));
    fill(bar, h("span", { class: "turninfo" }, over), h("span", { class: "phase now" }, String(g.phase || "").replace(/_/g, " ")));
    return;
  }
  const cur = g.phase;
  let passed = true;
  const chips = PHASES.map(([id, label]) => {
    if (id === cur) passed = false;
    const cls = id === cur ? "phase now" : passed && cur !== "setup" && id !== "setup" ? "phase done" : "phase";
    return h("span", { class: cls, dataset: { phase: id } }, label);
  });
  const who = g.marching_player ? playerName(g.marching_player) : "";
  const over = g.phase === "game_over";
  const info = over ? `${playerName(g.winner)} wins` : g.turn ? `Turn ${g.turn}${who ? " · " + who : ""}` : "before turn 1";
  fill(now, h("b", { class: "phasename", id: "phase-now", dataset: { phase: cur } }, over ? "Game over" : phaseLabel(cur)),
    h("span", { class: "turninfo" }, info, rulesEl ? " · " : "", rulesEl));
  fill(bar, chips);
}

function renderPrompt(st) {
  const el = $("#prompt");
  const p = st?.pending;
  if (!st?.state) {
    el.className = "prompt idle";
    fill(el, h("span", { class: "text", id: app.offline ? "offline-note" : null }, app.offline
      ? "The server cannot be reached: this page opened from its saved copy. The game shows again as soon as the server answers (it is kept in its file)."
      : "No game yet."));
    return;
  }
  if (st.game_status === "ended") {  // ended by the host (web/games.py): read only until resumed
    el.className = "prompt idle";
    fill(el, h("span", { class: "text", id: "ended-prompt" }, "The host ended this game: it is read only until the host resumes it (New game page, Games)."));
    return;
  }
  if (!p) {
    el.className = "prompt idle";
    fill(el, h("span", { class: "text" }, st.state.phase === "game_over" ? "The game is over." : "Nothing to decide."),
      undoButton());
    return;
  }
  el.className = "prompt" + (p.kind === "roll" && app.view === "roll" ? " onroll" : "");
  const dot = h("span", { class: "dot", style: { background: playerColor(p.player) } });
  const name = playerName(p.player);
  const said = p.prompt.startsWith(name + ":") ? p.prompt.slice(name.length + 1).trim() : p.prompt;
  const text = h("span", { class: "text" }, dot, " ", h("span", { class: "who" }, name + ": "), said);
  const cite = p.rule ? h("button", { class: "cite", onclick: () => showRule(p.rule, p.prompt) }, p.rule) : null;
  const choices = h("div", { class: "choices" });
  const disabled = !canChange();
  if (p.kind === "choice") {
    for (const c of p.choices) {
      choices.append(h("button", { class: "btn primary", disabled, dataset: { choice: JSON.stringify(c.value) },
        onclick: () => decide({ type: "choose", choice: c.value }) }, c.label));
    }
  } else if (p.kind === "roll") {
    choices.append(h("button", { class: "btn primary", onclick: () => go("roll") }, `Roll ${p.dice.length} dice…`));
  } else if (p.kind === "allocate") {
    p.choices.slice(0, 6).forEach((set) => {
      const uids = Array.isArray(set) ? set : set.value || set.units || [];
      const label = set.label || uids.map(unitLabel).join(" + ");
      choices.append(h("button", { class: "btn primary", disabled, onclick: () => decide({ type: "allocate", units: uids }) },
        `Kill ${label}`));
    });
  } else if (p.kind === "cast") {
    choices.append(h("button", { class: "btn", disabled, onclick: () => decide({ type: "cast", spells: [] }) }, "Cast nothing"));
    choices.append(castForm(p, disabled));
  } else if (p.kind === "reinforce") {
    choices.append(movesForm(p, disabled));
  } else if (p.kind === "retreat") {
    choices.append(retreatForm(p, disabled));
  }
  if (disabled) choices.append(h("span", { class: "muted small" }, "read-only: pair this tablet to play"));
  fill(el, text, choices, h("span", { class: "aside" }, cite, undoButton()));
}

// Announce spells (V4.01c L470-480, L2118-2156): each spell with the kind of target the rules give it,
// combined castings for cumulative spells, several spells in one announcement; Cantrip magic offers
// only spells marked C (the server filters them).
function castForm(p, disabled) {
  const o = p.cast_options;
  if (!o || !o.spells.length) return h("span", { class: "muted small" }, o && o.cantrip ? "no spell marked C this Cantrip magic can pay for" : "no spell this magic can pay for");
  const planned = [];
  const options = (list) => list.map((t) => h("option", { value: t.value }, t.label));
  const spellSel = h("select", { class: "btn small", "aria-label": "spell", id: "cast-spell" },
    o.spells.map((s, i) => h("option", { value: i }, `${s.spell} (${s.cost})`)));
  const elemSel = h("select", { class: "btn small", "aria-label": "element", id: "cast-element" });
  const castings = h("input", { type: "number", class: "btn small", min: 1, value: 1, "aria-label": "castings", id: "cast-castings", style: { width: "64px" } });
  const toSel = h("select", { class: "btn small", "aria-label": "destination", id: "cast-to" }, options(o.terrains || []));
  const targetBox = h("span", { class: "row", id: "cast-target" });
  const hint = h("span", { class: "muted small", id: "cast-hint" });
  const listEl = h("div", { class: "small", id: "cast-list" });
  const spell = () => o.spells[Number(spellSel.value)];
  let read = () => ({});
  const sync = () => {
    const s = spell();
    fill(elemSel, s.elements.map((e) => h("option", { value: e }, e)));
    castings.max = s.max_castings; castings.value = 1;
    castings.hidden = !s.cumulative;
    toSel.hidden = !s.to;
    hint.textContent = `targets ${s.target_text || "an army or a terrain"}`;
    if (s.target === "units") {
      const picked = new Set();
      fill(targetBox, (o.units || []).map((u) => h("button", { class: "facebtn", dataset: { uid: u.value }, onclick: (ev) => {
        if (picked.has(u.value)) picked.delete(u.value); else picked.add(u.value);
        ev.currentTarget.classList.toggle("on", picked.has(u.value));
      } }, u.label)));
      read = () => ({ units: [...picked] });
    } else {
      const list = { army: o.armies, terrain: o.terrains, dua: o.duas, unit: o.units, army_or_terrain: o.targets }[s.target] || o.targets;
      const sel = h("select", { class: "btn small", "aria-label": "target", id: "cast-target-select" }, options(list || []));
      fill(targetBox, sel);
      read = () => ({ target: sel.value });
    }
  };
  spellSel.addEventListener("change", sync);
  sync();
  const entry = () => {
    const s = spell();
    const e = { spell: s.spell, element: elemSel.value, ...read() };
    if (s.cumulative && Number(castings.value) > 1) e.castings = Number(castings.value);
    if (s.to) e.to = toSel.value;
    return e;
  };
  const showList = () => fill(listEl, planned.length ? `Announced so far: ${planned.map((e) => e.spell + (e.castings ? ` x${e.castings}` : "")).join(", ")}` : "");
  return h("div", { class: "castform" },
    h("span", { class: "row" }, spellSel, elemSel, castings, targetBox, toSel),
    hint, listEl,
    h("span", { class: "row" },
      h("button", { class: "btn", disabled, id: "cast-add", onclick: () => { planned.push(entry()); showList(); } }, "Add another spell"),
      h("button", { class: "btn primary", disabled, id: "cast-go", onclick: () => decide({ type: "cast", spells: [...planned, entry()] }) }, "Cast")));
}

// Reserves phase: tap units to pick them (V4.01c L483-491).
function retreatForm(p, disabled) {
  const picked = new Set();
  const go = h("button", { class: "btn primary", disabled, id: "retreat-go", onclick: () => decide({ type: "retreat", units: [...picked] }) }, "No retreat");
  const chips = (p.units || []).map((uid) => h("button", { class: "facebtn", disabled, dataset: { uid }, onclick: (ev) => {
    if (picked.has(uid)) picked.delete(uid); else picked.add(uid);
    ev.currentTarget.classList.toggle("on", picked.has(uid));
    go.textContent = picked.size ? `Retreat ${picked.size} to reserve` : "No retreat";
  } }, unitLabel(uid), h("span", { class: "muted small" }, ` · ${terrainName(locationOf(uid)).split(" ")[0]}`)));
  return h("span", { class: "row" }, chips, go);
}
function movesForm(p, disabled) {
  const moves = {};
  const go = h("button", { class: "btn primary", disabled, id: "reinforce-go", onclick: () => decide({ type: "reinforce", moves }) }, "No reinforcements");
  const rows = (p.units || []).map((uid) => h("label", { class: "field" }, unitLabel(uid),
    h("select", { class: "btn small", disabled, dataset: { uid }, onchange: (ev) => {
      if (ev.target.value) moves[uid] = ev.target.value; else delete moves[uid];
      const n = Object.keys(moves).length;
      go.textContent = n ? `Reinforce with ${n}` : "No reinforcements";
    } }, h("option", { value: "" }, "stay in reserve"), (p.terrains || []).map((t) => h("option", { value: t }, terrainName(t))))));
  return h("span", { class: "row" }, rows, go);
}

function undoButton() {
  if (!app.state?.state || !canChange()) return null;
  return h("button", { class: "btn ghost small", title: "undo the last action", onclick: async () => {
    await api("POST", "/api/undo", { n: 1 }).catch(() => null);
  } }, "↶", h("span", { class: "ulabel" }, " Undo"));
}

function unitLabel(uid) {
  const u = allUnits()[uid];
  if (!u) return uid;
  return String(u.die).includes("/") ? u.die.split("/").pop() : `${u.name || ""} ${u.die}`.trim();
}
function locationOf(uid) {
  const a = (app.state?.state?.armies || []).find((x) => x.units.some((u) => u.uid === uid));
  return a ? a.location : "";
}
function allUnits() {
  const out = {};
  const g = app.state?.state;
  if (!g) return out;
  for (const a of g.armies || []) for (const u of a.units) out[u.uid] = u;
  for (const p of g.players || []) for (const k of ["reserve", "dua", "bua", "summoning_pool"]) for (const u of p[k] || []) out[u.uid] = u;
  for (const d of app.state?.pending?.dice || []) if (!out[d.uid]) out[d.uid] = d;
  return out;
}

async function decide(action) {
  try {
    await api("POST", "/api/decisions", { action, expect_seq: app.state.seq });
  } catch (e) { if (e.status === 409) refresh(); }
}

// -- Table ---------------------------------------------------------------------------------------
function unitChip(u) {
  const col = ELEMENT_COLORS[(u.elements || [])[0]] || "var(--line)";
  const hp = h("span", { class: "hp", title: `health ${u.health}` });
  for (let i = 0; i < Math.min(u.health || 0, 8); i++) hp.append(h("i"));
  return h("span", { class: "unit", style: { borderLeftColor: col }, title: u.die, dataset: { uid: u.uid } },
    u.die.split("/").pop(), u.kind === "unit" ? hp : h("span", { class: "muted" }, u.kind));
}

function renderBattleDice(root, g) {
  const cards = (g.armies || []).map((a) => {
    const p = (g.players || []).find((x) => x.id === a.owner) || {};
    const turn = (g.this_turn || {})[a.owner] || {};
    return h("div", { class: "card", dataset: { army: a.id } },
      h("div", { class: "row" }, h("span", { class: "dot", style: { background: playerColor(a.owner) } }), h("b", {}, p.name || a.owner),
        h("span", { class: "muted small" }, `monster: ${p.monster || "?"} · ${a.units.length} dice`)),
      h("div", { class: "units" }, a.units.map((u) => h("span", { class: "unit", dataset: { uid: u.uid } },
        `${u.name} (${u.die})`, h("b", {}, u.face == null ? "·" : u.face)))),
      (a.destroyed || []).length ? h("div", { class: "area" }, h("b", {}, "Destroyed"),
        h("span", { class: "units" }, a.destroyed.map((u) => h("span", { class: "unit" }, `${u.name || u.uid} (${u.die || ""})`)))) : null,
      h("div", { class: "muted small", style: { marginTop: "8px" } },
        `this turn: ${turn.casualties || 0} casualties · kills ${JSON.stringify(turn.kills || {}).replace(/[{}"]/g, "")}`));
  });
  fill(root, h("div", { class: "grid cols-2" }, cards),
    g.result ? h("div", { class: "card", style: { marginTop: "14px" } }, h("h3", {}, "Result"), String(g.result)) : null);
}

function renderTable() {
  const root = $("#view-table");
  const g = app.state?.state;
  if (g && app.state.rules?.view === "battle_dice") { renderBattleDice(root, g); return; }
  if (!g) { fill(root, h("div", { class: "empty" }, app.offline ? "Waiting for the server…" : ["No game is being played. ", h("a", { href: "/new", onclick: nav }, "Start a new game"), "."])); return; }
  const terrains = h("div", { class: "terrains" }, (g.terrains || []).map((t) => {
    const armies = (g.armies || []).filter((a) => a.location === t.id);
    const eighth = t.face === 8;
    return h("div", { class: "card terrain", dataset: { terrain: t.id } },
      h("div", { class: "head" },
        h("div", { class: "face num" + (eighth ? " eighth" : ""), title: "face showing: why?",
          onclick: () => showRule("V4.01c L129-130; V4.01c L496-511", `${t.name} shows face ${t.face}: terrain faces, capture and the eighth face`) }, t.face),
        h("div", {},
          h("div", { class: "name" }, t.name),
          h("div", { class: "sub" }, `${t.role === "home" ? "Home of " + playerName(t.owner) : "Frontier"} · `,
            eighth ? `${t.eighth_face}` : `${t.action || ""} · ${t.face}/8`,
            t.controller ? h("b", {}, ` · held by ${playerName(t.controller)}`) : ""))),
      armies.length ? armies.map(armyBlock) : h("div", { class: "muted small" }, "no army here"));
  }));
  const areas = h("div", { class: "areas" }, (g.players || []).map((p) => {
    const reserve = (g.armies || []).find((a) => a.owner === p.id && a.location === "reserve");
    const area = (label, list) => h("div", { class: "area" }, h("b", {}, label),
      list && list.length ? h("span", { class: "units" }, list.map(unitChip)) : h("span", { class: "muted small" }, "empty"));
    return h("div", { class: "card", dataset: { player: p.id } },
      h("div", { class: "row" }, h("span", { class: "dot", style: { background: playerColor(p.id) } }),
        h("b", {}, p.name), h("span", { class: "muted small" }, `${p.force_points} pts`),
        p.eliminated ? h("span", { class: "pill bad" }, "eliminated") : null),
      area("Reserves", reserve ? reserve.units : p.reserve),
      area("Dead (DUA)", p.dua), area("Buried (BUA)", p.bua), area("Summoning pool", p.summoning_pool));
  }));
  const effects = (g.effects || []).length
    ? h("ul", { class: "effects" }, g.effects.map((e) => h("li", {}, h("b", {}, e.name), ` on ${targetName(e)} (${playerName(e.owner)}) — ${e.expiry}`)))
    : h("div", { class: "muted small" }, "No effects in force.");
  fill(root, terrains, areas, h("div", { class: "card", style: { marginTop: "14px" } }, h("h3", {}, "Effects in force"), effects));
}
// an effect's target: an army (the server's parsed id, target_army) or what the engine names
function targetName(e) { const a = e.target_army; return a ? `${playerName(a.owner)}'s army at ${terrainName(a.location)}` : e.target; }

function armyBlock(a) {
  return h("div", { class: "army", dataset: { army: a.id } },
    h("div", { class: "who" }, h("span", { class: "dot", style: { background: playerColor(a.owner) } }),
      playerName(a.owner), h("span", { class: "muted small num", title: "health: why?",
        onclick: () => showRule("V4.01c L74-77; V4.01c L1104-1119", "health of units and how damage kills them") },
      `${a.units.filter((u) => u.kind === "unit").length} units · ${a.health} health`)),
    h("div", { class: "units" }, a.units.map(unitChip)));
}

// -- Roll ----------------------------------------------------------------------------------------
// The dice to tap come first; the camera frame (only when there is one) and the last roll follow.
function cameraFrame(st) {
  const reading = st?.reading;
  const cam = (st?.sources || []).find((s) => s.kind === "camera");
  if (!(reading?.frame || (cam && cam.state === "connected"))) {
    return cam && cam.state === "lost" ? h("div", { class: "nocam banner" }, "Camera lost: it will reconnect by itself. Tap the faces meanwhile.") : null;
  }
  const frame = h("div", { class: "frame", id: "roll-frame" });
  // A frame that is not there yet (camera just connected, a busy server) is asked again, a few times.
  let tries = 0;
  const boxes = reading?.frame ? reading.boxes || {} : {};
  const overlay = h("div", { class: "boxes" });
  const img = h("img", { src: `/api/frame.jpg?labels=0&t=${Date.now()}`, alt: "camera frame", onerror: () => {
    if (++tries <= 20) setTimeout(() => { if (img.isConnected) img.src = `/api/frame.jpg?labels=0&t=${Date.now()}`; }, 1000);
  }, onload: () => drawBoxes(overlay, img, boxes, reading) });
  frame.append(img, overlay);
  return frame;
}
// Each die read on the frame: its box and a label (unit: face) in page pixels, readable at any size.
function drawBoxes(overlay, img, boxes, reading) {
  const W = img.naturalWidth, H = img.naturalHeight;
  if (!W || !H) return;
  const names = {};
  for (const d of app.state?.pending?.dice || []) names[d.uid] = String(d.die).split("/").pop();
  fill(overlay, Object.entries(boxes).map(([uid, b]) => {
    const [x1, y1, x2, y2] = b;
    const face = reading?.faces?.[uid];
    const fixed = (reading?.corrected || []).includes(uid);
    return h("div", { class: "box" + (face ? "" : " unread") + (fixed ? " fixed" : ""), dataset: { uid },
      style: { left: `${(100 * x1) / W}%`, top: `${(100 * y1) / H}%`, width: `${(100 * (x2 - x1)) / W}%`, height: `${(100 * (y2 - y1)) / H}%` } },
    h("span", { class: "boxlabel" }, `${names[uid] || uid}: ${face || "not read"}${fixed ? " (fixed)" : ""}`));
  }));
  // a label that would run off the frame's right edge hangs to the left of its box instead
  const edge = overlay.getBoundingClientRect().right;
  for (const lab of overlay.querySelectorAll(".boxlabel")) {
    if (lab.getBoundingClientRect().right > edge) lab.parentElement.classList.add("right");
  }
}
function renderRoll() {
  const root = $("#view-roll");
  const st = app.state;
  const p = st?.pending;
  const reading = st?.reading;
  const side = h("div", { class: "rollside" }, cameraFrame(st), lastRollCard(st));
  let main;
  if (p && p.kind === "roll") {
    const faces = currentFaces(p, reading);
    // issue 20: the dice a source read but could not tell (unread, cocked, not seen) come first; the order
    // follows the source's reading only, so a tap never moves a die under the player's finger
    const order = p.dice.map((d, i) => [d, i]);
    if (reading) order.sort((a, b) => !!sourceFace(reading, a[0].uid) - !!sourceFace(reading, b[0].uid) || a[1] - b[1]);
    const dice = h("div", { class: "dice" }, order.map(([d, i]) => {
      const read = reading ? sourceFace(reading, d.uid) : null;
      const chosen = faces[d.uid];
      const fixed = reading?.corrected?.includes?.(d.uid);
      // a die the camera could not read: the faces nearest what it saw come first in the server's
      // reading (DieReading.likely); marked, never set: the die waits for a tap
      const likely = read ? [] : reading?.readings?.[d.uid]?.likely || [];
      return h("div", { class: "die" + (fixed ? " fixed" : "") + (chosen ? " set" : ""), dataset: { uid: d.uid, index: i } },
        h("div", { class: "dhead" }, h("span", { class: "uname" }, dieLabel(d)), h("span", { class: "muted small" }, d.uid)),
        h("div", { class: "faces" }, uniqueFaces(d.faces).map((f) => h("button", {
          class: "facebtn" + (f === chosen ? " on" : "") + (f === read ? " read" : "") + (likely.includes(f) && !chosen ? " likely" + (likely[0] === f ? " nearest" : "") : ""),
          dataset: { face: f }, disabled: !canChange(),
          title: likely.includes(f) && !chosen ? `not read: ${likely[0] === f ? "the nearest" : "a near"} face the camera knows; tap to set it` : undefined,
          onclick: () => tapFace(d.uid, f),
        }, f))),
        likely.length > 0 && !chosen ? h("div", { class: "muted small likelynote" }, `not read · nearest known: ${likely.join(", ")}`) : null);
    }));
    const left = p.dice.filter((d) => !faces[d.uid]).length;
    main = h("div", { class: "card rollmain" },
      h("div", { class: "rollhead" }, h("h2", {}, h("span", { class: "dot", style: { background: playerColor(p.player) } }), " ", p.prompt),
        p.rule ? h("button", { class: "cite", onclick: () => showRule(p.rule, p.prompt) }, p.rule) : null, undoButton()),
      reading ? h("div", { class: "muted small" }, `Read by ${reading.source}${reading.corrected?.length ? ` · ${reading.corrected.length} corrected` : ""}: same faces as read; tap a die's face to fix it.`)
        : h("div", { class: "muted small" }, cameraNote(st) + "Tap each die's face, or set the untapped dice to one icon, then tap the exceptions."),
      togetherNote(p, reading),
      // the camera's turn check found this frame turned: its faces were not kept, and it will teach nothing
      reading?.turned ? h("div", { class: "banner", id: "roll-turned", role: "alert" },
        "The camera's picture seems turned: its faces were not kept (tap them), and this roll will not teach the camera. The host can turn the picture on the Pairing page.") : null,
      oddsLine(), fastEntry(p, faces), dice,
      h("div", { class: "rollfoot", id: "roll-foot" },
        h("div", { class: "running", id: "running-total", "aria-live": "polite" }, runningTotal(p, faces)),
        h("span", { class: "spacer" }),
        Object.keys(app.picked).length ? h("button", { class: "btn ghost", id: "clear-taps", disabled: !canChange(), onclick: () => { app.picked = {}; app.preview = null; render(); } }, "Clear") : null,
        h("button", { class: "btn primary", id: "confirm-roll", disabled: !!left || !canChange() || app.confirming, title: left ? `${left} dice have no face yet` : "submit this roll to the game",
          onclick: () => confirmRoll(p) }, "Confirm")));
    schedulePreview(p, faces);
  } else {
    main = h("div", { class: "card rollmain" }, h("h2", {}, "No roll pending"), h("div", { class: "muted" }, p ? `Waiting for: ${p.prompt}` : "Nothing to roll now."));
  }
  fill(root, h("div", { class: "rollgrid" }, main, side));
}
// Look-alike dice the camera read together (web.play.read_together): it is sure of their faces, not of
// which die shows which; the game found the results the same either way, so they are set.  Said, never hidden.
function togetherNote(p, reading) {
  const groups = reading?.together || [];
  if (!groups.length) return null;
  const name = (uid) => { const d = p.dice.find((x) => x.uid === uid); return d ? dieLabel(d) : uid; };
  return h("div", { class: "muted small", id: "roll-together" }, groups.map((g) => h("div", { class: "together" },
    `Read together: ${g.dice.map(name).join(", ")}. These dice look alike; which shows which face was not told, and the results are the same either way.`)));
}
function cameraNote(st) {
  const cam = (st?.sources || []).find((s) => s.kind === "camera");
  return !cam || cam.state === "off" ? "No camera. " : "";
}
// "Set every untapped die to <icon>": each die's face of that icon kind comes from the server's
// data (pending.dice[].icons, one per face); a die with no such face, or two different ones, stays
// for a tap.  Kinds are offered most common first.
function fastEntry(p, faces) {
  const counts = new Map();
  for (const d of p.dice) for (const k of new Set(d.icons || [])) counts.set(k, (counts.get(k) || 0) + 1);
  const kinds = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  if (!kinds.length || p.dice.length < 2) return null;
  const untapped = p.dice.filter((d) => !faces[d.uid]).length;
  return h("div", { class: "fastentry", id: "fast-entry" },
    h("span", { class: "muted small" }, untapped ? `Set ${untapped === p.dice.length ? "all" : untapped} untapped to:` : "All dice set; tap a face to change it"),
    untapped ? h("div", { class: "kinds" }, kinds.map((k) => h("button", { class: "facebtn setall", dataset: { icon: k }, disabled: !canChange(),
      onclick: () => setUntapped(p, k) }, k))) : null);
}
function faceOfKind(d, kind) {
  const options = new Set((d.icons || []).map((k, i) => (k === kind ? d.faces[i] : null)).filter(Boolean));
  return options.size === 1 ? [...options][0] : null;
}
function setUntapped(p, kind) {
  const faces = currentFaces(p, app.state?.reading);
  for (const d of p.dice) {
    if (faces[d.uid]) continue;
    const f = faceOfKind(d, kind);
    if (f) app.picked[d.uid] = f;
  }
  render();
}
// The total of the faces set so far, from the engine (the dice not set yet not counting).
function runningTotal(p, faces) {
  const n = p.dice.filter((d) => faces[d.uid]).length;
  const N = p.dice.length;
  const count = h("span", { class: "muted", id: "running-count", title: "dice with a face" }, `${n}/${N} set`);
  const pv = app.preview;
  if (!n) return count;
  if (!canChange()) return n < N ? count : h("span", { class: "muted" }, "all dice set");
  if (!pv || pv.key !== previewKey(faces)) return h("span", {}, h("span", { class: "muted" }, "adding up… "), count);
  if (pv.error) return h("span", { class: "muted" }, pv.error);
  if (pv.again) return h("span", {}, `rolls again: ${pv.again.map((x) => x.split("/").pop()).join(", ")}`);
  if (pv.total == null && pv.totals && n < N) { // Battle Dice: the points of each phase so far, no one total
    const parts = Object.entries(pv.totals).filter(([, v]) => v).map(([k, v]) => `${v} ${k}`);
    return h("span", {}, "So far ", h("b", { class: "runtotal", id: "running-value" }, parts.join(" · ") || "nothing"), " ", count);
  }
  if (pv.total == null) return n < N ? count : h("span", { class: "muted" }, "all dice set");
  return h("span", {}, n < N ? "So far " : "Total ", h("b", { class: "runtotal", id: "running-value" }, pv.total),
    ` ${pv.roll || ""} `, n < N ? count : null);
}
function previewKey(faces) { return `${app.state?.seq}|${JSON.stringify(faces)}`; }
// The total of the faces on screen, from the game engine (POST /api/rolls/preview changes nothing).
function schedulePreview(p, faces) {
  const key = previewKey(faces);
  if (!canChange() || !p.dice.some((d) => faces[d.uid]) || app.previewWanted === key || app.preview?.key === key) return;
  app.previewWanted = key;
  clearTimeout(app.previewTimer);
  app.previewTimer = setTimeout(async () => {
    let pv;
    try { pv = await previewCall(faces); } catch (e) { pv = { error: "no total: " + e.message }; }
    if (app.previewWanted !== key) return;
    app.preview = { ...pv, key };
    const el = $("#running-total");
    if (el && app.view === "roll" && p === app.state?.pending) fill(el, runningTotal(p, faces));
  }, 120);
}
async function previewCall(faces) {
  const set = Object.fromEntries(Object.entries(faces).filter(([, f]) => f));
  const resp = await fetch("/api/rolls/preview", { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json", "X-Companion-Token": token() }, body: JSON.stringify({ faces: set }) });
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) throw new Error(data.message || resp.statusText);
  return data;
}
function dieLabel(d) {
  const u = allUnits()[d.uid];
  if (u && u.name && !String(d.die).includes("/")) return `${u.name} (${d.die})`;
  return String(d.die).split("/").pop();
}
function uniqueFaces(list) { return [...new Set(list)]; }
// The face a die's source read (camera, smart die), whatever a player tapped since: its own reading when the
// server kept it, else the staged face of a die the source did not leave unread or cocked
function sourceFace(reading, uid) {
  const own = reading?.readings?.[uid];
  if (own) return own.state === "read" ? own.face : null;
  if ((reading?.unread || []).includes(uid) || (reading?.cocked || []).includes(uid)) return null;
  return (reading?.corrected || []).includes(uid) ? null : reading?.faces?.[uid] || null;
}
function currentFaces(p, reading) {
  const out = {};
  for (const d of p.dice) out[d.uid] = app.picked[d.uid] || reading?.faces?.[d.uid] || null;
  return out;
}
// A tap on a roll a source read (camera, smart dice) is a correction of that reading, read die or not: the
// dice the source read keep their origin, the tapped one is the player's, and a camera roll keeps its
// frame (saved with the faces for enrolment; on confirm the table learns the crops).  Without a reading
// the tap is kept here until Confirm.
// A tap's correction is sent in order after the taps still in flight (app.taps); Confirm waits for them and
// takes its faces from the reading as the server then has it, so a tap made before Confirm is in the roll.
// Each tap and Confirm name the reading ("rev") the player saw when tapping: the server refuses them when
// another tablet or the camera changed it since.  This tablet's own taps move that rev on (app.ownRevs).
function seenRev(rev) {
  while (rev != null && app.ownRevs[rev] != null) rev = app.ownRevs[rev];
  return rev;
}
function tapFace(uid, face) {
  const reading = app.state?.reading;
  if (!(reading && reading.faces)) {
    app.picked[uid] = face;
    render();
    return;
  }
  const seen = reading.rev;
  const send = async () => {
    const rev = seenRev(seen);
    try {
      const r = await api("POST", "/api/corrections", { uid, face, rev });
      if (rev != null) app.ownRevs[rev] = r.reading.rev;
      app.state.reading = r.reading;
      delete app.picked[uid];
      render();
      return true;
    } catch (e) { if (e.status === 409) refresh(); return false; }
  };
  const before = app.taps || Promise.resolve(true);
  const mine = before.then(async (ok) => (await send()) && ok);
  app.taps = mine;
  mine.then(() => { if (app.taps === mine) app.taps = null; });
}
async function confirmRoll(p) {
  if (app.confirming) return;  // one confirm at a time: a double click sends one
  app.confirming = true;
  render();
  try { await sendConfirm(p, app.state?.reading?.rev); } finally { app.confirming = false; render(); }
}
async function sendConfirm(p, seen) {
  // taps still in flight first; a refused one stops the confirm (its toast says why, the die shows the reading)
  while (app.taps) if (!(await app.taps)) return;
  p = app.state?.pending || p;
  const reading = app.state?.reading;
  const faces = currentFaces(p, reading);
  try {
    if (reading && reading.faces) {
      // faces set here but not sent yet ("set untapped to") go with the confirm, as corrections of the reading
      const taps = Object.fromEntries(p.dice.filter((d) => faces[d.uid] && faces[d.uid] !== reading.faces[d.uid]).map((d) => [d.uid, faces[d.uid]]));
      const r = await api("POST", "/api/rolls/confirm", { faces: taps, rev: seenRev(seen), expect_seq: app.state.seq });
      if (r.record_error) toast(r.record_error);
    } else await api("POST", "/api/rolls", { faces, expect_seq: app.state.seq });
    app.picked = {};
    app.ownRevs = {};  // the roll is in: its readings' revs are spent
  } catch (e) { if (e.status === 409) refresh(); }
}

// The engine's total of a resolved roll (the 1996 game gives it per result type).
function rollTotal(r) { return r.total ?? (r.totals || {})[r.roll] ?? ""; }
function rollTitle(r) {
  if (!r) return "";
  const a = r.army_at;  // the server's parsed army id (null: the roll names no army)
  // the order of play is rolled before the Horde is placed (1996 games name no place at all)
  if (!a || !a.placed || a.location === "None") return `${a ? playerName(a.owner) + "'s " : ""}Horde, ${r.roll || ""} for the order of play`;
  return `${playerName(a.owner)}'s ${r.roll || ""} at ${terrainName(a.location)}`;
}
function lastRollCard(st) {
  const r = st?.last_roll;
  if (!r) return h("div", { class: "card", style: { marginTop: "14px" } }, h("h3", {}, "Last roll"), h("div", { class: "muted small" }, "No roll yet."));
  return h("div", { class: "card", id: "last-roll", style: { marginTop: "14px" } },
    h("div", { class: "row" }, h("h3", {}, `Last roll · ${rollTitle(r)}`),
      r.who ? h("span", { class: "muted small", id: "last-roll-by", style: { marginLeft: "8px" } }, `by ${r.who}`) : null,
      h("span", { class: "spacer" }),
      h("span", { class: "total num", title: "why this number?", onclick: () => openDispute(r) }, rollTotal(r))),
    h("div", { class: "muted small" }, (r.faces || []).map((f) => `${f.die.split("/").pop()}: ${(f.faces || [f.face]).join(" → ")}`).join(" · ")),
    h("ol", { class: "steps" }, (r.steps || []).map(stepItem)));
}
function stepItem(s) {
  const change = s.before != null && s.after != null ? h("b", { class: "change" }, `${s.before} → ${s.after}`) : null;
  return h("li", { dataset: { step: s.step ?? "" } },
    h("span", { class: "stepno", title: "step of die roll resolution" }, s.step || "·"),
    h("span", { class: "stext" }, s.name ? h("span", { class: "sname" }, s.name) : null, h("span", { class: "sdesc" }, s.text)),
    change || h("span"),
    s.cite ? h("button", { class: "cite", onclick: () => showRule(s.cite, s.name || s.text) }, s.cite) : null);
}

// -- Odds ----------------------------------------------------------------------------------------
function oddsLine() {
  const o = app.odds;
  if (!o || !o.distribution) return null;
  const need = o.need;
  return h("div", { class: "muted small", style: { margin: "6px 0" } },
    need != null ? `Odds: ${(100 * o.p_at_least).toFixed(0)}% to roll ${need} or more ${o.result.toLowerCase()}${o.need_note ? ` (${o.need_note})` : ""} · expected ${o.mean.toFixed(1)}`
      : `Odds: expected ${o.mean.toFixed(1)} ${o.result.toLowerCase()}, most likely ${o.mode}`);
}
async function loadOdds(params) {
  const q = new URLSearchParams(params || app.oddsParams || {}).toString();
  try { app.odds = await api("GET", "/api/odds" + (q ? "?" + q : "")); } catch (e) { app.odds = { error: e.message }; }
}
function renderOdds() {
  const root = $("#view-odds");
  const o = app.odds;
  const st = app.state;
  if (!st?.state) { fill(root, h("div", { class: "empty" }, app.offline ? "Waiting for the server…" : "No game yet.")); return; }
  const armies = st.state.armies || [];
  const armySel = h("select", { "aria-label": "army" }, armies.map((a) => h("option", { value: a.id, selected: o?.army === a.id }, `${playerName(a.owner)} at ${terrainName(a.location)}`)));
  const forSel = h("select", { "aria-label": "roll" }, (st.rules?.odds_rolls || []).map((r) =>  // the rolls the engine's odds answer for
 h("option", { value: r, selected: o?.roll === r }, r)));
  const needIn = h("input", { type: "number", min: 0, max: 200, value: o?.need ?? "", placeholder: "need", "aria-label": "results needed" });
  const form = h("div", { class: "row" },
    h("label", { class: "field" }, "Army", armySel), h("label", { class: "field" }, "Roll for", forSel),
    h("label", { class: "field" }, "Results needed", needIn),
    h("button", { class: "btn primary", onclick: async () => {
      app.oddsParams = { army: armySel.value, for: forSel.value, need: needIn.value };
      await loadOdds(app.oddsParams); render();
    } }, "Compute"));
  if (!o) { loadOdds().then(() => render(true)); fill(root, h("div", { class: "card" }, form)); return; }
  if (o.message && !o.distribution && armies.length && !app.oddsParams) {
    // nothing about to be rolled: the army the decision is about (engine's odds_army), else the first
    const about = st.pending?.odds_army && armies.some((a) => a.id === st.pending.odds_army) ? st.pending.odds_army : armies[0].id;
    app.oddsParams = { army: about, for: st.pending?.odds_roll || "melee", auto: true };
    loadOdds(app.oddsParams).then(() => render(true));
  }
  if (o.error || !o.distribution) { fill(root, h("div", { class: "card" }, form, h("p", { class: "muted" }, o.error || o.message || "No roll to compute."))); return; }
  const maxP = Math.max(...o.distribution.map((x) => x[1]));
  const bars = h("div", { class: "bars", id: "odds-bars" });
  const labels = h("div", { class: "barlabels" });
  for (const [v, p] of o.distribution) {
    const bar = h("div", { class: "bar" + (o.need != null && v >= o.need ? " hit" : ""), title: `${v}: ${(100 * p).toFixed(2)}%` });
    bar.style.height = `${Math.max(1, (100 * p) / maxP)}%`;
    if (p >= 0.03) bar.append(h("span", { class: "barpct" }, `${Math.round(100 * p)}%`));
    bars.append(bar); labels.append(h("span", {}, v));
  }
  // each total's chance, and the chance of at least that total (sums of the exact distribution)
  let tail = 1;
  const rows = [];
  for (const [v, p] of o.distribution) {
    if (p >= 0.005) rows.push(h("tr", { class: o.need != null && v === o.need ? "need" : "" }, h("td", {}, v), h("td", {}, pct(p)), h("td", {}, pct(tail))));
    tail -= p;
  }
  const table = h("table", { class: "oddstable", id: "odds-table" },
    h("thead", {}, h("tr", {}, h("th", {}, o.result || "total"), h("th", {}, "exactly"), h("th", {}, "at least"))), h("tbody", {}, rows));
  // the chances first (percentages at a glance), the bars beside them or below
  fill(root, h("div", { class: "card" }, form),
    h("div", { class: "grid cols-2", style: { marginTop: "14px" } },
      h("div", { class: "card", id: "odds-chances" }, h("h3", {}, `${o.title || "Chances"}`),
        o.need != null ? h("div", {}, h("div", { class: "bigodds" }, `${(100 * o.p_at_least).toFixed(1)}%`),
          h("div", {}, `to get ${o.need} or more ${o.result}`)) : null,
        h("p", {}, `Expected: ${o.mean.toFixed(2)} · most likely: ${o.mode}`), table,
        h("ul", { class: "small muted" }, (o.notes || []).map((n) => h("li", {}, n)))),
      h("div", { class: "card" }, h("h3", {}, "Distribution"), bars, labels,
        h("div", { class: "muted small", style: { marginTop: "8px" } }, `${o.dice} dice · exact, by convolution of each die's faces through die roll resolution `,
          h("button", { class: "cite", onclick: () => showRule("V4.01c L1002-1030", "die roll resolution, step by step") }, "V4.01c L1002-1030")))));
}

function pct(p) { return p >= 0.995 ? "100%" : p < 0.005 ? "<1%" : `${(100 * p).toFixed(p < 0.1 ? 1 : 0)}%`; }

// -- Dispute -------------------------------------------------------------------------------------
function openDispute(roll) { app.dispute = { roll }; go("dispute"); }
function showRule(rule, about) {
  app.dispute = { rule, about, q: ruleQuery(about), roll: app.dispute?.roll };
  go("dispute");
  api("GET", "/api/rules/cite?ref=" + encodeURIComponent(rule)).then((r) => { app.dispute.cited = r.hits; render(true); }).catch(() => null);
  runSearch(app.dispute.q);
}
function ruleQuery(text) { return (text || "").replace(/[^A-Za-z ]/g, " ").split(/\s+/).filter((w) => w.length > 3).slice(0, 4).join(" "); }
async function runSearch(q) {
  if (!q) return;
  app.dispute = { ...(app.dispute || {}), q, loading: true };
  try { const r = await api("GET", "/api/rules/search?q=" + encodeURIComponent(q)); app.dispute.hits = r.hits; app.dispute.message = r.message; }
  catch (e) { app.dispute.hits = []; }
  app.dispute.loading = false; render(true);
}
function renderDispute() {
  const root = $("#view-dispute");
  const d = app.dispute || {};
  const input = h("input", { type: "search", placeholder: "Search the rules and FAQs (e.g. eighth face ID)", value: d.q || "", "aria-label": "search rules" });
  const form = h("form", { class: "search", onsubmit: (ev) => { ev.preventDefault(); runSearch(input.value); } }, input, h("button", { class: "btn primary" }, "Search"));
  const why = [];
  const roll = d.roll || app.state?.last_roll;
  if (roll) {
    why.push(h("div", { class: "card" }, h("h3", {}, "Why this number?"),
      h("div", { class: "row" }, h("span", { class: "total" }, rollTotal(roll)), h("span", {}, rollTitle(roll))),
      h("div", { class: "muted small" }, (roll.faces || []).map((f) => `${f.die.split("/").pop()}: ${(f.faces || [f.face]).join(" → ")}`).join(" · ")),
      (roll.steps || []).length ? h("ol", { class: "steps" }, roll.steps.map(stepItem))
        : h("p", { class: "muted" }, "No face counted for this roll: none showed its icon or an ID.")));
  }
  if (d.rule) {
    why.push(h("div", { class: "card", id: "cited" }, h("h3", {}, `Rule cited: ${d.rule}`), h("p", { class: "muted" }, d.about || ""),
      d.cited ? (d.cited.length ? d.cited.map((x) => h("div", { class: "hit" }, h("div", { class: "c" }, x.citation), h("div", {}, x.text)))
        : h("div", { class: "muted small" }, "That passage is not in the indexed documents.")) : h("div", { class: "muted small" }, "Looking it up…")));
  }
  const hits = d.loading ? h("div", { class: "muted" }, "Searching…")
    : d.hits ? (d.hits.length ? d.hits.map((x) => h("div", { class: "hit" }, h("div", { class: "c" }, x.citation), markSnippet(x.snippet)))
      : h("div", { class: "muted" }, d.message || "No passage matches."))
      : h("div", { class: "muted small" }, "Search the rule documents indexed with `companion rules index FILE...`.");
  fill(root, h("div", { class: "grid cols-2" }, h("div", { class: "grid" }, why.length ? why : h("div", { class: "empty" }, "Tap any total or citation to see the rules behind it.")),
    h("div", { class: "card" }, h("h3", {}, "Rule text"),
      app.state?.rules ? h("div", { class: "muted small", id: "search-first" }, `${app.state.rules.title}: its passages come first`) : null,
      form, h("div", { id: "hits" }, hits))));
}
function markSnippet(text) {
  const out = h("div", {});
  String(text).split(/(\[[^\]]*\])/).forEach((part) => {
    out.append(part.startsWith("[") && part.endsWith("]") ? h("mark", {}, part.slice(1, -1)) : document.createTextNode(part));
  });
  return out;
}

// -- New game ------------------------------------------------------------------------------------
function renderNew() {
  const root = $("#view-new");
  const b = app.builder || (app.builder = { players: ["Player 1", "Player 2"], edition: "v4", force_size: 24, active: 0, army: "home",
    forces: [{ home: [], horde: [], campaign: [], dragons: [] }, { home: [], horde: [], campaign: [], dragons: [] }], results: [], q: "" });
  const names = h("div", { class: "row" }, b.players.map((n, i) => h("label", { class: "field" }, `Player ${i + 1}`,
    h("input", { value: n, maxlength: 30, oninput: (ev) => {
      b.players[i] = ev.target.value;
      const tab = document.querySelector(`#player-tabs button[data-i="${i}"]`);
      if (tab) tab.textContent = ev.target.value;
    } }))),
  h("label", { class: "field" }, "Game", h("select", { id: "game-kind", onchange: (ev) => { b.game = ev.target.value; render(); } },
    h("option", { value: "dragon_dice", selected: b.game !== "battle_dice" }, "Dragon Dice"),
    h("option", { value: "battle_dice", selected: b.game === "battle_dice" }, "Battle Dice (2 players, d4-d20)"))),
  // the editions are the engine's (GET /api/forces/rules: the games that name an "edition")
  h("label", { class: "field" }, "Edition", h("select", { id: "edition", onchange: (ev) => { b.edition = ev.target.value; b.searched = false; b.results = []; render(); } },
    (app.gameKinds || []).filter((k) => k.edition).map((k) => h("option", { value: k.edition, selected: b.edition === k.edition }, k.title)))),
  h("label", { class: "field" }, "Force size (points)", h("input", { type: "number", min: 3, max: 120, value: b.force_size,
    oninput: (ev) => { b.force_size = Number(ev.target.value); renderChecks(); } })));
  // Optional components a game's set-up may name (V4.01c's Advanced Rules, L2506-2508): the engine's
  // list for the game chosen (GET /api/forces/rules); a game with none shows no choice.
  const LABELS = { minor_terrains: "Minor terrains", items: "Items", dragonkin: "Dragonkin", eldarim: "Eldarim", dracolem: "Dracolem" };
  if (!app.gameKinds) {
    app.gameKinds = [];
    api("GET", "/api/forces/rules").then((r) => { app.gameKinds = r.games; render(true); }).catch(() => null);
  }
  const chosen = chosenKind(b);
  b.advanced = b.advanced || [];
  const advanced = !(chosen && chosen.components.length) ? null :
    h("fieldset", { class: "row advanced", id: "advanced" }, h("legend", { class: "muted small" }, `Optional components (${chosen.title})`),
      chosen.components.map((key) => h("label", { class: "opt" },
        h("input", { type: "checkbox", value: key, checked: b.advanced.includes(key), onchange: (ev) => {
          b.advanced = ev.target.checked ? [...new Set([...b.advanced, key])] : b.advanced.filter((k) => k !== key);
        } }), " " + (LABELS[key] || key))));
  const quick = h("div", { class: "card" }, h("h2", {}, "New game"), names, advanced,
    h("div", { class: "row", style: { marginTop: "12px" } },
      h("button", { class: "btn primary", id: "quick-start", disabled: !canChange(), onclick: () => startGame(true) }, app.state?.role === "tablet" ? "Ask the host: quick start" : "Quick start (ready-made forces)"),
      h("button", { class: "btn", id: "start-built", disabled: !canChange(), onclick: () => startGame(false) }, app.state?.role === "tablet" ? "Ask the host: these forces" : "Start with the forces below"),
      canChange() ? null : h("span", { class: "muted small" }, "Pair this tablet (or open the host URL) to create a game.")));
  const tabs = h("div", { class: "tabs", id: "player-tabs" }, b.players.map((n, i) => h("button", { class: "btn small" + (i === b.active ? " on" : ""), dataset: { i }, onclick: () => { b.active = i; render(); } }, n)));
  const search = h("input", { type: "search", class: "searchbox", placeholder: "Search dice: species, unit, icon…", value: b.q, "aria-label": "search catalogue" });
  const list = h("div", { class: "picklist", id: "picklist" });
  const doSearch = async () => {
    b.q = search.value;
    const asked = (b.searchSeq = (b.searchSeq || 0) + 1);
    const r = await api("GET", `/api/catalogue?q=${encodeURIComponent(b.q)}&limit=80&edition=${b.edition}`).catch(() => ({ dice: [] }));
    if (asked !== b.searchSeq) return;  // a later search (or edition) answers instead of this one
    b.results = r.dice; drawResults(document.getElementById("picklist"));
  };
  search.addEventListener("input", () => { clearTimeout(b.t); b.t = setTimeout(doSearch, 200); });
  function drawResults(target) {
    fill(target || list, b.results.map((d) => h("div", { class: "pick", onclick: () => { b.forces[b.active][d.kind === "dragon" ? "dragons" : b.army].push(d); render(); } },
      h("span", {}, d.name, h("span", { class: "muted small" }, ` · ${d.kind}${d.size ? " · " + d.size : ""}`)),
      h("b", {}, d.points == null ? "not in this game" : `${d.points} pt`))));
  }
  drawResults(list);
  if (!b.results.length && !b.searched) { b.searched = true; doSearch(); }
  const force = b.forces[b.active];
  b.lands = b.lands || b.players.map((_, i) => ({ home: "", frontier: "" }));
  if (!b.terrainList) {
    b.terrainList = [];
    api("GET", "/api/catalogue?kind=terrain&limit=100").then((r) => { b.terrainList = r.dice.map((d) => d.name.split("/").pop()); render(true); }).catch(() => null);
  }
  const land = b.lands[b.active];
  const terrainSelect = (key, label) => h("label", { class: "field" }, label, h("select", { "aria-label": label,
    onchange: (ev) => { land[key] = ev.target.value; } },
  h("option", { value: "" }, "(suggested)"), b.terrainList.map((t) => h("option", { value: t, selected: land[key] === t }, t))));
  const lands = h("div", { class: "row", style: { marginBottom: "10px" } }, terrainSelect("home", "Home terrain"), terrainSelect("frontier", "Frontier proposal"));
  force.dragons = force.dragons || [];
  const dragons = h("div", { class: "row", id: "dragons", style: { marginTop: "8px" } }, h("b", { class: "small" }, "Dragons"),
    force.dragons.length ? force.dragons.map((d, i) => h("span", { class: "unit", title: "tap to remove", onclick: () => { force.dragons.splice(i, 1); render(); } }, d.name.split("/").pop()))
      : h("span", { class: "muted small" }, "none yet (search 'dragon'; the quick start brings them)"));
  const cols = h("div", { class: "grid cols-3" }, ["home", "horde", "campaign"].map((name) => {
    return h("div", { class: "card armycol" + (b.army === name ? " target" : ""), onclick: () => { b.army = name; render(); } },
      h("div", { class: "row" }, h("b", {}, name[0].toUpperCase() + name.slice(1)), h("span", { class: "spacer" }), h("span", { class: "muted small army-points", id: `points-${name}` }, "…")),
      h("div", { class: "units" }, force[name].map((d, i) => h("span", { class: "unit", title: "tap to remove", onclick: (ev) => { ev.stopPropagation(); force[name].splice(i, 1); render(); } }, d.name.split("/").pop(), ` ${d.points}`))));
  }));
  const checks = h("div", { id: "checks" });
  // Every number and limit here is the engine's (POST /api/forces/check): the page adds nothing up.
  async function renderChecks() {
    clearTimeout(b.checkTimer);
    b.checkTimer = setTimeout(async () => {
      const body = { edition: b.edition, force_size: b.force_size, forces: b.forces.map((f, i) => ({ player: b.players[i],
        armies: Object.fromEntries(["home", "horde", "campaign"].map((a) => [a, f[a].map((d) => d.name)])), dragons: (f.dragons || []).map((d) => d.name) })) };
      const asked = (b.checkSeq = (b.checkSeq || 0) + 1);
      let r;
      try { r = await api("POST", "/api/forces/check", body); } catch (e) {
        if (asked === b.checkSeq) fill(checks, h("div", { class: "check bad" }, e.message));
        return;
      }
      if (asked !== b.checkSeq) return;  // the forces changed since: a later check answers
      const mine = r.players[b.active];
      for (const [name, pts] of Object.entries(mine ? mine.armies : {})) {
        const el = document.getElementById(`points-${name}`);
        if (el) el.textContent = `${pts} ${mine.measure}`;
      }
      fill(checks, r.players.map((p) => p.checks.map((c) => h("div", { class: "check " + (c.ok ? "ok" : "bad") },
        `${p.player}: ${c.text} (${c.rule})`))).flat());
    }, 150);
  }
  renderChecks();
  fill(root, window.gamesSection ? gamesSection() : null, quick, h("div", { class: "grid cols-2", style: { marginTop: "14px" } },
    h("div", { class: "card" }, h("h3", {}, "Force building"), tabs, search, list),
    h("div", { class: "grid" }, h("div", {}, lands, h("div", { class: "muted small", style: { marginBottom: "6px" } }, `Adding to ${b.players[b.active]}'s ${b.army} army (tap an army to choose)`), cols, dragons),
      h("div", { class: "card" }, h("h3", {}, "Limits"), checks))));
}
// The engine's game (GET /api/forces/rules) the New game form has chosen.
function chosenKind(b) {
  return (app.gameKinds || []).find((k) => k.game === (b.game || "dragon_dice") && (!k.edition || k.edition === b.edition));
}
async function startGame(quickStart) {
  let quick = quickStart;
  const b = app.builder;
  const body = { players: b.players.map((x) => x.trim()), edition: b.edition };
  const kind = chosenKind(b) || { components: [], edition: b.edition, forces: true, game: b.game };
  const advanced = (b.advanced || []).filter((k) => kind.components.includes(k));
  if (advanced.length) body.advanced = advanced;
  if (kind.game && kind.game !== "dragon_dice") body.game = kind.game;
  if (!kind.edition) delete body.edition;  // a game without editions (Battle Dice)
  if (!kind.forces) quick = true;  // forces not built die by die: the game's quick start
  if (!quick) {
    body.force_size = b.force_size;
    body.forces = b.forces.map((f, i) => {
      const out = { player: b.players[i], armies: Object.fromEntries(["home", "horde", "campaign"].map((a) => [a, f[a].map((d) => d.name)])) };
      if ((f.dragons || []).length) out.dragons = f.dragons.map((d) => d.name);
      const land = (b.lands || [])[i] || {};
      if (land.home) out.home_terrain = land.home;
      if (land.frontier) out.frontier_terrain = land.frontier;
      return out;
    });
  } else body.quick = true;
  try {
    if (app.state?.role !== "host" && window.askForGame) { await askForGame(body); return; }  // tablets ask (games.js)
    const r = await api("POST", "/api/games", body);
    app.odds = null; app.picked = {};
    await refresh(); go("table");
  } catch (e) { /* toast */ }
}

// -- Host / pairing ----------------------------------------------------------------------------
async function renderHost() {
  const root = $("#view-host");
  const st = app.state;
  if (st?.role !== "host") {
    fill(root, h("div", { class: "card" }, h("h2", {}, "Pairing"),
      st?.token_advice ? h("p", { class: "check bad", id: "token-advice" }, st.token_advice) : null,
      h("p", {}, st?.role === "tablet" ? "This tablet is paired with the game: it can make decisions and fix dice." :
        "This page is read-only. To play from it, scan the QR code shown on the host's Pairing page, or type the code:"),
      st?.role === "tablet" ? h("button", { class: "btn danger", onclick: () => { setToken(""); refresh(); } }, "Unpair this tablet") : pairForm()));
    return;
  }
  if (!st.game_id) { fill(root, h("div", { class: "empty" }, "Start a game first; its pairing code will show here.")); return; }
  if (!app.pairing || app.pairing.game_id !== st.game_id || app.pairing.rev !== st.pairing_rev) {
    if (!root.querySelector("#pair-qr")) fill(root, h("div", { class: "muted" }, "Loading…"));
    try { app.pairing = await api("GET", "/api/pairing"); } catch (e) { return; }
  }
  const pr = app.pairing;
  // SVG made server-side by segno from our own URL; none where no tablet could reach that URL
  const qr = pr.svg ? h("div", { class: "qr", id: "pair-qr" }) : h("p", { class: "check bad", id: "pair-unreachable" }, pr.message);
  if (pr.svg) qr.innerHTML = pr.svg;
  fill(root, h("div", { class: "grid cols-2" },
    h("div", { class: "card" }, h("h2", {}, "Pair a tablet"), h("div", { class: "row" }, qr,
      h("div", {}, h("div", { class: "muted small" }, "Pairing code"), h("div", { class: "code", id: "pair-code" }, pr.code),
        h("p", { class: "small muted" }, pr.svg ? "Scan with the tablet's camera, or open this page there and type the code."
          : "No tablet can reach this server yet; the code works in a browser that can."),
        h("button", { class: "btn small danger", onclick: async () => { await api("POST", "/api/pairing/rotate", {}); app.pairing = null; render(); } }, "New code (unpairs all)"))),
      trustCard(pr.trust)),
    h("div", { class: "card" }, h("h3", {}, "Paired tablets"),
      pr.tablets.length ? h("ul", {}, pr.tablets.map((t) => h("li", {}, `${t.name} · ${new Date(t.paired_at * 1000).toLocaleTimeString()}`))) : h("div", { class: "muted small" }, "None yet."),
      h("h3", { style: { marginTop: "14px" } }, "Dice sources"),
      h("ul", {}, (st.sources || []).map((s) => h("li", {}, `${s.kind}: ${s.state}${s.message ? " — " + s.message : ""}`,
        s.kind === "camera" && s.turn_advice && s.turn_suggested != null
          ? h("button", { class: "btn small", id: "camera-turn", style: { marginLeft: "8px" },
              onclick: () => api("POST", "/api/camera/turn", { turn: s.turn_suggested }).then(() => toast(`camera picture turned to ${s.turn_suggested}°`, "info")).catch(() => null) },
              `Turn the picture to ${s.turn_suggested}°`)
          : null))),
      smartDice(st),
      h("a", { class: "btn small", href: "/api/export", download: "" }, "Export game"))));
}
// serve --https: a new device first trusts the table's certificate (once), then scans the pairing code
function trustCard(trust) {
  if (!trust) return null;
  const qr = h("div", { class: "qr", id: "trust-qr" });
  qr.innerHTML = trust.svg;  // SVG made server-side by segno from our own URL
  return h("div", { id: "trust", style: { marginTop: "14px" } }, h("h3", {}, "New device? Trust the table's certificate first"),
    h("div", { class: "row" }, qr, h("div", {},
      h("p", { class: "small" }, "Once per tablet or phone: scan this (or open ", h("a", { href: trust.url, id: "trust-url" }, trust.url),
        ") and follow the steps there; then scan the pairing code."),
      h("p", { class: "small muted" }, "Certificate SHA-256: ", h("code", { id: "trust-fingerprint", style: { wordBreak: "break-all" } }, trust.fingerprint)))));
}
// "3 min ago" for a wall-clock time in seconds (the server's last_contact)
function ago(t) {
  if (!t) return "never";
  const s = Math.max(0, Date.now() / 1000 - t);
  return s < 90 ? `${Math.round(s)} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}
function smartDice(st) {
  const serial = (st.sources || []).find((s) => s.kind === "serial");
  if (!serial || !serial.dice || !serial.dice.length) return null;
  // a lost bridge: the dice below are what it said before it went, not live (the server marks them stale)
  const lost = serial.dice.some((d) => d.stale);
  return h("div", { class: "card" + (lost ? " stale" : ""), id: "smart-dice", style: { marginTop: "10px" } },
    h("h3", {}, "Smart dice"),
    lost ? h("p", { class: "check bad small", id: "smart-dice-lost" },
      `Bridge lost (last contact ${ago(serial.last_contact)}): the dice and batteries below are as they were then, `
      + "not live. Tap faces until it is back.") : null,
    serial.dice.map((d) => h("div", { class: "row", dataset: { die: d.die, stale: d.stale ? "1" : "0" } },
      h("b", {}, d.die), h("span", { class: "muted small" }, d.name || "not registered"),
      h("span", { class: "spacer" }),
      d.stale ? h("span", { class: "small muted" }, `last seen ${ago(d.last_contact)}`) : null,
      h("span", { class: "small" }, d.battery_percent == null ? "battery ?" : `battery ${d.battery_percent}%${d.charging ? " ⚡" : ""}`),
      h("button", { class: "btn small", onclick: () => api("POST", "/api/sources/blink", { die_id: d.die }).then(() => toast(`${d.die} is blinking`, "info")).catch(() => null) }, "Blink"))));
}
function pairForm() {
  const input = h("input", { placeholder: "CODE", maxlength: 12, "aria-label": "pairing code", class: "code" });
  return h("form", { class: "search", onsubmit: async (ev) => {
    ev.preventDefault();
    try { const r = await api("POST", "/api/pair", { code: input.value, name: deviceName() }); setToken(r.token); refresh(); } catch (e) { /* toast */ }
  } }, input, h("button", { class: "btn primary" }, "Pair"));
}

// -- at the table: screen kept awake, totals read aloud, installable and opening offline -----------
// Wake Lock API: the screen stays on while a game is being played (asked again when the page shows).
async function keepAwake() {
  const el = $("#wake");
  const playing = !!(app.state?.state && !app.state.state.over && app.state.state.phase !== "game_over");
  if (!("wakeLock" in navigator)) {
    // plain http on the local network is not a secure context: no wake lock (nor install, nor offline)
    document.body.dataset.wake = "unsupported";
    el.hidden = !playing; el.className = "pill off"; el.textContent = "may sleep";
    el.title = window.isSecureContext ? "this browser cannot keep the screen on"
      : "keeping the screen on (and installing the page) needs https or the server's own machine; this page is plain http (start the server with `companion serve --https`)";
    return;
  }
  if (!playing) {
    if (app.wakeLock) { app.wakeLock.release().catch(() => null); app.wakeLock = null; }
    document.body.dataset.wake = "off"; el.hidden = true; return;
  }
  if (app.wakeLock && !app.wakeLock.released) return;
  if (document.visibilityState !== "visible" || app.wakeAsking) return;
  app.wakeAsking = true;
  try {
    app.wakeLock = await navigator.wakeLock.request("screen");
    document.body.dataset.wake = "held";
    el.hidden = false; el.className = "pill ok"; el.textContent = "awake";
    app.wakeLock.addEventListener("release", () => { document.body.dataset.wake = "released"; el.hidden = true; });
  } catch (e) {
    document.body.dataset.wake = "refused";
    el.hidden = false; el.className = "pill off"; el.textContent = "may sleep"; el.title = `the screen may turn off: ${e.message}`;
  } finally { app.wakeAsking = false; }
}
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") keepAwake(); });

// Totals read aloud (speechSynthesis), when the table turns it on; the choice stays with the device.
const SPEAK_KEY = "companion.speak";
function speaking() { return localStorage.getItem(SPEAK_KEY) === "1"; }
function drawSpeak() {
  const b = $("#speak");
  if (!("speechSynthesis" in window)) { b.hidden = true; return; }
  b.setAttribute("aria-pressed", speaking() ? "true" : "false");
  b.textContent = speaking() ? "aloud: on" : "aloud: off";
  b.className = "pill speak" + (speaking() ? " ok" : "");
}
$("#speak").addEventListener("click", () => { localStorage.setItem(SPEAK_KEY, speaking() ? "0" : "1"); drawSpeak(); });
app.spoken = [];
function announceRoll(st) {
  const r = st?.last_roll;
  const key = r ? `${st.game_id}|${JSON.stringify(r.faces)}|${r.army}|${r.roll}` : null;
  const first = app.rollKey === undefined;
  if (key === app.rollKey) return;
  app.rollKey = key;
  if (first || !r || !speaking() || !("speechSynthesis" in window)) return;
  const text = `${rollTitle(r)}: ${rollTotal(r)}`;
  app.spoken.push(text);
  speechSynthesis.speak(new SpeechSynthesisUtterance(text));
}

// Installable (web app manifest) and opening offline (a service worker caches the page shell only;
// it never answers /api/ requests, so game state is never served stale).
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").then((reg) => { app.sw = reg.scope; }).catch((e) => { app.sw = "failed: " + e.message; });
}

// -- navigation -----------------------------------------------------------------------------------
function go(view) {
  app.view = view;
  if (location.pathname !== "/" + view) history.pushState({ view }, "", "/" + view);
  if (view === "odds" || view === "roll") loadOdds().then(() => render(true));
  render();
}
function nav(ev) {
  const a = ev.target.closest("a[data-view], a[href^='/']");
  if (!a) return;
  const v = a.dataset.view || a.getAttribute("href").slice(1);
  if (!["table", "roll", "odds", "dispute", "new", "host"].includes(v)) return;
  ev.preventDefault();
  go(v);
}
document.addEventListener("click", (ev) => { if (ev.target.closest(".rail a")) nav(ev); });
// The live camera frame on the Roll page refreshes itself once a second.
setInterval(() => {
  const img = document.querySelector("#view-roll.active .frame img");
  const cam = (app.state?.sources || []).find((s) => s.kind === "camera");
  if (img && cam && cam.state === "connected" && !app.state?.reading?.frame) img.src = `/api/frame.jpg?t=${Date.now()}`;
}, 1000);
document.addEventListener("focusout", () => setTimeout(() => {
  const a = document.activeElement;
  if (app.viewDirty && !(a && ["INPUT", "SELECT", "TEXTAREA"].includes(a.tagName))) render();
}, 0));
window.addEventListener("hashchange", async () => { await takeTokensFromUrl(); refresh(); });
window.addEventListener("popstate", () => { app.view = location.pathname.slice(1) || "table"; render(); });

(async function start() {
  drawSpeak();
  await takeTokensFromUrl();
  await refresh();
  connect();
  if (app.view === "odds" || app.view === "roll") { await loadOdds(); render(true); }
})();
