"""/v1 routes of checkout sessions."""

urlpatterns: list = []
