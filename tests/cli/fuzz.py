#!/usr/bin/env python3
"""Fuzzes futexsim's command line: mutates valid command lines and machine
files from a seed and runs each, asserting what the project promises for
any input: exit status 0 or 2 (replay: 1 with a VIOLATION verdict), never a
signal, never "internal error", one line on stderr for an error, and an end
within a generous bound (a hang detector, not a speed check). A sixth of
the cases run with standard output (or output and error) a pipe whose
reader has gone, as `futexsim ... | head -1` leaves it: then also exit
status 141 (128 + SIGPIPE, by exit, not by the signal) with nothing on
stderr. The past failures in fuzz_regressions.txt run first, every time.

  fuzz.py FUTEXSIM [--seed K] [--cases N] [--timeout S]

A failure prints the exact command (and machine file) to replay it.
FUTEXSIM_FUZZ_SEED and FUTEXSIM_FUZZ_CASES override the defaults, for long
local runs.
"""
import argparse
import concurrent.futures
import json
import os
import random
import shlex
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# Valid command lines, each short (a few ms of virtual time, few threads).
SEEDS = [
    "run --threads 4 --seconds 0.001",
    "run --threads 4 --seconds 0.002 --json --interval-ms 0.5",
    "run --threads 3 --seconds 0.001 --runs 2 --seed 7",
    "run --threads 4 --seconds 0.001 --presize 64",
    "run --threads 4 --seconds 0.001 --global-hash --cpus 0-3",
    "run --threads 8 --seconds 0.001 --ramp-ms 0.5 --policy wait-for-new --precheck",
    "run --threads 4 --seconds 0.001 --strategy pct --pct-depth 3 --seed 2",
    "run --threads 4 --seconds 0.001 --strategy replay --schedule 1,0,2",
    "run --workload producer-consumer --threads 4 --seconds 0.001",
    "run --workload hash-bench --threads 4 --seconds 0.001 --machine epyc-9r45",
    "run --workload mutex --threads 4 --seconds 0.001 --locks 2 --unlock xchg",
    "run --workload mutex --threads 2 --seconds 0.01 --ops 50",
    "run --workload mixed-wait --threads 4 --seconds 0.001 --mix 80/15/5",
    "run --workload pool-growth --threads 8 --start-threads 2 --seconds 0.002 --machine graviton4",
    "run --backend threads --threads 2 --seconds 0.01 --json",
    "run --backend threads --threads 2 --seconds 0.01 --ramp-ms 5 --workload hash-bench",
    "run --backend kernel --threads 2 --seconds 0.01 --interval-ms 1",
    "run --backend kernel --threads 2 --seconds 0.01 --workload mutex --ops 20",
    "demo --cpus 16 --threads 8",
    "replay --case C.K0:1/W0 --cpus 2 --quiet",
    "replay --case C.C.K0:1/W0/T0:40 --strategy pct --pct-depth 2 --seed 3 --steps 400",
    "replay --case C.P64/K0:1* --liveness bounded --bound-gps 8 --steps 300 --quiet",
    # Issue 33: sweep and report, with their paths in the case's folder.
    "sweep --threads 4 --runs 1 --seconds 0.001 --cpus 0-3 --jobs 1 --out @TMP@/sweep.jsonl",
    "sweep --threads 2,4 --arms auto,presize:64 --seconds 0.001 --cpus 0-3 --jobs 1 --out @TMP@/sweep.jsonl",
    "report @TMP@/base.jsonl",
    "report --format json @TMP@/base.jsonl @TMP@/base.jsonl",
    "run --threads 2 --seconds 0.001 --trace @TMP@/t.json",
]

# Flags a mutation may add, by command.
FLAGS = {
    "run": ["--backend", "--machine", "--machine-file", "--workload", "--policy", "--precheck", "--threads",
            "--seconds", "--presize", "--global-hash", "--cpus", "--ramp-ms", "--seed", "--runs",
            "--interval-ms", "--strategy", "--pct-depth", "--schedule", "--json", "--locks", "--unlock",
            "--mix", "--start-threads", "--ops"],
    "demo": ["--cpus", "--threads"],
    "sweep": ["--machine", "--machine-file", "--policy", "--workload", "--kernel", "--threads", "--ramp-ms",
              "--arms", "--cpus", "--precheck", "--seconds", "--interval-ms", "--runs", "--seed", "--out",
              "--shard", "--exact"],
    "report": ["--format", "@TMP@/base.jsonl"],
    "replay": ["--case", "--policy", "--cpus", "--strategy", "--seed", "--pct-depth", "--schedule", "--steps",
               "--gp-steps", "--liveness", "--bound-gps", "--quiet", "--no-sleeper-check"],
}

# Values a hostile user types. Valid ones are small, so that every case
# stays short whatever it replaces.
HOSTILE = ["", "nan", "NaN", "inf", "-inf", "-1", "-0", "0", "1", "2", "1.5", "0.001", "1e400", "1e-400",
           "0x10", "010", "+1", " 1", "1 ", "99999999999999999999", "18446744073709551615",
           "18446744073709551616", "4294967296", "2147483648", "33554432", "-9223372036854775808",
           "1e308/1e308/0", "50/40/5", "0-1,", ",", "0,,1", "0-0,0", "/", "//", "K0:1/W0", "C./W0",
           "--", "-", "--help", "é", "１２", "\u202e1", "a" * 5000, "9" * 400, "%s%n", "0-4095", "5-1",
           "host", "fifo", "pct", "threads", "kernel", "sim", "/dev/null", "/nonexistent",
           # Issue 33: special files as every path, names that are not
           # UTF-8, values twice in a grid.
           "/dev/zero", "/dev/full", "/tmp", "@TMP@/fifo", "@TMP@",
           # Issue 32: more special files: a link to the FIFO, a procfs file
           # (size 0, yet it has text), descriptors as paths, a socket.
           "@TMP@/fifo-link", "/proc/self/status", "/dev/stdin", "/dev/stdout", "@TMP@/sock", os.fsdecode(b"@TMP@/m\xff\xfe.json"),
           "4,4", "auto,auto", "presize:512,presize:0512", "0-3;0-3", "off,off", "presize:2097152", "3/3"]

# A valid machine file: one socket of two cores.
MACHINE = {
    "name": "fuzz-box", "description": "two cores", "arch": "x86", "arbitration": "fifo",
    "topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 2,
                 "threads_per_core": 1},
    "transfer_ns": {"smt_sibling": 10, "same_die": 40, "other_die": 90, "per_die_hop": 0, "other_socket": 140},
    "hz": 250, "rcu_preemptible": True, "rcu_fqs_jiffies": 1, "clone_ns": 25000,
    "idle_states": [{"name": "C1", "exit_latency_us": 1, "target_residency_us": 1}],
}
MACHINE_RUN = "run --threads 2 --seconds 0.001 --machine-file"
# JSON text put in place of a value (raw, so that 1e400 stays 1e400).
JSON_HOSTILE = ["null", "true", "false", '"x"', '""', "[]", "{}", "[1, 2]", '{"a": 1}', "1e400", "-1e400",
                "-1", "0", "1.5", "250.7", "256", "8192", "8193", "1e308", "4294967296",
                "99999999999999999999", '"\u00e9\u202e"', '"' + "a" * 3000 + '"']


# What sets a run's length is never dropped or renamed (the defaults, 1 s at
# 96 threads, are valid and slow, and slowness is not what this looks for),
# and --seconds only gets values that are invalid or short.
LENGTH = ("--seconds", "--threads", "--steps")
SHORT = [v for v in HOSTILE if v not in ("1", "2", "1.5", "010")]


def hostile_for(flag, rng):
    return rng.choice(SHORT if flag == "--seconds" else HOSTILE)


def mutate_args(rng, args):
    """1 to 3 edits: replace a token, drop one, duplicate one, add a flag, swap two."""
    args = list(args)
    command = args[0]
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(6)
        i = rng.randrange(1, len(args)) if len(args) > 1 else None
        if kind == 0 and i is not None and not args[i].startswith("--"):
            args[i] = hostile_for(args[i - 1], rng)
        elif kind == 1 and i is not None:
            if args[i] not in LENGTH and args[i - 1] not in LENGTH:
                del args[i]
        elif kind == 2 and i is not None:
            args.insert(i, args[i])
        elif kind == 3:
            flag = rng.choice(FLAGS[command])
            args += [flag, hostile_for(flag, rng)]
        elif kind == 4 and i is not None:
            j = rng.randrange(1, len(args))
            if not {args[i], args[j], args[i - 1], args[j - 1]} & set(LENGTH):
                args[i], args[j] = args[j], args[i]
        elif i is not None and args[i].startswith("--") and args[i] not in LENGTH:
            args[i] = rng.choice(HOSTILE + FLAGS[command])
    return args


def mutate_machine(rng):
    """The valid machine file as JSON text with 1 to 3 edits to its keys, values or types."""
    m = json.loads(json.dumps(MACHINE))
    raw = {}  # placeholder -> raw JSON text
    for n in range(rng.randint(1, 3)):
        # Pick an object: the top level, topology, transfer_ns or an idle state.
        holders = [m] + [v for v in m.values() if isinstance(v, dict)]
        if isinstance(m.get("idle_states"), list):
            holders += [s for s in m["idle_states"] if isinstance(s, dict)]
        obj = rng.choice(holders)
        kind = rng.randrange(4)
        if kind == 0 and obj:
            key = rng.choice(list(obj))
            obj[key] = "@raw%d@" % n
            raw['"@raw%d@"' % n] = rng.choice(JSON_HOSTILE)
        elif kind == 1 and obj:
            del obj[rng.choice(list(obj))]
        elif kind == 2:
            obj[rng.choice(["colour", "", "sockets", "Hz", "name"])] = 1
        else:
            obj["idle_states" if obj is m else "sockets"] = [{}] if rng.random() < 0.5 else 256
    text = json.dumps(m)
    for placeholder, value in raw.items():
        text = text.replace(placeholder, value)
    if rng.random() < 0.1:
        text = text[: rng.randrange(len(text))]  # cut short: not JSON
    return text


# A result file edited by hand (issue 33): report it, and resume the sweep
# that wrote it (BASE_SWEEP, the grid of base.jsonl).
BASE_SWEEP = "sweep --threads 2,4 --runs 2 --seconds 0.001 --cpus 0-3 --seed 3 --jobs 1"
RESULT_RUN = ["report", "sweep"]


def mutate_result(rng, lines):
    """base.jsonl's lines with 1 to 3 structural edits: a value replaced by
    hostile JSON, a key dropped, a line doubled with a change, deep nesting."""
    lines = [json.loads(x) for x in lines]
    raw = {}
    for n in range(rng.randint(1, 3)):
        line = rng.choice(lines)
        holders = [line] + [v for v in line.values() if isinstance(v, dict)]
        obj = rng.choice(holders)
        kind = rng.randrange(5)
        if kind == 0 and obj:
            obj[rng.choice(list(obj))] = "@raw%d@" % n
            raw['"@raw%d@"' % n] = rng.choice(JSON_HOSTILE + ["99", "-1", '"1"', '"maybe"', "[" * 100000 + "]" * 100000])
        elif kind == 1 and obj:
            del obj[rng.choice(list(obj))]
        elif kind == 2:
            twin = json.loads(json.dumps(line))
            twin["run"]["mops"] = rng.choice([0, 1.5, -1])
            lines.append(twin)
        elif kind == 3:
            obj[rng.choice(["cell_index", "run_index", "grid_runs"])] = rng.choice([0, 1, 3, 7, 12345])
        else:
            line["cell"] = rng.choice([{}, None, [1, 2], {"threads": 4}])
    text = "".join(json.dumps(x) + "\n" for x in lines)
    for placeholder, value in raw.items():
        text = text.replace(placeholder, value)
    if rng.random() < 0.1:
        text = text[: rng.randrange(len(text))]  # cut short
    return text


def edited(base_lines, code):
    """base.jsonl after `code` (fuzz_regressions.txt's edit:) ran on its lines
    l; an entry it makes a str is written as it is (deep nesting)."""
    l = [json.loads(x) for x in base_lines]
    exec(code, {"json": json, "l": l})
    return "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in l)


# How a case's output is connected: captured (None), or a pipe whose reader
# has gone, for standard output ("stdout") or for both streams ("both").
PIPE_MODES = ["stdout", "both"]


def closed_pipe():
    """The write end of a pipe whose read end is already closed."""
    r, w = os.pipe()
    os.close(r)
    return w


def check(binary, args, machine_text, timeout, tmpdir, index, pipe_mode=None):
    """None if futexsim kept its promises for this input, else why not."""
    # Each case in a folder of its own, with base.jsonl and a FIFO in it.
    case_dir = os.path.join(tmpdir, "case%d" % index)
    os.mkdir(case_dir)
    os.symlink(os.path.join(tmpdir, "base.jsonl"), os.path.join(case_dir, "base.jsonl"))
    os.mkfifo(os.path.join(case_dir, "fifo"))
    os.symlink(os.path.join(case_dir, "fifo"), os.path.join(case_dir, "fifo-link"))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(os.path.join(case_dir, "sock"))
    argv = [a.replace("@TMP@", case_dir).replace("@XFFFE@", os.fsdecode(b"\xff\xfe")) for a in args]
    if machine_text is not None and argv and argv[0] in RESULT_RUN:
        path = os.path.join(case_dir, "result.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(machine_text)
        argv += ([path] if argv[0] == "report" else ["--out", path])
    elif machine_text is not None:
        path = os.path.join(case_dir, "machine.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(machine_text)
        argv.append(path)
    env = dict(os.environ)
    if args and args[0] == "replay":
        # The explorer abandons suspended fibers by design (docs/testing.md):
        # its heap is never freed, so replay runs without the leak checker.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    out_fd = closed_pipe() if pipe_mode else subprocess.PIPE
    try:
        p = subprocess.run([binary] + argv, stdin=subprocess.DEVNULL, stdout=out_fd,
                           stderr=out_fd if pipe_mode == "both" else subprocess.PIPE, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "still running after %g s (a hang?)" % timeout
    finally:
        sock.close()
        if pipe_mode:
            os.close(out_fd)
    # Under ASan the first fiber switch prints a warning: not futexsim's.
    err = "".join(line for line in (p.stderr or b"").decode("utf-8", "replace").splitlines(True)
                  if "ASan doesn't fully support makecontext" not in line)
    out = (p.stdout or b"").decode("utf-8", "replace")
    if p.returncode < 0:
        return "killed by signal %d; stderr: %s" % (-p.returncode, err[-2000:])
    if "internal error" in err:
        return "internal error: %s" % err.strip()
    ok_codes = {0, 2}
    if args and args[0] == "replay" and "VIOLATION" in out:
        ok_codes.add(1)
    if pipe_mode:
        ok_codes.add(141)  # a closed reader ends it quietly
        if args and args[0] == "replay":
            ok_codes.add(1)  # its verdict went into the closed pipe
        if p.returncode == 141 and err:
            return "exit 141 (closed reader) with text on stderr: %r" % err[:2000]
    if p.returncode not in ok_codes:
        return "exit status %d; stderr: %s" % (p.returncode, err.strip()[-2000:])
    if p.returncode == 2 and (err.count("\n") != 1 or not err.endswith("\n")):
        return "exit status 2 with %d lines on stderr (one wanted): %r" % (err.count("\n"), err[:2000])
    return None


def regression_cases():
    """fuzz_regressions.txt: `args: COMMAND`, `machine: JSON` or `edit: PYTHON` per line."""
    cases = []
    with open(os.path.join(HERE, "fuzz_regressions.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            kind, _, rest = line.partition(": ")
            if kind == "args":
                cases.append((shlex.split(rest), None))
            elif kind == "edit":  # Python editing base.jsonl's lines (l, a list of dicts); see edited()
                cases.append((["report"], ("edit", rest)))
                cases.append((shlex.split(BASE_SWEEP), ("edit", rest)))
            elif kind == "machine":
                cases.append((shlex.split(MACHINE_RUN), rest))
            else:
                raise SystemExit("fuzz_regressions.txt: bad line: " + line)
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FUTEXSIM_FUZZ_SEED", "1")))
    ap.add_argument("--cases", type=int, default=int(os.environ.get("FUTEXSIM_FUZZ_CASES", "120")))
    ap.add_argument("--timeout", type=float, default=20.0)
    # Two at a time: under ASan each process spends 0.2 s starting and
    # ending, mostly in the kernel, which the second core overlaps.
    ap.add_argument("--jobs", type=int, default=2)
    opt = ap.parse_args()

    rng = random.Random(opt.seed)
    cases = [(c, m, "regression") for c, m in regression_cases()]
    for n in range(opt.cases):
        if rng.random() < 0.25:
            cases.append((shlex.split(MACHINE_RUN), mutate_machine(rng), "seed %d case %d" % (opt.seed, n)))
        else:
            cases.append((mutate_args(rng, shlex.split(rng.choice(SEEDS))), None,
                          "seed %d case %d" % (opt.seed, n)))
    # A sixth of the cases again, their output into a closed pipe; and every
    # seed command line once so, unmutated (each must end quietly).
    pipe_cases = [(a, m, o + ", closed reader", rng.choice(PIPE_MODES))
                  for a, m, o in cases[len(regression_cases()):] if rng.random() < 1 / 6]
    pipe_cases += [(shlex.split(c), None, "seed command, closed reader", "stdout") for c in SEEDS]

    with tempfile.TemporaryDirectory() as tmpdir:
        base = os.path.join(tmpdir, "base.jsonl")
        subprocess.run([opt.binary] + shlex.split(BASE_SWEEP) + ["--out", base], check=True,
                       stdin=subprocess.DEVNULL, capture_output=True)
        with open(base, encoding="utf-8") as f:
            base_lines = f.read().splitlines()
        cases = [(a, edited(base_lines, m[1]) if isinstance(m, tuple) else m, o, None) for a, m, o in cases]
        cases += [(a, edited(base_lines, m[1]) if isinstance(m, tuple) else m, o, mode)
                  for a, m, o, mode in pipe_cases]
        for n in range(opt.cases // 6):
            text = mutate_result(rng, base_lines)
            origin = "seed %d result case %d" % (opt.seed, n)
            cases.append((["report"], text, origin, None))
            cases.append((shlex.split(BASE_SWEEP), text, origin, None))
        return run_cases(opt, cases, tmpdir)


def run_cases(opt, cases, tmpdir):
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(opt.jobs) as pool:
        verdicts = pool.map(lambda n: check(opt.binary, cases[n][0], cases[n][1], opt.timeout, tmpdir, n,
                                            cases[n][3]),
                            range(len(cases)))
        for (args, machine_text, origin, pipe_mode), why in zip(cases, verdicts):
            if why is None:
                continue
            failures += 1
            result = args and args[0] in RESULT_RUN
            extra = (["result.jsonl"] if args[0] == "report" else ["--out", "result.jsonl"]) if result else ["machine.json"]
            cmd = shlex.join([opt.binary] + args + (extra if machine_text is not None else []))
            if pipe_mode:
                cmd += (" 2>&1" if pipe_mode == "both" else "") + " | true"
            print("FAIL (%s): %s\n  replay: %s" % (origin, why, cmd))
            if machine_text is not None:
                print("  %s: %s" % (extra[-1], machine_text[:3000]))
    print("%d cases (%d regression, the rest generated from seed %d), %d failed" % (
        len(cases), len(regression_cases()), opt.seed, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
