"""The test stand-in for a managed-sandbox provider (agent-canvas issue #39 §2).

Omnigent's managed sandboxes are provisioned by cloud providers (Modal, Daytona, …) or by
micro-VMs that need KVM, none of which can run on the test machine. This plugin stands in for
the provider only: it is loaded through Omnigent's documented community-provider entry point
(`omnigent.sandbox_providers`, module under `omnigent.community.sandbox`), and its "sandbox" is
a private directory on this machine in which it runs the real `omnigent host` with the launch
token, host id and name the real server minted. Everything else (the session create, the
launch stages on the stream, the token check, the host's registration, deleting the session's
sandbox) is the real server's.

Environment (set by the test harness on the server process):
  CANVAS_SANDBOX_ROOT       where sandboxes are made (one directory each)
  CANVAS_SANDBOX_LLM_URL    the LLM stub's base URL, given to the host as OPENAI_BASE_URL
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from omnigent.onboarding.sandboxes.base import SandboxHostLauncher
from omnigent.onboarding.sandboxes.registry import (
    SandboxProviderContribution,
    SandboxProviderMetadata,
)

NAME = "canvas-local"
_KEPT_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL")


def _root() -> Path:
    root = Path(os.environ.get("CANVAS_SANDBOX_ROOT", "/tmp/canvas-local-sandboxes"))
    root.mkdir(parents=True, exist_ok=True)
    return root


class CanvasLocalLauncher(SandboxHostLauncher):
    """A sandbox is a directory; its host is a local `omnigent host` process group."""

    provider = NAME

    def prepare(self) -> None:
        _root()

    def provision(self, name: str) -> str:
        sandbox_id = f"local-{uuid.uuid4().hex[:12]}"
        (_root() / sandbox_id).mkdir(mode=0o700)
        return sandbox_id

    def start_host(
        self,
        sandbox_id: str,
        *,
        token: str,
        host_id: str,
        host_name: str,
        server_url: str,
        repos: Sequence[object] = (),
        host_config: dict[str, object] | None = None,
        on_stage: Callable[[str], None] | None = None,
    ) -> str:
        box = _root() / sandbox_id
        home, workspace = box / "home", box / "workspace"
        home.mkdir(parents=True, exist_ok=True)
        workspace.mkdir(parents=True, exist_ok=True)
        clones = []
        if repos:
            if on_stage:
                on_stage("cloning")
            for repo in repos:
                target = workspace / repo.repo_name
                cmd = ["git", "clone", "--quiet"]
                if repo.branch:
                    cmd += ["--branch", repo.branch, "--single-branch"]
                subprocess.run(cmd + [repo.url, str(target)], check=True, capture_output=True)
                clones.append(target)
        if on_stage:
            on_stage("starting")
        env = {k: os.environ[k] for k in _KEPT_ENV if k in os.environ}
        env.update(
            HOME=str(home),
            OMNIGENT_HOST_TOKEN=token,
            OMNIGENT_HOST_ID=host_id,
            OMNIGENT_HOST_NAME=host_name,
            OMNIGENT_NO_UPDATE_CHECK="1",
            OMNIGENT_DISABLE_TELEMETRY="1",
            DO_NOT_TRACK="1",
            PYTHONUNBUFFERED="1",
        )
        llm = os.environ.get("CANVAS_SANDBOX_LLM_URL")
        if llm:
            env.update(OPENAI_BASE_URL=llm, OPENAI_API_KEY="sk-stub")
        # The runners' terminals (tmux servers, which leave the host's process group) keep their
        # sockets here, so that terminating the sandbox ends them; short, as a tmux socket path
        # must fit in 108 bytes.
        tmp = tempfile.mkdtemp(prefix="cvs-", dir="/tmp")
        (box / "tmpdir").write_text(tmp)
        env["TMPDIR"] = tmp
        log = open(box / "host.log", "ab")
        proc = subprocess.Popen(
            [sys.executable, "-m", "omnigent", "host", "--server", server_url,
             "--no-open", "--non-interactive"],
            cwd=str(workspace),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        (box / "pid").write_text(str(proc.pid))
        return str(clones[0] if len(clones) == 1 else workspace)

    def is_running(self, sandbox_id: str) -> bool | None:
        pid = self._pid(sandbox_id)
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True

    def terminate(self, sandbox_id: str) -> None:
        pid = self._pid(sandbox_id)
        if pid is None:
            return
        try:
            os.killpg(pid, signal.SIGTERM)
        except OSError:
            pass
        (_root() / sandbox_id / "pid").unlink(missing_ok=True)
        _end_terminals(_root() / sandbox_id / "tmpdir")

    def _pid(self, sandbox_id: str) -> int | None:
        try:
            return int((_root() / sandbox_id / "pid").read_text())
        except (OSError, ValueError):
            return None


def _end_terminals(record: Path) -> None:
    """Ends every tmux server with a socket under the sandbox's TMPDIR, then removes it."""
    try:
        tmp = Path(record.read_text().strip())
    except OSError:
        return
    for sock in tmp.glob("tmux-*/*"):
        subprocess.run(["tmux", "-S", str(sock), "kill-server"], capture_output=True)
    shutil.rmtree(tmp, ignore_errors=True)
    record.unlink(missing_ok=True)


contribution = SandboxProviderContribution(
    name="canvas-local-sandbox",
    providers={
        NAME: SandboxProviderMetadata(
            name=NAME,
            launcher_class="omnigent.community.sandbox.canvas_local:CanvasLocalLauncher",
        )
    },
)
