// The pit's view: every table state, the last rolls with their frames annotated, each seat's
// results this session, the camera's and the display's health, the rates of each read status, the
// journal's verify status and head hash, and the alerts; and the pit's own work, which is all it
// may change: the shift (its bank, chips sold, fills and credits countersigned by a second pit
// user, the closing count) and the dice in play, with their numbers from GET /api/shift.

import {
  SETTLED_BY, annotatedFrame, diceRow, el, header, input, live, money, post, readLine, requireSession,
  session,
} from "./common.js";

// The chips a tray is counted in, in cents.
const CHIPS = [25, 100, 500, 2500, 10000, 50000];
let shiftView = null; // the last GET /api/shift
let stateAlerts = []; // the table's own alerts (devices, the chain), from the state

function table(rows, head) {
  return el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell) => el("td", {}, cell))))));
}

function percent(rate) {
  return rate === null || rate === undefined ? "–" : `${(rate * 100).toFixed(1)} %`;
}

// The table's alerts and the pit's (overrides, large payouts, the dice, a variance: each with the
// frame of its roll), worst first.
function renderAlerts() {
  const found = [...stateAlerts, ...(shiftView ? shiftView.alerts : [])];
  const alerts = document.getElementById("alerts");
  alerts.replaceChildren(el("h2", {}, "Alerts"), found.length ?
    el("ul", { class: "alert-list" }, found.map((alert) => el("li", { class: `alert ${alert.level}`, "data-kind": alert.kind },
      alert.frame ? annotatedFrame({ frame: alert.frame }, "frame tiny") : "", el("span", {}, alert.text)))) :
    el("p", { class: "ok" }, "none"));
  alerts.classList.toggle("raised", found.some((alert) => alert.level === "alarm"));
}

function render(state) {
  header(state);
  stateAlerts = state.alerts;
  renderAlerts();
  fillSeats(state.seats);
  document.getElementById("table").replaceChildren(table([
    ["game", state.game], ["phase", `${state.phase} (display: ${state.display})`],
    ["point", state.point ?? "off"], ["shooter", state.shooter ?? "–"], ["rolls on this table", state.rolls],
    ["on the layout", `${money(state.staked)} in ${state.bets.length} bets`],
    ["read waiting", state.pending ? readLine(state.pending) : "none"],
  ], ["", ""]));
  const devices = Object.entries(state.health);
  document.getElementById("health").replaceChildren(devices.length ? table(devices.map(([name, health]) => [
    name, el("span", { class: health.ok ? "ok" : "bad" }, health.ok ? "ok" : "FAULT"), health.detail || ""]),
  ["device", "state", "detail"]) : el("p", {}, "no devices reported"));
  const reads = state.reads;
  document.getElementById("reads").replaceChildren(table(["ok", "uncertain", "no_read"].map((status) =>
    [status, reads.counts[status], percent(reads.rates[status])]), ["status", "reads", "rate"]),
  el("p", { class: "quiet" }, `since ${reads.since}`));
  const journal = state.journal;
  const verify = journal.verify;
  document.getElementById("journal").replaceChildren(table([
    ["rows", journal.rows],
    ["head hash", el("code", { class: "hash" }, journal.head)],
    ["chain", verify ? el("span", { class: verify.ok ? "ok" : "bad", "data-verify": verify.ok ? "ok" : "broken" },
      verify.ok ? `intact: ${verify.rows} rows checked at ${verify.checked}` :
        `BROKEN: ${verify.reason || ""} (checked ${verify.checked})`) : "being checked"],
    ["file", el("code", {}, journal.file)],
  ], ["", ""]), el("button", { type: "button", class: "small", onclick: () => post("/api/verify") }, "check the chain now"));
  const seats = Object.entries(state.session.seats).sort();
  document.getElementById("session").replaceChildren(seats.length ? table(seats.map(([seat, s]) => [
    seat, el("span", { class: s.net >= 0 ? "win" : "lose" }, money(s.net)), money(s.staked), s.bets, s.won, s.lost, s.pushed,
  ]), ["seat", "net", "staked", "bets", "won", "lost", "pushed"]) : el("p", { class: "quiet" }, "no bet settled yet"),
  el("p", { class: "quiet" }, `since ${state.session.since}`));
  document.getElementById("bets").replaceChildren(state.bets.length ? table(state.bets.map((bet) =>
    [bet.seat, bet.name, money(bet.amount)]), ["seat", "bet", "amount"]) :
    el("p", { class: "quiet" }, "nothing on the layout"));
  document.getElementById("rolls").replaceChildren(...state.last_rolls.map((roll) => el("div", { class: "roll-card" },
    annotatedFrame(roll.read, "frame small"),
    el("div", {}, el("strong", { "data-seq": roll.seq }, `Roll ${roll.number}: `), diceRow(roll.dice, 20), ` = ${roll.total}`,
      el("div", { class: "quiet" }, `${SETTLED_BY[roll.source] || roll.source}${roll.by ? ` · ${roll.by}'s roll` : ""}`),
      el("div", { class: "quiet" }, readLine(roll.read)),
      roll.users.length ? el("div", { class: "quiet" }, `console: ${roll.users.join(", ")}`) : "",
      el("ul", { class: "settled" }, roll.pay.flatMap((group) => group.lines.map((line) =>
        el("li", { class: line.result }, line.text))))))));
}

function percentOf(value) {
  return value === null || value === undefined ? "–" : `${(value * 100).toFixed(2)} %`;
}

function cents(text) {
  return Math.round(parseFloat(text) * 100);
}

// The inputs of a count by chip, made once (a re-render must never clear what the pit is typing).
function chipInputs(holder) {
  holder.replaceChildren(...CHIPS.map((chip) => el("label", {}, money(chip),
    el("input", { type: "number", min: "0", step: "1", value: "0", "data-chip": String(chip) }))),
  el("span", { class: "chips-total" }, "total $0.00"));
  const show = () => {
    holder.querySelector(".chips-total").textContent = `total ${money(bankTotal(counted(holder)))}`;
  };
  holder.addEventListener("input", show);
  holder.closest("form").addEventListener("reset", () => setTimeout(show));
}

function counted(holder) {
  const bank = {};
  for (const field of holder.querySelectorAll("input[data-chip]")) {
    const count = parseInt(field.value, 10);
    if (count > 0) bank[field.dataset.chip] = count;
  }
  return bank;
}

function bankTotal(bank) {
  return Object.entries(bank).reduce((sum, [chip, count]) => sum + Number(chip) * count, 0);
}

function fillSeats(seats) {
  const select = document.getElementById("buyin-seat");
  if (select.options.length) return;
  select.replaceChildren(el("option", { value: "" }, "–"), ...seats.map((seat) => el("option", { value: seat }, seat)));
}

// One of the pit's entries, with what the table answered.
async function enter(path, body) {
  const said = document.getElementById("pit-said");
  const answer = await input(path, body);
  said.className = `said ${answer.ok ? "ok" : "bad"}`;
  said.textContent = answer.ok ? `${body.event || "dice_set"}: journaled as row ${answer.seq}` :
    `${body.event || "dice_set"} refused: ${answer.data.reason}`;
  await refresh();
  return answer.ok;
}

function numbersTable(numbers) {
  return el("table", {}, el("tbody", {}, [
    ["rolls, decisions", `${numbers.rolls}, ${numbers.decisions}`],
    ["handle", money(numbers.handle_cents)], ["drop (chips sold)", money(numbers.drop_cents)],
    ["win", el("span", { class: numbers.win_cents >= 0 ? "win" : "lose", "data-win": numbers.win_cents },
      money(numbers.win_cents))],
    ["hold", percentOf(numbers.hold)],
  ].map(([name, value]) => el("tr", {}, el("td", {}, name), el("td", {}, value)))));
}

function renderShift(view) {
  const shift = view.shift;
  const open = Boolean(shift && !shift.closed);
  document.getElementById("open-form").hidden = open;
  document.getElementById("open-shift-forms").hidden = !open;
  const body = document.getElementById("shift");
  if (!shift) {
    body.replaceChildren(el("p", { class: "quiet" }, "No shift yet at this table."));
    return;
  }
  const bank = el("table", { class: "bank" }, el("tbody", {}, [
    ["opening bank", money(shift.opening_cents)], ["+ fills", money(shift.fills_cents)],
    ["− credits", money(shift.credits_cents)], ["+ win", money(shift.win_cents)], ["− chips sold", money(shift.drop_cents)],
    ["= expected bank", el("strong", { "data-expected": shift.expected_cents }, money(shift.expected_cents))],
    ...(shift.closing_cents === null ? [] : [["counted", money(shift.closing_cents)],
      ["variance", el("strong", { class: shift.variance_cents ? "bad" : "ok", "data-variance": shift.variance_cents },
        money(shift.variance_cents))]]),
  ].map(([name, value]) => el("tr", {}, el("td", {}, name), el("td", {}, value)))));
  const seats = Object.entries(shift.per_seat);
  body.replaceChildren(
    el("p", { "data-shift": open ? "open" : "closed" }, `opened at row ${shift.opened.seq} (${shift.opened.ts}) by ${shift.opened.by}`,
      shift.closed ? `, closed at row ${shift.closed.seq} (${shift.closed.ts}) by ${shift.closed.by}` : " · open"),
    el("div", { class: "shift-numbers" }, numbersTable(shift), bank,
      seats.length ? el("table", {}, el("thead", {}, el("tr", {}, ["seat", "handle", "win", "hold", "chips sold"].map(
        (h) => el("th", {}, h)))), el("tbody", {}, seats.map(([seat, s]) => el("tr", {}, el("td", {}, seat),
        el("td", {}, money(s.handle_cents)), el("td", {}, money(s.win_cents)), el("td", {}, percentOf(s.hold)),
        el("td", {}, money(s.drop_cents)))))) : el("p", { class: "quiet" }, "no seat has bet or bought chips")));
  const waiting = shift.slips.filter((slip) => !slip.countersigned_by);
  document.getElementById("slips").replaceChildren(...(shift.slips.length ? [el("h3", {}, "Slips"),
    el("ul", { class: "slips" }, shift.slips.map((slip) => el("li", {},
      `${slip.kind} ${slip.slip} ${money(slip.amount)} by ${slip.user}`,
      slip.countersigned_by ? ` · countersigned by ${slip.countersigned_by}` :
        el("button", { type: "button", class: "small", "data-countersign": slip.slip,
          disabled: session && session.user === slip.user,
          title: session && session.user === slip.user ? "a second, different user countersigns it" : "",
          onclick: () => enter("/api/shift", { event: "countersign", slip: slip.slip }) }, "countersign"))))] : []),
  ...(waiting.length ? [el("p", { class: "quiet" }, "The shift closes once every slip is countersigned.")] : []));
}

function renderDice(dice) {
  const scopes = [["shift", "this shift"], ["set", "the dice set"]].filter(([scope]) => dice[scope]);
  document.getElementById("dice").replaceChildren(scopes.length ? el("table", {},
    el("thead", {}, el("tr", {}, ["over", "rolls", "faces 1–6", "chi-square p", "sequential test"].map((h) => el("th", {}, h)))),
    el("tbody", {}, scopes.map(([scope, name]) => {
      const watch = dice[scope];
      return el("tr", { "data-scope": scope }, el("td", {}, watch.set ? `${name} “${watch.set}”` : name),
        el("td", {}, watch.rolls), el("td", {}, watch.faces.join(" ")),
        el("td", {}, watch.p_value === null ? "–" : watch.p_value.toFixed(4)),
        el("td", { class: watch.alarm ? "bad" : "ok" }, watch.alarm ? `ALARM: face ${watch.alarm.face} (row ${watch.alarm.seq})` :
          `${watch.cusum.peak.toFixed(2)} of ${watch.cusum.threshold.toFixed(2)}`));
    }))) : el("p", { class: "quiet" }, "No shift or dice set yet: the dice are watched from the next."));
}

// GET /api/shift, one at a time: a change while one is under way asks again once it is back.
let fetching = null;
let again = false;

async function refresh() {
  if (fetching) {
    again = true;
    return fetching;
  }
  fetching = (async () => {
    do {
      again = false;
      const answer = await fetch("/api/shift", { credentials: "same-origin" });
      if (answer.ok) {
        shiftView = await answer.json();
        renderShift(shiftView);
        renderDice(shiftView.dice);
        renderAlerts();
      }
    } while (again);
  })();
  try {
    await fetching;
  } finally {
    fetching = null;
  }
}

function forms() {
  chipInputs(document.querySelector("[data-count=open]"));
  chipInputs(document.querySelector("[data-count=close]"));
  const submit = (id, make) => document.getElementById(id).addEventListener("submit", async (event) => {
    event.preventDefault();
    const [path, body] = make();
    if (await enter(path, body)) event.target.reset();
  });
  submit("open-form", () => ["/api/shift", { event: "shift_open", bank: counted(document.querySelector("[data-count=open]")) }]);
  submit("close-form", () => ["/api/shift", { event: "shift_close", bank: counted(document.querySelector("[data-count=close]")) }]);
  submit("buyin-form", () => {
    const seat = document.getElementById("buyin-seat").value;
    return ["/api/shift", { event: "buy_in", amount: cents(document.getElementById("buyin-amount").value),
      ...(seat ? { seat } : {}) }];
  });
  submit("slip-form", () => ["/api/shift", { event: document.getElementById("slip-kind").value,
    slip: document.getElementById("slip-number").value, amount: cents(document.getElementById("slip-amount").value) }]);
  submit("dice-form", () => ["/api/dice", { set: document.getElementById("dice-set-name").value }]);
}

async function main() {
  await requireSession();
  forms();
  live("/api/events", "state", (state) => {
    if (state) {
      render(state);
      refresh();
    }
  });
}

main();
