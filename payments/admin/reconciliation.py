"""Staff pages of reconciliation (contract §21): the operators' statements (loaded here or with
`manage.py reconcile`), each one's results, float and fees, and the open differences, which
staff holding payments.reconcile resolve with a note (who, when, why; also written to the
admin's history). Everything that changes something answers 403 without that permission."""

import csv

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission
from core.admin.addresses import PublicIdAdmin
from core.admin.readonly import ReadOnlyMixin
from core.money import format_amount
from payments.models import (
    CLOSED_OUTCOMES,
    Mode,
    ReconciliationOutcome,
    ReconciliationResult,
    Statement,
    StatementNetwork,
)
from payments.operator_statement import StatementInvalid
from payments.services import reconciliation
from payments.statement import spreadsheet_safe

PERMISSION = "payments.reconcile"


def _amount(value, currency) -> str:
    return "-" if value is None or not currency else format_amount(value, currency)


class LoadForm(forms.Form):
    network = forms.ChoiceField(label=_("Network"), choices=StatementNetwork.choices)
    mode = forms.ChoiceField(label=_("Mode (test or live)"), choices=Mode.choices)
    file = forms.FileField(
        label=_("Statement (CSV)"),
        help_text=_("The generic format, or the operator's export where it is supported."),
    )


class ResolveForm(forms.Form):
    note = forms.CharField(
        label=_("What was done, and why"),
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=2000,
    )


@admin.register(Statement)
class StatementAdmin(PublicIdAdmin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "network",
        "livemode",
        "period_from",
        "period_to",
        "line_count",
        "open_count",
        "loaded_at",
        "loaded_by",
    )
    list_filter = ("network", "livemode")
    search_fields = ("=id", "=file_hash")
    ordering = ("-loaded_at", "-id")
    fields = (
        "id",
        "network",
        "livemode",
        "file_name",
        "file_hash",
        "period_from",
        "period_to",
        "line_count",
        "results_display",
        "float_display",
        "fees_display",
        "loaded_at",
        "loaded_by",
    )
    readonly_fields = fields

    def get_urls(self):
        load = path(
            "load/",
            self.admin_site.admin_view(self.load_view),
            name="payments_statement_load",
        )
        return [load, *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        extra = {
            **(extra_context or {}),
            "load_url": reverse("admin:payments_statement_load")
            if request.user.has_perm(PERMISSION)
            else "",
        }
        return super().changelist_view(request, extra)

    def load_view(self, request):
        """Load a statement: reconciled at once; a file refused is said in words and nothing is
        recorded."""
        if not request.user.has_perm(PERMISSION):
            raise PermissionDenied
        form = LoadForm(request.POST or None, request.FILES or None)
        problems: list[str] = []
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                loaded = reconciliation.statement_load(
                    network=form.cleaned_data["network"],
                    livemode=form.cleaned_data["mode"] == Mode.LIVE,
                    content=upload.read(),
                    file_name=upload.name,
                    loaded_by=request.user.get_username(),
                )
            except StatementInvalid as exc:
                problems = exc.problems
            else:
                statement = loaded.statement
                if loaded.new:
                    self.log_addition(request, statement, [{"added": {}}])
                    self.message_user(
                        request,
                        gettext("Statement %(id)s loaded: %(open)s difference(s) left open.")
                        % {
                            "id": statement.id,
                            "open": reconciliation.open_results(statement).count(),
                        },
                        messages.SUCCESS,
                    )
                else:
                    self.message_user(
                        request,
                        gettext("This file was loaded before, as %(id)s: nothing changed.")
                        % {"id": statement.id},
                        messages.WARNING,
                    )
                return redirect("admin:payments_statement_change", statement.pk)
        return TemplateResponse(
            request,
            "admin/payments/statement/load.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": gettext("Load an operator statement"),
                "form": form,
                "problems": problems,
            },
        )

    @admin.display(description=_("Open differences"))
    def open_count(self, obj):
        return reconciliation.open_results(obj).count()

    @admin.display(description=_("Results"))
    def results_display(self, obj):
        summary = reconciliation.statement_summary(obj)
        url = reverse("admin:payments_reconciliationresult_changelist")
        return format_html(
            "<table><tbody>{}</tbody></table>",
            format_html_join(
                "",
                '<tr><td>{}</td><td><a href="{}?statement__id__exact={}&outcome__exact={}">{}</a>'
                "</td></tr>",
                (
                    (ReconciliationOutcome(key).label, url, obj.pk, key, count)
                    for key, count in summary["results"].items()
                ),
            ),
        )

    @admin.display(description=_("Float (collections − disbursements − operator fees)"))
    def float_display(self, obj):
        rows = reconciliation.statement_summary(obj)["float"]
        if not rows:
            return "-"
        return format_html(
            "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody>"
            "</table>",
            gettext("Currency"),
            gettext("Our books"),
            gettext("Operator's closing balance"),
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (
                        row["currency"],
                        _amount(row["expected"], row["currency"]),
                        _amount(row["reported"], row["currency"])
                        if row["reported"] is not None
                        else gettext("not stated in this format"),
                    )
                    for row in rows
                ),
            ),
        )

    @admin.display(description=_("Operator fees and our merchants' fees on the same lines"))
    def fees_display(self, obj):
        rows = reconciliation.fees_compared(obj)
        if not rows:
            return "-"
        return format_html(
            "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody>"
            "</table>",
            gettext("Currency"),
            gettext("Charged by the operator"),
            gettext("Paid by our merchants"),
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (
                        row["currency"],
                        _amount(row["operator_fees"], row["currency"]),
                        _amount(row["merchant_fees"], row["currency"]),
                    )
                    for row in rows
                ),
            ),
        )


class OpenFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [
            ("open", _("Open")),
            ("resolved", _("Resolved by staff")),
            ("closed", _("Nothing to do")),
        ]

    def queryset(self, request, queryset):
        if self.value() == "open":
            return queryset.exclude(outcome__in=CLOSED_OUTCOMES).filter(resolved_at__isnull=True)
        if self.value() == "resolved":
            return queryset.filter(resolved_at__isnull=False)
        if self.value() == "closed":
            return queryset.filter(outcome__in=CLOSED_OUTCOMES)
        return queryset


EXPORT_HEADER = (
    "statement",
    "network",
    "mode",
    "line",
    "operator_reference",
    "merchant_reference",
    "result",
    "object",
    "merchant",
    "currency",
    "our_amount",
    "statement_amount",
    "available_balance",
    "difference",
    "resolved_at",
    "resolved_by",
    "resolution_note",
)


class _Echo:
    def write(self, value):
        return value


@admin.register(ReconciliationResult)
class ReconciliationResultAdmin(ActionsByPermission, ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "statement_link",
        "line_number",
        "outcome",
        "object_id",
        "merchant_column",
        "amount_display",
        "balance_display",
        "needs_staff",
        "state",
        "resolved_by",
    )
    list_filter = (
        OpenFilter,
        "outcome",
        "needs_staff",
        "statement__network",
        "livemode",
        "statement",
    )
    search_fields = ("=object_id", "=statement__id", "=line__operator_reference")
    search_help_text = _("Our object's id, the statement's id or the operator's reference.")
    list_select_related = ("statement", "line", "merchant")
    ordering = ("-statement__loaded_at", "line__number", "id")
    fields = (
        "statement_link",
        "line_display",
        "outcome",
        "object_id",
        "merchant_column",
        "amount_display",
        "our_status",
        "detail",
        "needs_staff",
        "balance_display",
        "created_at",
        "resolved_at",
        "resolved_by",
        "resolution_note",
    )
    readonly_fields = fields
    actions = ["resolve", "export_csv"]

    def has_reconcile_permission(self, request):
        return request.user.has_perm(PERMISSION)

    @admin.display(description=_("Statement"), ordering="statement")
    def statement_link(self, obj):
        url = reverse("admin:payments_statement_change", args=[obj.statement_id])
        return format_html('<a href="{}">{}</a>', url, obj.statement_id)

    @admin.display(description=_("Line"), ordering="line__number")
    def line_number(self, obj):
        return obj.line.number if obj.line else "-"

    @admin.display(description=_("Statement line"))
    def line_display(self, obj):
        line = obj.line
        if line is None:
            return gettext("None: no line names this object.")
        return format_html(
            "#{} {} {} {} {} {}",
            line.number,
            line.get_type_display(),
            line.operator_reference or "-",
            line.merchant_reference or "-",
            _amount(line.amount, line.currency),
            line.get_status_display(),
        )

    @admin.display(description=_("Merchant"))
    def merchant_column(self, obj):
        return obj.merchant.name if obj.merchant else "-"

    @admin.display(description=_("Our amount"))
    def amount_display(self, obj):
        return _amount(obj.amount, obj.currency)

    @admin.display(description=_("Merchant's available balance"))
    def balance_display(self, obj):
        return _amount(obj.available_balance, obj.currency)

    @admin.display(description=_("State"))
    def state(self, obj):
        if obj.resolved_at:
            return gettext("resolved")
        return gettext("open") if obj.is_open else gettext("nothing to do")

    @admin.action(
        description=_("Resolve the selected differences with a note"), permissions=["reconcile"]
    )
    def resolve(self, request, queryset):
        open_ones = list(
            queryset.exclude(outcome__in=CLOSED_OUTCOMES)
            .filter(resolved_at__isnull=True)
            .select_related("statement", "line", "merchant")
        )
        if not open_ones:
            self.message_user(
                request, gettext("None of the selected differences is open."), messages.INFO
            )
            return None
        form = ResolveForm(request.POST if request.POST.get("confirm") == "yes" else None)
        if form.is_valid():
            staff = request.user.get_username()
            done = 0
            for result in open_ones:
                try:
                    resolved = reconciliation.result_resolve(
                        result_id=result.pk, note=form.cleaned_data["note"], staff=staff
                    )
                except reconciliation.AlreadyResolved:
                    continue
                self.log_change(
                    request,
                    resolved,
                    [{"changed": {"fields": ["resolution_note"]}}],
                )
                done += 1
            self.message_user(
                request,
                gettext("%(count)s difference(s) resolved at %(at)s.")
                % {"count": done, "at": timezone.localtime().strftime("%Y-%m-%d %H:%M")},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(request.get_full_path())
        for result in open_ones:
            result.amount_text = _amount(result.amount, result.currency)
        return TemplateResponse(
            request,
            "admin/payments/reconciliationresult/resolve.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": gettext("Resolve differences"),
                "results": open_ones,
                "form": form,
                "action": "resolve",
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            },
        )

    # Amounts, merchants and their balances: for the staff who reconcile, not every viewer.
    @admin.action(description=_("Export the selected results as CSV"), permissions=["reconcile"])
    def export_csv(self, request, queryset):
        rows = queryset.select_related("statement", "line", "merchant").order_by(
            "statement__loaded_at", "statement_id", "line__number", "id"
        )
        writer = csv.writer(_Echo(), lineterminator="\r\n")

        def lines():
            yield "\ufeff" + writer.writerow(EXPORT_HEADER)
            for result in rows.iterator(chunk_size=2000):
                line = result.line
                yield writer.writerow(
                    [
                        result.statement_id,
                        result.statement.network,
                        result.statement.mode,
                        line.number if line else "",
                        spreadsheet_safe(line.operator_reference) if line else "",
                        spreadsheet_safe(line.merchant_reference) if line else "",
                        result.outcome,
                        result.object_id,
                        result.merchant_id or "",
                        result.currency,
                        "" if result.amount is None else result.amount,
                        line.amount if line else "",
                        "" if result.available_balance is None else result.available_balance,
                        spreadsheet_safe(result.detail),
                        result.resolved_at.isoformat() if result.resolved_at else "",
                        spreadsheet_safe(result.resolved_by),
                        spreadsheet_safe(result.resolution_note),
                    ]
                )

        response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="reconciliation.csv"'
        return response
