"""Shared fixtures: the repository root and a local HTTP server for download tests."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo() -> Path:
    return REPO


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    truncate: dict[str, int] = {}

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        name = self.path.lstrip("/")
        if name in self.truncate:
            # Announce the full length, send fewer bytes, close: a cut-off transfer.
            data = (Path(self.directory) / name).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: self.truncate[name]])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()


@pytest.fixture
def http_server(tmp_path):
    """Serve ``tmp_path / 'www'`` on 127.0.0.1 (a free port); yields (base_url, root, truncate)."""
    root = tmp_path / "www"
    root.mkdir()
    truncate: dict[str, int] = {}
    handler = type("Handler", (_QuietHandler,), {"truncate": truncate})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root, truncate
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
