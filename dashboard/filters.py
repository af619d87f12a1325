"""The audit log's filters (django-filter): action, member, dates."""

import django_filters
from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.models import Action, AuditEntry


class AuditFilter(django_filters.FilterSet):
    action = django_filters.ChoiceFilter(label=_("Action"), choices=Action.choices)
    user = django_filters.CharFilter(
        label=_("Member (e-mail)"), field_name="email", lookup_expr="icontains"
    )
    date_from = django_filters.DateFilter(
        label=_("From"),
        field_name="created_at",
        lookup_expr="date__gte",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    date_to = django_filters.DateFilter(
        label=_("To"),
        field_name="created_at",
        lookup_expr="date__lte",
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    class Meta:
        model = AuditEntry
        fields = ["action", "user", "date_from", "date_to"]
