"""Which members of a duplicate component stay and where the others go (assign.py)."""

from __future__ import annotations

import numpy as np

from corpus_pipeline.dedup.assign import assign_members, minhash_likeness, simhash_likeness

PERMUTATIONS = 100


def _edited(base: np.ndarray, positions: range, salt: int) -> bytes:
    """`base` with `positions` given values no other signature holds."""
    copy = base.copy()
    copy[list(positions)] = salt * 1_000 + np.arange(len(positions))
    return copy.astype("<u4").tobytes()


def _signatures() -> dict[str, bytes]:
    """A page s and three copies: k shares 72 of 100 values with s, c 84, t 90 with c (74 with s,
    50 with k); k and c 56."""
    base = np.arange(10_000_000, 10_000_000 + PERMUTATIONS, dtype=np.uint32)
    c = np.frombuffer(_edited(base, range(72, 88), salt=2), dtype="<u4")
    return {
        "k": _edited(base, range(0, 28), salt=1),
        "s": base.astype("<u4").tobytes(),
        "c": c.tobytes(),
        "t": _edited(c, range(0, 10), salt=3),
    }


def _assigned(ordered: list[str]) -> dict[str, str]:
    likeness = minhash_likeness(0.7)
    values = {doc_id: likeness.value(raw) for doc_id, raw in _signatures().items()}
    return dict(assign_members(ordered, values, likeness))


def test_a_dropped_page_goes_to_the_kept_copy_it_is_most_like():
    # k comes first in the keep order and stays; c is not like k (0.56) and stays too; s is like
    # both (0.72, 0.84) and goes to c, so s and its close copy c end in one cluster.
    assert _assigned(["k", "c", "s"]) == {"s": "c"}
    # Dropped before c was kept, s still goes to the kept member it is most like.
    assert _assigned(["k", "s", "c"]) == {"s": "c"}


def test_a_member_like_a_later_kept_member_is_dropped_for_it():
    # t is not like k (0.5), but like c (0.9): both stayed under the rule of one kept member a component.
    assert _assigned(["k", "c", "s", "t"]) == {"s": "c", "t": "c"}


def test_the_first_member_stays_and_a_member_like_no_kept_one_stays():
    assert _assigned(["c", "k"]) == {}
    # s first: every copy is like s (t 0.74) and goes to it, dropped documents take none.
    assert _assigned(["s", "k", "c", "t"]) == {"k": "s", "c": "s", "t": "s"}


def test_simhash_members_within_max_distance_and_ties_go_to_the_earlier_kept():
    likeness = simhash_likeness(3)
    values = {"a": 0b0000, "b": 0b1111_0000, "c": 0b0011, "d": 0b1111_0011}
    # b is 4 bits from a: kept; c 2 from a: dropped for a; d 6 from a, 2 from b: dropped for b.
    assert dict(assign_members(["a", "b", "c", "d"], values, likeness)) == {"c": "a", "d": "b"}
    # Equally near two kept members (2 bits each): the earlier in the keep order.
    values = {"a": 0b0000, "b": 0b1111, "c": 0b0011}
    assert dict(assign_members(["a", "b", "c"], values, likeness)) == {"c": "a"}
