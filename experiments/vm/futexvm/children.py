"""The children of experiments/vm/run and beside (QEMU, gcc, ldd, strip,
the guest's experiments/vm/run, futexsim) stop with the tool and die with
it. Each is started with PR_SET_PDEATHSIG SIGKILL, so that a tool killed
outright (kill -9) leaves none running: QEMU runs in its own session, which
nothing else would reach. After stop_on_signals(), SIGINT, SIGTERM and
SIGHUP are noted (stop_signal()) and passed on to the child run() waits
for, after which the tool exits with 128 + the signal; guest.run() polls
stop_signal() and ends QEMU itself."""

import ctypes
import os
import signal
import subprocess
import sys

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_libc = ctypes.CDLL(None, use_errno=True)
_tool = "vm"
_waited = None  # the child run() waits for
_stop = None  # the first stop signal, once one came


def stop_on_signals(tool):
    """A signal the tool was started with ignored (nohup's SIGHUP) stays
    ignored, and so in its children."""
    global _tool
    _tool = tool
    for s in STOP_SIGNALS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, _on_stop)


def _on_stop(signum, _frame):
    global _stop
    _stop = _stop or signum
    if _waited is not None:
        _waited.send_signal(signum)


def stop_signal():
    """The stop signal that came, or None."""
    return _stop


def exit_if_stopped():
    if _stop:
        print(f"{_tool}: interrupted by {signal.Signals(_stop).name}", file=sys.stderr)
        sys.exit(128 + _stop)


def _die_with(parent):
    """preexec_fn: SIGKILL when the tool's thread that started the child
    ends, however it ends; a tool already gone before the prctl() would
    never send it, so the child then ends itself."""
    def preexec():
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)
    return preexec


def popen(cmd, **kw):
    """subprocess.Popen of a child that dies with the tool."""
    return subprocess.Popen(cmd, preexec_fn=_die_with(os.getpid()), **kw)


def run(cmd, check=False, capture_output=False, **kw):
    """subprocess.run of a child that stops and dies with the tool: a stop
    signal is passed on to it, and once it has ended the tool exits."""
    global _waited
    exit_if_stopped()
    if capture_output:
        kw["stdout"] = kw["stderr"] = subprocess.PIPE
    p = popen(cmd, **kw)
    _waited = p
    try:
        out, err = p.communicate()
    finally:
        _waited = None
    exit_if_stopped()
    if check and p.returncode:
        raise subprocess.CalledProcessError(p.returncode, cmd, out, err)
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)
