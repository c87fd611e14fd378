// Log in, then go where the user was going (or to the page of their role).

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
  const next = new URLSearchParams(location.search).get("next");
  location.href = next && next.startsWith("/") && !next.startsWith("//") ? next : data.role === "dealer" ? "/dealer" : "/pit";
});

fetch("/healthz").then((answer) => answer.json()).then((health) => {
  if (health.demo) {
    const demo = document.getElementById("demo");
    demo.textContent = "Demo logins: dealer / dealer, pit / pit";
    demo.hidden = false;
  }
});
