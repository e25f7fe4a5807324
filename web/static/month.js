// The Month grid (RFC §15.6, §15.7), progressively enhanced:
// - one tab stop with roving focus and the APG date-grid keys: arrows by day
//   and week, Home/End to the week's ends, PageUp/PageDown by month (Shift:
//   by year); past the month's ends the adjacent month loads (htmx, URL
//   pushed) and focus lands on the same date;
// - Enter or F2 into a day's items, Escape back to the day;
// - drag to reschedule with a mouse or a pen (pointer events, desktop only):
//   a drop never writes, it opens the dialog; "Move" posts, and a toast
//   offers Undo for 10 seconds;
// - on a phone, a tap on a day shows its agenda under the grid.
// Everything is delegated to the document, so grids swapped in by htmx work
// as they arrive; the script may be loaded more than once.
(function () {
  "use strict";
  if (window.studioMonth) return;
  window.studioMonth = true;

  var FOCUS_KEY = "studio-month-focus";
  var UNDO_MS = 10000;
  var DRAG_SLOP = 5; // px before a press becomes a drag

  function grid() { return document.getElementById("month-grid"); }
  function cellOf(el) { return el && el.closest ? el.closest('td[role="gridcell"]') : null; }
  function cellFor(g, date) { return g.querySelector('td[role="gridcell"][data-date="' + date + '"]'); }
  function focusable(cell) { return !!cell && cell.hasAttribute("tabindex"); }
  function narrow() { return window.matchMedia("(max-width: 640px)").matches; }

  // Dates are civil dates ("2026-10-12"), computed in UTC so no zone or
  // DST of the viewer's can shift them: the server drew them in the site's.
  function parse(d) { var p = d.split("-"); return new Date(Date.UTC(+p[0], +p[1] - 1, +p[2])); }
  function iso(t) { return t.toISOString().slice(0, 10); }
  function addDays(d, n) { var t = parse(d); t.setUTCDate(t.getUTCDate() + n); return iso(t); }
  function addMonths(d, n) {
    var t = parse(d), day = t.getUTCDate();
    t.setUTCDate(1);
    t.setUTCMonth(t.getUTCMonth() + n);
    var last = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 0)).getUTCDate();
    t.setUTCDate(Math.min(day, last));
    return iso(t);
  }
  function monthIndex(d) { var p = d.split("-"); return +p[0] * 12 + (+p[1] - 1); }

  function setFocus(g, cell) {
    var current = g.querySelectorAll('td[role="gridcell"][tabindex="0"]');
    for (var i = 0; i < current.length; i++) current[i].setAttribute("tabindex", "-1");
    cell.setAttribute("tabindex", "0");
    cell.focus();
  }

  // go moves the grid's focus to date, loading its month when it lies
  // outside this one.
  function go(g, date) {
    var target = cellFor(g, date);
    if (focusable(target)) { setFocus(g, target); return; }
    var diff = monthIndex(date) - monthIndex(g.getAttribute("data-month") + "-01");
    var url = { "-1": g.dataset.prevMonth, "1": g.dataset.nextMonth, "-12": g.dataset.prevYear, "12": g.dataset.nextYear }[String(diff)];
    if (!url) return;
    try { sessionStorage.setItem(FOCUS_KEY, date); } catch (e) {}
    load(url, true);
  }

  // load swaps in the Schedules page at url with htmx, as the page's own
  // ‹ › links do: its #calendar region, whose answer brings the period's
  // title and the controls out of band, and the URL pushed so back and
  // forward work. A page without the region gets the grid from the page.
  function load(url, push) {
    if (!window.htmx) { window.location.assign(url); return; }
    var a = document.createElement("a");
    a.hidden = true;
    a.setAttribute("hx-get", url);
    if (document.getElementById("calendar")) {
      a.setAttribute("hx-target", "#calendar");
    } else {
      a.setAttribute("hx-target", "#month-grid");
      a.setAttribute("hx-select", "#month-grid");
    }
    a.setAttribute("hx-swap", "outerHTML");
    a.setAttribute("hx-trigger", "month-load");
    if (push) a.setAttribute("hx-push-url", "true");
    document.body.appendChild(a);
    window.htmx.process(a);
    window.htmx.trigger(a, "month-load");
    setTimeout(function () { a.remove(); }, 30000);
  }

  // After a swap, focus goes to the date the keys asked for.
  function restoreFocus() {
    var date = null;
    try { date = sessionStorage.getItem(FOCUS_KEY); } catch (e) {}
    var g = grid();
    if (!date || !g) return;
    var cell = cellFor(g, date);
    if (focusable(cell)) {
      try { sessionStorage.removeItem(FOCUS_KEY); } catch (e) {}
      setFocus(g, cell);
    }
  }
  document.addEventListener("htmx:afterSettle", restoreFocus);

  // A day's items, in the order Enter visits them: chips, "+N more", the
  // day's own link.
  function items(cell) {
    var out = Array.prototype.slice.call(cell.querySelectorAll("a.chip"));
    var more = cell.querySelector("a.more");
    if (more) out.push(more);
    out.push(cell.querySelector("a.day-num"));
    return out.filter(Boolean);
  }
  function leaveItems(cell) {
    items(cell).forEach(function (el) { el.setAttribute("tabindex", "-1"); });
  }

  document.addEventListener("keydown", function (e) {
    if (drag && e.key === "Escape") { endDrag(); e.preventDefault(); return; }
    var g = grid();
    var cell = cellOf(e.target);
    if (!g || !cell || !g.contains(cell) || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target === cell) { cellKeys(e, g, cell); return; }
    var list = items(cell), i = list.indexOf(e.target);
    if (i < 0) return;
    switch (e.key) {
      case "Escape":
        leaveItems(cell);
        setFocus(g, cell);
        break;
      case "ArrowDown":
        list[(i + 1) % list.length].focus();
        break;
      case "ArrowUp":
        list[(i - 1 + list.length) % list.length].focus();
        break;
      default:
        return;
    }
    e.preventDefault();
  });

  function cellKeys(e, g, cell) {
    var d = cell.getAttribute("data-date"), col = cell.cellIndex, next;
    switch (e.key) {
      case "ArrowLeft": next = addDays(d, -1); break;
      case "ArrowRight": next = addDays(d, 1); break;
      case "ArrowUp": next = addDays(d, -7); break;
      case "ArrowDown": next = addDays(d, 7); break;
      case "Home": next = addDays(d, -col); break;
      case "End": next = addDays(d, 6 - col); break;
      case "PageUp": next = addMonths(d, e.shiftKey ? -12 : -1); break;
      case "PageDown": next = addMonths(d, e.shiftKey ? 12 : 1); break;
      case "Enter":
      case "F2":
        var list = items(cell);
        list.forEach(function (el) { el.setAttribute("tabindex", "0"); });
        if (list.length) list[0].focus();
        e.preventDefault();
        return;
      default:
        return;
    }
    e.preventDefault();
    go(g, next);
  }

  // Leaving a day's items (Tab past them, a click elsewhere) takes them out
  // of the tab order again: the grid keeps one tab stop.
  document.addEventListener("focusout", function (e) {
    var cell = cellOf(e.target);
    if (!cell || e.target === cell) return;
    if (!e.relatedTarget || cellOf(e.relatedTarget) !== cell) leaveItems(cell);
  });

  // A click on a day moves the tab stop there; on a phone it shows the
  // day's agenda under the grid.
  document.addEventListener("click", function (e) {
    if (suppressClick) { e.preventDefault(); e.stopPropagation(); return; }
    var g = grid();
    if (!g || !e.target.closest) return;
    var dismiss = e.target.closest("#month-move [data-close-dialog]");
    if (dismiss) { e.preventDefault(); dismiss.closest("dialog").close(); return; }
    var close = e.target.closest("[data-panel-close]");
    if (close && g.contains(close)) { closePanel(g); return; }
    var latest = e.target.closest("a[data-month-latest]");
    if (latest) { e.preventDefault(); reloadGrid(latest.getAttribute("data-month-latest")); return; }
    var cell = cellOf(e.target);
    if (!cell || !g.contains(cell)) return;
    if (narrow()) {
      e.preventDefault();
      openPanel(g, cell);
      return;
    }
    if (focusable(cell) && !e.target.closest("a")) setFocus(g, cell);
  }, true);

  function openPanel(g, cell) {
    var panel = g.querySelector("#month-day-panel");
    if (!panel) return;
    var picked = g.querySelectorAll("td.picked");
    for (var i = 0; i < picked.length; i++) picked[i].classList.remove("picked");
    cell.classList.add("picked");
    fetchHTML(cell.getAttribute("data-panel"), null).then(function (res) {
      if (!res.ok) return;
      panel.innerHTML = res.html;
      panel.hidden = false;
      var h = panel.querySelector("h3");
      if (h) { h.focus({ preventScroll: true }); }
      panel.scrollIntoView({ block: "nearest" });
    });
  }
  function closePanel(g) {
    var panel = g.querySelector("#month-day-panel");
    var cell = g.querySelector("td.picked");
    panel.hidden = true;
    panel.innerHTML = "";
    if (cell) { cell.classList.remove("picked"); if (focusable(cell)) setFocus(g, cell); }
  }

  // fetchHTML asks Studio for a fragment, as htmx does.
  function fetchHTML(url, body) {
    var init = { method: body ? "POST" : "GET", credentials: "same-origin", headers: { "HX-Request": "true" } };
    if (body) init.body = body;
    return fetch(url, init).then(function (r) {
      return r.text().then(function (html) { return { ok: r.ok, status: r.status, html: html }; });
    });
  }
  function fragment(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }
  function replaceGrid(fresh) {
    var g = grid();
    if (!g || !fresh) return;
    g.replaceWith(fresh);
    if (window.htmx) window.htmx.process(fresh);
  }
  function reloadGrid(url) {
    var dlg = document.getElementById("month-move");
    if (dlg && dlg.open) dlg.close();
    fetchHTML(url, null).then(function (res) {
      if (!res.ok) { window.location.reload(); return; }
      replaceGrid(fragment(res.html).querySelector("#month-grid"));
      var g = grid(), cell = g && g.querySelector('td[tabindex="0"]');
      if (cell) cell.focus();
    });
  }

  // A chip's title is cut short in its cell: its tooltip is its whole
  // sentence, given when the pointer first comes over it.
  document.addEventListener("mouseover", function (e) {
    var chip = e.target.closest && e.target.closest("#month-grid a.chip");
    if (chip && !chip.title) chip.title = chip.getAttribute("aria-label");
  });

  // ---- Drag to reschedule (D12): pointer events, a mouse or a pen only.
  var drag = null, suppressClick = false;

  document.addEventListener("pointerdown", function (e) {
    if (e.button !== 0 || e.pointerType === "touch" || narrow() || !e.target.closest) return;
    var chip = e.target.closest('a.chip[data-drag="true"]');
    var g = grid();
    if (!chip || !g || !g.contains(chip) || g.getAttribute("data-can-drag") !== "true") return;
    e.preventDefault(); // no text selection, no native link drag; the click still comes
    drag = { chip: chip, x: e.clientX, y: e.clientY, started: false, ghost: null, over: null };
  });

  document.addEventListener("pointermove", function (e) {
    if (!drag) return;
    if (!drag.started) {
      if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) < DRAG_SLOP) return;
      drag.started = true;
      drag.chip.classList.add("dragging");
      drag.ghost = drag.chip.cloneNode(true);
      drag.ghost.removeAttribute("id");
      drag.ghost.classList.add("drag-ghost");
      drag.ghost.setAttribute("aria-hidden", "true");
      drag.ghost.style.width = drag.chip.offsetWidth + "px";
      document.body.appendChild(drag.ghost);
      document.documentElement.classList.add("month-dragging");
    }
    drag.ghost.style.transform = "translate(" + (e.clientX + 8) + "px," + (e.clientY + 8) + "px)";
    var over = cellOf(document.elementFromPoint(e.clientX, e.clientY));
    var ok = over && grid().contains(over) && over.getAttribute("data-drop") === "true" &&
      over.getAttribute("data-date") !== drag.chip.getAttribute("data-date");
    if (drag.over && drag.over !== over) drag.over.classList.remove("drop-target");
    drag.over = ok ? over : null;
    if (ok) over.classList.add("drop-target");
  });

  document.addEventListener("pointerup", function () {
    if (!drag) return;
    var d = drag;
    if (d.started) {
      suppressClick = true; // the click that ends a drag is not a click on the link
      setTimeout(function () { suppressClick = false; }, 0);
    }
    endDrag();
    if (d.started && d.over) openDialog(d.chip, d.over);
  });
  document.addEventListener("pointercancel", endDrag);

  function endDrag() {
    if (!drag) return;
    if (drag.ghost) drag.ghost.remove();
    if (drag.over) drag.over.classList.remove("drop-target");
    drag.chip.classList.remove("dragging");
    document.documentElement.classList.remove("month-dragging");
    drag = null;
  }

  // ---- The reschedule dialog: "Now → New", the approval effect, "Move".
  function dayLabel(date) {
    var g = grid(), cell = g && cellFor(g, date);
    if (cell) return cell.getAttribute("data-label");
    var lang = document.documentElement.lang === "tr" ? "tr-TR" : "en-GB";
    try {
      return new Intl.DateTimeFormat(lang, { weekday: "long", day: "numeric", month: "long", timeZone: "UTC" }).format(parse(date));
    } catch (e) { return date; }
  }
  function showNew(dlg) {
    var f = dlg.querySelector("form");
    var date = f.elements.date.value, time = f.elements.time.value;
    dlg.querySelector("[data-move-new]").textContent = date && time ? dayLabel(date) + ", " + time : "";
  }

  function openDialog(chip, cell) {
    var dlg = document.getElementById("month-move");
    if (!dlg || typeof dlg.showModal !== "function") return;
    var f = dlg.querySelector("form");
    f.action = grid().getAttribute("data-releases") + encodeURIComponent(chip.getAttribute("data-id")) + "/move-calendar";
    f.elements.rev.value = chip.getAttribute("data-rev");
    f.elements.date.value = cell.getAttribute("data-date");
    f.elements.time.value = chip.getAttribute("data-time");
    dlg.querySelector("[data-move-what]").textContent = chip.getAttribute("data-title");
    dlg.querySelector("[data-move-now]").textContent = chip.getAttribute("data-when");
    var effects = dlg.querySelectorAll("[data-effect]");
    for (var i = 0; i < effects.length; i++) {
      effects[i].hidden = effects[i].getAttribute("data-effect") !== chip.getAttribute("data-state");
    }
    dlg.querySelector("[data-move-error]").innerHTML = "";
    showNew(dlg);
    dlg.returnDate = cell.getAttribute("data-date");
    dlg.showModal();
    f.querySelector('button[type="submit"]').focus();
  }

  document.addEventListener("input", function (e) {
    var dlg = e.target.closest && e.target.closest("#month-move");
    if (dlg) showNew(dlg);
  });

  document.addEventListener("close", function (e) {
    if (e.target.id !== "month-move") return;
    var g = grid(), cell = g && cellFor(g, e.target.returnDate || "");
    if (focusable(cell)) setFocus(g, cell);
  }, true);

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.matches("form[data-month-move]")) {
      e.preventDefault();
      post(form, form.querySelector("[data-move-error]"), form.closest("dialog"));
    } else if (form.matches("form[data-month-undo]")) {
      e.preventDefault();
      post(form, form.closest("[data-month-toast]"), null);
    }
  });

  // post sends a move (or its Undo) and shows the answer: the grid as it is
  // now and a toast, or the refusal where the person is looking.
  function post(form, errorBox, dlg) {
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    fetchHTML(form.action, new URLSearchParams(new FormData(form))).then(function (res) {
      if (button) button.disabled = false;
      var doc = fragment(res.html);
      if (!res.ok) {
        var problem = doc.querySelector("[data-month-problem]");
        if (!problem) { window.location.reload(); return; }
        if (errorBox.matches("[data-month-toast]")) {
          var undoForm = errorBox.querySelector("form");
          if (undoForm) undoForm.remove();
          holdToast(errorBox);
        } else {
          errorBox.innerHTML = "";
        }
        errorBox.appendChild(problem);
        return;
      }
      var moved = form.elements.date.value;
      if (dlg) { dlg.returnDate = null; dlg.close(); }
      replaceGrid(doc.querySelector("#month-grid"));
      showToast(doc.querySelector("[data-month-toast]"));
      var g = grid(), cell = g && (cellFor(g, moved) || g.querySelector('td[tabindex="0"]'));
      if (focusable(cell) && !(document.activeElement && document.activeElement.closest("[data-month-toast]"))) setFocus(g, cell);
    }, function () {
      if (button) button.disabled = false;
      window.location.reload();
    });
  }

  // The toast lives in the page's one live region; it leaves after ten
  // seconds, but not while the pointer or the focus is on it.
  var toastTimer = null;
  function showToast(toast) {
    if (!toast) return;
    var region = document.getElementById("status") || document.body;
    region.replaceChildren(toast);
    clearTimeout(toastTimer);
    var expire = function () {
      if (!toast.isConnected) return;
      if (toast.matches(":hover") || toast.contains(document.activeElement)) {
        toastTimer = setTimeout(expire, 2000);
        return;
      }
      toast.remove();
    };
    toastTimer = setTimeout(expire, UNDO_MS);
  }
  function holdToast(toast) { clearTimeout(toastTimer); toast.classList.add("toast-problem"); }
})();
