"""`{% if membership|can:"refund" %}`: show a button only to the roles that may use it."""

from django import template

from core.money import format_amount
from dashboard.permissions import can as role_can

register = template.Library()


@register.filter
def can(membership, perm: str) -> bool:
    return role_can(membership, perm)


@register.simple_tag
def money(amount: int, currency: str) -> str:
    """`250000, "CDF"` → `2 500,00 CDF` in the page's language (core.money)."""
    return format_amount(amount, currency)
