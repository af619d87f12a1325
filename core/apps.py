from django.apps import AppConfig


class CoreConfig(AppConfig):
    """core is an installed app for its French catalogue (core/locale/fr), which Django reads from
    installed apps (and LOCALE_PATHS) only; it has no models, URLs or tasks of its own. Where two
    catalogues translate one message, the app listed first wins: core comes with the project's
    apps, after Django's and REST framework's, before allauth's."""

    name = "core"
