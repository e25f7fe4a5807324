// The Schedules page's keyboard shortcuts (RFC §15.6) and the filters' fold
// kept open across htmx swaps. No framework: every shortcut clicks a link
// or a control that is on the page anyway (htmx then swaps #calendar), so
// the keyboard does nothing a pointer cannot. Shortcuts act only when focus
// is not in a field, a modifier is not held, and no dialog is open.
//
//   j / k   next / previous period        a / m   Agenda / Month
//   g t     today                         g d     go to date
//   c       new release                   f       filters
//   ?       the list of shortcuts (rendered by the server, in the page's language)
(function () {
  var pendingG = false;
  var gTimer = 0;

  function inField(el) {
    if (!el || el === document.body) return false;
    if (el.isContentEditable) return true;
    var tag = el.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") return true;
    if (tag !== "INPUT") return false;
    var type = (el.getAttribute("type") || "text").toLowerCase();
    // Checkboxes and buttons take no typing: the shortcuts still work there.
    return ["checkbox", "radio", "button", "submit", "reset", "hidden"].indexOf(type) === -1;
  }

  function byId(id) { return document.getElementById(id); }

  function click(id) {
    var el = byId(id);
    if (!el) return false;
    el.click();
    return true;
  }

  // switchView clicks the Agenda or the Month link unless it is the view shown.
  function switchView(id) {
    var el = byId(id);
    if (!el || el.getAttribute("aria-current") === "page") return !!el;
    el.click();
    return true;
  }

  function openFilters() {
    var d = byId("filters");
    if (!d) return false;
    d.open = true;
    var first = d.querySelector("input[type=checkbox]");
    (first || d.querySelector("summary")).focus();
    return true;
  }

  function openShortcuts() {
    var d = byId("shortcuts-dialog");
    if (!d || typeof d.showModal !== "function") return false;
    if (!d.open) d.showModal();
    return true;
  }

  function goToDate() {
    var input = byId("goto-date");
    if (!input) return false;
    input.focus();
    if (typeof input.showPicker === "function") {
      try { input.showPicker(); } catch (e) { /* not allowed without a user gesture in some browsers */ }
    }
    return true;
  }

  // While htmx swaps the region in, the new links are not wired yet: a
  // click then would load the whole page (and htmx's history update would
  // cancel that load). A key pressed meanwhile waits for the swap to settle.
  var swapping = false;
  var waiting = null;
  function act(fn) {
    if (swapping) { waiting = fn; return true; }
    return fn();
  }
  var guard = 0;
  function settled() {
    clearTimeout(guard);
    swapping = false;
    var fn = waiting;
    waiting = null;
    if (fn) fn();
  }
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (!e.detail.shouldSwap) return;
    swapping = true;
    guard = setTimeout(settled, 1000); // never wait on a swap that did not settle
  });
  document.addEventListener("htmx:afterSettle", function () {
    setTimeout(settled, 0); // after every part of the swap has settled
  });

  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    if (inField(e.target) || document.querySelector("dialog[open]")) return;
    var k = e.key;
    var done = false;
    if (pendingG) {
      pendingG = false;
      clearTimeout(gTimer);
      if (k === "t") done = act(function () { return click("cal-today"); });
      else if (k === "d") done = goToDate();
      if (done) e.preventDefault();
      return;
    }
    switch (k) {
      case "j": done = act(function () { return click("cal-next"); }); break;
      case "k": done = act(function () { return click("cal-prev"); }); break;
      case "a": done = act(function () { return switchView("view-agenda"); }); break;
      case "m": done = act(function () { return switchView("view-month"); }); break;
      case "c": done = click("new-release"); break;
      case "f": done = openFilters(); break;
      case "?": done = openShortcuts(); break;
      case "g":
        pendingG = true;
        gTimer = setTimeout(function () { pendingG = false; }, 1500);
        done = true;
        break;
    }
    if (done) e.preventDefault();
  });

  // The button that opens the list is only useful with this script.
  function showShortcutsButton() {
    var b = byId("shortcuts-open");
    if (b) {
      b.hidden = false;
      b.onclick = openShortcuts;
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", showShortcutsButton);
  else showShortcutsButton();

  // A swap replaces the filters (their links and hidden fields carry the
  // new state): keep the fold as the person left it. htmx puts focus back
  // on the control that had it, by its id.
  var filtersOpen = null;
  document.addEventListener("htmx:beforeSwap", function () {
    var d = byId("filters");
    filtersOpen = d ? d.open : null;
  });
  function restore() {
    var d = byId("filters");
    if (d && filtersOpen) d.open = true;
  }
  document.addEventListener("htmx:oobAfterSwap", restore);
  document.addEventListener("htmx:afterSwap", restore);
  document.addEventListener("htmx:afterSettle", function () {
    restore();
    filtersOpen = null;
    showShortcutsButton();
  });
  // An item's ⋯ menu closes when the person clicks elsewhere or presses
  // Escape, as a menu does.
  document.addEventListener("click", function (e) {
    document.querySelectorAll("details.menu[open], details.deny-inline[open]").forEach(function (d) {
      if (!d.contains(e.target)) d.open = false;
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    document.querySelectorAll("details.menu[open], details.deny-inline[open]").forEach(function (d) {
      if (d.contains(document.activeElement)) d.querySelector("summary").focus();
      d.open = false;
    });
  });
})();

// "Move to…" in an Agenda item's menu opens the reschedule dialog in place
// (the one a drag opens on the Month): Now → New, the date and time, the
// approval effect. Move posts the form as a page; the answer is the Agenda
// as it was, with what moved said above it.
(function () {
  function showNew(dlg) {
    var f = dlg.querySelector("form");
    var date = f.elements.date.value, time = f.elements.time.value;
    dlg.querySelector("[data-move-new]").textContent = date && time ? date + ", " + time : "";
  }
  document.addEventListener("click", function (e) {
    var dismiss = e.target.closest && e.target.closest("#agenda-move [data-close-dialog]");
    if (dismiss) {
      dismiss.closest("dialog").close();
      return;
    }
    var link = e.target.closest && e.target.closest("a[data-move-dialog]");
    if (!link) return;
    var dlg = document.getElementById(link.getAttribute("data-move-dialog"));
    if (!dlg || typeof dlg.showModal !== "function") return; // the release's page instead
    e.preventDefault();
    var menu = link.closest("details");
    if (menu) menu.removeAttribute("open");
    var f = dlg.querySelector("form");
    f.action = f.action.replace(/\/releases\/[^/]+\/move$/, "/releases/" + encodeURIComponent(link.getAttribute("data-id")) + "/move");
    f.elements.rev.value = link.getAttribute("data-rev");
    f.elements.date.value = link.getAttribute("data-date");
    f.elements.time.value = link.getAttribute("data-time");
    dlg.querySelector("[data-move-what]").textContent = link.getAttribute("data-title");
    dlg.querySelector("[data-move-now]").textContent = link.getAttribute("data-when");
    dlg.querySelectorAll("[data-effect]").forEach(function (p) {
      p.hidden = p.getAttribute("data-effect") !== link.getAttribute("data-state");
    });
    showNew(dlg);
    dlg.returnFocus = menu && menu.querySelector("summary");
    dlg.showModal();
    f.elements.date.focus();
  });
  document.addEventListener("input", function (e) {
    var dlg = e.target.closest && e.target.closest("dialog");
    if (dlg && dlg.querySelector("form[data-agenda-move]")) showNew(dlg);
  });
  document.addEventListener("close", function (e) {
    if (e.target.returnFocus) e.target.returnFocus.focus();
  }, true);
})();
