"""A real headless Chromium for tests, driven over the DevTools protocol on a pipe.

``--remote-debugging-pipe`` makes Chromium read DevTools commands (JSON, each ended by a
NUL byte) on its file descriptor 3 and answer on 4: no port, no websocket library, no
driver binary and no PyPI package. :func:`chromium_binary` finds Debian's ``chromium``; the
``chromium`` fixture (conftest) installs it on CI only (as root, with apt, as the SLURM
tests install theirs) and otherwise skips with the reason.

    with Browser(binary, tmp_path / "profile") as browser:
        browser.open(path)                       # waits for the load event
        browser.evaluate("document.title")       # the value of a JavaScript expression
        browser.click("th[data-column='3']")     # a real mouse click at the element's centre
        png = browser.screenshot()
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

#: the flags every run gets: headless, no sandbox (root in CI), nothing reaching the network
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--remote-debugging-pipe",
)
#: Debian's names of the binary, then other distributions'
BINARIES = ("chromium", "chromium-browser", "google-chrome")


def chromium_binary() -> str | None:
    for name in BINARIES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


def _high(fd: int) -> int:
    """``fd`` moved to a number of 10 or more (close-on-exec)."""
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    """One Chromium process with one page, driven over the DevTools pipe."""

    def __init__(self, binary: str, profile: str | Path, width: int = 1400, height: int = 900, timeout: float = 60):
        self.timeout = timeout
        self._next_id = 0
        self._buffer = b""
        self.events: list[dict] = []
        # our ends, and Chromium's ends moved to 10 and above, so that making them 3 and 4 in
        # the child never overwrites one with the other; close-on-exec, as Python makes them
        commands_read, self._commands = (_high(fd) for fd in os.pipe())  # we write, Chromium reads on 3
        self._answers, answers_write = (_high(fd) for fd in os.pipe())  # Chromium writes on 4, we read

        def as_fds_3_and_4():  # in the child before exec: dup2 makes 3 and 4 survive the exec
            os.dup2(commands_read, 3)
            os.dup2(answers_write, 4)

        self.log = Path(profile) / "chromium.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                close_fds=False,  # the child's 3 and 4 are made by dup2 after the fds are closed
                preexec_fn=as_fds_3_and_4,
            )
        os.close(commands_read)
        os.close(answers_write)
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime"):
            self.send(f"{domain}.enable", session=True)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    # -- the protocol
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("no answer from Chromium in time")
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                error = self.log.read_text(errors="replace")[-2000:] if self.log.is_file() else ""
                raise BrowserError(f"Chromium closed its DevTools pipe: {error}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, session: bool = False) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str) -> dict:
        deadline = time.monotonic() + self.timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    # -- what a test does
    def open(self, path: str | Path) -> None:
        """Load a file and wait for its load event."""
        self.events.clear()
        self.send("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=True)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A mouse click (pressed and released) at the centre of the element ``selector``."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView();"
            " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1},
                session=True,
            )

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"}, session=True)["data"])

    def errors(self) -> list[str]:
        """The page's uncaught exceptions and console errors so far."""
        found = []
        for event in self.events:
            if event.get("method") == "Runtime.exceptionThrown":
                found.append(str(event["params"]["exceptionDetails"].get("text")))
            elif event.get("method") == "Runtime.consoleAPICalled" and event["params"].get("type") == "error":
                found.append(str(event["params"].get("args")))
        return found

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._commands, self._answers):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
