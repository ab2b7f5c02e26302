// Amber admin page: Precious quotes, and Maintenance — vector health, reindex, export and import.
// Vector health and reindex need an admin key; export and import act for the connected user.
"use strict";

(function () {
  const { state, $, el, clear, when, api, ApiError, badge, notice, showError, attempt, views } = window.Amber;

  async function loadPrecious() {
    const data = await api("GET", "v1/precious");
    const list = clear($("precious-list"));
    if (!data.items.length) list.appendChild(el("li", { class: "empty" }, "No precious words kept yet. Say \u201ckeep this verbatim\u201d in a chat, or let consolidation find them."));
    for (const m of data.items) {
      // a quote is append-only, never deleted: the way to remove one is to forget it (admin-forget.js)
      const slot = el("div", { class: "forget-slot" });
      list.appendChild(el("li", { class: "card precious", dataset: { id: m.id } },
        el("blockquote", { class: "content" }, m.content),
        el("div", { class: "meta" }, m.source_client ? badge(m.source_client, "ns") : null, el("span", { class: "when" }, when(m.created_at)),
          el("button", { type: "button", class: "link", onclick: () => attempt(async () => {
            window.Amber.showView("memories");
            await window.Amber.openDetail(m.id);
          }) }, "details"),
          el("button", { type: "button", class: "link danger", onclick: () => attempt(() => window.Amber.forgetInto(slot, m.content, { onDone: loadPrecious })) }, "forget\u2026")),
        slot));
    }
  }

  function vectorTable(vh) {
    const tbody = el("tbody");
    for (const u of vh.users) {
      const cell = (c) => el("td", { class: c.ok ? "" : "bad" }, (c.count === null ? "?" : String(c.count)) + (c.ok ? "" : " (built by " + c.embedder + ")"));
      tbody.appendChild(el("tr", { dataset: { user: u.user_id } }, el("td", { class: "user-id" }, u.user_id), cell(u.memories), cell(u.messages),
        el("td", {}, u.ok ? "ok" : "reindex needed")));
    }
    return el("table", { class: "events" },
      el("thead", {}, el("tr", {}, el("th", {}, "user"), el("th", {}, "memories"), el("th", {}, "turns"), el("th", {}, "state"))), tbody);
  }

  async function loadMaintenance() {
    const box = clear($("vectors"));
    try {
      const vh = await api("GET", "v1/vectors/health");
      box.appendChild(el("p", { class: vh.ok ? "meta" : "bad" }, (vh.ok ? "All collections match the embedder " : "Some collections were built by another embedder than ") + vh.embedder + "."));
      box.appendChild(vectorTable(vh));
      $("reindex").disabled = false;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 403) throw err;
      box.appendChild(el("p", { class: "meta" }, "Only an admin key sees vector health and reindexes."));
      $("reindex").disabled = true;
    }
    await loadSetAside();
  }

  function setAsideTable(rows) {
    const tbody = el("tbody");
    for (const r of rows) {
      tbody.appendChild(el("tr", {}, el("td", { class: "user-id" }, String(r.user || "?")), el("td", {}, String(r.client || "")),
        el("td", {}, String(r.turns)), el("td", {}, r.said || ""), el("td", { class: "bad" }, r.error || ""), el("td", { class: "when" }, r.at ? when(r.at) : "")));
    }
    return el("table", { class: "events" }, el("thead", {}, el("tr", {}, el("th", {}, "user"), el("th", {}, "client"), el("th", {}, "turns"),
      el("th", {}, "said"), el("th", {}, "why"), el("th", {}, "when"))), tbody);
  }

  async function loadSetAside() {
    const box = clear($("set-aside"));
    let data;
    try {
      data = await api("GET", "v1/capture/set-aside");
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 403) throw err;
      box.appendChild(el("p", { class: "meta" }, "Only an admin key sees the turns set aside."));
      return;
    }
    const parts = [["journal", "The proxy's journal"], ["queue", "The shared capture queue"]].filter(([k]) => data[k]);
    if (!parts.length) box.appendChild(el("p", { class: "meta" }, "No capture journal or shared queue on this host: nothing is set aside here."));
    for (const [k, title] of parts) {
      const part = data[k];
      if (part.error) {
        box.appendChild(el("p", { class: "bad" }, title + " cannot be read: " + part.error));
        continue;
      }
      const waiting = part.waiting ? "; " + part.waiting + " waiting to be stored" : "";
      box.appendChild(el("p", { class: part.count ? "bad" : "meta", dataset: { part: k } },
        title + ": " + (part.count ? part.count + " set aside" : "nothing set aside") + waiting + "."));
      if (part.count) box.appendChild(setAsideTable(part.set_aside));
      if (part.count && k === "queue") {
        box.appendChild(el("div", { class: "actions" }, el("button", { type: "button", class: "primary", onclick: () => attempt(async () => {
          const r = await api("POST", "v1/capture/replay");
          notice(r.replayed + " set-aside entries put back on the queue.");
          await loadSetAside();
        }) }, "Put them back on the queue")));
      }
    }
  }

  function onReindex() {
    const btn = $("reindex"), status = $("reindex-status");
    const who = state.user ? "user " + state.user : "every user";
    clear(status);
    status.appendChild(el("span", { class: "confirm" }, "Re-embed " + who + "? Recall is slower until it ends. "));
    status.appendChild(el("button", { type: "button", class: "primary", onclick: () => attempt(async () => {
      btn.disabled = true;
      const started = Date.now();
      // every user is reindexed one at a time, so the page can say how far it has got
      const users = state.user ? [state.user] : (await api("GET", "v1/vectors/health")).users.map((u) => u.user_id);
      let current = "", n = 0;
      const show = () => { status.textContent = "reindexing " + (users.length > 1 ? "user " + (n + 1) + " of " + users.length + " (" + current + ")" : who) + "… " + Math.round((Date.now() - started) / 1000) + " s"; };
      const tick = setInterval(show, 500);
      const done = [];
      try {
        for (; n < users.length; n++) {
          current = users[n];
          show();
          const r = await api("POST", "v1/reindex", { user: current });
          done.push(...Object.entries(r.users || {}).map(([u, c]) => u + ": " + JSON.stringify(c)));
        }
        status.textContent = "Reindexed " + users.length + (users.length === 1 ? " user" : " users") + " in " + Math.round((Date.now() - started) / 1000) + " s. " + done.join("; ");
      } finally {
        clearInterval(tick);
        btn.disabled = false;
      }
      await loadMaintenance();
    }) }, "Yes, reindex"));
  }

  function authHeaders(extra) {
    const h = Object.assign({}, extra);
    if (state.key) h.Authorization = "Bearer " + state.key;
    if (state.user) h["X-Amber-User"] = state.user;
    return h;
  }

  async function onExport() {
    const res = await fetch("v1/export", { headers: authHeaders({}), credentials: "omit", cache: "no-store" });
    if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => ({})));
    const blob = await res.blob();
    const a = el("a", { href: URL.createObjectURL(blob), download: "amber-export-" + new Date().toISOString().slice(0, 10) + ".jsonl" });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    $("transfer-status").textContent = "Export downloaded (" + blob.size.toLocaleString() + " bytes).";
  }

  async function onImport() {
    const file = $("import-file").files[0];
    if (!file) return;
    $("transfer-status").textContent = "importing " + file.name + "…";
    const res = await fetch("v1/import", { method: "POST", body: await file.text(), credentials: "omit", cache: "no-store",
      headers: authHeaders({ "Content-Type": "application/x-ndjson", Accept: "application/json" }) });
    const body = await res.json().catch(() => ({}));
    $("import-file").value = "";
    if (!res.ok) {
      $("transfer-status").textContent = "Nothing was imported.";
      showError(new ApiError(res.status, body));
      return;
    }
    $("transfer-status").textContent = "Imported " + body.memories + " memories, " + body.messages + " turns and " + body.events + " audit events from " + file.name + ".";
    notice("Import done.");
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("reindex").addEventListener("click", onReindex);
    $("export").addEventListener("click", () => attempt(onExport));
    $("import-file").addEventListener("change", () => attempt(onImport));
  });
  views.precious = loadPrecious;
  views.maintenance = loadMaintenance;
})();
