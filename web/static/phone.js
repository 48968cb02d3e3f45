// The phone-as-camera page: show the phone's camera, draw the dice the server finds, send frames.
//
// Live video where the browser allows it (a secure context: HTTPS, or localhost); otherwise one
// photo per roll taken with the phone's camera app.  ?mode=photo forces the photo path.  The
// tablet token is the same one the game page keeps, so a phone paired there is paired here.
"use strict";

const LIVE_EVERY_MS = 300;     // a few frames a second are enough to see dice settle
const LIVE_WIDTH = 1920;       // frames are sent at most this wide (the server keeps 1920 px)
// A photo is sent whole up to 4096 px (the server's limit): numerals on small dice read far more
// surely with more pixels across each die (models/polyhedral-oblique/MODEL_CARD.md).
const PHOTO_WIDTH = 4096;

const $ = (sel) => document.querySelector(sel);
const page = { sent: 0, mode: "starting", busy: false };

function say(text, kind) {
  const m = $("#message");
  m.textContent = text;
  m.className = "message" + (kind ? " " + kind : "");
}

function setState(text, kind) {
  const s = $("#phone-state");
  s.textContent = text;
  s.className = "pill" + (kind ? " " + kind : "");
}

function show(id) {
  for (const p of ["#pair", "#live", "#photo"]) $(p).hidden = p !== id;
}

async function pairFromUrl() {
  const url = new URL(location.href);
  const host = url.searchParams.get("token");
  if (host) {
    localStorage.setItem(TOKEN_KEY, host);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search);
  }
  const m = location.hash.match(/pair=([A-Za-z0-9]+)/);
  if (m) {
    history.replaceState(null, "", location.pathname + location.search);
    await pairWith(m[1]);
  }
}

async function pairWith(code) {
  try {
    const r = await json("POST", "/api/pair", { code, name: "phone camera" });
    localStorage.setItem(TOKEN_KEY, r.token);
    return true;
  } catch (e) {
    say(e.message, "bad");
    return false;
  }
}

async function paired() {
  try {
    const st = await json("GET", "/api/state");
    return st.role === "host" || st.role === "tablet";
  } catch (e) {
    say("The server cannot be reached: " + e.message, "bad");
    return false;
  }
}

// -- sending frames --------------------------------------------------------------------------------
function scaledCanvas(source, width, height, maxWidth) {
  const scale = Math.min(1, maxWidth / width);
  const c = document.createElement("canvas");
  c.width = Math.round(width * scale);
  c.height = Math.round(height * scale);
  c.getContext("2d").drawImage(source, 0, 0, c.width, c.height);
  return c;
}

function jpeg(canvas, quality) {
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality));
}

async function send(blob, photo) {
  const resp = await fetch("/api/camera/frames" + (photo ? "?photo=1" : ""), {
    method: "POST",
    headers: { "Content-Type": "image/jpeg", "X-Companion-Token": token(), "X-Companion-Device": "phone" },
    body: blob,
  });
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) throw Object.assign(new Error(data.message || resp.statusText), { status: resp.status });
  page.sent += 1;
  $("#sent").textContent = String(page.sent);
  document.body.dataset.sent = String(page.sent);
  $("#found").textContent = String(data.dice.length);
  document.body.dataset.found = String(data.dice.length);
  if (data.read) document.body.dataset.reads = String(Number(document.body.dataset.reads || 0) + 1);
  if (data.size) document.body.dataset.frame = data.size.join("x");  // the size the server read
  return data;
}

function drawBoxes(canvas, frameSize, dice) {
  const rect = canvas.getBoundingClientRect();
  canvas.width = Math.round(rect.width * devicePixelRatio);
  canvas.height = Math.round(rect.height * devicePixelRatio);
  const g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  const sx = canvas.width / frameSize[0], sy = canvas.height / frameSize[1];
  g.lineWidth = 3 * devicePixelRatio;
  g.strokeStyle = "#3fb950";
  for (const d of dice) {
    const [x1, y1, x2, y2] = d.box;
    g.strokeRect(x1 * sx, y1 * sy, (x2 - x1) * sx, (y2 - y1) * sy);
  }
}

function report(data) {
  if (data.message) say(data.message, data.read ? "ok" : "");
  else if (data.settled) say("Still: reading…");
}

function failed(e) {
  if (e.status === 401 || e.status === 403) {
    setState("not paired", "bad");
    show("#pair");
    say("This phone is not paired with the current game: type the pairing code.", "bad");
    return true;
  }
  setState("retrying", "bad");
  say("Frame not sent: " + e.message, "bad");
  return false;
}

// -- live video --------------------------------------------------------------------------------------
async function startLive() {
  const video = $("#video");
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: "environment", width: { ideal: LIVE_WIDTH } }, audio: false,
    });
  } catch (e) {
    startPhoto("The live camera was refused (" + e.name + "): take one photo per roll instead.");
    return;
  }
  page.mode = "live";
  document.body.dataset.mode = "live";
  show("#live");
  video.srcObject = stream;
  await video.play().catch(() => {});
  setState("live", "ok");
  say("Live: roll the dice under the phone.");
  const tick = async () => {
    if (!page.busy && video.videoWidth > 0) {
      page.busy = true;
      try {
        const c = scaledCanvas(video, video.videoWidth, video.videoHeight, LIVE_WIDTH);
        const data = await send(await jpeg(c, 0.8), false);
        drawBoxes($("#boxes"), data.size, data.dice);
        setState("live", "ok");
        report(data);
      } catch (e) {
        if (failed(e)) return;
      } finally {
        page.busy = false;
      }
    }
    setTimeout(tick, LIVE_EVERY_MS);
  };
  tick();
}

// -- one photo per roll ---------------------------------------------------------------------------
function startPhoto(why) {
  page.mode = "photo";
  document.body.dataset.mode = "photo";
  show("#photo");
  if (why) $("#photo-why").textContent = why;
  setState("photo per roll", "ok");
  say("Take a photo of each roll once the dice have stopped.");
}

async function onPhoto(ev) {
  const file = ev.target.files && ev.target.files[0];
  if (!file) return;
  try {
    const bitmap = await createImageBitmap(file);
    const c = scaledCanvas(bitmap, bitmap.width, bitmap.height, PHOTO_WIDTH);
    const blob = await jpeg(c, 0.85);
    const img = $("#photo-view");
    if (img.src) URL.revokeObjectURL(img.src);
    img.src = URL.createObjectURL(blob);
    await img.decode().catch(() => {});
    say("Reading the photo…");
    const data = await send(blob, true);
    drawBoxes($("#photo-boxes"), data.size, data.dice);
    report(data);
  } catch (e) {
    failed(e);
  } finally {
    ev.target.value = "";
  }
}

function init() {
  $("#photo-input").addEventListener("change", onPhoto);
  $("#pair-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (await pairWith($("#pair-code").value.trim())) start();
  });
  pairFromUrl().then(start);
}

async function start() {
  if (!(await paired())) {
    show("#pair");
    setState("not paired", "bad");
    document.body.dataset.mode = "pair";
    return;
  }
  const forced = new URL(location.href).searchParams.get("mode");
  const liveAllowed = window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia;
  if (forced === "photo" || !liveAllowed) {
    startPhoto(liveAllowed ? null : "This page is not on HTTPS, so the browser allows no live camera: "
      + "take one photo per roll instead (the phone's camera app opens). For live video, the host "
      + "serves with `companion serve --https` and this phone trusts the table's certificate once (/trust).");
  } else {
    startLive();
  }
}

document.addEventListener("DOMContentLoaded", init);
