"""Responses: compact UTF-8 JSON with an explicit charset, whatever the Accept header says."""

from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer


class JsonRenderer(JSONRenderer):
    charset = "utf-8"

    def get_indent(self, accepted_media_type, renderer_context):
        return None  # compact: the negotiation below never accepts an `indent` parameter


class JsonOnlyNegotiation(BaseContentNegotiation):
    def select_parser(self, request, parsers):
        for parser in parsers:
            if parser.media_type == (request.content_type or "").split(";")[0].strip():
                return parser
        return None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
