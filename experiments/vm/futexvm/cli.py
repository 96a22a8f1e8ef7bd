"""experiments/vm/run's command line: checks every input before anything is
built or booted (bad input: one line naming the problem, exit status 2),
then builds the initramfs, boots, and turns the console's verdict into the
exit status."""

import argparse
import os
import shutil
import sys
import tempfile
import time

from . import children, guest, initramfs, qemu, report, selftests

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(HERE))
FETCH = os.path.join(REPO, "experiments", "kernel", "fetch")
IMAGE = os.path.join("root", "usr", "lib", "modules", "7.2.13+deb14-cloud-amd64", "vmlinuz")
MAX_CPUS = 255  # QEMU's pc machine

DESCRIPTION = """\
Boots a Linux kernel under QEMU with an initramfs made on the fly (busybox-static,
futexsim and its shared libraries, the kernel's futex selftests built statically
from the fetched linux-source-7.2) and runs commands inside, one after another.
Each command's output comes back over the serial console between markers with its
exit status, and is printed as it comes. Default kernel: the fetched Debian 7.2.13
cloud image (experiments/kernel/fetch --only image-amd64).

Accelerator (--accel auto): KVM when /dev/kvm opens and the guest boots under it,
else TCG (-accel tcg,thread=multi -cpu max); the first line says which. Under TCG
the timing is not hardware timing: compare slots, return values, selftest pass/fail,
requeue counts, whether a pivot completes; never Mops/s (docs/vm.md).

Exit status: 0 every command exited 0; 1 a command exited non-zero; 2 bad input
or something missing (one line naming the package or fetch command); 3 the guest
did not report every command (a kernel panic, output cut short, timeout, QEMU
failed); 130 SIGINT, 143 SIGTERM, 129 SIGHUP (QEMU ended and waited for first;
a kill -9 of this script ends QEMU too)."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        bad(message)


def bad(message):
    print(f"vm: error: {message}", file=sys.stderr)
    sys.exit(2)


def positive_int(flag, lo, hi):
    def parse(text):
        if not text.isdigit() or not lo <= int(text) <= hi:
            raise argparse.ArgumentTypeError(f"takes a whole number from {lo} to {hi}, not {text!r}")
        return int(text)
    return parse


def positive_seconds(text):
    try:
        v = float(text)
    except ValueError:
        v = -1
    if not 0 < v <= 86400 or text.strip().lower() in ("nan", "inf"):
        raise argparse.ArgumentTypeError(f"takes seconds, more than 0 and at most 86400, not {text!r}")
    return v


def parse_args(argv):
    p = Parser(prog="experiments/vm/run", description=DESCRIPTION,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernel-image", metavar="FILE",
                   help="a bzImage/vmlinuz to boot (default: the fetched 7.2.13 cloud amd64 image)")
    p.add_argument("--cache", metavar="DIR", help="the kernel cache (default: experiments/kernel/fetch --print-cache)")
    p.add_argument("--cpus", type=positive_int("--cpus", 1, MAX_CPUS), default=2, metavar="N",
                   help=f"vCPUs, 1 to {MAX_CPUS} (default 2)")
    p.add_argument("--memory", type=positive_int("--memory", 128, 1 << 20), metavar="MB",
                   help="guest memory in MB (default 512 + 32 per vCPU)")
    p.add_argument("--timeout", type=positive_seconds, default=600, metavar="S",
                   help="end the guest after S seconds, boot included (default 600); exit status 3")
    p.add_argument("--accel", choices=["auto", "kvm", "tcg"], default="auto",
                   help="auto (default): KVM if it works, else TCG; kvm or tcg force one")
    p.add_argument("--run", action="append", default=[], metavar="CMD",
                   help="a shell command for the guest (busybox sh; futexsim is on PATH, and so are the selftests, built and added when --selftests is given or a command names one); repeatable, run in order")
    p.add_argument("--selftests", nargs="?", const=",".join(selftests.DEFAULT), metavar="LIST",
                   help="run futex selftests, after the --run commands: a comma-separated list, 'all', or by default "
                        + ",".join(selftests.DEFAULT))
    p.add_argument("--futexsim", metavar="FILE", default=os.path.join(REPO, "build", "futexsim"),
                   help="the futexsim to put in the guest (default build/futexsim)")
    p.add_argument("--busybox", metavar="FILE", default="/bin/busybox",
                   help="a statically linked busybox (default /bin/busybox, package busybox-static)")
    p.add_argument("--console-log", metavar="FILE",
                   help="write the guest's whole serial console to FILE (the kernel's messages too, e.g. a "
                        "panic's trace); a KVM attempt and the TCG boot after it both go there")
    p.add_argument("--write-initramfs", metavar="FILE",
                   help="write the initramfs to FILE and exit without booting")
    return p.parse_args(argv)


def kernel_cache():
    """The kernel cache experiments/kernel/fetch uses; RuntimeError saying
    why not."""
    r = children.run([FETCH, "--print-cache"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"experiments/kernel/fetch --print-cache failed: {r.stderr.strip()}")
    return r.stdout.strip()


def default_cache():
    try:
        return kernel_cache()
    except RuntimeError as e:
        bad(str(e))


def selftest_names(spec):
    try:
        return selftests.parse_names(spec)
    except ValueError as e:
        bad(f"--selftests: {e}")


def check_inputs(a):
    """Everything that can be missing, before anything is built."""
    if not a.run and a.selftests is None:
        bad("nothing to run: give --run CMD and/or --selftests")
    names = selftest_names(a.selftests) if a.selftests is not None else []
    if not a.write_initramfs and shutil.which(qemu.BINARY) is None:
        bad(f"{qemu.BINARY} not found: apt-get install qemu-system-x86")
    cache = a.cache
    if a.kernel_image:
        if not os.path.isfile(a.kernel_image):
            bad(f"--kernel-image {a.kernel_image}: no such file")
    elif not a.write_initramfs:
        cache = cache or default_cache()
        a.kernel_image = os.path.join(cache, IMAGE)
        if not os.path.isfile(a.kernel_image):
            bad(f"no kernel image at {a.kernel_image}: run experiments/kernel/fetch --only image-amd64")
    for flag, path in (("--console-log", a.console_log), ("--write-initramfs", a.write_initramfs)):
        if path and os.path.isdir(path):
            bad(f"{flag} {path}: is a directory")
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            bad(f"{flag} {path}: no such folder")
    if not os.path.isfile(a.busybox):
        bad(f"no busybox at {a.busybox}: apt-get install busybox-static")
    if initramfs.is_dynamic(a.busybox):
        bad(f"{a.busybox} is dynamically linked: apt-get install busybox-static")
    uses_futexsim = any("futexsim" in c for c in a.run)
    if uses_futexsim and not os.path.isfile(a.futexsim):
        bad(f"no futexsim at {a.futexsim}: build it with ./setup.sh, or give --futexsim FILE")
    if names or selftests.named_in(a.run):
        cache = cache or default_cache()
        if not os.path.isdir(selftests.source_dir(cache)):
            bad(f"no futex selftests under {cache}: run experiments/kernel/fetch --only source")
    return cache, names


def log(msg):
    print(msg, flush=True)


def main(argv):
    children.stop_on_signals("vm")
    a = parse_args(argv)
    cache, names = check_inputs(a)
    commands = list(a.run) + names
    programs = []
    if os.path.isfile(a.futexsim):
        programs.append(("bin/futexsim", a.futexsim))
    if names or selftests.named_in(a.run):
        try:
            built = selftests.build(cache, log)
        except RuntimeError as e:
            print(f"vm: {e}", file=sys.stderr)
            return 3
        programs += [(f"selftests/{n}", path) for n, path in built.items()]
    archive = initramfs.build(a.busybox, programs, commands)
    children.exit_if_stopped()  # a signal while the archive was made
    if a.write_initramfs:
        try:
            with open(a.write_initramfs, "wb") as f:
                f.write(archive)
        except OSError as e:
            bad(f"--write-initramfs {a.write_initramfs}: cannot write: {e.strerror}")
        log(f"vm: wrote {a.write_initramfs} ({len(archive)} bytes, {len(commands)} command(s))")
        return 0
    with tempfile.TemporaryDirectory(prefix="futexvm-") as tmp:
        initrd = os.path.join(tmp, "initramfs.cpio.gz")
        with open(initrd, "wb") as f:
            f.write(archive)
        return boot(a, initrd, len(archive), commands)


def boot(a, initrd, initrd_bytes, commands):
    mem = a.memory or qemu.memory_mb(a.cpus)
    stop = children.stop_signal
    accel = a.accel
    why = "forced by --accel"
    if accel == "auto":
        ok, why = qemu.kvm_usable()
        accel = "kvm" if ok else "tcg"
    started = time.monotonic()
    console_log = open(a.console_log, "w") if a.console_log else None
    try:
        return _boot_loop(a, initrd, initrd_bytes, commands, mem, stop, accel, why, started, console_log)
    finally:
        if console_log is not None:
            console_log.close()


def _boot_loop(a, initrd, initrd_bytes, commands, mem, stop, accel, why, started, console_log):
    while True:
        log(report.accel_line(a.kernel_image, a.cpus, mem, accel, why, initrd_bytes))
        if accel == "tcg":
            log(report.TCG_NOTE)
        cmd = qemu.command(a.kernel_image, initrd, a.cpus, mem, accel)
        t0 = time.monotonic()
        printer = report.Printer(commands, lambda: time.monotonic() - t0)
        out = guest.run(cmd, a.timeout - (t0 - started), printer, stop, accel, console_log)
        # Under KVM, a guest that never reached its init (QEMU stopped on
        # "KVM internal error", or aborted, as nested KVM does here) is
        # KVM's failure, not the kernel's: TCG gets the same boot.
        kvm_failed = out.reason == "kvm-failed" or (
            accel == "kvm" and out.reason == "exited" and out.console.booted is None)
        if kvm_failed and a.accel == "auto":
            lines = out.stderr.strip().splitlines()
            first = next((ln for ln in lines if qemu.looks_like_kvm_failure(ln)), lines[-1] if lines else "")
            log(f"vm: KVM cannot run this guest ({first.strip()}); booting again under TCG")
            accel, why = "tcg", "KVM failed on this machine"
            continue
        break
    if out.console.panic is not None and console_log is None:
        log("vm: give --console-log FILE to keep the panic's trace")
    return report.finish(out, commands, a.timeout, children.stop_signal())
