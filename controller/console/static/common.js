// What every console page shares: the session and its CSRF token, JSON requests, the live
// state from server-sent events, money, dice and annotated frames. Plain ES modules: no build step.

const SVG = "http://www.w3.org/2000/svg";

export let session = null; // {user, role, csrf} once known

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function money(cents) {
  if (cents === null || cents === undefined) return "";
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}

export function betName(bet, number, on) {
  return [bet, number, on ? `on ${on}` : null].filter((part) => part !== null && part !== undefined).join(" ");
}

// The session of this browser, or a trip to the login page (with the way back).
export async function requireSession(role) {
  const answer = await fetch("/api/session", { credentials: "same-origin" });
  if (answer.status === 401) {
    location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
    throw new Error("not logged in");
  }
  session = await answer.json();
  if (role && session.role !== role) {
    location.href = session.role === "dealer" ? "/dealer" : "/pit";
    throw new Error(`not a ${role}`);
  }
  const who = document.getElementById("who");
  if (who) {
    who.replaceChildren(`${session.user} (${session.role}) `,
      el("button", { class: "small", type: "button", onclick: logout }, "log out"));
  }
  return session;
}

export async function post(path, body, headers = {}) {
  const answer = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": session ? session.csrf : "", ...headers },
    body: body === undefined ? "{}" : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await answer.json();
  } catch (error) {
    data = { reason: `${answer.status} ${answer.statusText}` };
  }
  if (answer.status === 401) location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
  return { status: answer.status, ok: answer.ok, data, seq: answer.headers.get("X-Journal-Seq") };
}

// A dealer's input (a bet, a removal, a press) carries an Idempotency-Key, so the table does it once
// whatever the network repeats; the same input tapped again within DOUBLE_TAP_MS of the first (a
// double tap, as the panel's buttons count one) carries the same key, and counts once.
const DOUBLE_TAP_MS = 400;
let lastTap = null;

function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function input(path, body) {
  const what = `${path} ${JSON.stringify(body)}`;
  const now = Date.now();
  if (!lastTap || lastTap.what !== what || now - lastTap.at > DOUBLE_TAP_MS) lastTap = { what, key: newKey(), at: now };
  return post(path, body, { "Idempotency-Key": lastTap.key });
}

async function logout() {
  await post("/api/logout");
  location.href = "/login";
}

// Live updates: `onState(state)` for every `name` event, with a word on the page while the
// connection is down (the browser reconnects by itself and is sent the whole state again; a stream
// the console refused, 503 while it is flooded, the browser gives up on: it is asked again here).
const REFUSED_RETRY_MS = 5000;

export function live(url, name, onState) {
  const status = document.getElementById("link");
  const source = new EventSource(url);
  source.addEventListener(name, (message) => {
    if (status) { status.textContent = "live"; status.className = "link up"; }
    onState(JSON.parse(message.data));
  });
  source.addEventListener("error", async () => {
    if (status) { status.textContent = "reconnecting"; status.className = "link down"; }
    if (url.startsWith("/api/events")) {
      const answer = await fetch("/api/session", { credentials: "same-origin" });
      if (answer.status === 401) location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
    }
    if (source.readyState === EventSource.CLOSED) setTimeout(() => live(url, name, onState), REFUSED_RETRY_MS);
  });
  return source;
}

const PIPS = {
  1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [3, 1], [1, 3], [3, 3]],
  5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]], 6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]],
};

// One die face as an SVG element, `size` pixels across.
export function die(value, size = 28, cls = "die") {
  const face = svg("svg", { viewBox: "0 0 4 4", width: size, height: size, class: cls, role: "img",
    "aria-label": `die ${value}` });
  face.append(svg("rect", { x: 0.1, y: 0.1, width: 3.8, height: 3.8, rx: 0.6, class: "die-face" }));
  for (const [x, y] of PIPS[value] || []) face.append(svg("circle", { cx: x, cy: y, r: 0.38, class: "pip" }));
  return face;
}

export function diceRow(values, size = 28) {
  return el("span", { class: "dice", "data-dice": values.join(" ") }, values.map((v) => die(v, size)));
}

// The saved frame of a read with each die's box and value drawn on it (from the read event's
// `boxes` and `size`), or a note when the read kept no frame.
export function annotatedFrame(read, cls = "frame") {
  if (!read || !read.frame) return el("div", { class: `${cls} noframe` }, read ? "no frame saved" : "no read");
  const holder = el("div", { class: cls });
  holder.append(el("img", { src: `/frames/${encodeURIComponent(read.frame)}`, alt: `frame ${read.frame}` }));
  if (read.size && read.boxes) {
    const [width, height] = read.size;
    const overlay = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "boxes", preserveAspectRatio: "none" });
    read.boxes.forEach((box, index) => {
      const [x, y, w, h] = box;
      const value = read.dice ? read.dice[index] : "?";
      overlay.append(svg("rect", { x, y, width: w, height: h, class: `box ${read.status}` }));
      overlay.append(svg("text", { x: x + w / 2, y: Math.max(14, y - 6), class: "box-label",
        "text-anchor": "middle" }, String(value)));
    });
    holder.append(overlay);
  }
  return holder;
}

// How a roll's dice were settled, in words.
export const SETTLED_BY = { read: "read by the camera", confirm: "confirmed by the dealer", manual: "entered by hand" };

export function readLine(read) {
  if (!read) return "no camera read";
  const confidence = typeof read.confidence === "number" ? ` · confidence ${read.confidence.toFixed(2)}` : "";
  const reason = read.reason ? ` · ${read.reason}` : "";
  return `read ${read.status}${read.dice && read.dice.length ? " " + read.dice.join("-") : ""}${confidence}${reason}`;
}

export const PHASE_WORDS = {
  open: "BETS OPEN", settled: "BETS OPEN", void: "VOIDED", locked: "NO MORE BETS", rolling: "CAGE SPINNING",
  confirm: "CONFIRM THE READ", enter: "ENTER THE DICE", manual: "HAND ENTRY", fault: "MOTOR FAULT", refused: "REFUSED",
};

export function header(state) {
  const phase = document.getElementById("phase");
  if (phase) {
    phase.textContent = PHASE_WORDS[state.display] || state.phase;
    phase.className = `phase ${state.locked ? "locked" : "open"}`;
    phase.dataset.phase = state.phase;
  }
  const point = document.getElementById("point");
  if (point) {
    const label = state.game === "bang" ? "Dealer's point" : "Point";
    point.replaceChildren(state.game === "hazard" ? "" :
      el("span", { class: `puck ${state.point ? "on" : "off"}` }, state.point ? `${label} ${state.point}` : `${label} OFF`));
  }
  const shooter = document.getElementById("shooter");
  if (shooter) {
    shooter.textContent = state.shooter ? `Shooter ${state.shooter}${state.roller ? ` · ${state.roller}'s roll` : ""}` : "";
  }
  const game = document.getElementById("game");
  if (game) game.textContent = state.game.toUpperCase();
  const recent = document.getElementById("recent");
  if (recent) {
    recent.replaceChildren(...state.last_rolls.slice(0, 6).map((roll) =>
      el("span", { class: "recent-roll", title: `roll #${roll.seq}` }, diceRow(roll.dice, 18), ` ${roll.total}`)));
  }
}
