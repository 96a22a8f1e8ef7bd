"""The image as boot patches it on a given CPU: the alternatives tables
(x86 and arm64 .altinstructions), the names of the features their sites
test (cpufeatures.h, cpucaps), and the instructions a patch site holds
after apply_alternatives() (x86, with optimize_nops()) or
__apply_alternatives() (arm64)."""

import re
import struct

from .common import Bad, read_named
from .insns import TARGET

ARM64_CB_BIT = 1 << 15  # arch/arm64/include/asm/alternative-macros.h: ARM64_CB_SHIFT
ASM_NOP_MAX = 8  # arch/x86/include/asm/nops.h: the longest nop add_nop() writes


def read_table(elf):
    """x86 .altinstructions (struct alt_instr, alternative.h: s32 instr_offset,
    s32 repl_offset, u16 cpuid, u16 flags, u8 instrlen, u8 replacementlen;
    the offsets relative to the field itself), grouped by patch site in
    table order, as apply_alternatives() scans them."""
    alts = {}
    sec = elf.sections().get(".altinstructions")
    if sec and elf.arch == "arm64":
        # arm64 (asm/alternative.h): s32 orig_offset, s32 alt_offset,
        # u16 cpucap (ARM64_CB_BIT: alt_offset is a callback), u8 orig_len, u8 alt_len
        a0, off, size = sec
        raw = elf.read(off, size)
        for i in range(0, size - size % 12, 12):
            oo, ao, cap, ol, al = struct.unpack_from("<iiHBB", raw, i)
            alts.setdefault(a0 + i + oo, []).append(
                dict(repl=a0 + i + 4 + ao, cpuid=cap & ~ARM64_CB_BIT, cb=bool(cap & ARM64_CB_BIT),
                     flags=0, instrlen=ol, repllen=al))
    elif sec:
        a0, off, size = sec
        raw = elf.read(off, size)
        for i in range(0, size - size % 14, 14):
            io, ro, cpuid, flags, il, rl = struct.unpack_from("<iiHHBB", raw, i)
            site = a0 + i + io
            alts.setdefault(site, []).append(
                dict(repl=a0 + i + 4 + ro, cpuid=cpuid, flags=flags, instrlen=il, repllen=rl))
    return alts


def cpufeatures(path):
    """bit number -> name, from arch/x86/include/asm/cpufeatures.h."""
    text = read_named(path, "--cpufeatures")
    m = re.search(r"#define NCAPINTS\s+(\d+)", text)
    if not m:
        raise Bad(f"--cpufeatures {path}: no NCAPINTS (not arch/x86/include/asm/cpufeatures.h)")
    ncap = int(m.group(1))
    out = {}
    for name, w, b in re.findall(r"#define (X86_FEATURE_\w+)\s+\(\s*(\d+)\s*\*\s*32\s*\+\s*(\d+)\s*\)", text):
        out[int(w) * 32 + int(b)] = name
    for name, b in re.findall(r"#define (X86_BUG_\w+)\s+X86_BUG\(\s*(\d+)\s*\)", text):
        out[ncap * 32 + int(b)] = name
    for name, w, b in re.findall(r"#define (X86_BUG_\w+)\s+X86_BUG\(\s*(\d+)\s*\*\s*32\s*\+\s*(\d+)\s*\)", text):
        out[ncap * 32 + int(w) * 32 + int(b)] = name
    return out


def cpucaps(path):
    """arm64 cpucap number -> ARM64_ name: arch/arm64/tools/cpucaps, one a
    line in order from 0 (gen-cpucaps.awk)."""
    lines = read_named(path, "--cpucaps").splitlines()
    caps = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    return {i: f"ARM64_{c}" for i, c in enumerate(caps)}


def is_nop(text):
    return text.split()[0] in ("nop", "nopl", "nopw", "xchg") and (text.split()[0] != "xchg" or text == "xchg %ax,%ax") \
        or re.match(r"^(data16 |cs )+nop", text) is not None


def patch_site(elf, site, feats, names, used, pathname, fn, where):
    """The instructions at an x86 patch site as boot leaves them on the CPU
    whose feature decisions are feats, as apply_alternatives() does
    (alternative.c): the last entry whose feature is present (or absent, with
    ALT_FLAG_NOT) wins, its replacement padded with 0x90 to the longest
    instrlen of the site, else the original; then optimize_nops() turns each
    run of nops into one nop (at most ASM_NOP_MAX bytes) or a jmp over it.
    Returns [(offset, text)]."""
    alts = elf.alternatives()[site]
    if elf.arch == "arm64":
        return patch_site_arm64(elf, site, alts, feats, names, used, pathname, fn, where)
    size, chosen = max(a["instrlen"] for a in alts), None
    for a in alts:
        name = names.get(a["cpuid"], f"feature {a['cpuid'] // 32}*32+{a['cpuid'] % 32}")
        if name not in feats:
            raise Bad(f"{pathname}: undecided CPU feature {name} at a patch site in {fn} at {where} ({site:#x})")
        used.add(name)
        if bool(feats[name]["set"]) != bool(a["flags"] & 1):
            chosen = a
    if chosen and chosen["flags"] & 2:
        # ALT_FLAG_DIRECT_CALL (a paravirt call, ALT_CALL_ALWAYS): alt_replace_call()
        # writes a direct 5-byte call of the function the pv_ops slot holds
        # at boot, padded with a nop (alternative.c); the spec names that
        # function as for any indirect call, "call NAME"
        if size < 5:
            raise Bad(f"{pathname}: {fn} {where}: a direct-call patch site shorter than a call")
        return [(0, "call *(paravirt direct call)")] + ([(5, f"nop ({size - 5} bytes)")] if size > 5 else [])
    if chosen:
        rows = [(x - chosen["repl"], t, n) for x, t, n in
                (elf.disasm(chosen["repl"], chosen["repl"] + chosen["repllen"]) if chosen["repllen"] else [])]
        rows = [(o, t2, n) for (o, t, n), (_, t2) in
                zip(rows, local_targets([(o, t) for o, t, _ in rows], chosen["repl"], chosen["repllen"], site, fn))]
        rows += [(o, "nop", 1) for o in range(chosen["repllen"], size)]
    else:
        rows = [(x - site, t, n) for x, t, n in elf.disasm(site, site + size)]
    out, i = [], 0
    while i < len(rows):
        o, t, n = rows[i]
        if is_nop(t) and o + n < size:
            j = i + 1
            while j < len(rows) and is_nop(rows[j][1]):
                j += 1
            span = (rows[j][0] if j < len(rows) else size) - o
            out.append((o, f"nop ({span} bytes)" if span <= ASM_NOP_MAX else f"jmp.d8 over {span} bytes of nops"))
            i = j
            continue
        out.append((o, t))
        i += 1
    return out


def patch_site_arm64(elf, site, alts, feats, names, used, pathname, fn, where):
    """arm64 __apply_alternatives() (kernel/alternative.c): every entry whose
    cpucap the CPU has is applied in table order, either its replacement (as
    long as the original) or its callback; a callback is a decision naming
    the function and what it leaves (\"keeps\": the original, or \"nops\")."""
    size = alts[0]["instrlen"]
    rows = [(x - site, t) for x, t, _ in elf.disasm(site, site + size)]
    for a in alts:
        name = names.get(a["cpuid"], f"cpucap {a['cpuid']}")
        if name not in feats:
            raise Bad(f"{pathname}: undecided cpucap {name} at a patch site in {fn} at {where} ({site:#x})")
        used.add(name)
        if not feats[name]["set"]:
            continue
        if a["cb"]:
            cb = elf.owner(a["repl"]) or f"{a['repl']:#x}"
            if cb not in feats:
                raise Bad(f"{pathname}: undecided callback {cb} ({name}) at a patch site in {fn} at {where}")
            used.add(cb)
            what = feats[cb].get("writes")
            if what == "nops":
                rows = [(o, "nop") for o, _ in rows]
            elif what == "rewrites":
                # one instruction of the same kind for each (e.g. a mov with
                # the CPU's immediate): the counts are the original's
                rows = [(o, f"{t} ({cb} rewrites it)") for o, t in rows]
            elif what != "keeps":
                raise Bad(f"{pathname}: callback {cb}: say what it writes (\"keeps\", \"nops\" or \"rewrites\")")
            continue
        rows = local_targets([(x - a["repl"], t) for x, t, _ in elf.disasm(a["repl"], a["repl"] + a["repllen"])],
                             a["repl"], a["repllen"], site, fn)
    return rows


def local_targets(rows, repl, size, site, fn):
    """A branch whose target lies inside its own replacement keeps its
    displacement when patched (x86 need_reloc(), arm64
    branch_insn_requires_update()): its target moves with it to the site."""
    def fix(t):
        m = TARGET.search(t)
        if m and repl <= int(m.group(1), 16) <= repl + size:
            a = site + int(m.group(1), 16) - repl
            return t[:m.start()] + f"{a:x} <{fn}>" + t[m.end():]
        return t
    return [(o, fix(t)) for o, t in rows]
