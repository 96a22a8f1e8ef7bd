"""Runs one QEMU boot: feeds its serial console to markers.Console line by
line, shows what each line means as it comes, and ends QEMU on a timeout,
a stop request (SIGINT, SIGTERM or SIGHUP, through the `stop` callable) or,
under KVM, a failure that TCG would not have. QEMU runs in its own session,
so a terminal's Ctrl-C reaches this script only, which then ends QEMU and
waits for it; and it dies with this script (children.popen()), so that
nothing is left running even if the script is killed outright."""

import os
import selectors
import subprocess
import time

from . import children, markers, qemu


class Outcome:
    def __init__(self):
        self.console = markers.Console()
        self.reason = None  # "exited", "timeout", "stopped", "kvm-failed"
        self.qemu_rc = None
        self.stderr = ""


def _end(proc):
    """SIGTERM, then SIGKILL if QEMU lingers; always reaped."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run(cmd, timeout, on_event, stop, accel, console_log=None):
    """console_log: a text file that gets every console line as it comes
    (the kernel's own messages too: a panic's trace)."""
    out = Outcome()
    start = time.monotonic()
    proc = children.popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, start_new_session=True)
    sel = selectors.DefaultSelector()
    bufs = {proc.stdout: b"", proc.stderr: b""}
    for f in bufs:
        os.set_blocking(f.fileno(), False)
        sel.register(f, selectors.EVENT_READ)
    try:
        while sel.get_map():
            if stop():
                out.reason = "stopped"
                break
            if time.monotonic() - start > timeout:
                out.reason = "timeout"
                break
            for key, _ in sel.select(timeout=0.2):
                f = key.fileobj
                chunk = f.read()
                if not chunk:
                    sel.unregister(f)
                    lines = [bufs[f]] if bufs[f] else []
                    bufs[f] = b""
                else:
                    data = bufs[f] + chunk
                    *lines, bufs[f] = data.split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", "replace")
                    if f is proc.stderr:
                        out.stderr += line + "\n"
                        continue
                    if console_log is not None:
                        console_log.write(line.rstrip("\r") + "\n")
                        console_log.flush()
                    for ev in out.console.feed(line):
                        on_event(ev)
            if (accel == "kvm" and out.console.booted is None
                    and qemu.looks_like_kvm_failure(out.stderr)):
                out.reason = "kvm-failed"
                break
    finally:
        sel.close()
        _end(proc)
        proc.stdout.close()
        proc.stderr.close()
    out.qemu_rc = proc.returncode
    if out.reason is None:
        out.reason = "exited"
    return out
