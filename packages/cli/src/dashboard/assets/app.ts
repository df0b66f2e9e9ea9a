/**
 * The dashboard's only script (plain ES2020, no framework): the live feed over server-sent
 * events, updating rows and the thread page; focus for in-page links; no double submit. Pages
 * work without it, minus the live updates.
 */
export const APP_JS = String.raw`"use strict";
(function () {
  var body = document.body;
  var live = body.getAttribute("data-live");
  var conn = document.getElementById("conn");

  function cost(usd) {
    if (usd === null || usd === undefined) return "unknown";
    return "$" + (usd < 1 ? usd.toFixed(4) : usd.toFixed(2));
  }
  function setBadge(el, status) {
    if (!el) return;
    el.className = "badge s-" + status;
    el.textContent = status;
  }
  function field(row, name) {
    return row.querySelector('[data-field="' + name + '"]');
  }

  function updateRow(tr, s) {
    setBadge(field(tr, "status"), s.status);
    var role = field(tr, "role");
    if (role) role.textContent = s.currentRole || "\u2014";
    var steps = field(tr, "steps");
    if (steps) steps.textContent = String(s.steps);
    var c = field(tr, "cost");
    if (c) c.textContent = (s.unknownCostSteps > 0 && s.costUsd !== null ? "\u2265 " : "") + cost(s.costUsd);
    var updated = field(tr, "updated");
    if (updated && s.updatedAt) updated.textContent = s.updatedAt.replace("T", " ").slice(0, 19);
    var waiting = field(tr, "waiting");
    if (waiting) {
      waiting.textContent = s.waiting || "";
      waiting.hidden = !s.waiting;
    }
  }

  var lastStatus = null;
  var lastSteps = null;
  var refreshing = false;

  function refreshThreadPage() {
    if (refreshing) return;
    var typing = document.activeElement && document.activeElement.id === "answer" && document.activeElement.value;
    if (typing) return;
    refreshing = true;
    // With the query: the page's notice ("Your answer was sent") must survive the refresh.
    fetch(location.pathname + location.search, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (!text) return;
        var doc = new DOMParser().parseFromString(text, "text/html");
        var fresh = doc.querySelector("main");
        var main = document.querySelector("main");
        if (!fresh || !main) return;
        var oldOut = document.getElementById("live-output");
        var kept = oldOut ? oldOut.textContent : "";
        var oldRole = document.getElementById("live-role");
        var keptRole = oldRole ? oldRole.textContent : "";
        main.innerHTML = fresh.innerHTML;
        var liveBox = document.getElementById("live");
        if (kept && liveBox) {
          liveBox.hidden = false;
          document.getElementById("live-output").textContent = kept;
          var running = lastStatus === "running";
          document.getElementById("live-h").textContent = running ? "Running now" : "Last run";
          document.getElementById("live-role").textContent = keptRole;
        }
        wireForms();
      })
      .finally(function () { refreshing = false; });
  }

  function onThreadEvent(e) {
    var box = document.getElementById("live");
    var out = document.getElementById("live-output");
    var role = document.getElementById("live-role");
    if (e.event === "step.start" && box) {
      box.hidden = false;
      document.getElementById("live-h").textContent = "Running now";
      role.textContent = "Step " + e.stepNumber + ": " + e.role + " (" + e.agent + ") started " + (e.ts || "").replace("T", " ").slice(11, 19);
      out.textContent += (out.textContent ? "\n" : "") + "\u25b6 " + e.role;
    } else if (e.event === "adapter.output" && out) {
      if (box) box.hidden = false;
      var lines = (out.textContent + "\n" + e.line).split("\n");
      if (lines.length > 400) lines = lines.slice(-400);
      out.textContent = lines.join("\n").replace(/^\n/, "");
      out.scrollTop = out.scrollHeight;
    } else if ((e.event === "step.done" || e.event === "step.failed") && out) {
      out.textContent += "\n" + (e.event === "step.done" ? "\u2713 " + e.role + " \u2192 " + e.status + " (" + e.durationMs + " ms)" : "\u2717 " + e.role + ": " + e.reason);
      out.scrollTop = out.scrollHeight;
    } else if (e.event === "thread.status") {
      setBadge(document.querySelector("h1 [data-field=status]"), e.status);
      var changed = (lastStatus !== null && lastStatus !== e.status) || (lastSteps !== null && lastSteps !== e.steps);
      lastStatus = e.status;
      lastSteps = e.steps;
      if (changed) refreshThreadPage();
    }
  }

  function onListEvent(e) {
    if (e.event !== "thread.status") return;
    var tr = document.querySelector('tr[data-thread="' + e.thread + '"]');
    if (tr) updateRow(tr, e);
    else {
      var note = document.getElementById("new-threads");
      if (note) note.hidden = false;
    }
  }

  if (live && window.EventSource) {
    var initial = document.querySelector("h1 [data-field=status]");
    if (initial) lastStatus = initial.textContent;
    var steps = document.querySelectorAll("#timeline > li").length;
    if (live !== "*") lastSteps = steps;
    var source = new EventSource("/events?thread=" + encodeURIComponent(live));
    source.onopen = function () {
      if (conn) { conn.textContent = "live"; conn.className = "conn on"; }
      // What happened between rendering the page and (re)connecting is not in the feed.
      if (live !== "*") {
        fetch("/api/threads/" + live + "/status", { credentials: "same-origin" })
          .then(function (r) { return r.ok ? r.json() : null; })
          .then(function (row) {
            if (row) { row.event = "thread.status"; onThreadEvent(row); }
          });
      }
    };
    source.onerror = function () {
      if (conn) { conn.textContent = "reconnecting\u2026"; conn.className = "conn"; }
    };
    source.onmessage = function (m) {
      var e;
      try { e = JSON.parse(m.data); } catch (_) { return; }
      if (live === "*") onListEvent(e); else onThreadEvent(e);
    };
  }

  function focusTarget() {
    if (!location.hash) return;
    var el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (el) {
      if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
      el.focus({ preventScroll: false });
    }
  }
  window.addEventListener("hashchange", focusTarget);

  function wireForms() {
    var forms = document.querySelectorAll("form.answer");
    for (var i = 0; i < forms.length; i++) {
      forms[i].addEventListener("submit", function (ev) {
        var button = ev.target.querySelector("button");
        if (button.disabled) { ev.preventDefault(); return; }
        button.disabled = true;
        button.textContent = "Sending\u2026";
      });
    }
  }
  wireForms();
})();
`;
