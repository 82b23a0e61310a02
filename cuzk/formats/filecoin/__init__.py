"""Byte layouts of the Filecoin payloads Curio sends: bincode (`bincode`) and the
PoSt vanilla proofs built from it (`post_vanilla`)."""
