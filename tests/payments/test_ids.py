"""Public identifiers and API keys: a prefix and random characters from [A-Za-z0-9], each one as
likely as any other."""

import re
from collections import Counter

from core import ids


def test_an_id_is_its_prefix_and_24_characters_of_the_alphabet():
    for make, prefix in ((ids.charge_id, "ch"), (ids.request_id, "req"), (ids.event_id, "evt")):
        assert re.fullmatch(rf"{prefix}_[A-Za-z0-9]{{24}}", make())
    assert len({ids.charge_id() for _ in range(1000)}) == 1000
    assert [len(ids.random_token(n)) for n in (0, 1, 32, 100)] == [0, 1, 32, 100]


def test_every_character_is_as_likely_as_any_other():
    counts = Counter("".join(ids.random_token(62) for _ in range(2000)))  # 2,000 of each expected
    assert set(counts) == set(ids.ALPHABET)
    # More than 5 standard deviations (about 44) either way: never by chance. Bytes taken modulo
    # 62 with none dropped would give 8 characters about 2,420 each.
    assert all(1750 < count < 2250 for count in counts.values())
