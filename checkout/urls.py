"""Hosted checkout pages."""

urlpatterns: list = []
