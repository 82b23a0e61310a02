"""How `cuzk circuit info` describes a sector proof's partition circuit: a title naming the
rust-fil-proofs circuit and its sizes, and one line for its trees (tree D binary sha254, the others
Poseidon over the sector shape's arities)."""

from __future__ import annotations


def describe(cfg, circuit: str, sizes: list[str], tree_d: str, poseidon_trees: str) -> tuple[str, list[str]]:
    """The title and lines of `cfg`'s partition: `circuit` rust-fil-proofs v28's name for it, `sizes`
    its counts, `tree_d` tree D's depth (and more), `poseidon_trees` the names of the Poseidon trees."""
    title = f"{cfg.name} partition (rust-fil-proofs v28 {circuit}, {', '.join(sizes)})"
    trees = (f"trees: D binary sha254, {tree_d}; {poseidon_trees} Poseidon, arities "
             f"{'-'.join(str(a) for a in cfg.arities)}")
    return title, [trees]
