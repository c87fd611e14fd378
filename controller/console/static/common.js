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

// A POST of JSON with the session's CSRF token. `within`: milliseconds to wait for an answer, after
// which the request is given up (an exception, as when the network fails). `heard` says the answer
// is the console's own (JSON, a reason with any refusal), not a proxy's page.
export async function post(path, body, headers = {}, { within } = {}) {
  const answer = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": session ? session.csrf : "", ...headers },
    body: body === undefined ? "{}" : JSON.stringify(body),
    signal: within ? AbortSignal.timeout(within) : undefined,
  });
  let data = null;
  try {
    data = await answer.json();
  } catch (error) {
    data = null;
  }
  const heard = data !== null && typeof data === "object" && (answer.ok || typeof data.reason === "string");
  if (!heard) data = { reason: `${answer.status} ${answer.statusText}` };
  if (answer.status === 401) location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
  return { status: answer.status, ok: answer.ok, heard, data, seq: answer.headers.get("X-Journal-Seq") };
}

// A dealer's input (a bet, a removal, a press) carries an Idempotency-Key, so the table does it once
// whatever the network repeats. The same input tapped again within DOUBLE_TAP_MS of the first (a
// double tap, as the panel's buttons count one) is that tap: it is not sent again, and its answer
// is the first one's. With no answer of the console's (the network failed, nothing came within
// ANSWER_WITHIN_MS, a proxy answered for it), the input is sent again with the same key after each
// of RETRY_AFTER_MS: the console answers a key it knows with its first answer, and does an input it
// never received once. With none even then the answer is `lost`: it may or may not have been done.
export const DOUBLE_TAP_MS = 400;
const ANSWER_WITHIN_MS = 12000; // the table withdraws, and answers 503, what it has not taken in 10 s
const RETRY_AFTER_MS = [300, 1000, 2000];
let lastTap = null;

function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function input(path, body) {
  const what = `${path} ${JSON.stringify(body)}`;
  const now = Date.now();
  if (lastTap && lastTap.what === what && now - lastTap.at <= DOUBLE_TAP_MS) return lastTap.answer;
  lastTap = { what, at: now, answer: deliver(path, body, newKey()) };
  return lastTap.answer;
}

async function deliver(path, body, key) {
  let failure = "";
  for (let tries = 0; tries <= RETRY_AFTER_MS.length; tries += 1) {
    if (tries) await new Promise((done) => { setTimeout(done, RETRY_AFTER_MS[tries - 1]); });
    try {
      const answer = await post(path, body, { "Idempotency-Key": key }, { within: ANSWER_WITHIN_MS });
      if (answer.heard) return { ...answer, key, tries: tries + 1, lost: false };
      failure = answer.data.reason;
    } catch (error) {
      failure = error.name === "TimeoutError" ? `no answer within ${ANSWER_WITHIN_MS / 1000} s` : "the network failed";
    }
  }
  return { status: 0, ok: false, heard: false, lost: true, key, tries: RETRY_AFTER_MS.length + 1,
    data: { reason: failure }, seq: null };
}

async function logout() {
  await post("/api/logout");
  location.href = "/login";
}

// Live updates: `onState(state)` for every `name` event. The stream also says `alive` at once and
// whenever it has been quiet for `every` seconds: the "live" mark is on while something was heard
// within two of those, and `onLink(up)` is told when that changes. A stream silent longer than
// that is closed and opened again (a connection can die without an error). The browser reconnects
// a stream that failed by itself and is sent the whole state again; a stream the console refused,
// 503 while it is flooded, the browser gives up on: it is asked again here.
const REFUSED_RETRY_MS = 5000;

export function live(url, name, onState, onLink = () => {}) {
  const status = document.getElementById("link");
  let every = 5;
  let heard = 0;
  let up = null;
  let source = null;
  const mark = (now) => {
    if (now === up) return;
    up = now;
    if (status) { status.textContent = now ? "live" : "not connected"; status.className = `link ${now ? "up" : "down"}`; }
    onLink(now);
  };
  const open = () => {
    heard = Date.now();
    source = new EventSource(url);
    source.addEventListener(name, (message) => {
      heard = Date.now();
      mark(true);
      onState(JSON.parse(message.data));
    });
    source.addEventListener("alive", (message) => {
      heard = Date.now();
      every = Number(JSON.parse(message.data).every) || every;
      mark(true);
    });
    source.addEventListener("error", async () => {
      mark(false);
      if (url.startsWith("/api/events")) {
        const answer = await fetch("/api/session", { credentials: "same-origin" }).catch(() => null);
        if (answer && answer.status === 401) location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
      }
      if (source.readyState === EventSource.CLOSED) setTimeout(reopen, REFUSED_RETRY_MS);
    });
  };
  const reopen = () => {
    if (source) source.close();
    open();
  };
  setInterval(() => {
    if (Date.now() - heard > (2 * every + 1) * 1000) {
      mark(false);
      reopen();
    }
  }, 1000);
  open();
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
// A frame that cannot be loaded (gone from the disk, the network down) shows a note, never a
// broken image.
export function annotatedFrame(read, cls = "frame") {
  if (!read || !read.frame) return el("div", { class: `${cls} noframe` }, read ? "no frame saved" : "no read");
  const holder = el("div", { class: cls });
  if (read.size) holder.style.setProperty("--aspect", (read.size[0] / read.size[1]).toFixed(4));
  holder.append(el("img", {
    onerror: () => {
      holder.classList.add("noframe", "missing");
      holder.replaceChildren(el("span", {}, `frame ${read.frame} could not be loaded`));
    },
    src: `/frames/${encodeURIComponent(read.frame)}`, alt: `frame ${read.frame}`,
  }));
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
      el("span", { class: "recent-roll", title: `roll ${roll.number}` }, diceRow(roll.dice, 18), ` ${roll.total}`)));
  }
}
