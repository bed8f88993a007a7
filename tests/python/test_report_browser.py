"""The HTML report in a real browser: headless Chromium (Debian's `chromium`) over the DevTools protocol.

Chromium runs with `--remote-debugging-pipe`: the protocol's JSON messages
(NUL-terminated) go over file descriptors 3 (to the browser) and 4 (from
it), so the test needs no port, no WebSocket library and no driver. It
opens the report from a file:// URL, waits for the load event, and checks
that nothing went wrong: no console error, no uncaught exception, no failed
resource, and every <img> decoded with a non-zero natural size. A
full-page screenshot goes to build/report-screenshot.png (a run's report)
and build/sweep-report-screenshot.png (a sweep's), CI artefacts.

`.ci/run` installs chromium; without it the test is skipped locally and
fails under CI (CI=true), where a missing browser is a broken setup.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scenarios import compact_dumbbell

from ccsim import sweep
from ccsim.cli import main

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "build" / "report-screenshot.png"
SWEEP_SCREENSHOT = REPO / "build" / "sweep-report-screenshot.png"
TIMEOUT_S = 60.0

SCENARIO = (
    """
name = "browser <check>"
duration = "2s"
seed = 9
"""
    + compact_dumbbell("5Mbps", "10ms", '{ kind = "red", limit = 25 }')
    + """[[flows]]
count = 2
transport = "tcp"
app = "bulk"
start = { uniform = ["0s", "0.2s"] }
"""
)


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (.ci/run installs it with apt-get)")
    pytest.skip("chromium is not installed (apt-get install chromium)")


class DevTools:
    """A DevTools protocol session with a browser started with --remote-debugging-pipe."""

    def __init__(self, proc: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self.proc = proc
        self.out = to_browser
        self.inp = from_browser
        self.next_id = 0
        self.buffer = b""
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        """Send a command and wait for its reply (events seen meanwhile are kept in `events`)."""
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.out, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def receive(self, deadline: float | None = None) -> dict[str, Any]:
        """The next message from the browser."""
        end = deadline if deadline is not None else time.monotonic() + TIMEOUT_S
        while b"\0" not in self.buffer:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self.inp], [], [], left)
            if ready:
                chunk = os.read(self.inp, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"chromium closed the pipe (exit status {self.proc.poll()})")
                self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        return dict(json.loads(raw))

    def wait_event(self, method: str, session: str) -> dict[str, Any]:
        """Wait for an event of the page's session."""
        for i, e in enumerate(self.events):
            if e.get("method") == method and e.get("sessionId") == session:
                return self.events.pop(i)
        end = time.monotonic() + TIMEOUT_S
        while True:
            e = self.receive(end)
            if e.get("method") == method and e.get("sessionId") == session:
                return e
            self.events.append(e)


LAUNCHER = (
    "import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); os.execv(sys.argv[3], sys.argv[3:])"
)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    exe = chromium()
    to_r, to_w = os.pipe()  # we write, the browser reads fd 3
    from_r, from_w = os.pipe()  # the browser writes fd 4, we read

    # A tiny Python launcher puts the pipe ends on fds 3 and 4, where chromium
    # expects them, then becomes chromium (a shell cannot name fds above 9).
    args = [
        sys.executable,
        "-c",
        LAUNCHER,
        str(to_r),
        str(from_w),
        exe,
        "--headless",
        "--no-sandbox",  # as root (CI containers); the page is our own file
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--remote-debugging-pipe",
        f"--user-data-dir={tmp_path / 'profile'}",
        "about:blank",
    ]
    proc = subprocess.Popen(args, pass_fds=(to_r, from_w), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(to_r)
    os.close(from_w)
    tools = DevTools(proc, to_w, from_r)
    try:
        yield tools
    finally:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            tools.send("Browser.close")
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(to_w)
        os.close(from_r)


IMAGES_JS = """
Array.from(document.images).map(i => ({
  complete: i.complete, width: i.naturalWidth, height: i.naturalHeight, alt: i.alt
}))
"""


def render_and_check(browser: DevTools, page: Path, screenshot: Path) -> str:
    """Open `page`, check that it rendered cleanly, save a full-page screenshot; return the page's title."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        browser.send(f"{domain}.enable", session=session)
    browser.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    browser.send("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
    browser.wait_event("Page.loadEventFired", session)

    images = browser.send("Runtime.evaluate", {"expression": IMAGES_JS, "returnByValue": True}, session=session)
    imgs = images["result"]["value"]
    assert len(imgs) >= 3, "the report shows its figures"
    for img in imgs:
        assert img["complete"], img
        assert img["width"] > 0, img
        assert img["height"] > 0, img
    title = browser.send("Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, session=session)

    shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    assert screenshot.stat().st_size > 10_000

    # Anything the page logged: console errors, uncaught exceptions, failed loads, requests leaving file://.
    problems = []
    for e in browser.events:
        if e.get("sessionId") != session:
            continue
        method, params = e.get("method"), e.get("params", {})
        console_error = method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning")
        if console_error or method in {"Runtime.exceptionThrown", "Network.loadingFailed"}:
            problems.append(params)
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            problems.append(params["entry"])
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith(("file:", "data:", "about:")):
                problems.append({"network request": url})
    assert problems == []
    return str(title["result"]["value"])


def test_report_renders_in_chromium(tmp_path: Path, browser: DevTools) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    assert main(["run", str(scenario), "--out", str(out), "--quiet"]) == 0
    assert main(["report", str(out)]) == 0
    title = render_and_check(browser, out / "report.html", SCREENSHOT)
    assert title == "ccsim report: browser <check>"  # escaped in the source, text in the DOM


SWEEP = """
name = "browser_sweep"
base = "s.toml"
seed = 2
replicates = 2
[grid]
"topology.bottleneck.rate" = ["3Mbps", "5Mbps"]
[[cases]]
label = "red"
topology.bottleneck.queue = { kind = "red", limit = 25, min_th = 2, max_th = 6 }
[[cases]]
label = "droptail"
topology.bottleneck.queue = { kind = "droptail", limit = 25 }
"""


def test_sweep_report_renders_in_chromium(tmp_path: Path, browser: DevTools) -> None:
    (tmp_path / "s.toml").write_text(SCENARIO.replace('duration = "2s"', 'duration = "1s"'))
    (tmp_path / "sweep.toml").write_text(SWEEP)
    out = tmp_path / "sweep"
    report = sweep.run_sweep(sweep.load_sweep(tmp_path / "sweep.toml"), out, sweep.Serial())
    assert report.failed_total == 0
    assert main(["report", str(out)]) == 0
    title = render_and_check(browser, out / "report.html", SWEEP_SCREENSHOT)
    assert title == "ccsim report: browser_sweep"


STUDY_DOCS = REPO / "docs" / "studies"


@pytest.mark.parametrize(
    "name", ["patel-red-sfq-rem", "bisoy-aqm", "vyshnavi-tcp", "ramachendra-modred", "mehta-slowcc"]
)
def test_committed_study_report_renders_in_chromium(name: str, browser: DevTools) -> None:
    """The full runs' reports committed under docs/studies/NAME/ (what readers open without running anything)."""
    title = render_and_check(browser, STUDY_DOCS / name / "report.html", REPO / "build" / f"study-{name}.png")
    assert title == f"ccsim study: {name}"
