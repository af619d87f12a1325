"""Start-up checks of the payments settings (Django's system checks, run by every manage.py
command and by the web and worker processes); imported by the app's ready()."""

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from payments.pricing import default_plan


@checks.register(checks.Tags.compatibility)
def pricing_default_check(app_configs, **kwargs):
    """PRICING_DEFAULT is a list of valid rates, none given twice (payments.pricing)."""
    try:
        default_plan()
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), id="payments.E001")]
    return []
