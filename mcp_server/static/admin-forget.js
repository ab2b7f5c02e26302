// Amber admin page: the two verbs that remove. *Delete* moves a memory to the trash, where it can be
// restored until the trash is purged (by retention, or "Purge now" here). *Forget* erases for good
// everything that says a thing — memories in every state and version, precious quotes, glossary
// terms, captured turns — after a preview of exactly what goes. This file holds the Forget view, the
// forget flow other views open (a memory's detail, a precious quote), the trash bar shown over the
// deleted list, and a memory's delete / restore / purge / forget buttons.
"use strict";

(function () {
  const { state, $, el, clear, api, enc, badge, notice, showError, attempt, views } = window.Amber;
  const PURGE_CHUNK = 500;  // ids per purge request (the API takes at most 1000)
  const plural = (n, one, many) => n + " " + (n === 1 ? one : many);

  // ---- forget: preview, then confirm ----------------------------------------------------------

  // Preview what forgetting `what` erases, in `slot`; confirming forgets and calls onDone(result).
  async function forgetInto(slot, what, opts) {
    const o = opts || {};
    // at most what the API takes: the start of a long memory still names it (its words match as a whole)
    const text = (what || "").trim().slice(0, 2000);
    if (!text) { showError("Type what to forget first."); return; }
    const plan = await api("POST", "v1/forget/preview", { what: text });
    clear(slot);
    const box = el("div", { class: "forget-plan", "data-testid": "forget-plan" });
    slot.appendChild(box);
    const cancel = el("button", { type: "button", onclick: () => { clear(slot); if (o.onCancel) o.onCancel(); } }, "Cancel");
    const nothing = !plan.memories.length && !plan.messages && !(plan.rewritten || []).length;
    if (nothing) {
      box.appendChild(el("p", { class: "meta", "data-testid": "forget-nothing" },
        "Amber holds nothing that says \u201c" + plan.what + "\u201d. Try the words it was said in."));
      box.appendChild(el("div", { class: "actions" }, cancel));
      return;
    }
    box.appendChild(el("p", {}, "Forgetting \u201c" + plan.what + "\u201d erases for good:"));
    const list = el("ul", { class: "list", "data-testid": "forget-memories" });
    for (const m of plan.memories) {
      list.appendChild(el("li", { class: "row-item message", dataset: { id: m.id } },
        el("div", { class: "content" }, m.content),
        el("div", { class: "meta" }, badge(m.kind, "kind"), m.status !== "active" ? badge(m.status, "status-" + m.status) : null,
          badge(m.namespace, "ns"))));
    }
    if (plan.memories.length) box.appendChild(list);
    const facts = [];
    if (plan.messages) facts.push(plural(plan.messages, "captured conversation turn that says it", "captured conversation turns that say it"));
    if ((plan.rewritten || []).length) facts.push("the digest or daily log is rewritten without the sentences that say it");
    for (const f of facts) box.appendChild(el("p", { class: "meta" }, f));
    box.appendChild(el("p", { class: "confirm" }, "Nothing forgotten can be restored, by anyone."));
    box.appendChild(el("div", { class: "actions" },
      el("button", { type: "button", class: "danger", onclick: () => attempt(async () => {
        const done = await api("POST", "v1/forget", { what: plan.what });
        clear(slot);
        notice("Forgotten: " + plural(done.memories.length, "memory", "memories") + " and " +
          plural(done.messages, "conversation turn", "conversation turns") + " erased for good.");
        const gone = new Set(done.memories.map((m) => m.id));
        if (state.selected && gone.has(state.selected)) { $("detail").hidden = true; state.selected = null; }
        if (o.onDone) await o.onDone(done);
      }) }, "Yes, forget for good"),
      cancel));
  }

  async function onForgetForm() {
    await forgetInto($("forget-slot"), $("forget-what").value, { onDone: async () => { $("forget-what").value = ""; } });
  }

  function loadForget() {
    clear($("forget-slot"));
    $("forget-what").focus();
  }

  // ---- the trash: purge now ------------------------------------------------------------------

  // every deleted memory the current filters select, across pages
  async function trashIds() {
    const ids = [];
    let cursor = null;
    do {
      const q = new URLSearchParams(window.Amber.filterQuery(cursor));
      q.set("status", "deleted");
      q.set("limit", "500");
      const page = await api("GET", "v1/memories?" + q.toString());
      ids.push(...page.items.map((m) => m.id));
      cursor = page.next_cursor || null;
    } while (cursor);
    return ids;
  }

  async function purge(ids) {
    let n = 0;
    for (let i = 0; i < ids.length; i += PURGE_CHUNK) n += (await api("POST", "v1/trash/purge", { ids: ids.slice(i, i + PURGE_CHUNK) })).count;
    return n;
  }

  // the bar over the memory list while it shows the trash (status "deleted")
  function trashBar() {
    const bar = clear($("trash-bar"));
    bar.hidden = $("f-status").value !== "deleted";
    if (bar.hidden) return;
    bar.appendChild(el("span", { class: "meta" },
      "The trash: deleted memories are never recalled, and can be restored until they are purged (by retention after some days, or now)."));
    bar.appendChild(el("button", { type: "button", class: "danger", onclick: () => attempt(async () => {
      const ids = await trashIds();
      if (!ids.length) { notice("The trash is empty: nothing to purge."); return; }
      clear(bar);
      bar.appendChild(el("span", { class: "confirm" },
        "Purge " + plural(ids.length, "deleted memory", "deleted memories") + " for good? They can no longer be restored."));
      bar.appendChild(el("button", { type: "button", class: "danger", onclick: () => attempt(async () => {
        const n = await purge(ids);
        notice("Purged " + plural(n, "memory", "memories") + " from the trash: gone for good.");
        $("detail").hidden = true;
        state.selected = null;
        await window.Amber.loadMemories(false);
      }) }, "Yes, purge " + ids.length));
      bar.appendChild(el("button", { type: "button", onclick: trashBar }, "Cancel"));
    }) }, "Purge now\u2026"));
  }

  function showTrash() {
    $("f-status").value = "deleted";
    window.Amber.showView("memories");
    return window.Amber.loadMemories(true);
  }

  // ---- a memory's lifecycle buttons (its detail) ---------------------------------------------

  // The active memory that now holds a deleted/archived/expired keyed memory's key: it cannot be
  // restored while one does (the server answers 409), so no Restore is offered then.
  async function keyHolder(m) {
    if (!m.fact_key || !["deleted", "archived", "expired"].includes(m.status)) return null;
    const q = new URLSearchParams({ status: "active", namespace: m.namespace, limit: "500" });
    if (m.category) q.set("category", m.category);
    const page = await api("GET", "v1/memories?" + q.toString());
    return page.items.find((x) => x.fact_key === m.fact_key && x.id !== m.id) || null;
  }

  // Restore, Delete (to the trash), Purge now (from the trash), Forget (erase): each shown only
  // where it can work. `again()` redraws the detail as it was (a confirm's Cancel).
  function lifecycleButtons(m, actions, holder, again) {
    const { openDetail, loadMemories } = window.Amber;
    const closeDetail = () => { $("detail").hidden = true; state.selected = null; };
    const confirmIn = (question, yes, act) => {
      clear(actions);
      actions.appendChild(el("span", { class: "confirm" }, question));
      actions.appendChild(el("button", { type: "button", class: "danger", onclick: () => attempt(act) }, yes));
      actions.appendChild(el("button", { type: "button", onclick: again }, "Cancel"));
    };
    if (["deleted", "archived", "expired"].includes(m.status)) {
      if (holder) {
        const other = el("button", { type: "button", class: "link", onclick: () => attempt(() => openDetail(holder.id)) }, holder.content);
        actions.appendChild(el("span", { class: "meta", "data-testid": "no-restore" },
          "Cannot be restored while ", other, " holds ", el("code", {}, m.fact_key), "."));
      } else {
        actions.appendChild(el("button", { type: "button", class: "primary",
          onclick: () => attempt(async () => {
            await api("POST", "v1/memories/" + enc(m.id) + "/restore");
            notice("Restored: recalled again.");
            await Promise.all([openDetail(m.id), loadMemories(false)]);
          }) }, "Restore"));
      }
    }
    if (m.status === "deleted") {
      actions.appendChild(el("button", { type: "button", class: "danger", onclick: () => confirmIn(
        "Purge this memory from the trash? It is removed for good and can no longer be restored.", "Yes, purge",
        async () => {
          const r = await api("POST", "v1/trash/purge", { ids: [m.id] });
          notice(r.count ? "Purged: removed for good." : "It was no longer in the trash.");
          closeDetail();
          await loadMemories(false);
        }) }, "Purge now\u2026"));
    } else if (m.kind !== "precious") {  // a precious quote is not deleted (409): it can be forgotten
      actions.appendChild(el("button", { type: "button", class: "danger", onclick: () => confirmIn(
        "Move this memory to the trash? It is no longer recalled, and can be restored until the trash is purged.", "Yes, delete",
        async () => {
          await api("DELETE", "v1/memories/" + enc(m.id));
          notice("Deleted: moved to the trash.");
          closeDetail();
          await loadMemories(false);
        }) }, "Delete\u2026"));
    }
    const slot = el("div", { class: "forget-slot" });
    actions.appendChild(el("button", { type: "button", class: "danger", onclick: () => attempt(() => forgetInto(slot, m.content, {
      onCancel: again,
      onDone: async () => { closeDetail(); await loadMemories(false); },
    })) }, "Forget\u2026"));
    return slot;  // the caller places it under the buttons
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("forget-form").addEventListener("submit", (ev) => { ev.preventDefault(); attempt(onForgetForm); });
    $("show-trash").addEventListener("click", () => attempt(showTrash));
  });
  views.forget = loadForget;
  Object.assign(window.Amber, { forgetInto, trashBar, lifecycleButtons, keyHolder });
})();
