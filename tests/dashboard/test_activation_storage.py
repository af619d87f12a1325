"""Where the documents of applications for live mode are kept: the default storage, the file
system under MEDIA_ROOT (VAR_DIR/media) unless MEDIA_S3_BUCKET names an S3-compatible bucket
(django-storages), and never at an address of the site."""

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.test import Client

from dashboard.models import ActivationApplication

ROOT = settings.BASE_DIR


def settings_read(env: dict, code: str) -> str:
    """What `code` prints with the settings read from `env` (SQLite and the embedded broker)."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG"} and not k.startswith("MEDIA_")
    }
    clean.update({"EMBEDDED": "true", **env}, DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        env=clean,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_file_system_under_var_dir_by_default(tmp_path):
    out = settings_read(
        {"VAR_DIR": str(tmp_path)},
        "from django.conf import settings as s; from django.core.files.storage import storages; "
        "print(type(storages['default']).__name__, s.MEDIA_ROOT, repr(s.MEDIA_URL), "
        "oct(s.FILE_UPLOAD_PERMISSIONS))",
    )
    # No MEDIA_URL: Django reads it as the site's root, where no document is served (below).
    assert out == f"FileSystemStorage {tmp_path / 'media'} '/' 0o600"


def test_an_s3_compatible_bucket_when_one_is_named(tmp_path):
    out = settings_read(
        {
            "VAR_DIR": str(tmp_path),
            "MEDIA_S3_BUCKET": "congopay-documents",
            "MEDIA_S3_ENDPOINT_URL": "https://s3.example.cd",
            "MEDIA_S3_REGION": "af-south-1",
            "MEDIA_S3_ACCESS_KEY_ID": "AKIAEXAMPLE",
            "MEDIA_S3_SECRET_ACCESS_KEY": "secret",
            "MEDIA_S3_ADDRESSING_STYLE": "path",
            "MEDIA_S3_PREFIX": "activation-documents",
        },
        "from django.core.files.storage import storages; d = storages['default']; "
        "print(type(d).__module__, d.bucket_name, d.endpoint_url, d.region_name, "
        "d.addressing_style, d.location, d.file_overwrite)",
    )
    assert out == (
        "storages.backends.s3 congopay-documents https://s3.example.cd af-south-1 path "
        "activation-documents False"
    )


@pytest.mark.django_db
def test_no_address_of_the_site_serves_a_document(shop, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    application = ActivationApplication(merchant=shop)
    application.rccm_certificate.save("rccm_certificate.pdf", ContentFile(b"%PDF-1.7\n"))
    name = application.rccm_certificate.name
    assert (tmp_path / "media" / name).exists()
    assert name.startswith(f"activation/{shop.pk}/") and name.endswith(".pdf")
    for address in (f"/{name}", f"/media/{name}", f"/static/{name}"):
        assert Client().get(address).status_code == 404, address
