// autofill's suggestion list (docs/BROWSER.md): an extension page, so the page it is shown over can
// neither read nor click it (another origin); its rows come from the background for this list's
// token. A pick is a trusted click (or Enter) on a row, at least MIN_VISIBLE_MS after the rows
// appeared, so a page cannot slide the list under a click the user meant for something else.
"use strict";
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const MIN_VISIBLE_MS = 300;
  const token = location.hash.slice(1);
  const title = document.getElementById("title");
  const rows = document.getElementById("rows");
  let shownAt = Infinity;
  let picked = false;

  function say(text) {
    rows.replaceChildren();
    const line = document.createElement("p");
    line.textContent = text;
    rows.appendChild(line);
  }

  async function pick(event, position) {
    if (!event.isTrusted || picked || performance.now() - shownAt < MIN_VISIBLE_MS) return;
    picked = true;
    const done = await api.runtime.sendMessage({ type: "pick", token, position });
    if (!done?.ok) say(done?.error ?? "Nothing was filled.");
  }

  api.runtime.sendMessage({ type: "rows", token }).then((answer) => {
    if (!answer?.ok) return say(answer?.error ?? "autofill did not answer.");
    title.textContent = "autofill · " + answer.origin;
    if (answer.rows.length === 0) return say("No saved logins for this site.");
    for (const row of answer.rows) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.position = String(row.position);
      const user = document.createElement("div");
      user.className = "user";
      user.textContent = row.user || "(no user name)";
      const provider = document.createElement("div");
      provider.className = "provider";
      provider.textContent = row.provider;
      button.append(user, provider);
      button.addEventListener("click", (event) => pick(event, row.position));
      item.appendChild(button);
      rows.appendChild(item);
    }
    shownAt = performance.now();
  }, () => say("autofill did not answer."));
})();
