"""The serial-console parser (experiments/vm/futexvm/markers.py): per-command
output and exit statuses, output without a final newline, output cut short,
a guest that panics, one that never boots, and the exit status each maps to."""

import unittest

import vmtest  # noqa: F401 (puts experiments/vm on sys.path)
from futexvm import markers

BOOT = "[    0.000000] Linux version 7.2.13\r\n@@futexvm BOOTED cpus=2 kernel=7.2.13\r\n"


def console(text):
    return markers.Console().feed_text(text)


class Console(unittest.TestCase):
    def test_two_commands(self):
        c = console(BOOT + "@@futexvm BEGIN 1\r\nthreads=2 slots(start=0 set=0 end=16)\r\n"
                    "@@futexvm END 1 rc=0\r\n@@futexvm BEGIN 2\r\nok 1 x\r\nnot ok 2 y\r\n"
                    "@@futexvm END 2 rc=1\r\n@@futexvm DONE\r\n")
        self.assertEqual(c.booted, "cpus=2 kernel=7.2.13")
        self.assertEqual(c.commands[1].lines, ["threads=2 slots(start=0 set=0 end=16)"])
        self.assertEqual(c.commands[2].lines, ["ok 1 x", "not ok 2 y"])
        self.assertEqual((c.commands[1].rc, c.commands[2].rc), (0, 1))
        self.assertEqual(c.verdict(2)[0], 1)
        self.assertIn("2", c.verdict(2)[1])

    def test_all_pass(self):
        c = console(BOOT + "@@futexvm BEGIN 1\n@@futexvm END 1 rc=0\n@@futexvm DONE\n")
        self.assertEqual(c.commands[1].lines, [])
        self.assertEqual(c.verdict(1), (0, "all 1 command(s) exited 0"))

    def test_output_without_newline(self):
        c = console(BOOT + "@@futexvm BEGIN 1\nabc@@futexvm END 1 rc=7\n@@futexvm DONE\n")
        self.assertEqual(c.commands[1].lines, ["abc"])
        self.assertEqual(c.commands[1].rc, 7)

    def test_kernel_lines_before_boot_are_not_output(self):
        c = console(BOOT)
        self.assertEqual(c.commands, {})

    def test_cut_short(self):
        c = console(BOOT + "@@futexvm BEGIN 1\npartial output\n")
        self.assertIsNone(c.commands[1].rc)
        self.assertEqual(c.commands[1].lines, ["partial output"])
        status, msg = c.verdict(1)
        self.assertEqual(status, 3)
        self.assertIn("command 1 is cut short", msg)

    def test_ended_before_a_command(self):
        c = console(BOOT + "@@futexvm BEGIN 1\n@@futexvm END 1 rc=0\n")
        self.assertEqual(c.verdict(2), (3, "the guest ended before command 2 began"))

    def test_no_done(self):
        c = console(BOOT + "@@futexvm BEGIN 1\n@@futexvm END 1 rc=0\n")
        self.assertEqual(c.verdict(1)[0], 3)

    def test_panic(self):
        c = console(BOOT + "@@futexvm BEGIN 1\n[   12.3] BUG: kernel NULL pointer dereference\n"
                    "[   12.4] Kernel panic - not syncing: Fatal exception\n"
                    "[   12.4] ---[ end Kernel panic - not syncing: Fatal exception ]---\n")
        self.assertEqual(c.panic, "Fatal exception")
        self.assertEqual(c.verdict(1), (3, "the guest kernel panicked: Fatal exception"))

    def test_panic_wins_over_complete_markers(self):
        c = console(BOOT + "@@futexvm BEGIN 1\n@@futexvm END 1 rc=0\n@@futexvm DONE\n"
                    "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000000\n")
        self.assertEqual(c.verdict(1)[0], 3)

    def test_never_booted(self):
        c = console("Kernel panic - not syncing: VFS: Unable to mount root fs\n")
        self.assertEqual(c.verdict(1)[0], 3)
        self.assertEqual(markers.Console().verdict(1),
                         (3, "the guest never reached its init script (no BOOTED marker)"))

    def test_mismatched_end(self):
        c = console(BOOT + "@@futexvm BEGIN 1\n@@futexvm END 2 rc=0\n@@futexvm DONE\n")
        self.assertEqual(c.verdict(1)[0], 3)

    def test_events(self):
        c = markers.Console()
        self.assertEqual(c.feed("@@futexvm BOOTED x"), [("booted", "x")])
        self.assertEqual(c.feed("@@futexvm BEGIN 1"), [("begin", 1)])
        self.assertEqual(c.feed("out\r"), [("output", 1, "out")])
        self.assertEqual(c.feed("@@futexvm END 1 rc=0"), [("end", 1, 0)])
        self.assertEqual(c.feed("@@futexvm DONE"), [("done",)])


if __name__ == "__main__":
    unittest.main()
