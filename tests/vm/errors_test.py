"""experiments/vm/run's error paths and boot path without QEMU or a
download: bad input and anything missing is one line naming the problem
(the package or the fetch command) with exit status 2, before anything is
built; with tests/vm/fake_qemu.py as QEMU, each console outcome maps to its
exit status, and a timeout or SIGINT leaves no QEMU running."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

import vmtest

BOOT = "@@futexvm BOOTED cpus=3 kernel=fake\n"


class Errors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vmtest-")
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        self.busybox = self.file("busybox", "not an ELF: taken as static\n")
        self.kernel = self.file("vmlinuz", "fake kernel\n")
        self.empty = os.path.join(self.tmp, "cache")
        os.mkdir(self.empty)
        # No futexsim: a built one would send the builder to ldd and strip,
        # which the PATH of these runs (the fake QEMU alone) does not have.
        self.common = ["--busybox", self.busybox, "--cache", self.empty,
                       "--futexsim", os.path.join(self.tmp, "no-futexsim")]

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def file(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def fake_qemu(self):
        """bin/qemu-system-x86_64 runs fake_qemu.py; PATH is that folder only."""
        path = os.path.join(self.bin, "qemu-system-x86_64")
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\nexec {sys.executable} {os.path.join(os.path.dirname(__file__), 'fake_qemu.py')} \"$@\"\n")
        os.chmod(path, 0o755)

    def one_line(self, args, *words, path=None):
        r = vmtest.run_script(args, path=self.bin if path is None else path)
        self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
        self.assertEqual(r.stdout, "", args)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, (args, r.stderr))
        self.assertTrue(lines[0].startswith("vm: error: "), lines)
        for w in words:
            self.assertIn(w, lines[0], args)

    def test_help(self):
        r = vmtest.run_script(["--help"])
        self.assertEqual(r.returncode, 0)
        for w in ("--kernel-image", "--cpus", "--timeout", "--accel", "--selftests", "TCG", "130"):
            self.assertIn(w, r.stdout)

    def test_bad_input(self):
        self.fake_qemu()
        run = ["--kernel-image", self.kernel, "--run", "true"]
        for v in ("0", "256", "-1", "1.5", "x", ""):
            self.one_line(self.common + run + ["--cpus", v], "--cpus", "1 to 255")
        for v in ("0", "-3", "nan", "inf", "x"):
            self.one_line(self.common + run + ["--timeout", v], "--timeout")
        self.one_line(self.common + run + ["--memory", "64"], "--memory")
        self.one_line(self.common + run + ["--accel", "hvf"], "--accel")
        self.one_line(self.common + run + ["--bogus"], "--bogus")
        self.one_line(self.common + ["--kernel-image", self.kernel], "nothing to run")
        self.one_line(self.common + run + ["--selftests", "futex_nope"], "futex_nope")
        self.one_line(self.common + run + ["--selftests", "futex_wait,futex_wait"], "twice")

    def test_missing(self):
        run = ["--kernel-image", self.kernel, "--run", "true"]
        self.one_line(self.common + run, "qemu-system-x86_64 not found", "apt-get install qemu-system-x86")
        self.fake_qemu()
        self.one_line(self.common + ["--run", "true"], "experiments/kernel/fetch --only image-amd64")
        self.one_line(self.common + ["--kernel-image", self.kernel + ".no", "--run", "true"], "no such file")
        self.one_line(["--busybox", self.kernel + ".no", "--kernel-image", self.kernel, "--run", "true"],
                      "apt-get install busybox-static")
        self.one_line(["--busybox", shutil.which("true"), "--kernel-image", self.kernel, "--run", "true"],
                      "dynamically linked", "busybox-static")
        self.one_line(self.common + ["--kernel-image", self.kernel, "--run", "futexsim run"], "./setup.sh")
        self.one_line(self.common + ["--kernel-image", self.kernel, "--selftests"],
                      "experiments/kernel/fetch --only source")

    def boot(self, console, *extra, env=None):
        self.fake_qemu()
        with open(os.path.join(self.tmp, "console"), "w") as f:
            f.write(console)
        e = dict(os.environ, PATH=self.bin, FAKE_QEMU_DIR=self.tmp, **(env or {}))
        args = [sys.executable, vmtest.RUN, *self.common, "--kernel-image", self.kernel, *extra]
        return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)

    def finished(self, proc):
        out, err = proc.communicate(timeout=120)
        return proc.returncode, out, err

    def assert_fake_gone(self):
        with open(os.path.join(self.tmp, "pid")) as f:
            pid = int(f.read())
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)

    def test_console_outcomes(self):
        ok = BOOT + "@@futexvm BEGIN 1\nhello\n@@futexvm END 1 rc=0\n@@futexvm DONE\n"
        rc, out, _ = self.finished(self.boot(ok, "--run", "echo hello", "--cpus", "3", "--accel", "tcg"))
        self.assertEqual(rc, 0)
        self.assertIn("=== [1/1] echo hello\nhello\n=== [1/1] exit status 0", out)
        self.assertIn("accelerator TCG", out)
        self.assertIn("timing is not hardware timing", out)
        with open(os.path.join(self.tmp, "argv")) as f:
            argv = f.read().split()
        for a in ("-no-reboot", "tcg,thread=multi", "max"):
            self.assertIn(a, argv)
        self.assertEqual(argv[argv.index("-smp") + 1], "3")
        self.assertEqual(argv[argv.index("-m") + 1], str(512 + 32 * 3))

        failed = BOOT + "@@futexvm BEGIN 1\n@@futexvm END 1 rc=4\n@@futexvm DONE\n"
        rc, _, err = self.finished(self.boot(failed, "--run", "false", "--accel", "tcg"))
        self.assertEqual(rc, 1)
        self.assertIn("exited non-zero", err)

        panic = BOOT + "@@futexvm BEGIN 1\nKernel panic - not syncing: Fatal exception\n"
        rc, _, err = self.finished(self.boot(panic, "--run", "true", "--accel", "tcg"))
        self.assertEqual(rc, 3)
        self.assertIn("panicked: Fatal exception", err)

        cut = BOOT + "@@futexvm BEGIN 1\nhalf"
        rc, out, err = self.finished(self.boot(cut, "--run", "true", "--accel", "tcg"))
        self.assertEqual(rc, 3)
        self.assertIn("half", out)
        self.assertIn("cut short", err)

    def test_kvm_failure_falls_back_to_tcg(self):
        ok = BOOT + "@@futexvm BEGIN 1\n@@futexvm END 1 rc=0\n@@futexvm DONE\n"
        rc, out, _ = self.finished(self.boot(ok, "--run", "true", env={"FAKE_QEMU_KVM_FAIL": "1"}))
        self.assertEqual(rc, 0, out)
        self.assertIn("accelerator TCG", out)  # directly, or after KVM failed where /dev/kvm opens
        rc, _, err = self.finished(self.boot(ok, "--run", "true", "--accel", "kvm", env={"FAKE_QEMU_KVM_FAIL": "1"}))
        self.assertEqual(rc, 3)
        self.assert_fake_gone()

    def test_timeout_ends_qemu(self):
        rc, _, err = self.finished(self.boot(BOOT + "@@futexvm BEGIN 1\n", "--run", "sleep 100", "--accel", "tcg",
                                             "--timeout", "1", env={"FAKE_QEMU_HANG": "1"}))
        self.assertEqual(rc, 3)
        self.assertIn("timed out after 1 s", err)
        self.assert_fake_gone()

    def test_sigint_ends_qemu_and_exits_130(self):
        proc = self.boot(BOOT + "@@futexvm BEGIN 1\n", "--run", "sleep 100", "--accel", "tcg",
                         env={"FAKE_QEMU_HANG": "1"})
        # Wait until the command has begun (a hang guard, not a timing check).
        line = ""
        while "=== [1/1]" not in line:
            line = proc.stdout.readline()
            self.assertNotEqual(line, "", "the run ended before its command began")
        proc.send_signal(signal.SIGINT)
        rc, _, err = self.finished(proc)
        self.assertEqual(rc, 130)
        self.assertIn("interrupted by SIGINT", err)
        self.assert_fake_gone()


if __name__ == "__main__":
    unittest.main()
