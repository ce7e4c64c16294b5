"""Drives a real headless Chromium with autofill's extension loaded (BrowserTests.swift, docs/BROWSER.md).

Python's standard library only: the pages are served by http.server on 127.0.0.1 (and, as another
origin, localhost) on a port of its own, and Chromium is driven through chromedriver's W3C WebDriver
HTTP API. Every click is chromedriver's real input (trusted events). Prints one JSON object of
observations on stdout; the Swift test judges them. Ends everything it started.

    browser_driver.py SCENARIO EXTENSION_FOLDER USER_DATA_FOLDER
    SCENARIO: fills (sign-in, multi-step, one-time code) | hostile (cross-origin iframe, hidden field,
    a page script faking focus and clicks and messaging the extension) | prompt (a locked Vault's
    master password in the extension's prompt window; AUTOFILL_TEST_MASTER holds it) | manifest (the
    manifest's warnings, as chrome://extensions lists them)
"""
import base64, http.server, json, os, struct, signal, socket, subprocess, sys, threading, time, urllib.error, urllib.request
from urllib.parse import urlparse, parse_qs

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # WebDriver's key of an element reference

PAGES = {
    "/login": """<form action="/welcome"><input id="user" autocomplete="username" name="u">
        <input id="password" type="password" autocomplete="current-password" name="p"><button id="go">Sign in</button></form>
        <script>document.getElementById("password").addEventListener("input", () => { window.__filledAt = Date.now(); });
        document.getElementById("user").addEventListener("focus", (event) => { window.__focusAt = performance.timeOrigin + event.timeStamp; });</script>""",
    "/step1": """<form action="/step2"><input id="user" autocomplete="username" name="u"><button id="next">Next</button></form>""",
    "/step2": """<form action="/welcome"><input id="password" type="password" autocomplete="current-password" name="p">
        <button id="go">Sign in</button></form>""",
    "/otp": """<form action="/welcome"><input id="code" autocomplete="one-time-code" inputmode="numeric" name="c"></form>""",
    "/hidden": """<form action="/welcome"><input id="user" autocomplete="username" name="u">
        <input id="password" type="password" autocomplete="current-password" name="p" style="position:absolute;left:-10000px">
        <input id="trap" type="password" name="t" style="opacity:0"></form>""",
    "/framed": """<p>top</p><iframe id="inner" src="http://localhost:{port}/login" style="width:600px;height:320px;border:0"></iframe>""",
    "/framing": """<p>top</p><iframe id="inner" src="http://127.0.0.1:{port}/login" style="width:600px;height:320px;border:0"></iframe>""",
    "/sandboxed-login": """<p>top</p><iframe id="inner" sandbox="allow-scripts allow-forms" src="/login" style="width:600px;height:320px;border:0"></iframe>""",
    "/synthetic": """<form><input id="user" autocomplete="username"><input id="password" type="password" autocomplete="current-password"></form>
        <script>
        window.__log = [];
        const id = "codbobpodobdemdnekmelhkipidjofnm";
        function fake() {
          const field = document.getElementById("password");
          for (const type of ["pointerdown", "mousedown", "focusin", "focus", "mouseup", "click"]) {
            field.dispatchEvent(new (type.startsWith("pointer") ? PointerEvent : type.startsWith("focus") ? FocusEvent : MouseEvent)(type, {bubbles: true}));
          }
          field.focus();
          window.postMessage({type: "fill", user: "x", password: "y"}, "*");
          window.postMessage({type: "open", kind: "password"}, "*");
          const host = document.querySelector("autofill-suggestions");
          window.__log.push("host:" + (host ? "present" : "absent") + ",shadow:" + (host && host.shadowRoot ? "open" : "none"));
          try {
            if (window.chrome && chrome.runtime && chrome.runtime.sendMessage) {
              chrome.runtime.sendMessage(id, {type: "open", kind: "password"}, (answer) => window.__log.push("open:" + JSON.stringify(answer ?? null)));
              chrome.runtime.sendMessage(id, {type: "pick", token: "0", position: 1}, (answer) => window.__log.push("pick:" + JSON.stringify(answer ?? null)));
            } else {
              window.__log.push("runtime:unavailable");
            }
          } catch (error) { window.__log.push("runtime:" + error.name); }
        }
        setTimeout(fake, 200);
        </script>""",
    "/clickjack": """<form><input id="user" autocomplete="username"><input id="password" type="password" autocomplete="current-password"></form>
        <script>
        // The list's element is in the page: make it all but transparent, so the user's click lands on it unseen.
        new MutationObserver(() => {
          const host = document.querySelector("autofill-suggestions");
          if (host) host.style.setProperty("opacity", "0.02", "important");
        }).observe(document.documentElement, {childList: true, attributes: true, subtree: true});
        </script>""",
    "/signup": """<form action="/welcome"><input id="user" autocomplete="username" name="u">
        <input id="new" type="password" autocomplete="new-password" name="p"
               passwordrules="minlength: 24; maxlength: 24; required: digit; allowed: lower, digit;">
        <input id="again" type="password" autocomplete="new-password" name="p2"></form>""",
    "/scripted-submit": """<form action="/welcome"><input id="user" autocomplete="username" name="u">
        <input id="password" type="password" autocomplete="current-password" name="p"><button id="go">Sign in</button></form>
        <script>
        // Credentials the page chose, submitted by the page itself: nothing the user typed.
        setTimeout(() => {
          document.getElementById("user").value = "mallory";
          document.getElementById("password").value = "planted-password";
          document.querySelector("form").requestSubmit();
        }, 300);
        </script>""",
    "/welcome": "<p id=welcome>signed in</p>",
}


class Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = PAGES.get(urlparse(self.path).path)
        if body is None:
            self.send_error(404)
            return
        html = ("<!doctype html><meta charset=utf-8><title>t</title><body style='margin:20px'>"
                + body.replace("{port}", str(self.server.server_address[1])) + "</body>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(html)))
        self.end_headers()
        self.wfile.write(html)

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """A chromedriver session of Chromium with the extension loaded."""

    def __init__(self, extension, user_data):
        self.user_data = user_data
        port = free_port()
        self.driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.base + "/status", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        args = ["--headless=new", f"--user-data-dir={user_data}", f"--load-extension={extension}",
                "--window-size=1000,800", "--no-first-run"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium's own sandbox refuses to run as root
        binary = os.environ.get("AUTOFILL_TEST_CHROMIUM", "/usr/lib/chromium/chromium")
        session = self.call("POST", "/session", {"capabilities": {"alwaysMatch": {
            "goog:chromeOptions": {"binary": binary, "args": args}}}})
        self.session = f"/session/{session['sessionId']}"

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return json.loads(answer.read())["value"]
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"{method} {path}: {error.read().decode()[:500]}")

    def go(self, url):
        self.call("POST", self.session + "/url", {"url": url})

    def js(self, script, *args):
        return self.call("POST", self.session + "/execute/sync", {"script": script, "args": list(args)})

    def element(self, css):
        return self.call("POST", self.session + "/element", {"using": "css selector", "value": css})[ELEMENT]

    def click(self, css):
        self.call("POST", self.session + f"/element/{self.element(css)}/click", {})

    def type(self, css, text):
        self.call("POST", self.session + f"/element/{self.element(css)}/value", {"text": text})

    def frame(self, css=None):
        if css is None:
            self.call("POST", self.session + "/frame", {"id": None})
        else:
            self.call("POST", self.session + "/frame", {"id": {ELEMENT: self.element(css)}})

    def click_at(self, x, y):
        self.call("POST", self.session + "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "x": int(x), "y": int(y), "origin": "viewport", "duration": 0},
                        {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})
        self.call("DELETE", self.session + "/actions")

    def value(self, css):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.value : null;", css)

    def list_global(self, name):
        """A global of the extension's list frame (which the page cannot read), through Chromium's
        DevTools endpoint (chromedriver does not reach it); or None."""
        for target in devtools_targets(self):
            if target.get("url", "").startswith("chrome-extension://codbobpodobdemdnekmelhkipidjofnm/picker.html") and "webSocketDebuggerUrl" in target:
                frame = DevTools(target["webSocketDebuggerUrl"])
                try:
                    value = frame.js(f"globalThis.{name} ?? null")
                except RuntimeError:
                    value = None
                finally:
                    frame.close()
                if value is not None:
                    return value
        return None

    def close(self):
        try:
            self.call("DELETE", self.session)
        except Exception:
            pass
        end_group(self.driver)  # chromedriver and the Chromium it started


def end_group(process):
    """Ends `process` and the process group it leads (it was started with start_new_session). SIGKILL:
    a test runner may start this script with SIGTERM blocked, which its children inherit. Only while
    `process` is not reaped yet: its pid (the group's id) is then still its own; once reaped, the
    number may already lead another group (a provider helper of another test, say), which a kill by
    that number would end."""
    if process.returncode is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait(timeout=60)


def list_rect(browser):
    """The suggestion list's box in the current frame (its host element is in the page; its content is not), or None."""
    return browser.js("const h = document.querySelector('autofill-suggestions'); if (!h) return null;"
                      "const r = h.getBoundingClientRect(); return [r.left, r.top, r.width, r.height];")


def pick_first(browser, field, watch, frame=None, seconds=120, linger=None):
    """Clicks `field` (in iframe `frame`, if any), then clicks the list's first row with real input
    until `watch` (a selector in that frame) has a value or `seconds` pass, or, with `linger`, that
    many seconds after the list appeared (a check that nothing is filled: the list is waited for
    first, so a slow machine makes it no weaker); the value, or ''."""
    offset = (0, 0)
    if frame:
        offset = browser.js("const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.left, r.top];", frame)
        browser.frame(frame)
    browser.click(field)
    clicked = time.monotonic()
    deadline = clicked + seconds
    browser.list_seen = False
    while time.monotonic() < deadline:
        rect = list_rect(browser)
        if rect is None and not browser.list_seen and time.monotonic() - clicked > 10:
            # No list 10 s after the click: the content script may have come after it (Firefox runs
            # document_idle scripts after the load the driver waited for). The field again, anew.
            browser.js("document.activeElement && document.activeElement.blur();")
            browser.click(field)
            clicked = time.monotonic()
        if rect is not None and not browser.list_seen and linger is not None:
            deadline = min(deadline, time.monotonic() + linger)
        browser.list_seen = browser.list_seen or rect is not None
        value = browser.value(watch)
        if value:
            break
        if rect:
            if frame:
                browser.frame()
            browser.last_click = time.time() * 1000
            browser.click_at(offset[0] + rect[0] + 60, offset[1] + rect[1] + 45)  # the first row, under the title
            if frame:
                browser.frame(frame)
        time.sleep(0.3)
    value = browser.value(watch) or ""
    if frame:
        browser.frame()
    return value


def save_after_submit(browser, origin, user, password):
    """Types `user` and `password` into the sign-in form, submits it, and answers the extension's
    prompt on the next page with its first row (save); whether the prompt appeared and closed."""
    browser.go(origin + "/login")
    browser.type("#user", user)
    browser.type("#password", password)
    browser.click("#go")
    deadline = time.monotonic() + 60
    while "/welcome" not in browser.js("return location.pathname") and time.monotonic() < deadline:
        time.sleep(0.1)
    clicked = False
    while time.monotonic() < deadline:
        rect = list_rect(browser)
        if rect:
            browser.click_at(rect[0] + 60, rect[1] + 45)
            clicked = True
        elif clicked:
            return True  # the prompt closed after the pick
        time.sleep(0.4)
    return False


def list_shown_after_focus(browser):
    """From the sign-in field's focus (the page's focus event) to the list's rows drawn (the picker
    frame's autofillRowsShownAt, read through DevTools: the page cannot read it), in ms; or None."""
    browser.go(browser.current_origin + "/login")
    browser.click("#user")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = find_rows_shown(browser)
        if found is not None:
            return found
        time.sleep(0.2)
    return None


def find_rows_shown(browser):
    focus_at = browser.js("return window.__focusAt ?? null")
    shown_at = browser.list_global("autofillRowsShownAt")
    if focus_at and shown_at:
        return round(shown_at - focus_at, 1)
    return None


def keyboard(browser, origin):
    """The list by keyboard: a page script's synthetic arrows and Enter in the field pick nothing
    (checked first, on the same list), then the user's own (chromedriver's keys) pick alice."""
    seen = {}
    browser.go(origin + "/login")
    browser.click("#user")
    deadline = time.monotonic() + 60
    while find_rows_shown(browser) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)  # past the list's 300 ms before a pick
    browser.js("""const f = document.getElementById('user');
        for (const key of ['ArrowDown', 'Enter']) f.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true}));""")
    time.sleep(2)
    seen["keys.synthetic.password"] = browser.value("#password") or ""
    seen["keys.synthetic.list"] = list_rect(browser) is not None
    browser.type("#user", "\ue015")  # ArrowDown
    browser.type("#user", "\ue007")  # Enter
    deadline = time.monotonic() + 60
    while not browser.value("#password") and time.monotonic() < deadline:
        time.sleep(0.2)
    seen["keys.password"] = browser.value("#password") or ""
    return seen


def fills(browser, origin):
    seen = {}
    browser.go(origin + "/login")
    started = time.monotonic()
    seen["login.password"] = pick_first(browser, "#user", "#password")
    seen["login.user"] = browser.value("#user")
    seen["login.seconds"] = round(time.monotonic() - started, 2)
    # From the driver's sending the pick's click (an upper bound: chromedriver's round trip included)
    # to the page's input event of the filled password.
    filled_at = browser.js("return window.__filledAt ?? null")
    seen["login.pickToFillMs"] = round(filled_at - browser.last_click) if filled_at else None
    browser.current_origin = origin
    seen["list.focusToRowsMs"] = [list_shown_after_focus(browser) for _ in range(3)]
    seen.update(keyboard(browser, origin))
    browser.go(origin + "/step1")
    seen["step1.user"] = pick_first(browser, "#user", "#user")
    browser.click("#next")
    deadline = time.monotonic() + 30
    while "/step2" not in browser.js("return location.pathname") and time.monotonic() < deadline:
        time.sleep(0.1)
    seen["step2.password"] = pick_first(browser, "#password", "#password")
    browser.go(origin + "/otp")
    seen["otp.code"] = pick_first(browser, "#code", "#code")
    browser.go(origin + "/signup")
    seen["signup.new"] = pick_first(browser, "#new", "#new")
    seen["signup.again"] = browser.value("#again")
    seen["save.prompted"] = save_after_submit(browser, origin, "carol", "carol-typed-password")
    return seen


def wait_for_frame(browser, url):
    browser.go(url)
    deadline = time.monotonic() + 120  # returns once the frame is ready; a loaded machine may take long
    while time.monotonic() < deadline:
        browser.frame("#inner")
        ready = browser.js("return document.readyState === 'complete' && !!document.getElementById('user')")
        browser.frame()
        if ready:
            return
        time.sleep(0.1)


def hostile(browser, origin):
    seen = {}
    # The control: the same page at the top level fills.
    browser.go(origin + "/login")
    seen["control.password"] = pick_first(browser, "#user", "#password")
    # A frame is served by its own origin: a 127.0.0.1 sign-in form framed by a localhost page fills (the control) ...
    host = origin.replace("127.0.0.1", "localhost")
    wait_for_frame(browser, host + "/framing")
    seen["framing.password"] = pick_first(browser, "#user", "#password", frame="#inner")
    # ... and a localhost sign-in form framed by a 127.0.0.1 page gets localhost's logins (none), never 127.0.0.1's.
    wait_for_frame(browser, origin + "/framed")
    seen["framed.password"] = pick_first(browser, "#user", "#password", frame="#inner", linger=5)
    seen["framed.list"] = browser.list_seen
    browser.frame("#inner")
    seen["framed.user"] = browser.value("#user")
    browser.frame()
    # A sandboxed frame (an opaque origin) of the very page that fills at the top level gets no list:
    # Firefox names it by its URL, whose origin has alice's login (no event says "nothing", so 15 s).
    wait_for_frame(browser, origin + "/sandboxed-login")
    seen["sandboxed.password"] = pick_first(browser, "#user", "#password", frame="#inner", seconds=15)
    seen["sandboxed.list"] = browser.list_seen
    # Hidden and off-screen fields are not filled; the visible user name is.
    browser.go(origin + "/hidden")
    seen["hidden.user"] = pick_first(browser, "#user", "#user")
    seen["hidden.password"] = browser.value("#password")
    seen["hidden.trap"] = browser.value("#trap")
    # A page that makes the list transparent (a click meant for something else would land on it) gets nothing.
    browser.go(origin + "/clickjack")
    seen["clickjack.password"] = pick_first(browser, "#user", "#password", linger=5)
    seen["clickjack.list"] = browser.list_seen
    seen["clickjack.opacity"] = browser.js("const h = document.querySelector('autofill-suggestions'); return h ? getComputedStyle(h).opacity : null;")
    seen["page.view"] = page_view(browser)
    # A page that fills and submits its form by itself gets no save prompt.
    browser.go(origin + "/scripted-submit")
    deadline = time.monotonic() + 30
    while "/welcome" not in browser.js("return location.pathname") and time.monotonic() < deadline:
        time.sleep(0.1)
    seen["scripted.submitted"] = "/welcome" in browser.js("return location.pathname")
    time.sleep(3)
    seen["scripted.prompted"] = list_rect(browser) is not None
    # A page script faking focus and clicks and messaging the extension gets nothing, and sees no list.
    browser.go(origin + "/synthetic")
    deadline = time.monotonic() + 30
    while len(browser.js("return window.__log || []")) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(2)
    seen["synthetic.log"] = browser.js("return window.__log")
    seen["synthetic.user"] = browser.value("#user")
    seen["synthetic.password"] = browser.value("#password")
    seen["synthetic.list"] = list_rect(browser) is not None
    return seen


def page_view(browser):
    """What the page's scripts can see of a list showing alice: its element, of a fixed size, and nothing in it."""
    return browser.js("""const h = document.querySelector('autofill-suggestions');
        return h ? {shadowRoot: h.shadowRoot === null ? 'none' : 'open', text: h.innerText + h.textContent,
                    frames: window.frames.length, html: document.documentElement.outerHTML.includes('alice'),
                    size: [h.offsetWidth, h.offsetHeight]} : null;""")


class DevTools:
    """A minimal DevTools protocol client (a WebSocket, standard library only) of one target:
    chromedriver neither lists nor switches to a window an extension opened, so the test reaches the
    prompt window as chromedriver itself reaches pages, through Chromium's DevTools endpoint."""

    def __init__(self, url):
        parsed = urlparse(url)
        self.sock = socket.create_connection((parsed.hostname, parsed.port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parsed.path} HTTP/1.1\r\nHost: {parsed.hostname}:{parsed.port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.decode(errors="replace")[:200])
        self.next_id = 0

    def _read(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise RuntimeError("DevTools closed the WebSocket")
            data += chunk
        return data

    def call(self, method, **params):
        self.next_id += 1
        body = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        header = bytes([0x81]) + (bytes([0x80 | len(body)]) if len(body) < 126 else bytes([0x80 | 126]) + struct.pack(">H", len(body)))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(body)))
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            message = json.loads(self._read(length)) if first & 0x0F == 1 else {}
            if message.get("id") == self.next_id:
                if "error" in message:  # DevTools: {"error": {"message"}}; WebDriver BiDi: {"error", "message"}
                    raise RuntimeError(f"{method}: {message['error']}" + (f": {message['message']}" if "message" in message else ""))
                return message.get("result", {})

    def js(self, expression):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True).get("result", {}).get("value")

    def close(self):
        self.sock.close()


def devtools_targets(browser):
    with open(os.path.join(browser.user_data, "DevToolsActivePort")) as file:
        port = file.readline().strip()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
        return json.loads(answer.read())


def prompt_target(browser):
    """The DevTools target of the extension's prompt window, or None."""
    try:
        targets = devtools_targets(browser)
    except OSError:
        return None
    found = [t for t in targets if t.get("type") == "page" and t.get("url", "").startswith(
        "chrome-extension://codbobpodobdemdnekmelhkipidjofnm/prompt.html#")]
    return found[0] if found else None


def prompt(browser, origin):
    """The Vault is locked: a pick opens the extension's prompt window, which asks the master password
    (typed here with real input); the field then fills. A page script that tries to open, frame or
    answer a prompt of its own gets nothing."""
    seen = {}
    master = os.environ["AUTOFILL_TEST_MASTER"]
    browser.go(origin + "/login")
    browser.click("#user")
    deadline = time.monotonic() + 60
    prompt_handle = None
    while time.monotonic() < deadline and prompt_handle is None:
        rect = list_rect(browser)
        if rect:
            browser.click_at(rect[0] + 60, rect[1] + 45)
        time.sleep(0.4)
        prompt_handle = prompt_target(browser)
    seen["prompt.opened"] = prompt_handle is not None
    if prompt_handle is None:
        return seen
    # While the real prompt is open, the page tries to reach one: a frame and a window of prompt.html
    # (it is no web-accessible resource), and the extension's messages.
    browser.js("""const id = 'codbobpodobdemdnekmelhkipidjofnm';
        const frame = document.createElement('iframe'); frame.id = 'forged'; frame.src = 'chrome-extension://' + id + '/prompt.html#' + '0'.repeat(32);
        document.body.appendChild(frame);
        window.__opened = window.open('chrome-extension://' + id + '/prompt.html#' + '0'.repeat(32), 'forged', 'popup');
        window.__runtime = !!(window.chrome && chrome.runtime && chrome.runtime.sendMessage);""")
    time.sleep(2)
    seen["page.runtime"] = browser.js("return window.__runtime")
    seen["page.frameReadable"] = browser.js("try { return document.getElementById('forged').contentDocument !== null; } catch (e) { return false; }")
    window = DevTools(prompt_handle["webSocketDebuggerUrl"])
    try:
        view_script = """(() => { const o = document.getElementById('owner'), s = document.getElementById('site'), a = document.getElementById('answer');
            return {owner: o.textContent, site: s.textContent, message: document.getElementById('message').textContent,
                    field: !!a, fieldType: a ? a.type : null, url: location.href}; })()"""
        deadline = time.monotonic() + 60
        view = None
        while time.monotonic() < deadline:
            view = window.js(view_script)
            if view and view["field"]:
                break
            time.sleep(0.2)
        seen["prompt.view"] = view
        # Every other prompt.html the page tried to open: none draws a prompt.
        seen["forged.windows"] = []
        for target in devtools_targets(browser):
            if target["id"] == prompt_handle["id"] or "prompt.html" not in target.get("url", "") or "webSocketDebuggerUrl" not in target:
                continue
            other = DevTools(target["webSocketDebuggerUrl"])
            try:
                seen["forged.windows"].append({"url": target["url"], "type": target.get("type"), "view": other.js(
                    "(() => ({owner: document.getElementById('owner')?.textContent ?? null, field: !!document.getElementById('answer'),"
                    " text: document.body?.innerText ?? ''}))()")})
            finally:
                other.close()
        # The user types the master password and presses Enter: real input events (trusted).
        window.js("document.getElementById('answer').focus()")
        window.call("Input.insertText", text=master)
        try:
            for kind in ("rawKeyDown", "char", "keyUp"):
                window.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13,
                            **({"text": "\r"} if kind == "char" else {}))
        except RuntimeError:
            pass  # the answer closed the window before the key came up
    finally:
        window.close()
    deadline = time.monotonic() + 60
    while not browser.value("#password") and time.monotonic() < deadline:
        time.sleep(0.2)
    seen["login.password"] = browser.value("#password") or ""
    seen["login.user"] = browser.value("#user") or ""
    time.sleep(1)
    seen["prompt.closed"] = all(t["id"] != prompt_handle["id"] for t in devtools_targets(browser))
    return seen


def manifest(browser, origin):
    """The extension's manifest warnings as chrome://extensions shows them in developer mode (which
    collects them when the extension is loaded again)."""
    def call(script):
        return browser.call("POST", browser.session + "/execute/async", {"script": script, "args": []})
    browser.go("chrome://extensions")
    call("const done = arguments[0]; chrome.developerPrivate.updateProfileConfiguration({inDeveloperMode: true}, () => done(null));")
    call("const done = arguments[0]; chrome.developerPrivate.reload('codbobpodobdemdnekmelhkipidjofnm', {failQuietly: false}, () => done(null));")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        info = call("const done = arguments[0]; chrome.developerPrivate.getExtensionInfo('codbobpodobdemdnekmelhkipidjofnm', (info) => done(info ?? null));")
        if info and info.get("state") == "ENABLED":
            break
        time.sleep(0.2)
    return {"state": info and info.get("state"), "warnings": [error["message"] for error in (info or {}).get("manifestErrors", [])]
            + (info or {}).get("installWarnings", [])}


def serve(start, scenario):
    """Serves PAGES on 127.0.0.1, runs `scenario(browser, origin)` in the browser `start()` gives, and
    prints its observations; ends both."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    browser = None
    try:
        browser = start()
        seen = scenario(browser, origin)
        seen["origin"] = origin
        print(json.dumps(seen))
    finally:
        if browser:
            browser.close()
        server.shutdown()


def main():
    scenario, extension, user_data = sys.argv[1:4]
    serve(lambda: Browser(extension, user_data), {"fills": fills, "hostile": hostile, "prompt": prompt, "manifest": manifest}[scenario])


if __name__ == "__main__":
    main()
