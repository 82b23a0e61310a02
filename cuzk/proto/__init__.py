"""Generated gRPC modules for proto/cuzk/v1/proving.proto (package cuzk.v1).

`proving_pb2` (messages) and `proving_pb2_grpc` (service stubs) are produced
by scripts/gen_proto.sh with grpcio-tools and checked in; edit the .proto and
rerun the script, never the generated files.
"""
