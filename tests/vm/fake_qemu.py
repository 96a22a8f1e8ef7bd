"""Stands in for qemu-system-x86_64 in errors_test.py, so that the boot path
of experiments/vm/run (console, exit status, timeout, SIGINT, the fallback
from KVM) is tested without QEMU or a kernel. Environment:
FAKE_QEMU_DIR: writes argv and its pid there; its file `console` is printed
as the serial console; FAKE_QEMU_HANG=1: then waits to be killed;
FAKE_QEMU_KVM_FAIL=1: under -accel kvm, prints KVM's nested failure on
stderr and waits, as QEMU does."""

import os
import sys
import time

d = os.environ["FAKE_QEMU_DIR"]
with open(os.path.join(d, "pid"), "w") as f:
    f.write(str(os.getpid()))
args = sys.argv[1:]
with open(os.path.join(d, "argv"), "a") as f:
    f.write(" ".join(args) + "\n")
accel = args[args.index("-accel") + 1]
if accel == "kvm" and os.environ.get("FAKE_QEMU_KVM_FAIL"):
    print("KVM internal error. Suberror: 1\nextra data[0]: 0x0\nemulation failure", file=sys.stderr, flush=True)
    while True:
        time.sleep(1)
with open(os.path.join(d, "console")) as f:
    sys.stdout.write(f.read())
sys.stdout.flush()
while os.environ.get("FAKE_QEMU_HANG"):
    time.sleep(1)
