"""The base of every /v1 view: who is calling, and the serializer context that carries the mode."""

from rest_framework.views import APIView

from payments.api.authentication import ApiPrincipal
from payments.models import Merchant


class ApiView(APIView):
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

    def validated(self, serializer_class, data=None) -> dict:
        """Validate the request body (or `data`) and return the cleaned values."""
        serializer = serializer_class(
            data=self.request.data if data is None else data,
            context=self.get_serializer_context(),
        )
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data
