// The dealer's touch screen: bet by tapping the layout for the seat chosen, take bets down, press
// the panel's buttons, enter dice by hand; a read that waits for the dealer shown whole at the top
// (its frame with each die's box, the dice, the reason, CONFIRM / HAND ENTRY / VOID); after each
// roll the frame as the camera read it and what to pay and take, seat by seat (the ticks are kept
// on this screen only). A failed input says so in a banner that does not go away by itself.

import {
  DOUBLE_TAP_MS, SETTLED_BY, annotatedFrame, diceRow, die, el, header, input, live, money, readLine, requireSession,
} from "./common.js";
import { drawLayout, drawSpaceList } from "./layout.js";

const CHIPS = [25, 100, 200, 500];
const PRESSES = ["lock", "confirm", "void", "manual", "next_shooter"];
const PRESS_LABELS = { lock: "LOCK", confirm: "CONFIRM", void: "VOID", manual: "HAND ENTRY", next_shooter: "NEXT SHOOTER" };
// While a hand entry begun on the panel goes on, its buttons step the die (docs/events.md).
const ENTRY_LABELS = { lock: "LOCK: next value", confirm: "CONFIRM: this die", void: "VOID: cancel the entry" };
// What a lost input may not have done, by where it went.
const DOUBTS = {
  bet: "this bet may not have been placed: check the bets list",
  remove: "this bet may not have been taken down: check the bets list",
};
// A tap within this long of the screen changing under the finger (a read shown or settled, the
// page moving up or down) is not taken: it was meant for what was there before (a double tap on
// CONFIRM must not bet on the space that comes up under it), as is a tick's second tap.
const SETTLING_MS = 400;
// A finger's second tap on the same spot within DOUBLE_TAP_MS is the first tap's, whatever is under
// it by then: the first tap may have moved the screen (the bet taken down gone and the next one
// moved up in its place, the hand entry closed and the layout moved up), and the second must not
// act on what came there. The same spot: within a fingertip's wobble, half a 44 px target.
const SAME_SPOT_PX = 22;
const view = { layout: null, state: null, seat: null, chip: 100, typed: "", mode: "bet", entry: null, lost: [],
  frameShown: null, changedAt: 0, ticked: new Map() };

// --- what the dealer is told ---------------------------------------------------------------------

// The one line that says what the last tap did: the newest answer replaces whatever was there.
function notice(kind, ...parts) {
  const box = document.getElementById("notice");
  box.hidden = parts.length === 0;
  box.className = `notice ${kind}`;
  box.replaceChildren(...parts);
}

function renderLost() {
  const box = document.getElementById("lost");
  box.hidden = view.lost.length === 0;
  box.replaceChildren(
    el("ul", {}, view.lost.map(({ doubt, what }) => el("li", {}, el("strong", {}, `not connected: ${doubt}`), ` (${what})`))),
    el("button", { type: "button", class: "checked", onclick: () => { view.lost = []; renderLost(); } }, "checked"));
}

// A refusal shows its reason and the paragraph cited (none for a request that was not a valid
// event); an input with no answer even after trying again with its key goes to the banner.
function showAnswer(answer, what, doubt) {
  if (answer.ok) {
    const again = answer.tries > 1 ? ` (confirmed on try ${answer.tries} with the same key)` : "";
    notice("done", `${what}: journaled as row ${answer.seq}${again}`);
    return;
  }
  if (answer.lost) {
    notice("lost", el("strong", {}, `${what}: no answer from the table`), ` (${answer.data.reason})`);
    if (!view.lost.some((lost) => lost.key === answer.key)) view.lost.push({ doubt, what, key: answer.key });
    renderLost();
    return;
  }
  const rule = answer.data && answer.data.rule;
  notice("refused", el("strong", {}, `Refused ${what}: `), (answer.data && answer.data.reason) || "no reason given",
    rule ? el("span", { class: "rule" }, ` (${rule})`) : "");
}

function onLink(up) {
  const box = document.getElementById("offline");
  box.hidden = up;
  box.replaceChildren(el("strong", {}, "not connected: "),
    "nothing heard from the table: this screen may be out of date, and a tap may not reach the table");
}

// --- amounts -------------------------------------------------------------------------------------

// A typed amount as the cents that will be journaled, or why it is no amount. Nothing is rounded:
// a third decimal is refused, not cut. Empty: no typed amount (the chip chosen counts).
export function typedAmount(text, largest) {
  const typed = text.trim().replace(/^\$\s*/, "");
  if (!typed) return { cents: null };
  const quoted = `“${text.trim()}”`;
  if (/^-/.test(typed)) return { error: `${quoted} is no amount: a bet is never negative` };
  const match = /^(\d*)(?:\.(\d*))?$/.exec(typed);
  if (!match || (!match[1] && !match[2])) return { error: `${quoted} is not an amount: type dollars and cents, as 12.50` };
  const [, whole, fraction = ""] = match;
  if (fraction.length > 2) return { error: `${quoted} has more decimals than cents: at most two after the point` };
  if (whole.length > 12) return { error: `${quoted} is more than any bet at this table may be (${money(largest)} at most)` };
  const cents = Number(whole || "0") * 100 + Number(fraction.padEnd(2, "0"));
  if (cents === 0) return { error: `${quoted} is no bet: the least is $0.01` };
  if (cents > largest) return { error: `${money(cents)} is more than any bet at this table may be (${money(largest)} at most)` };
  return { cents };
}

function chosenAmount() {
  const typed = typedAmount(view.typed, view.layout ? view.layout.largest : Infinity);
  return typed.cents === null ? { cents: view.chip } : typed;
}

function renderAmount() {
  const amount = chosenAmount();
  const says = document.getElementById("amount-says");
  says.className = `amount-says${amount.error ? " bad" : ""}`;
  says.textContent = amount.error ? amount.error : view.typed.trim() ? `bets ${money(amount.cents)}` : "";
  document.getElementById("amount").setAttribute("aria-invalid", amount.error ? "true" : "false");
  for (const button of document.querySelectorAll("#chips button")) {
    button.classList.toggle("chosen", !view.typed.trim() && Number(button.dataset.chip) === view.chip);
  }
}

// --- inputs --------------------------------------------------------------------------------------

async function tap(space) {
  const state = view.state;
  if (!state) return;
  if (Date.now() - view.changedAt < SETTLING_MS) {
    notice("refused", "Tap not taken: the screen had just changed under it. Tap again to bet.");
    return;
  }
  if (view.mode === "remove") {
    await takeDownAt(space);
    return;
  }
  let number = space.number;
  let name = space.name;
  if (number === "point") {
    if (!state.point) {
      notice("refused", "No point yet: odds go behind the line once the shooter has a point.");
      return;
    }
    number = state.point;
    name = `${space.name} on ${state.point}`;
  }
  const amount = chosenAmount();
  if (amount.error) {
    notice("refused", el("strong", {}, "Nothing placed: "), amount.error);
    return;
  }
  const bet = { event: "bet", seat: view.seat, bet: space.bet, amount: amount.cents };
  if (number !== null && number !== undefined) bet.number = number;
  if (space.on) bet.on = space.on;
  const what = `seat ${view.seat} ${name} ${money(amount.cents)}`;
  notice("sending", `${what} · limits ${space.text} (${space.limit_rule}) · sending`);
  showAnswer(await input("/api/bets", bet), what, DOUBTS.bet);
}

async function takeDownAt(space) {
  const mine = view.state.bets.filter((b) => b.seat === view.seat && b.space === space.id);
  const down = mine.find((b) => b.removable);
  if (down) {
    await takeDown(down);
  } else if (mine.length) {
    const stays = mine[0].stays;
    notice("refused", el("strong", {}, `Seat ${view.seat} ${mine[0].name} stays: `), stays ? stays.reason : "",
      stays && stays.rule ? el("span", { class: "rule" }, ` (${stays.rule})`) : "");
  } else {
    notice("refused", `Seat ${view.seat} has nothing on ${space.name}.`);
  }
}

async function takeDown(bet) {
  const body = { event: "remove", seat: bet.seat, bet: bet.bet };
  if (bet.number !== null) body.number = bet.number;
  if (bet.on) body.on = bet.on;
  const what = `take down seat ${bet.seat} ${bet.name} ${money(bet.amount)}`;
  notice("sending", `${what} · sending`);
  showAnswer(await input("/api/remove", body), what, DOUBTS.remove);
}

async function press(action, extra = {}) {
  if (action === "manual" && !extra.dice) {
    openEntry();
    return;
  }
  const label = extra.dice ? `HAND ENTRY ${extra.dice.join("-")}` : pressLabel(action);
  notice("sending", `${label} · sending`);
  showAnswer(await input("/api/actions", { event: action, ...extra }), label,
    `${label} may not have been done: check the phase at the top`);
}

function pressLabel(action) {
  return view.state.phase === "manual" && ENTRY_LABELS[action] ? ENTRY_LABELS[action] : PRESS_LABELS[action];
}

// A press the table would refuse now is shown, greyed, where it always is: the buttons never move
// under a finger. NEXT SHOOTER is only for a game with a shooter.
function pressButton(action) {
  const judged = view.state.actions[action] || { can: false };
  const hot = judged.can && (action === "lock" || action === "confirm");
  return el("button", {
    type: "button", "data-action": action, class: `action ${action}${hot ? " hot" : ""}`, disabled: !judged.can,
    title: judged.can ? null : judged.why, onclick: () => press(action),
  }, pressLabel(action));
}

// --- a hand entry ----------------------------------------------------------------------------------

function openEntry() {
  const state = view.state;
  const guess = state.read && state.read.dice && state.read.dice.length === state.dice_count ? state.read.dice : null;
  view.entry = guess ? [...guess] : Array(state.dice_count).fill(1);
  render();
}

function renderEntry() {
  const box = document.getElementById("entry");
  box.hidden = !view.entry;
  if (!view.entry) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(
    el("p", {}, "The dice as they lie:"),
    ...view.entry.map((value, index) => el("div", { class: "entry-die" }, el("span", { class: "entry-name" }, `die ${index + 1}`),
      [1, 2, 3, 4, 5, 6].map((face) => el("button", {
        type: "button", class: face === value ? "face chosen" : "face", "data-die": index, "data-face": face,
        "aria-label": `die ${index + 1}: ${face}`, onclick: () => { view.entry[index] = face; renderEntry(); },
      }, String(face))))),
    el("div", { class: "entry-go" },
      el("button", { type: "button", class: "primary", "data-entry": "enter", onclick: async () => {
        const dice = view.entry;
        view.entry = null;
        render();
        await press("manual", { dice });
      } }, `Enter ${view.entry.join("-")}`),
      el("button", { type: "button", "data-entry": "cancel", onclick: () => { view.entry = null; render(); } }, "Cancel")),
  );
}

// --- drawing -------------------------------------------------------------------------------------

function renderControls() {
  const state = view.state;
  if (!view.seat || !state.seats.includes(view.seat)) view.seat = state.seats[0];
  document.getElementById("seats").replaceChildren(...state.seats.map((seat) => el("button", {
    type: "button", class: seat === view.seat ? "seat chosen" : "seat", "data-seat": seat,
    onclick: () => { view.seat = seat; render(); },
  }, seat)));
  document.getElementById("chips").replaceChildren(...CHIPS.map((cents) => el("button", {
    type: "button", class: "chip-button", "data-chip": cents,
    onclick: () => {
      view.chip = cents;
      view.typed = "";
      document.getElementById("amount").value = "";
      renderAmount();
    },
  }, money(cents))));
  renderAmount();
  document.getElementById("modes").replaceChildren(...[["bet", "places a bet"], ["remove", "takes a bet down"]].map(
    ([mode, label]) => el("button", { type: "button", class: mode === view.mode ? "mode chosen" : "mode",
      "data-mode": mode, onclick: () => { view.mode = mode; render(); } }, label)));
  const presses = PRESSES.filter((action) => action !== "next_shooter" || state.shooter !== null);
  document.getElementById("actions").replaceChildren(...presses.map(pressButton));
  const bySeat = new Map();
  for (const bet of state.bets) {
    if (!bySeat.has(bet.seat)) bySeat.set(bet.seat, []);
    bySeat.get(bet.seat).push(bet);
  }
  document.getElementById("bets").replaceChildren(...(state.bets.length ? [...bySeat].map(([seat, bets]) =>
    el("div", { class: `seat-bets${seat === view.seat ? " chosen" : ""}` }, el("strong", {}, `Seat ${seat}`),
      el("ul", {}, bets.map((bet) => el("li", { class: bet.bet === "odds" ? "odds" : "flat", "data-bet": `${bet.seat} ${bet.name}` },
        el("span", { class: "bet-what" }, el("span", { class: "bet-name" }, bet.name), " ",
          el("span", { class: "bet-amount" }, money(bet.amount)),
          bet.stays ? [" ", el("span", { class: "stays", title: bet.stays.reason },
            `stays${bet.stays.rule ? ` (${bet.stays.rule})` : ""}`)] : ""),
        bet.removable && !state.locked ?
          el("button", { type: "button", class: "take-down", onclick: () => takeDown(bet) }, "take down") : ""))))) :
    [el("p", { class: "quiet" }, "No bets on the layout.")]));
}

// The read the dealer rules on, whole and above everything else: its frame with each die's box,
// the dice, the reason, and the presses that rule on it.
function readWaits(state) {
  return state.phase === "pending" || state.phase === "manual" || view.entry !== null;
}

function renderWaiting() {
  const state = view.state;
  const box = document.getElementById("waiting");
  const shown = readWaits(state);
  if (box.hidden === shown) view.changedAt = Date.now();
  box.hidden = !shown;
  document.body.classList.toggle("read-waits", shown);
  if (!shown) {
    view.frameShown = null;
    return;
  }
  const read = state.read;
  const confirmable = state.pending && state.pending.confirmable;
  let title = "Enter the dice by hand";
  if (state.phase === "manual") {
    title = state.entry ? `Hand entry on the panel: die ${state.entry.index + 1} of ${state.entry.count}` : "Hand entry on the panel";
  } else if (state.phase === "pending") {
    title = confirmable ? "A read waits for you: CONFIRM it, enter the dice by hand, or VOID" :
      "The camera could not read these dice: enter them by hand, or VOID";
  }
  document.getElementById("waiting-title").textContent = title;
  const frameKey = read ? `${read.seq}:${read.frame}` : "none";
  if (view.frameShown !== frameKey) {
    view.frameShown = frameKey;
    document.getElementById("waiting-frame").replaceChildren(read ? annotatedFrame(read, "frame") :
      el("div", { class: "frame noframe" }, "no read of this roll yet"));
  }
  const dice = read && read.dice && read.dice.length ? read.dice : [];
  document.getElementById("waiting-dice").replaceChildren(...(dice.length ? dice.map((value, index) =>
    el("span", { class: "waiting-die", "data-die": index }, die(value, 56), el("span", {}, `die ${index + 1}: ${value}`))) :
    [el("span", { class: "waiting-none" }, "no dice read")]));
  const reason = document.getElementById("waiting-reason");
  reason.replaceChildren(...(read ? [el("strong", {}, read.reason ? `Why it waits: ${read.reason}` : `read ${read.status}`),
    el("br"), readLine(read)] : ["The dice are entered by hand."]));
  const presses = state.phase === "manual" ? ["lock", "confirm", "void"] : ["confirm", "manual", "void"];
  document.getElementById("waiting-actions").replaceChildren(...presses.map(pressButton));
  const why = document.getElementById("waiting-why");
  const refused = state.phase === "pending" && state.actions.confirm && !state.actions.confirm.can;
  why.hidden = !refused;
  why.textContent = refused ? `CONFIRM cannot settle this read: ${state.actions.confirm.why}` : "";
}

function ticked(seq, key) {
  return sessionStorage.getItem(`tick:${seq}:${key}`) === "1";
}

function renderRoll() {
  const state = view.state;
  const waiting = readWaits(state);
  const roll = state.last_rolls[0];
  const title = document.getElementById("roll-title");
  const holder = document.getElementById("roll");
  const payTitle = document.getElementById("pay-title");
  const pay = document.getElementById("paylist");
  if (!roll) {
    title.textContent = "No roll yet";
    delete title.dataset.seq;
    holder.replaceChildren();
    payTitle.textContent = "Pay and take";
    pay.replaceChildren();
    return;
  }
  title.textContent = `${waiting ? "Previous roll" : "Roll"} ${roll.number}: ${roll.dice.join("-")} = ${roll.total}`;
  title.dataset.seq = roll.seq;
  title.dataset.number = roll.number;
  const how = el("p", { class: "read" }, diceRow(roll.dice, 26),
    ` ${SETTLED_BY[roll.source] || roll.source}${roll.by ? ` (${roll.by}'s roll)` : ""} · ${readLine(roll.read)}`);
  holder.replaceChildren(...(waiting ? [how] : [annotatedFrame(roll.read), how]));
  payTitle.textContent = `Pay and take: roll ${roll.number}${waiting ? " (the previous roll)" : ""}`;
  if (waiting) {
    pay.replaceChildren(el("p", { class: "pay-hidden" },
      `Roll ${roll.number}'s pay list is hidden while a read waits: pay this roll once it is settled.`));
    return;
  }
  if (!roll.pay.length) {
    pay.replaceChildren(el("p", { class: "quiet" }, "Nothing to pay or take on this roll."));
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
          const at = Date.now();
          const last = view.ticked.get(`${roll.seq}:${key}`) || 0;
          if (at - last < SETTLING_MS) { // a double tap: the first tap stands
            event.target.checked = !event.target.checked;
            return;
          }
          view.ticked.set(`${roll.seq}:${key}`, at);
          sessionStorage.setItem(`tick:${roll.seq}:${key}`, event.target.checked ? "1" : "0");
          event.target.closest("li").classList.toggle("done", event.target.checked);
        } });
      return el("li", { class: `pay-line ${line.result}${ticked(roll.seq, key) ? " done" : ""}`, "data-line": line.text },
        el("label", {}, box, el("span", {}, line.text, line.note ? el("small", {}, ` (${line.note})`) : "")));
    })))));
}

function render() {
  const state = view.state;
  if (!state) return;
  if (view.entry && !(state.actions.manual && state.actions.manual.can)) view.entry = null; // settled elsewhere
  header(state);
  const options = { onTap: tap, selectedSeat: view.seat };
  drawLayout(document.getElementById("layout"), view.layout, state, options);
  drawSpaceList(document.getElementById("spaces"), view.layout, state, options);
  renderControls();
  renderWaiting();
  renderEntry();
  renderRoll();
}

// Every tap goes through here first. A finger's tap (a pointer's; a key's click has no spot) on the
// spot of the last one taken, within DOUBLE_TAP_MS of it and with nothing typed between, is that
// tap's second half: its click goes no further (nor the click a label passes to its checkbox).
function oneTapPerDoubleTap() {
  let last = null;
  let repeat = false;
  window.addEventListener("pointerdown", (event) => {
    const at = Date.now();
    repeat = last !== null && at - last.at <= DOUBLE_TAP_MS &&
      Math.hypot(event.clientX - last.x, event.clientY - last.y) <= SAME_SPOT_PX;
    if (!repeat) last = { at, x: event.clientX, y: event.clientY };
  }, true);
  window.addEventListener("click", (event) => {
    if (!repeat || event.detail === 0) return;
    event.preventDefault();
    event.stopPropagation();
  }, true);
  window.addEventListener("input", () => { last = null; }, true);
}

async function main() {
  oneTapPerDoubleTap();
  document.getElementById("amount").addEventListener("input", (event) => {
    view.typed = event.target.value;
    renderAmount();
  });
  await requireSession("dealer");
  live("/api/events", "state", async (state) => {
    if (!state) {
      notice("refused", "No table is being dealt right now.");
      return;
    }
    if (!view.layout || view.layout.game !== state.game) {
      view.layout = await (await fetch("/api/layout", { credentials: "same-origin" })).json();
      view.entry = null;
    }
    view.state = state;
    render();
  }, onLink);
}

main();
