"""The base of every /v1 view: who is calling, the serializer context that carries the mode, and
idempotent POSTs for every endpoint alike. How a view is described in the OpenAPI document is
DEFAULT_SCHEMA_CLASS's (REST_FRAMEWORK settings)."""

import functools

from django.db import models
from django.utils.translation import gettext_noop
from rest_framework.views import APIView

from core.api import idempotency
from core.api.authentication import Principal
from core.errors import InvalidRequest

_default_headers: dict[type, dict] = {}
READS = ("get", "head")  # the methods whose handlers only read (and may read the query string)
HANDLED = ("get", "head", "post", "put", "patch", "delete")


class ApiView(APIView):
    @property
    def default_response_headers(self) -> dict:
        """APIView's (Allow, and Vary: Accept with several renderers), worked out once per view
        class: they depend on nothing else."""
        headers = _default_headers.get(type(self))
        if headers is None:
            headers = _default_headers[type(self)] = super().default_response_headers
        return dict(headers)  # finalize_response takes Vary out of it

    def __init_subclass__(cls, **kwargs):
        """Each handler a view defines runs through `_handled` (idempotency, the query string)."""
        super().__init_subclass__(**kwargs)
        for method in HANDLED:
            handler = cls.__dict__.get(method)
            if handler is not None:
                setattr(cls, method, _handled(handler))

    def initial(self, request, *args, **kwargs):
        """APIView's (authentication, permissions, throttling), then a query string refused on a
        request that writes (see unread_query), unless the endpoint does not take its method:
        that is 405 whatever its query string says."""
        super().initial(request, *args, **kwargs)
        self.handling = False
        self.query_read = False
        self.has_query = bool(request.META.get("QUERY_STRING"))
        method = request.method.lower()
        takes_it = method in self.http_method_names and hasattr(self, method)
        if self.has_query and method not in READS and takes_it:
            self.unread_query()

    @property
    def principal(self) -> Principal:
        return self.request.user

    @property
    def merchant(self) -> models.Model:
        return self.principal.merchant

    @property
    def livemode(self) -> bool:
        return self.principal.livemode

    def get_serializer_context(self) -> dict:
        return {"request": self.request, "livemode": self.livemode, "merchant": self.merchant}

    def unread_query(self) -> None:
        """A query parameter the endpoint does not read is refused like an unknown field of a
        body (400 parameter_unknown, docs/reference/api.md): `GET /v1/charges/{id}?expand=refunds`
        would
        otherwise answer as if the caller had been understood. A request that writes is refused
        before anything is done; a read (GET, HEAD: no handler of one changes anything) once its
        handler has shown whether it reads the query string (query())."""
        names = list(self.request.query_params)
        if names:
            raise InvalidRequest(
                gettext_noop("Received unknown parameter: %(param)s."),
                code="parameter_unknown",
                param=names[0],
                params={"param": names[0]},
            )

    def query(self) -> dict:
        """The query string, one value per name. A name given twice (`status=failed&status=
        succeeded`) is refused rather than one of its values silently taken: a list filtered on
        one status while the caller meant two would look complete and miss objects."""
        self.query_read = True
        params = self.request.query_params
        for name, values in params.lists():
            if len(values) > 1:
                raise InvalidRequest(
                    gettext_noop("Invalid %(param)s: given more than once."),
                    param=name,
                    params={"param": name},
                )
        return params.dict()

    def validated(self, serializer_class, data=None) -> dict:
        """Validate the request body (or `data`) and return the cleaned values."""
        if data is None:
            data = self.request.data
        serializer = serializer_class(data=data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


def _handled(handler):
    """`handler` (a view's get, post, …), run as every /v1 handler is: a POST that carries an
    Idempotency-Key through the idempotency layer (its answer finalized, so that it can be
    stored), and a read whose handler did not read the query string refused (unread_query). A
    handler that calls its parent's runs it as it is."""

    @functools.wraps(handler)
    def handle(view, request, *args, **kwargs):
        if view.handling:
            return handler(view, request, *args, **kwargs)
        view.handling = True
        method = request.method.lower()
        if method == "post" and request.user is not None:  # authenticated, by its key
            scope = idempotency.scope_for(request, merchant=view.merchant, livemode=view.livemode)
            if scope is not None:
                return idempotency.run(
                    scope=scope,
                    operation=lambda: view.finalize_response(
                        request, handler(view, request, *args, **kwargs), *args, **kwargs
                    ),
                )
        response = handler(view, request, *args, **kwargs)
        if view.has_query and not view.query_read:
            view.unread_query()
        return response

    return handle
