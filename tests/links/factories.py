"""Payment links made as the API makes them (links.services)."""

from links import services
from links.models import PaymentLink


def make_link(merchant, *, livemode: bool = False, **fields) -> PaymentLink:
    values = {"currency": "CDF", "description": "Sac de riz 25 kg", "amount": 250000, **fields}
    if values.get("custom_amount"):
        values.pop("amount", None)
    return services.link_create(merchant=merchant, livemode=livemode, **values)


def page_path(link: PaymentLink) -> str:
    return f"/pay/{link.slug}"
