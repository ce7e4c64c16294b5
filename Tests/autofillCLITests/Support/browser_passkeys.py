"""Passkeys through navigator.credentials in a real headless Chromium (BrowserPasskeyTests.swift,
docs/BROWSER.md "Passkeys"), with browser_driver.py's browser and pages; firefox_driver.py runs the
same scenarios in Firefox (FirefoxPasskeyTests.swift) through serve(), the Chromium-only parts (its
DevTools, the virtual authenticator, cross-origin frames its permissions policy lets autofill serve)
guarded by isinstance(browser, driver.Browser).

The relying party is this script's own server on localhost (a port of its own, also reached as
sub.localhost), its pages calling navigator.credentials as a site does, and its verification done
server-side by Support/relying_party.py (py_webauthn, python-fido2 as a second opinion), run with
the Python of AUTOFILL_TEST_RP_PATH (the test's PATH, where the venv holds them). Every pick is
chromedriver's real input. Prints one JSON object of observations; the Swift test judges them.

    browser_passkeys.py SCENARIO EXTENSION_FOLDER USER_DATA_FOLDER
    SCENARIO: passkeys (registration, sign-in, conditional mediation, the browser's own WebAuthn after
    "Other ways" and when no provider has one, the automatic upgrade) | passkey-hostile (a cross-origin
    frame, a page overriding navigator.credentials, a page faking the extension's messages and a pick)
    | passkey-frames (a same-origin frame, a cross-origin frame with and without the permission, a
    sandboxed frame, a page faking the permission; getClientCapabilities and the signal methods)
"""
import http.server, json, os, statistics, subprocess, sys, tempfile, threading, time
from urllib.parse import urlparse, parse_qs

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_driver as driver

RP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "relying_party.py")

# The relying party's page: its functions call navigator.credentials with the server's options and
# send the credential (toJSON()) back for verification; window.__result holds the outcome.
SCRIPT = """<script>
window.__results = [];
async function post(path, body) {
  const answer = await fetch(path, {method: "POST", body: body === undefined ? "" : JSON.stringify(body)});
  return answer.json();
}
function b64(buffer) {
  return btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
}
// What a relying party's script reads of a credential, checked against its toJSON().
function shape(credential, op) {
  const json = credential.toJSON(), r = credential.response;
  const same = b64(r.clientDataJSON) === json.response.clientDataJSON && b64(credential.rawId) === json.rawId && credential.id === json.id;
  const parts = op === "get"
    ? b64(r.authenticatorData) === json.response.authenticatorData && b64(r.signature) === json.response.signature
      && (r.userHandle === null ? json.response.userHandle === null : b64(r.userHandle) === json.response.userHandle)
    : b64(r.attestationObject) === json.response.attestationObject && Array.isArray(r.getTransports())
      && b64(r.getAuthenticatorData()) === json.response.authenticatorData;
  return {instance: credential instanceof PublicKeyCredential, type: credential.type, same, parts,
          extensions: typeof credential.getClientExtensionResults() === "object",
          clientData: JSON.parse(new TextDecoder().decode(r.clientDataJSON))};
}
async function ceremony(op, query, extra) {
  const started = Date.now();
  try {
    const options = await post("/rp/" + (op === "get" ? "authentication" : "registration") + "-options?" + query);
    const publicKey = op === "get" ? PublicKeyCredential.parseRequestOptionsFromJSON(options)
                                   : PublicKeyCredential.parseCreationOptionsFromJSON(options);
    const credential = await navigator.credentials[op]({publicKey, ...(extra || {})});
    const resolvedAt = Date.now();
    window.__last = credential.toJSON();
    const verdict = await post("/rp/" + (op === "get" ? "authentication" : "registration") + "-verify?" + query, credential.toJSON());
    window.__results.push({op, query, shape: shape(credential, op), verdict, resolvedAt, started});
  } catch (error) {
    window.__results.push({op, query, error: error.name + ": " + error.message, started, settledAt: Date.now()});
  }
}
</script>"""

# A bare get in a frame the relying party's endpoints may not serve (a sandboxed frame's fetch has an
# opaque origin): window.__probe becomes "credential" or the error's name and message.
PROBE = """<script>
window.__probe = null;
function probe() {
  const rpId = location.hostname.endsWith(".localhost") ? "localhost" : location.hostname;
  navigator.credentials.get({publicKey: {challenge: new Uint8Array(32), rpId}, signal: AbortSignal.timeout(20000)})
    .then(() => { window.__probe = "credential"; }, (error) => { window.__probe = error.name + ": " + error.message; });
}
</script><p>probe</p>"""

PAGES = {
    "/pk-probe": PROBE,
    # The page lies through document.featurePolicy and permissionsPolicy: every feature allowed.
    "/pk-liar": """<script>
        const liar = {allowsFeature: () => true, allowedFeatures: () => ["publickey-credentials-get", "publickey-credentials-create"],
                      features: () => ["publickey-credentials-get", "publickey-credentials-create"], getAllowlistForFeature: () => ["*"]};
        for (const name of ["featurePolicy", "permissionsPolicy"]) Object.defineProperty(Document.prototype, name, {get: () => liar, configurable: true});
        </script>""" + PROBE,
    "/pk-same": """<p>top</p><iframe id="inner" src="/pk" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk-allowed": """<p>top</p><iframe id="inner" allow="publickey-credentials-get; publickey-credentials-create"
        src="http://sub.localhost:{port}/pk" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk-sandboxed": """<p>top</p><iframe id="inner" sandbox="allow-scripts" src="/pk-probe" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk-late": """<p>top</p><iframe id="inner" src="http://sub.localhost:{port}/pk-probe" style="width:600px;height:320px;border:0"></iframe>
        <script>document.getElementById("inner").addEventListener("load", (event) =>
          event.target.setAttribute("allow", "publickey-credentials-get; publickey-credentials-create"));</script>""",
    "/pk-nested": """<p>top</p><iframe id="middle" allow="publickey-credentials-get"
        src="http://sub.localhost:{port}/pk-middle" style="width:640px;height:360px;border:0"></iframe>""",
    "/pk-middle": """<iframe id="inner" allow="publickey-credentials-get" src="http://localhost:{port}/pk" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk-allowed-probe": """<p>top</p><iframe id="inner" allow="publickey-credentials-get; publickey-credentials-create"
        src="http://sub.localhost:{port}/pk-probe" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk-allowed-conditional": """<p>top</p><iframe id="inner" allow="publickey-credentials-get"
        src="http://sub.localhost:{port}/pk-conditional" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk-plain": """<p>top</p><iframe id="inner" src="http://sub.localhost:{port}/pk-probe" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk-lying": """<p>top</p><iframe id="inner" src="http://sub.localhost:{port}/pk-liar" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk": SCRIPT + "<p>relying party</p>",
    "/pk-conditional": SCRIPT + """<form><input id="user" autocomplete="username webauthn">
        <input id="password" type="password" autocomplete="current-password"></form>
        <script>ceremony("get", "user=paula", {mediation: "conditional"});</script>""",
    "/pk-abort": SCRIPT + """<form><input id="user" autocomplete="username webauthn"></form>
        <script>window.__controller = new AbortController();
        ceremony("get", "user=paula", {mediation: "conditional", signal: window.__controller.signal});</script>""",
    "/pk-upgrade": SCRIPT + """<form><input id="user" autocomplete="username">
        <input id="password" type="password" autocomplete="current-password"></form>""",
    "/pk-framing": """<p>top</p><iframe id="inner" src="http://sub.localhost:{port}/pk" style="width:600px;height:320px;border:0"></iframe>""",
    "/pk-override": """<script>
        // The page's first script: the extension's wrapper is already in place (document_start) ...
        window.__saved = navigator.credentials.get;
        window.__wrappedFirst = window.__saved !== undefined && !/\\[native code\\]/.test(Function.prototype.toString.call(window.__saved));
        // ... and the page replaces it with its own: its calls are its own business.
        navigator.credentials.get = async () => "the page's own";
        </script>""" + SCRIPT,
    "/pk-forge": SCRIPT + """<script>
        window.__answers = [];
        document.addEventListener("autofill-passkey-answer", (event) => window.__answers.push(JSON.parse(event.detail)));
        async function forge(rpId) {
          const options = await post("/rp/authentication-options?user=paula" + (rpId ? "&rp=" + rpId : ""));
          // The extension's internal request, posted by the page itself, claiming another origin and a pick.
          document.dispatchEvent(new CustomEvent("autofill-passkey-request", {detail: JSON.stringify(
            {id: "forged", op: "get", options: JSON.stringify(options), mediation: "optional",
             origin: "http://localhost:" + location.port, picked: true, position: 1, user: "paula"})}));
          setTimeout(() => {
            // A fake pick: synthetic clicks and keys where the list is, and the picker's own messages.
            const host = document.querySelector("autofill-suggestions");
            if (host) for (const type of ["pointerdown", "mousedown", "mouseup", "click"]) host.dispatchEvent(new MouseEvent(type, {bubbles: true}));
            for (const key of ["ArrowDown", "Enter"]) document.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true}));
            window.postMessage({type: "pick", position: 1}, "*");
            document.dispatchEvent(new CustomEvent("autofill-passkey-answer", {detail: JSON.stringify({id: "other", fallback: true})}));
          }, 800);
        }
        </script>""",
}


class RelyingParty(driver.Pages):
    """browser_driver's pages and these, and the relying party's endpoints (POST /rp/…)."""

    def do_GET(self):
        body = PAGES.get(urlparse(self.path).path)
        if body is None:
            return super().do_GET()
        html = ("<!doctype html><meta charset=utf-8><title>t</title><body style='margin:20px'>"
                + body.replace("{port}", str(self.server.server_address[1])) + "</body>").encode()
        self.reply(200, "text/html; charset=utf-8", html)

    def reply(self, status, kind, body):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        state = os.path.join(self.server.state, query.get("user", "nobody") + ".json")
        origin = self.headers.get("Origin") or ""
        action = url.path.removeprefix("/rp/")
        if action == "registration-options":
            args = ["registration-options", state, "--rp-id", query.get("rp", "localhost"), "--user", query["user"]]
        elif action == "registration-verify":
            args = ["registration-verify", state, "--origin", origin] + (["--conditional"] if query.get("conditional") else [])
        elif action == "authentication-options":
            args = ["authentication-options", state, "--rp-id", query.get("rp", "localhost")]
            args += ["--allow-from", state] if query.get("allow") else []
        elif action == "authentication-verify":
            args = ["authentication-verify", state, "--origin", origin]
        else:
            return self.reply(404, "text/plain", b"")
        done = subprocess.run(["/usr/bin/env", "python3", RP] + args, input=body, capture_output=True, text=True,
                              env={**os.environ, "PATH": os.environ.get("AUTOFILL_TEST_RP_PATH", os.environ["PATH"])}, timeout=120)
        answer = json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else {"rejected": done.stderr.strip()[-300:]}
        if action.endswith("-verify"):
            answer = {"accepted": done.returncode == 0, "summary": answer}
        self.reply(200, "application/json", json.dumps(answer).encode())


def wait_result(browser, count, seconds=90):
    """Waits until the page holds `count` results; the last, or what the browser shows instead."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        results = browser.js("return window.__results || []")
        if len(results) >= count:
            return results[-1]
        time.sleep(0.2)
    return {"timeout": diagnosis(browser)}


def diagnosis(browser):
    """What the extension's pages show (the list's text, any prompt window), for a failure's message."""
    if not isinstance(browser, driver.Browser):  # Firefox: BiDi reaches the list's frame itself
        return [["picker.html", browser.in_list("return document.body ? document.body.innerText : null;")]]
    found = []
    for target in driver.devtools_targets(browser):
        url = target.get("url", "")
        if url.startswith("chrome-extension://") and "webSocketDebuggerUrl" in target:
            page = driver.DevTools(target["webSocketDebuggerUrl"])
            try:
                found.append([url, page.js("document.body ? document.body.innerText : null")])
            except RuntimeError as error:
                found.append([url, str(error)])
            finally:
                page.close()
    return found


# The rows of the extension's list, in its frame: [text, x, y] each.
ROWS = ("[...document.querySelectorAll('button')].map((b) => { const r = b.getBoundingClientRect();"
        " return [b.innerText, r.left + r.width / 2, r.top + r.height / 2]; })")


def picker_rows(browser):
    """The rows of the extension's list showing now (read through DevTools, or Firefox's BiDi: the
    page cannot), each [text, x, y] with x, y the row's middle in the list's frame; or None."""
    if not isinstance(browser, driver.Browser):
        return browser.in_list("return " + ROWS + ";") or None
    for target in driver.devtools_targets(browser):
        if target.get("url", "").startswith("chrome-extension://codbobpodobdemdnekmelhkipidjofnm/picker.html") and "webSocketDebuggerUrl" in target:
            frame = driver.DevTools(target["webSocketDebuggerUrl"])
            try:
                rows = frame.js(ROWS)
            except RuntimeError:
                rows = None
            finally:
                frame.close()
            if rows:
                return rows
    return None


def pick_row(browser, which, seconds=60, frame=None):
    """Waits for the list and its rows, then clicks a row with real input (past the list's 300 ms):
    row number `which`, or the first whose text starts with `which`; the rows' texts, or None when
    no list showed. With `frame` (an iframe's selector in the top page, or a list of them, each in
    the one before), the list is that frame's, and the driver is left in that frame."""
    frames = [frame] if isinstance(frame, str) else list(frame or [])
    offset = [0, 0]
    browser.frame()
    for css in frames:
        left, top = browser.js("const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.left, r.top];", css)
        offset = [offset[0] + left, offset[1] + top]
        browser.frame(css)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rect = driver.list_rect(browser)
        rows = picker_rows(browser) if rect else None
        index = which if isinstance(which, int) else next((i for i, row in enumerate(rows or []) if row[0].startswith(which)), 99)
        if rect and rows and len(rows) > index:
            time.sleep(0.4)
            browser.frame()
            browser.last_click = time.time() * 1000
            browser.click_at(offset[0] + rect[0] + rows[index][1], offset[1] + rect[1] + rows[index][2])
            for css in frames:
                browser.frame(css)
            return [row[0] for row in rows]
        time.sleep(0.2)
    return None


def wait_list(browser, seconds=30):
    """Whether the extension's list appears within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if driver.list_rect(browser) is not None:
            return True
        time.sleep(0.2)
    return False


def start(browser, script):
    browser.js("setTimeout(() => { " + script + " }, 0); return true;")


def passkeys(browser, origin):
    seen = {}
    browser.go(origin + "/pk")
    # Registration: the list offers to create the passkey; a pick creates it with the Vault.
    start(browser, 'ceremony("create", "user=paula")')
    seen["create.rows"] = pick_row(browser, 0)
    seen["create.result"] = wait_result(browser, 1)
    # Sign-in, five times (the figure: from the pick's click to the page's promise resolved).
    timings = []
    for attempt in range(5):
        start(browser, 'ceremony("get", "user=paula")')
        rows = pick_row(browser, "paula")
        result = wait_result(browser, 2 + attempt)
        if attempt == 0:
            seen["get.rows"], seen["get.result"] = rows, result
        if result and result.get("resolvedAt"):
            timings.append(result["resolvedAt"] - browser.last_click)
        seen.setdefault("get.accepted", []).append(bool(result and result.get("verdict", {}).get("accepted")))
    seen["get.pickToResolveMs"] = timings
    seen["get.pickToResolveMedianMs"] = statistics.median(timings) if timings else None
    # Conditional mediation: the page's pending get; the passkey in the webauthn field's list, with dave's password.
    browser.go(origin + "/pk-conditional")
    time.sleep(1)
    browser.click("#user")
    seen["conditional.rows"] = pick_row(browser, "paula")
    seen["conditional.result"] = wait_result(browser, 1)
    # The page aborts its conditional get: its promise rejects, and the field's list offers no passkey.
    browser.go(origin + "/pk-abort")
    time.sleep(2)
    browser.js("window.__controller.abort(); return true;")
    seen["abort.result"] = wait_result(browser, 1)
    browser.click("#user")
    seen["abort.rows"] = None
    if wait_list(browser):
        deadline = time.monotonic() + 30
        while seen["abort.rows"] is None and time.monotonic() < deadline:
            seen["abort.rows"] = [row[0] for row in picker_rows(browser) or []] or None
            time.sleep(0.2)
    if isinstance(browser, driver.Browser):
        browsers_own(browser, origin, seen)
    else:
        # Firefox: no virtual authenticator through BiDi. "Other ways…" declines; Firefox's own create
        # runs, finds no authenticator, and refuses: the page's promise settles with Firefox's error.
        browser.go(origin + "/pk")
        start(browser, 'ceremony("create", "user=victor")')
        seen["decline.rows"] = pick_row(browser, 1)
        seen["decline.result"] = wait_result(browser, 1, seconds=180)
    # The automatic upgrade: dave signs in with his saved password (a pick), then the page asks for a
    # conditional registration: created without a list or a prompt.
    browser.go(origin + "/pk-upgrade")
    seen["upgrade.password"] = driver.pick_first(browser, "#user", "#password")
    start(browser, 'ceremony("create", "user=dave&conditional=1", {mediation: "conditional"})')
    seen["upgrade.result"] = wait_result(browser, 1)
    seen["upgrade.list"] = driver.list_rect(browser) is not None
    return seen


def browsers_own(browser, origin, seen):
    """Chromium: the browser's own WebAuthn after a decline, with a virtual authenticator."""
    # The browser's own WebAuthn: a virtual authenticator (WebDriver's WebAuthn extension) stands in
    # for a platform authenticator or security key.
    authenticator = browser.call("POST", browser.session + "/webauthn/authenticator", {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserConsenting": True, "isUserVerified": True})
    browser.go(origin + "/pk")
    # "Other ways…" (the list's last row) declines: the browser's own create runs, and its authenticator makes the passkey.
    start(browser, 'ceremony("create", "user=victor")')
    rows = pick_row(browser, 1)
    seen["decline.rows"] = rows
    seen["decline.result"] = wait_result(browser, 1)
    # No provider holds the passkey the relying party allows: the list still shows (falling back at once
    # would tell the page what the stores hold), its one row declines, and the browser's own get runs.
    start(browser, 'ceremony("get", "user=victor&allow=1")')
    seen["unknown.rows"] = pick_row(browser, 0)
    seen["unknown.result"] = wait_result(browser, 2)
    seen["virtual.credentials"] = len(browser.call("GET", browser.session + f"/webauthn/authenticator/{authenticator}/credentials"))
    browser.call("DELETE", browser.session + f"/webauthn/authenticator/{authenticator}")


def passkey_hostile(browser, origin):
    seen = {}
    # The setup and the control: paula's passkey, made with a pick.
    browser.go(origin + "/pk")
    start(browser, 'ceremony("create", "user=paula")')
    pick_row(browser, 0)
    seen["control.create"] = wait_result(browser, 1)
    # A cross-origin frame (sub.localhost in a localhost page) asking for the top site's relying party id
    # gets no list: the browser's own WebAuthn answers it (which refuses a frame without the permission policy).
    port = urlparse(origin).port
    browser.go(origin + "/pk-framing")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        browser.frame("#inner")
        ready = browser.js("return typeof ceremony === 'function'")
        browser.frame()
        if ready:
            break
        time.sleep(0.1)
    browser.frame("#inner")
    start(browser, 'ceremony("get", "user=paula&rp=localhost")')
    seen["framed.result"] = wait_result(browser, 1)
    seen["framed.list"] = driver.list_rect(browser) is not None
    browser.frame()
    seen["framed.topList"] = driver.list_rect(browser) is not None
    # The control: the same page of sub.localhost at the top level is offered paula's passkey (a parent
    # domain's relying party id is allowed), and a pick signs for it.
    browser.go(f"http://sub.localhost:{port}/pk")
    start(browser, 'ceremony("get", "user=paula&rp=localhost")')
    seen["subTop.rows"] = pick_row(browser, "paula")
    seen["subTop.result"] = wait_result(browser, 1)
    # A page overriding navigator.credentials: its first script already sees the extension's wrapper
    # (document_start), and its own replacement is only its own.
    browser.go(origin + "/pk-override")
    seen["override.wrappedFirst"] = browser.js("return window.__wrappedFirst")
    seen["override.own"] = browser.js("return navigator.credentials.get({publicKey: {}}).then(String)")
    start(browser, "window.__saved.call(navigator.credentials, {publicKey: {challenge: new Uint8Array(16), rpId: 'localhost'}}).catch(() => {});")
    seen["override.savedList"] = wait_list(browser)
    # A page posting the extension's internal request itself, claiming another origin and a pick, then
    # faking the pick: from 127.0.0.1 (refused by the host: passkeys need https, or http for localhost) ...
    browser.go(origin.replace("localhost", "127.0.0.1") + "/pk-forge")
    start(browser, 'forge("localhost")')
    time.sleep(4)
    seen["forge.ip.answers"] = browser.js("return window.__answers")
    seen["forge.ip.list"] = driver.list_rect(browser) is not None
    # ... and from localhost, its own origin: the list shows (as a get would), but the page's fake pick signs nothing ...
    browser.go(origin + "/pk-forge")
    start(browser, "forge()")
    time.sleep(5)
    seen["forge.local.list"] = driver.list_rect(browser) is not None
    seen["forge.local.answers"] = browser.js("return window.__answers")
    # ... until the user's own pick (the control).
    pick_row(browser, "paula")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(a.get("credential") for a in browser.js("return window.__answers")):
        time.sleep(0.2)
    answers = browser.js("return window.__answers")
    seen["forge.local.picked"] = [a for a in answers if a.get("credential")][0]["credential"]["type"] if any(a.get("credential") for a in answers) else None
    return seen


def enter_frame(browser, ready="typeof ceremony === 'function'", frames=("#inner",)):
    """Waits until the top page's #inner frame (or the nested `frames`) has loaded its script; the
    driver is then in it."""
    deadline = time.monotonic() + 30
    while True:
        browser.frame()
        try:
            for css in frames:
                browser.frame(css)
            if browser.js("return " + ready) or time.monotonic() > deadline:
                return
        except RuntimeError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.1)


def probe_frame(browser, url):
    """A bare get in the #inner frame of `url`: {result, list (in the frame), topList}."""
    browser.go(url)
    enter_frame(browser, "typeof probe === 'function'")
    time.sleep(0.5)
    start(browser, "probe()")
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline and browser.js("return window.__probe") is None:
        time.sleep(0.2)
    seen = {"result": browser.js("return window.__probe"), "list": driver.list_rect(browser) is not None}
    browser.frame()
    seen["topList"] = driver.list_rect(browser) is not None
    return seen


# The three signal methods, each with `credential`'s ids (held by autofill) or made-up ones (held by
# no one), and with another site's rpId: what the page sees ("resolved" or the error's name) and how long.
SIGNALS = """
const [held, rpId] = [arguments[0], arguments[1]];
const other = "bm8tc3VjaC1jcmVkZW50aWFsLWlkLTEyMzQ1Njc4";
const calls = (id, user, rp) => ({
  signalUnknownCredential: {rpId: rp, credentialId: id},
  signalAllAcceptedCredentials: {rpId: rp, userId: user, allAcceptedCredentialIds: [id]},
  signalCurrentUserDetails: {rpId: rp, userId: user, name: "paula", displayName: "Paula"},
});
const out = {};
for (const [label, id, user, rp] of [["held", held.id, held.response.userHandle, rpId], ["unheld", other, other, rpId],
                                     ["foreign", held.id, held.response.userHandle, "example.com"]]) {
  for (const [name, options] of Object.entries(calls(id, user, rp))) {
    const started = performance.now();
    try { out[label + "." + name] = "resolved:" + String(await PublicKeyCredential[name](options)); }
    catch (error) { out[label + "." + name] = error.name; }
    out[label + "." + name + ".ms"] = performance.now() - started;
  }
}
return out;
"""


def allowed_frames(browser, origin, seen):
    """Chromium: cross-origin frames its permissions policy allows, served by autofill."""
    # A cross-origin frame (sub.localhost in a localhost page) with allow="publickey-credentials-get":
    # paula signs in for localhost; clientDataJSON says crossOrigin and the top page's origin.
    browser.go(origin + "/pk-allowed")
    enter_frame(browser)
    seen["allowed.capabilities"] = browser.js(CAPABILITIES)
    start(browser, 'ceremony("get", "user=paula&rp=localhost")')
    seen["allowed.get.rows"] = pick_row(browser, "paula", frame="#inner")
    seen["allowed.get"] = wait_result(browser, 1)
    start(browser, 'ceremony("create", "user=cora&rp=localhost")')
    seen["allowed.create.rows"] = pick_row(browser, 0, frame="#inner")
    seen["allowed.create"] = wait_result(browser, 2)
    browser.frame()
    # The same with conditional mediation: paula's passkey in the frame's webauthn field's list.
    browser.go(origin + "/pk-allowed-conditional")
    enter_frame(browser, "document.getElementById('user') !== null")
    time.sleep(1)
    browser.click("#user")
    seen["allowed.conditional.rows"] = pick_row(browser, "paula", frame="#inner")
    seen["allowed.conditional"] = wait_result(browser, 1)
    browser.frame()
    # A localhost frame inside a sub.localhost frame of a localhost page, both allowed: same-origin with
    # the top page but not with its parent, so cross-origin (the ancestors are the browser's frame tree).
    browser.go(origin + "/pk-nested")
    enter_frame(browser, frames=("#middle", "#inner"))
    start(browser, 'ceremony("get", "user=paula")')
    seen["nested.get.rows"] = pick_row(browser, "paula", frame=["#middle", "#inner"])
    seen["nested.get"] = wait_result(browser, 1)
    browser.frame()


# The browser's getClientCapabilities() (wrapped by autofill where it serves), or None without one.
CAPABILITIES = "return PublicKeyCredential.getClientCapabilities ? PublicKeyCredential.getClientCapabilities() : null;"


def passkey_frames(browser, origin):
    seen = {}
    port = urlparse(origin).port
    # The setup and the control: paula's passkey for localhost, made at the top level with a pick.
    browser.go(origin + "/pk")
    start(browser, 'ceremony("create", "user=paula")')
    pick_row(browser, 0)
    seen["control.create"] = wait_result(browser, 1)
    # getClientCapabilities at the top level (autofill's and the browser's), and the signals.
    seen["capabilities.top"] = browser.js(CAPABILITIES)
    start(browser, 'ceremony("get", "user=paula")')
    pick_row(browser, "paula")
    seen["signals.get"] = wait_result(browser, 2)
    seen["signals"] = browser.js("return (async () => {" + SIGNALS + "})()", browser.js("return window.__last"), "localhost")
    # A same-origin frame: registers sam's passkey and signs in with it, as the top frame does.
    browser.go(origin + "/pk-same")
    enter_frame(browser)
    start(browser, 'ceremony("create", "user=sam")')
    seen["same.create.rows"] = pick_row(browser, 0, frame="#inner")
    seen["same.create"] = wait_result(browser, 1)
    start(browser, 'ceremony("get", "user=sam")')
    seen["same.get.rows"] = pick_row(browser, "sam", frame="#inner")
    seen["same.get"] = wait_result(browser, 2)
    browser.frame()
    if isinstance(browser, driver.Browser):
        allowed_frames(browser, origin, seen)
    else:
        # Firefox offers the extension no permissions policy API: a cross-origin frame, even with
        # allow="publickey-credentials-get", gets nothing of autofill's (its own WebAuthn answers).
        seen["allowed"] = probe_frame(browser, origin + "/pk-allowed-probe")
        enter_frame(browser, "typeof probe === 'function'")
        seen["allowed.capabilities"] = browser.js(CAPABILITIES)
        browser.frame()
    # Without the permission (the control's page without allow), sandboxed, the permission faked by the
    # page (set on the iframe after its load; claimed through an overridden featurePolicy): nothing.
    seen["plain"] = probe_frame(browser, origin + "/pk-plain")
    seen["sandboxed"] = probe_frame(browser, origin + "/pk-sandboxed")
    seen["late"] = probe_frame(browser, origin + "/pk-late")
    seen["lying"] = probe_frame(browser, origin + "/pk-lying")
    browser.go(origin + "/pk-framing")
    enter_frame(browser)
    seen["plain.capabilities"] = browser.js(CAPABILITIES)
    browser.frame()
    seen["sub"] = f"http://sub.localhost:{port}"
    return seen


SCENARIOS = {"passkeys": passkeys, "passkey-hostile": passkey_hostile, "passkey-frames": passkey_frames}


def serve(start, scenario):
    """Serves the relying party on localhost, runs SCENARIOS[scenario] in the browser `start()` gives
    (browser_driver.Browser, or firefox_driver.Firefox), and prints its observations; ends both."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RelyingParty)
    server.state = tempfile.mkdtemp(prefix="autofill-rp-")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://localhost:{server.server_address[1]}"
    browser = None
    try:
        browser = start()
        seen = SCENARIOS[scenario](browser, origin)
        seen["origin"] = origin
        print(json.dumps(seen))
    finally:
        if browser:
            browser.close()
        server.shutdown()


def main():
    scenario, extension, user_data = sys.argv[1:4]
    serve(lambda: driver.Browser(extension, user_data), scenario)


if __name__ == "__main__":
    main()
