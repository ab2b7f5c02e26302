// Amber admin page: the shared toolkit (safe DOM building, the API client, messages). Loaded first;
// every view file takes what it needs from window.Amber.
//
// Memories are user data: everything from the API is put on the page with text nodes
// (textContent / createTextNode), never parsed as HTML. All URLs are relative to the page, so the
// page works wherever the memory server is mounted (/admin, /memory/admin, ...).
"use strict";

(function () {
  const state = {
    key: sessionStorage.getItem("amber.key") || "",
    user: sessionStorage.getItem("amber.user") || "",
    localMode: false,
    cursors: [null],  // cursor of each page seen so far; the last one is the current page
    nextCursor: null,
    selected: null,
  };


  const $ = (id) => document.getElementById(id);

  // ---- building DOM safely -----------------------------------------------------------------

  // el("li", {class: "x", dataset: {id: m.id}}, "text", childNode, ...): strings become text nodes
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "dataset") Object.assign(node.dataset, v);
      else if (k === "onclick") node.addEventListener("click", v);
      else if (k.startsWith("on")) throw new Error("event handlers are added with addEventListener");
      else if (k === "text") node.textContent = String(v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function when(iso) {
    if (!iso) return "—";
    const d = new Date(iso);
    return isNaN(d) ? String(iso) : d.toLocaleString();
  }

  // ---- talking to the API ------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.detail) || "HTTP " + status);
      this.status = status;
      this.body = body || {};
    }
  }

  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    if (state.key) headers.Authorization = "Bearer " + state.key;
    if (state.user) headers["X-Amber-User"] = state.user;
    const init = { method, headers, credentials: "omit", cache: "no-store", redirect: "error" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (e) {
      const bad = /header|ISO-8859|ByteString/i.test(String(e && e.message));
      throw new ApiError(0, { detail: bad ? "the key or user name has characters that cannot be sent in a header" : "the memory server did not answer" });
    }
    const raw = await res.text();
    let data = null;
    if (raw) {
      try { data = JSON.parse(raw); } catch (_) { data = { detail: raw.slice(0, 300) }; }
    }
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  }

  const enc = encodeURIComponent;

  // The API's errors in plain words; a 4xx names the field it refused.
  function explain(err) {
    if (!(err instanceof ApiError)) return "Something went wrong in this page: " + (err && err.message ? err.message : String(err));
    const b = err.body || {};
    const detail = b.detail || "";
    const field = b.field === "X-Amber-User" ? "Act as user" : b.field;
    switch (err.status) {
      case 0: return "Could not reach the memory server: " + detail + ".";
      case 401: return "This key was not accepted: " + detail + ". Check that you pasted the whole key.";
      case 403: return "Not allowed: " + detail + ".";
      case 404: return "Not found: " + detail + ".";
      case 409: return "Refused: " + detail + ".";
      case 422: return field ? "Please check \u201c" + field + "\u201d: " + detail : "The server refused this input: " + detail;
      case 503: return "The memory server cannot do this right now (" + detail + "). Try again in a moment.";
      default: return "The memory server answered " + err.status + ": " + detail;
    }
  }

  let errorsShown = 0;  // counts banners shown, so an action can tell whether it raised one
  function showError(err) {
    errorsShown++;
    const box = $("error");
    box.textContent = typeof err === "string" ? err : explain(err);
    box.hidden = false;
    $("notice").hidden = true;
  }

  let noticeTimer = null;
  function notice(text) {
    $("error").hidden = true;
    const box = $("notice");
    box.textContent = text;
    box.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { box.hidden = true; }, 6000);
  }

  // Run an action: errors go to the banner, never to an unhandled rejection. An action that ends
  // well takes down the banner an earlier one left, unless an error was shown while it ran (its
  // own refusal, or another action's failure meanwhile): that one is still news.
  async function attempt(fn) {
    const before = errorsShown;
    try {
      const out = await fn();
      if (errorsShown === before) $("error").hidden = true;
      return out;
    } catch (err) {
      showError(err);
      return undefined;
    }
  }

  function badge(text, cls) {
    return el("span", { class: "badge " + (cls || "") }, text);
  }

  // Views in other files register a loader here; showView (admin.js) calls it when the tab opens.
  const views = {};

  window.Amber = { state, $, el, clear, when, ApiError, api, enc, explain, showError, notice, attempt, badge, views };
})();
