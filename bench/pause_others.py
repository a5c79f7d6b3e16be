#!/usr/bin/python3
"""Runs a measurement on a shared development machine with the other heavy work paused.

usage: bench/pause_others.py CMD [ARGS...]

While CMD runs, every process whose command line looks like build or test work (compilers, ninja, the linker, onyx,
python3, node, ctest, cmake) and that is neither CMD's descendant nor this script's ancestor is stopped with SIGSTOP
(re-checked every 0.2 s, so work started later is paused too); all are continued with SIGCONT when CMD ends, also on
Ctrl-C. It reads /proc and forks nothing while it watches: a watcher that forked pgrep/awk every 50 ms gave 2-thread
runs heavy tails of its own (docs/serve.md, session 12). Exit status: CMD's.
"""
import os, re, signal, subprocess, sys, time
PAT = re.compile(r"cc1plus|ninja|lto1|lto-wrapper|collect2|/ld|onyx|python3|node|exe|ctest|cmake")
me = os.getpid()
anc = set()
p = me
while p > 1:
    anc.add(p)
    p = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
cmd = subprocess.Popen(sys.argv[1:])
stopped, mine, seen_other = set(), set(), set()
def parent(pid):
    try:
        return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 1
def is_mine(pid):
    q = pid
    while q > 1:
        if q == cmd.pid or q in mine:
            return True
        q = parent(q)
    return False
try:
    while cmd.poll() is None:
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            pid = int(d)
            if pid in anc or pid in stopped or pid in mine or pid in seen_other or pid == me:
                continue
            try:
                cl = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if is_mine(pid):
                mine.add(pid)
                continue
            if not PAT.search(cl):
                seen_other.add(pid)  # a later exec could change it; good enough for short measurements
                continue
            try:
                os.kill(pid, signal.SIGSTOP)
                stopped.add(pid)
            except OSError:
                pass
        time.sleep(0.2)
finally:
    for pid in stopped:
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass
sys.exit(cmd.returncode)
