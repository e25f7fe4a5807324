// The new-key form of the Agents page, progressively enhanced: choosing a
// mode ticks the scopes that mode starts with (its data-defaults), so the
// person starts from the RFC's prefill and adjusts. Without JavaScript the
// page comes with the default mode's scopes ticked, and the server checks
// whatever is sent.
(function () {
  document.addEventListener("change", function (e) {
    var radio = e.target;
    if (!radio.matches || !radio.matches("input[name=mode][data-defaults]")) return;
    var form = radio.closest("form");
    if (!form) return;
    var want = radio.getAttribute("data-defaults").split(" ");
    form.querySelectorAll("input[name=scope]").forEach(function (box) {
      box.checked = want.indexOf(box.value) >= 0;
    });
  });
})();
