"""The base of every /v1 view: who is calling, the serializer context that carries the mode, and
idempotent POSTs for every endpoint alike."""

from django.utils.translation import gettext_noop
from rest_framework.views import APIView

from payments.api import idempotency
from payments.api.authentication import ApiPrincipal
from payments.api.openapi import ApiSchema
from payments.errors import InvalidRequest
from payments.models import Merchant

_default_headers: dict[type, dict] = {}
READS = ("get", "head")  # the methods whose handlers only read (and may read the query string)


class ApiView(APIView):
    schema = ApiSchema()

    @property
    def default_response_headers(self) -> dict:
        """APIView's (Allow, and Vary: Accept with several renderers), worked out once per view
        class: they depend on nothing else."""
        headers = _default_headers.get(type(self))
        if headers is None:
            headers = _default_headers[type(self)] = super().default_response_headers
        return dict(headers)  # finalize_response takes Vary out of it

    def dispatch(self, request, *args, **kwargs):
        """APIView.dispatch, with a POST that carries an Idempotency-Key run through the
        idempotency layer once authentication, permissions and throttling have passed, and a
        query string no handler reads refused (see unread_query)."""
        self.args = args
        self.kwargs = kwargs
        self.query_read = False
        request = self.initialize_request(request, *args, **kwargs)
        self.request = request
        self.headers = self.default_response_headers
        try:
            self.initial(request, *args, **kwargs)
            method = request.method.lower()
            has_query = bool(request._request.META.get("QUERY_STRING"))
            handler = (
                getattr(self, method, self.http_method_not_allowed)
                if method in self.http_method_names
                else self.http_method_not_allowed
            )
            # A method the endpoint does not take is 405 whatever its query string says.
            if has_query and method not in READS and handler != self.http_method_not_allowed:
                self.unread_query()
            scope = None
            if (
                method == "post"
                and hasattr(self, "post")
                and isinstance(request.user, ApiPrincipal)
            ):
                scope = idempotency.scope_for(
                    request, merchant=self.merchant, livemode=self.livemode
                )
            if scope is None:
                response = handler(request, *args, **kwargs)
                if has_query and not self.query_read:
                    self.unread_query()
            else:
                response = idempotency.run(
                    scope=scope,
                    operation=lambda: self.finalize_response(
                        request, handler(request, *args, **kwargs), *args, **kwargs
                    ),
                )
        except Exception as exc:
            response = self.handle_exception(exc)
        self.response = self.finalize_response(request, response, *args, **kwargs)
        return self.response

    @property
    def principal(self) -> ApiPrincipal:
        return self.request.user

    @property
    def merchant(self) -> Merchant:
        return self.principal.merchant

    @property
    def livemode(self) -> bool:
        return self.principal.livemode

    def get_serializer_context(self) -> dict:
        return {"request": self.request, "livemode": self.livemode, "merchant": self.merchant}

    def unread_query(self) -> None:
        """A query parameter the endpoint does not read is refused like an unknown field of a
        body (400 parameter_unknown, contract §1): `GET /v1/charges/{id}?expand=refunds` would
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
