"""What experiments/vm/run prints: the line saying which kernel and
accelerator (and, under TCG, that its timing is not hardware timing), each
command's output between a header and its exit status, and the closing
verdict with the exit status it maps to."""

import signal
import sys

TCG_NOTE = ("vm: TCG emulates the CPUs: timing is not hardware timing; compare slots, return values, "
            "selftest pass/fail, requeue counts, pivot completion, never Mops/s")


def accel_line(kernel, cpus, mem, accel, why, initrd_bytes):
    how = "KVM (-accel kvm -cpu host)" if accel == "kvm" else "TCG (-accel tcg,thread=multi -cpu max)"
    return (f"vm: booting {kernel} with {cpus} vCPU(s), {mem} MB, initramfs {initrd_bytes // 1024} KB; "
            f"accelerator {how}: {why}")


class Printer:
    """Called with each console event (markers.Console.feed) as it comes."""

    def __init__(self, commands, clock):
        self.commands = commands
        self.clock = clock  # seconds since QEMU started
        self.began = 0.0

    def __call__(self, ev):
        kind = ev[0]
        if kind == "booted":
            print(f"vm: guest up after {self.clock():.1f} s: {ev[1]}", flush=True)
        elif kind == "begin":
            self.began = self.clock()
            print(f"=== [{ev[1]}/{len(self.commands)}] {self._text(ev[1])}", flush=True)
        elif kind == "output":
            print(ev[2], flush=True)
        elif kind == "end":
            took = self.clock() - self.began
            print(f"=== [{ev[1]}/{len(self.commands)}] exit status {ev[2]} ({took:.1f} s)", flush=True)
        elif kind == "panic":
            print(f"vm: guest kernel panic: {ev[1]}", flush=True)

    def _text(self, i):
        return self.commands[i - 1] if 0 < i <= len(self.commands) else "?"


def finish(out, commands, timeout, signum):
    """Prints the verdict; returns the exit status."""
    if out.reason == "stopped":
        name = signal.Signals(signum).name
        print(f"vm: interrupted by {name}: guest ended", file=sys.stderr)
        return 128 + signum
    if out.reason == "timeout":
        print(f"vm: timed out after {timeout:g} s: guest ended", file=sys.stderr)
        return 3
    if out.reason == "kvm-failed":
        print("vm: KVM cannot run this guest (--accel kvm); try --accel tcg", file=sys.stderr)
        return 3
    status, message = out.console.verdict(len(commands))
    if status == 3 and out.qemu_rc not in (0, None):
        tail = out.stderr.strip().splitlines()[-1:] or [""]
        message += f" (QEMU exit status {out.qemu_rc}: {tail[0]})"
    print(f"vm: {message}", file=sys.stderr if status else sys.stdout, flush=True)
    return status
