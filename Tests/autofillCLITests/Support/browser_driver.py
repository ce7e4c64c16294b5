"""Drives a real headless Chromium with autofill's extension loaded (BrowserTests.swift, docs/BROWSER.md).

Python's standard library only: the pages are served by http.server on 127.0.0.1 (and, as another
origin, localhost) on a port of its own, and Chromium is driven through chromedriver's W3C WebDriver
HTTP API. Every click is chromedriver's real input (trusted events). Prints one JSON object of
observations on stdout; the Swift test judges them. Ends everything it started.

    browser_driver.py SCENARIO EXTENSION_FOLDER USER_DATA_FOLDER
    SCENARIO: fills (sign-in, multi-step, one-time code) | hostile (cross-origin iframe, hidden field,
    a page script faking focus and clicks and messaging the extension)
"""
import http.server, json, os, signal, socket, subprocess, sys, threading, time, urllib.error, urllib.request
from urllib.parse import urlparse, parse_qs

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # WebDriver's key of an element reference

PAGES = {
    "/login": """<form action="/welcome"><input id="user" autocomplete="username" name="u">
        <input id="password" type="password" autocomplete="current-password" name="p"><button id="go">Sign in</button></form>
        <script>document.getElementById("password").addEventListener("input", () => { window.__filledAt = Date.now(); });</script>""",
    "/step1": """<form action="/step2"><input id="user" autocomplete="username" name="u"><button id="next">Next</button></form>""",
    "/step2": """<form action="/welcome"><input id="password" type="password" autocomplete="current-password" name="p">
        <button id="go">Sign in</button></form>""",
    "/otp": """<form action="/welcome"><input id="code" autocomplete="one-time-code" inputmode="numeric" name="c"></form>""",
    "/hidden": """<form action="/welcome"><input id="user" autocomplete="username" name="u">
        <input id="password" type="password" autocomplete="current-password" name="p" style="position:absolute;left:-10000px">
        <input id="trap" type="password" name="t" style="opacity:0"></form>""",
    "/framed": """<p>top</p><iframe id="inner" src="http://localhost:{port}/login" style="width:600px;height:320px;border:0"></iframe>""",
    "/framing": """<p>top</p><iframe id="inner" src="http://127.0.0.1:{port}/login" style="width:600px;height:320px;border:0"></iframe>""",
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

    def close(self):
        try:
            self.call("DELETE", self.session)
        except Exception:
            pass
        # chromedriver and the Chromium it started lead and share one process group. SIGKILL: a test
        # runner may start this script with SIGTERM blocked, which its children inherit.
        try:
            os.killpg(self.driver.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.driver.wait(timeout=60)


def list_rect(browser):
    """The suggestion list's box in the current frame (its host element is in the page; its content is not), or None."""
    return browser.js("const h = document.querySelector('autofill-suggestions'); if (!h) return null;"
                      "const r = h.getBoundingClientRect(); return [r.left, r.top, r.width, r.height];")


def pick_first(browser, field, watch, frame=None, seconds=60, linger=None):
    """Clicks `field` (in iframe `frame`, if any), then clicks the list's first row with real input
    until `watch` (a selector in that frame) has a value or `seconds` pass, or, with `linger`, that
    many seconds after the list appeared (a check that nothing is filled: the list is waited for
    first, so a slow machine makes it no weaker); the value, or ''."""
    offset = (0, 0)
    if frame:
        offset = browser.js("const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.left, r.top];", frame)
        browser.frame(frame)
    browser.click(field)
    deadline = time.monotonic() + seconds
    browser.list_seen = False
    while time.monotonic() < deadline:
        rect = list_rect(browser)
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
    deadline = time.monotonic() + 30
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
    # What the page's scripts can see of a list showing alice: its element, of a fixed size, and nothing in it.
    seen["page.view"] = browser.js("""const h = document.querySelector('autofill-suggestions');
        return h ? {shadowRoot: h.shadowRoot === null ? 'none' : 'open', text: h.innerText + h.textContent,
                    frames: window.frames.length, html: document.documentElement.outerHTML.includes('alice'),
                    size: [h.offsetWidth, h.offsetHeight]} : null;""")
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


def main():
    scenario, extension, user_data = sys.argv[1:4]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    browser = None
    try:
        browser = Browser(extension, user_data)
        seen = {"fills": fills, "hostile": hostile}[scenario](browser, origin)
        seen["origin"] = origin
        print(json.dumps(seen))
    finally:
        if browser:
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
