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
echo PASS
