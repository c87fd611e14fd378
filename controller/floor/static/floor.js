// The floor page (floor.html): its one script, a file of its own so the page's
// Content-Security-Policy allows scripts from this origin only.
"use strict";
let csrf = null, source = null, chosen = null;
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value; else if (key.startsWith("on")) node[key] = value;
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}

function when(ts) { return ts ? new Date(ts).toLocaleString() : "never"; }

function money(cents) {
  if (cents === null || cents === undefined) return "–";
  const abs = Math.abs(cents);
  return `${cents < 0 ? "-" : ""}$${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}

function percent(value) { return value === null || value === undefined ? "–" : `${(value * 100).toFixed(2)} %`; }

// A table's last shift on its card: win and hold, and what the pit must look at.
function shiftLine(shift) {
  if (!shift) return el("div", {class: "shift-line"}, el("span", {}, "no shift yet"));
  if (shift.reading) return el("div", {class: "shift-line"}, el("span", {}, `reading its journal: ${shift.read} of ${shift.rows} rows`));
  const flags = [shift.dice_alarm ? "dice flagged" : "", shift.variance_cents ? `variance ${money(shift.variance_cents)}` : ""]
    .filter(Boolean).join(" · ");
  return el("div", {class: "shift-line", "data-shift": shift.open ? "open" : "closed"},
    el("span", {}, shift.open ? "shift" : "last shift"),
    el("span", {class: shift.win_cents >= 0 ? "win" : "lose"}, `win ${money(shift.win_cents)}`),
    el("span", {}, `hold ${percent(shift.hold)}`),
    flags ? el("span", {class: "health bad"}, flags) : "");
}

function showLogin(message) {
  if (source) { source.close(); source = null; }
  $("floor").classList.add("hidden"); $("logout").classList.add("hidden"); $("csv").classList.add("hidden");
  $("login").classList.remove("hidden"); $("who").textContent = "";
  $("login-error").textContent = message || ""; $("live").textContent = "logged out";
}

function showFloor(me) {
  csrf = me.csrf;
  $("login").classList.add("hidden"); $("floor").classList.remove("hidden");
  $("logout").classList.remove("hidden"); $("csv").classList.remove("hidden");
  $("who").textContent = `${me.user} (${me.role})`;
  listen();
}

function listen() {
  source = new EventSource("/api/events");
  source.addEventListener("floor", (e) => { $("live").textContent = "live"; draw(JSON.parse(e.data)); });
  source.addEventListener("alert", (e) => { const a = JSON.parse(e.data);
    $("banner").textContent = `ALERT: table ${a.table}, row ${a.seq}: ${a.message}`;
    $("banner").classList.remove("hidden"); });
  source.onerror = async () => {
    $("live").textContent = "reconnecting";
    const me = await fetch("/api/whoami");
    if (me.status === 401) showLogin("Your session ended: log in again.");
  };
}

function card(t) {
  const s = t.status || {};
  const state = t.alerts ? "alerted" : t.online === false ? "offline" : t.silent ? "silent" : "";
  const online = t.online === false ? el("span", {class: "badge off"}, "offline")
    : t.silent ? el("span", {class: "badge warn"}, "silent") : el("span", {class: "badge on"}, "online");
  const health = (name, value) => [el("span", {}, name),
    el("span", {class: value && value !== "ok" ? "health bad" : "health"}, value || "?")];
  return el("div", {class: `card ${state} ${t.table === chosen ? "chosen" : ""}`, onclick: () => pick(t.table)},
    el("div", {class: "top"}, el("span", {class: "name"}, t.table),
       t.alerts ? el("span", {class: "badge bad"}, `${t.alerts} alert${t.alerts > 1 ? "s" : ""}`) : online),
    el("div", {class: "game"}, `${s.game || "?"} · ${s.phase || "?"}` + (s.point ? ` · point ${s.point}` : "")),
    el("div", {class: "dice"}, (s.last_roll || []).map((d) => el("span", {class: "die"}, d))),
    shiftLine(t.shift),
    el("div", {class: "facts"},
       el("span", {}, "rolls"), el("span", {}, s.rolls ?? "?"),
       health("camera", s.camera), health("display", s.display),
       el("span", {}, "key"), el("span", {}, t.key ? `${t.key.key.slice(0, 12)}… (${t.key.how})` : "none yet"),
       el("span", {}, "rows held"), el("span", {}, t.rows + (t.behind ? ` (${t.behind} on the way)` : "")),
       el("span", {}, "last row"), el("span", {}, when(t.last_ts))));
}

function draw(view) {
  if (view.error) { $("banner").textContent = view.error; $("banner").classList.remove("hidden"); }
  $("n-tables").textContent = view.tables.length;
  $("n-offline").textContent = view.offline.length;
  $("n-alerts").textContent = view.alerts.length;
  $("tables").replaceChildren(...view.tables.map(card));
  $("alerts").replaceChildren(...(view.alerts.length ? view.alerts.map((a) => el("div", {class: "alert"},
      el("div", {class: "where"}, `table ${a.table}, row ${a.seq ?? "?"} · ${a.kind}`),
      el("div", {}, a.message), el("div", {class: "when"}, when(a.raised_at))))
    : [el("p", {class: "empty"}, "No alert: every copy is an unbroken chain.")]));
  $("offline").replaceChildren(...(view.offline.length ? view.offline.map((name) => el("div", {}, name))
    : [el("p", {class: "empty"}, "Every table is online.")]));
  if (chosen) pick(chosen, true);
}

async function pick(table, quietly) {
  chosen = table;
  const answer = await fetch(`/api/tables/${encodeURIComponent(table)}`);
  if (!answer.ok) { if (!quietly) $("history").textContent = (await answer.json()).reason; return; }
  const h = await answer.json();
  $("history-title").textContent = `History of ${table}`;
  const summary = (e) => { const { event, ...rest } = e; return `${event} ` +
    Object.entries(rest).filter(([k]) => !["boxes", "size"].includes(k)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" "); };
  $("history").replaceChildren(
    el("div", {}, h.journals.map((j) => el("div", {class: "facts"}, el("span", {}, {current: "current", line: "before it", apart: "kept apart (not its line)"}[j.place] || j.place),
      el("span", {}, `${j.journal.slice(0, 12)}… ${j.rows} rows from ${when(j.first_ts)}`)))),
    el("table", {class: "rows"}, el("tr", {}, el("th", {}, "seq"), el("th", {}, "time"), el("th", {}, "row")),
      h.rows.slice().reverse().map((r) => el("tr", {}, el("td", {}, r.seq),
        el("td", {}, new Date(r.ts).toLocaleTimeString()), el("td", {}, `${r.kind}: ${summary(r.event)}`)))));
  drawShift(table, h.report);
  document.querySelectorAll(".card").forEach((c) => c.classList.toggle("chosen",
    c.querySelector(".name").textContent === table));
}

// A table's shift report: its numbers, the bank's arithmetic, each seat, its overrides, the dice.
function drawShift(table, report) {
  $("shift-title").textContent = `Shift of ${table}`;
  const shift = report && report.shift;
  if (!shift) { $("shift").replaceChildren(el("p", {class: "empty"}, "No shift yet in this journal.")); return; }
  const rows = (pairs) => el("table", {class: "report"}, pairs.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, v))));
  const dice = shift.dice;
  $("shift").replaceChildren(
    el("p", {}, `opened ${when(shift.opened.ts)} by ${shift.opened.by || "?"}`
      + (shift.closed ? `, closed ${when(shift.closed.ts)} by ${shift.closed.by || "?"}` : " · open")),
    rows([["rolls, decisions", `${shift.rolls}, ${shift.decisions}`], ["handle", money(shift.handle_cents)],
      ["drop", money(shift.drop_cents)], ["win", money(shift.win_cents)], ["hold", percent(shift.hold)]]),
    rows([["opening bank", money(shift.opening_cents)], ["+ fills", money(shift.fills_cents)],
      ["− credits", money(shift.credits_cents)], ["+ win", money(shift.win_cents)], ["− chips sold", money(shift.drop_cents)],
      ["= expected", money(shift.expected_cents)], ["counted", money(shift.closing_cents)],
      ["variance", money(shift.variance_cents)]]),
    rows(Object.entries(shift.per_seat).map(([seat, s]) => [`seat ${seat}`,
      `handle ${money(s.handle_cents)} · win ${money(s.win_cents)} · hold ${percent(s.hold)}`])),
    el("p", {}, `overrides: ${shift.overrides.length}` + (shift.overrides.length ? " (" + shift.overrides.slice(-5)
      .map((o) => `row ${o.seq} ${o.kind.replace("_", " ")} by ${o.user || "the panel"}`).join(", ") + ")" : "")),
    el("p", {}, `dice: ${dice.rolls} rolls, faces ${dice.faces.join(" ")}, chi-square p ${dice.p_value ?? "–"}, `
      + (dice.alarm ? `FLAGGED: face ${dice.alarm.face} at row ${dice.alarm.seq}` : "sequential test quiet")));
}

$("login").onsubmit = async (e) => {
  e.preventDefault();
  const form = new FormData(e.target);
  const answer = await fetch("/api/login", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({user: form.get("user"), password: form.get("password")})});
  const body = await answer.json();
  if (answer.ok) showFloor(body); else $("login-error").textContent = body.reason;
};

$("logout").onclick = async () => {
  await fetch("/api/logout", {method: "POST", headers: {"X-CSRF-Token": csrf}});
  showLogin("");
};

fetch("/api/whoami").then(async (answer) => answer.ok ? showFloor(await answer.json()) : showLogin(""));
