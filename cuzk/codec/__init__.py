"""Generic byte codecs below the circuits: bincode (`bincode`, the serde bytes Rust writes), Filecoin's
commitment CIDs (`cid`) and a strict streaming JSON reader (`json_reader`). They know no proof kind:
the kinds' vanilla-proof layouts (cuzk.circuits.filecoin) are built from them."""
