"""What every dashboard and account page shows around its content: the active merchant and the
user's role (the navigation shows only what the role allows), the others to switch to, the mode."""

from dashboard.permissions import active_membership, memberships_of

PREFIXES = ("/dashboard/", "/accounts/")


def dashboard(request):
    if not request.path.startswith(PREFIXES) or not request.user.is_authenticated:
        return {}
    membership = getattr(request, "membership", None) or active_membership(request)
    return {
        "membership": membership,
        "memberships": memberships_of(request.user) if membership else [],
        "mode": getattr(request, "mode", "") or "test",
    }
