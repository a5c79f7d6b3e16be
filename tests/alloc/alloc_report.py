#!/usr/bin/env python3
"""Summarizes a trace written by alloc_tracer.c: allocations per run, by the library that called malloc (the
innermost frame outside libc/libstdc++) and by the innermost onyx function on the stack (with the inlined chain that
addr2line reports), so each allocation is attributed to a kernel and a library.

usage: alloc_report.py TRACE RUNS [--top N] [--stacks N]
"""
import argparse
import collections
import os
import subprocess

RUNTIME_LIBS = ("libc.so", "libstdc++.so", "libgcc_s.so", "libm.so", "ld-linux")


def symbolize(module, offsets):
    """{offset: [function names, innermost inlined first]} for one module via addr2line."""
    offsets = sorted(offsets)
    result = {}
    try:
        out = subprocess.run(
            ["addr2line", "-f", "-C", "-i", "-a", "-e", module] + ["0x%x" % o for o in offsets],
            capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return {o: ["??"] for o in offsets}
    current = None
    i = 0
    while i < len(out):
        line = out[i]
        if line.startswith("0x"):
            current = int(line, 16)
            result[current] = []
            i += 1
            continue
        result[current].append(line)
        i += 2  # function name, then file:line
    return result


def short(name, width=110):
    return name if len(name) <= width else name[:width - 3] + "..."


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("runs", type=float)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--stacks", type=int, default=0, help="print the N most frequent full stacks")
    args = parser.parse_args()

    stacks = []
    for line in open(args.trace):
        parts = line.split()
        frames = []
        for f in parts[1:]:
            module, _, off = f.rpartition("+")
            frames.append((module, int(off, 16) if off.startswith("0x") else 0))
        stacks.append((int(parts[0]), frames))

    wanted = collections.defaultdict(set)
    for _, frames in stacks:
        for module, off in frames:
            wanted[module].add(off)
    names = {}
    for module, offs in wanted.items():
        syms = symbolize(module, offs) if os.path.exists(module) else {}
        for o in offs:
            names[(module, o)] = syms.get(o, ["??"])

    by_lib = collections.Counter()
    by_onyx = collections.Counter()
    by_pair = collections.Counter()
    by_stack = collections.Counter()
    by_kernel = collections.Counter()
    by_site = collections.Counter()
    for _, frames in stacks:
        lib = "libc/libstdc++ only"
        for module, off in frames:
            base = os.path.basename(module)
            if not base.startswith(RUNTIME_LIBS):
                lib = base
                break
        # The innermost onyx function (not an inlined std:: or dnnl:: wrapper) and the kernel above it.
        onyx_fn = "(no onyx frame)"
        for module, off in frames:
            if "onyx" not in os.path.basename(module) and "_onyx" not in module:
                continue
            chain = [n for n in names[(module, off)] if n.startswith("onyx::")]
            if chain:
                onyx_fn = short(chain[0], 90)
                break
        # The kernel whose Compute made it (the innermost ...Kernel... frame of onyx::ops).
        kernel = "(no kernel)"
        for module, off in frames:
            chain = [n for n in names.get((module, off), []) if n.startswith("onyx::ops::")]
            hit = [n for n in chain if "Kernel" in n or "Compute" in n]
            if hit:
                kernel = short(hit[0].replace("(anonymous namespace)::", "").split("(")[0], 70)
                break
        by_kernel[kernel] += 1
        by_site[(kernel, onyx_fn)] += 1
        by_lib[lib] += 1
        by_onyx[onyx_fn] += 1
        by_pair[(lib, onyx_fn)] += 1
        if args.stacks:
            by_stack[tuple(" | ".join(short(n, 70) for n in names[fr][:2]) + " [" + os.path.basename(fr[0]) + "]"
                           for fr in frames[:14])] += 1

    total = len(stacks)
    print("allocations: %d (%.1f per run)" % (total, total / args.runs))
    print("\nby library that called malloc (innermost frame outside libc/libstdc++), per run:")
    for lib, n in by_lib.most_common():
        print("  %8.1f  %s" % (n / args.runs, lib))
    print("\nby library and innermost onyx function, per run:")
    for (lib, fn), n in by_pair.most_common(args.top):
        print("  %8.1f  %-22s %s" % (n / args.runs, lib, fn))
    print("\nby kernel, per run:")
    for k, n in by_kernel.most_common(args.top):
        print("  %8.1f  %s" % (n / args.runs, k))
    print("\nby kernel and innermost onyx function, per run:")
    for (k, fn), n in by_site.most_common(args.top):
        print("  %8.1f  %-50s %s" % (n / args.runs, k.replace("onyx::ops::", "").replace("(anonymous namespace)::", ""), fn))
    if args.stacks:
        print("\nmost frequent stacks:")
        for st, n in by_stack.most_common(args.stacks):
            print("  %.1f per run" % (n / args.runs))
            for f in st:
                print("      " + f)


if __name__ == "__main__":
    main()
