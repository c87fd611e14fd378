// Log in, then go where the user was going (or to the page of their role).

// `next` as a path of this console, or null: a browser reads "/\evil.test" as "//evil.test",
// another site, so only what resolves to this very origin is followed.
function ownPath(next) {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.includes("\\")) return null;
  const url = new URL(next, location.origin);
  return url.origin === location.origin ? url.pathname + url.search + url.hash : null;
}

const form = document.getElementById("login");
const error = document.getElementById("error");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.hidden = true;
  const answer = await fetch("/api/login", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: document.getElementById("user").value, password: document.getElementById("password").value }),
  });
  const data = await answer.json().catch(() => ({ reason: `${answer.status} ${answer.statusText}` }));
  if (!answer.ok) {
    error.textContent = data.reason || "refused";
    error.hidden = false;
    return;
  }
  const next = ownPath(new URLSearchParams(location.search).get("next"));
  location.href = next || (data.role === "dealer" ? "/dealer" : "/pit");
});

fetch("/healthz").then((answer) => answer.json()).then((health) => {
  if (health.demo) {
    const demo = document.getElementById("demo");
    demo.textContent = "Demo logins: dealer / dealer, pit / pit";
    demo.hidden = false;
  }
});
