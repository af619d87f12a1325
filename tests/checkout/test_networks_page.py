"""The hosted page and the networks: it reads the number as the API's prediction does, offers only
the networks that can take the payment now (closed ones and those whose limits exclude the
amount are named instead), and the waiting page names the operator the prompt went to."""

import re

import pytest

from checkout import services
from core.errors import NetworkUnavailable
from payments.models import Charge
from payments.services.networks import network_set_closed
from tests.factories import close_network, make_session

pytestmark = pytest.mark.django_db


def operator_options(html: str) -> list[str]:
    select = re.search(r'<select name="network"[^>]*>(.*?)</select>', html, re.S).group(1)
    return re.findall(r'<option value="(\w+)"', select)


def offered_badges(html: str) -> list[str]:
    """The operators the form lists, as their badges (templates/checkout/_operator_badge.html)."""
    listed = re.search(r'<ul class="networks"[^>]*>(.*?)</ul>', html, re.S).group(1)
    return re.findall(r'<span class="operator operator-\w+">([^<]+)</span>', listed)


def mobile_money_form(html: str) -> str:
    found = re.search(r'<form[^>]*data-method="mobile_money"[^>]*>(.*?)</form>', html, re.S)
    return found.group(1) if found else ""


@pytest.mark.parametrize(
    "typed", ["0812 345 678", "+243 81 234 5678", "243812345678", "0812-345-678", "812345678"]
)
def test_the_page_reads_the_number_as_the_api_does(client, merchant, typed):
    session = make_session(merchant)
    response = client.post(f"/pay/{session.id}/mobile-money", {"phone": typed, "network": "auto"})
    assert response.status_code == 303
    charge = Charge.objects.get()
    assert (charge.phone, charge.network) == ("+243812345678", "VODACOM_MPESA")


def test_every_network_is_offered_while_all_are_open(client, merchant):
    html = client.get(f"/pay/{make_session(merchant).id}").text
    assert operator_options(html) == ["auto", "AIRTEL_MONEY", "VODACOM_MPESA", "ORANGE_MONEY"]
    assert offered_badges(html) == ["Airtel Money", "Vodacom M-Pesa", "Orange Money"]
    assert "data-network-unavailable" not in html


def test_a_closed_network_is_named_not_offered(client, merchant):
    close_network("ORANGE_MONEY")
    close_network("AIRTEL_MONEY", livemode=True)  # the other mode's state changes nothing here
    html = client.get(f"/pay/{make_session(merchant).id}").text
    form = mobile_money_form(html)
    assert operator_options(form) == ["auto", "AIRTEL_MONEY", "VODACOM_MPESA"]
    assert offered_badges(form) == ["Airtel Money", "Vodacom M-Pesa"]
    assert re.search(
        r'data-network-unavailable="ORANGE_MONEY">Orange Money est indisponible pour le moment.<',
        form,
    )


def test_a_typed_number_of_a_closed_network_is_refused_with_the_reason(client, merchant):
    session = make_session(merchant)
    close_network("ORANGE_MONEY")
    response = client.post(
        f"/pay/{session.id}/mobile-money", {"phone": "0851 234 567", "network": "auto"}
    )
    assert response.status_code == 400
    assert (
        "Orange Money est indisponible pour le moment. Payez avec un numéro d&#x27;un autre "
        "opérateur." in response.text
    )
    assert 'id="phone-error"' in response.text and 'aria-invalid="true"' in response.text
    assert not Charge.objects.exists()
    # A stale page that still offered it: the operator chosen is refused the same way.
    chosen = client.post(
        f"/pay/{session.id}/mobile-money?lang=en",
        {"phone": "0851234567", "network": "ORANGE_MONEY"},
    )
    assert chosen.status_code == 400
    assert 'id="network-error"' in chosen.text
    assert "Orange Money is unavailable at the moment. Pay with a number of" in chosen.text
    network_set_closed(network="ORANGE_MONEY", livemode=False, closed=False)
    again = client.post(f"/pay/{session.id}/mobile-money", {"phone": "0851234567"})
    assert again.status_code == 303 and Charge.objects.get().network == "ORANGE_MONEY"


def test_a_network_closed_after_the_form_was_read_is_refused_by_the_service(merchant):
    """The form's check and the charge are two moments: the attempt's service has the last
    word, and the page shows its message like any refused attempt."""
    session = make_session(merchant)
    close_network("VODACOM_MPESA")
    with pytest.raises(NetworkUnavailable) as refused:
        services.session_attempt_create(
            session_id=session.id,
            payment_method="mobile_money",
            phone="+243812345678",
            network="VODACOM_MPESA",
        )
    assert refused.value.status == 503 and refused.value.code == "network_unavailable"
    assert not Charge.objects.exists()


def test_with_every_network_closed_the_page_says_so_and_offers_card_alone(client, merchant):
    for network in ("AIRTEL_MONEY", "VODACOM_MPESA", "ORANGE_MONEY"):
        close_network(network)
    usd = client.get(f"/pay/{make_session(merchant, currency='USD', amount=2000).id}").text
    assert 'data-method="mobile_money"' not in usd and 'data-method="card"' in usd
    assert 'data-method-unavailable="mobile_money"' in usd
    assert "Le paiement mobile money est indisponible pour le moment." in usd
    assert usd.count("data-network-unavailable=") == 3
    cdf = client.get(f"/pay/{make_session(merchant).id}").text
    assert "<form" not in cdf
    assert 'data-action="cancel"' in cdf


def test_a_network_whose_limits_exclude_the_amount_is_named_not_offered(client, merchant, settings):
    settings.NETWORK_LIMITS = {
        **settings.NETWORK_LIMITS,
        "AIRTEL_MONEY": {"CDF": (10_000, 100_000), "USD": (100, 250_000)},
    }
    session = make_session(merchant, amount=250_000)
    html = client.get(f"/pay/{session.id}").text
    assert operator_options(html) == ["auto", "VODACOM_MPESA", "ORANGE_MONEY"]
    assert (
        'data-network-unavailable="AIRTEL_MONEY">Airtel Money n&#x27;accepte que les paiements '
        "de 100 CDF à 1 000 CDF.<" in html
    )
    response = client.post(f"/pay/{session.id}/mobile-money", {"phone": "0971234567"})
    assert response.status_code == 400 and not Charge.objects.exists()
    assert "Payez avec un numéro d&#x27;un autre opérateur." in response.text


@pytest.mark.parametrize(
    "phone, label",
    [("0812345678", "Vodacom M-Pesa"), ("0971234567", "Airtel Money"), ("0851234567", "Orange")],
)
def test_the_waiting_page_names_the_operator_the_prompt_went_to(client, merchant, phone, label):
    session = make_session(merchant)
    response = client.post(f"/pay/{session.id}/mobile-money", {"phone": phone})
    waiting = client.get(response["Location"]).text
    charge = Charge.objects.get()
    assert f'<p data-network="{charge.network}">{label}' in waiting
    # …and its badge, in the operator's colours, above the text.
    assert f'<span class="operator operator-{charge.network.lower()}">' in waiting
    assert (
        f'a envoyé une demande de paiement au <strong class="nowrap">{charge.phone}</strong>'
        in waiting
    )
    english = client.get(response["Location"] + "&lang=en").text
    assert f'sent a payment prompt to <strong class="nowrap">{charge.phone}</strong>' in english
