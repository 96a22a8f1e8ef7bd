"""The guest's /init: a busybox shell script that mounts what the commands
need, runs each command from its own file (so that no quoting of the user's
text is needed), brackets its output with markers.py's markers and the exit
status, and ends the guest. The kernel is booted with panic=-1 and QEMU
with -no-reboot, so `reboot -f` (and a panic) end QEMU."""

from . import markers


def command_path(i):
    return f"/futexvm/cmd{i}.sh"


def render(n_commands):
    lines = [
        "#!/bin/busybox sh",
        "# Written by experiments/vm/run (futexvm/init_script.py).",
        "/bin/busybox --install -s /bin",
        "export PATH=/bin:/selftests HOME=/tmp",
        "mount -t proc proc /proc",
        "mount -t sysfs sysfs /sys",
        "mount -t devtmpfs devtmpfs /dev 2>/dev/null",
        "mount -t tmpfs tmpfs /tmp",
        # The selftests print and read nothing else; their cwd is scratch.
        "cd /tmp",
        f'echo "{markers.BOOTED} cpus=$(nproc) kernel=$(uname -r)"',
    ]
    for i in range(1, n_commands + 1):
        lines += [
            f'echo "{markers.begin(i)}"',
            f"sh {command_path(i)} </dev/null 2>&1",
            f'echo "{markers.end(i, "$?")}"',
        ]
    lines += [f'echo "{markers.DONE}"', "sync", "reboot -f", ""]
    return "\n".join(lines)
