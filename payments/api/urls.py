"""/v1 routes of the payments app."""

urlpatterns: list = []
