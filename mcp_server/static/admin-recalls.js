// Amber admin page: Recent recalls — for each chat request that named itself (a proxy request in
// mode on, an ordinary Open WebUI chat, a Claude Code prompt), what recall injected and why: each
// item's handle, words, score, evidence and the arms that found it, or that recall abstained; and the
// best few items weighed and kept out, with the relevance floor's reason.
// Forget erases what a memory states; Correct replaces it (a keyed fact keeps its key). Text nodes only.
"use strict";

(function () {
  const { $, el, clear, when, api, badge, views, attempt, notice } = window.Amber;

  // the relevance floor's verdicts (core/recall/relevance.py VERDICTS), as a person reads them
  const VERDICT = {
    close: "close in meaning",
    distinct: "closer to this prompt than to prompts about nobody",
    words: "shares the prompt's rare words",
    pinned: "pinned",
    no_floor: "no relevance floor",
    near_everything: "as close to prompts about nobody",
    below_floor: "not close enough",
    small_talk: "the prompt is not about you (small talk, a joke, text to work on)",
  };

  function why(it) {
    const parts = ["score " + Number(it.score).toFixed(4)];
    if (it.dense) parts.push("meaning " + Number(it.dense).toFixed(2));
    if (it.background !== null && it.background !== undefined) parts.push("background " + Number(it.background).toFixed(2));
    if (it.lexical) parts.push("words " + Number(it.lexical).toFixed(2));
    if (it.arms && it.arms.length) parts.push("found by " + it.arms.join(", "));
    if (it.verdict) parts.push(VERDICT[it.verdict] || it.verdict);
    return parts.join(" · ");
  }

  async function correct(it, text) {
    const mem = await api("GET", "v1/memories/" + encodeURIComponent(it.id));
    const body = { content: text, kind: mem.kind === "precious" ? "fact" : mem.kind, namespace: mem.namespace, tags: mem.tags };
    if (mem.fact_key) body.fact_key = mem.fact_key;
    await api("POST", "v1/memories/" + encodeURIComponent(it.id) + "/supersede", body);
  }

  function actions(it) {
    const input = el("input", { type: "text", class: "correct-input", placeholder: "The right fact", "aria-label": "Correct " + it.handle });
    const fix = el("button", { type: "button", dataset: { action: "correct" } }, "Correct");
    const drop = el("button", { type: "button", class: "danger", dataset: { action: "forget" } }, "Forget");
    fix.addEventListener("click", () => attempt(async () => {
      const text = input.value.trim();
      if (!text) { notice("Type the right fact first."); return; }
      await correct(it, text);
      notice("Replaced " + it.handle + ": it will not be recalled again.");
      await loadRecalls();
    }));
    drop.addEventListener("click", () => attempt(async () => {
      await api("POST", "v1/forget", { what: it.text });
      notice("Forgot " + it.handle + ".");
      await loadRecalls();
    }));
    return el("div", { class: "actions" }, input, fix, drop);
  }

  function itemRow(it) {
    const live = it.source === "memory" && !it.gone && !it.status;
    return el("li", { class: "row-item", dataset: { id: it.id, handle: it.handle } },
      el("div", { class: "content" }, el("strong", {}, it.handle), " ", badge(it.kind, "kind"), " ",
        it.gone ? el("em", {}, "forgotten since") : (it.text || ""),
        it.status ? " " : null, it.status ? badge(it.status, "status-" + it.status) : null),
      el("div", { class: "meta" }, el("span", { class: "when" }, when(it.created_at)),
        it.client ? el("span", {}, "via " + it.client) : null, el("span", {}, why(it))),
      live ? actions(it) : null);
  }

  async function loadRecalls() {
    const data = await api("GET", "v1/why?last=20");
    const list = clear($("recalls-list"));
    if (!data.requests.length) {
      list.appendChild(el("li", { class: "empty" }, "No recall kept in the last day: chats in mode on keep one per request, private and read-only chats none."));
    }
    for (const r of data.requests) {
      const items = el("ul", { class: "list" });
      for (const it of r.items) items.appendChild(itemRow(it));
      if (!r.items.length) items.appendChild(el("li", { class: "empty" }, r.abstained ? "Nothing was relevant enough: recall abstained." : "Nothing injected."));
      let out = null;
      if (r.left_out && r.left_out.length) {
        out = el("ul", { class: "list left-out" });
        for (const it of r.left_out) out.appendChild(itemRow(it));
        out = el("details", { class: "left-out" }, el("summary", {}, "Weighed and left out (" + r.left_out.length + ")"), out);
      }
      list.appendChild(el("li", { class: "card recall", dataset: { request: r.request } },
        el("div", { class: "meta" }, el("span", { class: "when" }, when(r.at)), el("span", {}, r.request),
          el("span", {}, r.considered + " weighed · " + r.items.length + " injected · " + r.tokens + " tokens"),
          r.abstained ? badge("abstained", "status-candidate") : null),
        items, out));
    }
  }

  views.recalls = loadRecalls;
})();
