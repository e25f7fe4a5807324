// Confirmation dialogs, progressively enhanced. A link with
// data-dialog="ID" opens the <dialog id="ID"> as a modal instead of loading
// its confirm step; a link with data-close-dialog inside an open dialog
// closes it instead of going back, and one with data-close-details folds
// its <details>. Without JavaScript these links simply
// load their pages, where the server renders the dialog open in the page.
(function () {
  document.addEventListener("click", function (e) {
    if (!e.target.closest) return;
    var open = e.target.closest("a[data-dialog]");
    if (open) {
      var d = document.getElementById(open.getAttribute("data-dialog"));
      if (d && typeof d.showModal === "function") {
        e.preventDefault();
        if (d.open) d.close();
        d.showModal();
        var first = d.querySelector("input:not([type=hidden])");
        if (first) first.focus();
      }
      return;
    }
    // A form in a <details> (Move to…) closes with its own Close.
    var fold = e.target.closest("[data-close-details]");
    if (fold && fold.closest("details")) {
      e.preventDefault();
      fold.closest("details").open = false;
      return;
    }
    var close = e.target.closest("[data-close-dialog]");
    if (close) {
      var dlg = close.closest("dialog");
      if (dlg && dlg.open && typeof dlg.close === "function") {
        e.preventDefault();
        dlg.close();
      }
    }
  });
})();
