"""Reading an ELF file for the walk: its function symbols (nm), section
headers, raw bytes, and disassembly with DWARF lines (objdump), each asked
of the tools once and kept."""

import os
import re
import struct
import subprocess

from .alternatives import read_table
from .common import Bad

TOOLS = {
    "amd64": ("objdump", "nm"),
    "arm64": ("aarch64-linux-gnu-objdump", "aarch64-linux-gnu-nm"),
}


def run(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        raise Bad(f"{cmd[0]} not found")
    except subprocess.CalledProcessError as e:
        raise Bad(f"{cmd[0]} failed: {e.stderr.strip().splitlines()[-1] if e.stderr.strip() else e.returncode}")


def check_elf(path):
    """Bad saying what the file is when it is no ELF file to walk."""
    if not os.path.lexists(path):
        raise Bad(f"no such file: {path}")
    if os.path.isdir(path):
        raise Bad(f"{path}: is a directory, not an ELF file")
    if not os.path.isfile(path):
        raise Bad(f"{path}: not a regular file (a device, FIFO or socket), not an ELF file")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise Bad(f"cannot read {path}: {e.strerror}")
    if magic != b"\x7fELF":
        raise Bad(f"{path}: not an ELF file")


INSN = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")


def insn_line(line, arch):
    """(address, text) of an instruction line of objdump -d, its comment cut
    off (`//` on arm64, `#` on x86), or None for any other line; the text
    is empty or starts with "(" where objdump printed no instruction (both
    callers skip those)."""
    m = INSN.match(line)
    if not m:
        return None
    text = m.group(2).split("//")[0].strip() if arch == "arm64" else m.group(2).split("#")[0].strip()
    return int(m.group(1), 16), text


class Elf:
    def __init__(self, path, arch):
        check_elf(path)
        self.path, self.arch = path, arch
        self.objdump, nm = TOOLS[arch]
        self.syms = {}
        for line in run([nm, "-S", path]).splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in "tTwW":
                self.syms.setdefault(f[3], (int(f[0], 16), int(f[1], 16)))
        self.cache = {}
        self._alts = None
        self._repl = {}
        self._disasm = {}

    def sections(self):
        """(name -> (addr, file offset, size)) from the ELF64 section headers."""
        with open(self.path, "rb") as f:
            h = f.read(64)
            if h[:4] != b"\x7fELF" or h[4] != 2:
                raise Bad(f"{self.path}: not an ELF64 file")
            shoff, = struct.unpack_from("<Q", h, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", h, 0x3a)
            f.seek(shoff)
            raw = f.read(shentsize * shnum)
            hdrs = [struct.unpack_from("<IIQQQQ", raw, i * shentsize) for i in range(shnum)]
            f.seek(hdrs[shstrndx][4])
            names = f.read(hdrs[shstrndx][5])
        return {names[n:names.index(b"\0", n)].decode(): (a, o, z) for n, _, _, a, o, z in hdrs}

    def read(self, off, size):
        with open(self.path, "rb") as f:
            f.seek(off)
            return f.read(size)

    def alternatives(self):
        """The patch sites of .altinstructions (alternatives.read_table()),
        read once: the walk asks at every instruction."""
        if self._alts is None:
            self._alts = read_table(self)
        return self._alts

    def disasm(self, lo, hi):
        """[(addr, text, length)] between two addresses, any section (each
        range disassembled once: every walk of a patch site asks again)."""
        if (lo, hi) not in self._disasm:
            self._disasm[(lo, hi)] = self._disasm_uncached(lo, hi)
        return self._disasm[(lo, hi)]

    def _disasm_uncached(self, lo, hi):
        out = run([self.objdump, "-d", "--no-show-raw-insn", f"--start-address={lo:#x}",
                   f"--stop-address={hi:#x}", self.path])
        rows = []
        for line in out.splitlines():
            row = insn_line(line, self.arch)
            if row and row[1] and not row[1].startswith("("):
                rows.append(list(row))
        return [(a, t, (rows[i + 1][0] if i + 1 < len(rows) else hi) - a) for i, (a, t) in enumerate(rows)]

    def func(self, name):
        """(start, end, {addr: (text, FILE:LINE, inlined function)}, {addr:
        next addr}) of a function, disassembled with its DWARF lines once."""
        if name in self.cache:
            return self.cache[name]
        if name not in self.syms:
            raise Bad(f"{self.path}: no function {name}")
        start, size = self.syms[name]
        out = run([self.objdump, "-d", "-l", "--no-show-raw-insn",
                   f"--start-address={start:#x}", f"--stop-address={start + size:#x}", self.path])
        insns, where, inl = {}, "?", "?"
        order = []
        for line in out.splitlines():
            row = insn_line(line, self.arch)
            if row:
                addr, text = row
                if not text or text.startswith("("):
                    continue
                insns[addr] = (text, where, inl)
                order.append(addr)
                continue
            m = re.match(r"^(\S+):(\d+)( \(discriminator \d+\))?$", line)
            if m:
                where = f"{os.path.basename(m.group(1))}:{m.group(2)}"
                continue
            m = re.match(r"^(\S+)\(\):$", line)
            if m:
                inl = m.group(1)
        nxt = {a: b for a, b in zip(order, order[1:])}
        self.cache[name] = (start, start + size, insns, nxt)
        return self.cache[name]

    def owner(self, addr):
        for n, (s, z) in self.syms.items():
            if s <= addr < s + z:
                return n
        return None
