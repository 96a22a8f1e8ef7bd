"""One path's walk through the compiled code, instruction by instruction in
control-flow order, cut into sites at the path's marks: the Walk class,
whose walk() runs one step() per instruction, each a sequence of named
steps sharing the walk's state (where it is, the call stack, the open
segment) as attributes. count_sites' docstring says what the walk does;
the steps here say how."""

import os
import re
import sys

from .alternatives import patch_site
from .common import Bad
from .insns import ARM_COND, TARGET, X86_COND, locked

MAX_STEPS = 20000  # instructions: a walk longer than that is a loop the spec does not leave
RETURNS = ("ret", "retq", "retaa", "retab", "sysretq", "sysretl", "iretq", "eret")
CALLS = ("call", "callq", "bl", "blr")
# an arm64 condition as the x86 one it tests, for a compare tree's branches
ARM_CC = {"eq": "e", "hi": "a", "hs": "ae", "cs": "ae", "lo": "b", "cc": "b", "ls": "be", "lt": "l", "gt": "g"}


def expand(v):
    """"taken*131": a loop's branch decided the same way 131 times."""
    out = []
    for w in v:
        m = re.match(r"^(taken|fall)\*(\d+)$", w) if isinstance(w, str) else None
        out += [m.group(1)] * int(m.group(2)) if m else [w]
    return out


def new_segment():
    return dict(instructions=0, locked=0, calls=0, returns=0, lines=[])


class Walk:
    """A walk of one path (one CPU's variant of it) through elf. cpu: the
    spec's decisions of CPU features for the path's variant; with it, patch
    sites are walked as boot patches them (alternatives.patch_site()).
    never: functions a walk must not call. names: feature number -> name.
    Walk(...).walk() returns the path's sites; it may be walked once (the
    branch decisions are consumed, the marks' and CPU's used flags set)."""

    def __init__(self, elf, path, never=(), cpu=None, names=None):
        self.elf, self.path, self.never, self.names = elf, path, never, names
        self.arch = elf.arch
        self.cpu = cpu
        self.feats = cpu["features"] if cpu else None
        self.used, self.patched = set(), {}
        self.trace = os.environ.get("COUNT_SITES_TRACE")  # every instruction walked, on stderr
        first = path["functions"][0]
        self.descend = set(path["functions"])
        # the decisions, consumed as the walk meets them (a copy: each walk its own)
        self.branches = {f: {k: dict(v) if isinstance(v, dict) else expand(v) for k, v in d.items()}
                         for f, d in path.get("branches", {}).items()}
        self.marks = path["marks"]
        self.stop = path.get("stop")
        self.sites, self.stack = [], []
        # a mark with "call": N is met only in the Nth run of its function in
        # this walk (the second futex_hash() of a requeue): runs counted per
        # function, the current frame's run kept beside the stack
        self.entered, self.run_stack = {first: 1}, []
        self.run = 1
        self.fn = first
        self.start, self.end, self.insns, self.nxt = elf.func(first)
        self.pc = self.start
        if path.get("start"):
            # a path that starts inside its first function (a vector slot)
            sym, _, off = path["start"].partition("+")
            if sym != first:
                raise Bad(f"{path['name']}: start {path['start']} is not in {first}")
            self.pc = self.start + int(off or "0", 0)
        self.seg = new_segment()
        self.prev = "entry"
        self.lastcmp = None

    def bad(self, message):
        return Bad(f"{self.path['name']}: {message}")

    def decision(self):
        """The spec's decisions left for the current instruction's line."""
        return self.branches.get(self.fn, {}).get(self.where)

    # --- the walk ---------------------------------------------------------

    def walk(self):
        for _ in range(MAX_STEPS):
            if self.step():
                break
        else:
            raise self.bad("walk too long (a loop the spec does not leave?)")
        return self.finish()

    def step(self):
        """One instruction: count it, close a site at a mark, and move to
        the next the path takes. True when the walk has ended."""
        self.patch_here()
        self.fetch()
        self.count()
        self.meet_mark()
        if self.stop and self.stop == f"{self.fn}:{self.where}":
            return True
        self.note_cmp()
        self.decode()
        if self.is_ret:
            self.check_return_thunk()
            jump = self.decision()
            if not self.stack and jump and str(jump[0]).startswith("jump "):
                return self.jump_by_ret(jump)
            return self.ret()
        if self.is_call:
            return self.call()
        if self.arch == "arm64" and self.op == "br":
            return self.jump_table()
        cond = (X86_COND if self.arch == "amd64" else ARM_COND).match(self.text)
        if cond:
            return self.conditional_branch()
        if self.op in ("jmp", "b"):
            return self.jump()
        self.pc = self.nxt.get(self.pc)
        if self.pc is None:
            raise self.bad(f"fell off the end of {self.fn}")
        return False

    # --- where the walk is ------------------------------------------------

    def load(self, fn):
        """The function's instructions, as patched by this walk if it was."""
        self.fn = fn
        self.start, self.end, insns, nxt = self.elf.func(fn)
        self.insns, self.nxt = self.patched.get(fn, (insns, nxt))

    def enter(self, fn, off=None):
        """Into fn (a call descended, a tail call, a computed jump): its run
        counted for the marks with "call": N."""
        self.fn = fn
        self.entered[fn] = self.run = self.entered.get(fn, 0) + 1
        self.load(fn)
        self.pc = self.start + (int(off or "0", 0) if off is not None else 0)

    def pop_frame(self):
        """Back to the caller; False when the path's first function returns."""
        if not self.stack:
            return False
        fn, self.pc, pad = self.stack.pop()
        self.run = self.run_stack.pop()
        self.seg["instructions"] += pad  # a retpoline site's padding nop
        self.load(fn)
        return True

    def patch_here(self):
        """A patch site met for the first time in this function: its
        instructions replaced, in this walk's copy of the function, by what
        boot leaves there on the path's CPU."""
        pc, fn, elf = self.pc, self.fn, self.elf
        if self.feats is None or pc not in elf.alternatives() or (fn, pc) in self.patched:
            return
        text0, where0, inl0 = self.insns[pc]
        body = patch_site(elf, pc, self.feats, self.names, self.used, self.path["name"], fn, where0)
        size = max(a["instrlen"] for a in elf.alternatives()[pc])
        insns, nxt = dict(self.insns), dict(self.nxt)
        for a in [x for x in insns if pc <= x < pc + size]:
            del insns[a]
        keys = [pc + o for o, _ in body]
        for k, (o, t) in zip(keys, body):
            insns[k] = (t, where0, inl0)
        for k, k2 in zip(keys, keys[1:] + [pc + size]):
            nxt[k] = k2
        if not body:
            raise self.bad(f"empty patch site at {pc:#x}")
        self.insns, self.nxt = insns, nxt
        self.patched[(fn, pc)] = True
        self.patched[fn] = (insns, nxt)

    def fetch(self):
        if self.pc not in self.insns:
            raise self.bad(f"walk left {self.fn} at {self.pc:#x}")
        self.text, self.where, self.inl = self.insns[self.pc]
        if self.trace:
            print(f"{self.path['name']}\t{self.fn}\t{self.where}\t{self.text}", file=sys.stderr)
        self.op = self.text.split()[0]
        if self.op == "lock":
            self.op = self.text.split()[1]

    # --- the segment ------------------------------------------------------

    def count(self):
        seg = self.seg
        seg["instructions"] += 1
        if locked(self.arch, self.text):
            seg["locked"] += 1
        loc = f"{self.fn}:{self.where}"
        if not seg["lines"] or seg["lines"][-1] != loc:
            if loc not in seg["lines"]:
                seg["lines"].append(loc)

    def close(self, name):
        """The open segment ends here: it is the site name's."""
        self.sites.append(dict(site=name, frm=self.prev, **self.seg))
        self.prev = name
        self.seg = new_segment()

    def meet_mark(self):
        self.hit = False
        for mk in self.marks:
            if mk["function"] == self.fn and mk["at"] == self.where and re.search(mk["insn"], self.text) \
                    and not mk.get("_hit") and mk.get("call", self.run) == self.run:
                mk["_hit"] = self.hit = True
                self.close(mk["site"])
                break

    def note_cmp(self):
        """The last compare with an immediate, for a compare tree's branches."""
        mc = re.match(r"^cmp\s+\$(0x[0-9a-f]+),(%\w+)$", self.text)
        if mc:
            self.lastcmp = (int(mc.group(1), 16), mc.group(2))
        mc = re.match(r"^cmp\s+([wx]\d+), #(0x[0-9a-f]+|\d+)$", self.text) if self.arch == "arm64" else None
        if mc:
            self.lastcmp = (int(mc.group(2), 0), mc.group(1))

    def decode(self):
        """The instruction's target, and whether it returns or calls."""
        tgt = TARGET.search(self.text)
        self.has_target = tgt is not None
        self.t_addr = int(tgt.group(1), 16) if tgt else None
        self.t_name = tgt.group(2) if tgt else None
        op, t_name = self.op, self.t_name
        self.is_ret = op in RETURNS or (op == "jmp" and t_name and "return_thunk" in t_name)
        self.is_call = op in CALLS or (self.arch == "amd64" and op == "jmp" and "*" in self.text)

    # --- returns ----------------------------------------------------------

    def check_return_thunk(self):
        """.return_sites: apply_returns() makes each `jmp __x86_return_thunk`
        a plain `ret` unless X86_FEATURE_RETHUNK is set (alternative.c)."""
        if self.feats is None or self.op != "jmp":
            return
        if "X86_FEATURE_RETHUNK" not in self.feats:
            raise self.bad(f"undecided CPU feature X86_FEATURE_RETHUNK (a return thunk in {self.fn} at {self.where})")
        self.used.add("X86_FEATURE_RETHUNK")
        if self.feats["X86_FEATURE_RETHUNK"]["set"]:
            raise self.bad("X86_FEATURE_RETHUNK set: the thunk's body is not counted by this tool")

    def jump_by_ret(self, jump):
        """A ret used as a computed jump (x30 set just before: the arm64
        Spectre-BHB vector's return into the ordinary vector slot)."""
        sym, _, off = jump.pop(0)[5:].partition("+")
        if sym not in self.descend:
            raise self.bad(f"jump to {sym}, which the path does not list")
        self.enter(sym, off)
        return False

    def ret(self):
        self.seg["returns"] += 1
        return not self.pop_frame()

    # --- calls ------------------------------------------------------------

    def call(self):
        if self.t_name == "__fentry__":
            self.pc = self.nxt[self.pc]  # ftrace's call site: a 5-byte nop at run time unless tracing
            return False
        if self.t_name in self.never:
            raise self.bad(f"the walk calls {self.t_name} in {self.fn} at {self.where}: a branch decided the wrong way?")
        pad = self.retpoline_call()
        self.indirect_call()
        # a mark on a call: the call is the site's that the mark ends
        (self.sites[-1] if self.hit else self.seg)["calls"] += 1
        t_name = self.t_name
        callee = t_name if (t_name and self.t_addr == self.elf.syms.get(t_name, (None,))[0]) else None
        if callee in self.descend:
            self.stack.append((self.fn, self.nxt[self.pc], pad))
            self.run_stack.append(self.run)
            self.enter(callee)
        elif callee in self.path.get("elsewhere", ()):
            # counted by another path, its return included: the call is
            # this path's, the callee's instructions and return are not
            (self.sites[-1] if self.hit else self.seg).setdefault("opaque", []).append(
                f"{callee} (counted by its own paths)")
            self.pc = self.nxt[self.pc]
        else:
            self.seg["returns"] += 1
            self.seg["instructions"] += pad
            self.seg.setdefault("opaque", []).append(callee or self.text)
            self.pc = self.nxt[self.pc]
        return False

    def called(self, todo):
        """The function a "call NAME" decision names, as the call's target."""
        self.t_name = todo.pop(0)[5:]
        self.t_addr = self.elf.syms.get(self.t_name, (None,))[0]
        if self.t_addr is None:
            raise self.bad(f"no function {self.t_name}")

    def retpoline_call(self):
        """A retpoline site (.retpoline_sites): an indirect call through the
        register, decided by the spec as "call NAME"; patched for a CPU
        without X86_FEATURE_RETPOLINE, apply_retpolines() writes call *%reg
        and pads the rest of the 5 bytes with a nop, executed after the
        return (alternative.c patch_retpoline()). The padding: 1 or 0."""
        if not (self.arch == "amd64" and self.t_name and self.t_name.startswith("__x86_indirect_thunk")):
            return 0
        pad = 0
        todo = self.decision()
        if not (todo and str(todo[0]).startswith("call ")):
            raise self.bad(f"undecided indirect call in {self.fn} at {self.where} ({self.text}): say \"call NAME\"")
        if self.feats is not None:
            if "X86_FEATURE_RETPOLINE" not in self.feats:
                raise self.bad(f"undecided CPU feature X86_FEATURE_RETPOLINE (a retpoline call in {self.fn} at {self.where})")
            self.used.add("X86_FEATURE_RETPOLINE")
            if self.feats["X86_FEATURE_RETPOLINE"]["set"]:
                raise self.bad("X86_FEATURE_RETPOLINE set: the thunk's body is not counted by this tool")
            pad = 1
        self.called(todo)
        return pad

    def indirect_call(self):
        """An indirect call (a table of system calls): the spec names the
        function the operation reaches, as "call NAME"."""
        if self.has_target:
            return
        todo = self.decision()
        if todo and str(todo[0]).startswith("call "):
            self.called(todo)
        elif self.feats is not None:
            raise self.bad(f"undecided indirect call in {self.fn} at {self.where} ({self.text}): say \"call NAME\"")

    # --- branches ---------------------------------------------------------

    def jump_table(self):
        """A jump table (a switch): the spec names the source line of the
        case the operation takes, as "to FILE:LINE" ("to FILE:LINE#N": the
        Nth run of that line, in address order)."""
        todo = self.decision()
        if isinstance(todo, dict):
            todo["_used"] = True
            dest = todo.get("to")
        elif todo and str(todo[0]).startswith("to "):
            dest = todo.pop(0)[3:]
        else:
            dest = None
        if not dest:
            raise self.bad(f"undecided jump table in {self.fn} at {self.where} ({self.text}): say \"to FILE:LINE\"")
        line, _, nth = dest.partition("#")
        insns = self.insns
        addrs = sorted(a for a in insns if self.start <= a < self.end)
        runs = [a for i, a in enumerate(addrs) if insns[a][1] == line and (i == 0 or insns[addrs[i - 1]][1] != line)]
        if len(runs) < int(nth or 1):
            raise self.bad(f"{self.fn} has no instruction run {dest}")
        self.pc = runs[int(nth or 1) - 1]
        return False

    def inside(self):
        return self.t_addr is not None and self.start <= self.t_addr < self.end

    def jump(self):
        """An unconditional jump: patched to a nop at boot, within the
        function, or a tail call."""
        alt = self.decision()
        if alt and alt[0] == "nop":
            # an alternative or static key patched to a nop at boot
            alt.pop(0)
            self.pc = self.nxt[self.pc]
            return False
        if self.inside():
            self.pc = self.t_addr
            return False
        return self.tail_call()

    def tail_call(self):
        """Counted as a call, entered if the path lists the callee, else as
        a call and a return to the caller's caller."""
        self.seg["calls"] += 1
        callee = self.t_name
        if callee in self.descend:
            self.enter(callee)
            return False
        self.seg["returns"] += 1
        self.seg.setdefault("opaque", []).append(callee)
        return not self.pop_frame()

    def conditional_branch(self):
        todo = self.decision()
        if isinstance(todo, dict):
            return self.compare_tree(todo)
        if not todo:
            raise self.bad(f"undecided branch in {self.fn} at {self.where} ({self.inl}: {self.text})")
        way = todo.pop(0)
        if way == "taken":
            if not self.inside():
                raise self.bad(f"{self.fn} {self.where} branches out of the function")
            self.pc = self.t_addr
        else:
            self.pc = self.nxt[self.pc]
        return False

    def compare_tree(self, todo):
        """A compare tree (a switch): decided by the value the path's
        operation has in the register, e.g. the system call number."""
        if not self.lastcmp or self.lastcmp[1] != todo["cmp"]:
            raise self.bad(f"{self.fn} {self.where}: no cmp on {todo['cmp']} before {self.text}")
        v, imm = todo["value"], self.lastcmp[0]
        op = self.op
        cc = op[1:] if self.arch == "amd64" else ARM_CC.get(op[2:], op[2:])
        res = {"e": v == imm, "ne": v != imm, "a": v > imm, "ae": v >= imm,
               "b": v < imm, "be": v <= imm, "g": v > imm, "ge": v >= imm,
               "l": v < imm, "le": v <= imm}.get(cc)  # the switch values are small and positive
        if res is None:
            raise self.bad(f"{self.fn} {self.where}: cannot evaluate {self.text}")
        todo["_used"] = True
        self.pc = self.t_addr if res else self.nxt[self.pc]
        return False

    # --- the end ----------------------------------------------------------

    def finish(self):
        """Every mark met and every decision used; the tail after the last
        mark is the exit site."""
        path, cpu = self.path, self.cpu
        missed = [m["site"] for m in self.marks if not m.get("_hit")]
        if missed:
            raise self.bad(f"marks never met: {', '.join(missed)}")
        left = [f"{f} {w}" for f, d in self.branches.items() for w, v in d.items()
                if (v and not isinstance(v, dict)) or (isinstance(v, dict) and not v.pop("_used", False))]
        if self.feats is not None and cpu is not None:
            # a CPU's decisions are checked against every path walked for it
            # (spec.unused_features()): each must be used by one of them
            cpu.setdefault("_used", set()).update(self.used)
        if left:
            raise self.bad(f"decisions the walk never used: {', '.join(left)}")
        if self.seg["instructions"]:
            self.close(path.get("exit_site", "exit"))
        for m in self.marks:
            m.pop("_hit", None)
        return self.sites
