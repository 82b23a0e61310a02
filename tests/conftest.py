"""Shared fixtures: backends to run conformance tests against, GPU skipping."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Progress notices (cuzk/progress.py: "cuzk: compiling CPU kernels ...", on by default) would land in the
# stderr that tests compare line by line, whenever a test happens to be the first to compile a kernel;
# tests that check the notices set CUZK_PROGRESS=1 themselves.
os.environ.setdefault("CUZK_PROGRESS", "0")

from cuzk.backend import cuda_unavailable_reason, get_backend

CUDA_REASON = cuda_unavailable_reason()
BACKENDS = ["cpu"] + (["cuda"] if CUDA_REASON is None else [])


def pytest_configure(config):
    # CUZK_RECORD_KERNELS=PREFIX (scripts/kernel_lists.py tests): the kernels this process compiles go to
    # PREFIX.<pid> at the end, as the cuzk commands the tests start write theirs
    prefix = os.environ.get("CUZK_RECORD_KERNELS")
    if prefix:
        from cuzk.field.precompile import Recorder

        config._cuzk_recorder = (prefix, Recorder().__enter__())


KERNEL_LIST = Path(__file__).with_name("kernel_list.txt")


def pytest_sessionstart(session):
    """Under `make test` (CUZK_TEST_PRECOMPILE=1): the numba kernels the suite compiles (kernel_list.txt,
    recorded by scripts/kernel_lists.py tests) compiled first on every core, with a progress line,
    instead of one at a time in whichever test first calls each; once per cache (a stamp)."""
    if os.environ.get("CUZK_TEST_PRECOMPILE") != "1" or not KERNEL_LIST.is_file():
        return
    if hasattr(session.config, "workerinput"):  # a pytest-xdist worker: its controller compiled them first
        return
    from cuzk.cli.first_run import modules_of
    from cuzk.field import precompile

    text = KERNEL_LIST.read_text()
    capture = session.config.pluginmanager.getplugin("capturemanager")
    before, os.environ["CUZK_PROGRESS"] = os.environ.get("CUZK_PROGRESS"), "1"
    try:
        with capture.global_and_fixture_disabled():
            done = precompile.ensure("tests", text, modules_of(precompile.parse(text)), "the tests")
            if done is not None:
                print(f"cuzk: {done.compiled} kernels compiled on {done.workers} cores in {done.seconds:.0f} s"
                      f"{f' ({done.failed} left to their tests)' if done.failed else ''}", file=sys.stderr)
    finally:
        os.environ["CUZK_PROGRESS"] = before or "0"


def pytest_unconfigure(config):
    prefix, rec = getattr(config, "_cuzk_recorder", (None, None))
    if rec is not None:
        rec.__exit__(None, None, None)
        with open(f"{prefix}.{os.getpid()}", "w") as f:
            f.writelines(k.line() + "\n" for k in rec.kernels)


def pytest_collection_modifyitems(config, items):
    if CUDA_REASON is None:
        return
    skip = pytest.mark.skip(reason=f"gpu: {CUDA_REASON}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param == "cuda":
        request.applymarker(pytest.mark.gpu)
    return get_backend(request.param)


@pytest.fixture(params=["bls12_381", "bn254"])
def curve_name(request):
    return request.param


@pytest.fixture(scope="session")
def filecoin_params(tmp_path_factory):
    """TEST parameters of both 2 KiB PoSt circuits under their Filecoin names, written once per session by
    `cuzk setup --kind ... --sector-size 2KiB --params-dir D` run in this process (post_requests.py uses them)."""
    from cuzk.cli.main import main

    d = tmp_path_factory.mktemp("filecoin-params")
    for kind in ("window-post", "winning-post"):
        assert main(["setup", "--kind", kind, "--sector-size", "2KiB", "--params-dir", str(d), "--backend", "cpu"]) == 0
    return d
