// The round clock counts down between page loads; the page reloads every 20 s for the tables' live
// state, unless someone is typing in a form.
(function () {
  var clock = document.getElementById("clock");
  var left = document.getElementById("left");
  if (clock && left && clock.dataset.seconds !== "") {
    var end = Date.now() + Number(clock.dataset.seconds) * 1000;
    setInterval(function () {
      var s = Math.max(0, Math.round((end - Date.now()) / 1000));
      left.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    }, 1000);
  }
  setInterval(function () {
    var a = document.activeElement;
    if (!a || ["INPUT", "SELECT", "TEXTAREA"].indexOf(a.tagName) < 0) { location.reload(); }
  }, 20000);
})();
