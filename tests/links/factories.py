"""Payment links made as the API makes them (links.services)."""

from checkout import services as checkout
from links import services
from links.models import PaymentLink
from payments.models import Charge
from payments.providers.base import ProviderOutcome
from payments.services import charges


def make_link(merchant, *, livemode: bool = False, **fields) -> PaymentLink:
    values = {"currency": "CDF", "description": "Sac de riz 25 kg", "amount": 250000, **fields}
    if values.get("custom_amount"):
        values.pop("amount", None)
    return services.link_create(merchant=merchant, livemode=livemode, **values)


def page_path(link: PaymentLink) -> str:
    return f"/pay/{link.slug}"


def pay_session(session, *, phone: str = "+243812345678", locale: str = "fr", **outcome):
    """The session's customer pays by mobile money (sandbox Vodacom M-Pesa) on a page in
    `locale`, and the operator reports the payment made: the charge as it then stands."""
    charge = checkout.session_attempt_create(
        session_id=session.id,
        payment_method="mobile_money",
        phone=phone,
        network="VODACOM_MPESA",
        locale=locale,
    )
    charges.charge_apply_outcome(
        charge_id=charge.id, outcome=ProviderOutcome(**{"status": "succeeded", **outcome})
    )
    return Charge.objects.get(pk=charge.id)
