"""Adapters to the outside world (mobile money operators, the card provider). They exchange the
dataclasses of base.py with the core and know nothing of our models."""
