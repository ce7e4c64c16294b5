// autofill's content script (docs/BROWSER.md), in every http(s) frame, in the extension's isolated
// world: page scripts see neither its variables nor its prototypes. On a sign-in field focused by the
// user's own gesture it shows the extension's list (picker.html, an extension page in an iframe inside
// a closed shadow root, of a fixed size whatever it holds: the page learns neither what nor how many);
// it fills only what the background sends after a pick in that list, only into this document, only
// when this frame's origin is the one the list was for, and only into fields the user can see.
"use strict";
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  // A frame whose origin is opaque (a sandboxed frame, a data: document) gets nothing. The background
  // refuses it by `sender.origin` in Chromium, but Firefox names a frame by its URL, which a sandboxed
  // frame keeps; this world's own `origin` (the page cannot change it here) says what it is.
  if (globalThis.origin === "null" || location.origin === "null") return;
  const WIDTH = 320, HEIGHT = 168;
  const EXTENSION_ORIGIN = new URL(api.runtime.getURL("")).origin;
  const PICKER = api.runtime.getURL("picker.html");
  // The native value setter of this world (a page cannot replace it).
  const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
  let shown = null;        // { host, field, token }
  let lastGesture = { type: null, target: null, time: 0 };

  function tokens(field) {
    return (field.getAttribute("autocomplete") || "").toLowerCase().split(/\s+/);
  }

  // What a field asks for: "password", "otp", or null when it is no sign-in field.
  function kindOf(field) {
    if (!(field instanceof HTMLInputElement) || field.disabled || field.readOnly) return null;
    const words = tokens(field);
    if (words.includes("one-time-code")) return "otp";
    if (words.includes("new-password")) return "new";
    if (field.type === "password" || words.includes("current-password") || words.includes("username") ||
        words.includes("webauthn")) return "password";
    return null;
  }

  // Whether the user can see `field`: rendered, not hidden or transparent, large enough, in the viewport.
  function visible(field) {
    if (!field.isConnected) return false;
    if (typeof field.checkVisibility === "function" &&
        !field.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true, opacityProperty: true, visibilityProperty: true })) return false;
    const style = getComputedStyle(field);
    if (style.display === "none" || style.visibility !== "visible" || Number(style.opacity) < 0.1) return false;
    const rect = field.getBoundingClientRect();
    if (rect.width < 4 || rect.height < 4) return false;
    return rect.right > 0 && rect.bottom > 0 && rect.left < innerWidth && rect.top < innerHeight;
  }

  function hide() {
    const was = shown;
    shown = null;
    if (was) { was.host.remove(); was.onHide?.(); }
  }

  // The list's element under `field` (or, field null, at the top right): an iframe for the
  // extension's page in a closed shadow root, of a fixed size, shown at once.
  function frameFor(field) {
    hide();
    const host = document.createElement("autofill-suggestions");
    const root = host.attachShadow({ mode: "closed" });
    const rect = field ? field.getBoundingClientRect() : { bottom: 8, left: innerWidth - WIDTH - 16 };
    const top = Math.min(rect.bottom + 2, Math.max(0, innerHeight - HEIGHT));
    const left = Math.min(Math.max(0, rect.left), Math.max(0, innerWidth - WIDTH));
    host.setAttribute("style", `all: initial !important; position: fixed !important; z-index: 2147483647 !important;
      top: ${top}px !important; left: ${left}px !important; width: ${WIDTH}px !important; height: ${HEIGHT}px !important;
      display: block !important; opacity: 1 !important; visibility: visible !important; transform: none !important;`);
    const frame = document.createElement("iframe");
    frame.setAttribute("style", "border: 1px solid #9aa0a6; border-radius: 6px; width: 100%; height: 100%; background: #fff; box-sizing: border-box;");
    // The list's page starts loading at once, beside the background's answer to "open" (its token
    // follows by message: attach).
    frame.addEventListener("load", () => { made.loaded = true; }, { once: true });
    frame.src = PICKER;
    root.appendChild(frame);
    shown = { host, field, token: null, frame };
    const made = shown;
    document.documentElement.appendChild(host);
    return { mine: shown, frame };
  }

  // Loads the extension's page for the list or prompt the background opened.
  function attach({ mine, frame }, opened) {
    if (shown !== mine) return;
    if (!opened?.ok) return hide();
    mine.token = opened.token;
    // The token goes to the list by a message to the extension's origin, never in its URL (which the
    // page could read from its resource timing and frame itself).
    // (Posted on each load: only a document of the extension's origin receives it, and the list takes the first.)
    const post = () => frame.contentWindow?.postMessage({ token: opened.token }, EXTENSION_ORIGIN);
    frame.addEventListener("load", post);
    if (mine.loaded) post();
  }

  // Opens the extension's list under `field` for `kind`, shown before the answer (whatever it holds).
  async function show(field, kind) {
    const made = frameFor(field);
    // The page's own password rules (Apple's passwordrules syntax) for a new password.
    const rules = kind === "new" ? (field.getAttribute("passwordrules") || "").slice(0, 1000) : undefined;
    // A pending conditional passkey get (passkeys.js): its passkeys join a `webauthn` field's list.
    const passkey = tokens(field).includes("webauthn") ? globalThis.autofillConditionalPasskey?.() : undefined;
    attach(made, await api.runtime.sendMessage({ type: "open", kind, rules, passkey }).catch(() => null));
  }

  // For passkeys.js: the list of a modal passkey request, at the top right; `onHide` when it closes.
  globalThis.autofillShowList = (opened, onHide) => {
    const made = frameFor(null);
    made.mine.onHide = onHide;
    attach(made, opened);
  };

  // The save prompt, when the background keeps a password this tab's user typed and submitted.
  async function offerPendingSave() {
    const opened = await api.runtime.sendMessage({ type: "pending-save" }).catch(() => null);
    if (opened?.ok) attach(frameFor(null), opened);
  }

  // The fields of the form `field` is in (or of the document): the user name before the password.
  function signInFields(field) {
    const scope = field.form ?? document;
    const inputs = [...scope.querySelectorAll("input")].filter((input) => visible(input));
    const password = field.type === "password" ? field
      : inputs.find((input) => input.type === "password" && !tokens(input).includes("new-password"));
    const userCandidates = inputs.filter((input) => tokens(input).includes("username") ||
      (["text", "email"].includes(input.type) && (password ? input.compareDocumentPosition(password) & Node.DOCUMENT_POSITION_FOLLOWING : true)));
    const user = tokens(field).includes("username") ? field : userCandidates.find((i) => tokens(i).includes("username")) ?? userCandidates.at(-1);
    return { user, password };
  }

  // Fields the user typed in (trusted input events), and what the extension filled: a save is offered
  // only for a password the user typed, never for one a page script set or the extension filled.
  const typed = new WeakSet();
  const filledValues = new WeakMap();
  addEventListener("input", (event) => {
    if (event.isTrusted && event.target instanceof HTMLInputElement) typed.add(event.target);
  }, true);

  function put(field, value) {
    if (!field || typeof value !== "string" || !visible(field)) return false;
    setValue.call(field, value);
    filledValues.set(field, value);
    field.dispatchEvent(new Event("input", { bubbles: true }));
    field.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  // A gesture of the user's own on a field: a trusted pointer press or key press.
  function noteGesture(event) {
    if (!event.isTrusted) return;
    if (shown && !event.composedPath().includes(shown.host) && event.target !== shown.field && event.type === "pointerdown") hide();
    lastGesture = { type: event.type, target: event.target, time: performance.now() };
  }
  addEventListener("pointerdown", noteGesture, true);
  addEventListener("keydown", (event) => {
    if (event.isTrusted && event.key === "Escape") hide();
    // Keyboard navigation of the list: the user's own arrows and Enter in the field go to the list
    // (by a message to the extension's origin with the list's token); a page's synthetic keys do not.
    if (event.isTrusted && shown?.token && event.target === shown.field && ["ArrowDown", "ArrowUp", "Enter"].includes(event.key)) {
      shown.frame.contentWindow?.postMessage({ token: shown.token, key: event.key }, EXTENSION_ORIGIN);
      if (event.key !== "Enter" || shown.keyed) event.preventDefault();
      if (event.key !== "Enter") shown.keyed = true;
    }
    noteGesture(event);
  }, true);

  addEventListener("focusin", (event) => {
    const field = event.target;
    if (shown && field === shown.field) return;
    const kind = event.isTrusted ? kindOf(field) : null;
    // Only a focus that follows the user's own press (on the field, or a key such as Tab) opens a
    // list: a page calling focus() by itself cannot make one appear under the user's next click.
    const recent = lastGesture.time > performance.now() - 1000;
    const byUser = recent && (lastGesture.type === "keydown" || lastGesture.target === field);
    if (!kind || !byUser || !visible(field)) {
      if (shown && !(field instanceof Node && shown.host.contains(field))) hide();
      return;
    }
    show(field, kind);
  }, true);

  // A form the user submitted (a trusted submit within two seconds of the user's own click or key)
  // with a password the user typed: offer to save it on the next page (the background keeps it for
  // this tab for two minutes, and saves it only after a pick in the extension's own prompt).
  addEventListener("submit", (event) => {
    if (!event.isTrusted || !(event.target instanceof HTMLFormElement)) return;
    if (lastGesture.time < performance.now() - 2000) return;
    const inputs = [...event.target.querySelectorAll("input[type=password]")].filter((input) => input.value && visible(input));
    const password = inputs.find((input) => tokens(input).includes("new-password")) ?? inputs[0];
    if (!password || !typed.has(password) || filledValues.get(password) === password.value) return;
    const user = signInFields(password).user;
    if (!user || !user.value) return;
    api.runtime.sendMessage({ type: "offer-save", user: user.value, password: password.value }).catch(() => {});
  }, true);

  // The top frame asks once, after it loaded, whether a save waits for the user's word.
  if (window === window.top) offerPendingSave();

  // Suggestions asked ahead: once this document shows a sign-in field (after it loaded, or when the
  // user first presses a key or pointer in it), the background asks for the frame's suggestions, so a
  // list opened on a focus draws them at once (the background keeps them a few seconds; the page
  // sees nothing of it).
  let preparedKinds = "";
  function prepareAhead() {
    const kinds = [...new Set([...document.querySelectorAll("input")].map((input) => kindOf(input))
      .filter((kind) => kind === "password" || kind === "otp"))].sort();
    if (!kinds.length || kinds.join() === preparedKinds) return;
    preparedKinds = kinds.join();
    api.runtime.sendMessage({ type: "prepare", kinds }).catch(() => {});
  }
  if (document.readyState === "complete") prepareAhead();
  else addEventListener("load", prepareAhead, { once: true });
  for (const type of ["pointerdown", "keydown"]) addEventListener(type, (event) => { if (event.isTrusted) prepareAhead(); }, { capture: true, once: true });

  // From the background, after a pick in this document's list: fill, here only.
  api.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== api.runtime.id) return false;
    if (message?.type === "close") {
      if (shown && message.token === shown.token) hide();
      return false;
    }
    if (message?.type !== "fill") return false;
    if (!shown || !shown.token || message.token !== shown.token || message.origin !== location.origin) {
      sendResponse({ ok: false, error: "This page no longer shows that list; nothing was filled." });
      return false;
    }
    const field = shown.field;
    let filled = false;
    if (message.generated) {
      // The new password, and its confirmation: every visible new-password field of the form.
      const scope = field.form ?? document;
      const fields = [...scope.querySelectorAll("input[type=password]")].filter((input) => tokens(input).includes("new-password"));
      filled = fields.map((input) => put(input, message.password)).some(Boolean);
    } else if (message.code !== null) {
      filled = put(field, message.code);
    } else {
      const { user, password } = signInFields(field);
      const userFilled = message.user !== null && put(user, message.user);
      const passwordFilled = message.password !== null && put(password, message.password);
      filled = userFilled || passwordFilled;
    }
    hide();
    sendResponse(filled ? { ok: true } : { ok: false, error: "No visible field to fill." });
    return false;
  });
})();
