"""Building checkout sessions for tests, through the same service the API uses."""

from checkout import services


def make_session(merchant, **fields):
    values = {
        "livemode": False,
        "amount": 250000,
        "currency": "CDF",
        "success_url": "https://shop.example.cd/merci?order=42",
        "cancel_url": "https://shop.example.cd/panier",
        **fields,
    }
    return services.session_create(merchant=merchant, **values)
