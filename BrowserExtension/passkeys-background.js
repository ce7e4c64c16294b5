// autofill's passkeys in the background (docs/BROWSER.md, "Passkeys"), loaded beside background.js
// (whose lists, picker and host helpers it uses). The origin is the browser's (`sender`, through
// frameOrigin); only a tab's top frame is served: a subframe's request falls back to the browser's
// own WebAuthn, which applies its own permissions policy. The host checks the relying party id
// against that origin before it lists anything, and signs only after a pick in the extension's list.
"use strict";

const PASSKEY_OFFSET = 1000;  // a conditional get's passkeys in a password list: positions 1001…
const PASSKEY_DECLINE = 9999; // "Other ways": the browser's own WebAuthn

function passkeyOrigin(sender) {
  const origin = frameOrigin(sender);
  return origin && sender.tab && sender.frameId === 0 ? origin : undefined;
}

function parsedCredential(answer) {
  try { return answer?.ok ? JSON.parse(answer.credential) : undefined; } catch { return undefined; }
}

// From passkeys.js: a page's modal get or create (a list to show), a conditional get (whether any
// provider holds a passkey for it), or a conditional create (the automatic upgrade: asked at once,
// without UI or prompt; a provider declines on its own rules). {ok: true, token, picker},
// {ok: true, waits: true}, {credential}, or {ok: false}: the browser's own WebAuthn runs.
async function passkeyOpen(message, sender) {
  const origin = passkeyOrigin(sender);
  if (!origin || !["get", "create"].includes(message.op) || typeof message.options !== "string" || typeof message.request !== "string") {
    return { ok: false };
  }
  if (message.op === "create" && message.mediation === "conditional") {
    const credential = parsedCredential(await ask({ type: "passkey-create", origin, options: message.options, conditional: true }));
    return credential ? { ok: false, credential } : { ok: false };
  }
  const found = await ask({ type: "passkey-suggest", origin, options: message.options, ceremony: message.op });
  if (!found.ok) return { ok: false };
  // A conditional get waits in passkeys.js for a webauthn field's list, when there is something to offer.
  if (message.op === "get" && message.mediation === "conditional") return found.suggestions.length > 0 ? { ok: true, waits: true } : { ok: false };
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
  lists.set(token, { tabId: sender.tab.id, frameId: sender.frameId, documentId: sender.documentId, origin,
    kind: message.op === "get" ? "passkey" : "passkey-create", passkeyRequest: message.request, passkeyOptions: message.options,
    answer: Promise.resolve({ ok: true, suggestions: rows }) });
  return { ok: true, token, picker: PICKER };
}

// A password list for a `webauthn` field while the page waits on a conditional get: the site's
// passkeys join its rows (first), each a pick that answers that get.
function withPasskeys(list, passkey, sender) {
  if (sender.frameId !== 0 || typeof passkey?.options !== "string" || typeof passkey.request !== "string") return;
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
      ? await askWithPrompts({ type: "passkey-create", origin: list.origin, options: list.passkeyOptions }, list.origin)
      : await askWithPrompts({ type: "passkey-get", origin: list.origin, options: list.passkeyOptions, user: row.user }, list.origin);
    credential = parsedCredential(made);
    error = made.error;
  }
  await api.tabs.sendMessage(list.tabId, { type: "passkey-answer", request: list.passkeyRequest, credential }, target).catch(() => {});
  api.tabs.sendMessage(list.tabId, { type: "close", token: message.token }, target).catch(() => {});
  if (!row.passkey) return { ok: true, message: "Your browser's own passkeys and security keys." };
  return credential ? { ok: true } : { ok: false, error: error ?? "autofill did not sign" };
}
