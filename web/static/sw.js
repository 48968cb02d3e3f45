// Dragon Dice companion service worker: the page shell opens without the server (installed on a
// home screen, a table with flaky Wi-Fi).  Pages and static files: network first, the cached copy
// when the server cannot be reached.  /api/ is never touched here: game state is never stale.
"use strict";
const CACHE = "companion-shell-v1";
const SHELL = ["/", "/table", "/roll", "/odds", "/dispute", "/new", "/host", "/static/app.js", "/static/app.css",
  "/static/icon.svg", "/static/icon-192.png", "/static/icon-512.png", "/manifest.webmanifest"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  const key = url.pathname;  // the shell is the same whatever the query (a ?token= is taken out by the page)
  event.respondWith(fetch(event.request).then((resp) => {
    if (resp.ok) { const copy = resp.clone(); caches.open(CACHE).then((c) => c.put(key, copy)); }
    return resp;
  }).catch(() => caches.match(key).then((hit) => hit || caches.match("/table"))));
});
