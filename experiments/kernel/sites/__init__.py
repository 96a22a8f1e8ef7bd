"""The code behind experiments/kernel/count_sites and lock_paths, one job a
module, so that each script is a small driver over it.

count_sites (walking compiled paths): elf (reading symbols, sections and
disassembly), insns (what an instruction's text says), alternatives (the
image as boot patches it), spec (reading and checking path specs), walker
(one path's walk, step by step). lock_paths (writing the bucket lock's
path specs): qspinlock (the model's access names and the decisions'
reasons), qspinlock_amd64 and qspinlock_arm64 (each build's compiled code),
lock_ways (the model's ways through the slow path), lock_spec (a way as a
path spec). Both: common (bad input as one line, exit status 2).
"""
