"""File formats at the project's edges (DESIGN.md section 5).

snarkjs: `.zkey` proving keys (zkey.py, with snarkjs_domain.py for its
domain order), proof.json / public.json / verification_key.json
(snarkjs_json.py); the iden3 section container of `.zkey`, `.ptau` and
circom's `.r1cs`/`.wtns` (iden3_sections.py). bellperson: bellperson.py.
"""
