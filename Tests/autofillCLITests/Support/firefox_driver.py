"""Drives a real headless Firefox with autofill's extension installed (FirefoxTests.swift, docs/BROWSER.md).

There is no geckodriver in Debian 12: Firefox speaks WebDriver BiDi itself (`--remote-debugging-port`),
over a WebSocket, which browser_driver.py's minimal client (`DevTools`) already speaks (the same
`{"id", "method", "params"}` frames). The extension is installed as a temporary add-on
(`webExtension.install`, as about:debugging's "Load Temporary Add-on" does), pages are browser_driver.py's
own, and every click and key is BiDi's real input (`input.performActions`: trusted events). `Firefox`
offers browser_driver.py's `Browser` methods, so its scenarios (`pick_first`, `hostile`) run unchanged.
Firefox runs headless in a profile of the test's own, as the test home's user (HOME: where `autofill
browser install --browser firefox` wrote the host manifest).

    firefox_driver.py SCENARIO EXTENSION_FOLDER PROFILE_FOLDER
    SCENARIO: fills (browser_driver.py's: sign-in, the list's timing, the keyboard, multi-step, one-time
    code, new password, save after submit) | hostile (browser_driver.py's, and the page's view of a
    list showing alice) | prompt (a locked Vault's master password in the extension's prompt window;
    AUTOFILL_TEST_MASTER holds it) | manifest (the extension's manifest as Firefox reads it, and one
    it refuses) | passkeys, passkey-hostile, passkey-frames (browser_passkeys.py's, with its relying
    party; FirefoxPasskeyTests.swift: Firefox has no virtual authenticator here, so the browser's own
    WebAuthn after a decline refuses)
"""
import json, os, re, shutil, signal, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree (SwiftPM would see it in the test target)
import browser_driver  # noqa: E402  (the pages, the scenarios, the WebSocket client)
import browser_passkeys  # noqa: E402  (the relying party and the passkey scenarios)

# Prefs of the test's own profile: no first-run pages, no updates or studies reaching the network.
PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.page": 0,
    "datareporting.policy.dataSubmissionEnabled": False,
    "app.update.disabledForTesting": True,
    "extensions.update.enabled": False,
    # BiDi's pointer input sent from the parent process as widget events (as a real mouse's): without
    # it, a click on the list inside a cross-origin frame never reached the list (measured: the
    # list's frame saw no pointer event), while the same click on a top-level page's list did.
    "remote.events.async.mouse.enabled": True,
}


def serialize(value):
    """A Python value as a BiDi local value (strings, numbers, booleans, None, lists, dictionaries)."""
    if isinstance(value, list):
        return {"type": "array", "value": [serialize(item) for item in value]}
    if isinstance(value, dict):
        return {"type": "object", "value": [[str(key), serialize(item)] for key, item in value.items()]}
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        return {"type": "number", "value": value}
    return {"type": "string", "value": str(value)}


def deserialize(remote):
    """A BiDi remote value as a Python value (a node or window stays its BiDi form)."""
    kind = remote.get("type")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return remote["value"]
    if kind == "number":
        value = remote["value"]
        return value if isinstance(value, (int, float)) else None  # "NaN", "Infinity"
    if kind == "array":
        return [deserialize(item) for item in remote.get("value", [])]
    if kind == "object":
        return {key if isinstance(key, str) else deserialize(key): deserialize(item) for key, item in remote.get("value", [])}
    return remote


class Firefox:
    """A BiDi session of a headless Firefox, with the methods of browser_driver.Browser."""

    def __init__(self, profile, system_access=False):
        os.makedirs(profile, exist_ok=True)
        with open(os.path.join(profile, "user.js"), "w") as file:
            for name, value in PREFS.items():
                file.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        self.log_path = os.path.join(profile, "firefox.log")
        binary = os.environ.get("AUTOFILL_TEST_FIREFOX", "firefox-esr")
        with open(self.log_path, "w") as log:
            # System access (the browser's own scripts, for what about:debugging shows): the manifest scenario only.
            extra = ["--remote-allow-system-access"] if system_access else []
            self.process = subprocess.Popen([binary, "-headless", "-no-remote", "-profile", profile, "--remote-debugging-port", "0", *extra],
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 60
        url = None
        while url is None:
            with open(self.log_path) as log:
                found = re.search(r"WebDriver BiDi listening on (ws://\S+)", log.read())
            if found:
                url = found.group(1)
            elif self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("Firefox did not start its WebDriver BiDi endpoint: " + open(self.log_path).read()[-1000:])
            else:
                time.sleep(0.1)
        self.bidi = browser_driver.DevTools(url + "/session")
        self.bidi.call("session.new", capabilities={})
        self.top = None
        self.context = None

    def call(self, method, **params):
        return self.bidi.call(method, **params)

    def install(self, extension):
        """Installs `extension` (a folder) as a temporary add-on; its id. Raises with Firefox's reason."""
        return self.call("webExtension.install", extensionData={"type": "path", "path": os.path.abspath(extension)})["extension"]

    def manifest_warnings(self, extension_id):
        """What about:debugging lists under the extension's manifest warnings (needs system access)."""
        chrome = self.call("browsingContext.getTree", **{"moz:scope": "chrome"})["contexts"][0]["context"]
        answer = self.call("script.callFunction", functionDeclaration="""function(id) {
            const {ExtensionParent} = ChromeUtils.importESModule("resource://gre/modules/ExtensionParent.sys.mjs");
            return ExtensionParent.DebugUtils.getExtensionManifestWarnings(id); }""",
            target={"context": chrome}, arguments=[serialize(extension_id)], awaitPromise=False, resultOwnership="none")
        return deserialize(answer["result"])

    def open_tab(self):
        # A tab of its own: the window's first tab leaves the focus in the address bar, and a page
        # then gets no focus events.
        self.top = self.context = self.call("browsingContext.create", type="tab")["context"]

    def go(self, url):
        self.call("browsingContext.navigate", context=self.top, url=url, wait="complete")
        self.context = self.top

    def js(self, script, *args):
        answer = self.call("script.callFunction", functionDeclaration="function() {\n" + script + "\n}",
                           target={"context": self.context}, arguments=[serialize(arg) for arg in args],
                           awaitPromise=True, resultOwnership="none")  # a promise's value, as WebDriver's execute script
        if answer.get("type") == "exception":
            raise RuntimeError("script: " + json.dumps(answer.get("exceptionDetails", {}).get("text")))
        return deserialize(answer["result"])

    def element(self, css):
        node = self.js("return document.querySelector(arguments[0]);", css)
        if not isinstance(node, dict) or "sharedId" not in node:
            raise RuntimeError(f"no element {css}")
        return node["sharedId"]

    def actions(self, actions):
        self.call("input.performActions", context=self.context, actions=actions)
        try:
            self.call("input.releaseActions", context=self.context)
        except RuntimeError as error:
            if "no such frame" not in str(error):
                raise  # else the input closed its window (the prompt's Enter)

    def click(self, css):
        self.actions([{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
            {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": {"sharedId": self.element(css)}}},
            {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}])

    def type(self, css, text):
        # As chromedriver's element send keys: the element gets the focus (no click), then real keys.
        self.js("document.querySelector(arguments[0]).focus();", css)
        keys = []
        for char in text:
            keys += [{"type": "keyDown", "value": char}, {"type": "keyUp", "value": char}]
        self.actions([{"type": "key", "id": "keyboard", "actions": keys}])

    def frame(self, css=None):
        if css is None:
            self.context = self.top
            return
        window = self.js("return document.querySelector(arguments[0]).contentWindow;", css)
        self.context = window["value"]["context"]

    def click_at(self, x, y):
        context, self.context = self.context, self.top
        try:
            self.actions([{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                {"type": "pointerMove", "x": int(x), "y": int(y), "origin": "viewport", "duration": 0},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}])
        finally:
            self.context = context

    def value(self, css):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.value : null;", css)

    def in_list(self, script):
        """`script`'s value in the extension's list frame of the current frame (BiDi reaches the
        extension's frame, which the page cannot read); None without a list."""
        for context in self.call("browsingContext.getTree", root=self.context)["contexts"][0]["children"]:
            if context["url"].startswith("moz-extension://") and context["url"].endswith("/picker.html"):
                current, self.context = self.context, context["context"]
                try:
                    return self.js(script)
                finally:
                    self.context = current
        return None

    def list_global(self, name):
        """A global of the extension's list frame, or None."""
        return self.in_list(f"return globalThis.{name} ?? null;")

    def close(self):
        try:
            self.call("browser.close")
        except Exception:
            pass
        try:
            self.bidi.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        browser_driver.end_group(self.process)  # Firefox and its content processes


def list_text(browser):
    """The text of the extension's list in the current page, or None."""
    return browser.in_list("return document.body ? document.body.innerText : null;")  # null while the list loads


def hostile(browser, origin):
    """browser_driver.py's hostile scenario; then what the page's scripts see of a list showing alice
    (there the page's view is read on the clickjacking page, whose transparent list Firefox lets the
    click fill and close: docs/BROWSER.md)."""
    seen = browser_driver.hostile(browser, origin)
    browser.go(origin + "/login")
    browser.click("#user")
    deadline = time.monotonic() + 120
    while "alice" not in (list_text(browser) or "") and time.monotonic() < deadline:
        time.sleep(0.2)
    seen["list.text"] = list_text(browser)
    seen["page.view"] = browser_driver.page_view(browser)
    return seen


def prompts(browser):
    """The top-level contexts showing the extension's prompt.html (windows it opened, or a page did)."""
    return [context for context in browser.call("browsingContext.getTree")["contexts"]
            if context["url"].startswith("moz-extension://") and "/prompt.html" in context["url"]]


def prompt(browser, origin):
    """The Vault is locked: a pick opens the extension's prompt window, where the master password is
    typed with real keys; the field then fills. A page that learns the extension's address (from the
    list's frame in its resource timing) and frames or opens prompt.html gets no prompt."""
    seen = {}
    master = os.environ["AUTOFILL_TEST_MASTER"]
    browser.go(origin + "/login")
    browser.click("#user")
    deadline = time.monotonic() + 60
    found = []
    while time.monotonic() < deadline and not found:
        rect = browser_driver.list_rect(browser)
        if rect:
            browser.click_at(rect[0] + 60, rect[1] + 45)
        time.sleep(0.4)
        found = prompts(browser)
    seen["prompt.opened"] = bool(found)
    if not found:
        return seen
    real = found[0]["context"]
    # Meanwhile the page tries to reach a prompt of its own. Firefox gives each profile's extension an
    # address of its own (moz-extension://UUID), which the page's resource timing does not show; the
    # page is told it all the same (the worst case: it learnt it elsewhere).
    base = found[0]["url"].split("/prompt.html")[0]
    before = {context["context"] for context in browser.call("browsingContext.getTree")["contexts"]}
    seen["page.learntAddress"] = browser.js("""return performance.getEntriesByType('resource').some((e) => e.name.startsWith('moz-extension:'));""")
    seen["page.tries"] = browser.js("""const base = arguments[0], tries = [];
        const frame = document.createElement('iframe'); frame.id = 'forged'; frame.src = base + '/prompt.html#' + '0'.repeat(32);
        document.body.appendChild(frame);
        try { window.open(base + '/prompt.html#' + '0'.repeat(32), 'forged', 'popup'); tries.push('open:ok'); } catch (e) { tries.push('open:' + e.message); }
        window.__runtime = typeof browser !== 'undefined' || !!(window.chrome && chrome.runtime);
        return tries;""", base)
    page, browser.top = browser.top, real
    browser.context = real
    try:
        view = None
        while time.monotonic() < deadline:
            view = browser.js("""const o = document.getElementById('owner'), s = document.getElementById('site'), a = document.getElementById('answer');
                return {owner: o.textContent, site: s.textContent, field: !!a, fieldType: a ? a.type : null, url: location.href};""")
            if view and view["field"]:
                break
            time.sleep(0.2)
        seen["prompt.view"] = view
        time.sleep(1)
        # Every window the page opened, and the frame it made: none draws a prompt.
        seen["forged"] = []
        tree = browser.call("browsingContext.getTree")["contexts"]
        frames = [child for context in tree if context["context"] == page for child in context["children"]]
        for context in [context for context in tree if context["context"] not in before] + frames:
            if context["context"] != real:
                browser.context = context["context"]
                seen["forged"].append({"url": context["url"], "view": browser.js(
                    "return {owner: document.getElementById('owner')?.textContent ?? null, field: !!document.getElementById('answer')};")})
        browser.context = real
        browser.type("#answer", master + "\ue007")  # the user types it and presses Enter
    finally:
        browser.top = browser.context = page
    while not browser.value("#password") and time.monotonic() < deadline:
        time.sleep(0.2)
    seen["login.password"] = browser.value("#password") or ""
    seen["login.user"] = browser.value("#user") or ""
    seen["page.runtime"] = browser.js("return window.__runtime")
    time.sleep(1)
    seen["prompt.closed"] = all(context["context"] != real for context in prompts(browser))
    return seen


def manifest(browser, extension):
    """The extension as Firefox installs it, and the same extension with a background Firefox cannot
    run (`service_worker` alone): Firefox's install refuses that one, saying why."""
    seen = {"installed": browser.install(extension)}
    seen["warnings"] = browser.manifest_warnings(seen["installed"])
    broken = os.path.join(os.path.dirname(browser.log_path), "broken-extension")
    shutil.copytree(extension, broken)
    with open(os.path.join(broken, "manifest.json")) as file:
        data = json.load(file)
    data["browser_specific_settings"]["gecko"]["id"] = "broken@autofill.invalid"
    data["background"] = {"service_worker": data["background"]["service_worker"]}
    with open(os.path.join(broken, "manifest.json"), "w") as file:
        json.dump(data, file)
    try:
        seen["broken"] = browser.install(broken)
    except RuntimeError as error:
        seen["broken.error"] = str(error)
    return seen


def main():
    scenario, extension, profile = sys.argv[1:4]
    # A SIGTERM (a timeout's) still ends Firefox (close(), from serve's finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    def run(browser, origin):
        if scenario == "manifest":
            return manifest(browser, extension)
        return {"fills": browser_driver.fills, "hostile": hostile, "prompt": prompt}[scenario](browser, origin)

    def start():
        browser = Firefox(profile, system_access=scenario == "manifest")
        try:
            if scenario != "manifest":
                browser.install(extension)
                browser.open_tab()
        except BaseException:
            browser.close()
            raise
        return browser
    if scenario in browser_passkeys.SCENARIOS:
        browser_passkeys.serve(start, scenario)
    else:
        browser_driver.serve(start, run)


if __name__ == "__main__":
    main()
