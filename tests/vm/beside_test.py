"""experiments/vm/beside without a guest: what it reads from the selftests'
output and from `futexsim selftests`, how it splits experiments/vm/run's
output per command, the table's agreement column, the doc update, and its
input errors (one line, exit status 2)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import vmtest
from futexvm import beside, beside_table, selftest_output, selftests

REQUEUE_FAILED = """\
TAP version 13
1..2
# Starting 2 tests from 1 test cases.
#  RUN           global.requeue_single ...
#            OK  global.requeue_single
ok 1 global.requeue_single
#  RUN           global.requeue_multiple ...
# /cache/linux-source-7.2/tools/testing/selftests/futex/functional/futex_requeue.c:69:requeue_multiple:Expected 10 (10) == futex_cmp_requeue(f1, 0, &f2, 3, 7, 0) (9)
# futex_requeue.c:70:requeue_multiple:Expected 7 (7) == futex_wake(&f2, INT_MAX, 0) (6)
# requeue_multiple: Test failed
#          FAIL  global.requeue_multiple
not ok 2 global.requeue_multiple
# FAILED: 1 / 2 tests passed.
"""

MODEL = """\
machine=qemu-tcg-8 cpus=8 hz=250 kernel=v7.2.1 runs=8 seeds=1-8
policy=wait-for-new futex_requeue requeue_multiple keys=shared passed=0/8 returned: 0/0 x8
policy=wait-for-new futex_wait_timeout 'futex_wait relative, pivot pending' keys=shared passed=8/8 returned: -ETIMEDOUT x8 longest=101.8us
"""


class SelftestOutput(unittest.TestCase):
    def test_failed_expectations_are_what_the_calls_returned(self):
        run = selftest_output.parse("futex_requeue", REQUEUE_FAILED.splitlines(), 1)
        self.assertEqual(run["checks"], [["global.requeue_single", True], ["global.requeue_multiple", False]])
        self.assertEqual(selftest_output.requeue_counts(run, "requeue_single"), "pass")
        self.assertEqual(selftest_output.requeue_counts(run, "requeue_multiple"),
                         "cmp_requeue 9 (10) / wake 6 (7)")

    def test_a_run_ended_by_the_guests_timeout_is_hung(self):
        lines = REQUEUE_FAILED.splitlines()[:6]
        run = selftest_output.parse("futex_requeue", lines, 143)
        self.assertTrue(run["ended_by_timeout"])
        self.assertEqual(selftest_output.requeue_counts(run, "requeue_multiple"), "hung")

    def test_harness_timeout_is_named(self):
        run = selftest_output.parse("futex_requeue_pi", ["# args.t_0_owner: Test terminated by timeout",
                                                         "not ok 6 args.t_0_owner"], 1)
        self.assertEqual(run["timeouts"], ["args.t_0_owner"])
        self.assertEqual(run["checks"], [["args.t_0_owner", False]])

    def test_model_lines(self):
        cases = selftest_output.parse_model(MODEL)
        self.assertEqual([(c["test"], c["case"], c["passed"], c["runs"]) for c in cases],
                         [("futex_requeue", "requeue_multiple", 0, 8),
                          ("futex_wait_timeout", "futex_wait relative, pivot pending", 8, 8)])
        self.assertEqual(cases[1]["returned"], "-ETIMEDOUT x8")


def run_json(slots):
    return json.dumps({"backend": "kernel", "threads": 8, "slots_end": slots, "per_interval_mops": [1.0]})


class SelftestsNamedInCommands(unittest.TestCase):
    def test_a_command_naming_a_selftest_puts_it_in_the_initramfs(self):
        named = selftests.named_in(["for i in 1 2; do futex_requeue; done", "timeout 120 futex_wait_timeout"])
        self.assertEqual(sorted(named), ["futex_requeue", "futex_wait_timeout"])  # not futex_wait
        self.assertEqual(selftests.named_in(["futexsim run --backend kernel"]), [])


class GuestOutput(unittest.TestCase):
    def test_split_per_command(self):
        text = "\n".join(["vm: booting ...", "=== [1/2] timeout 120 futexsim run --json", run_json(32),
                          "=== [1/2] exit status 0 (1.2 s)", "=== [2/2] timeout 120 futex_requeue",
                          *REQUEUE_FAILED.splitlines(), "=== [2/2] exit status 1 (0.3 s)"])
        done = beside.split_commands(text)
        self.assertEqual(done[1]["rc"], 0)
        self.assertEqual(beside.read_run(done[1]["lines"], 0)["slots_end"], 32)
        self.assertNotIn("per_interval_mops", beside.read_run(done[1]["lines"], 0))
        self.assertEqual(done[2]["rc"], 1)
        self.assertIn("not ok 2 global.requeue_multiple", done[2]["lines"])

    def test_a_command_never_reported_is_missing(self):
        steps = [{"kind": "run", "workload": "wake-nowaiters", "threads": 8, "seconds": 1.0, "command": "x"}]
        self.assertTrue(beside.real_results(steps, "vm: booting\n")[0]["missing"])


def record(real_slots, model_slots, requeue_lines, model_requeue_passed):
    real = [{"kind": "run", "workload": "wake-nowaiters", "threads": 32, "seconds": 1.0, "rc": 0,
             "result": {"slots_end": s}} for s in real_slots]
    real.append({"kind": "selftest", "test": "futex_requeue", "rc": 0,
                 "cases": selftest_output.parse("futex_requeue", requeue_lines, 0)})
    return {"policy": "stock", "cpus": 8, "date": "2026-12-03", "host": "test", "accel": "TCG",
            "real": real,
            "model": {"runs": [{"workload": "wake-nowaiters", "threads": 32, "seconds": 1.0,
                                "runs": [{"slots_end": s, "outcome": "never"} for s in model_slots]}],
                      "selftests": {"cases": [{"test": "futex_requeue", "case": "requeue_multiple",
                                               "passed": model_requeue_passed, "runs": 8,
                                               "returned": "10/7 x8"}]}}}


class Portable(unittest.TestCase):
    def test_a_record_names_no_path_of_this_machine(self):
        rec = {"image": "/home/u/.cache/futexsim/k/images/wait-for-new/bzImage",
               "lines": ["# /home/u/.cache/futexsim/k/linux-source-7.2/f.c:69:x:Expected 1 (1) == y (0)"],
               "command": f"run --machine-file {beside.REPO}/experiments/vm/machines/qemu-tcg-8.json", "n": 3}
        out = beside.portable(rec, "/home/u/.cache/futexsim/k")
        self.assertEqual(out["image"], "<kernel-cache>/images/wait-for-new/bzImage")
        self.assertTrue(out["lines"][0].startswith("# <kernel-cache>/linux-source-7.2/f.c:69:"))
        self.assertEqual(out["command"], "run --machine-file experiments/vm/machines/qemu-tcg-8.json")
        self.assertEqual(out["n"], 3)
        # The parser still reads a line so rewritten.
        run = selftest_output.parse("futex_requeue", out["lines"], 1)
        self.assertEqual(run["failed"][0]["got"], 0)

    def test_the_committed_records_name_no_path_of_this_machine(self):
        folder = os.path.join(vmtest.REPO, "experiments", "results", "vm")
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            with open(os.path.join(folder, name)) as f:
                text = f.read()
            for root in ("/root/", "/home/", "/tmp/", "/work/", vmtest.REPO):
                self.assertNotIn(root, text, f"{name} names {root}")


class PanicTrace(unittest.TestCase):
    def test_the_lines_up_to_the_panic(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "console.txt")
            with open(path, "w") as f:
                f.write("boot\nOops: 0000\nRIP: x\nKernel panic - not syncing: Fatal exception in interrupt\nafter\n")
            self.assertEqual(beside.panic_trace(path, keep=3),
                             ["Oops: 0000", "RIP: x", "Kernel panic - not syncing: Fatal exception in interrupt"])
            with open(path, "w") as f:
                f.write("boot\nfine\n")
            self.assertEqual(beside.panic_trace(path), [])


class Table(unittest.TestCase):
    def test_agreement(self):
        passing = ["ok 1 global.requeue_single", "ok 2 global.requeue_multiple"]
        text = beside_table.render([record([32, 32], [32, 32, 32], passing, 8)])
        self.assertIn("| 8 vCPUs | stock | wake-nowaiters | 32 | 1 | 32 x2 | 32 x3 (never 3) | yes |", text)
        self.assertIn("| futex_requeue requeue_multiple | pass | passed 8/8, returned 10/7 x8 | yes |", text)

    def test_disagreement_says_in_how_many(self):
        text = beside_table.render([record([16, 32], [32, 32, 32], REQUEUE_FAILED.splitlines(), 8)])
        self.assertIn("| 16; 32 | 32 x3 (never 3) | **no, in 1 of 2** |", text)
        self.assertIn("cmp_requeue 9 (10) / wake 6 (7) | passed 8/8, returned 10/7 x8 | **no, in 1 of 1** |", text)

    def test_update_doc_between_markers(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "vm.md")
            with open(path, "w") as f:
                f.write(f"# x\n{beside_table.BEGIN}\nold\n{beside_table.END}\ntail\n")
            beside_table.update_doc(path, "new table\n")
            with open(path) as f:
                self.assertEqual(f.read(), f"# x\n{beside_table.BEGIN}\nnew table\n{beside_table.END}\ntail\n")
            with open(path, "w") as f:
                f.write("no markers\n")
            with self.assertRaises(ValueError):
                beside_table.update_doc(path, "t\n")


class RequeuePiVariants(unittest.TestCase):
    """futex_requeue_pi against the model's PI variants, variant by variant
    (the timed ones too where the record's model side has them); a hang
    counts against the variant it cut short."""

    def test_rows(self):
        rec = record([32], [32], ["ok 1 global.requeue_single"], 8)
        order = beside_table.REQUEUE_PI_VARIANTS
        whole = [f"ok {i + 1} args.{v}.futex_requeue_pi" for i, v in enumerate(order)]
        failed = list(whole)
        failed[5] = f"not ok 6 args.{order[5]}.futex_requeue_pi"  # t_0_owner
        failed[8] = f"not ok 9 args.{order[8]}.futex_requeue_pi"  # t_5000_broadcast_locked
        hung = whole[:3]  # cut short in t_0_broadcast_owner
        for lines, rc in ((whole, 0), (failed, 1), (hung, 143)):
            rec["real"].append({"kind": "selftest", "test": "futex_requeue_pi", "rc": rc,
                                "cases": selftest_output.parse("futex_requeue_pi", lines, rc)})
        rec["model"]["selftests"]["cases"] += [
            {"test": "futex_requeue_pi", "case": v, "passed": 8 if v != "t_0_owner" else 0, "runs": 8,
             "returned": "10 x8" if v != "t_0_owner" else "hung (waiters 0-9 in FUTEX_WAIT_REQUEUE_PI) x8"}
            for v in order[:6]]
        text = beside_table.render([rec])
        self.assertIn("| futex_requeue_pi, untimed (PI) | all 6 ok on 1 of 3; failed or hung: "
                      "t_0_broadcast_owner (1), t_0_owner (1) | t_0_owner: passed 0/8, hung", text)
        self.assertIn("**no: t_0_broadcast_owner (guest only)** |", text)
        self.assertIn("| futex_requeue_pi, timed variants | all 18 ok on 2 of 3; failed or hung: "
                      "t_5000_broadcast_locked (1) | not modelled", text)

    def test_timed_rows_when_the_model_has_them(self):
        # A model side with all 24 variants: the timed ones are compared
        # variant by variant as the untimed ones are.
        rec = record([32], [32], ["ok 1 global.requeue_single"], 8)
        order = beside_table.REQUEUE_PI_VARIANTS
        lines = [f"ok {i + 1} args.{v}.futex_requeue_pi" for i, v in enumerate(order)]
        lines[8] = f"not ok 9 args.{order[8]}.futex_requeue_pi"  # t_5000_broadcast_locked
        rec["real"].append({"kind": "selftest", "test": "futex_requeue_pi", "rc": 1,
                            "cases": selftest_output.parse("futex_requeue_pi", lines, 1)})
        rec["model"]["selftests"]["cases"] += [
            {"test": "futex_requeue_pi", "case": v, "passed": 8, "runs": 8, "returned": "10 x8"} for v in order]
        text = beside_table.render([rec])
        self.assertIn("| futex_requeue_pi, timed variants | all 18 ok on 0 of 1; failed or hung: "
                      "t_5000_broadcast_locked (1) | all 18 passed 8/8 | **no: t_5000_broadcast_locked "
                      "(guest only)** |", text)
        self.assertIn("| futex_requeue_pi, untimed (PI) | all 6 ok on 1 of 1 | all 6 passed 8/8 | yes |", text)


class OtherSelftests(unittest.TestCase):
    """--selftests all: the tests the model has no case of get the kernel's
    own verdict and a line saying what the model lacks."""

    def test_their_rows(self):
        rec = record([32], [32], ["ok 1 global.requeue_single"], 8)
        rec["selftests"] = ["futex_requeue", "futex_waitv", "futex_numa", "robust_list"]
        rec["real"] += [
            {"kind": "selftest", "test": "futex_waitv", "rc": 0,
             "cases": selftest_output.parse("futex_waitv", ["ok 1 a", "ok 2 b"], 0)},
            {"kind": "selftest", "test": "futex_waitv", "rc": 1,
             "cases": selftest_output.parse("futex_waitv", ["ok 1 a", "not ok 2 b"], 1)},
            {"kind": "selftest", "test": "futex_numa", "rc": 0, "cases": selftest_output.parse("futex_numa", [], 0)},
            {"kind": "selftest", "test": "robust_list", "missing": True}]
        text = beside_table.render([rec])
        self.assertIn("| 8 vCPUs | stock | futex_waitv | all 2 ok on 1 of 2; failed: b (1) | **1 of 2** | "
                      "none: futex_waitv() is not modelled |", text)
        self.assertIn("| futex_numa | exit status 0 on 1 of 1 (no TAP lines) | all |", text)
        self.assertIn("| robust_list | no report | - |", text)
        # Not a row of its own: the model has futex_requeue.
        self.assertNotIn("| futex_requeue | ", text.split("Every other futex selftest")[1])

    def test_a_record_of_the_four_has_no_such_section(self):
        self.assertNotIn("Every other futex selftest", beside_table.render([record([32], [32], [], 8)]))

    def test_every_program_says_what_the_model_has(self):
        self.assertEqual(set(beside_table.NOT_IN_MODEL) | set(beside.SELFTESTS), set(selftests.PROGRAMS))


class Errors(unittest.TestCase):
    def beside(self, *args):
        return subprocess.run([sys.executable, os.path.join(vmtest.VM_DIR, "beside"), *args],
                              capture_output=True, text=True)

    def test_bad_input_is_one_line_and_status_2(self):
        for args, needle in [(["--cpus", "3"], "qemu-tcg-3.json"), (["--threads", "x"], "--threads"),
                             (["--policy", "nope"], "--policy"), (["--long-seconds", "100"], "--long-seconds"),
                             (["--selftests", "futex_nope"], "unknown selftest 'futex_nope'"),
                             (["--selftests", "futex_wait,futex_wait"], "named twice")]:
            r = self.beside(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(needle, r.stderr)


if __name__ == "__main__":
    unittest.main()
