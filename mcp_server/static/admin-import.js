// Amber admin page, Maintenance: bring in chat history (ChatGPT, Claude.ai, Open WebUI, Claude Code)
// through POST v1/import/chats. A chosen file is read first as a dry run (nothing stored) and its
// report shown; the import runs only when confirmed, with a progress bar, then its report. With
// "extract facts now" the server then runs the extraction of what came in (extract=true) and the
// bar follows its windows. While the file goes up the bar counts its bytes (it goes up for the dry
// run and again for the import: the host keeps no upload between the two). The server then streams
// progress as JSON lines (Accept: application/x-ndjson); the last line is the report, or an error.
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

  function json(text) {
    try { return JSON.parse(text); } catch (e) { return {}; }
  }

  // Send the file, saying how much of it went up (on.uploading(sent, size) in bytes, then
  // on.uploaded(); fetch has no upload progress, hence XMLHttpRequest), then read the progress lines
  // as they come (on.progress); resolves to the report. Unlike fetch's credentials: "omit", a
  // same-origin XMLHttpRequest carries the page's cookies: Amber reads none, its routes take the key.
  function send(file, dryRun, extract, on) {
    const q = new URLSearchParams({ dry_run: dryRun ? "true" : "false", extract: extract ? "true" : "false" });
    const owui = $("chat-import-owui").value.trim();
    if (owui) q.set("openwebui_user", owui);
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      let seen = 0, report = null;  // seen: how much of the answer's text has been read as lines

      function lines() {  // the complete lines that came since the last call; a partial one waits for its end
        const text = xhr.responseText;
        let cut;
        while ((cut = text.indexOf("\n", seen)) >= 0) {
          const line = text.slice(seen, cut).trim();
          seen = cut + 1;
          if (!line) continue;
          const item = JSON.parse(line);
          if (item.progress) on.progress(item.progress);
          else if (item.report) report = item.report;
          else if (item.error) throw new ApiError(item.error.status || 500, item.error);
        }
      }

      function read(done) {
        try {
          if (xhr.status < 200 || xhr.status >= 300) {  // refused before streaming: the answer is one JSON error
            if (done) reject(new ApiError(xhr.status, json(xhr.responseText)));
            return;
          }
          lines();
          if (done) report ? resolve(report) : reject(new ApiError(0, { detail: "the import stopped without a report" }));
        } catch (err) {
          reject(err);
          xhr.abort();
        }
      }

      xhr.open("POST", "v1/import/chats?" + q.toString());
      for (const [k, v] of Object.entries(headers({ "Content-Type": "application/octet-stream", Accept: "application/x-ndjson" }))) {
        xhr.setRequestHeader(k, v);
      }
      xhr.upload.onprogress = (e) => on.uploading(e.loaded, file.size);
      xhr.upload.onload = () => on.uploaded();
      xhr.onprogress = () => read(false);
      xhr.onload = () => read(true);
      xhr.onerror = () => reject(new ApiError(0, { detail: "the memory server did not answer" }));
      xhr.send(file);
    });
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

  // "120 of 480 MB": bytes in the unit of the whole, whole numbers from 10 of it up
  function amount(n, of) {
    const [unit, name] = of >= 1e6 ? [1e6, "MB"] : [1e3, "kB"];
    const f = (x) => (x / unit).toLocaleString(undefined, { maximumFractionDigits: of >= 10 * unit ? 0 : 1 });
    return f(n) + " of " + f(of) + " " + name;
  }

  async function run(file, dryRun, total, extract) {
    const bar = $("chat-import-bar");
    running = true;
    $("chat-import-file").disabled = true;
    $("chat-import-go").hidden = true;
    const uploading = (sent, size) => {  // first the bar counts the file's bytes going up
      bar.max = Math.max(size, 1);
      bar.value = Math.min(sent, bar.max);
      progress(true, "uploading " + amount(sent, size));
    };
    uploading(0, file.size);
    try {
      const report = await send(file, dryRun, extract, { uploading, uploaded() {
        if (dryRun) {
          bar.removeAttribute("value");  // a dry run has no total yet: the bar only says it is working
          progress(true, "reading " + file.name + "\u2026");
        } else {
          bar.max = Math.max(total, 1);
          bar.value = 0;
          progress(true, "importing " + file.name + "\u2026");
        }
      }, progress(p) {
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
      } });
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
