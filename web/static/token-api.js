// Shared by the phone-camera and teach pages: the tablet token the game page keeps (host link or
// paired tablet) and a JSON request that carries it.  Loaded before the page's own script.
"use strict";

const TOKEN_KEY = "companion.token";

function token() { return localStorage.getItem(TOKEN_KEY) || ""; }

async function json(method, path, body) {
  const headers = { Accept: "application/json" };
  if (token()) headers["X-Companion-Token"] = token();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) throw Object.assign(new Error(data.message || resp.statusText), { status: resp.status });
  return data;
}
