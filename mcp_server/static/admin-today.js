// Amber admin page: Today — what was said today (by client), the digest and yesterday's log,
// memories by kind, and what the last jobs did. Read-only; text nodes only, like every view.
"use strict";

(function () {
  const { $, el, clear, when, api, badge, views } = window.Amber;

  function startOfToday() {
    const d = new Date();
    d.setHours(0, 0, 0, 0);
    return d;
  }

  // turns grouped by the client that captured them (Chatbox, Claude Code, ...), busiest first
  function byClient(messages) {
    const groups = new Map();
    for (const m of messages) {
      const name = m.client || "unknown client";
      const g = groups.get(name) || { name, turns: 0, sessions: new Set(), last: null };
      g.turns += 1;
      if (m.session) g.sessions.add(m.session);
      if (!g.last || m.created_at > g.last.created_at) g.last = m;
      groups.set(name, g);
    }
    return [...groups.values()].sort((a, b) => b.turns - a.turns);
  }

  function runLine(r) {
    const did = Object.entries(r.facts && Object.keys(r.facts).length ? r.facts : r.counts || {})
      .filter(([, n]) => n).map(([k, n]) => k + " " + n).join(", ");
    return el("li", { class: "row-item" },
      el("div", { class: "content" }, badge(r.job, "kind"), " ", badge(r.status, "status-" + r.status), " ", did || "nothing to do"),
      el("div", { class: "meta" }, el("span", { class: "when" }, when(r.started_at)),
        r.llm_calls ? el("span", {}, r.llm_calls + " LLM call(s)") : null,
        r.errors && r.errors.length ? el("span", { class: "bad" }, r.errors.length + " error(s)") : null));
  }

  async function loadJobsSummary(list) {
    try {
      const data = await api("GET", "v1/jobs/runs?limit=6");
      if (!data.runs.length) list.appendChild(el("li", { class: "empty" }, "No job has run yet."));
      for (const r of data.runs) list.appendChild(runLine(r));
    } catch (err) {
      // runs cover every user: only an admin key (or local mode) sees them
      list.appendChild(el("li", { class: "empty" }, err.status === 403 ? "Only an admin key sees the jobs." : "The jobs could not be read."));
    }
  }

  async function loadToday() {
    const since = startOfToday().toISOString();
    const [boot, msgs] = await Promise.all([api("GET", "v1/boot"), api("GET", "v1/messages?since=" + encodeURIComponent(since))]);
    $("today-date").textContent = boot.date;

    const clients = clear($("today-clients"));
    const groups = byClient(msgs.messages || []);
    if (!groups.length) clients.appendChild(el("li", { class: "empty" }, "No conversation captured today."));
    for (const g of groups) {
      clients.appendChild(el("li", { class: "row-item", dataset: { client: g.name } },
        el("div", { class: "content" }, el("strong", {}, g.name), " — " + g.turns + " turn(s)" +
          (g.sessions.size ? " in " + g.sessions.size + " conversation(s)" : "")),
        el("div", { class: "meta" }, el("span", {}, "last: "), el("span", { class: "snippet" }, g.last.content.slice(0, 160)),
          el("span", { class: "when" }, when(g.last.created_at)))));
    }

    const counts = clear($("today-counts"));
    const entries = Object.entries(boot.counts || {});
    if (!entries.length) counts.appendChild(el("li", { class: "empty" }, "No memories yet."));
    for (const [kind, n] of entries) counts.appendChild(el("li", { dataset: { kind } }, el("span", { class: "n" }, String(n)), " " + kind));

    $("today-digest").textContent = boot.digest ? boot.digest.content : "No digest yet: the nightly consolidation writes one.";
    const log = boot.daily_log;
    $("today-log").textContent = log ? log.content : "No log yet.";
    $("today-log-date").textContent = log ? when(log.valid_from || log.created_at) : "";

    await loadJobsSummary(clear($("today-jobs")));
  }

  views.today = loadToday;
})();
