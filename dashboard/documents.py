"""The documents of an application for live mode (docs/guides/going-live.md): what they may be,
where they are kept, and how staff read them.

A document is a PDF, a JPEG or a PNG of at most MAX_BYTES, its type known by its first bytes
(its content), never by its name or the type the browser announced: a program renamed
`rccm.pdf` is refused. It is kept through Django's storage API (the `default` storage: the file
system under MEDIA_ROOT, or an S3-compatible bucket, config/settings/apps.py) under a random
name, and never at an address of its own: staff holding payments.review_activation read it
through the admin's view, which streams it (dashboard/admin.py)."""

import posixpath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import FileResponse
from django.utils.translation import gettext as _

from core import ids

# The types taken, by the bytes a file of that type begins with.
SIGNATURES = {
    b"%PDF-": ("application/pdf", "pdf"),
    b"\xff\xd8\xff": ("image/jpeg", "jpg"),
    b"\x89PNG\r\n\x1a\n": ("image/png", "png"),
}
# What the file pickers offer: those types, by extension and by type.
ACCEPT = ".pdf,.jpg,.jpeg,.png,application/pdf,image/jpeg,image/png"


def max_bytes() -> int:
    return settings.ACTIVATION_DOCUMENT_MAX_BYTES


def max_megabytes() -> int:
    return max_bytes() // (1024 * 1024)


def too_large() -> str:
    """What a file over the limit is told, by the page before it is sent and by the server."""
    return _("This file is larger than %(size)s MB: send a smaller scan or photo.") % {
        "size": max_megabytes()
    }


def kind_of(head: bytes) -> tuple[str, str] | None:
    """(content type, extension) of a file beginning with `head`, or None: not a type taken."""
    for signature, kind in SIGNATURES.items():
        if head.startswith(signature):
            return kind
    return None


def check(upload) -> str:
    """The extension of the type the file's content has; refused in words when the file is too
    large or is no PDF, JPEG or PNG by its content."""
    if upload.size > max_bytes():
        raise ValidationError(too_large(), code="file_too_large")
    upload.seek(0)
    head = upload.read(16)
    upload.seek(0)
    kind = kind_of(head)
    if kind is None:
        raise ValidationError(
            _("This file is not a PDF, JPEG or PNG document. Send a scan or a photo."),
            code="file_type",
        )
    return kind[1]


def storage_name(instance, filename: str) -> str:
    """A random name under the merchant's folder, with the extension of the type its content
    has (the form names the upload after it: the name the person gave it is not kept)."""
    extension = posixpath.splitext(filename)[1].lstrip(".").lower()
    if extension not in {kind[1] for kind in SIGNATURES.values()}:
        extension = "bin"
    return posixpath.join("activation", instance.merchant_id, f"{ids.random_token(32)}.{extension}")


def stream(field, *, download_name: str) -> FileResponse:
    """The document of `field` (a FieldFile), read from the storage and streamed with the type
    its content has, to be shown in the browser (PDF and images) and kept by no cache."""
    document = field.storage.open(field.name, "rb")
    head = document.read(16)
    document.seek(0)
    content_type, extension = kind_of(head) or ("application/octet-stream", "bin")
    response = FileResponse(
        document, content_type=content_type, filename=f"{download_name}.{extension}"
    )
    response["Cache-Control"] = "private, no-store"
    # Nothing beside the document itself: no script, no form, no frame of another page.
    response["Content-Security-Policy"] = (
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    )
    return response
