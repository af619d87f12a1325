"""gunicorn's control socket (`gunicornc`: worker counts, reload, shutdown) exists only where the
deployment names one (GUNICORN_CONTROL_SOCKET, config/gunicorn.py), never at gunicorn's default
per-user path, which every gunicorn of the user on the machine would share."""

import os
import stat

import pytest


@pytest.fixture
def runtime_dir(monkeypatch, tmp_path):
    """gunicorn's default control socket would be here (XDG_RUNTIME_DIR/gunicorn.ctl)."""
    folder = tmp_path / "runtime"
    folder.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


def test_no_control_socket_unless_one_is_named(runtime_dir, server):
    assert server("sk_test_nobody", path="/v1/nothing-here")[0] == 404  # up and answering
    assert not (runtime_dir / "gunicorn.ctl").exists()
    assert "Control socket listening" not in server.log.read_text()


@pytest.fixture
def named_socket(monkeypatch, tmp_path):
    path = tmp_path / "web.ctl"
    monkeypatch.setenv("GUNICORN_CONTROL_SOCKET", str(path))
    return path


def test_a_named_control_socket_is_made_for_its_owner_alone(runtime_dir, named_socket, server):
    assert server("sk_test_nobody", path="/v1/nothing-here")[0] == 404
    mode = os.stat(named_socket).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    assert not (runtime_dir / "gunicorn.ctl").exists()
