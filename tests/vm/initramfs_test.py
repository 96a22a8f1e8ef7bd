"""The initramfs builder (experiments/vm/futexvm/initramfs.py), no download
and no QEMU: the archive --write-initramfs writes is listed back, and /init,
busybox, the programs, their shared libraries and one file per command must
be in it, the init script bracketing each command with its markers."""

import os
import shutil
import stat
import tempfile
import unittest

import vmtest
from futexvm import cpio, initramfs, markers


class Initramfs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vmtest-")
        # Not an ELF file: the builder takes it as statically linked, which
        # is all a busybox needs to be here.
        self.busybox = os.path.join(self.tmp, "busybox")
        with open(self.busybox, "wb") as f:
            f.write(b"fake busybox\n")
        # A dynamically linked program, so that its libraries must travel.
        self.futexsim = shutil.which("true")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, *extra):
        out = os.path.join(self.tmp, "initrd.gz")
        r = vmtest.run_script(["--busybox", self.busybox, "--futexsim", self.futexsim,
                               "--write-initramfs", out, *extra])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            return {name: (mode, data) for name, mode, data in cpio.entries(f.read())}

    def test_contents(self):
        files = self.write("--run", "futexsim run --backend kernel --threads 2 --seconds 0.1",
                           "--run", "echo 'quoted' \"text\"")
        mode, init = files["init"]
        self.assertTrue(stat.S_ISREG(mode) and mode & 0o111, "init is an executable file")
        init = init.decode()
        self.assertTrue(init.startswith("#!/bin/busybox sh\n"))
        for i in (1, 2):
            self.assertIn(markers.begin(i), init)
            self.assertIn(markers.end(i, "$?"), init)
            self.assertIn(f"sh /futexvm/cmd{i}.sh", init)
        self.assertLess(init.index(markers.BOOTED), init.index(markers.begin(1)))
        self.assertLess(init.index(markers.end(2, "$?")), init.index(markers.DONE))
        self.assertIn("reboot -f", init)
        self.assertEqual(files["futexvm/cmd2.sh"][1], b"echo 'quoted' \"text\"\n")
        self.assertEqual(files["bin/busybox"][1], b"fake busybox\n")
        self.assertTrue(stat.S_ISLNK(files["bin/sh"][0]))
        self.assertTrue(stat.S_ISCHR(files["dev/console"][0]))
        self.assertIn("bin/futexsim", files)
        # Every library ldd names, at the path the loader looks for it.
        libs = initramfs.shared_libraries(self.futexsim)
        self.assertTrue(any("libc.so" in lib for lib in libs), libs)
        for lib in libs:
            self.assertIn(lib.lstrip("/"), files)
            self.assertTrue(stat.S_ISREG(files[lib.lstrip("/")][0]))
        # Every directory precedes what is in it (the kernel makes paths in order).
        seen = set()
        for name in files:
            parent = os.path.dirname(name)
            self.assertTrue(parent == "" or parent in seen, f"{name} before {parent}")
            seen.add(name)

    def test_static_program_brings_no_library(self):
        self.futexsim = self.busybox
        files = self.write("--run", "futexsim --help")
        self.assertFalse([n for n in files if ".so" in n])

    def test_round_trip(self):
        w = cpio.Writer()
        w.directory("a")
        w.file("a/odd", b"12345", 0o600)
        w.symlink("a/link", "odd")
        got = cpio.entries(w.gzipped())
        self.assertEqual([(n, d) for n, _, d in got], [("a", b""), ("a/odd", b"12345"), ("a/link", b"odd")])
        self.assertEqual(stat.S_IMODE(got[1][1]), 0o600)
        self.assertEqual(w.gzipped(), w.gzipped(), "the same contents give the same bytes")


if __name__ == "__main__":
    unittest.main()
