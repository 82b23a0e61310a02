"""One PoRep partition's vanilla proof as arrays: what `StackedCircuit` consumes.

rust-fil-proofs' vanilla proof of a challenge (stacked/vanilla/proof.rs, params.rs) holds the
tree D proof of the data leaf, the tree R-last proof of the replica leaf, the replica column
proofs (the challenged node's column c_x with its tree C proof, and the column of every DRG and
expander parent with its tree C proof), the labeling proofs and the encoding proof. The circuit
(circuit/params.rs `From<VanillaProof>`) takes from it: the data leaf and its tree D siblings, the
challenge, the tree R-last siblings, the tree C siblings of c_x, and the parents' columns with
their tree C siblings; the labels of the challenged column and the replica leaf it recomputes.

Arrays (C challenges, L layers, 14 parents: 6 DRG then 8 expander, Dd = log2 nodes; a path is
one array per level, leaf upwards, of the arity's other children; 32-byte LE field elements):

    replica_id, comm_d, comm_r, comm_c, comm_r_last   [32]
    challenges      uint64[C]
    parents         uint64[C, 14]
    data_leaves     [C, 32]              data_paths      [C, Dd, 32]
    parent_columns  [C, 14, L, 32]       parent_paths    per level [C, 14, a - 1, 32]
    columns         [C, L, 32]           column_paths    per level [C, a - 1, 32]   (c_x)
    replica_leaves  [C, 32]              replica_paths   per level [C, a - 1, 32]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .challenges import public_inputs


@dataclass
class PorepPartitionProof:
    replica_id: np.ndarray
    comm_d: np.ndarray
    comm_r: np.ndarray
    comm_c: np.ndarray
    comm_r_last: np.ndarray
    challenges: np.ndarray
    parents: np.ndarray
    data_leaves: np.ndarray
    data_paths: np.ndarray
    parent_columns: np.ndarray
    parent_paths: tuple[np.ndarray, ...]
    columns: np.ndarray
    column_paths: tuple[np.ndarray, ...]
    replica_leaves: np.ndarray
    replica_paths: tuple[np.ndarray, ...]

    @property
    def drg_parents(self) -> np.ndarray:
        return self.parents[:, :6]

    @property
    def exp_parents(self) -> np.ndarray:
        return self.parents[:, 6:]

    def public_inputs(self) -> list[int]:
        """generate_public_inputs' values, as ints."""
        def val(b):
            return int.from_bytes(bytes(np.asarray(b, dtype=np.uint8)), "little")

        return public_inputs(val(self.replica_id), val(self.comm_d), val(self.comm_r), self.challenges,
                             self.drg_parents, self.exp_parents)
