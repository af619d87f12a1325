"""Staff views of the networks: close one in a mode (an operator's outage or maintenance; new
charges and payouts on it are then refused with 503 network_unavailable and the hosted page no
longer offers it) or reopen it, and see how each one does now (operational, degraded, closed,
with its recent operator errors and timeouts). Changes go through services.networks; closing and
reopening both need payments.change_networkstate."""

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission
from core.admin.display import mode_name
from payments import selectors
from payments.models import NetworkState
from payments.services import networks

# A network's status as the API says it (GET /v1/networks), in the staff's language.
STATUS_WORDS = {
    "operational": pgettext_lazy("network status", "operational"),
    "degraded": pgettext_lazy("network status", "degraded"),
    "closed": pgettext_lazy("network status", "closed"),
}


class NetworkStateForm(forms.ModelForm):
    class Meta:
        model = NetworkState
        fields = ("closed", "reason")
        widgets = {"reason": forms.Textarea(attrs={"rows": 3, "cols": 60})}

    def clean(self):
        data = super().clean()
        if data.get("closed") and not (data.get("reason") or "").strip():
            self.add_error("reason", gettext("Say why the network is closed (for staff only)."))
        return data


@admin.register(NetworkState)
class NetworkStateAdmin(ActionsByPermission, admin.ModelAdmin):
    form = NetworkStateForm
    list_display = (
        "network",
        "mode",
        "closed",
        "status_display",
        "reason",
        "updated_at",
        "updated_by",
    )
    list_filter = ("livemode", "closed")
    list_display_links = ("network",)
    ordering = ("livemode", "network")
    fields = (
        "network",
        "mode",
        "status_display",
        "closed",
        "reason",
        "updated_at",
        "updated_by",
    )
    readonly_fields = ("network", "mode", "status_display", "updated_at", "updated_by")
    actions = ["reopen"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        networks.network_states_ensure()  # a network added since is listed too
        return super().changelist_view(request, extra_context)

    @admin.display(description="Mode", ordering="livemode")
    def mode(self, obj):
        return mode_name(obj.livemode)

    @admin.display(description=_("Status now"))
    def status_display(self, obj):
        settled, troubled = selectors.network_recent_outcomes(livemode=obj.livemode).get(
            obj.network, (0, 0)
        )
        status = selectors.network_status(closed=obj.closed, settled=settled, troubled=troubled)
        minutes = settings.NETWORK_DEGRADED_WINDOW // 60
        return gettext(
            "%(status)s — last %(minutes)d min: %(troubled)d of %(settled)d settled charges "
            "failed with an operator error or timeout"
        ) % {
            "status": STATUS_WORDS.get(status, status),
            "minutes": minutes,
            "troubled": troubled,
            "settled": settled,
        }

    def save_model(self, request, obj, form, change):
        state = networks.network_set_closed(
            network=obj.network,
            livemode=obj.livemode,
            closed=obj.closed,
            reason=obj.reason.strip(),
            by=request.user.get_username(),
        )
        obj.pk, obj.updated_at, obj.updated_by = state.pk, state.updated_at, state.updated_by
        if state.closed:
            self.message_user(
                request,
                gettext(
                    "%(network)s is closed: new charges and payouts on it answer 503 "
                    "network_unavailable and the hosted page no longer offers it."
                )
                % {"network": state},
                messages.WARNING,
            )

    @admin.action(description=_("Reopen the selected networks"), permissions=["change"])
    def reopen(self, request, queryset):
        for state in queryset.filter(closed=True):
            networks.network_set_closed(
                network=state.network,
                livemode=state.livemode,
                closed=False,
                by=request.user.get_username(),
            )
            self.message_user(
                request,
                gettext("%(network)s is open again.") % {"network": state},
                messages.SUCCESS,
            )
