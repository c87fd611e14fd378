// The betting layout drawn to scale from GET /api/layout (every size in centimetres of felt),
// with the chips on it from the state's `bets`. A tap on a space calls `onTap(space)`.

import { money, svg } from "./common.js";

export function drawLayout(holder, layout, state, { onTap, selectedSeat } = {}) {
  const drawing = svg("svg", {
    viewBox: `-2 -2 ${layout.width + 4} ${layout.height + 9}`,
    class: `layout ${layout.game}`,
    role: "img",
    "aria-label": `${layout.game} layout, ${layout.width} by ${layout.height} cm`,
  });
  drawing.append(svg("rect", { x: -2, y: -2, width: layout.width + 4, height: layout.height + 4, class: "felt", rx: 3 }));
  for (const section of layout.sections) {
    drawing.append(svg("rect", { x: section.x, y: section.y, width: section.w, height: section.h, class: "section" }));
    drawing.append(svg("text", { x: section.x + section.w - 1, y: section.y + section.h - 1, class: "section-label",
      "text-anchor": "end", "font-size": 2 }, section.label));
  }
  // Bets are closed while the dice are out; Bang's outside section also from the dealer's roll on (§4620.15(d)(8)).
  const closed = (space) => state.locked || (layout.game === "bang" && space.bet === "beat_dealer" && state.roller === "shooter");
  const byspace = new Map();
  for (const bet of state.bets) {
    if (!byspace.has(bet.space)) byspace.set(bet.space, []);
    byspace.get(bet.space).push(bet);
  }
  for (const space of layout.spaces) {
    const group = svg("g", { class: "space", "data-space": space.id, tabindex: 0, role: "button",
      "aria-label": `${space.label}, ${space.text}` });
    const isPoint = state.point !== null && space.bet === "place" && space.number === state.point && layout.game === "craps";
    const disabled = (space.number === "point" && !state.point) || closed(space);
    group.append(svg("rect", { x: space.x + 0.3, y: space.y + 0.3, width: space.w - 0.6, height: space.h - 0.6,
      rx: 1, class: `space-box${disabled ? " disabled" : ""}` }));
    const big = space.h >= 14 && space.w >= 14;
    // Bold capitals are about 0.75 of the font size wide: the label fits its space, never wider.
    const size = Math.min(big ? 3.4 : 2.3, (space.w - 1.5) / (0.75 * space.label.length), space.h * 0.42);
    group.append(svg("text", { x: space.x + space.w / 2, y: space.y + (big ? space.h / 2 : space.h / 2 + 0.8),
      class: "space-label", "text-anchor": "middle", "font-size": size.toFixed(2) }, space.label));
    if (space.h >= 10) {
      group.append(svg("text", { x: space.x + space.w / 2, y: space.y + space.h - 1.2, class: "space-limit",
        "text-anchor": "middle", "font-size": Math.min(1.7, space.w / 14).toFixed(2) },
        space.max === null ? "odds" : `max ${money(space.max)}`));
    }
    if (isPoint) {
      group.append(svg("circle", { cx: space.x + space.w - 3.5, cy: space.y + 3.5, r: 3, class: "puck-on" }));
      group.append(svg("text", { x: space.x + space.w - 3.5, y: space.y + 4.3, class: "puck-text",
        "text-anchor": "middle", "font-size": 2 }, "ON"));
    }
    const chips = byspace.get(space.id) || [];
    chips.forEach((bet, index) => {
      const perRow = Math.max(1, Math.floor((space.w - 2) / 6));
      const cx = space.x + 3.5 + (index % perRow) * 6;
      const cy = space.y + (space.h >= 14 ? 5 : space.h / 2) + Math.floor(index / perRow) * 5.5;
      const mine = selectedSeat && bet.seat === selectedSeat;
      const chip = svg("g", { class: `chip${mine ? " mine" : ""}`, "data-seat": bet.seat, "data-amount": bet.amount });
      chip.append(svg("circle", { cx, cy, r: 2.6, class: "chip-disc" }));
      chip.append(svg("text", { x: cx, y: cy - 0.2, "text-anchor": "middle", class: "chip-seat", "font-size": 2 }, bet.seat));
      chip.append(svg("text", { x: cx, y: cy + 1.6, "text-anchor": "middle", class: "chip-amount", "font-size": 1.3 },
        money(bet.amount).replace(".00", "")));
      group.append(chip);
    });
    if (onTap) {
      group.addEventListener("click", () => onTap(space));
      group.addEventListener("keydown", (event) => { if (event.key === "Enter") onTap(space); });
    }
    drawing.append(group);
  }
  if (layout.game === "craps" && !state.point) {
    drawing.append(svg("circle", { cx: 11, cy: 6, r: 3, class: "puck-off" }));
    drawing.append(svg("text", { x: 11, y: 6.8, class: "puck-text-off", "text-anchor": "middle", "font-size": 2 }, "OFF"));
  }
  // The scale: 20 cm of felt.
  const y = layout.height + 4.5;
  drawing.append(svg("line", { x1: 0, y1: y, x2: 20, y2: y, class: "scale" }));
  drawing.append(svg("text", { x: 22, y: y + 0.8, class: "scale-text", "font-size": 2 },
    `20 cm · drawn to scale (${layout.width} × ${layout.height} cm)`));
  holder.replaceChildren(drawing);
}
