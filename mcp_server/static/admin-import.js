// Amber admin page, Maintenance: bring in chat history (ChatGPT, Claude.ai, Open WebUI, Claude Code)
// through POST v1/import/chats. A chosen file is read first as a dry run (nothing stored) and its
// report shown; the import runs only when confirmed, with a progress bar, then its report. With
// "extract facts now" the server then runs the extraction of what came in (extract=true) and the
// bar follows its windows. The server streams progress as JSON lines (Accept:
// application/x-ndjson); the last line is the report, or an error.
"use strict";

(function () {
  const { state, $, el, clear, ApiError, notice, attempt } = window.Amber;
  let chosen = null;  // the file whose dry run is on the page, waiting for "Import"
  let running = false;

  function headers(extra) {
    const h = Object.assign({}, extra);
    if (state.key) h.Authorization = "Bearer " + state.key;
    if (state.user) h["X-Amber-User"] = state.user;
    return h;
  }

  // Send the file, read the progress lines as they come; resolves to the report.
  async function send(file, dryRun, extract, onProgress) {
    const q = new URLSearchParams({ dry_run: dryRun ? "true" : "false", extract: extract ? "true" : "false" });
    const owui = $("chat-import-owui").value.trim();
    if (owui) q.set("openwebui_user", owui);
    let res;
    try {
      res = await fetch("v1/import/chats?" + q.toString(), { method: "POST", body: file, credentials: "omit", cache: "no-store",
        redirect: "error", headers: headers({ "Content-Type": "application/octet-stream", Accept: "application/x-ndjson" }) });
    } catch (e) {
      throw new ApiError(0, { detail: "the memory server did not answer" });
    }
    if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => ({})));
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "", report = null;
    for (;;) {
      const { value, done } = await reader.read();
      buf += value ? decoder.decode(value, { stream: true }) : "";
      let cut;
      while ((cut = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, cut).trim();
        buf = buf.slice(cut + 1);
        if (!line) continue;
        const item = JSON.parse(line);
        if (item.progress) onProgress(item.progress);
        else if (item.report) report = item.report;
        else if (item.error) throw new ApiError(item.error.status || 500, item.error);
      }
      if (done) break;
    }
    if (!report) throw new ApiError(0, { detail: "the import stopped without a report" });
    return report;
  }

  function num(n) {
    return Number(n || 0).toLocaleString();
  }

  function reasons(counts) {
    const parts = Object.entries(counts || {}).filter(([, n]) => n).map(([k, n]) => k.replace(/_/g, " ") + " " + num(n));
    return parts.length ? parts.join(", ") : "none";
  }

  function showReport(r) {
    const rows = [
      ["from", (r.sources || []).join(", ")],
      ["conversations read", num(r.conversations)],
      ["conversations left out", reasons(r.conversations_skipped)],
      ["messages on the threads kept", num(r.messages)],
      [r.dry_run ? "new turns (would be stored)" : "turns stored", num(r.dry_run ? r.new : r.stored)],
      ["already in this memory", num(r.duplicates)],
      ["forgotten before (never brought back)", num(r.forgotten)],
      ["messages left out", reasons(r.skipped)],
      ["extraction", num(r.extraction.windows) + " windows, about " + num(r.extraction.tokens_estimate) + " model tokens" +
        (r.dry_run || r.extracted || !r.extraction.windows ? "" : " (queued for the next scheduled extraction)")],
    ];
    const x = r.extracted;
    if (x && x.status === "skipped") {
      rows.push(["facts extracted", "not now (" + (x.reason || "skipped") + "): the windows wait for the next scheduled extraction"]);
    } else if (x) {  // extraction ran right after the import: what came of it
      const f = x.facts || {}, w = x.windows || {};
      rows.push(["facts extracted", num(f.added) + " added, " + num(f.superseded) + " superseded, " + num(f.candidates) + " for review"]);
      rows.push(["extraction run", num(w.processed) + " windows, " + num(x.llm_calls) + " LLM calls, " +
        num((x.prompt_tokens || 0) + (x.completion_tokens || 0)) + " tokens" +
        (w.left_pending ? "; " + num(w.left_pending) + " windows wait for the next scheduled extraction" : "")]);
      if (x.errors && x.errors.length) rows.push(["extraction errors", x.errors.slice(0, 3).join("; ").slice(0, 400)]);
    }
    const ci = r.custom_instructions || {};
    if (ci.snapshots) {  // ChatGPT's custom instructions: the newest become labelled profile facts
      rows.push(["ChatGPT custom instructions", num(ci.snapshots) + " found; the newest " + (r.dry_run
        ? "would be kept as " + num(ci.facts) + " profile facts"
        : "kept as " + num(ci.facts) + " profile facts" + (ci.forgotten ? " (forgotten before: not brought back)" : "") +
          (ci.older ? " (" + num(ci.older) + " older than what is kept: left as they are)" : ""))]);
    }
    const box = clear($("chat-import-report"));
    box.appendChild(el("p", { class: "meta" }, r.dry_run
      ? (r.new ? "Dry run: " + num(r.new) + " new turns would come in. Nothing is stored yet."
        : "Dry run: nothing new to bring in.")
      : "Imported: " + num(r.stored) + " turns stored. " + (x && x.status !== "skipped"
        ? num((x.facts || {}).added) + " facts extracted now."
        : "Extraction turns them into memories on its next scheduled runs.")));
    box.appendChild(el("table", { class: "events report" }, el("tbody", {}, rows.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, v))))));
  }

  function progress(show, stage) {
    $("chat-import-progress").hidden = !show;
    if (stage !== undefined) $("chat-import-stage").textContent = stage;
  }

  async function run(file, dryRun, total, extract) {
    const bar = $("chat-import-bar");
    running = true;
    $("chat-import-file").disabled = true;
    $("chat-import-go").hidden = true;
    if (dryRun) {
      bar.removeAttribute("value");  // a dry run has no total yet: the bar only says it is working
      progress(true, "reading " + file.name + "\u2026");
    } else {
      bar.max = Math.max(total, 1);
      bar.value = 0;
      progress(true, "importing " + file.name + "\u2026");
    }
    try {
      const report = await send(file, dryRun, extract, (p) => {
        if (dryRun) {
          progress(true, "read " + num(p.conversations) + " conversations, " + num(p.messages) + " messages");
        } else if (p.stage === "extract") {  // the turns are in: the bar now counts extraction windows
          bar.max = Math.max(p.of, p.windows, 1);
          bar.value = Math.min(p.windows, bar.max);
          progress(true, "extracting facts: " + num(p.windows) + " of " + num(p.of) + " windows (" + num(p.facts) + " facts so far)");
        } else {
          bar.value = Math.min(p.stored, bar.max);
          progress(true, "stored " + num(p.stored) + " of " + num(total) + " turns (" + num(p.conversations) + " conversations read)");
        }
      });
      if (!dryRun) bar.value = bar.max;
      const x = report.extracted;
      progress(!dryRun, dryRun ? "" : "done: " + num(report.stored) + " turns stored" +
        (x && x.status !== "skipped" ? ", " + num((x.facts || {}).added) + " facts extracted" : ""));
      showReport(report);
      return report;
    } catch (err) {
      progress(false, "");
      clear($("chat-import-report")).appendChild(el("p", { class: "meta" }, dryRun ? "The export could not be read; nothing was stored."
        : "The import stopped. Turns stored before it stopped stay; running the same import again stores only the rest."));
      throw err;
    } finally {
      running = false;
      $("chat-import-file").disabled = false;
    }
  }

  async function onChoose() {
    const file = $("chat-import-file").files[0];
    chosen = null;
    if (!file || running) return;
    const report = await run(file, true);
    if (report.new > 0) {
      chosen = { file, total: report.new };
      const go = $("chat-import-go");
      go.textContent = "Import " + num(report.new) + " turns";
      go.hidden = false;
    }
  }

  async function onGo() {
    if (!chosen || running) return;
    const { file, total } = chosen;
    chosen = null;
    await run(file, false, total, $("chat-import-extract").checked);
    $("chat-import-file").value = "";
    notice("Chat history imported.");
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("chat-import-file").addEventListener("change", () => attempt(onChoose));
    $("chat-import-go").addEventListener("click", () => attempt(onGo));
  });
})();
