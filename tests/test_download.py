import hashlib

import pytest

from natcomp.download import fetch
from natcomp.errors import DownloadError

PAYLOAD = b"corpus archive bytes\n" * 5000


def test_http_download_with_checksum(http_server, tmp_path):
    base, root, _ = http_server
    (root / "release.tar").write_bytes(PAYLOAD)
    target = tmp_path / "out" / "release.tar"
    fetch(f"{base}/release.tar", target, sha256=hashlib.sha256(PAYLOAD).hexdigest())
    assert target.read_bytes() == PAYLOAD


def test_checksum_mismatch_leaves_no_file_and_rerun_succeeds(http_server, tmp_path):
    base, root, _ = http_server
    (root / "release.tar").write_bytes(PAYLOAD[:-1] + b"?")  # corrupt on the server
    target = tmp_path / "release.tar"
    expected = hashlib.sha256(PAYLOAD).hexdigest()
    with pytest.raises(DownloadError, match=rf"release.tar failed: sha256 mismatch: expected {expected}"):
        fetch(f"{base}/release.tar", target, sha256=expected)
    assert not target.exists()
    assert list(tmp_path.glob(".release.tar*")) == []
    (root / "release.tar").write_bytes(PAYLOAD)  # the source is repaired
    fetch(f"{base}/release.tar", target, sha256=expected)
    assert target.read_bytes() == PAYLOAD


def test_truncated_transfer_leaves_no_file_and_rerun_succeeds(http_server, tmp_path):
    base, root, truncate = http_server
    (root / "release.tar").write_bytes(PAYLOAD)
    truncate["release.tar"] = 1000
    target = tmp_path / "release.tar"
    with pytest.raises(DownloadError, match=r"(truncated|interrupted)"):
        fetch(f"{base}/release.tar", target)
    assert not target.exists()
    truncate.clear()
    fetch(f"{base}/release.tar", target, sha256=hashlib.sha256(PAYLOAD).hexdigest())
    assert target.read_bytes() == PAYLOAD


def test_http_404_names_url(http_server, tmp_path):
    base, _, _ = http_server
    with pytest.raises(DownloadError, match=r"download of http://127.0.0.1:\d+/missing.tar failed: HTTP 404"):
        fetch(f"{base}/missing.tar", tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_connection_refused(tmp_path):
    # Port 9 (discard) on loopback is not served here: the connection is refused.
    with pytest.raises(DownloadError, match="cannot connect"):
        fetch("http://127.0.0.1:9/x.tar", tmp_path / "x", timeout=5)


def test_file_urls_absolute_and_relative(tmp_path, monkeypatch):
    source = tmp_path / "src.tar"
    source.write_bytes(PAYLOAD)
    fetch(source.as_uri(), tmp_path / "a")
    monkeypatch.chdir(tmp_path)
    fetch("file:src.tar", tmp_path / "b")
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes() == PAYLOAD
    with pytest.raises(DownloadError, match="cannot connect or open"):
        fetch("file:missing.tar", tmp_path / "c")


def test_unsupported_scheme(tmp_path):
    with pytest.raises(DownloadError, match="unsupported URL scheme 'ftp'"):
        fetch("ftp://example.org/x", tmp_path / "x")
