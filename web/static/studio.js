// Tell the server the viewer's time zone, so Studio can show times in the
// site's zone and, when it differs, in the viewer's own.
(function () {
  try {
    var tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz && document.cookie.indexOf("tz=" + tz) === -1) {
      document.cookie = "tz=" + encodeURIComponent(tz) + "; path=/; max-age=31536000; SameSite=Lax";
    }
    // A zone field that asks for it (the first-run setup) suggests the
    // browser's zone until the person types one.
    document.addEventListener("DOMContentLoaded", function () {
      document.querySelectorAll("input[data-browser-zone]").forEach(function (input) {
        if (tz && input.value === "") input.value = tz;
      });
    });
  } catch (e) {}
})();

// A request htmx aborts is one the person has moved past: a newer filter or
// period replaced it (hx-sync "replace"). htmx reports an abort as an error
// on the console; this keeps that one report silent, and only while htmx
// handles the abort, so every other error still shows.
document.addEventListener("htmx:beforeSend", function (e) {
  var xhr = e.detail && e.detail.xhr;
  if (!xhr || typeof xhr.onabort !== "function") return;
  var onabort = xhr.onabort;
  xhr.onabort = function () {
    var error = console.error;
    console.error = function () {};
    try {
      return onabort.apply(this, arguments);
    } finally {
      console.error = error;
    }
  };
});

// An Undo offered for a few seconds (an Unschedule's) goes away when its
// time is up, as a move's toast does.
document.querySelectorAll("[data-undo-seconds]").forEach(function (el) {
  setTimeout(function () { el.remove(); }, Number(el.getAttribute("data-undo-seconds")) * 1000);
});
