// autofill's suggestion list (docs/BROWSER.md): an extension page, so the page it is shown over can
// neither read nor click it (another origin); its rows come from the background for this list's
// token, which the content script posts to it (never in the URL). A pick is a trusted click on a row,
// at least MIN_VISIBLE_MS after the rows appeared and, where the browser can tell
// (IntersectionObserver v2: Chromium), while the list is really visible (not covered, transparent or
// transformed by the page), so a page cannot slide the list under a click meant for something else.
"use strict";
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const MIN_VISIBLE_MS = 300;
  const title = document.getElementById("title");
  const rows = document.getElementById("rows");
  let token = null;
  let shownAt = Infinity;
  let picked = false;
  let visible = true;  // without IntersectionObserver v2 (Firefox), the time check alone

  try {
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) if ("isVisible" in entry) visible = entry.isVisible;
    }, { trackVisibility: true, delay: 100 });
    observer.observe(document.body);
    visible = !("isVisible" in IntersectionObserverEntry.prototype);
  } catch {
    visible = true;
  }

  function say(text) {
    rows.replaceChildren();
    const line = document.createElement("p");
    line.textContent = text;
    rows.appendChild(line);
  }

  async function pick(event, position) {
    if (!event.isTrusted || picked || !visible || performance.now() - shownAt < MIN_VISIBLE_MS) return;
    return pickRow(position);
  }

  async function pickRow(position) {
    picked = true;
    position = Number(position);
    const done = await api.runtime.sendMessage({ type: "pick", token, position });
    if (!done?.ok) say(done?.error ?? "Nothing was filled.");
    else if (done.message) say(done.message);
  }

  function draw(answer) {
    if (!answer?.ok) return say(answer?.error ?? "autofill did not answer.");
    title.textContent = "autofill · " + answer.origin;
    if (answer.rows.length === 0) return say("No saved logins for this site.");
    if (answer.kind === "new") title.textContent = "autofill · a new password for " + answer.origin;
    if (answer.kind === "save") title.textContent = "autofill · save this password?";
    if (answer.kind === "passkey") title.textContent = "autofill · sign in to " + answer.origin + " with a passkey";
    if (answer.kind === "passkey-create") title.textContent = "autofill · create a passkey for " + answer.origin;
    for (const row of answer.rows) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      const user = document.createElement("div");
      user.className = "user";
      user.textContent = row.user || "(no user name)";
      const provider = document.createElement("div");
      provider.className = "provider";
      provider.textContent = row.provider;
      button.append(user, provider);
      button.dataset.position = String(row.position);
      button.addEventListener("click", (event) => pick(event, row.position));
      item.appendChild(button);
      rows.appendChild(item);
    }
    shownAt = performance.now();
    // When the rows were drawn (ms since the epoch), for the tests' figure "list shown after focus":
    // a global of this extension frame, which the page cannot read (docs/BROWSER.md, "Figures").
    globalThis.autofillRowsShownAt = performance.timeOrigin + shownAt;
  }

  // The first message with a token names this list (a page that frames this page itself has no token
  // that opens anything: tokens are 128 random bits, known to the background and the content script).
  // Keyboard navigation: arrows move the highlighted row, Enter picks it. Only from the content
  // script, which forwards the user's own (trusted) keys with this list's token; the same checks as a
  // click (visible, shown long enough, one pick) apply.
  let highlighted = -1;
  function key(name) {
    const buttons = [...rows.querySelectorAll("button")];
    if (buttons.length === 0) return;
    if (name === "Enter") {
      if (highlighted >= 0 && !picked && visible && performance.now() - shownAt >= MIN_VISIBLE_MS) pickRow(buttons[highlighted].dataset.position);
      return;
    }
    const step = name === "ArrowDown" ? 1 : -1;
    highlighted = highlighted < 0 ? (step > 0 ? 0 : buttons.length - 1) : (highlighted + step + buttons.length) % buttons.length;
    buttons.forEach((button, index) => button.classList.toggle("highlighted", index === highlighted));
  }

  addEventListener("message", (event) => {
    if (token !== null && event.data?.token === token && ["ArrowDown", "ArrowUp", "Enter"].includes(event.data.key)) return key(event.data.key);
    if (token !== null || typeof event.data?.token !== "string" || !/^[0-9a-f]{32}$/.test(event.data.token)) return;
    token = event.data.token;
    api.runtime.sendMessage({ type: "rows", token }).then(draw, () => say("autofill did not answer."));
  });
})();
