"""Our parameters on the merchant's return URLs: theirs kept, ours set once."""

from core.links import with_query


def test_the_merchants_parameters_are_kept_and_ours_replaced_never_repeated():
    url = "https://shop.example.cd/retour?order=42&status=old&lang=fr#top"
    assert with_query(url, {"status": "succeeded", "transaction_id": "ch_1"}) == (
        "https://shop.example.cd/retour?order=42&lang=fr&status=succeeded&transaction_id=ch_1#top"
    )


def test_blank_parameters_of_the_merchant_survive():
    assert with_query("https://shop.example.cd/r?empty=", {"session_id": "cs_1"}) == (
        "https://shop.example.cd/r?empty=&session_id=cs_1"
    )
