"""Staff views of settlements and settlement accounts, read-only, and the bank settlements staff
pay by hand (docs/operations/staff.md#bank-settlements).

A live settlement to a bank account waits for staff: they export the pending ones as a bank
transfer file (one currency a file), which puts them in transit with the file's reference, hand
the file to the bank, then record the bank's answer on each: paid, with the bank's reference, by
another staff user than the one who exported it, or failed, with a reason the merchant reads
(amount and fee back in its balance). Each step goes through services.settlements, which keeps
who did it with the settlement's answers, as a payout's answers keep who settled it.

Full account numbers are in the files and shown only to staff who may send bank settlements
(payments.send_settlement); everyone else who may see these pages sees the last four characters.
"""

import re

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import quote
from django.core.exceptions import PermissionDenied
from django.db.models import Sum
from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission
from core.admin.addresses import PublicIdAdmin
from core.admin.display import fieldset_fields, json_block, nowrap, status_word
from core.admin.readonly import ReadOnlyMixin
from core.money import format_amount
from payments.admin.merchants import MerchantFilter, MerchantRowsMixin
from payments.bank_file import bank_file_name, bank_file_settlements, bank_file_text
from payments.models import (
    LedgerEntry,
    LedgerType,
    Settlement,
    SettlementAccount,
    SettlementAccountType,
    SettlementStatus,
)
from payments.services import settlements as settlement_services

SEND = "payments.send_settlement"
REFERENCE = re.compile(r"CONGOPAY [A-Z0-9]+")  # services.settlements._reference
MASK = "••••"


def sees_numbers(request) -> bool:
    """Whether the staff member may read full account numbers: those who send bank settlements,
    whose files carry them."""
    return request is not None and request.user.has_perm(SEND)


def account_number(account: SettlementAccount, *, full: bool) -> str:
    """A bank account's number or a wallet's phone: whole, or its last four characters."""
    bank = account.type == SettlementAccountType.BANK_ACCOUNT
    number = account.account_number if bank else account.phone
    return number if full else f"{MASK} {account.last4}"


def _swapped(names, request, swaps: dict[str, str]) -> list[str]:
    """The page's fields or columns, for staff who may read full numbers with those that show
    them (`swaps`: the masked one's name → the full one's)."""
    if not sees_numbers(request):
        return list(names)
    return [swaps.get(name, name) for name in names]


def _swapped_fieldsets(fieldsets, request, swaps: dict[str, str]) -> list:
    return [
        (title, {**group, "fields": _swapped(group["fields"], request, swaps)})
        for title, group in fieldsets
    ]


def _account_summary(account: SettlementAccount, *, full: bool) -> str:
    """One line of an account: its bank or network, its holder and its number."""
    where = account.bank_name or account.get_network_display()
    return format_html(
        "{} · {}<br>{}",
        where,
        account.account_holder,
        nowrap(account_number(account, full=full)),
    )


class AccountTypeFilter(admin.SimpleListFilter):
    title = _("account type")
    parameter_name = "account_type"

    def lookups(self, request, model_admin):
        return SettlementAccountType.choices

    def queryset(self, request, queryset):
        if self.value() in SettlementAccountType.values:
            return queryset.filter(account__type=self.value())
        return queryset


class BankWorkFilter(admin.SimpleListFilter):
    """The live bank settlements waiting for staff: for a file, or for the bank's answer."""

    title = _("bank transfers")
    parameter_name = "bank"

    def lookups(self, request, model_admin):
        return [
            ("to_export", _("Waiting for a bank transfer file")),
            ("at_bank", _("In a file, waiting for the bank's answer")),
        ]

    def queryset(self, request, queryset):
        if self.value() == "to_export":
            return queryset.filter(settlement_services.BANK_PENDING)
        if self.value() == "at_bank":
            return queryset.filter(settlement_services.BANK_IN_TRANSIT)
        return queryset


class AccountFilter(admin.SimpleListFilter):
    """One account's settlements (`?account=sa_…`), as the account's page links to them."""

    title = _("settlement account")
    parameter_name = "account"

    def lookups(self, request, model_admin):
        return [(self.value(), self.value())] if self.value() else []

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(account_id=self.value())
        return queryset


class BankAnswerForm(forms.Form):
    """The bank's answer on each settlement of a list: its reference for a payment, or the
    reason it failed, which the merchant reads."""

    def __init__(self, *args, settlements, paid: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.paid = paid
        for settlement in settlements:
            self.fields[self.name_of(settlement)] = forms.CharField(
                label=settlement.id,
                max_length=100 if paid else 500,
                strip=True,
                widget=forms.TextInput(attrs={"size": 24 if paid else 48}),
                error_messages={
                    "required": gettext("Give the bank's reference of this transfer.")
                    if paid
                    else gettext("Say in words why the bank did not pay it.")
                },
            )

    @staticmethod
    def name_of(settlement) -> str:
        return f"answer-{settlement.pk}"


@admin.register(Settlement)
class SettlementAdmin(
    PublicIdAdmin, MerchantRowsMixin, ActionsByPermission, ReadOnlyMixin, admin.ModelAdmin
):
    # The columns staff need first come first: the rest scroll on a narrow screen.
    list_display = (
        "id",
        "amount_display",
        "status_display",
        "account_column",
        "merchant_name",
        "mode",
        "created",
    )
    list_filter = (
        MerchantFilter,
        AccountFilter,
        BankWorkFilter,
        "status",
        "currency",
        "livemode",
        AccountTypeFilter,
        "method",
    )
    search_fields = ("=id", "=reference", "=bank_file", "=provider_reference", "=merchant__id")
    search_help_text = _(
        "Settlement id, reference, bank transfer file, bank or operator reference, or merchant "
        "id (exact)."
    )
    list_select_related = ("merchant", "account")
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "merchant",
                    "livemode",
                    "status",
                    "method",
                    "period",
                    "failure_code",
                    "failure_message",
                )
            },
        ),
        (_("Money"), {"fields": ("amount_display", "fee_display", "ledger_display")}),
        (_("Settlement account"), {"fields": ("account_masked",)}),
        (
            _("Bank or operator"),
            {
                "fields": (
                    "reference",
                    "bank_file",
                    "exported_by",
                    "answered_by_display",
                    "provider",
                    "provider_reference",
                    "provider_requested_at",
                    "arrival_estimate",
                    "provider_raw_display",
                )
            },
        ),
        (_("Times"), {"fields": ("created_at", "updated_at", "finalized_at")}),
    )
    # What staff who may send bank settlements see instead: the full number, the file's download.
    swaps = {"account_masked": "account_full", "bank_file": "bank_file_link"}
    readonly_fields = [*fieldset_fields(fieldsets), *swaps.values()]
    actions = ["export_bank_file", "mark_paid", "mark_failed"]

    def has_send_permission(self, request):
        return request.user.has_perm(SEND)

    def get_fieldsets(self, request, obj=None):
        return _swapped_fieldsets(super().get_fieldsets(request, obj), request, self.swaps)

    def get_search_results(self, request, queryset, search_term):
        # The reference as the merchant reads it on its statement ("CONGOPAY 0U6…"): one term,
        # though Django's search would take its two words apart.
        term = " ".join(search_term.split()).upper()
        if REFERENCE.fullmatch(term):
            return queryset.filter(reference=term), False
        return super().get_search_results(request, queryset, search_term)

    def get_urls(self):
        bank_file = path(
            "bank-files/<str:reference>/",
            self.admin_site.admin_view(self.bank_file_download),
            name="payments_settlement_bank_file",
        )
        return [bank_file, *super().get_urls()]  # before the admin's own "<id>/" addresses

    # --- Columns and fields ---------------------------------------------------------------------

    @admin.display(description=_("Amount"), ordering="amount")
    def amount_display(self, obj):
        return nowrap(format_amount(obj.amount, obj.currency))

    @admin.display(description=_("Fee"), ordering="fee")
    def fee_display(self, obj):
        return nowrap(format_amount(obj.fee, obj.currency))

    @admin.display(description=_("Status"), ordering="status")
    def status_display(self, obj):
        if obj.status == SettlementStatus.IN_TRANSIT and obj.bank_file:
            return format_html("{}<br><small>{}</small>", obj.get_status_display(), obj.bank_file)
        return obj.get_status_display()

    @admin.display(description=_("Settlement account"))
    def account_column(self, obj):
        account = obj.account
        return format_html(
            "{}<br><small>{}</small>",
            account.bank_name or account.get_network_display(),
            nowrap(account_number(account, full=False)),
        )

    def _account(self, obj, *, full: bool):
        account = obj.account
        url = reverse("admin:payments_settlementaccount_change", args=[quote(account.pk)])
        rows = [
            (gettext("Type"), account.get_type_display()),
            (gettext("Account holder"), account.account_holder),
        ]
        if account.type == SettlementAccountType.BANK_ACCOUNT:
            rows += [
                (gettext("Bank"), account.bank_name),
                (gettext("Account number"), account_number(account, full=full)),
                ("SWIFT/BIC", account.swift),
            ]
        else:
            rows += [
                (gettext("Network"), account.get_network_display()),
                (gettext("Phone"), account_number(account, full=full)),
            ]
        return format_html(
            '<a href="{}">{}</a><table class="balance"><tbody>{}</tbody></table>',
            url,
            account.pk,
            format_html_join("", '<tr><th scope="row">{}</th><td>{}</td></tr>', rows),
        )

    @admin.display(description=_("Settlement account"))
    def account_masked(self, obj):
        return self._account(obj, full=False)

    @admin.display(description=_("Settlement account"))
    def account_full(self, obj):
        return self._account(obj, full=True)

    @admin.display(description=_("Ledger rows"))
    def ledger_display(self, obj):
        """Its own rows (amount and fee reserved; given back if it failed) and, for an automatic
        one, the balance transactions it settled."""
        rows = LedgerEntry.objects.filter(
            type__in=[LedgerType.SETTLEMENT, LedgerType.SETTLEMENT_FAILURE], source=obj.pk
        ).order_by("created_at", "id")
        own = format_html_join(
            mark_safe("<br>"),
            '<a href="{}">{}</a> {} {} ({} {})',
            (
                (
                    reverse("admin:payments_ledgerentry_change", args=[quote(row.pk)]),
                    row.pk,
                    row.get_type_display(),
                    format_amount(row.amount, row.currency),
                    gettext("fee"),
                    format_amount(row.fee, row.currency),
                )
                for row in rows
            ),
        )
        settled = obj.entries.count()
        if not settled:
            return own or "-"
        url = reverse("admin:payments_ledgerentry_changelist") + f"?settlement={obj.pk}"
        words = ngettext(
            "%(count)d balance transaction settled",
            "%(count)d balance transactions settled",
            settled,
        ) % {"count": settled}
        return format_html('{}<br><a href="{}">{}</a>', own, url, words)

    @admin.display(description=_("Bank transfer file"))
    def bank_file_link(self, obj):
        """The file's reference and its download."""
        if not obj.bank_file:
            return "-"
        url = reverse("admin:payments_settlement_bank_file", args=[obj.bank_file])
        return format_html('<a href="{}">{}</a>', url, obj.bank_file)

    @admin.display(description=_("Bank's answer recorded by"))
    def answered_by_display(self, obj):
        """Who recorded the bank's answer (services.settlements keeps it with the answers)."""
        for answer in reversed(obj.provider_raw):
            for key in ("paid_by", "failed_by"):
                if isinstance(answer, dict) and key in answer:
                    return answer[key]
        return "-"

    @admin.display(description=_("Answers (latest last)"))
    def provider_raw_display(self, obj):
        if not obj.provider_raw:
            return "-"
        return json_block(obj.provider_raw)

    # --- The bank transfer file -----------------------------------------------------------------

    def _download(self, reference: str, settlements: list) -> HttpResponse:
        response = HttpResponse(
            bank_file_text(reference, settlements), content_type="text/csv; charset=utf-8"
        )
        name = bank_file_name(reference, settlements[0].currency)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        add_never_cache_headers(response)  # full account numbers: no copy kept on the way
        return response

    def bank_file_download(self, request, reference: str):
        """A file exported before, built again from its settlements."""
        if not self.has_send_permission(request):
            raise PermissionDenied
        settlements = list(bank_file_settlements(reference))
        if not settlements:
            raise Http404(gettext("No bank transfer file has this reference."))
        return self._download(reference, settlements)

    @admin.action(
        description=_("Export a bank transfer file of the selected settlements"),
        permissions=["send"],
    )
    def export_bank_file(self, request, queryset):
        chosen = queryset.filter(settlement_services.BANK_PENDING)
        currencies = sorted(set(chosen.values_list("currency", flat=True)))
        if not currencies:
            self.message_user(
                request,
                gettext(
                    "None of the selected settlements is a live bank settlement waiting for a "
                    "bank transfer file."
                ),
                messages.INFO,
            )
            return None
        if len(currencies) > 1:
            self.message_user(request, self._one_currency(currencies), messages.ERROR)
            return None
        settlement_ids = list(chosen.values_list("pk", flat=True))
        try:
            reference, exported = settlement_services.settlement_bank_export(
                settlement_ids=settlement_ids, staff=request.user.get_username()
            )
        except ValueError:  # a second currency among them meanwhile: nothing was exported
            self.message_user(request, self._one_currency(currencies), messages.ERROR)
            return None
        if not exported:
            self.message_user(
                request,
                gettext(
                    "Another staff member put the selected settlements in a bank transfer file "
                    "meanwhile: no file was made."
                ),
                messages.WARNING,
            )
            return None
        left_out = len(settlement_ids) - len(exported)
        if left_out:
            self.message_user(
                request,
                ngettext(
                    "%(count)d of the selected settlements went into another staff member's "
                    "file meanwhile: this file leaves it out.",
                    "%(count)d of the selected settlements went into another staff member's "
                    "file meanwhile: this file leaves them out.",
                    left_out,
                )
                % {"count": left_out},
                messages.WARNING,
            )
        total = sum(settlement.amount for settlement in exported)
        self.message_user(
            request,
            ngettext(
                "Bank transfer file %(reference)s: %(count)d settlement, %(total)s, now in "
                "transit until its bank's answer is recorded.",
                "Bank transfer file %(reference)s: %(count)d settlements, %(total)s, now in "
                "transit until the bank's answer is recorded on each.",
                len(exported),
            )
            % {
                "reference": reference,
                "count": len(exported),
                "total": format_amount(total, exported[0].currency),
            },
            messages.SUCCESS,
        )
        return self._download(reference, exported)

    @staticmethod
    def _one_currency(currencies) -> str:
        return gettext(
            "A bank transfer file is in one currency, and the selected settlements are in "
            "%(currencies)s: select those of one currency, then export again. Nothing was "
            "exported."
        ) % {"currencies": ", ".join(currencies)}

    # --- The bank's answer ----------------------------------------------------------------------

    def _answer(self, request, queryset, *, paid: bool, action: str):
        staff = request.user.get_username()
        waiting = list(
            queryset.filter(settlement_services.BANK_IN_TRANSIT)
            .select_related("merchant", "account")
            .order_by("created_at", "id")
        )
        if not waiting:
            self.message_user(
                request,
                gettext(
                    "None of the selected settlements is in a bank transfer file waiting for "
                    "the bank's answer."
                ),
                messages.INFO,
            )
            return None
        if paid:
            for settlement in waiting:
                if settlement.exported_by == staff:
                    self._same_staff_user(request, settlement)
            waiting = [settlement for settlement in waiting if settlement.exported_by != staff]
            if not waiting:
                return None
        confirmed = request.POST.get("confirm") == "yes"
        form = BankAnswerForm(request.POST if confirmed else None, settlements=waiting, paid=paid)
        if not form.is_valid():
            return self._answer_page(request, form, waiting, paid=paid, action=action)
        for settlement in waiting:
            answer = form.cleaned_data[form.name_of(settlement)]
            try:
                done = settlement_services.settlement_bank_settle(
                    settlement_id=settlement.pk,
                    paid=paid,
                    staff=staff,
                    bank_reference=answer if paid else "",
                    reason="" if paid else answer,
                )
            except settlement_services.SameStaffUser:
                self._same_staff_user(request, settlement)
                continue
            said = {"id": done.pk, "status": status_word(done)}
            wanted = SettlementStatus.PAID if paid else SettlementStatus.FAILED
            if done.status == wanted:
                self.message_user(
                    request, gettext("Settlement %(id)s: %(status)s.") % said, messages.SUCCESS
                )
            else:  # another staff member recorded the bank's answer meanwhile: it stands
                self.message_user(
                    request,
                    gettext("Settlement %(id)s: unchanged, already %(status)s.") % said,
                    messages.WARNING,
                )
        return None

    def _same_staff_user(self, request, settlement):
        self.message_user(
            request,
            gettext(
                "You exported settlement %(id)s in file %(file)s: another staff member must "
                "mark it paid, so that two people see every bank payment."
            )
            % {"id": settlement.pk, "file": settlement.bank_file},
            messages.ERROR,
        )

    def _answer_page(self, request, form, settlements, *, paid: bool, action: str):
        for settlement in settlements:
            settlement.amount_text = format_amount(settlement.amount, settlement.currency)
            settlement.account_text = _account_summary(settlement.account, full=True)
            settlement.answer = form[form.name_of(settlement)]
        changelist_url = reverse("admin:payments_settlement_changelist")
        filters = request.GET.urlencode()
        return TemplateResponse(
            request,
            "admin/payments/settlement/bank_answer.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": gettext("Record the bank's payment")
                if paid
                else gettext("Record that the bank did not pay"),
                "paid": paid,
                "action": action,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "settlements": settlements,
                "form": form,
                "changelist_url": f"{changelist_url}?{filters}" if filters else changelist_url,
            },
        )

    @admin.action(
        description=_(
            "The bank paid the selected settlements (another staff member exported them)"
        ),
        permissions=["send"],
    )
    def mark_paid(self, request, queryset):
        return self._answer(request, queryset, paid=True, action="mark_paid")

    @admin.action(
        description=_("The bank did NOT pay the selected settlements"),
        permissions=["send"],
    )
    def mark_failed(self, request, queryset):
        return self._answer(request, queryset, paid=False, action="mark_failed")


@admin.register(SettlementAccount)
class SettlementAccountAdmin(
    PublicIdAdmin, MerchantRowsMixin, ActionsByPermission, ReadOnlyMixin, admin.ModelAdmin
):
    list_display = (
        "id",
        "account_column",
        "number_masked",
        "currency",
        "is_default",
        "merchant_name",
        "mode",
        "created",
    )
    list_filter = (
        MerchantFilter,
        "type",
        "currency",
        "livemode",
        "is_default",
        ("removed_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("=id", "=merchant__id")
    search_help_text = _("Settlement account id or merchant id (exact).")
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "merchant",
                    "livemode",
                    "type",
                    "currency",
                    "is_default",
                    "settlements_display",
                )
            },
        ),
        (
            _("Where the money goes"),
            {
                "fields": (
                    "account_holder",
                    "bank_name",
                    "number_masked",
                    "swift",
                    "network",
                )
            },
        ),
        (_("Times"), {"fields": ("created_at", "available_from", "removed_at")}),
    )
    swaps = {"number_masked": "number_full"}  # for staff who may send bank settlements
    readonly_fields = [*fieldset_fields(fieldsets), *swaps.values()]

    def get_list_display(self, request):
        return _swapped(super().get_list_display(request), request, self.swaps)

    def get_fieldsets(self, request, obj=None):
        return _swapped_fieldsets(super().get_fieldsets(request, obj), request, self.swaps)

    @admin.display(description=_("Bank or network"), ordering="type")
    def account_column(self, obj):
        return format_html(
            "{}<br><small>{}</small>",
            obj.bank_name or obj.get_network_display(),
            obj.account_holder,
        )

    @admin.display(description=_("Number"))
    def number_masked(self, obj):
        return nowrap(account_number(obj, full=False))

    @admin.display(description=_("Number"))
    def number_full(self, obj):
        return nowrap(account_number(obj, full=True))

    @admin.display(description=_("Settlements"))
    def settlements_display(self, obj):
        count = obj.settlements.count()
        if not count:
            return "-"
        url = reverse("admin:payments_settlement_changelist") + f"?account={obj.pk}"
        paid = obj.settlements.filter(status=SettlementStatus.PAID).aggregate(total=Sum("amount"))
        words = ngettext(
            "%(count)d settlement, %(paid)s paid",
            "%(count)d settlements, %(paid)s paid",
            count,
        ) % {"count": count, "paid": format_amount(paid["total"] or 0, obj.currency)}
        return format_html('<a href="{}">{}</a>', url, words)
