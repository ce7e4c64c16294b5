"""autofill's own questions in the extension's prompt window (BrowserPAMTests.swift, docs/BROWSER.md
"The prompt window"), with browser_driver.py's browser, pages and DevTools client.

pam: a pick in the list opens the prompt window asking PAM's password, framed as autofill's own; a
wrong password (typed there with real input) fills nothing, the right one (AUTOFILL_TEST_PAM_PASSWORD)
fills. With AUTOFILL_TEST_SCREENSHOT set, the window is saved there as a PNG first.
confirm: the policy confirm's yes/no, framed as autofill's own; No fills nothing, Yes fills.

    browser_pam.py pam|confirm EXTENSION_FOLDER USER_DATA_FOLDER
"""
import base64, http.server, json, os, sys, threading, time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_driver as driver

VIEW = """(() => { const o = document.getElementById('owner'), a = document.getElementById('answer'), n = document.getElementById('authentication');
    return {owner: o.textContent, ownerClass: o.className, note: n ? n.textContent : null, site: document.getElementById('site').textContent,
            field: !!a, fieldType: a ? a.type : null,
            buttons: [...document.querySelectorAll('button')].map((b) => b.textContent)}; })()"""


def open_prompt(browser, origin):
    """Clicks the sign-in field and the list's first row until the prompt window opens; its target, or None."""
    browser.go(origin + "/login")
    browser.click("#user")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rect = driver.list_rect(browser)
        if rect:
            browser.click_at(rect[0] + 60, rect[1] + 45)
        time.sleep(0.4)
        target = driver.prompt_target(browser)
        if target:
            return target
    return None


def answer(browser, target, password, screenshot=None):
    """Types `password` and Enter in the prompt window (DevTools' real input); its view before."""
    window = driver.DevTools(target["webSocketDebuggerUrl"])
    try:
        deadline = time.monotonic() + 60
        view = None
        while time.monotonic() < deadline:
            view = window.js(VIEW)
            if view and view["field"]:
                break
            time.sleep(0.2)
        if screenshot:
            # The size the extension asks for its popup (460 wide); headless windows ignore it.
            window.call("Emulation.setDeviceMetricsOverride", width=460, height=236, deviceScaleFactor=1, mobile=False)
            time.sleep(0.3)
            shot = window.call("Page.captureScreenshot", format="png")
            with open(screenshot, "wb") as file:
                file.write(base64.b64decode(shot["data"]))
        window.js("document.getElementById('answer').focus()")
        window.call("Input.insertText", text=password)
        try:
            for kind in ("rawKeyDown", "char", "keyUp"):
                window.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13,
                            **({"text": "\r"} if kind == "char" else {}))
        except RuntimeError:
            pass  # the answer closed the window before the key came up
        return view
    finally:
        window.close()


def refused_then_filled(browser, origin, first, second, refuse, fill):
    """A pick whose prompt window `refuse(target)` answers (nothing may fill), then a pick whose window
    `fill(target)` answers (the pick fills); what each window showed and what was filled, under the
    names `first` and `second`."""
    seen = {}
    target = open_prompt(browser, origin)
    seen[first + ".opened"] = target is not None
    if target:
        seen[first + ".view"] = refuse(target)
        deadline = time.monotonic() + 30
        while driver.prompt_target(browser) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(3)
    seen[first + ".password"] = browser.value("#password") or ""
    target = open_prompt(browser, origin)
    seen[second + ".opened"] = target is not None
    if target:
        seen[second + ".view"] = fill(target)
        deadline = time.monotonic() + 60
        while not browser.value("#password") and time.monotonic() < deadline:
            time.sleep(0.2)
    seen[second + ".password"] = browser.value("#password") or ""
    seen[second + ".user"] = browser.value("#user") or ""
    return seen


def pam(browser, origin):
    """A wrong password (PAM refuses, nothing is filled), then the right one (the pick fills)."""
    right = os.environ["AUTOFILL_TEST_PAM_PASSWORD"]
    return refused_then_filled(browser, origin, "wrong", "right",
                               lambda target: answer(browser, target, "not-the-password", os.environ.get("AUTOFILL_TEST_SCREENSHOT")),
                               lambda target: answer(browser, target, right))


def press(browser, target, label):
    """Clicks the prompt window's button `label` with real input (DevTools); the window's view before."""
    window = driver.DevTools(target["webSocketDebuggerUrl"])
    try:
        deadline = time.monotonic() + 60
        view = None
        while time.monotonic() < deadline:
            view = window.js(VIEW)
            if view and label in view["buttons"]:
                break
            time.sleep(0.2)
        rect = window.js("(() => { const b = [...document.querySelectorAll('button')].find((b) => b.textContent === %s);"
                         " const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()" % json.dumps(label))
        try:
            for kind in ("mousePressed", "mouseReleased"):
                window.call("Input.dispatchMouseEvent", type=kind, x=rect[0], y=rect[1], button="left", clickCount=1)
        except RuntimeError:
            pass  # the answer closed the window before the button came up
        return view
    finally:
        window.close()


def confirm(browser, origin):
    """No (nothing is filled), then Yes (the pick fills)."""
    return refused_then_filled(browser, origin, "no", "yes",
                               lambda target: press(browser, target, "No"), lambda target: press(browser, target, "Yes"))


def main():
    scenario, extension, user_data = sys.argv[1:4]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), driver.Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    browser = None
    try:
        browser = driver.Browser(extension, user_data)
        seen = {"pam": pam, "confirm": confirm}[scenario](browser, origin)
        seen["origin"] = origin
        print(json.dumps(seen))
    finally:
        if browser:
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
