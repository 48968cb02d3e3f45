// The table's games (GET /api/games): a "Games" card at the top of the New game page.
// The host sees every game (players, edition, dates, state) and resumes or ends any of them, and
// confirms or declines what tablets asked; a paired tablet asks the host (POST /api/games/requests)
// to start, resume or end a game.  Uses app.js's helpers (h, fill, api, toast, app, refresh, go).
"use strict";

const GAMES = { data: null, loading: false, mine: new Set() };

function gameLabel(g) {
  const kind = g.game === "battle_dice" ? "Battle Dice" : g.edition === "r96" ? "Dragon Dice 1996" : "Dragon Dice V4.01c";
  return `${g.players.join(" vs ")} · ${kind}`;
}
function gameWhen(g) {
  const d = (s) => (s ? new Date(s).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) : "?");
  return `started ${d(g.created_at)} · last played ${d(g.last_played_at)} · ${g.last_seq} event${g.last_seq === 1 ? "" : "s"}`;
}
function gameState(g) {
  if (g.status === "over") return `over: ${g.winner || "?"} won`;
  if (g.status === "ended") return "ended by the host";
  return "in progress";
}
function requestLabel(r) {
  const game = (GAMES.data?.games || []).find((g) => g.game_id === r.game_id);
  if (r.kind === "new") {
    const b = r.body || {};
    const kind = b.game === "battle_dice" ? "Battle Dice" : b.edition === "r96" ? "1996 rules" : "V4.01c";
    return `a new game: ${(b.players || []).join(" vs ")} (${kind}${b.quick ? ", quick start" : ""})`;
  }
  return `${r.kind === "resume" ? "resume" : "end"} ${game ? gameLabel(game) : r.game_id}`;
}

async function loadGames() {
  if (GAMES.loading) return;
  GAMES.loading = true;
  try {
    GAMES.data = await fetch("/api/games", { headers: { Accept: "application/json" } }).then((r) => r.json());
  } catch (e) { /* the page says it is reconnecting */ } finally { GAMES.loading = false; }
  const box = document.getElementById("games-card");
  if (box) box.replaceWith(gamesSection(true));
}

async function gameAction(path, done) {
  try {
    await api("POST", path, {});
    if (done) toast(done, "info");
  } catch (e) { /* toast shown by api() */ }
  await loadGames();
  await refresh();
}

// Asked from the New game form (app.js startGame) when this page is a tablet, not the host.
async function askForGame(body) {
  try {
    const r = await api("POST", "/api/games/requests", { kind: "new", game: body });
    GAMES.mine.add(r.request.id);
    toast("Asked the host to start this game: it starts when the host confirms.", "info");
    await loadGames();
  } catch (e) { /* toast */ }
}

async function askHost(kind, gameId) {
  try {
    const r = await api("POST", "/api/games/requests", { kind, game_id: gameId });
    GAMES.mine.add(r.request.id);
    toast(`Asked the host to ${kind} that game.`, "info");
    await loadGames();
  } catch (e) { /* toast */ }
}

// Live news about games (notices from /api/events).
function gamesNotice(n) {
  const role = app.state?.role;
  if (n.kind === "game_request" && role === "host") {
    toast(`${n.data.request.asked_by} asks: ${requestLabel(n.data.request)} — see Games on the New game page`, "info");
  }
  if (n.kind === "game_request_decided" && GAMES.mine.has(n.data.request.id)) {
    toast(`The host ${n.data.request.status} your request (${requestLabel(n.data.request)}).`, "info");
  }
  if (["game_request", "game_request_decided", "new_game", "game_switched", "game_ended"].includes(n.kind)) loadGames();
}

function gamesSection(fresh) {
  if (!fresh) loadGames();
  const d = GAMES.data;
  const role = app.state?.role;
  const host = role === "host";
  const card = h("div", { class: "card games", id: "games-card" }, h("h2", {}, "Games"));
  if (!d) { card.append(h("div", { class: "muted small" }, "Loading the games of this table…")); return card; }
  if (d.status === "ended") {
    card.append(h("p", { class: "check bad", id: "game-ended-note" }, "The host ended the game on screen: it is read only until the host resumes it."));
  }
  if (d.requests.length) {
    card.append(h("h3", {}, host ? "Tablets ask" : "Waiting for the host"),
      h("ul", { class: "game-requests", id: "game-requests", style: { listStyle: "none", padding: "0" } }, d.requests.map((r) => h("li", { class: "row", dataset: { request: r.id } },
        h("span", {}, h("b", {}, r.asked_by), ` asks: ${requestLabel(r)}`),
        h("span", { class: "spacer" }),
        host ? h("button", { class: "btn small primary", onclick: () => gameAction(`/api/games/requests/${r.id}/confirm`, "Done.") }, "Confirm") : null,
        host ? h("button", { class: "btn small", onclick: () => gameAction(`/api/games/requests/${r.id}/decline`) }, "Decline") : null))));
  }
  const rows = d.games.map((g) => {
    const actions = [];
    const open = g.status !== "ended";
    if (host) {
      if (!g.current || !open) actions.push(h("button", { class: "btn small primary", dataset: { resume: g.game_id }, onclick: () => gameAction(`/api/games/${g.game_id}/resume`) }, g.current ? "Resume" : "Resume here"));
      if (open && g.status !== "over") actions.push(h("button", { class: "btn small danger", dataset: { end: g.game_id }, onclick: () => gameAction(`/api/games/${g.game_id}/end`) }, "End"));
    } else if (role === "tablet") {
      if (!g.current || !open) actions.push(h("button", { class: "btn small", dataset: { askResume: g.game_id }, onclick: () => askHost("resume", g.game_id) }, "Ask to resume"));
      else if (g.status === "in_progress") actions.push(h("button", { class: "btn small", dataset: { askEnd: g.game_id }, onclick: () => askHost("end", g.game_id) }, "Ask to end"));
    }
    return h("li", { class: "game-row row" + (g.current ? " current" : ""), dataset: { game: g.game_id, status: g.status },
      style: { justifyContent: "space-between", padding: "8px 0", borderTop: "1px solid rgba(127,127,127,.25)" } },
      h("div", {}, h("b", {}, gameLabel(g)), g.current ? h("span", { class: "pill ok small" }, "on screen") : null,
        h("div", { class: "muted small" }, `${gameState(g)} · ${gameWhen(g)}`)),
      h("div", { class: "row" }, actions));
  });
  card.append(rows.length ? h("ul", { class: "game-list", id: "game-list", style: { listStyle: "none", padding: "0" } }, rows) : h("div", { class: "muted small" }, "No game yet."));
  card.append(h("p", { class: "muted small" }, host
    ? "Only the host starts, resumes or ends a game; paired tablets stay paired when the game changes."
    : role === "tablet" ? "Tablets ask the host, who confirms. Start a new game below to ask for it."
      : "Pair this tablet to ask the host for a game."));
  return card;
}
