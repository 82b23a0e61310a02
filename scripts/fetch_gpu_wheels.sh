#!/usr/bin/env bash
# Download the test-only wheels the GPU machine lacks (py_ecc and its
# dependencies, py-arkworks-bls12381; grpcio and protobuf for the daemon) into .whl/ for Python 3.12 x86-64, so
# scripts/device/common.sh can install them there. Run here, then pass carry=[".whl"].
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
mkdir -p .whl
for pkg in py_ecc==8.0.0 py-arkworks-bls12381==0.5.0 eth-typing==6.0.0 eth-utils==6.0.0 eth-hash==0.8.0 \
           cytoolz==1.2.0 pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5 \
           grpcio==1.85.3 protobuf==7.36.2; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform any -d .whl "$pkg"
done
ls .whl
