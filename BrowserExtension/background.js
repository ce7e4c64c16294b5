// autofill's background (docs/BROWSER.md): the only part of the extension that talks to the
// native host. Every origin it asks about is the one the browser reports for the frame that sent
// the message (`sender`), never one a page or a content script supplies; a fill goes back only to
// that frame's document, and only after the user picked in the extension's own list (picker.html).
"use strict";
// Passkeys (navigator.credentials): in a file of their own; Firefox loads it from the manifest's `scripts`.
if (typeof importScripts === "function") importScripts("passkeys-background.js");

const api = globalThis.browser ?? globalThis.chrome;
const HOST = "org.autofill.browser";
const PICKER = api.runtime.getURL("picker.html");
// Open lists by token: the frame that asked (tab, frame, document, origin), what it asked for, and the
// host's answer (a promise). Kept in memory only: a list outlives neither the service worker nor a pick.
const lists = new Map();

function randomToken() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The origin of the frame that sent a message, by the browser's word: `sender.origin` (Chromium), or
// the origin of `sender.url` (Firefox). Only http and https frames are served; an opaque origin
// ("null": a sandboxed frame, a data: URL) gets nothing.
function frameOrigin(sender) {
  let origin = sender.origin;
  if (!origin && sender.url) {
    try { origin = new URL(sender.url).origin; } catch { origin = undefined; }
  }
  if (typeof origin !== "string" || !/^https?:\/\/[^/]+$/.test(origin)) return undefined;
  return origin;
}

function ask(request) {
  return api.runtime.sendNativeMessage(HOST, request).catch((error) => ({
    ok: false, unreachable: true,
    error: "autofill's native host did not answer (" + (error?.message ?? error) + "); run `autofill browser install`",
  }));
}

// A request that may need the user (a locked provider's master password): over a port, so the host
// can send the command's UI requests (`{"type":"ui"}`) before its answer; each is shown in the
// extension's prompt window (prompt.html), and the user's answer goes back on the same port.
const PROMPT = api.runtime.getURL("prompt.html");
const prompts = new Map();  // token → { request, origin, windowId, resolve }

function askWithPrompts(request, origin) {
  return new Promise((resolve) => {
    let port;
    try { port = api.runtime.connectNative(HOST); } catch (error) {
      return resolve({ ok: false, error: "autofill's native host did not start (" + (error?.message ?? error) + ")" });
    }
    let answered = false;
    port.onMessage.addListener(async (message) => {
      if (message?.type === "ui") {
        const answer = await promptWindow(message.request, origin);
        port.postMessage({ type: "ui-answer", ...answer });
        return;
      }
      answered = true;
      resolve(message);
      port.disconnect();
    });
    port.onDisconnect.addListener(() => {
      if (!answered) resolve({ ok: false, error: "autofill's native host ended (" + (api.runtime.lastError?.message ?? "no answer") + ")" });
    });
    port.postMessage({ ...request, port: true });
  });
}

// Opens the prompt window for one UI request; its answer ({text}, {choice}, {confirmed},
// {acknowledged}), or {cancel: true} when the window is closed first.
async function promptWindow(request, origin) {
  const token = randomToken();
  return new Promise((resolve) => {
    const entry = { request, origin, windowId: undefined, resolve, shownAt: 0 };
    prompts.set(token, entry);
    api.windows.create({ url: PROMPT + "#" + token, type: "popup", width: 460, height: 300, focused: true }).then((window) => {
      entry.windowId = window.id;
    }, () => { prompts.delete(token); resolve({ cancel: true }); });
  });
}

api.windows?.onRemoved.addListener((windowId) => {
  for (const [token, entry] of prompts) {
    if (entry.windowId === windowId) { prompts.delete(token); entry.resolve({ cancel: true }); }
  }
});

// Whether `sender` is the extension's own prompt page, in the window opened for `entry`.
function fromPrompt(sender, token, entry) {
  return sender.id === api.runtime.id && sender.url === PROMPT + "#" + token && entry.windowId !== undefined &&
    sender.tab?.windowId === entry.windowId;
}

// From the prompt window: what to ask (the request, whose it is, for which site).
function promptRequest(message, sender) {
  const entry = prompts.get(message.token);
  if (!entry || !fromPrompt(sender, message.token, entry)) return { ok: false, error: "This prompt has expired." };
  entry.shownAt = Date.now();
  return { ok: true, request: entry.request, origin: entry.origin };
}

// From the prompt window: the user's answer; the window closes.
function promptAnswer(message, sender) {
  const entry = prompts.get(message.token);
  if (!entry || !fromPrompt(sender, message.token, entry)) return { ok: false };
  prompts.delete(message.token);
  const answer = {};
  if (message.cancel === true) answer.cancel = true;
  else if (typeof message.text === "string") answer.text = message.text;
  else if (Number.isInteger(message.choice)) answer.choice = message.choice;
  else if (typeof message.confirmed === "boolean") answer.confirmed = message.confirmed;
  else if (message.acknowledged === true) answer.acknowledged = true;
  else answer.cancel = true;
  entry.resolve(answer);
  api.windows.remove(entry.windowId).catch(() => {});
  return { ok: true };
}

// Passwords the user typed and submitted, by tab, until the next page asks (at most two minutes).
const pendingSaves = new Map();
const SAVE_WAIT_MS = 120_000;

// From a content script: a form was submitted with a password the user typed.
function offerSave(message, sender) {
  const origin = frameOrigin(sender);
  if (!origin || !sender.tab || typeof message.user !== "string" || typeof message.password !== "string") return { ok: false };
  if (!message.user || !message.password || message.user.length > 1000 || message.password.length > 4000) return { ok: false };
  pendingSaves.set(sender.tab.id, { origin, user: message.user, password: message.password, time: Date.now() });
  return { ok: true };
}

// From a tab's top frame, once loaded: a prompt for the save waiting for this tab, if any. Its rows
// say whose password for which site; the password stays here.
async function pendingSave(message, sender) {
  const pending = sender.tab ? pendingSaves.get(sender.tab.id) : undefined;
  if (!pending || sender.frameId !== 0) return { ok: false };
  pendingSaves.delete(sender.tab.id);
  if (Date.now() - pending.time > SAVE_WAIT_MS) return { ok: false };
  const known = await ask({ type: "suggest", origin: pending.origin, kind: "password" });
  const update = known.ok && known.suggestions.some((s) => s.user === pending.user);
  const token = randomToken();
  const suggestions = [
    { position: 1, user: (update ? "Update the password of " : "Save the password of ") + pending.user, provider: pending.origin },
    { position: 2, user: "Not now", provider: "" },
  ];
  lists.set(token, { tabId: sender.tab.id, frameId: sender.frameId, documentId: sender.documentId, origin: pending.origin,
    kind: "save", save: pending, answer: Promise.resolve({ ok: true, suggestions }) });
  return { ok: true, token, picker: PICKER };
}

// The pick in a save prompt: save, or not; then the prompt closes.
async function answerSave(list, message) {
  let result = { ok: true, message: "Not saved." };
  if (message.position === 1) {
    forgetPrepared(list.origin);
    const saved = await ask({ type: "save", origin: list.origin, kind: "password", user: list.save.user, password: list.save.password });
    result = saved.ok ? { ok: true, message: "Saved." } : { ok: false, error: saved.error ?? "autofill did not save" };
  }
  const target = list.documentId ? { frameId: list.frameId, documentId: list.documentId } : { frameId: list.frameId };
  api.tabs.sendMessage(list.tabId, { type: "close", token: message.token }, target).catch(() => {});
  return result;
}

// Suggestions asked ahead of a focus (docs/BROWSER.md, "Asked ahead"): when a frame shows sign-in
// fields, its suggestions (user and provider names, never a secret) are asked of the host at once and
// kept here, for that frame's document and origin, for PREPARED_MS; a list opened there in that time
// draws them without waiting for the host. At most one ask per frame, origin and kind in that time,
// whatever the page does; nothing of it reaches the page.
const prepared = new Map();
const PREPARED_MS = 20_000;

function preparedKey(sender, origin, kind) {
  return [sender.tab?.id, sender.frameId, sender.documentId ?? "", origin, kind].join("|");
}

function prepare(message, sender) {
  const origin = frameOrigin(sender);
  if (!origin || !sender.tab || sender.frameId === undefined || !Array.isArray(message.kinds)) return { ok: false };
  const now = Date.now();
  for (const [key, entry] of prepared) if (now - entry.time > PREPARED_MS) prepared.delete(key);
  for (const kind of new Set(message.kinds.filter((k) => k === "password" || k === "otp"))) {
    const key = preparedKey(sender, origin, kind);
    if (!prepared.has(key)) prepared.set(key, { time: now, answer: ask({ type: "suggest", origin, kind }) });
  }
  return { ok: true };
}

// The suggestions asked ahead for this frame's `kind`, if fresh; each is used once.
function takePrepared(sender, origin, kind) {
  const key = preparedKey(sender, origin, kind);
  const entry = prepared.get(key);
  if (!entry) return undefined;
  prepared.delete(key);
  return Date.now() - entry.time <= PREPARED_MS ? entry.answer : undefined;
}

// What was asked ahead for `origin` is stale once a save may have changed it.
function forgetPrepared(origin) {
  for (const key of prepared.keys()) if (key.split("|")[3] === origin) prepared.delete(key);
}

// From a content script: a sign-in field got focus after a trusted gesture; open a list for it.
function openList(message, sender) {
  const origin = frameOrigin(sender);
  if (!origin || !sender.tab || sender.frameId === undefined) return { ok: false };
  const kind = ["otp", "new"].includes(message.kind) ? message.kind : "password";
  const rules = kind === "new" && typeof message.rules === "string" ? message.rules.slice(0, 1000) : undefined;
  const token = randomToken();
  // A new-password field: one row, and nothing asked of the providers until it is picked.
  const answer = kind === "new"
    ? Promise.resolve({ ok: true, suggestions: [{ position: 1, user: "Use a strong password", provider: "generated by your provider" }] })
    : takePrepared(sender, origin, kind) ?? ask({ type: "suggest", origin, kind });
  lists.set(token, { tabId: sender.tab.id, frameId: sender.frameId, documentId: sender.documentId, origin, kind, rules, answer });
  if (kind === "password" && message.passkey) withPasskeys(lists.get(token), message.passkey, sender);  // passkeys-background.js
  // At most a few open lists per tab: older ones are forgotten.
  const ofTab = [...lists.entries()].filter(([, list]) => list.tabId === sender.tab.id);
  for (const [old] of ofTab.slice(0, Math.max(0, ofTab.length - 4))) lists.delete(old);
  return { ok: true, token, picker: PICKER };
}

// Whether `sender` is the extension's own picker page, in the tab the list belongs to.
function fromPicker(sender, list) {
  return sender.id === api.runtime.id && typeof sender.url === "string" && sender.url.startsWith(PICKER) &&
    sender.tab?.id === list.tabId && sender.frameId !== list.frameId;
}

// From the picker: the rows to draw (user and provider names; never a secret).
async function listRows(message, sender) {
  const list = lists.get(message.token);
  if (!list || !fromPicker(sender, list)) return { ok: false, error: "This list has expired; focus the field again." };
  const answer = await list.answer;
  if (!answer.ok) return { ok: false, error: answer.error ?? "autofill did not answer" };
  return { ok: true, origin: list.origin, kind: list.kind, rows: answer.suggestions.map((s) => ({ position: s.position, user: s.user, provider: s.provider })) };
}

// From the picker, after a trusted click on a row: fill that frame's document.
async function pick(message, sender) {
  const list = lists.get(message.token);
  if (!list || !fromPicker(sender, list)) return { ok: false, error: "This list has expired; focus the field again." };
  lists.delete(message.token);  // one pick per list
  if (list.kind === "save") return answerSave(list, message);
  const answer = await list.answer;
  const row = answer.ok ? answer.suggestions.find((s) => s.position === message.position) : undefined;
  if (!row) return { ok: false, error: "No such suggestion." };
  if (row.passkey || list.kind.startsWith("passkey")) return pickPasskey(list, row, message);  // passkeys-background.js
  const filled = list.kind === "new"
    ? await askWithPrompts({ type: "generate", origin: list.origin, kind: "password", rules: list.rules }, list.origin)
    : await askWithPrompts({ type: "fill", origin: list.origin, kind: list.kind, position: row.position, user: row.user }, list.origin);
  if (!filled.ok) return { ok: false, error: filled.error ?? "autofill did not fill" };
  const target = list.documentId ? { frameId: list.frameId, documentId: list.documentId } : { frameId: list.frameId };
  try {
    const done = await api.tabs.sendMessage(list.tabId, {
      type: "fill", token: message.token, origin: list.origin, generated: list.kind === "new",
      user: filled.user ?? null, password: filled.password ?? null, code: filled.code ?? null,
    }, target);
    return done?.ok ? { ok: true } : { ok: false, error: done?.error ?? "The page changed; nothing was filled." };
  } catch {
    return { ok: false, error: "The page changed; nothing was filled." };
  }
}

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== api.runtime.id || typeof message !== "object" || message === null) return false;
  let reply;
  switch (message.type) {
    case "open": reply = Promise.resolve(openList(message, sender)); break;
    case "prepare": reply = Promise.resolve(prepare(message, sender)); break;
    case "offer-save": reply = Promise.resolve(offerSave(message, sender)); break;
    case "pending-save": reply = pendingSave(message, sender); break;
    case "rows": reply = listRows(message, sender); break;
    case "pick": reply = pick(message, sender); break;
    case "prompt-request": reply = Promise.resolve(promptRequest(message, sender)); break;
    case "prompt-answer": reply = Promise.resolve(promptAnswer(message, sender)); break;
    case "passkey-open": reply = passkeyOpen(message, sender); break;
    case "passkey-capabilities": reply = passkeyCapabilities(message, sender); break;
    case "passkey-signal": reply = passkeySignal(message, sender); break;
    default: return false;
  }
  reply.then(sendResponse, () => sendResponse({ ok: false }));
  return true;
});
