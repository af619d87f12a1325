"""Amounts as people read them: two decimals for staff, whole amounts without them for customers."""

import pytest
from django.utils import translation

from core.money import format_amount, format_customer_amount


@pytest.mark.parametrize(
    "amount, currency, language, staff, customer",
    [
        (250000, "CDF", "fr", "2 500,00 CDF", "2 500 CDF"),
        (250000, "CDF", "en", "2,500.00 CDF", "2,500 CDF"),
        (2000, "USD", "fr", "20,00 USD", "20 USD"),
        (1999, "USD", "fr", "19,99 USD", "19,99 USD"),
        (1990, "USD", "en", "19.90 USD", "19.90 USD"),
        (5, "USD", "en", "0.05 USD", "0.05 USD"),
        (123456789900, "CDF", "fr", "1 234 567 899,00 CDF", "1 234 567 899 CDF"),
        (-250000, "CDF", "fr", "-2 500,00 CDF", "-2 500 CDF"),
    ],
)
def test_staff_and_customer_formats(amount, currency, language, staff, customer):
    assert format_amount(amount, currency, language) == staff
    assert format_customer_amount(amount, currency, language) == customer


def test_staff_pages_use_the_active_languages_format_with_two_decimals():
    with translation.override("fr"):
        assert format_amount(250000, "CDF") == "2\xa0500,00 CDF"
        assert format_amount(-1250, "USD") == "-12,50 USD"
    with translation.override("en"):
        assert format_amount(250000, "CDF") == "2,500.00 CDF"
