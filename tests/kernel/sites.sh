#!/bin/bash
# count_sites on a tiny object compiled here: a load, three nops, a locked
# RMW, a call, a fence, each at its own source line; the counts are known.
set -euo pipefail
tool=$1
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cat > "$dir/t.c" <<'C'
int shared;
__attribute__((noinline)) void callee(void) { __asm__ volatile(""); }
void f(void)
{
	int v = __atomic_load_n(&shared, __ATOMIC_RELAXED);
	__asm__ volatile("nop\n\tnop\n\tnop");
	__atomic_fetch_add(&shared, v, __ATOMIC_SEQ_CST);
	callee();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
C
gcc -O2 -g -fno-pic -fcf-protection=none -c "$dir/t.c" -o "$dir/t.o"
cat > "$dir/spec.json" <<'J'
{"paths": [{"name": "t", "arch": "amd64", "functions": ["f"],
  "marks": [{"function": "f", "at": "t.c:5", "insn": "mov ", "site": "f:load"},
            {"function": "f", "at": "t.c:7", "insn": "^lock ", "site": "f:rmw"},
            {"function": "f", "at": "t.c:9", "insn": "(mfence|^lock )", "site": "f:fence"}],
  "branches": {}}]}
J
out=$("$tool" --spec "$dir/spec.json" --elf "$dir/t.o" --arch amd64)
echo "$out"
row() { awk -F'\t' -v s="$1" '$3==s{print $4, $5, $6, $7}' <<<"$out"; }
fail() { echo "FAIL: $*"; exit 1; }
# load -> rmw: the three nops and the locked add (nothing else at -O2)
[[ $(row f:rmw) == "4 1 0 0" ]] || fail "f:rmw is '$(row f:rmw)', want '4 1 0 0'"
# rmw -> fence: the call (callee not descended: 1 call, 1 return) and the fence
[[ $(row f:fence) == "2 1 1 1" ]] || fail "f:fence is '$(row f:fence)', want '2 1 1 1'"
# the tail: the return value and ret
[[ $(row exit) =~ ^[0-9]+\ 0\ 0\ 1$ ]] || fail "exit is '$(row exit)'"
# bad input: one line, exit status 2
set +e
err=$("$tool" --spec "$dir/spec.json" --elf "$dir/nonexistent" 2>&1); rc=$?
set -e
[[ $rc == 2 && $(wc -l <<<"$err") == 1 ]] || fail "bad input gave rc=$rc: $err"
# a mark qualified with "call": N is met only in the Nth run of its function:
# k() calls g() twice, g's load at one source line; the marks list the second
# call's first, so without the qualifier the first run would take it
cat > "$dir/twice.c" <<'C'
int shared2;
__attribute__((noinline)) int g(void) { return __atomic_load_n(&shared2, __ATOMIC_RELAXED); }
int k(void)
{
	int a = g();
	__asm__ volatile("nop\n\tnop");
	return a + g();
}
C
gcc -O2 -g -fno-pic -no-pie -fcf-protection=none -fno-optimize-sibling-calls -nostdlib -static -Wl,-e,k \
	"$dir/twice.c" -o "$dir/twice"
cat > "$dir/twice.json" <<'J'
{"paths": [{"name": "twice", "arch": "amd64", "functions": ["k", "g"],
  "marks": [{"function": "g", "at": "twice.c:2", "insn": "mov ", "call": 2, "site": "g:second"},
            {"function": "g", "at": "twice.c:2", "insn": "mov ", "call": 1, "site": "g:first"}],
  "branches": {}}]}
J
out=$("$tool" --spec "$dir/twice.json" --elf "$dir/twice" --arch amd64)
echo "$out"
sites=$(awk -F'\t' 'NR>1{printf "%s ", $3}' <<<"$out")
[[ $sites == "g:first g:second exit " ]] || fail "call-qualified marks met as '$sites', want 'g:first g:second exit'"
# first -> second: g's ret (a return), k's instructions between the calls
# (the two nops among them) and the second call (a call, descended)
[[ $(awk -F'\t' '$3=="g:second"{print $6, $7}' <<<"$out") == "1 1" ]] || fail "g:second calls/returns: $out"
# a call number the walk never reaches leaves its mark unmet: an error
sed 's/"call": 2/"call": 3/' "$dir/twice.json" > "$dir/twice3.json"
set +e
err=$("$tool" --spec "$dir/twice3.json" --elf "$dir/twice" --arch amd64 2>&1); rc=$?
set -e
[[ $rc == 2 && $err == *"marks never met: g:second"* ]] || fail "an unreached call number gave rc=$rc: $err"
# x86 patch sites (.altinstructions) walked as boot patches them for a named
# CPU: a 10-byte run of nops whose replacement, when the CPU has feature bit 5,
# is a locked add (6 bytes) padded with nops; linked so the table's offsets
# are resolved, as in a vmlinux.
cat > "$dir/alt.c" <<'C'
void g(void)
{
	__asm__ volatile(
		"661:\n\t.skip 10, 0x90\n662:\n"
		".pushsection .altinstructions,\"a\"\n"
		" .long 661b - .\n .long 663f - .\n .short 5\n .short 0\n"
		" .byte 662b - 661b\n .byte 664f - 663f\n"
		".popsection\n"
		".pushsection .altinstr_replacement,\"ax\"\n"
		"663:\n\tlock addl $0, -4(%%rsp)\n664:\n"
		".popsection" ::: "memory");
}
C
gcc -O2 -g -fno-pic -no-pie -fcf-protection=none -nostdlib -static -Wl,-e,g "$dir/alt.c" -o "$dir/alt"
printf '#define NCAPINTS 1\n#define X86_FEATURE_TEST ( 0*32+ 5) /* a test bit */\n' > "$dir/cpufeatures.h"
cat > "$dir/alt.json" <<'J'
{"cpus": {"on": {"features": {"X86_FEATURE_TEST": {"set": true, "why": "test"}}},
          "off": {"features": {"X86_FEATURE_TEST": {"set": false, "why": "test"}}},
          "undecided": {"features": {}}},
 "paths": [{"name": "alt", "arch": "amd64", "cpus": ["on", "off"], "functions": ["g"], "marks": [], "branches": {}},
           {"name": "bad", "arch": "amd64", "cpus": ["undecided"], "functions": ["g"], "marks": [], "branches": {}}]}
J
alt=$("$tool" --spec "$dir/alt.json" --elf "$dir/alt" --arch amd64 --cpufeatures "$dir/cpufeatures.h" --path alt/on)
echo "$alt"
# on: the locked add, the 4 padding bytes as one nop (optimize_nops), ret
[[ $(awk -F'\t' '$3=="exit"{print $4, $5, $6, $7}' <<<"$alt") == "3 1 0 1" ]] || fail "alt/on: $alt"
alt=$("$tool" --spec "$dir/alt.json" --elf "$dir/alt" --arch amd64 --cpufeatures "$dir/cpufeatures.h" --path alt/off)
echo "$alt"
# off: the 10 nops left as they are become one jmp over them (add_nop), ret
[[ $(awk -F'\t' '$3=="exit"{print $4, $5, $6, $7}' <<<"$alt") == "2 0 0 1" ]] || fail "alt/off: $alt"
# a patch site whose feature the CPU's decisions do not name is an error
set +e
err=$("$tool" --spec "$dir/alt.json" --elf "$dir/alt" --arch amd64 --cpufeatures "$dir/cpufeatures.h" --path bad/undecided 2>&1); rc=$?
set -e
[[ $rc == 2 && $err == *"undecided CPU feature X86_FEATURE_TEST"* ]] || fail "undecided feature gave rc=$rc: $err"
# a paravirt call site (ALT_FLAG_DIRECT_CALL, the slow path's call through
# pv_ops_lock): boot writes a direct call of the function the slot holds and
# a nop; the spec names the function ("call NAME"), here left opaque
cat > "$dir/dc.c" <<'C'
void dc_callee(void) { __asm__ volatile(""); }
void (*dc_ptr)(void) = dc_callee;
void k(void)
{
	__asm__ volatile(
		"661:\n\tcall *dc_ptr(%%rip)\n662:\n"
		".pushsection .altinstructions,\"a\"\n"
		" .long 661b - .\n .long 661b - .\n .short 5\n .short 2\n"
		" .byte 662b - 661b\n .byte 0\n"
		".popsection" ::: "memory");
}
C
gcc -O2 -g -fno-pic -no-pie -fcf-protection=none -nostdlib -static -Wl,-e,k "$dir/dc.c" -o "$dir/dc"
cat > "$dir/dc.json" <<'J'
{"cpus": {"on": {"features": {"X86_FEATURE_TEST": {"set": true, "why": "test"}}}},
 "paths": [{"name": "dc", "arch": "amd64", "cpus": ["on"], "functions": ["k"], "marks": [],
            "branches": {"k": {"dc.c:5": ["call dc_callee"]}}, "why": {"k": {"dc.c:5": "test"}}}]}
J
dc=$("$tool" --spec "$dir/dc.json" --elf "$dir/dc" --arch amd64 --cpufeatures "$dir/cpufeatures.h" --path dc/on)
echo "$dc"
# the call (opaque: 1 call, 1 return), the padding nop, ret
[[ $(awk -F'\t' '$3=="exit"{print $4, $5, $6, $7}' <<<"$dc") == "3 0 1 2" ]] || fail "dc/on: $dc"
# arm64 (when the cross binutils are here): a loop decided as taken*N, and a
# patch site whose cpucap (named from a cpucaps list, numbered from 0) turns
# a nop into a dmb
if command -v aarch64-linux-gnu-as >/dev/null && command -v aarch64-linux-gnu-ld >/dev/null \
		&& command -v aarch64-linux-gnu-objdump >/dev/null; then
	cat > "$dir/h.s" <<'S'
	.text
	.globl h
	.type h, %function
h:
	mov x0, #3
1:	subs x0, x0, #1
	b.ne 1b
661:	nop
662:
	.pushsection .altinstructions, "a"
	.word 661b - .
	.word 663f - .
	.hword 1
	.byte 662b - 661b
	.byte 664f - 663f
	.popsection
	.pushsection .altinstr_replacement, "ax"
663:	dmb ish
664:
	.popsection
	ret
	.size h, . - h
S
	aarch64-linux-gnu-as -g "$dir/h.s" -o "$dir/h.o"
	aarch64-linux-gnu-ld -e h "$dir/h.o" -o "$dir/h"
	printf '# test caps\n\nZERO\nTEST\n' > "$dir/cpucaps"
	cat > "$dir/h.json" <<'J'
{"cpus": {"on": {"features": {"ARM64_TEST": {"set": true, "why": "test"}}},
          "off": {"features": {"ARM64_TEST": {"set": false, "why": "test"}}}},
 "paths": [{"name": "h", "arch": "arm64", "cpus": ["on", "off"], "functions": ["h"], "marks": [],
            "branches": {"h": {"h.s:7": ["taken*2", "fall"]}}, "why": {"h": {"h.s:7": "three iterations"}}}]}
J
	for c in on off; do
		out=$("$tool" --spec "$dir/h.json" --elf "$dir/h" --arch arm64 --cpucaps "$dir/cpucaps" --path h/$c)
		echo "$out"
		want="9 $([[ $c == on ]] && echo 1 || echo 0) 0 1"
		[[ $(awk -F'\t' '$3=="exit"{print $4, $5, $6, $7}' <<<"$out") == "$want" ]] || fail "h/$c: want '$want': $out"
	done
else
	echo "SKIP arm64 part: no aarch64-linux-gnu binutils"
fi
echo PASS
