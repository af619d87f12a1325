"""Non-API routes of the payments app (the sandbox card provider and the card receipt endpoint)."""

urlpatterns: list = []
