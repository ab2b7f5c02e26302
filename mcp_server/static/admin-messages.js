// Amber admin page: Raw messages — browse, search and delete captured turns (one, or every turn
// shown). Turn text is user data: text nodes only.
"use strict";

(function () {
  const { $, el, clear, when, api, enc, badge, notice, attempt, views } = window.Amber;
  const SHOW_MAX = 500;
  let shown = [];

  function day(input, offsetDays) {
    // a date field read as the start of that day in this browser's zone
    if (!input.value) return null;
    const d = new Date(input.value + "T00:00:00");
    d.setDate(d.getDate() + offsetDays);
    return d.toISOString();
  }

  function query() {
    const q = new URLSearchParams();
    const since = day($("m-since"), 0), until = day($("m-until"), 1);  // "until" includes that day
    if (since) q.set("since", since);
    if (until) q.set("until", until);
    if ($("m-session").value.trim()) q.set("session", $("m-session").value.trim());
    if ($("m-text").value.trim()) q.set("text", $("m-text").value.trim());
    return q.toString();
  }

  function turnRow(m) {
    const actions = el("span", { class: "row-actions" });
    const del = el("button", { type: "button", class: "link danger" }, "delete");
    del.addEventListener("click", () => {
      clear(actions);
      actions.appendChild(el("span", { class: "confirm" }, "Delete this turn for good?"));
      actions.appendChild(el("button", { type: "button", class: "danger", onclick: () => attempt(async () => {
        await api("DELETE", "v1/messages/" + enc(m.id));
        notice("Deleted one turn.");
        await loadMessages();
      }) }, "Yes, delete"));
      actions.appendChild(el("button", { type: "button", onclick: () => { clear(actions); actions.appendChild(del); } }, "Cancel"));
    });
    actions.appendChild(del);
    return el("li", { class: "row-item turn role-" + m.role, dataset: { id: m.id } },
      el("div", { class: "content" }, m.content),
      el("div", { class: "meta" }, badge(m.role, "kind"), m.client ? badge(m.client, "ns") : null,
        m.session ? el("code", { title: "conversation" }, m.session) : null,
        el("span", { class: "when" }, when(m.created_at)), actions));
  }

  function renderBulk() {
    const box = clear($("messages-bulk"));
    if (!shown.length) return;
    const all = el("button", { type: "button", class: "danger" }, "Delete the " + shown.length + " turn(s) shown…");
    all.addEventListener("click", () => {
      clear(box);
      box.appendChild(el("span", { class: "confirm" }, "Delete these " + shown.length + " turns for good? Memories already made from them stay."));
      box.appendChild(el("button", { type: "button", class: "danger", onclick: () => attempt(async () => {
        const r = await api("POST", "v1/messages/delete", { ids: shown.map((m) => m.id) });
        notice("Deleted " + r.deleted + " turn(s).");
        await loadMessages();
      }) }, "Yes, delete them"));
      box.appendChild(el("button", { type: "button", onclick: renderBulk }, "Cancel"));
    });
    box.appendChild(all);
  }

  async function loadMessages() {
    if (!$("m-since").value && !$("m-until").value) {
      // a week by default: retention keeps about two, and a week reads at a glance
      const d = new Date();
      d.setDate(d.getDate() - 7);
      $("m-since").value = d.toISOString().slice(0, 10);
    }
    const data = await api("GET", "v1/messages?" + query());
    const all = data.messages || [];
    shown = all.slice(-SHOW_MAX).reverse();  // newest first
    const list = clear($("messages-list"));
    if (!shown.length) list.appendChild(el("li", { class: "empty" }, "No captured turns match."));
    if (all.length > shown.length) list.appendChild(el("li", { class: "meta" }, "Showing the newest " + SHOW_MAX + " of " + all.length + "; narrow the dates to see older ones."));
    for (const m of shown) list.appendChild(turnRow(m));
    renderBulk();
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("messages-form").addEventListener("submit", (ev) => { ev.preventDefault(); attempt(loadMessages); });
  });
  views.messages = loadMessages;
})();
