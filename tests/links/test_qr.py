"""The link's QR codes (/pay/{slug}/qr.svg and .png) encode its url, and may be cached."""

import pytest
import zxingcpp
from django.test import Client

from tests.links.factories import make_link
from tests.links.png import greyscale

pytestmark = pytest.mark.django_db


def test_png_decodes_back_to_the_links_url(api, merchant, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.cd"
    body = api.post(
        "/v1/payment_links",
        {"amount": 250000, "currency": "CDF", "description": "Sac de riz"},
        format="json",
    ).json()
    png = Client().get(
        body["qr_code_url"].removeprefix("https://pay.example.cd").replace(".svg", ".png")
    )
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    (decoded,) = zxingcpp.read_barcodes(greyscale(png.content))
    assert decoded.format == zxingcpp.BarcodeFormat.QRCode
    assert decoded.text == body["url"]


def test_svg_is_an_svg_of_the_same_code(merchant):
    link = make_link(merchant)
    response = Client().get(f"/pay/{link.slug}/qr.svg")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response.content.lstrip().startswith(b"<?xml") and b"<svg" in response.content


@pytest.mark.parametrize("kind", ["svg", "png"])
def test_qr_codes_are_cacheable(merchant, kind):
    link = make_link(merchant)
    first = Client().get(f"/pay/{link.slug}/qr.{kind}")
    assert "max-age=86400" in first["Cache-Control"] and "public" in first["Cache-Control"]
    etag = first["ETag"]
    assert etag.startswith('"')
    again = Client().get(f"/pay/{link.slug}/qr.{kind}", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    other = make_link(merchant)
    assert Client().get(f"/pay/{other.slug}/qr.{kind}")["ETag"] != etag


def test_a_head_request_is_answered_like_a_get(merchant):
    link = make_link(merchant)
    for kind in ("svg", "png"):
        head = Client().head(f"/pay/{link.slug}/qr.{kind}")
        assert head.status_code == 200 and head["ETag"]
    assert Client().post(f"/pay/{link.slug}/qr.png").status_code == 405
