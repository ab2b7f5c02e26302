// Amber admin page: Jobs — every run with its windows, LLM calls, tokens, cost and errors, and
// "run now" for each job (admin keys; the run goes on in the background under the job's lease).
"use strict";

(function () {
  const { $, el, clear, when, api, badge, notice, attempt, views } = window.Amber;
  const JOBS = ["extract", "consolidate", "retention"];
  let polling = null;

  function pairs(obj) {
    return Object.entries(obj || {}).filter(([, n]) => n).map(([k, n]) => k + " " + n).join(", ") || "—";
  }

  function runRow(r) {
    const errors = r.errors || [];
    const errCell = el("td", { class: errors.length ? "bad" : "" }, errors.length ? errors.length + "" : "—");
    if (errors.length) errCell.appendChild(el("details", {}, el("summary", {}, "show"), el("pre", { class: "mono" }, errors.join("\n"))));
    return el("tr", { dataset: { job: r.job, status: r.status } },
      el("td", {}, badge(r.job, "kind")),
      el("td", {}, when(r.started_at)),
      el("td", {}, badge(r.status, "status-" + r.status), r.reason ? el("div", { class: "meta" }, r.reason) : null),
      el("td", {}, r.finished_at ? r.duration_s.toFixed(1) + " s" : r.status === "running" ? "running…" : "—"),
      el("td", {}, String(r.users)),
      el("td", {}, pairs(r.windows)),
      el("td", {}, pairs(Object.keys(r.facts || {}).length ? r.facts : r.counts)),
      el("td", {}, String(r.llm_calls)),
      el("td", {}, (r.prompt_tokens + r.completion_tokens).toLocaleString() + (r.prompt_tokens ? " (" + r.prompt_tokens + " in)" : "")),
      el("td", {}, "$" + Number(r.cost || 0).toFixed(4)),
      errCell);
  }

  async function loadRuns() {
    const body = clear($("runs-body"));
    let data;
    try {
      data = await api("GET", "v1/jobs/runs?limit=50");
    } catch (err) {
      if (err.status !== 403) throw err;
      body.appendChild(el("tr", {}, el("td", { colspan: "11", class: "empty" }, "Only an admin key sees and runs the jobs (they cover every user).")));
      clear($("jobs-run"));
      return [];
    }
    if (!data.runs.length) body.appendChild(el("tr", {}, el("td", { colspan: "11", class: "empty" }, "No job has run yet.")));
    for (const r of data.runs) body.appendChild(runRow(r));
    renderButtons(data.runs);
    return data.runs;
  }

  function renderButtons(runs) {
    const box = clear($("jobs-run"));
    for (const job of JOBS) {
      const running = runs.some((r) => r.job === job && r.status === "running");
      box.appendChild(el("button", { type: "button", dataset: { job }, disabled: running,
        onclick: () => attempt(() => runNow(job)) }, running ? job + " is running…" : "Run " + job + " now"));
    }
  }

  async function runNow(job) {
    const before = new Set((await loadRuns()).map((r) => r.id));
    await api("POST", "v1/jobs/" + job + "/run");
    notice("Started " + job + ". Its run appears below; this view follows it until it ends.");
    // follow it: seconds for retention, minutes for an extraction with much to read
    clearInterval(polling);
    let left = 200;
    const tick = async () => {
      const runs = await loadRuns();
      const mine = runs.find((r) => r.job === job && !before.has(r.id));
      if (--left <= 0 || (mine && mine.status !== "running")) clearInterval(polling);
    };
    polling = setInterval(() => attempt(tick), 1500);
    await tick();
  }

  views.jobs = loadRuns;
})();
