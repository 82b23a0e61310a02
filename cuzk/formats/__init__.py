"""Every byte layout at the project's edges (docs/design.md sections 1 and 5).

bellperson: `.params`, `.vk` and 192-byte proofs (bellperson.py); a job's
proof bytes per curve (proof_bytes.py). snarkjs: `.zkey` proving keys
(zkey.py reads them, zkey_write.py writes them, zkey_setup.py makes a fresh
one in snarkjs's conventions; snarkjs_domain.py for its domain order), proof.json /
public.json / verification_key.json (snarkjs_json.py, its point coordinates
in json_coords.py). circom: `.r1cs` (circom_r1cs.py) and `.wtns` (wtns.py).
The iden3 section container of `.zkey`, `.ptau`, `.r1cs` and `.wtns` is read
by one scanner (iden3_sections.py). Filecoin's request JSON and verifying keys: filecoin/.
"""
