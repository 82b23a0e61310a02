"""Circuit sizes written from the circuits' definitions, for tests that compare them with what the
gadgets and templates actually record. Nothing here calls cuzk: each number follows from the
algorithm (FIPS 180-4 SHA-256, Poseidon with the paper's round numbers), the gadget costs the
gadget modules document, and the composition a template's or circuit's docstring describes.

Gadget costs (cuzk/gadgets/boolean.py, uint32.py, poseidon/gadget.py):
    a new boolean bit          1 constraint (booleanity)
    XOR of two variable bits   1; a constant operand folds (no constraint)
    Ch (a ? b : c)             1;  Maj  2 (Ch of an XOR)
    addition of words          one booleanity constraint per bit of the largest possible sum, plus one
                               packing constraint
    Poseidon S-box x^5         3 (x^2, x^4, x^5), 3 aux; the capacity element's first-round S-box is
                               constant; the hash output is allocated (1 constraint, 1 aux)
"""

from __future__ import annotations

WORD = 2**32 - 1
NODE_BITS = 254  # a Filecoin node: a 256-bit value with its two top bits dropped (fits Fr)

# Poseidon (x^5, 128-bit security, ~255-bit fields): full rounds, and partial rounds by width t,
# from the Poseidon paper's round-number table as circomlib publishes it (N_ROUNDS_P)
POSEIDON_FULL_ROUNDS = 8
POSEIDON_PARTIAL_ROUNDS = {3: 57, 5: 60, 9: 63, 12: 60}


def word_addition(variable_words: int, constant: int = 0) -> int:
    return (variable_words * WORD + constant).bit_length() + 1


def sha256_compression() -> int:
    """One compression, every state and block bit variable.

    Schedule, t = 16..63: sigma0 = rotr7 ^ rotr18 ^ shr3 (two XORs a bit; the 3 top bits of shr3 are
    constant zeros: one), sigma1 = rotr17 ^ rotr19 ^ shr10 (likewise, 10 bits), W_t = sigma1 + W_t-7 +
    sigma0 + W_t-16. Rounds: Sigma1, Sigma0 (two XORs a bit), Ch, Maj, e' = d + h + Sigma1 + Ch + W_t + K_t,
    a' = h + Sigma1 + Ch + W_t + Sigma0 + Maj + K_t. Then 8 additions into the state."""
    k_lo, k_hi = word_addition(5, 0), word_addition(5, WORD)
    assert k_lo == k_hi  # the same for every round constant K_t < 2^32
    assert word_addition(6, 0) == word_addition(6, WORD)
    schedule = 48 * ((29 * 2 + 3) + (22 * 2 + 10) + word_addition(4))
    rounds = 64 * (2 * 32 + 2 * 32 + 32 + 2 * 32 + word_addition(5) + word_addition(6))
    return schedule + rounds + 8 * word_addition(2)


def poseidon(arity: int) -> int:
    """Constraints (= aux variables) of one Poseidon hash of `arity` variable elements."""
    t = arity + 1
    sboxes = POSEIDON_FULL_ROUNDS * t + POSEIDON_PARTIAL_ROUNDS[t] - 1  # the capacity's first S-box is constant
    return 3 * sboxes + 1


def insert_selections(arity: int) -> int:
    """Selections that place a node among arity-1 siblings by log2(arity) position bits: each of the
    `arity` slots is a binary mux tree over the candidates; equal candidates fold, and outside the
    subtree holding the node's position both halves are the same sibling, so each slot costs one
    selection per bit."""
    return arity * (arity.bit_length() - 1)


def poseidon_level(arity: int = 8) -> int:
    """One level of a Poseidon Merkle path: the selections, then the hash (siblings are free aux)."""
    return insert_selections(arity) + poseidon(arity)


def decompose(bits: int) -> int:
    """`bits` boolean bits and one packing constraint equal to the target."""
    return bits + 1
