#!/usr/bin/env python3
"""The browser pages in headless Chromium, against real daemons (CI stage "browser pages").

1. `multitouchctl view --replay FIXTURE` (a private replaying multitouchd behind the WebSocket bridge):
   loads /view.html, waits until the page has drawn the end of the recording, takes a screenshot and
   checks what the page says it drew (window.multitouchView) against `multitouchctl replay --json` of
   the same recording: every touch id drawn, the grid drawn with the recording's final matrix (not the
   identity), the most fingers, and a latency histogram from the daemon's stats.
2. `multitouchd --replay` + `multitouchctl bridge --socket`: loads /demo.html (the JavaScript client
   module's demo) and checks that the map image ends with the CSS transform of the final matrix.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: NUL-separated JSON
on fds 3 and 4), so only the standard library is needed. Screenshots go to BUILD/web-check/*.png and
their paths are printed. Usage: browser-check.py BIN_DIR [OUT_DIR]. Exit 0 when every check passes.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VIEW_FIXTURE = os.path.join(ROOT, "checks/fixtures/touchscreen-map-tour.evemu")
DEMO_FIXTURE = os.path.join(ROOT, "checks/fixtures/touchscreen-pinch-rotate.evemu")
WAIT_SECONDS = 120  # a hang guard, not a timing threshold: a healthy run takes ~10 s

failures = []


def check(condition, text):
    print(("ok   " if condition else "FAIL ") + text)
    if not condition:
        failures.append(text)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("browser-check: chromium not found (apt-get install chromium; scripts/install-deps.sh does)")


def expectations(ctl, fixture):
    """Touch ids, most fingers and the final matrix of a recording, from `multitouchctl replay --json`."""
    out = subprocess.run([ctl, "replay", "--json", fixture], check=True, capture_output=True, text=True).stdout
    ids, fingers, matrix = set(), 0, None
    for line in out.splitlines():
        m = json.loads(line)
        if m["type"] == "touches":
            ids |= {t["id"] for t in m["touches"]}
            fingers = max(fingers, m["fingers"])
        if "matrix" in m:
            matrix = m["matrix"]
    return sorted(ids), fingers, matrix


class DevTools:
    """Chromium's DevTools protocol over --remote-debugging-pipe."""

    def __init__(self, chromium, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def wire_fds():
            # Move both ends above 4 first: a pipe end may already be fd 3 or 4 (dup2 onto itself would
            # keep its close-on-exec flag, and one dup2 could overwrite the other end).
            high_r, high_w = os.dup(to_browser_r) + 10, os.dup(from_browser_w) + 10
            os.dup2(to_browser_r, high_r)
            os.dup2(from_browser_w, high_w)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--hide-scrollbars", f"--user-data-dir={profile}",
                "--remote-debugging-pipe", "about:blank"]
        self.log = open(os.path.join(profile, "chromium.log"), "w")
        self.process = subprocess.Popen(args, preexec_fn=wire_fds, close_fds=False,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 1

    def call(self, method, params=None, session=None):
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.next_id += 1
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == message["id"]:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def open_page(self, url, width=1280, height=800):
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        self.call("Page.enable", {}, session)
        self.call("Page.navigate", {"url": url}, session)
        return session

    def evaluate(self, session, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page exception: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, session, expression, what):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            value = self.evaluate(session, expression)
            if value:
                return value
            time.sleep(0.2)
        raise RuntimeError(f"gave up waiting for {what} after {WAIT_SECONDS} s")

    def screenshot(self, session, path):
        data = self.call("Page.captureScreenshot", {"format": "png"}, session)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        print(f"screenshot: {path}")

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def start_printing_url(args, log_path):
    """Starts a multitouchctl server command and returns (process, base URL, token) from its first line."""
    log = open(log_path, "w")
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, text=True)
    line = process.stdout.readline()
    start = line.find("http://")
    if start < 0:
        process.kill()
        raise RuntimeError(f"{args[1]} printed no URL: {line!r}; log {log_path}")
    url = line[start:].split()[0]
    base = url[: url.index("/", len("http://"))]
    token = url.split("?token=", 1)[1] if "?token=" in url else ""
    if not token:
        process.kill()
        raise RuntimeError(f"{args[1]} printed no ?token= in its URL: {line!r}")
    return process, base, token


def check_refused_without_token(base):
    """The WebSocket handshake without the token is answered 401 in words (the bridge admits only who may)."""
    import urllib.error
    import urllib.request
    request = urllib.request.Request(base + "/ws", headers={
        "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    try:
        urllib.request.urlopen(request, timeout=10)
        status, body = 101, ""
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read().decode()
    check(status == 401 and "token" in body, f"a WebSocket without the token is refused: {status} {body.strip()}")


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def close_matrices(a, b, tolerance=1e-9):
    return a is not None and b is not None and len(a) == 6 and all(abs(x - y) <= tolerance for x, y in zip(a, b))


def check_view(tools, bin_dir, out_dir, work):
    ctl = os.path.join(bin_dir, "multitouchctl")
    ids, fingers, final = expectations(ctl, VIEW_FIXTURE)
    print(f"view: {os.path.basename(VIEW_FIXTURE)} has touches {ids}, up to {fingers} fingers, final matrix {final}")
    view, base, token = start_printing_url(
        [ctl, "view", "--listen", "127.0.0.1:0", "--replay", VIEW_FIXTURE], os.path.join(work, "view.log"))
    try:
        check_refused_without_token(base)
        # The printed URL carries the token; view.js forwards it from the page URL to /ws.
        session = tools.open_page(base + "/view.html?token=" + token)
        tools.wait_for(session, "window.multitouchView && window.multitouchView.ended", "the view to draw the end of the recording")
        # One more stats round trip so the histogram includes the whole replay.
        tools.wait_for(session, "window.multitouchView.latency && window.multitouchView.latency.count > 0", "latency stats")
        state = tools.evaluate(session, "JSON.stringify(window.multitouchView)")
        state = json.loads(state)
        tools.screenshot(session, os.path.join(out_dir, "view.png"))
    finally:
        stop(view)
    print("view state: " + json.dumps({k: state[k] for k in (
        "touchesDrawn", "drawnTouchIds", "maxFingers", "gridTransform", "gridLinesDrawn", "mapDrawn",
        "histogramBars", "messages", "dropped", "errors", "predictMs", "predictionsDrawn")}))
    check(state["touchesDrawn"] == len(ids), f"view drew {state['touchesDrawn']} touches, the recording has {len(ids)}")
    check(state["drawnTouchIds"] == ids, f"view drew touch ids {state['drawnTouchIds']} == {ids}")
    check(state["maxFingers"] == fingers, f"view showed up to {state['maxFingers']} fingers == {fingers}")
    check(close_matrices(state["gridTransform"], final), f"grid drawn with the final matrix {state['gridTransform']}")
    check(not close_matrices(state["gridTransform"], [1, 0, 0, 1, 0, 0], 1e-3), "the grid is transformed (not the identity)")
    check(state["gridLinesDrawn"] > 0 and state["mapDrawn"], f"grid lines ({state['gridLinesDrawn']}) and the map drawn")
    check(state["histogramBars"] > 0, f"latency histogram drawn with {state['histogramBars']} buckets")
    check(state["errors"] == [], f"no errors on the page: {state['errors']}")
    # Predicted touches (docs/PREDICTION.md): the view asked for 16 ms, every live touch and gesture
    # update it received carries a prediction, and it drew them.
    touches = [t for m in state["received"] if m.get("type") == "touches" for t in m["touches"]]
    live = [t for t in touches if t["phase"] not in ("ended", "cancelled")]
    updates = [m for m in state["received"] if m.get("type") == "gesture"]
    check(state["predictMs"] == 16 and live and all("predicted" in t for t in live),
          f"the view asked for 16 ms predictions and all {len(live)} live touches carry one")
    check(updates and all("predictedMatrix" in m for m in updates),
          f"all {len(updates)} gesture updates carry a predictedMatrix")
    check(state["predictionsDrawn"] > 0, f"the view drew {state['predictionsDrawn']} predicted positions")
    # Every message the JavaScript client received, against the protocol's JSON Schema.
    sys.path.insert(0, os.path.join(ROOT, "protocol"))
    from validate import Checker
    checker = Checker()
    received = state["received"]
    invalid = [(m.get("type"), checker.problems(m)) for m in received if checker.problems(m)]
    check(received and not invalid,
          f"the {len(received)} messages the JS client received match protocol/multitouchd.schema.json"
          + (f"; invalid: {invalid[:3]}" if invalid else ""))


def check_demo(tools, bin_dir, out_dir, work):
    ctl = os.path.join(bin_dir, "multitouchctl")
    _, _, final = expectations(ctl, DEMO_FIXTURE)
    socket = os.path.join(work, "demo.sock")
    daemon_log = open(os.path.join(work, "daemon.log"), "w")
    daemon = subprocess.Popen(
        [os.path.join(bin_dir, "multitouchd"), "--replay", DEMO_FIXTURE, "--no-devices", "--socket", socket,
         "--wait-for-subscribers", "1", "--log-level", "notice"], stderr=daemon_log)
    bridge = None
    try:
        for _ in range(500):
            if os.path.exists(socket):
                break
            time.sleep(0.02)
        bridge, base, token = start_printing_url(
            [ctl, "bridge", "--listen", "127.0.0.1:0", "--socket", socket], os.path.join(work, "bridge.log"))
        session = tools.open_page(base + "/demo.html?token=" + token)
        tools.wait_for(session, "window.multitouchDemo && window.multitouchDemo.ended", "the demo to see the end of the recording")
        state = json.loads(tools.evaluate(session, """JSON.stringify({
            demo: window.multitouchDemo,
            computed: getComputedStyle(document.getElementById('map')).transform })"""))
        tools.screenshot(session, os.path.join(out_dir, "demo.png"))
    finally:
        if bridge:
            stop(bridge)
        stop(daemon)
        daemon_log.close()
    demo = state["demo"]
    print("demo state: " + json.dumps(state))
    check(close_matrices(demo["matrix"], final), f"demo holds the final matrix {demo['matrix']}")
    computed = state["computed"]
    numbers = [float(x) for x in computed[len("matrix("):-1].split(",")] if computed.startswith("matrix(") else None
    scale = demo["scale"]
    expected_css = [final[0], final[1], final[2], final[3], final[4] * scale, final[5] * scale]
    check(numbers is not None and all(abs(x - y) <= 1e-3 * max(1, abs(y)) for x, y in zip(numbers, expected_css)),
          f"the map's computed CSS transform {computed} is the final matrix scaled by {scale:.4f}")
    check(demo["gestures"] > 0, f"demo received {demo['gestures']} gesture messages")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bin_dir = os.path.abspath(sys.argv[1])
    out_dir = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, ".build", "web-check"))
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="mtd-web-")
    tools = DevTools(find_chromium(), work)
    try:
        tools.call("Browser.getVersion")
        check_view(tools, bin_dir, out_dir, work)
        check_demo(tools, bin_dir, out_dir, work)
    except RuntimeError as error:
        failures.append(str(error))
        print(f"FAIL {error} (logs in {work})")
    finally:
        tools.close()
    if failures:
        print(f"browser-check: {len(failures)} failed; logs in {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("browser-check: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
