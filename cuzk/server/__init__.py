"""gRPC front end of the engine: service cuzk.v1.ProvingEngine, server, client."""
