// The public board beside the table: the point and the roll history, newest first. No login.

import { diceRow, el, live } from "./common.js";

function render(board) {
  if (!board) {
    document.getElementById("board-game").textContent = "table closed";
    return;
  }
  document.getElementById("board-game").textContent = board.game.toUpperCase();
  const point = document.getElementById("board-point");
  const label = board.game === "bang" ? "DEALER'S POINT" : "POINT";
  point.textContent = board.game === "hazard" ? "" : board.point ? `${label} ${board.point}` : `${label} OFF`;
  point.className = `board-point ${board.point ? "on" : "off"}`;
  const open = document.getElementById("board-open");
  open.textContent = board.open ? "PLACE YOUR BETS" : "NO MORE BETS";
  open.className = `board-open ${board.open ? "open" : "closed"}`;
  document.getElementById("board-shooter").textContent =
    board.shooter ? `Shooter: seat ${board.shooter}${board.roller ? ` · ${board.roller}'s roll next` : ""}` : "";
  document.getElementById("board-rolls").replaceChildren(...board.history.map((roll, index) =>
    el("li", { class: `board-roll${index === 0 ? " latest" : ""}${roll.total === 7 ? " seven" : ""}`,
      "data-total": roll.total }, diceRow(roll.dice, index === 0 ? 64 : 36),
    el("span", { class: "board-total" }, String(roll.total)), roll.by ? el("small", {}, roll.by) : "")));
}

live("/api/board/events", "board", render);
