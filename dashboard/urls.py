from django.urls import include, path, register_converter

from dashboard import views
from dashboard.pages import settlement_accounts


class ModeConverter:
    regex = "test|live"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ModeConverter, "mode")

app_name = "dashboard"

urlpatterns = [
    path("", views.index, name="index"),
    path("start/", views.no_merchant, name="no-merchant"),
    path("switch/", views.switch, name="switch"),
    path("settings/", views.index_settings, name="settings"),
    path("settings/business/", views.settings_business, name="settings-business"),
    path("settings/team/", views.settings_team, name="settings-team"),
    path("settings/team/<int:member_id>/role/", views.member_role, name="member-role"),
    path("settings/team/<int:member_id>/remove/", views.member_remove, name="member-remove"),
    path(
        "settings/team/invitations/<int:invitation_id>/resend/",
        views.invitation_resend,
        name="invitation-resend",
    ),
    path(
        "settings/team/invitations/<int:invitation_id>/revoke/",
        views.invitation_revoke,
        name="invitation-revoke",
    ),
    path("settings/security/", views.settings_security, name="settings-security"),
    path("settings/pricing/", views.settings_pricing, name="settings-pricing"),
    path("settings/notifications/", views.settings_notifications, name="settings-notifications"),
    path(
        "settings/settlement/",
        settlement_accounts.settlement_accounts,
        name="settings-settlement",
    ),
    path(
        "settings/settlement/<str:account_id>/remove/",
        settlement_accounts.settlement_account_remove,
        name="settlement-account-remove",
    ),
    path("settings/activation/", views.settings_activation, name="settings-activation"),
    path("settings/security/transfer/", views.ownership_transfer, name="ownership-transfer"),
    path("audit/", views.audit_log, name="audit"),
    path("invitations/<str:key>/", views.invitation, name="invitation"),
    path("<mode:mode>/", views.home, name="home"),
    path("<mode:mode>/", include("dashboard.pages.urls")),
]
