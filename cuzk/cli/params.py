"""`cuzk params check`: validate every point of a bellperson .params file."""

from __future__ import annotations

import mmap
import time

from cuzk.errors import CuzkError, FormatError, ValidationError
from cuzk.progress import Status

from .files import input_file
from .usage import command_group

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

CHUNK = 1 << 16


def register(sub) -> None:
    psub = command_group(sub, "params", "params_command", "ACTION", help="inspect and validate parameter files")
    c = psub.add_parser("check", help="check every point (on curve, in subgroup, not infinity)",
                        description="Validate a bellperson .params (or .vk) file: layout and lengths, then every "
                        "point on the curve and in the prime-order subgroup, with progress. Exit 0 if valid, "
                        "1 if a point is invalid, 2 if the file is malformed.")
    c.add_argument("file", type=input_file, help=".params or .vk file")
    c.add_argument("--quiet", action="store_true", help="no progress line")
    c.set_defaults(func=check)


def check(args) -> int:
    from cuzk.formats import bellperson

    path = args.file
    try:
        with open(path, "rb") as fh:
            buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if fh.seek(0, 2) else b""
    except OSError as exc:
        raise CuzkError(f"{path}: {exc.strerror}") from None
    if path.endswith(".vk"):
        vk = bellperson.read_vk(path)
        print(f"{path}: verifying key with {vk.ic.shape[0]} IC points: OK")
        return 0
    layout = bellperson.scan_params(buf, path)  # vk checked here, sizes against the file
    total = sum(count for _, count, _ in layout.sections.values())
    done = 0
    t0 = time.perf_counter()
    print(f"{path}: {layout.size:,} bytes; vk OK ({layout.vk.ic.shape[0]} IC points)", flush=True)
    status = None if args.quiet else Status("  checked", total, unit="points")
    try:
        for name, (off, count, grp) in layout.sections.items():
            size = bellperson._size(grp)
            for lo in range(0, count, CHUNK):
                k = min(CHUNK, count - lo)
                bellperson._decode(buf, off + lo * size, k, grp, f"params.{name}[{lo}:]", True)
                done += k
                if status is not None:
                    status.update(done, name)
            if status is not None:
                status.close()  # the section's line below goes to stdout: not after a line drawn in place
            print(f"  {name:<5} {count:>12,} points OK", flush=True)
    except (ValidationError, FormatError) as exc:
        if status is not None:
            status.close()
        print(f"INVALID: {exc}")
        return 1
    print(f"OK: {total:,} points checked in {time.perf_counter() - t0:.1f} s")
    return 0
