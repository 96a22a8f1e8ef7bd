"""The children of experiments/' drivers (run_all, stall_threshold.py,
policy_overhead.py, fast_forward_check.py) stop with them and die with them.

stop_on_signals(tool) makes SIGINT, SIGTERM and SIGHUP stop the tool: the
signal is passed on to every child it is waiting for (a `futexsim sweep`
stops its runs and leaves a file that resumes), the tool waits for them and
exits with 128 + the signal, saying so in one line. run() is subprocess.run
for those children, each started with PR_SET_PDEATHSIG SIGKILL, so that a
driver killed outright (kill -9, the OOM killer) leaves no child running
(a sweep left behind would still write to the file the next run_all
resumes: "run 10 is in twice")."""

import ctypes
import os
import signal
import subprocess
import sys

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_libc = ctypes.CDLL(None, use_errno=True)
_tool = os.path.basename(sys.argv[0])
_live = set()  # the children running now (several: the scripts run them from a thread pool)
_stop = None  # the first stop signal, once one came
_said = False  # whether the tool said so (once, whichever thread stops first)


def stop_on_signals(tool):
    """From here on a stop signal stops the tool (see above). One the tool
    was started with ignored (nohup's SIGHUP) stays ignored, and so in its
    children."""
    global _tool
    _tool = tool
    for s in STOP_SIGNALS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, _on_stop)


def _on_stop(signum, _frame):
    global _stop
    _stop = _stop or signum
    live = list(_live)
    for p in live:
        p.send_signal(signum)  # run() waits for it, then stops the tool
    if not live:
        _stopped()  # nothing to wait for: stop here


def _stopped():
    global _said
    if not _said:
        _said = True
        # os.write: a signal may land while the tool is printing to stderr,
        # where print() would raise a reentrant-call error.
        os.write(2, f"{_tool}: interrupted by {signal.Signals(_stop).name}\n".encode())
    raise SystemExit(128 + _stop)


def _die_with(parent):
    """preexec_fn: the child gets SIGKILL when the driver's thread that
    started it ends, however it ends; a driver already gone before the
    prctl() would never send it, so the child then ends itself."""
    def preexec():
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)
    return preexec


def run(cmd, check=False, capture_output=False, **kw):
    """subprocess.run(cmd, ...) for a child that stops and dies with the
    driver (see above); a stop signal during it stops the tool once the
    child has ended."""
    if _stop:
        _stopped()  # a thread pool's next task, after the signal
    if capture_output:
        kw["stdout"] = kw["stderr"] = subprocess.PIPE
    p = subprocess.Popen(cmd, preexec_fn=_die_with(os.getpid()), **kw)
    _live.add(p)
    try:
        out, err = p.communicate()
    finally:
        _live.discard(p)
    if _stop:
        _stopped()
    if check and p.returncode:
        raise subprocess.CalledProcessError(p.returncode, cmd, out, err)
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)
