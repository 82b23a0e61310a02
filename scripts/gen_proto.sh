#!/bin/sh
# Regenerate cuzk/proto/proving_pb2.py and proving_pb2_grpc.py from
# proto/cuzk/v1/proving.proto with grpcio-tools (a build/dev dependency only;
# the generated files are checked in). Run from anywhere:
#   scripts/gen_proto.sh [python]       (default: .venv/bin/python, else python3)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-}
if [ -z "$py" ]; then
    if [ -x "$root/.venv/bin/python" ]; then py="$root/.venv/bin/python"; else py=python3; fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" -m grpc_tools.protoc -I "$root/proto" --python_out="$tmp" --grpc_python_out="$tmp" cuzk/v1/proving.proto
# the generated gRPC module imports its messages as a top-level cuzk.v1 package: make it ours
sed 's/^from cuzk\.v1 import proving_pb2 as/from cuzk.proto import proving_pb2 as/' \
    "$tmp/cuzk/v1/proving_pb2_grpc.py" > "$root/cuzk/proto/proving_pb2_grpc.py"
cp "$tmp/cuzk/v1/proving_pb2.py" "$root/cuzk/proto/proving_pb2.py"
"$py" -m grpc_tools.protoc --version | sed 's/^/generated with grpcio-tools protoc /'
