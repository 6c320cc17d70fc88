"""The stream (H3) and the difficulty table (H1, H2)."""

from __future__ import annotations

import pytest

from harness.games.hourloom.difficulty import chamber_spec
from harness.games.hourloom.rng import GAMMA, MASK64, Stream, from_hex, to_hex


def test_splitmix64_matches_the_reference_outputs():
    stream = Stream(0)
    assert [stream.next() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    assert stream.word == 3 * GAMMA & MASK64


def test_rng_state_is_16_lowercase_hex_digits():
    assert to_hex(0) == "0000000000000000"
    assert to_hex(0xE220A8397B1DCDAF) == "e220a8397b1dcdaf"
    assert from_hex("e220a8397b1dcdaf") == 0xE220A8397B1DCDAF


def test_below_rejects_outputs_that_would_bias_the_result():
    # For n = 2**63 + 1 every output at or above n is rejected: seed 0's first output is,
    # its second is not.
    n = 2**63 + 1
    stream = Stream(0)
    assert stream.below(n) == 0x6E789E6AA1B965F4
    assert stream.word == 2 * GAMMA & MASK64  # two outputs used
    small = Stream(0)
    assert small.below(10) == 0xE220A8397B1DCDAF % 10
    assert small.word == GAMMA  # one output when it is accepted
    with pytest.raises(ValueError, match="n >= 1"):
        Stream(0).below(0)


def test_pick_and_shuffle_use_below_in_the_rules_order():
    seq = ["a", "b", "c", "d", "e"]
    mine = Stream(42)
    shuffled = mine.shuffle(seq)
    ref = Stream(42)
    expect = list(seq)
    for i in range(len(expect) - 1, 0, -1):  # Fisher-Yates from the last index down
        j = ref.below(i + 1)
        expect[i], expect[j] = expect[j], expect[i]
    assert shuffled == expect
    assert sorted(shuffled) == seq
    assert mine.word == ref.word
    assert Stream(7).pick(seq) == seq[Stream(7).below(5)]


@pytest.mark.parametrize(
    ("n", "size", "laps", "gates", "two", "flux", "sparks", "pct"),
    [
        (1, 7, 3, 1, 0, 0, 3, 100),
        (3, 8, 4, 2, 0, 2, 3, 150),
        (6, 9, 5, 4, 2, 5, 4, 225),
        (10, 9, 6, 5, 3, 8, 6, 325),
        (15, 9, 6, 5, 3, 8, 6, 400),
    ],
)
def test_the_rules_sample_rows(n, size, laps, gates, two, flux, sparks, pct):
    spec = chamber_spec(n)
    assert (spec.size, spec.laps, spec.gates, spec.two_plate_gates) == (size, laps, gates, two)
    assert (spec.flux, spec.sparks, spec.multiplier_pct) == (flux, sparks, pct)


def test_every_value_grows_to_a_ceiling_and_sits_there():
    specs = [chamber_spec(n) for n in range(1, 200)]
    fields = ("size", "laps", "gates", "two_plate_gates", "flux", "sparks", "multiplier_pct")
    for name in fields:
        values = [getattr(s, name) for s in specs]
        assert values == sorted(values), name
    flat_from = {"size": 6, "laps": 9, "flux": 9, "gates": 8, "two_plate_gates": 8,
                 "sparks": 10, "multiplier_pct": 13}  # fmt: skip
    for name, n in flat_from.items():
        assert getattr(chamber_spec(n - 1), name) < getattr(chamber_spec(n), name), name
        assert {getattr(s, name) for s in specs[n - 1 :]} == {getattr(chamber_spec(n), name)}
    with pytest.raises(ValueError, match="from 1"):
        chamber_spec(0)
