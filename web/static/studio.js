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

// Menu opens and closes the navigation where the bar folds it (a phone or
// a small tablet; studio.css folds it only when scripts run).
document.querySelectorAll("[data-menu-toggle]").forEach(function (button) {
  var nav = document.getElementById(button.getAttribute("aria-controls"));
  button.addEventListener("click", function () {
    var open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    nav.classList.toggle("open", open);
  });
});

// The bar's folded menus close on Escape and on a click elsewhere, as menus do.
function closeBarMenus(except) {
  document.querySelectorAll(".bar details[open]").forEach(function (d) {
    if (d !== except && !d.contains(except)) d.removeAttribute("open");
  });
}
document.addEventListener("click", function (e) { closeBarMenus(e.target.closest(".bar details")); });
document.addEventListener("keydown", function (e) {
  if (e.key !== "Escape") return;
  var open = document.querySelector(".bar details[open]");
  if (!open) return;
  closeBarMenus(null);
  open.querySelector("summary").focus();
});

// A start date the person picks is theirs: the automation editor's preview
// no longer moves it to follow the rule.
document.addEventListener("input", function (e) {
  if (e.target.id !== "aut-date") return;
  var auto = document.querySelector("[data-date-auto]");
  if (auto) auto.value = "";
});

// "When approved" needs no date or time: its fields are disabled (so not
// required, not sent) while it is chosen.
document.addEventListener("change", function (e) {
  if (!e.target.matches("[data-when-choice]")) return;
  var at = e.target.form && e.target.form.querySelector("[data-when-at]");
  if (at) at.disabled = e.target.value === "on-approval";
});
