// labgen query console. Every value reaches the page as a text node
// (textContent, createTextNode), never as markup, so data renders as text
// whatever it contains.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = { engines: [], presets: [], engine: null, lab: "" };
const RECENT_MAX = 20;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function recentKey() { return "labgen-console-recent:" + state.lab; }
function loadRecent() {
  try { return JSON.parse(localStorage.getItem(recentKey())) || []; } catch (e) { return []; }
}
function saveRecent(engine, sql) {
  let list = loadRecent().filter((q) => !(q.engine === engine && q.sql === sql));
  list.unshift({ engine, sql, at: new Date().toISOString() });
  list = list.slice(0, RECENT_MAX);
  try { localStorage.setItem(recentKey(), JSON.stringify(list)); } catch (e) { /* storage full or off */ }
  renderRecent();
}
function renderRecent() {
  const ul = $("#recent");
  ul.replaceChildren();
  for (const q of loadRecent()) {
    const li = el("li", { title: q.sql, tabindex: "0" }, el("span", { class: "eng" }, q.engine), q.sql.replace(/\s+/g, " "));
    const load = () => { selectEngine(q.engine); $("#sql").value = q.sql; $("#sql").focus(); };
    li.addEventListener("click", load);
    li.addEventListener("keydown", (ev) => { if (ev.key === "Enter") load(); });
    ul.append(li);
  }
}

function selectEngine(name) {
  const eng = state.engines.find((e) => e.name === name);
  if (!eng) return;
  state.engine = name;
  for (const b of document.querySelectorAll("#engines button")) {
    b.setAttribute("aria-checked", String(b.dataset.engine === name));
  }
  $("#engine-note").textContent = eng.available ? "on " + eng.title : eng.title + " is not available: " + eng.unavailable;
  renderPresets();
}

function renderEngines() {
  const box = $("#engines");
  box.replaceChildren();
  for (const e of state.engines) {
    const b = el("button", { type: "button", role: "radio", id: "engine-" + e.name, "data-engine": e.name, "aria-checked": "false" }, e.title);
    if (!e.available) { b.disabled = true; b.title = e.unavailable; }
    b.addEventListener("click", () => selectEngine(e.name));
    box.append(b);
  }
}

function renderPresets() {
  const ul = $("#presets");
  ul.replaceChildren();
  const mine = state.presets.filter((p) => p.engine === state.engine);
  if (mine.length === 0) ul.append(el("li", { class: "muted" }, "No presets for this engine."));
  for (const p of mine) {
    const li = el("li", { class: "preset" + (p.unavailable ? " unavailable" : ""), "data-name": p.name },
      el("div", { class: "title" }, p.title),
      p.description ? el("div", { class: "desc" }, p.description) : "");
    if (p.unavailable) li.append(el("div", { class: "why" }, "Unavailable: " + p.unavailable));
    const b = el("button", { type: "button", class: "load", "aria-label": "Load preset " + p.title }, "Load");
    if (p.unavailable) b.disabled = true;
    b.addEventListener("click", () => { $("#sql").value = p.sql; $("#sql").focus(); });
    li.append(b);
    ul.append(li);
  }
}

function showError(msg) {
  const e = $("#error");
  e.textContent = msg;
  e.hidden = false;
}

// Num keeps a number as the server wrote it: JavaScript numbers would
// turn 12.50 into 12.5 and round integers beyond 2^53.
class Num {
  constructor(source) { this.source = source; }
  toJSON() { return typeof JSON.rawJSON === "function" ? JSON.rawJSON(this.source) : Number(this.source); }
}

function parseResult(text) {
  return JSON.parse(text, function (key, value, ctx) {
    if (typeof value === "number" && ctx && typeof ctx.source === "string" && ctx.source !== String(value)) {
      return new Num(ctx.source);
    }
    return value;
  });
}

function cellText(v) {
  if (v === null) return "NULL";
  if (v instanceof Num) return v.source;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function renderResult(r) {
  const table = $("#result");
  const head = el("tr");
  for (const c of r.columns) head.append(el("th", { scope: "col" }, c.name, el("span", { class: "type" }, c.type)));
  table.tHead.replaceChildren(head);
  const body = document.createDocumentFragment();
  for (const row of r.rows) {
    const tr = el("tr");
    row.forEach((v) => {
      const td = el("td", {}, cellText(v));
      // NULL and the empty string must not look alike: NULL is marked
      // (italic, "SQL NULL"), an empty string is labelled as such.
      if (v === null) { td.className = "null"; td.title = "SQL NULL"; }
      else if (v === "") { td.className = "empty"; td.title = "empty string"; td.setAttribute("aria-label", "empty string"); }
      else if (typeof v === "number" || v instanceof Num) td.className = "num";
      tr.append(td);
    });
    body.append(tr);
  }
  table.tBodies[0].replaceChildren(body);
  table.hidden = false;
  const rows = r.row_count === 1 ? "1 row" : r.row_count + " rows";
  $("#status").textContent = rows + (r.truncated ? " (truncated: more rows exist)" : "") + " in " + r.elapsed;
}

async function run() {
  const sql = $("#sql").value;
  if (!sql.trim()) return;
  const engine = state.engine;
  $("#run").disabled = true;
  $("#error").hidden = true;
  $("#status").textContent = "running…";
  try {
    const resp = await fetch("/api/query", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ engine, sql }),
    });
    const text = await resp.text();
    let body;
    try { body = parseResult(text); } catch (e) { body = { error: "HTTP " + resp.status + " " + resp.statusText + "\n" + text }; }
    saveRecent(engine, sql);
    if (!resp.ok) {
      $("#result").hidden = true;
      $("#status").textContent = "";
      showError(body.error || "HTTP " + resp.status);
      return;
    }
    renderResult(body);
  } catch (e) {
    $("#status").textContent = "";
    showError("The console did not answer: " + e.message);
  } finally {
    $("#run").disabled = false;
  }
}

async function init() {
  $("#run").addEventListener("click", run);
  $("#sql").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); run(); }
  });
  $("#clear-recent").addEventListener("click", () => { localStorage.removeItem(recentKey()); renderRecent(); });
  try {
    const resp = await fetch("/api/presets");
    const data = await resp.json();
    state.engines = data.engines;
    state.presets = data.presets;
    state.lab = data.lab.name;
    $("#lab-title").textContent = data.lab.title || data.lab.name;
    $("#lab-name").textContent = data.lab.name;
    document.title = data.lab.name + " · labgen query console";
    const l = data.limits;
    $("#limits").textContent = "At most " + l.max_rows + " rows per query; queries stop after " + l.timeout + ".";
    renderEngines();
    const first = state.engines.find((e) => e.available) || state.engines[0];
    if (first) selectEngine(first.name);
    renderRecent();
    document.body.dataset.ready = "true";
  } catch (e) {
    showError("Cannot load the presets: " + e.message);
  }
}

init();
