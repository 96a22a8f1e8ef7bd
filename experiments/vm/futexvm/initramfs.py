"""Builds the guest's initramfs: busybox as /bin/busybox (its applets are
linked at boot by /init), the programs to run (futexsim, the selftests),
the shared libraries a dynamically linked one needs at the paths ldd names,
/init and one file per command."""

import os
import shutil
import tempfile

from . import children, cpio, init_script


def is_dynamic(path):
    """Whether an ELF file has an interpreter (PT_INTERP), read from its
    program headers: a static binary needs nothing else in the guest."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:  # 64-bit ELF only
            return False
        phoff = int.from_bytes(head[32:40], "little")
        phentsize = int.from_bytes(head[54:56], "little")
        phnum = int.from_bytes(head[56:58], "little")
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    return any(int.from_bytes(table[i * phentsize:i * phentsize + 4], "little") == 3
               for i in range(phnum))


def shared_libraries(path):
    """The libraries (absolute host paths, the loader included) a dynamic
    executable loads, from ldd. futexsim links Debian's libfmt, of which
    Debian 12 ships no static archive, so a static futexsim cannot be
    linked without building fmt; its libraries travel with it instead."""
    if not is_dynamic(path):
        return []
    out = children.run(["ldd", path], capture_output=True, text=True, check=True).stdout
    libs = []
    for line in out.splitlines():
        parts = line.split()
        if "=>" in parts:
            target = parts[parts.index("=>") + 1]
            if target.startswith("/"):
                libs.append(target)
        elif parts and parts[0].startswith("/"):
            libs.append(parts[0])  # the loader
    return libs


def _stripped(path, scratch):
    """The file without its debug info, when strip(1) is there: a
    RelWithDebInfo futexsim is mostly DWARF, which the guest would unpack
    into its memory for nothing."""
    if shutil.which("strip") is None:
        return path
    out = os.path.join(scratch, os.path.basename(path))
    r = children.run(["strip", "--strip-debug", "-o", out, path], capture_output=True)
    return out if r.returncode == 0 else path


def _parents(guest_path):
    parts = guest_path.strip("/").split("/")[:-1]
    return ["/".join(parts[:i + 1]) for i in range(len(parts))]


def build(busybox, programs, commands):
    """The gzipped archive as bytes. programs: (guest path, host path)
    pairs; commands: the shell text of each command, run in order."""
    w = cpio.Writer()
    made = set()

    def mkdirs(guest_path):
        for d in _parents(guest_path):
            if d not in made:
                w.directory(d)
                made.add(d)

    for d in ("bin", "dev", "proc", "sys", "tmp", "futexvm"):
        w.directory(d)
        made.add(d)
    # The kernel opens /dev/console for init before devtmpfs is mounted.
    w.chardev("dev/console", 5, 1)
    with open(busybox, "rb") as f:
        w.file("bin/busybox", f.read(), 0o755)
    w.symlink("bin/sh", "busybox")
    w.file("init", init_script.render(len(commands)).encode(), 0o755)
    for i, text in enumerate(commands, 1):
        w.file(init_script.command_path(i), (text + "\n").encode(), 0o644)

    libs = []
    with tempfile.TemporaryDirectory(prefix="futexvm-strip-") as scratch:
        for guest, host in programs:
            mkdirs(guest)
            with open(_stripped(host, scratch), "rb") as f:
                w.file(guest, f.read(), 0o755)
            libs += [lib for lib in shared_libraries(host) if lib not in libs]
    for lib in libs:
        mkdirs(lib)
        # ldd names the path the loader opens; a symlink there would point
        # at a file the archive lacks, so the file itself goes in.
        with open(os.path.realpath(lib), "rb") as f:
            w.file(lib, f.read(), 0o755)
    return w.gzipped()
