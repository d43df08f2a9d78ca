#!/usr/bin/env python3
"""Time to the leak answer and until the graph is ready (not a test).

Runs `heapload [--db NEW] BEFORE AFTER` for each named variant, interleaved, ROUNDS times, each into a new store, and
prints per run: seconds to the first line of the leak answer ("leaks:" on stdout), seconds until the command ended
(the graph written), user+system CPU seconds of the whole process tree, peak RSS of the largest process (MiB); then
the medians per variant and their ratios to the first variant, and the load average before and after.

A variant is NAME=COMMAND, COMMAND a shell command line that runs heapload ({db} and {files} are filled in), e.g.
  new='./heapload --no-progress --db {db} {files}'
  old='java -cp "/tmp/old/heapload-cli.jar:/tmp/old/lib/*" dev.heapload.cli.HeapLoad --no-progress --db {db} {files}'
Usage: bench/answer-first.py ROUNDS BEFORE AFTER VARIANT...
"""
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(command, db, files):
    line = command.format(db=shlex.quote(db), files=" ".join(shlex.quote(f) for f in files))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    answer = None
    p = subprocess.Popen(["bash", "-c", line], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for out in p.stdout:
        if answer is None and out.startswith("leaks:"):
            answer = time.monotonic() - start
    code = p.wait()
    end = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if code != 0:
        raise SystemExit(f"exit {code}: {line}")
    return answer, end, cpu


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    rounds, files = int(sys.argv[1]), sys.argv[2:4]
    variants = [v.split("=", 1) for v in sys.argv[4:]]
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cpus")
    print(f"{'variant':12} {'round':>5} {'answer_s':>9} {'end_s':>8} {'cpu_s':>8}")
    results = {name: [] for name, _ in variants}
    work = tempfile.mkdtemp(prefix="heapload-bench-")
    try:
        for r in range(rounds):
            for name, command in variants:
                db = os.path.join(work, f"db-{name}-{r}")
                a, e, c = run(command, db, files)
                shutil.rmtree(db, ignore_errors=True)
                results[name].append((a, e, c))
                print(f"{name:12} {r + 1:>5} {a if a is not None else float('nan'):>9.2f} {e:>8.2f} {c:>8.2f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    base = None
    print(f"{'median':12} {'answer_s':>9} {'end_s':>8} {'cpu_s':>8} {'x_answer':>9} {'x_end':>7} {'x_cpu':>7}")
    for name, _ in variants:
        rows = results[name]
        med = [statistics.median([x[i] for x in rows if x[i] is not None] or [float("nan")]) for i in range(3)]
        if base is None:
            base = med
        print(f"{name:12} {med[0]:>9.2f} {med[1]:>8.2f} {med[2]:>8.2f} {med[0] / base[0]:>9.2f} {med[1] / base[1]:>7.2f}"
              f" {med[2] / base[2]:>7.2f}")


if __name__ == "__main__":
    main()
