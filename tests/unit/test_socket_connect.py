"""hook_client.connect: the one unix-socket connect (the hook, ``tacit service``, ``tacit search``
and the server's probe), with a real listening socket; a long path leaves the working folder as it was."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tacit.hosts.hook_client import connect, connect_trusted
from tacit.paths import SOCKET_NAME
from tacit.service import search_client
from tacit.service.client import request
from tacit.service.server import _connectable


def listen(folder: Path) -> socket.socket:
    folder.mkdir(parents=True, mode=0o700, exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    here = os.getcwd()
    os.chdir(folder)  # a long path is bound from inside its folder, as the service does
    try:
        server.bind(SOCKET_NAME)
    finally:
        os.chdir(here)
    server.listen(4)
    return server


@pytest.mark.parametrize("length", ["short", "long"])
def test_connect_reaches_a_listener_and_keeps_the_working_folder(tmp_path: Path, length: str):
    folder = tmp_path / "run" if length == "short" else tmp_path / ("x" * 60) / ("y" * 60) / "run"
    assert (len(str(folder / SOCKET_NAME).encode()) >= 100) == (length == "long")
    here = os.getcwd()
    assert connect(str(folder), 1.0) is None and os.getcwd() == here  # nothing listens yet
    server = listen(folder)
    try:
        sock = connect(str(folder), 1.0)
        assert os.getcwd() == here
        peer, _ = server.accept()
        sock.sendall(b"TACIT1 ping\n")
        assert peer.recv(64) == b"TACIT1 ping\n"
        peer.close()
        sock.close()
        trusted = connect_trusted(str(folder), 1.0)
        assert trusted is not None and os.getcwd() == here
        trusted.close()
        assert _connectable(str(folder))
    finally:
        server.close()
    os.unlink(folder / SOCKET_NAME)
    assert not _connectable(str(folder)) and os.getcwd() == here


def test_the_clients_quietly_do_without_a_folder_that_is_not_theirs(tmp_path: Path):
    """``tacit service`` and ``tacit search`` share ``connect_trusted``: a socket that is a link is never
    spoken to (None), where the hook is told why (``untrusted``)."""
    state = tmp_path / "state"
    real = listen(tmp_path / "elsewhere")
    try:
        (state / "run").mkdir(parents=True, mode=0o700)
        os.symlink(tmp_path / "elsewhere" / SOCKET_NAME, state / "run" / SOCKET_NAME)
        assert connect_trusted(str(state / "run"), 0.5) is None
        assert request(str(state), "status", timeout=0.5) is None
        assert search_client.search(str(state), {"argv": ["x"], "cwd": str(tmp_path)}, timeout=0.5) is None
    finally:
        real.close()
