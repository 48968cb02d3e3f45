// The league line of a table joined to a league (companion serve --league ...): a pill in the status
// bar, "league: connected" or "league: offline, N events waiting", read from /api/league every 3 s.
// Tables not in a league answer 404 there, and the script stops.
(function () {
  "use strict";
  var pill = null;
  function show(s) {
    if (!pill) {
      var bar = document.querySelector(".topbar .status");
      if (!bar) { return; }
      pill = document.createElement("span");
      pill.className = "pill";
      pill.id = "league";
      bar.insertBefore(pill, bar.firstChild);
    }
    var waiting = s.waiting ? ", " + s.waiting + " event" + (s.waiting === 1 ? "" : "s") + " waiting" : "";
    var state = s.state === "connected" ? "connected" : (s.state === "refused" ? "refused" : "offline");
    pill.textContent = "league: " + state + waiting;
    pill.title = (s.table ? "table " + s.table + " of " : "") + (s.league || "the league") +
      (s.error ? " — " + s.error : "");
    pill.classList.toggle("off", state !== "connected");
  }
  function poll() {
    fetch("/api/league", {cache: "no-store"}).then(function (r) {
      if (r.status === 404) { return null; }
      return r.ok ? r.json() : {state: "offline"};
    }).then(function (s) {
      if (s === null) { return; }
      show(s);
      setTimeout(poll, 3000);
    }).catch(function () { setTimeout(poll, 3000); });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", poll);
  } else {
    poll();
  }
})();
