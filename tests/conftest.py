"""Shared fixtures: backends to run conformance tests against, GPU skipping."""

from __future__ import annotations

import pytest

from cuzk.backend import cuda_unavailable_reason, get_backend

CUDA_REASON = cuda_unavailable_reason()
BACKENDS = ["cpu"] + (["cuda"] if CUDA_REASON is None else [])


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
