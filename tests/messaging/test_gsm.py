"""GSM 03.38: which characters a single 160-septet message takes, and which turn it into UCS-2."""

import pytest

from messaging import gsm


@pytest.mark.parametrize("letter", ["é", "è", "ù", "à", "É", "Ç", "ì", "ò", "ä", "ñ"])
def test_letters_of_the_basic_table_stay_gsm7(letter):
    text = f"Re{letter}u"
    assert gsm.encoding(text) == gsm.GSM7
    assert gsm.length(text) == 4


@pytest.mark.parametrize("letter", ["ê", "ç", "â", "î", "ô", "û", "ë", "ï", "œ", "À", "È"])
def test_other_french_letters_need_ucs2(letter):
    text = f"Re{letter}u"
    assert gsm.encoding(text) == gsm.UCS2
    assert gsm.length(text) == 4


def test_extension_characters_take_two_septets():
    assert gsm.encoding("10 € [ok]") == gsm.GSM7
    assert gsm.length("10 € [ok]") == 12  # 9 characters, three of them escaped


def test_single_message_limits():
    assert gsm.fits_one("a" * 160) and not gsm.fits_one("a" * 161)
    assert gsm.fits_one("€" * 80) and not gsm.fits_one("€" * 81)
    assert gsm.fits_one("ç" * 70) and not gsm.fits_one("ç" * 71)
    assert gsm.segments("a" * 161) == 2 and gsm.segments("a" * 307) == 3
    assert gsm.segments("ç" * 71) == 2 and gsm.segments("ç" * 135) == 3


def test_a_character_beyond_the_basic_plane_counts_two_units():
    assert gsm.length("Merci 🙂") == 8


def test_to_gsm7_keeps_what_it_can_and_drops_accents_it_must():
    assert gsm.to_gsm7("Reçu : payé à Kinshasa, fenêtre, œuvre") == (
        "Recu : payé à Kinshasa, fenetre, oeuvre"
    )
    assert gsm.is_gsm7(gsm.to_gsm7("Ça coûte 5 000 FC ✓"))
