"""QEMU's command line, and the choice of accelerator: KVM where /dev/kvm
can be opened, else TCG. A KVM that opens but cannot run the guest (nested
virtualisation: "KVM internal error. Suberror: 1 ... emulation failure")
is recognised from QEMU's stderr by looks_like_kvm_failure(), so that the
caller can boot again under TCG."""

import os
import re

BINARY = "qemu-system-x86_64"
ACCEL_ARGS = {
    "kvm": ["-accel", "kvm", "-cpu", "host"],
    # MTTCG: one host thread per vCPU; -cpu max offers what the kernel
    # image may want (it is built for x86-64-v1, but max costs nothing).
    "tcg": ["-accel", "tcg,thread=multi", "-cpu", "max"],
}
_KVM_FAILURE = re.compile(r"KVM internal error|emulation failure|failed to initialize kvm|"
                          r"Could not access KVM|kvm run failed", re.I)


def kvm_usable():
    """Whether /dev/kvm opens read-write; why not, if it does not."""
    try:
        fd = os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        return False, f"/dev/kvm: {e.strerror}"
    os.close(fd)
    return True, "/dev/kvm opens"


def looks_like_kvm_failure(stderr_text):
    return _KVM_FAILURE.search(stderr_text) is not None


def memory_mb(cpus):
    """Enough for the unpacked initramfs (futexsim, its libraries, the
    selftests: about 40 MB), the kernel, and the per-CPU areas and a few
    thread stacks per vCPU; a guest of 96 vCPUs gets 3.3 GB."""
    return 512 + 32 * cpus


def command(kernel, initrd, cpus, mem_mb, accel, extra_append=""):
    # loglevel=5: warnings and worse reach the console (a WARN_ON or a
    # might_sleep() splat during a command shows in its output), notices
    # and boot chatter do not. panic=-1 with -no-reboot: a panic ends QEMU.
    append = "console=ttyS0 loglevel=5 panic=-1 rdinit=/init"
    if extra_append:
        append += " " + extra_append
    return [BINARY, "-nodefaults", "-no-user-config", "-display", "none",
            "-serial", "stdio", "-monitor", "none", "-no-reboot",
            *ACCEL_ARGS[accel], "-smp", str(cpus), "-m", str(mem_mb),
            "-kernel", kernel, "-initrd", initrd, "-append", append]
