"""The staff site's view of the dashboard's accounts: allauth's e-mail address admin, whose
"mark as verified" action needs the permission to change addresses (seeing is not changing);
and the queue of applications for live mode, decided and their documents read by staff holding
payments.review_activation (docs/operations/staff.md)."""

from datetime import UTC

from allauth.account.admin import EmailAddressAdmin
from allauth.account.models import EmailAddress
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache

from core.admin.addresses import PublicIdAdmin
from core.money import format_amount
from dashboard import activation, documents
from dashboard.models import ActivationApplication, ActivationStatus


class StaffEmailAddressAdmin(EmailAddressAdmin):
    @admin.action(
        description=_("Mark selected email addresses as verified"), permissions=["change"]
    )
    def make_verified(self, request, queryset) -> None:
        super().make_verified(request, queryset)


admin.site.unregister(EmailAddress)
admin.site.register(EmailAddress, StaffEmailAddressAdmin)


# --- Applications for live mode -----------------------------------------------------------------

REVIEW = "payments.review_activation"


class QueueFilter(admin.SimpleListFilter):
    """The queue first: the submitted applications, oldest first (the list's order), unless
    another status or all are asked for."""

    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [*ActivationStatus.choices, ("all", _("All"))]

    def value(self):
        return super().value() or ActivationStatus.SUBMITTED

    def queryset(self, request, queryset):
        return queryset if self.value() == "all" else queryset.filter(status=self.value())

    def choices(self, changelist):
        for lookup, title in self.lookup_choices:
            yield {
                "selected": self.value() == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("Decision"),
        widget=forms.RadioSelect,
        choices=[
            (ActivationStatus.APPROVED, _("Approve: live mode is turned on")),
            (ActivationStatus.CHANGES_REQUESTED, _("Ask for changes (say which)")),
            (ActivationStatus.REJECTED, _("Reject (say why)")),
        ],
    )
    note = forms.CharField(
        label=_("To the merchant"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        help_text=_("Mailed to the owner and shown in their dashboard, as written."),
    )


@admin.register(ActivationApplication)
class ActivationApplicationAdmin(PublicIdAdmin, admin.ModelAdmin):
    """The queue of applications for live mode. Anyone who may see applications sees their
    details; deciding, and seeing the documents, needs payments.review_activation. Nothing here
    is changed by hand: the decision page decides (dashboard.activation)."""

    list_display = ("business", "merchant_id", "status", "submitted", "review")
    list_filter = (QueueFilter,)
    list_select_related = ("merchant",)
    search_fields = ("=id", "=merchant__id", "legal_name", "merchant__name")
    actions = None
    fields = (
        "id",
        "merchant",
        "status",
        "review",
        "legal_name",
        "rccm_number",
        "id_nat",
        "nif",
        "address",
        "city",
        "activity",
        "website",
        "representative_name",
        "representative_phone",
        "volume",
        "settlement_account",
        "decision_note",
        "language",
        "submitted_at",
        "submitted_by",
        "decided_at",
        "decided_by",
    )
    readonly_fields = ("review", "volume")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) or request.user.has_perm(REVIEW)

    def has_module_permission(self, request):
        return super().has_module_permission(request) or request.user.has_perm(REVIEW)

    @admin.display(description=_("business"), ordering="legal_name")
    def business(self, obj):
        return obj.legal_name or obj.merchant.name

    @admin.display(description=_("submitted (UTC)"), ordering="submitted_at")
    def submitted(self, obj):
        return f"{obj.submitted_at.astimezone(UTC):%Y-%m-%d %H:%M}" if obj.submitted_at else "-"

    @admin.display(description=_("expected monthly volume"))
    def volume(self, obj):
        if not obj.monthly_volume or not obj.monthly_volume_currency:
            return "-"
        return format_amount(obj.monthly_volume, obj.monthly_volume_currency)

    @admin.display(description=_("review"))
    def review(self, obj):
        url = reverse("admin:dashboard_activationapplication_review", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, gettext("Review"))

    def get_urls(self):
        own = [
            path(
                "<str:object_id>/review/",
                self.admin_site.admin_view(self.review_view),
                name="dashboard_activationapplication_review",
            ),
            # Not the admin's own guard, which sends whoever is not staff to sign in: a document
            # answers 403 to anyone but staff holding the permission.
            path(
                "<str:object_id>/documents/<str:document>/",
                never_cache(self.document_view),
                name="dashboard_activationapplication_document",
            ),
        ]
        return own + super().get_urls()  # before the admin's own "<id>/" addresses

    def review_view(self, request, object_id):
        """The application, its settlement account and its documents, and the decision."""
        if not request.user.has_perm(REVIEW):
            raise PermissionDenied
        application = get_object_or_404(
            ActivationApplication.objects.select_related("merchant", "settlement_account"),
            pk=object_id,
        )
        form = DecisionForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                activation.application_decide(
                    request,
                    application.pk,
                    decision=form.cleaned_data["decision"],
                    note=form.cleaned_data["note"],
                    staff=request.user,
                )
            except ValidationError as error:
                form.add_error(None, error)
            else:
                messages.success(
                    request,
                    gettext("Decision recorded; the owner is told by e-mail: %(business)s.")
                    % {"business": self.business(application)},
                )
                return redirect("admin:dashboard_activationapplication_changelist")
        rows = [
            (ActivationApplication._meta.get_field(name).verbose_name, getattr(application, name))
            for name in activation.BUSINESS
        ]
        rows.append((gettext("expected monthly volume"), self.volume(application)))
        return TemplateResponse(
            request,
            "admin/dashboard/activation_review.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": gettext("Review: %(business)s") % {"business": self.business(application)},
                "application": application,
                "rows": rows,
                "account": application.settlement_account,
                "documents": [
                    (
                        ActivationApplication._meta.get_field(name).verbose_name,
                        reverse(
                            "admin:dashboard_activationapplication_document",
                            args=[application.pk, name],
                        )
                        if getattr(application, name)
                        else "",
                    )
                    for name in ActivationApplication.DOCUMENTS
                ],
                "form": form,
                "waiting": application.status == ActivationStatus.SUBMITTED,
            },
        )

    def document_view(self, request, object_id, document):
        user = request.user
        if not (user.is_active and user.is_staff and user.has_perm(REVIEW)):
            raise PermissionDenied
        if document not in ActivationApplication.DOCUMENTS:
            raise Http404
        application = get_object_or_404(ActivationApplication, pk=object_id)
        field = getattr(application, document)
        if not field:
            raise Http404
        return documents.stream(field, download_name=f"{application.merchant_id}-{document}")
