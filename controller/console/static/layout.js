// The betting layout from GET /api/layout, with the chips on it from the state's `bets`, two ways:
// drawn to scale (every size in centimetres of felt) for a screen wide enough to hold it, and as a
// list of buttons for a phone, where a space drawn to scale would be too small to tap or read. A
// tap on a space calls `onTap(space)`.

import { el, money, svg } from "./common.js";

// Each space drawn is cut in bands, so that nothing on it ever covers its label: the label along
// the top, the chips (and the point's puck) below it, the limit along the bottom.
function bandsOf(space) {
  const label = space.h < 10 ? space.h * 0.46 : Math.min(space.h * 0.36, 6);
  const limit = space.h >= 10 ? Math.min(2.4, space.h * 0.17) : 0;
  return { label, limit, top: space.y + label, bottom: space.y + space.h - limit };
}

// Where a space's chips go, with the puck (if any) in the top right corner of that band: `slots`
// centres of chips of radius `r`.
function chipSlots(space, bands, puck) {
  const height = bands.bottom - bands.top - 0.4;
  const r = Math.max(0.8, Math.min(2.6, height / 2 - 0.1));
  const pr = puck ? Math.min(3, height / 2) : 0;
  const width = space.w - 1 - (puck ? 2 * pr + 0.6 : 0);
  const perRow = Math.max(1, Math.floor((width + 0.6) / (2 * r + 0.6)));
  const rows = Math.max(1, Math.floor((height + 0.3) / (2 * r + 0.3)));
  const slots = [];
  for (let row = 0; row < rows; row += 1) {
    for (let col = 0; col < perRow; col += 1) {
      slots.push([space.x + 0.5 + r + col * (2 * r + 0.6), bands.top + 0.2 + r + row * (2 * r + 0.3)]);
    }
  }
  return { r, slots, puck: puck ? [space.x + space.w - 0.5 - pr, bands.top + 0.2 + pr, pr] : null };
}

function betsBySpace(state) {
  const found = new Map();
  for (const bet of state.bets) {
    if (!found.has(bet.space)) found.set(bet.space, []);
    found.get(bet.space).push(bet);
  }
  return found;
}

// Bets are closed while the dice are out; Bang's outside section also from the dealer's roll on (§4620.15(d)(8)).
function closed(layout, state, space) {
  return state.locked || (layout.game === "bang" && space.bet === "beat_dealer" && state.roller === "shooter") ||
    (space.number === "point" && !state.point);
}

function pointOf(layout, state, space) {
  return layout.game === "craps" && state.point !== null && space.bet === "place" && space.number === state.point;
}

function said(bet) {
  return `seat ${bet.seat} ${bet.name} ${money(bet.amount)}`;
}

// One chip: a round one for a flat bet, a square one for odds, so that a come bet and the odds
// on it never look alike.
function chip(bet, [cx, cy], r, mine) {
  const odds = bet.bet === "odds";
  const group = svg("g", { class: `chip ${odds ? "odds" : "flat"}${mine ? " mine" : ""}`, "data-seat": bet.seat,
    "data-amount": bet.amount, "data-bet": bet.name }, svg("title", {}, said(bet)));
  group.append(odds ? svg("rect", { x: cx - r * 0.92, y: cy - r * 0.92, width: r * 1.84, height: r * 1.84, rx: r * 0.3,
    class: "chip-disc" }) : svg("circle", { cx, cy, r, class: "chip-disc" }));
  const roomy = r >= 2.2;
  group.append(svg("text", { x: cx, y: roomy ? cy - r * 0.18 : cy, "text-anchor": "middle", "dominant-baseline": "central",
    class: "chip-seat", "font-size": (r * (roomy ? 0.75 : 1.1)).toFixed(2) }, bet.seat));
  if (roomy) {
    group.append(svg("text", { x: cx, y: cy + r * 0.5, "text-anchor": "middle", "dominant-baseline": "central",
      class: "chip-amount", "font-size": (r * 0.42).toFixed(2) }, money(bet.amount)));
  }
  return group;
}

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
  const byspace = betsBySpace(state);
  const labels = [];
  for (const space of layout.spaces) {
    const group = svg("g", { class: "space", "data-space": space.id, tabindex: 0, role: "button",
      "aria-label": `${space.label}, ${space.text}` });
    group.append(svg("rect", { x: space.x + 0.3, y: space.y + 0.3, width: space.w - 0.6, height: space.h - 0.6,
      rx: 1, class: `space-box${closed(layout, state, space) ? " disabled" : ""}` }));
    const bands = bandsOf(space);
    const big = space.h >= 12 && space.w >= 14;
    // Bold capitals are about 0.75 of the font size wide: the label fits its band (measured below).
    const size = Math.min(big ? 3.4 : 2.3, bands.label * 0.72, (space.w - 1.5) / (0.75 * space.label.length));
    const label = svg("text", { x: space.x + space.w / 2, y: space.y + bands.label / 2, class: "space-label",
      "text-anchor": "middle", "dominant-baseline": "central", "font-size": size.toFixed(2) }, space.label);
    labels.push([label, space, bands]);
    group.append(label);
    if (bands.limit) {
      group.append(svg("text", { x: space.x + space.w / 2, y: bands.bottom + bands.limit / 2, class: "space-limit",
        "text-anchor": "middle", "dominant-baseline": "central",
        "font-size": Math.min(1.7, bands.limit * 0.7, space.w / 14).toFixed(2) },
      space.max === null ? "odds" : `max ${money(space.max)}`));
    }
    const off = layout.game === "craps" && !state.point && space.id === "dont_come";
    const puck = pointOf(layout, state, space) ? "ON" : off ? "OFF" : null;
    const { r, slots, puck: where } = chipSlots(space, bands, puck);
    if (where) {
      const [cx, cy, pr] = where;
      group.append(svg("circle", { cx, cy, r: pr, class: puck === "ON" ? "puck-on" : "puck-off" }));
      group.append(svg("text", { x: cx, y: cy, class: puck === "ON" ? "puck-text" : "puck-text-off", "text-anchor": "middle",
        "dominant-baseline": "central", "font-size": (pr * 0.7).toFixed(2) }, puck));
    }
    const chips = byspace.get(space.id) || [];
    const shown = chips.length > slots.length ? chips.slice(0, slots.length - 1) : chips;
    shown.forEach((bet, index) => group.append(chip(bet, slots[index], r, selectedSeat && bet.seat === selectedSeat)));
    if (shown.length < chips.length) {
      const [cx, cy] = slots[shown.length];
      const rest = chips.slice(shown.length);
      group.append(svg("g", { class: "chip more" }, svg("title", {}, rest.map(said).join("; ")),
        svg("circle", { cx, cy, r, class: "chip-disc" }),
        svg("text", { x: cx, y: cy, "text-anchor": "middle", "dominant-baseline": "central", class: "chip-seat",
          "font-size": (r * 0.8).toFixed(2) }, `+${rest.length}`)));
    }
    if (onTap) {
      group.addEventListener("click", () => onTap(space));
      group.addEventListener("keydown", (event) => { if (event.key === "Enter") onTap(space); });
    }
    drawing.append(group);
  }
  // The scale: 20 cm of felt.
  const y = layout.height + 4.5;
  drawing.append(svg("line", { x1: 0, y1: y, x2: 20, y2: y, class: "scale" }));
  drawing.append(svg("text", { x: 22, y: y + 0.8, class: "scale-text", "font-size": 2 },
    `20 cm · drawn to scale (${layout.width} × ${layout.height} cm)`));
  holder.replaceChildren(drawing);
  // The widths above are estimates of the font's: a label that came out wider or taller than its
  // band is made smaller until it fits (only a drawing on the page can be measured).
  if (!holder.offsetParent) return;
  for (const [label, space, bands] of labels) {
    const box = label.getBBox();
    const scale = Math.min(1, (space.w - 1) / box.width, (bands.label - 0.2) / box.height);
    if (scale < 1) label.setAttribute("font-size", (Number(label.getAttribute("font-size")) * scale * 0.98).toFixed(3));
  }
}

// The same spaces as buttons in a list, each big enough to tap and read on a phone: its label,
// its limit, and the chips on it (a flat bet's and odds' apart). The boxes of each number come
// first, as on the felt's top row, each number's together.
export function drawSpaceList(holder, layout, state, { onTap, selectedSeat } = {}) {
  const byspace = betsBySpace(state);
  const boxed = (space) => space.bet === "place" || (space.bet === "odds" && typeof space.number === "number");
  const order = [...layout.spaces.filter(boxed), ...layout.spaces.filter((space) => !boxed(space))];
  holder.replaceChildren(...order.map((space) => {
    const bets = byspace.get(space.id) || [];
    const point = pointOf(layout, state, space);
    return el("button", {
      type: "button", "data-space": space.id,
      class: `space-button${closed(layout, state, space) ? " closed" : ""}${point ? " point" : ""}`,
      "aria-label": `${space.label}, ${space.text}`, onclick: () => onTap && onTap(space),
    },
    el("span", { class: "space-name" }, space.label, point ? el("span", { class: "puck-mark" }, " ON") : ""),
    el("span", { class: "space-limit" }, space.max === null ? "odds" : `max ${money(space.max)}`),
    bets.length ? el("span", { class: "space-chips" }, bets.map((bet) => el("span", {
      class: `badge ${bet.bet === "odds" ? "odds" : "flat"}${selectedSeat && bet.seat === selectedSeat ? " mine" : ""}`,
      "data-seat": bet.seat, "data-bet": bet.name, title: said(bet),
    }, `${bet.seat}${bet.bet === "odds" ? " odds" : ""} ${money(bet.amount)}`))) : "");
  }));
}
