"""What the experiments/vm tests share: where the script and its package
are, and a run of the script with a chosen PATH."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VM_DIR = os.path.join(REPO, "experiments", "vm")
RUN = os.path.join(VM_DIR, "run")
sys.path.insert(0, VM_DIR)


def run_script(args, path=None, **kw):
    """experiments/vm/run with args under this Python; PATH replaced when
    given (to hide or fake QEMU)."""
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, RUN, *args], capture_output=True, text=True, env=env, **kw)
