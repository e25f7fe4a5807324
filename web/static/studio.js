// Tell the server the viewer's time zone, so Studio can show times in the
// site's zone and, when it differs, in the viewer's own.
(function () {
  try {
    var tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz && document.cookie.indexOf("tz=" + tz) === -1) {
      document.cookie = "tz=" + encodeURIComponent(tz) + "; path=/; max-age=31536000; SameSite=Lax";
    }
  } catch (e) {}
})();
