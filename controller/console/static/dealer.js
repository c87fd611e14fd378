// The dealer's touch screen: bet by tapping the layout for the seat chosen, take bets down, press
// the panel's buttons, enter dice by hand, and after each roll the frame as the camera read it and
// what to pay and take, seat by seat (the ticks are kept on this screen only).

import {
  SETTLED_BY, annotatedFrame, betName, diceRow, el, header, input, live, money, readLine, requireSession,
} from "./common.js";
import { drawLayout } from "./layout.js";

const CHIPS = [25, 100, 200, 500];
const ACTIONS = [
  ["lock", "LOCK"], ["confirm", "CONFIRM"], ["void", "VOID"], ["manual", "HAND ENTRY"], ["next_shooter", "NEXT SHOOTER"],
];
const view = { layout: null, state: null, seat: null, chip: 100, mode: "bet", entry: null };

function notice(text, kind) {
  const box = document.getElementById("notice");
  box.hidden = !text;
  box.className = `notice ${kind || ""}`;
  box.replaceChildren(...(Array.isArray(text) ? text : [text || ""]));
}

// A refusal shows its reason and the paragraph cited (none for a request that was not a valid event).
function showAnswer(answer, what) {
  if (answer.ok) {
    notice("", "");
    document.getElementById("tapped").textContent = `${what}: journaled as row ${answer.seq}`;
    return;
  }
  const rule = answer.data && answer.data.rule;
  notice([el("strong", {}, `Refused ${what}: `), answer.data ? answer.data.reason : "no answer",
    rule ? el("span", { class: "rule" }, ` (${rule})`) : ""], "refused");
}

async function tap(space) {
  const state = view.state;
  let number = space.number;
  if (number === "point") {
    if (!state.point) {
      notice("No point yet: odds go behind the line once the shooter has a point.", "refused");
      return;
    }
    number = state.point;
  }
  if (view.mode === "remove") {
    const bet = state.bets.find((b) => b.seat === view.seat && b.space === space.id);
    if (!bet) {
      notice(`Seat ${view.seat} has nothing on ${space.label}.`, "refused");
      return;
    }
    await takeDown(bet);
    return;
  }
  const bet = { event: "bet", seat: view.seat, bet: space.bet, amount: view.chip };
  if (number !== null && number !== undefined) bet.number = number;
  if (space.on) bet.on = space.on;
  const what = `seat ${view.seat} ${betName(space.bet, bet.number, space.on)} ${money(view.chip)}`;
  document.getElementById("tapped").textContent = `${what} · limits ${space.text} (${space.limit_rule})`;
  showAnswer(await input("/api/bets", bet), what);
}

async function takeDown(bet) {
  const body = { event: "remove", seat: bet.seat, bet: bet.bet };
  if (bet.number !== null) body.number = bet.number;
  if (bet.on) body.on = bet.on;
  showAnswer(await input("/api/remove", body), `take down seat ${bet.seat} ${betName(bet.bet, bet.number, bet.on)}`);
}

async function press(action, extra = {}) {
  if (action === "manual" && !extra.dice) {
    openEntry();
    return;
  }
  showAnswer(await input("/api/actions", { event: action, ...extra }), action.replace("_", " "));
}

function openEntry() {
  const state = view.state;
  const guess = state.read && state.read.dice && state.read.dice.length === state.dice_count ? state.read.dice : null;
  view.entry = guess ? [...guess] : Array(state.dice_count).fill(1);
  renderEntry();
}

function renderEntry() {
  const box = document.getElementById("entry");
  if (!view.entry) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.replaceChildren(
    el("p", {}, "The dice as they lie:"),
    ...view.entry.map((value, index) => el("div", { class: "entry-die" }, `die ${index + 1}: `,
      [1, 2, 3, 4, 5, 6].map((face) => el("button", {
        type: "button", class: face === value ? "face chosen" : "face", "data-die": index, "data-face": face,
        onclick: () => { view.entry[index] = face; renderEntry(); },
      }, String(face))))),
    el("button", { type: "button", class: "primary", "data-entry": "enter", onclick: async () => {
      const dice = view.entry;
      view.entry = null;
      renderEntry();
      await press("manual", { dice });
    } }, `Enter ${view.entry.join("-")}`),
    el("button", { type: "button", onclick: () => { view.entry = null; renderEntry(); } }, "Cancel"),
  );
}

function renderControls() {
  const state = view.state;
  if (!view.seat || !state.seats.includes(view.seat)) view.seat = state.seats[0];
  document.getElementById("seats").replaceChildren(...state.seats.map((seat) => el("button", {
    type: "button", class: seat === view.seat ? "seat chosen" : "seat", "data-seat": seat,
    onclick: () => { view.seat = seat; render(); },
  }, seat)));
  const custom = el("input", { type: "number", min: "0.01", step: "0.01", placeholder: "other $", class: "custom",
    "aria-label": "another amount in dollars",
    onchange: (event) => {
      const cents = Math.round(parseFloat(event.target.value) * 100);
      if (cents > 0) { view.chip = cents; render(); }
    } });
  document.getElementById("chips").replaceChildren(...CHIPS.map((cents) => el("button", {
    type: "button", class: cents === view.chip ? "chip-button chosen" : "chip-button", "data-chip": cents,
    onclick: () => { view.chip = cents; render(); },
  }, money(cents))), custom, CHIPS.includes(view.chip) ? "" : el("span", { class: "chosen-amount" }, money(view.chip)));
  document.getElementById("modes").replaceChildren(...[["bet", "places a bet"], ["remove", "takes a bet down"]].map(
    ([mode, label]) => el("button", { type: "button", class: mode === view.mode ? "mode chosen" : "mode",
      "data-mode": mode, onclick: () => { view.mode = mode; render(); } }, label)));
  const confirmable = state.pending && state.pending.confirmable;
  const actions = state.game === "hazard" ? ACTIONS.filter(([action]) => action !== "next_shooter") : ACTIONS;
  document.getElementById("actions").replaceChildren(...actions.map(([action, label]) => el("button", {
    type: "button", "data-action": action,
    class: `action ${action}${(action === "confirm" && confirmable) || (action === "lock" && !state.locked) ? " hot" : ""}`,
    onclick: () => press(action),
  }, label)));
  const bySeat = new Map();
  for (const bet of state.bets) {
    if (!bySeat.has(bet.seat)) bySeat.set(bet.seat, []);
    bySeat.get(bet.seat).push(bet);
  }
  document.getElementById("bets").replaceChildren(...(state.bets.length ? [...bySeat].map(([seat, bets]) =>
    el("div", { class: `seat-bets${seat === view.seat ? " chosen" : ""}` }, el("strong", {}, `Seat ${seat}`),
      el("ul", {}, bets.map((bet) => el("li", { "data-bet": `${bet.seat} ${betName(bet.bet, bet.number, bet.on)}` },
        `${betName(bet.bet, bet.number, bet.on)} ${money(bet.amount)} `,
        el("button", { type: "button", class: "small", onclick: () => takeDown(bet) }, "take down")))))) :
    [el("p", { class: "quiet" }, "No bets on the layout.")]));
}

function ticked(seq, key) {
  return sessionStorage.getItem(`tick:${seq}:${key}`) === "1";
}

function renderRoll() {
  const state = view.state;
  const waiting = state.read && ["pending", "manual", "locked"].includes(state.phase);
  const roll = state.last_rolls[0];
  const title = document.getElementById("roll-title");
  const holder = document.getElementById("roll");
  if (waiting) {
    title.textContent = state.phase === "pending" ? "The read waits for you" : "The read of this roll";
    holder.replaceChildren(annotatedFrame(state.read), el("p", { class: `read ${state.read.status}` }, readLine(state.read)));
  } else if (roll) {
    title.textContent = `Roll #${roll.seq}: ${roll.dice.join("-")} = ${roll.total}`;
    holder.replaceChildren(annotatedFrame(roll.read), el("p", { class: "read" }, diceRow(roll.dice, 26),
      ` ${SETTLED_BY[roll.source] || roll.source}${roll.by ? ` (${roll.by}'s roll)` : ""} · ${readLine(roll.read)}`));
  } else {
    title.textContent = "No roll yet";
    holder.replaceChildren();
  }
  const pay = document.getElementById("paylist");
  if (!roll || !roll.pay.length) {
    pay.replaceChildren(el("p", { class: "quiet" }, roll ? "Nothing to pay or take on this roll." : ""));
    return;
  }
  pay.replaceChildren(...roll.pay.map((group) => el("div", { class: "pay-seat", "data-seat": group.seat },
    el("h3", {}, `Seat ${group.seat}`, group.pay ? el("span", { class: "pay" }, ` pay ${money(group.pay)}`) : "",
      group.take ? el("span", { class: "take" }, ` take ${money(group.take)}`) : "",
      group.return ? el("span", { class: "return" }, ` return ${money(group.return)}`) : ""),
    el("ul", {}, group.lines.map((line, index) => {
      const key = `${group.seat}:${index}`;
      const box = el("input", { type: "checkbox", checked: ticked(roll.seq, key) ? true : null,
        onchange: (event) => {
          sessionStorage.setItem(`tick:${roll.seq}:${key}`, event.target.checked ? "1" : "0");
          event.target.closest("li").classList.toggle("done", event.target.checked);
        } });
      return el("li", { class: `pay-line ${line.result}${ticked(roll.seq, key) ? " done" : ""}`, "data-line": line.text },
        el("label", {}, box, ` ${line.text}`, line.note ? el("small", {}, ` (${line.note})`) : ""));
    })))));
}

function render() {
  const state = view.state;
  header(state);
  drawLayout(document.getElementById("layout"), view.layout, state, { onTap: tap, selectedSeat: view.seat });
  renderControls();
  renderRoll();
}

async function main() {
  await requireSession("dealer");
  live("/api/events", "state", async (state) => {
    if (!state) {
      notice("No table is being dealt right now.", "refused");
      return;
    }
    if (!view.layout || view.layout.game !== state.game) {
      view.layout = await (await fetch("/api/layout", { credentials: "same-origin" })).json();
      view.entry = null;
    }
    view.state = state;
    render();
  });
}

main();
