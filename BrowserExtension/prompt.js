// autofill's prompt window (docs/BROWSER.md, "The prompt window"): a provider's UI request (a
// locked Vault's master password) or one of autofill's own, in a window the extension opened itself
// (prompt.html is no web-accessible resource: a page can neither open nor frame it, nor message it).
// Framed as the terminal frames them: a provider's as "┌─ Name (id): title" with its text below, the
// host's own as "autofill ▶ title" in reverse video; provider text is only ever text (textContent).
"use strict";
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const token = location.hash.slice(1);
  const owner = document.getElementById("owner");
  const site = document.getElementById("site");
  const message = document.getElementById("message");
  const form = document.getElementById("form");
  let sent = false;

  function answer(value) {
    if (sent) return;
    sent = true;
    api.runtime.sendMessage({ type: "prompt-answer", token, ...value }).finally(() => window.close());
  }

  function button(label, value, primary) {
    const item = document.createElement("button");
    item.type = primary ? "submit" : "button";
    item.textContent = label;
    if (!primary) item.addEventListener("click", (event) => { if (event.isTrusted) answer(value); });
    return item;
  }

  function draw(reply) {
    if (!reply?.ok) { message.textContent = reply?.error ?? "This prompt has expired."; return; }
    const request = reply.request;
    const host = request.owner === "autofill";
    owner.className = host ? "host" : "provider";
    owner.textContent = host ? "autofill ▶ " + request.title : "┌─ " + request.owner + ": " + request.title;
    // autofill's own authentication (PAM: the user's own password; confirm: a yes/no), which no
    // provider's request carries.
    if (host && request.authentication === true) {
      owner.classList.add("authentication");
      const note = document.createElement("div");
      note.id = "authentication";
      note.textContent = request.kind === "confirm"
        ? "autofill's own question before it hands anything out (your policy confirm): not a provider's question"
        : "autofill's own check that it is you (your login password, asked by PAM): not a provider's question";
      owner.after(note);
    }
    site.textContent = "for " + reply.origin;
    message.textContent = request.message ?? "";
    document.title = host ? "autofill" : "autofill · " + request.owner;
    const buttons = document.createElement("div");
    buttons.className = "buttons";
    const cancel = button("Cancel", { cancel: true }, false);
    if (request.kind === "prompt") {
      const field = document.createElement("input");
      field.type = request.secret ? "password" : "text";
      field.id = "answer";
      field.autocomplete = "off";
      field.setAttribute("aria-label", request.message || "Answer");
      form.appendChild(field);
      buttons.append(cancel, button("OK", null, true));
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        if (!event.isTrusted) return;
        if (new TextEncoder().encode(field.value).length > request.maxLength) {
          message.textContent = (request.message ?? "") + "\nThat is longer than the " + request.maxLength + " bytes this takes.";
          return;
        }
        answer({ text: field.value });
      });
      setTimeout(() => field.focus(), 0);
    } else if (request.kind === "choose") {
      const items = document.createElement("ol");
      (request.items ?? []).forEach((text, index) => {
        const item = document.createElement("li");
        item.appendChild(button(text, { choice: index }, false));
        items.appendChild(item);
      });
      form.appendChild(items);
      buttons.append(cancel);
    } else if (request.kind === "confirm") {
      buttons.append(cancel, button("No", { confirmed: false }, false), button("Yes", { confirmed: true }, false));
    } else {
      buttons.append(cancel, button("OK", { acknowledged: true }, false));
    }
    form.appendChild(buttons);
    form.addEventListener("submit", (event) => event.preventDefault());
  }

  api.runtime.sendMessage({ type: "prompt-request", token }).then(draw, () => draw(null));
})();
