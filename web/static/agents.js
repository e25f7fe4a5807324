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

// A key's page, progressively enhanced: copy buttons, the page's own
// address after the POST that made the key, and Test connection.
(function () {
  // The answer to the POST that made a key shows its secret once: the
  // page takes the key's own address, so a reload loads the page without
  // the secret instead of posting the form again.
  var made = document.querySelector("[data-address]");
  if (made && window.history && history.replaceState) {
    history.replaceState(null, "", made.getAttribute("data-address"));
  }

  function textOf(el) {
    return "value" in el && el.tagName === "INPUT" ? el.value : el.textContent;
  }

  // Copy: the Clipboard API where the page is a secure context, else the
  // element's text selected and copied the old way.
  function copy(el) {
    var text = textOf(el);
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      area.remove();
      ok ? resolve() : reject(new Error("copy refused"));
    });
  }

  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.hidden = false;
    var label = b.textContent;
    b.addEventListener("click", function () {
      var el = document.getElementById(b.getAttribute("data-copy"));
      if (!el) return;
      copy(el).then(function () {
        b.textContent = b.getAttribute("data-copied");
        setTimeout(function () { b.textContent = label; }, 2000);
      }, function () {
        if (el.select) el.select(); // the person copies it by hand
      });
    });
  });

  // Test connection: the MCP handshake an agent's client makes, from this
  // page to /mcp with the key (same origin; the key goes nowhere else):
  // initialize, initialized, tools/list and get_mode, then the session is
  // ended. The answer shows what the key may do, and on which site.
  var form = document.querySelector("form[data-test-connection]");
  if (!form) return;
  form.hidden = false;
  var result = form.querySelector("[role=status]");
  var answer = form.querySelector("pre");
  var endpoint = form.getAttribute("data-endpoint");
  var protocol = form.getAttribute("data-protocol");
  var modes = JSON.parse(form.getAttribute("data-modes") || "{}");

  // rpc sends one JSON-RPC message and reads its answer, which the server
  // may send as JSON or as one event of a stream.
  function rpc(key, session, body) {
    var headers = {
      "Authorization": "Bearer " + key,
      "Content-Type": "application/json",
      "Accept": "application/json, text/event-stream"
    };
    if (session) {
      headers["Mcp-Session-Id"] = session;
      headers["Mcp-Protocol-Version"] = protocol;
    }
    return fetch(endpoint, { method: "POST", headers: headers, body: JSON.stringify(body), credentials: "omit" })
      .then(function (res) {
        return res.text().then(function (text) {
          var msg = null;
          if (body.id !== undefined && res.ok) {
            var json = text;
            if ((res.headers.get("Content-Type") || "").indexOf("text/event-stream") === 0) {
              json = text.split("\n").filter(function (l) { return l.indexOf("data:") === 0; })
                .map(function (l) { return l.slice(5); }).join("");
            }
            msg = JSON.parse(json);
          }
          return { status: res.status, session: res.headers.get("Mcp-Session-Id"), msg: msg };
        });
      });
  }

  // problem is what went wrong with an answer: the JSON-RPC error, the
  // tool's own error text, or the HTTP status.
  function problem(r) {
    var m = r.msg;
    if (m && m.error) return m.error.message;
    if (m && m.result && m.result.isError && m.result.content && m.result.content[0]) return m.result.content[0].text;
    return "HTTP " + r.status;
  }

  function fail(text) {
    result.textContent = text;
    result.className = "error";
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var key = form.querySelector("input[type=password]").value.trim();
    var session = null;
    var tools = 0;
    answer.hidden = true;
    result.className = "";
    result.textContent = form.getAttribute("data-working");
    rpc(key, null, { jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: protocol, capabilities: {}, clientInfo: { name: "Studio: Test connection", version: "1" } } })
      .then(function (r) {
        if (r.status === 401 || r.status === 403) throw { refused: true };
        if (r.status !== 200 || !r.session) throw { detail: "HTTP " + r.status };
        session = r.session;
        return rpc(key, session, { jsonrpc: "2.0", method: "notifications/initialized" });
      })
      .then(function () { return rpc(key, session, { jsonrpc: "2.0", id: 2, method: "tools/list" }); })
      .then(function (r) {
        if (!r.msg || !r.msg.result) throw { detail: problem(r) };
        tools = r.msg.result.tools.length;
        return rpc(key, session, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_mode", arguments: {} } });
      })
      .then(function (r) {
        var out = r.msg && r.msg.result && r.msg.result.structuredContent;
        if (!out) throw { detail: problem(r) };
        result.textContent = form.getAttribute("data-ok")
          .replace("{site}", out.site.name)
          .replace("{mode}", modes[out.mode] || out.mode)
          .replace("{tools}", String(tools));
        result.className = "ok";
        answer.textContent = JSON.stringify(out, null, 2);
        answer.hidden = false;
      })
      .catch(function (err) {
        if (err && err.refused) fail(form.getAttribute("data-refused"));
        else if (err && err.detail) fail(form.getAttribute("data-failed").replace("{detail}", err.detail));
        else fail(form.getAttribute("data-unreachable"));
      })
      .finally(function () {
        if (session) {
          fetch(endpoint, { method: "DELETE", credentials: "omit",
            headers: { "Authorization": "Bearer " + key, "Mcp-Session-Id": session, "Mcp-Protocol-Version": protocol } });
        }
      });
  });
})();
