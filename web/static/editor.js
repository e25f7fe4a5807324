// The editor of a new page or article: its address follows the title as
// it is typed (Turkish letters spelled as a Turkish address spells them,
// ı → i, ş → s, ğ → g, ü → u, ö → o, ç → c, İ → i), until the person edits
// the address themselves. engine/content.Slugify does the same on the
// server when the address is left empty, so both give the same address.
(function () {
  var slug = document.querySelector("input[data-slug-from]");
  if (!slug) return;
  var title = document.getElementById(slug.getAttribute("data-slug-from"));
  if (!title) return;
  var turkish = { "İ": "i", "I": "i", "ı": "i", "Ş": "s", "ş": "s", "Ğ": "g", "ğ": "g",
    "Ü": "u", "ü": "u", "Ö": "o", "ö": "o", "Ç": "c", "ç": "c" };
  function slugify(s) {
    s = s.replace(/[İIıŞşĞğÜüÖöÇç]/g, function (c) { return turkish[c]; });
    s = s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/['’]/g, "").toLowerCase();
    s = s.replace(/[^a-z0-9]+/g, "-").replace(/^-+/, "");
    return s.slice(0, 120).replace(/-+$/, "");
  }
  // An address already typed (a form back with a refusal) is the person's.
  var following = slug.value === "" || slug.value === slugify(title.value);
  title.addEventListener("input", function () {
    if (following) slug.value = slugify(title.value);
  });
  slug.addEventListener("input", function () {
    following = slug.value === "";
  });
})();

// The image upload of a page's or an article's editor: the file (chosen,
// or dropped on the text) goes up with its alt text and a progress bar; the
// answer's Markdown goes into the text where the cursor was, and the image
// is offered as the cover (and chosen, when asked). Without JavaScript the
// panel stays hidden: media files are uploaded from their own editor.
(function () {
  var panel = document.querySelector("[data-upload]");
  if (!panel) return;
  var form = panel.closest("form");
  var text = document.getElementById("body");
  var cover = document.getElementById("cover");
  var file = document.getElementById("upload-file");
  var alt = document.getElementById("upload-alt");
  var asCover = document.getElementById("upload-cover");
  var bar = panel.querySelector("progress");
  var status = panel.querySelector("[data-upload-status]");
  var csrf = form.querySelector("input[name=csrf_token]").value;
  panel.hidden = false;

  function say(message) { status.textContent = message; }

  function insert(markdown) {
    var at = text.selectionStart || text.value.length;
    var before = text.value.slice(0, at), after = text.value.slice(at);
    var lead = before === "" || before.endsWith("\n\n") ? "" : (before.endsWith("\n") ? "\n" : "\n\n");
    text.value = before + lead + markdown + "\n\n" + after.replace(/^\n+/, "");
    text.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function upload(f) {
    if (!f) { say(status.dataset.noFile); return; }
    var data = new FormData();
    data.append("csrf_token", csrf);
    data.append("file", f);
    data.append("alt", alt.value);
    var xhr = new XMLHttpRequest();
    xhr.open("POST", panel.dataset.upload);
    xhr.setRequestHeader("X-CSRF-Token", csrf);
    bar.hidden = false;
    bar.value = 0;
    xhr.upload.onprogress = function (e) {
      if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total);
    };
    xhr.onload = function () {
      bar.hidden = true;
      var answer = {};
      try { answer = JSON.parse(xhr.responseText); } catch (e) { answer = {}; }
      // A refusal is {"error": {"code", "message"}}, whatever refused it.
      if (xhr.status !== 201) { say((answer.error && answer.error.message) || status.dataset.failed); return; }
      insert(answer.markdown);
      var option = document.createElement("option");
      option.value = answer.id;
      option.textContent = answer.title + " (" + answer.path + ")";
      cover.appendChild(option);
      if (asCover.checked) cover.value = answer.id;
      file.value = "";
      alt.value = "";
      say(status.dataset.done);
    };
    xhr.onerror = function () { bar.hidden = true; say(status.dataset.failed); };
    xhr.send(data);
  }

  panel.querySelector("[data-upload-start]").addEventListener("click", function () {
    upload(file.files[0]);
  });
  text.addEventListener("dragover", function (e) {
    if (e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types, "Files") >= 0) {
      e.preventDefault();
      text.classList.add("dropping");
    }
  });
  text.addEventListener("dragleave", function () { text.classList.remove("dropping"); });
  text.addEventListener("drop", function (e) {
    if (!e.dataTransfer || e.dataTransfer.files.length === 0) return;
    e.preventDefault();
    text.classList.remove("dropping");
    if (alt.value.trim() === "") {
      // The alt text is required: the file waits in the field for it.
      file.files = e.dataTransfer.files;
      alt.focus();
      say(panel.querySelector("#upload-alt-hint").textContent);
      return;
    }
    upload(e.dataTransfer.files[0]);
  });
})();
