// The pit's view, read-only: every table state, the last rolls with their frames annotated, each
// seat's results this session, the camera's and the display's health, the rates of each read
// status, the journal's verify status and head hash, and the alerts.

import {
  SETTLED_BY, annotatedFrame, betName, diceRow, el, header, live, money, post, readLine, requireSession,
} from "./common.js";

function table(rows, head) {
  return el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell) => el("td", {}, cell))))));
}

function percent(rate) {
  return rate === null || rate === undefined ? "–" : `${(rate * 100).toFixed(1)} %`;
}

function render(state) {
  header(state);
  const alerts = document.getElementById("alerts");
  alerts.replaceChildren(el("h2", {}, "Alerts"), state.alerts.length ?
    el("ul", {}, state.alerts.map((alert) => el("li", { class: `alert ${alert.level}` }, alert.text))) :
    el("p", { class: "ok" }, "none"));
  alerts.classList.toggle("raised", state.alerts.length > 0);
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
    [bet.seat, betName(bet.bet, bet.number, bet.on), money(bet.amount)]), ["seat", "bet", "amount"]) :
    el("p", { class: "quiet" }, "nothing on the layout"));
  document.getElementById("rolls").replaceChildren(...state.last_rolls.map((roll) => el("div", { class: "roll-card" },
    annotatedFrame(roll.read, "frame small"),
    el("div", {}, el("strong", {}, `#${roll.seq} `), diceRow(roll.dice, 20), ` = ${roll.total}`,
      el("div", { class: "quiet" }, `${SETTLED_BY[roll.source] || roll.source}${roll.by ? ` · ${roll.by}'s roll` : ""}`),
      el("div", { class: "quiet" }, readLine(roll.read)),
      roll.users.length ? el("div", { class: "quiet" }, `console: ${roll.users.join(", ")}`) : "",
      el("ul", { class: "settled" }, roll.pay.flatMap((group) => group.lines.map((line) =>
        el("li", { class: line.result }, line.text))))))));
}

async function main() {
  await requireSession();
  live("/api/events", "state", (state) => {
    if (state) render(state);
  });
}

main();
