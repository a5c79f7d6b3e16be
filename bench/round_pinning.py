"""CPU pinning for side-by-side rounds, shared by bench/compare.py and bench/quant_compare.py.

Runs with fewer threads than CPUs pin every engine of round r to the same CPUs (taskset), rotating from round to
round: on the 2-vCPU machines measured here one vCPU runs ~30% slower than the other for both engines, and an unpinned
1-thread process lands on either, so a per-round ratio would compare where each engine happened to land.
"""
import os
import shutil


def round_pinning(enabled=True):
    """A function (threads, r) -> the command prefix (taskset ...) that pins round r's runs, or [] where none applies
    (pinning off, no taskset, or as many threads as CPUs)."""
    cpus = sorted(os.sched_getaffinity(0))
    can_pin = enabled and shutil.which("taskset") is not None

    def prefix(threads, r):
        if not can_pin or threads >= len(cpus):
            return []
        return ["taskset", "-c", ",".join(str(cpus[(r * threads + k) % len(cpus)]) for k in range(threads))]

    return prefix
