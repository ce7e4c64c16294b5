// autofill's passkeys, the extension's side in the page (docs/BROWSER.md, "Passkeys"): an isolated
// content script at document_start. It takes a `publicKey` request of passkeys-page.js (the page's
// MAIN world) as options only, asks the background, which takes the origin from the browser
// (`sender`), and shows the extension's own list (content.js's, the same picker) for the user's pick;
// it gives the page back the credential, or "fallback" (the browser's own WebAuthn then runs).
// A conditional get waits here until the user focuses an `autocomplete="… webauthn"` field: its
// passkeys then appear in that field's list among the passwords (content.js asks `conditional()`).
// Each request carries what the browser's permissions policy says for this frame, read here, out of
// the page's reach; the background decides with the browser's frame tree whether the frame is served.
"use strict";
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const REQUEST = "autofill-passkey-request", ANSWER = "autofill-passkey-answer";
  const requests = new Map();  // our token → the page's id
  let conditional = null;      // { token, options } of a pending conditional get

  function randomToken() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // The answer to the page's request `id`: {credential} or {fallback: true}.
  function answerPage(token, answer) {
    const id = requests.get(token);
    if (id === undefined) return;
    requests.delete(token);
    if (conditional?.token === token) conditional = null;
    document.dispatchEvent(new CustomEvent(ANSWER, { detail: JSON.stringify({ id, ...answer }) }));
  }

  // What the browser's permissions policy says for this document, read in this isolated world (a
  // page's script that overrides document.featurePolicy does so in its own world only): true, false,
  // or undefined where the browser has no such API (Firefox). And whether this frame's origin is opaque.
  function allows(feature) {
    const policy = document.permissionsPolicy ?? document.featurePolicy;
    try { return typeof policy?.allowsFeature === "function" ? policy.allowsFeature(feature) === true : undefined; } catch { return undefined; }
  }

  function frame() {
    return { policy: { get: allows("publickey-credentials-get"), create: allows("publickey-credentials-create") },
      opaque: globalThis.origin === "null" || location.origin === "null" };
  }

  // The list (content.js's frame and picker) for a modal request, once content.js has loaded.
  function showList(opened, token) {
    const show = () => globalThis.autofillShowList(opened, () => answerPage(token, { fallback: true }));
    if (globalThis.autofillShowList) show();
    else addEventListener("DOMContentLoaded", () => setTimeout(show, 0), { once: true });
  }

  document.addEventListener(REQUEST, async (event) => {
    let request;
    try { request = JSON.parse(event.detail); } catch { return; }
    if (typeof request?.id !== "string" || request.id.length > 100) return;
    if (request.cancel === true) {
      for (const [token, id] of requests) if (id === request.id) { requests.delete(token); if (conditional?.token === token) conditional = null; }
      return;
    }
    if (request.op === "capabilities" || request.op === "signal") {
      const token = randomToken();
      requests.set(token, request.id);
      let rpId;
      try { rpId = request.op === "signal" ? JSON.parse(request.options).rpId : undefined; } catch { rpId = undefined; }
      const answer = await api.runtime.sendMessage({ type: "passkey-" + request.op, rpId, ...frame() }).catch(() => null);
      return answerPage(token, request.op === "signal" ? { accepted: answer?.ok === true, security: answer?.security === true }
        : { served: answer?.served === true });
    }
    if (!["get", "create"].includes(request.op) || typeof request.options !== "string" || request.options.length > 1 << 20) return;
    const token = randomToken();
    requests.set(token, request.id);
    const mediation = ["conditional", "required", "optional"].includes(request.mediation) ? request.mediation : "optional";
    if (request.op === "get" && mediation === "conditional") {
      // One pending conditional get per document: a newer one replaces it (the older falls back). It
      // waits for a webauthn field's list only when a provider holds a passkey for it; else the
      // browser's own conditional get runs (its own passkeys and security keys).
      if (conditional) answerPage(conditional.token, { fallback: true });
      conditional = { token, options: request.options };
      const held = await api.runtime.sendMessage({ type: "passkey-open", op: "get", options: request.options, mediation, request: token, ...frame() })
        .catch(() => null);
      if (!held?.waits) answerPage(token, { fallback: true });
      return;
    }
    const opened = await api.runtime.sendMessage({ type: "passkey-open", op: request.op, options: request.options, mediation, request: token,
      ...frame() })
      .catch(() => null);
    if (opened?.credential) return answerPage(token, { credential: opened.credential });
    if (!opened?.ok) return answerPage(token, { fallback: true });
    showList(opened, token);
  });

  // For content.js: the pending conditional get, when a `webauthn` field's list opens.
  globalThis.autofillConditionalPasskey = () => (conditional ? { request: conditional.token, options: conditional.options } : undefined);

  // From the background, after a pick in the extension's list: the credential, or fallback.
  api.runtime.onMessage.addListener((message, sender) => {
    if (sender.id !== api.runtime.id || message?.type !== "passkey-answer" || typeof message.request !== "string") return false;
    answerPage(message.request, message.credential ? { credential: message.credential } : { fallback: true });
    return false;
  });
})();
