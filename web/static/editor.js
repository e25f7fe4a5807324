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
