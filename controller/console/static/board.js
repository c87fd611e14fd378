// The public board beside the table, filling whatever screen it is on: the point, whether bets are
// open, the last roll large and the rolls before it, newest first, as many as the screen holds
// whole. No login.

import { diceRow, el, live } from "./common.js";

let shown = null;

function render(board) {
  shown = board;
  const latest = document.getElementById("board-latest");
  const rolls = document.getElementById("board-rolls");
  if (!board) {
    document.getElementById("board-game").textContent = "table closed";
    latest.replaceChildren();
    rolls.replaceChildren();
    return;
  }
  document.getElementById("board-game").textContent = board.game.toUpperCase();
  const point = document.getElementById("board-point");
  const label = board.game === "bang" ? "DEALER'S POINT" : "POINT";
  point.textContent = board.game === "hazard" ? "" : board.point ? `${label} ${board.point}` : `${label} OFF`;
  point.className = `board-point ${board.point ? "on" : "off"}`;
  point.hidden = board.game === "hazard";
  const open = document.getElementById("board-open");
  open.textContent = board.open ? "PLACE YOUR BETS" : "NO MORE BETS";
  open.className = `board-open ${board.open ? "open" : "closed"}`;
  document.getElementById("board-shooter").textContent =
    board.shooter ? `Shooter: seat ${board.shooter}${board.roller ? ` · ${board.roller}'s roll next` : ""}` : "";
  const [last, ...before] = board.history;
  latest.replaceChildren(...(last ? [el("div", { class: `board-roll latest${last.total === 7 ? " seven" : ""}`,
    "data-total": last.total }, diceRow(last.dice), el("span", { class: "board-total" }, String(last.total)),
  last.by ? el("small", {}, `${last.by}'s roll`) : "")] : [el("div", { class: "board-none" }, "no roll yet")]));
  rolls.replaceChildren(...before.map((roll) => el("li", { class: `board-roll${roll.total === 7 ? " seven" : ""}`,
    "data-total": roll.total }, diceRow(roll.dice), el("span", { class: "board-total" }, String(roll.total)),
  roll.by ? el("small", {}, roll.by) : "")));
  fit(rolls);
}

// Only whole rolls: one the screen would cut is left out (the oldest go first).
function fit(rolls) {
  const bottom = rolls.getBoundingClientRect().bottom;
  for (const roll of rolls.children) roll.hidden = false;
  for (const roll of rolls.children) roll.hidden = roll.getBoundingClientRect().bottom > bottom + 0.5;
}

window.addEventListener("resize", () => render(shown));
live("/api/board/events", "board", render);
