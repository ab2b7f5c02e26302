// Amber admin page. Vanilla JS, no build step, no third-party code.
//
// Memories are user data: everything from the API is put on the page with text nodes
// (textContent / createTextNode), never parsed as HTML. All URLs are relative to the page, so the
// page works wherever the memory server is mounted (/admin, /memory/admin, ...).
"use strict";

(function () {
  const KINDS = ["fact", "event", "precious", "glossary", "digest", "daily_log", "instruction"];
  const CATEGORIES = ["profile", "preference", "personality", "goal", "skill", "relationship",
    "emotional_pattern", "conversation_style", "project", "world"];
  const STATUSES = ["active", "candidate", "superseded", "archived", "expired", "deleted", "any"];
  const PAGE_SIZE = 25;

  const { state, $, el, clear, when, api, enc, showError, notice, attempt, badge, views } = window.Amber;

  // ---- health and login --------------------------------------------------------------------

  async function loadHealth() {
    try {
      const res = await fetch("health", { cache: "no-store", credentials: "omit" });
      const h = await res.json();
      state.localMode = h.auth === "local";
      const parts = [
        h.ok ? "memory server ok" : "memory server degraded",
        "store " + (h.store && h.store.ok === false ? "down" : "ok"),
        "embedder " + (h.embedder && h.embedder.ok === false ? "down" : (h.embedder && h.embedder.id) || "ok"),
        h.auth === "local" ? "local mode (no keys)" : "API keys",
        "v" + (h.version || "?"),
      ];
      $("health").textContent = parts.join(" · ");
      $("health").classList.toggle("bad", !h.ok);
    } catch (_) {
      $("health").textContent = "the memory server did not answer /health";
      $("health").classList.add("bad");
    }
  }

  async function connect() {
    // one cheap read proves the key (and the user it may act for) before the page opens, and says
    // whose memory the page shows: the user the key acts for, or the one an admin key acts for
    const me = await api("GET", "v1/whoami");
    // proven: kept for this tab before anything else loads, so a reload meanwhile stays signed in
    sessionStorage.setItem("amber.key", state.key);
    sessionStorage.setItem("amber.user", state.user);
    $("login").hidden = true;
    $("app").hidden = false;
    $("error").hidden = true;
    const how = me.key === "local" && !state.key ? "local mode" : (me.admin ? "admin key \u201c" : "key \u201c") + me.key + "\u201d";
    clear($("who")).append("Memory of ", el("strong", { "data-testid": "who-user" }, me.user), " \u00b7 " + how);
    await Promise.all([loadNamespaces(), loadMemories(true), refreshReviewCount()]);
  }

  function logout() {
    sessionStorage.removeItem("amber.key");
    sessionStorage.removeItem("amber.user");
    state.key = "";
    state.user = "";
    state.selected = null;
    $("app").hidden = true;
    $("login").hidden = false;
    $("key").value = "";
    $("as-user").value = "";
    clear($("memory-list"));
    $("detail").hidden = true;
  }

  async function onLogin(ev) {
    ev.preventDefault();
    state.key = $("key").value.trim();
    state.user = $("as-user").value.trim();
    if (!state.key && !state.localMode) {
      showError("Paste an API key first: this memory server has keys configured.");
      return;
    }
    try {
      await connect();
    } catch (err) {
      sessionStorage.removeItem("amber.key");
      sessionStorage.removeItem("amber.user");
      state.key = "";
      state.user = "";
      showError(err);
    }
  }

  // ---- views -------------------------------------------------------------------------------

  function showView(name) {
    for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === name);
    for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== "view-" + name;
    const load = { memories: () => loadMemories(false), review: loadCandidates, digest: loadDigest, glossary: loadGlossary }[name] || views[name];
    if (load) attempt(load);
    if (name === "search") $("search-q").focus();
  }

  // ---- memories list -----------------------------------------------------------------------

  function fillSelect(select, values, selected) {
    for (const v of values) select.appendChild(el("option", { value: v, selected: v === selected }, v));
  }

  async function loadNamespaces() {
    const data = await api("GET", "v1/namespaces");
    const select = clear($("f-namespace"));
    select.appendChild(el("option", { value: "" }, "all"));
    for (const [ns, n] of Object.entries(data.namespaces || {})) select.appendChild(el("option", { value: ns }, ns + " (" + n + ")"));
  }

  function filterQuery(cursor) {
    const q = new URLSearchParams();
    const pairs = { namespace: $("f-namespace").value, kind: $("f-kind").value, category: $("f-category").value,
      status: $("f-status").value, text: $("f-text").value.trim() };
    for (const [k, v] of Object.entries(pairs)) if (v) q.set(k, v);
    q.set("limit", String(PAGE_SIZE));
    if (cursor) q.set("cursor", cursor);
    return q.toString();
  }

  function memoryRow(m) {
    const li = el("li", { class: "row-item" + (state.selected === m.id ? " selected" : ""), dataset: { id: m.id }, tabindex: "0" },
      el("div", { class: "content" }, m.content),
      el("div", { class: "meta" },
        badge(m.kind, "kind"),
        m.category ? badge(m.category) : null,
        badge(m.namespace, "ns"),
        m.status !== "active" ? badge(m.status, "status-" + m.status) : null,
        m.pinned ? badge("pinned", "pin") : null,
        m.fact_key ? el("code", {}, m.fact_key) : null,
        el("span", { class: "when" }, when(m.updated_at))));
    const open = () => attempt(() => openDetail(m.id));
    li.addEventListener("click", open);
    li.addEventListener("keydown", (e) => { if (e.key === "Enter") open(); });
    return li;
  }

  let listAsked = 0;
  async function loadMemories(reset) {
    if (reset) state.cursors = [null];
    const cursor = state.cursors[state.cursors.length - 1];
    const mine = ++listAsked;
    const page = await api("GET", "v1/memories?" + filterQuery(cursor));
    if (mine !== listAsked) return;  // filters changed while this was asked (or a write reloaded): the newer answer wins
    const list = clear($("memory-list"));
    if (!page.items.length) list.appendChild(el("li", { class: "empty" }, "No memories match these filters."));
    for (const m of page.items) list.appendChild(memoryRow(m));
    state.nextCursor = page.next_cursor || null;
    $("next-page").disabled = !state.nextCursor;
    $("prev-page").disabled = state.cursors.length <= 1;
    $("page-info").textContent = "page " + state.cursors.length + " · " + page.items.length + " shown";
    window.Amber.trashBar();  // "Purge now" while the list shows the trash
  }

  // ---- one memory: detail, edit, lifecycle, audit trail, supersede chain --------------------

  async function supersedeChain(m) {
    // walk both ways from this version; stop on a loop or after a sane number of steps
    const older = [], newer = [], seen = new Set([m.id]);
    let cur = m;
    while (cur.supersedes && !seen.has(cur.supersedes) && older.length < 20) {
      seen.add(cur.supersedes);
      try { cur = await api("GET", "v1/memories/" + enc(cur.supersedes)); } catch (_) { break; }
      older.push(cur);
    }
    cur = m;
    while (cur.superseded_by && !seen.has(cur.superseded_by) && newer.length < 20) {
      seen.add(cur.superseded_by);
      try { cur = await api("GET", "v1/memories/" + enc(cur.superseded_by)); } catch (_) { break; }
      newer.push(cur);
    }
    return [...newer.reverse(), m, ...older];  // newest first
  }

  function field(label, value) {
    return [el("dt", {}, label), el("dd", {}, value === null || value === undefined || value === "" ? "—" : String(value))];
  }

  async function openDetail(id) {
    const [m, events] = await Promise.all([
      api("GET", "v1/memories/" + enc(id)),
      api("GET", "v1/events?memory_id=" + enc(id) + "&limit=100"),
    ]);
    const [chain, holder] = await Promise.all([supersedeChain(m), window.Amber.keyHolder(m)]);
    state.selected = m.id;
    for (const li of document.querySelectorAll("#memory-list .row-item")) li.classList.toggle("selected", li.dataset.id === m.id);
    renderDetail(m, events.events || [], chain, holder);
    // on narrow screens the detail sits below the list: bring it into view
    if (window.matchMedia("(max-width: 999px)").matches) $("detail").scrollIntoView({ block: "start" });
  }

  function renderDetail(m, events, chain, holder) {
    const box = clear($("detail"));
    box.hidden = false;
    box.appendChild(el("div", { class: "detail-head" },
      el("h2", {}, "Memory"),
      el("button", { type: "button", class: "link", onclick: () => { box.hidden = true; state.selected = null; } }, "close")));
    box.appendChild(el("p", { class: "content big", "data-testid": "detail-content" }, m.content));

    const actions = el("div", { class: "actions" });
    const writable = !["deleted", "superseded"].includes(m.status) && m.kind !== "precious";
    actions.appendChild(el("button", { type: "button", disabled: !writable, onclick: () => renderEdit(m) }, "Edit"));
    actions.appendChild(el("button", { type: "button", disabled: m.status === "deleted",
      onclick: () => attempt(async () => {
        await api("POST", "v1/memories/" + enc(m.id) + (m.pinned ? "/unpin" : "/pin"));
        notice(m.pinned ? "Unpinned." : "Pinned: chats will always see it.");
        await Promise.all([openDetail(m.id), loadMemories(false)]);
      }) }, m.pinned ? "Unpin" : "Pin"));
    actions.appendChild(el("button", { type: "button", disabled: m.status !== "active" || m.kind === "precious",
      onclick: () => attempt(async () => {
        await api("POST", "v1/memories/" + enc(m.id) + "/archive");
        notice("Archived: kept, but no longer recalled.");
        await Promise.all([openDetail(m.id), loadMemories(false)]);
      }) }, "Archive"));
    // restore, delete, purge, forget (admin-forget.js); a confirm asks inside the page, next to
    // what it removes, and its Cancel draws this detail again
    const forgetSlot = window.Amber.lifecycleButtons(m, actions, holder, () => renderDetail(m, events, chain, holder));
    box.appendChild(actions);
    box.appendChild(forgetSlot);
    box.appendChild(el("div", { id: "edit-slot" }));

    box.appendChild(el("dl", { class: "fields" },
      field("id", m.id), field("status", m.status), field("kind", m.kind), field("category", m.category),
      field("namespace", m.namespace), field("fact key", m.fact_key), field("tags", (m.tags || []).join(", ")),
      field("importance", m.importance), field("confidence", m.confidence), field("pinned", m.pinned ? "yes" : "no"),
      field("source client", m.source_client), field("created", when(m.created_at)), field("updated", when(m.updated_at)),
      field("seen", m.seen_count + " time(s), last " + when(m.last_seen_at)), field("recalled", m.hit_count + " time(s)"),
      field("expires", when(m.expire_at))));

    if (chain.length > 1) {
      box.appendChild(el("h3", {}, "Versions (newest first)"));
      const ol = el("ol", { class: "chain", "data-testid": "chain" });
      for (const v of chain) {
        ol.appendChild(el("li", { class: v.id === m.id ? "current" : "" },
          el("button", { type: "button", class: "link", onclick: () => attempt(() => openDetail(v.id)) }, v.content),
          " ", badge(v.status, "status-" + v.status), " ", el("span", { class: "when" }, when(v.created_at))));
      }
      box.appendChild(ol);
    }

    box.appendChild(el("h3", {}, "Audit trail"));
    if (!events.length) box.appendChild(el("p", { class: "meta" }, "No events recorded."));
    else {
      const tbody = el("tbody");
      for (const e of events) {
        const detail = e.detail && Object.keys(e.detail).length ? JSON.stringify(e.detail) : "";
        tbody.appendChild(el("tr", {}, el("td", {}, when(e.at)), el("td", { class: "action" }, e.action),
          el("td", {}, e.actor + (e.client ? " via " + e.client : "")), el("td", { class: "mono" }, detail)));
      }
      box.appendChild(el("table", { class: "events", "data-testid": "events" },
        el("thead", {}, el("tr", {}, el("th", {}, "when"), el("th", {}, "what"), el("th", {}, "who"), el("th", {}, "detail"))), tbody));
    }
  }

  function renderEdit(m) {
    const slot = clear($("edit-slot"));
    const content = el("textarea", { id: "e-content", rows: "4", maxlength: "8000" });
    content.value = m.content;
    const category = el("select", { id: "e-category" }, el("option", { value: "" }, "none"));
    fillSelect(category, CATEGORIES, m.category || "");
    const tags = el("input", { id: "e-tags", placeholder: "comma separated" });
    tags.value = (m.tags || []).join(", ");
    const importance = el("input", { id: "e-importance", type: "number", min: "0", max: "1", step: "0.05" });
    importance.value = String(m.importance);
    const confidence = el("input", { id: "e-confidence", type: "number", min: "0", max: "1", step: "0.05" });
    confidence.value = String(m.confidence);
    const form = el("form", { class: "edit", autocomplete: "off" },
      el("label", { class: "wide" }, "Content", content),
      el("label", {}, "Category", category),
      el("label", {}, "Tags", tags),
      el("label", {}, "Importance", importance),
      el("label", {}, "Confidence", confidence),
      el("div", { class: "row" }, el("button", { type: "submit", class: "primary" }, "Save"),
        el("button", { type: "button", onclick: () => clear(slot) }, "Cancel")));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      attempt(async () => {
        const patch = {};
        if (content.value !== m.content) patch.content = content.value;
        if ((category.value || null) !== (m.category || null)) patch.category = category.value || null;
        const newTags = tags.value.split(",").map((t) => t.trim()).filter(Boolean);
        if (newTags.join("\u0000") !== (m.tags || []).join("\u0000")) patch.tags = newTags;
        // numbers go as typed: the server names the field if one is out of range
        if (importance.value !== String(m.importance)) patch.importance = importance.value === "" ? null : Number(importance.value);
        if (confidence.value !== String(m.confidence)) patch.confidence = confidence.value === "" ? null : Number(confidence.value);
        if (!Object.keys(patch).length) { notice("Nothing changed."); clear(slot); return; }
        const saved = await api("PATCH", "v1/memories/" + enc(m.id), patch);
        notice(saved.id === m.id ? "Saved." : "Saved as a new version; the old one is kept in the chain.");
        await Promise.all([openDetail(saved.id), loadMemories(false)]);
      });
    });
    slot.appendChild(form);
    content.focus();
  }

  // ---- review queue ------------------------------------------------------------------------

  async function refreshReviewCount() {
    const data = await api("GET", "v1/candidates");
    $("review-count").textContent = data.candidates.length ? String(data.candidates.length) : "";
    return data.candidates;
  }

  async function loadCandidates() {
    const candidates = await refreshReviewCount();
    const list = clear($("candidate-list"));
    if (!candidates.length) list.appendChild(el("li", { class: "empty" }, "Nothing waits for review."));
    for (const c of candidates) list.appendChild(candidateCard(c));
  }

  async function decide(c, action, targetId) {
    const r = await api("POST", "v1/candidates/" + enc(c.id) + "/" + action, targetId ? { target_id: targetId } : undefined);
    notice({ approve: "Approved", discard: "Discarded", merge: "Merged", supersede: "Superseded" }[action] + ": " + r.memory.content.slice(0, 80));
    await loadCandidates();
  }

  function candidateCard(c) {
    const picker = el("div", { class: "picker" });
    const li = el("li", { class: "card", dataset: { id: c.id } },
      el("div", { class: "content" }, c.content),
      el("div", { class: "meta" },
        c.category ? badge(c.category) : null, badge(c.namespace, "ns"),
        c.fact_key ? el("code", {}, c.fact_key) : null,
        el("span", {}, "confidence " + Number(c.confidence).toFixed(2)),
        el("span", { class: "when" }, when(c.created_at))),
      el("div", { class: "actions" },
        el("button", { type: "button", class: "primary", onclick: () => attempt(() => decide(c, "approve")) }, "Approve"),
        el("button", { type: "button", onclick: () => attempt(() => decide(c, "discard")) }, "Discard"),
        el("button", { type: "button", onclick: () => attempt(() => openPicker(c, "merge", picker)) }, "Merge into…"),
        el("button", { type: "button", onclick: () => attempt(() => openPicker(c, "supersede", picker)) }, "Supersede…")),
      picker);
    return li;
  }

  async function openPicker(c, action, slot) {
    clear(slot);
    const filter = el("input", { type: "search", placeholder: "filter active memories", maxlength: "500" });
    const select = el("select", { class: "target", size: "6" });
    let asked = 0;
    async function fill() {
      const q = new URLSearchParams({ status: "active", limit: "100" });
      if (filter.value.trim()) q.set("text", filter.value.trim());
      const mine = ++asked;
      const page = await api("GET", "v1/memories?" + q.toString());
      if (mine !== asked) return;  // a newer filter was typed meanwhile: its answer wins
      clear(select);
      for (const m of page.items) if (m.id !== c.id) select.appendChild(el("option", { value: m.id }, m.content.slice(0, 140)));
      if (select.options.length) select.selectedIndex = 0;
    }
    filter.addEventListener("input", () => attempt(fill));
    const go = el("button", { type: "button", class: "primary", onclick: () => attempt(async () => {
      if (!select.value) { showError("Pick the active memory to " + action + " " + (action === "merge" ? "into" : "") + " first."); return; }
      await decide(c, action, select.value);
    }) }, action === "merge" ? "Merge into the selected memory" : "Replace the selected memory");
    slot.appendChild(el("div", { class: "picker-box" },
      el("p", { class: "meta" }, action === "merge" ? "Merge this candidate into:" : "This candidate replaces:"),
      filter, select, el("div", { class: "row" }, go, el("button", { type: "button", onclick: () => clear(slot) }, "Cancel"))));
    await fill();
  }

  // ---- search ------------------------------------------------------------------------------

  async function onSearch(ev) {
    ev.preventDefault();
    const query = $("search-q").value.trim();
    if (!query) { showError("Type something to search for."); return; }
    const data = await api("POST", "v1/search", { query });
    const list = clear($("search-results"));
    if (!data.hits.length) list.appendChild(el("li", { class: "empty" }, "Nothing found."));
    for (const h of data.hits) {
      const li = el("li", { class: "row-item" + (h.source === "memory" ? "" : " message") },
        el("div", { class: "content" }, h.text),
        el("div", { class: "meta" },
          el("span", { class: "score", title: "fused hybrid score" }, h.score.toFixed(4)),
          badge(h.source === "memory" ? h.kind : "conversation turn", "kind"),
          el("span", { class: "when" }, when(h.created_at))));
      if (h.source === "memory") {
        li.tabIndex = 0;
        li.addEventListener("click", () => attempt(async () => { showView("memories"); await openDetail(h.id); }));
      }
      list.appendChild(li);
    }
  }

  // ---- digest and glossary -----------------------------------------------------------------

  async function loadDigest() {
    const data = await api("GET", "v1/digest");
    const d = data.digest;
    $("digest-text").value = d ? d.content : "";
    $("digest-meta").textContent = d ? "Last written " + when(d.updated_at) : "No digest yet.";
    countDigest();
  }

  function countDigest() {
    $("digest-count").textContent = $("digest-text").value.length + " / 500";
  }

  async function onDigest(ev) {
    ev.preventDefault();
    await api("PUT", "v1/digest", { text: $("digest-text").value });
    notice("Digest saved.");
    await loadDigest();
  }

  async function loadGlossary() {
    const data = await api("GET", "v1/glossary");
    const list = clear($("glossary-list"));
    if (!data.entries.length) list.appendChild(el("li", { class: "empty" }, "No terms yet."));
    for (const g of data.entries) {
      const term = g.title || g.content;
      // stored as "term: definition" (that is what recall embeds and shows); show the term once
      const definition = g.content.startsWith(term + ": ") ? g.content.slice(term.length + 2) : g.content;
      list.appendChild(el("li", { class: "row-item" },
        el("div", { class: "content" }, el("strong", {}, term), " — ", definition),
        el("div", { class: "meta" },
          (g.aliases || []).length ? el("span", {}, "also: " + g.aliases.join(", ")) : null,
          el("span", { class: "when" }, when(g.updated_at)),
          el("button", { type: "button", class: "link danger", onclick: () => attempt(async () => {
            await api("DELETE", "v1/glossary/" + enc(term));
            notice("Removed \u201c" + term + "\u201d.");
            await loadGlossary();
          }) }, "remove"))));
    }
  }

  async function onGlossary(ev) {
    ev.preventDefault();
    const aliases = $("g-aliases").value.split(",").map((a) => a.trim()).filter(Boolean);
    await api("POST", "v1/glossary", { term: $("g-term").value.trim(), definition: $("g-def").value.trim(), aliases });
    notice("Saved \u201c" + $("g-term").value.trim() + "\u201d.");
    $("g-term").value = $("g-def").value = $("g-aliases").value = "";
    await loadGlossary();
  }

  // ---- wiring ------------------------------------------------------------------------------

  function formHandler(fn) {
    return (ev) => { ev.preventDefault(); attempt(() => fn(ev)); };
  }

  async function start() {
    fillSelect($("f-kind"), KINDS);
    fillSelect($("f-category"), CATEGORIES);
    fillSelect($("f-status"), STATUSES, "active");
    $("login-form").addEventListener("submit", onLogin);
    $("logout").addEventListener("click", logout);
    $("filters").addEventListener("submit", formHandler(() => loadMemories(true)));
    $("next-page").addEventListener("click", () => attempt(async () => {
      state.cursors.push(state.nextCursor);
      await loadMemories(false);
    }));
    $("prev-page").addEventListener("click", () => attempt(async () => {
      if (state.cursors.length > 1) state.cursors.pop();
      await loadMemories(false);
    }));
    $("search-form").addEventListener("submit", formHandler(onSearch));
    $("digest-form").addEventListener("submit", formHandler(onDigest));
    $("digest-text").addEventListener("input", countDigest);
    $("glossary-form").addEventListener("submit", formHandler(onGlossary));
    for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));

    await loadHealth();
    if (state.localMode) $("login-hint").textContent = "This memory server runs in local mode: no key is needed from this machine. Press Connect.";
    if (state.key || state.localMode) {
      $("as-user").value = state.user;
      try { await connect(); } catch (err) { if (state.key) showError(err); }
    }
  }

  // for the views in other files: open a tab, open one memory
  Object.assign(window.Amber, { showView, openDetail, loadMemories, filterQuery });
  // after every file has registered its views and wiring (scripts are deferred, so in order)
  document.addEventListener("DOMContentLoaded", () => { attempt(start); });
})();
