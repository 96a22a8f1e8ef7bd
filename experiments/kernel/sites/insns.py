"""What an instruction's text (objdump's, comment cut off) says to the
walk: its branch target, whether a branch is conditional, and whether it
is counted as locked or a fence."""

import re

X86_COND = re.compile(r"^j(?!mp)[a-z]+\s")
ARM_COND = re.compile(r"^(b\.[a-z]+|cbn?z|tbn?z)\s")
# objdump's "ADDR <SYMBOL+0xOFF>": the target of a branch or call
TARGET = re.compile(r"([0-9a-f]+) <([^>+]+)(\+0x[0-9a-f]+)?>")


def locked(arch, text):
    op = text.split()[0]
    if arch == "amd64":
        if text.startswith("lock ") or op == "mfence":
            return True
        return op.startswith("xchg") and "(" in text
    base = op.split(".")[0]
    return bool(re.match(r"^(ld(add|clr|set|eor|smax|smin|umax|umin)|st(add|clr|set|eor)|cas|swp)", base)
                or re.match(r"^(ld|st)a?l?xr", base) or base in ("dmb", "dsb"))
