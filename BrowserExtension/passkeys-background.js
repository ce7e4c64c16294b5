// autofill's passkeys in the background (docs/BROWSER.md, "Passkeys"), loaded beside background.js
// (whose lists, picker and host helpers it uses). The origin is the browser's (`sender`, through
// frameOrigin); a subframe is served when it is same-origin with all its ancestors, or, cross-origin,
// when its permissions policy allows the feature (`allow="publickey-credentials-get"` on its iframe),
// its ancestors and the top origin taken from the browser's frame tree (webNavigation). The host checks
// the relying party id against that origin before it lists anything, and signs only after a pick in
// the extension's list.
"use strict";

const PASSKEY_OFFSET = 1000;  // a conditional get's passkeys in a password list: positions 1001…
const PASSKEY_DECLINE = 9999; // "Other ways": the browser's own WebAuthn

function urlOrigin(url) {
  try {
    const origin = new URL(url).origin;
    return /^https?:\/\/[^/]+$/.test(origin) ? origin : undefined;
  } catch { return undefined; }
}

// Whether a frame may have autofill's passkeys for `feature` ("get" or "create"), and with which
// origins: {origin} (the top frame, or a frame same-origin with all its ancestors), {origin, topOrigin}
// (a cross-origin frame whose permissions policy allows the feature), or undefined (the browser's own
// WebAuthn decides). The origins are the browser's: `sender`, and the frame tree of
// webNavigation.getAllFrames for the ancestors. The one thing passkeys.js adds, from its isolated
// world (which a page's script cannot reach), is what the browser's permissions policy says for the
// frame's document (`document.featurePolicy.allowsFeature`), and whether its own origin is opaque
// (a sandboxed frame); either can only take away.
async function passkeyContext(sender, message, feature) {
  const origin = frameOrigin(sender);
  if (!origin || !sender.tab || sender.frameId === undefined || message.opaque !== false) return undefined;
  const allowed = message.policy?.[feature];
  if (allowed === false) return undefined;
  if (sender.frameId === 0) return { origin };
  if (!api.webNavigation?.getAllFrames) return undefined;
  const frames = await api.webNavigation.getAllFrames({ tabId: sender.tab.id }).catch(() => null);
  if (!Array.isArray(frames)) return undefined;
  const byId = new Map(frames.map((frame) => [frame.frameId, frame]));
  let frame = byId.get(sender.frameId);
  if (!frame || urlOrigin(frame.url) !== origin) return undefined;
  if (sender.documentId && frame.documentId && frame.documentId !== sender.documentId) return undefined;
  let sameOrigin = true;
  for (let hops = 0; frame.parentFrameId !== -1; hops++) {
    frame = byId.get(frame.parentFrameId);
    const ancestor = frame && urlOrigin(frame.url);
    if (!ancestor || hops > 32) return undefined;  // an about:blank, data: or unknown ancestor: nothing
    if (ancestor !== origin) sameOrigin = false;
  }
  if (sameOrigin) return { origin };
  // Cross-origin: only with the permission known granted (Firefox has no such API: nothing there).
  return allowed === true ? { origin, topOrigin: urlOrigin(frame.url) } : undefined;
}

// Conditional gets waiting in a frame, by their request token: the frame and its origins, for the
// webauthn field's list (withPasskeys). At most a few dozen; older ones are forgotten.
const conditionalGets = new Map();

function rememberConditional(token, sender, context) {
  conditionalGets.set(token, { tabId: sender.tab.id, frameId: sender.frameId, documentId: sender.documentId, ...context });
  for (const old of [...conditionalGets.keys()].slice(0, Math.max(0, conditionalGets.size - 32))) conditionalGets.delete(old);
}

function parsedCredential(answer) {
  try { return answer?.ok ? JSON.parse(answer.credential) : undefined; } catch { return undefined; }
}

// From passkeys.js: a page's modal get or create (a list to show), a conditional get (whether any
// provider holds a passkey for it), or a conditional create (the automatic upgrade: asked at once,
// without UI or prompt; a provider declines on its own rules). {ok: true, token, picker},
// {ok: true, waits: true}, {credential}, or {ok: false}: the browser's own WebAuthn runs.
async function passkeyOpen(message, sender) {
  if (!["get", "create"].includes(message.op) || typeof message.options !== "string" || typeof message.request !== "string") {
    return { ok: false };
  }
  const context = await passkeyContext(sender, message, message.op);
  if (!context) return { ok: false };
  const { origin, topOrigin } = context;
  if (message.op === "create" && message.mediation === "conditional") {
    const credential = parsedCredential(await ask({ type: "passkey-create", origin, topOrigin, options: message.options, conditional: true }));
    return credential ? { ok: false, credential } : { ok: false };
  }
  const found = await ask({ type: "passkey-suggest", origin, options: message.options, ceremony: message.op });
  if (!found.ok) return { ok: false };
  // A conditional get waits in passkeys.js for a webauthn field's list, when there is something to offer.
  if (message.op === "get" && message.mediation === "conditional") {
    if (found.suggestions.length === 0) return { ok: false };
    rememberConditional(message.request, sender, context);
    return { ok: true, waits: true };
  }
  let rows;
  if (message.op === "get") {
    // The list shows even when no provider holds a passkey for the site (its one row then declines):
    // falling back at once would tell the page, before any pick, whether the stores hold one.
    rows = found.suggestions.map((s) => ({ position: s.position, user: s.user, provider: "Passkey · " + s.provider, passkey: true }));
  } else {
    let name = "";
    try { name = String(JSON.parse(message.options).user?.name ?? ""); } catch { name = ""; }
    rows = [{ position: 1, user: "Create a passkey for " + name.slice(0, 200), provider: "saved by your provider", passkey: true }];
  }
  rows.push({ position: PASSKEY_DECLINE, user: "Other ways…",
    provider: rows.length ? "this browser's own passkeys and security keys" : "autofill holds no passkey for this site; this browser's own passkeys and security keys" });
  const token = randomToken();
  lists.set(token, { tabId: sender.tab.id, frameId: sender.frameId, documentId: sender.documentId, origin, topOrigin,
    kind: message.op === "get" ? "passkey" : "passkey-create", passkeyRequest: message.request, passkeyOptions: message.options,
    answer: Promise.resolve({ ok: true, suggestions: rows }) });
  return { ok: true, token, picker: PICKER };
}

// A password list for a `webauthn` field while the page waits on a conditional get: the site's
// passkeys join its rows (first), each a pick that answers that get.
function withPasskeys(list, passkey, sender) {
  if (typeof passkey?.options !== "string" || typeof passkey.request !== "string") return;
  const waiting = conditionalGets.get(passkey.request);
  if (!waiting || waiting.tabId !== sender.tab.id || waiting.frameId !== sender.frameId || waiting.documentId !== sender.documentId
      || waiting.origin !== list.origin) return;
  list.topOrigin = waiting.topOrigin;
  list.passkeyRequest = passkey.request;
  list.passkeyOptions = passkey.options;
  const found = ask({ type: "passkey-suggest", origin: list.origin, options: passkey.options, ceremony: "get" });
  list.answer = Promise.all([list.answer, found]).then(([passwords, keys]) => {
    const rows = keys.ok ? keys.suggestions.map((s) => ({ position: PASSKEY_OFFSET + s.position, user: s.user,
      provider: "Passkey · " + s.provider, passkey: true })) : [];
    if (!passwords.ok) return rows.length ? { ok: true, suggestions: rows } : passwords;
    return { ok: true, suggestions: [...rows, ...passwords.suggestions] };
  });
}

// The pick of a passkey row (or "Other ways"): the host signs (or creates) with the browser's
// origin; the credential, or fallback, goes to the frame's passkeys.js; then the list closes.
async function pickPasskey(list, row, message) {
  const target = list.documentId ? { frameId: list.frameId, documentId: list.documentId } : { frameId: list.frameId };
  let credential, error;
  if (row.passkey) {
    const made = list.kind === "passkey-create"
      ? await askWithPrompts({ type: "passkey-create", origin: list.origin, topOrigin: list.topOrigin, options: list.passkeyOptions }, list.origin)
      : await askWithPrompts({ type: "passkey-get", origin: list.origin, topOrigin: list.topOrigin, options: list.passkeyOptions, user: row.user },
        list.origin);
    credential = parsedCredential(made);
    error = made.error;
  }
  await api.tabs.sendMessage(list.tabId, { type: "passkey-answer", request: list.passkeyRequest, credential }, target).catch(() => {});
  api.tabs.sendMessage(list.tabId, { type: "close", token: message.token }, target).catch(() => {});
  if (!row.passkey) return { ok: true, message: "Your browser's own passkeys and security keys." };
  return credential ? { ok: true } : { ok: false, error: error ?? "autofill did not sign" };
}

// From passkeys.js: PublicKeyCredential.getClientCapabilities() in a frame autofill serves gains
// autofill's: conditional get and create, and a passkey platform authenticator (the providers'
// passkeys, reached without a security key). {served}: whether this frame is served.
async function passkeyCapabilities(message, sender) {
  return { ok: true, served: (await passkeyContext(sender, message, "get")) !== undefined };
}

// From passkeys.js: a WebAuthn signal of the page (signalUnknownCredential, …). Only its relying
// party id is checked, by the host, against the frame's origin (the browser's); the stores are not
// asked, so the answer does not depend on what they hold. {ok: true} (the page's wrapper then hands
// the signal to the browser's own), {ok: false, security: true} (the page gets a SecurityError), or
// {ok: false} (no origin autofill serves, or no host: the browser's own alone).
async function passkeySignal(message, sender) {
  const origin = frameOrigin(sender);
  if (!origin || message.opaque !== false || typeof message.rpId !== "string" || message.rpId.length > 300) return { ok: false };
  const checked = await ask({ type: "passkey-signal", origin, options: JSON.stringify({ rpId: message.rpId }) });
  if (checked.ok) return { ok: true };
  return checked.unreachable ? { ok: false } : { ok: false, security: true };
}
