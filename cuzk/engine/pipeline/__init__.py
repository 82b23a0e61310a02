"""The proving pipeline: batch collector and scheduler (what is synthesized next), the stages
(stages.py: synthesis and prover workers), the bounded queue between them, and fault injection.

May import: the engine's types.py, errors.py, the jobs, resources and observe rooms, and the layers
below the engine (groth16, formats).
"""
