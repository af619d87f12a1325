"""What the payments page lists: a merchant's charges of one mode narrowed by `q` and the
filters (django-filter), newest first.

`q` is read as what it looks like: a charge id (`ch_…`) is that charge; a phone number in any
usual form (`+243 81 234 5678`, `0812 345 678`, `243812345678`, read by payments.phones, the one
reading of typed numbers) is the charges of that number (or an operator reference written so);
anything else is an operator reference (exact) or, from three characters on, words of the
description. Each of these is read through an index (payments migration 0019), not by reading
every charge of the merchant."""

from datetime import datetime, time, timedelta

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from payments import phones
from payments.models import ChargeStatus, Network

CHARGE_ID_PREFIX = "ch_"
MAX_QUERY = 200
# Words of the description are looked for from this length on (a trigram index needs three).
MIN_WORDS = 3


def charge_search(queryset: QuerySet, q: str) -> QuerySet:
    """The charges of `queryset` that `q` names (see the module's docstring)."""
    q = q.strip()
    if not q:
        return queryset
    if q.startswith(CHARGE_ID_PREFIX) and " " not in q:
        return queryset.filter(pk=q)
    phone = phones.normalise(q)
    if phone is not None:
        return queryset.filter(Q(phone=phone) | Q(provider_reference=q))
    if len(q) < MIN_WORDS:  # too short for the trigram index: a reference only
        return queryset.filter(provider_reference=q)
    return queryset.filter(Q(provider_reference=q) | Q(description__icontains=q))


def date_bound(queryset: QuerySet, name: str, value, *, upper: bool) -> QuerySet:
    """Rows created from the day `value` on, or (upper) up to the end of that day, the days
    being the merchant's (the active time zone, as the page shows the times; the API's
    date_from and date_to are UTC days)."""
    if upper:
        try:
            value += timedelta(days=1)
        except OverflowError:  # 9999-12-31 has no next day: nothing is later
            return queryset
    moment = datetime.combine(value, time.min, tzinfo=timezone.get_current_timezone())
    return queryset.filter(**{"created_at__lt" if upper else "created_at__gte": moment})


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, **kwargs):
        super().__init__(format="%Y-%m-%d", **kwargs)


def date_range() -> tuple[django_filters.DateFilter, django_filters.DateFilter]:
    """A list's `date_from` and `date_to` filters (declared last in a FilterSet, so that they
    come after its other fields), read by DateBounds' methods."""
    return (
        django_filters.DateFilter(label=_("From"), method="since", widget=DateInput()),
        django_filters.DateFilter(label=_("To"), method="until", widget=DateInput()),
    )


class DateBounds:
    """`date_from` and `date_to` of a FilterSet, as the API's lists read them."""

    def since(self, queryset, name, value):
        return date_bound(queryset, name, value, upper=False)

    def until(self, queryset, name, value):
        return date_bound(queryset, name, value, upper=True)


class ChargeFilter(DateBounds, django_filters.FilterSet):
    """The payments page's query string: `q`, `status`, `network`, `date_from`, `date_to` (a
    date_to includes its whole day, UTC, as in the API's lists)."""

    q = django_filters.CharFilter(
        label=_("Search"),
        method="search",
        max_length=MAX_QUERY,
        widget=forms.TextInput(
            attrs={"type": "search", "placeholder": _("Payment id, phone, reference, description")}
        ),
    )
    status = django_filters.ChoiceFilter(
        label=_("Status"), choices=ChargeStatus.choices, empty_label=pgettext_lazy("filter", "All")
    )
    network = django_filters.ChoiceFilter(
        label=_("Network"), choices=Network.choices, empty_label=pgettext_lazy("filter", "All")
    )
    date_from, date_to = date_range()

    def search(self, queryset, name, value):
        return charge_search(queryset, value)
