"""Byte layouts of Filecoin's files that know no circuit: a request as JSON (`request_json`) and the
verifying keys rust-fil-proofs writes (`verifying_key`). The vanilla proofs' layouts live with their
kinds (cuzk.circuits.filecoin), the generic codecs in cuzk.codec."""
