"""What a step costs from Python on top of the same step from C.

Two Data of one model advance in lockstep through identical states: `each` by n calls of
step(), `batch` by one call of step(n), which runs the same C loop. Their difference per step is
the cost of a Python call (argument parsing, the GIL released and taken back). Rounds alternate
which goes first; the median over rounds is reported. Also: step(0), a call that steps nothing.

    python3 python/bench/step_overhead.py SCENE [steps_per_round] [rounds]
"""
import statistics
import sys
import time

import numpy as np

import touche


def lockstep_overhead(model, n, rounds):
    each, batch = touche.Data(model), touche.Data(model)
    differences, step_times = [], []
    for r in range(rounds):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        elapsed = [0.0, 0.0]
        for which in order:
            if which == 0:
                t0 = time.perf_counter()
                for _ in range(n):
                    each.step()
                elapsed[0] = time.perf_counter() - t0
            else:
                t0 = time.perf_counter()
                batch.step(n)
                elapsed[1] = time.perf_counter() - t0
        differences.append((elapsed[0] - elapsed[1]) / n)
        step_times.append(elapsed[1] / n)
    assert np.array_equal(each.qpos, batch.qpos), "the two data should be in the same state"
    return statistics.median(differences), statistics.median(step_times), differences


def timed_calls(model, calls):
    """Percentiles of single step() calls, each timed (perf_counter adds about 0.1 us): to set
    beside `touche speed`'s step-time percentiles of the same scene, which time tch_step alone."""
    d = touche.Data(model)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        d.step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2], times[int(0.99 * (len(times) - 1))]


def empty_call(model, calls):
    d = touche.Data(model)
    t0 = time.perf_counter()
    for _ in range(calls):
        d.step(0)
    return (time.perf_counter() - t0) / calls


def main():
    scene = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    model = touche.load(scene)
    overhead, step, differences = lockstep_overhead(model, n, rounds)
    print(f"scene {scene}: {rounds} rounds of {n} steps")
    print(f"  step from C (one step(n) call): median {step * 1e6:.2f} us per step")
    print(f"  Python per-call overhead (n x step() minus step(n)): median {overhead * 1e6:.3f} us"
          f" per call (rounds: min {min(differences) * 1e6:.3f}, max {max(differences) * 1e6:.3f})")
    print(f"  step(0), a call that steps nothing: {empty_call(model, 200000) * 1e6:.3f} us")
    p50, p99 = timed_calls(model, 1000)
    print(f"  1000 single step() calls from the initial state: p50 {p50 * 1e6:.2f} us, "
          f"p99 {p99 * 1e6:.2f} us (compare: touche speed SCENE --steps 1000)")


if __name__ == "__main__":
    main()
