"""Fault injection for tests of the daemon (never set in production).

The daemon reads CUZK_FAULTS, a comma-separated list of rules that act on
proving passes containing a job whose id starts with PREFIX:

    hold=PREFIX          wait until that job has ended (e.g. cancelled), at most 120 s
    delay=PREFIX:MS      sleep MS milliseconds before proving
    fail=PREFIX          raise (every attempt, so the job fails after its retry)
    fail_once=PREFIX     raise on the first attempt only (the retry succeeds)
    die=PREFIX           end the prover worker's thread (every attempt: the job fails after its retry)
    die_once=PREFIX      end the prover worker's thread on the first attempt (a replacement retries it)
    oom=PREFIX           a real MemoryError: an allocation larger than any machine (every attempt)
    oom_once=PREFIX      the same on the first attempt only

Engines used as a library take any callable as `engine.fault_injector`.
"""

from __future__ import annotations

import time

import numpy as np

from cuzk.errors import CuzkError

from ..errors import WorkerDeath

HOLD_MAX_S = 120.0
RULES = ("hold", "delay", "fail", "fail_once", "die", "die_once", "oom", "oom_once")


class InjectedFault(RuntimeError):
    pass


def parse(spec: str):
    rules = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, arg = part.partition("=")
        if name not in RULES or not arg:
            raise CuzkError(f"CUZK_FAULTS: cannot parse {part!r} (expected {', '.join(r + '=' for r in RULES)})")
        if name == "delay":
            prefix, _, ms = arg.rpartition(":")
            if not ms.isdigit():
                raise CuzkError(f"CUZK_FAULTS: {part!r}: expected delay=PREFIX:MS")
            rules.append((name, prefix, int(ms) / 1e3))
        else:
            rules.append((name, arg, 0.0))

    def inject(item) -> None:
        jobs = [m.job for m in item.members]
        for name, prefix, arg in rules:
            hit = [j for j in jobs if j.job_id.startswith(prefix)]
            if not hit:
                continue
            if name == "hold":
                for j in hit:
                    j.wait(HOLD_MAX_S)
            elif name == "delay":
                time.sleep(arg)
            elif name == "fail" or (name == "fail_once" and item.attempt == 0):
                raise InjectedFault(f"injected fault ({name}={prefix})")
            elif name == "die" or (name == "die_once" and item.attempt == 0):
                raise WorkerDeath(f"injected worker death ({name}={prefix})")
            elif name == "oom" or (name == "oom_once" and item.attempt == 0):
                np.empty(1 << 60, dtype=np.uint8)  # raises MemoryError, as numpy and CuPy do when memory runs out

    return inject if rules else None
