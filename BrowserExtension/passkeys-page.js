// autofill's passkeys in the page (docs/BROWSER.md, "Passkeys"): runs in the page's MAIN world at
// document_start, before any script of the page, and wraps navigator.credentials.get and .create
// for `publicKey` requests. It hands the options (and nothing else: no origin, no gesture) to the
// extension's isolated content script (passkeys.js) as a DOM event the page could send too (which
// is no more than calling get itself), and waits for its answer: a credential, built by autofill's
// host with the origin the browser reported for this frame after the user picked in the extension's
// own list; or "fallback", when the user declined or no provider holds a passkey for the site: the
// browser's own WebAuthn then runs (the saved originals), as if the extension were not there.
// It also wraps PublicKeyCredential.getClientCapabilities and the signal methods (below).
"use strict";
(() => {
  const container = globalThis.CredentialsContainer?.prototype;
  if (!container || !globalThis.PublicKeyCredential) return;
  const originalGet = container.get, originalCreate = container.create;
  const REQUEST = "autofill-passkey-request", ANSWER = "autofill-passkey-answer";
  const dispatch = EventTarget.prototype.dispatchEvent, listen = EventTarget.prototype.addEventListener;
  const pending = new Map();  // id → { resolve, op }
  let counter = 0;

  // base64url of a BufferSource, for the relying party's JSON form of the options.
  function encode(bytes) {
    const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let text = "";
    for (const byte of view) text += String.fromCharCode(byte);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function decode(text) {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  // The options as JSON (PublicKeyCredential*OptionsJSON): every BufferSource becomes base64url;
  // an AbortSignal and functions are left out.
  function toJSON(value) {
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return encode(value);
    if (Array.isArray(value)) return value.map(toJSON);
    if (value && typeof value === "object") {
      if (value instanceof AbortSignal) return undefined;
      const out = {};
      for (const key of Object.keys(value)) {
        const converted = toJSON(value[key]);
        if (converted !== undefined) out[key] = converted;
      }
      return out;
    }
    return typeof value === "function" ? undefined : value;
  }

  function define(target, members) {
    for (const [key, value] of Object.entries(members)) {
      Object.defineProperty(target, key, { value, enumerable: typeof value !== "function", configurable: true });
    }
    return target;
  }

  // A PublicKeyCredential-shaped object from the host's JSON (toJSON()'s form): what the relying
  // party's code reads (rawId, response.clientDataJSON, authenticatorData, signature, userHandle,
  // attestationObject, getTransports(), getClientExtensionResults(), toJSON()), as ArrayBuffers.
  function credentialFrom(json, op) {
    const r = json.response;
    const response = Object.create((op === "get" ? AuthenticatorAssertionResponse : AuthenticatorAttestationResponse).prototype);
    define(response, { clientDataJSON: decode(r.clientDataJSON) });
    if (op === "get") {
      define(response, { authenticatorData: decode(r.authenticatorData), signature: decode(r.signature),
        userHandle: r.userHandle ? decode(r.userHandle) : null });
    } else {
      define(response, { attestationObject: decode(r.attestationObject),
        getTransports: () => [...(r.transports ?? [])],
        getAuthenticatorData: () => decode(r.authenticatorData),
        getPublicKey: () => (r.publicKey ? decode(r.publicKey) : null),
        getPublicKeyAlgorithm: () => r.publicKeyAlgorithm });
    }
    const credential = Object.create(PublicKeyCredential.prototype);
    define(credential, { id: json.id, rawId: decode(json.rawId), type: "public-key",
      authenticatorAttachment: json.authenticatorAttachment ?? null, response,
      getClientExtensionResults: () => structuredClone(json.clientExtensionResults ?? {}),
      toJSON: () => structuredClone(json) });
    return credential;
  }

  listen.call(document, ANSWER, (event) => {
    let answer;
    try { answer = JSON.parse(event.detail); } catch { return; }
    const entry = pending.get(answer?.id);
    if (!entry) return;
    pending.delete(answer.id);
    entry.resolve(answer);
  });

  // Asks the extension; the answer: {credential} or {fallback: true}.
  function askExtension(op, options, mediation, signal) {
    return new Promise((resolve, reject) => {
      const id = "p" + (++counter) + "-" + Math.random().toString(36).slice(2);
      pending.set(id, { resolve });
      if (signal) {
        listen.call(signal, "abort", () => {
          if (!pending.delete(id)) return;
          dispatch.call(document, new CustomEvent(REQUEST, { detail: JSON.stringify({ id, cancel: true }) }));
          reject(signal.reason ?? new DOMException("The operation was aborted.", "AbortError"));
        });
      }
      dispatch.call(document, new CustomEvent(REQUEST, { detail: JSON.stringify({ id, op, options, mediation }) }));
    });
  }

  function wrap(op, original) {
    return async function (options) {
      const publicKey = options?.publicKey;
      if (!publicKey || (op === "get" && options.mediation === "silent")) return original.apply(this, arguments);
      if (options.signal?.aborted) throw options.signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
      let json;
      try { json = JSON.stringify(toJSON(publicKey)); } catch { return original.apply(this, arguments); }
      const answer = await askExtension(op, json, options.mediation ?? "optional", options.signal);
      if (answer.credential) return credentialFrom(answer.credential, op);
      return original.apply(this, arguments);
    };
  }

  const wrappedGet = wrap("get", originalGet), wrappedCreate = wrap("create", originalCreate);
  Object.defineProperty(container, "get", { value: function get(options) { return wrappedGet.apply(this, arguments); }, writable: true, configurable: true });
  Object.defineProperty(container, "create", { value: function create(options) { return wrappedCreate.apply(this, arguments); }, writable: true, configurable: true });

  // PublicKeyCredential.getClientCapabilities(): the browser's answer, and, in a frame autofill
  // serves, autofill's: conditional get and create, and a passkey platform authenticator.
  const Credential = globalThis.PublicKeyCredential;
  const originalCapabilities = Credential.getClientCapabilities;
  if (typeof originalCapabilities === "function") {
    Object.defineProperty(Credential, "getClientCapabilities", { writable: true, configurable: true,
      value: async function getClientCapabilities() {
        const own = await originalCapabilities.call(Credential);
        const answer = await askExtension("capabilities", "{}", "optional");
        if (!answer.served) return own;
        return { ...own, conditionalGet: true, conditionalCreate: true, passkeyPlatformAuthenticator: true };
      } });
  }

  // The signal methods: the arguments checked as browsers do (TypeError), the relying party id checked
  // by the host against the origin the browser reports for this frame (SecurityError), then handed
  // to the browser's own. autofill's stores are not asked: the page learns nothing of what they hold.
  const BASE64URL = /^[A-Za-z0-9_-]*$/;
  const SIGNALS = {
    signalUnknownCredential: (o) => typeof o.credentialId === "string" && BASE64URL.test(o.credentialId),
    signalAllAcceptedCredentials: (o) => typeof o.userId === "string" && BASE64URL.test(o.userId) && Array.isArray(o.allAcceptedCredentialIds)
      && o.allAcceptedCredentialIds.every((id) => typeof id === "string" && BASE64URL.test(id)),
    signalCurrentUserDetails: (o) => typeof o.userId === "string" && BASE64URL.test(o.userId) && typeof o.name === "string"
      && typeof o.displayName === "string",
  };
  for (const [name, valid] of Object.entries(SIGNALS)) {
    const original = Credential[name];
    if (typeof original !== "function") continue;
    Object.defineProperty(Credential, name, { writable: true, configurable: true, value: {
      async [name](options) {
        if (!options || typeof options !== "object" || typeof options.rpId !== "string" || !valid(options)) {
          throw new TypeError("Failed to execute '" + name + "' on 'PublicKeyCredential': invalid options.");
        }
        const answer = await askExtension("signal", JSON.stringify({ rpId: options.rpId }), "optional");
        if (answer.security) {
          throw new DOMException("The relying party ID is not a registrable domain suffix of, nor equal to the current domain.", "SecurityError");
        }
        return original.apply(Credential, arguments);
      } }[name] });
  }
})();
