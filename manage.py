#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line
    from django.utils import translation

    # Commands speak English, Django's (createsuperuser's prompts and messages) as ours: without
    # this, the field names and validation messages they show would be in LANGUAGE_CODE's French
    # within English sentences ("Error: That nom d’utilisateur is already taken.").
    translation.deactivate_all()
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
